// On the GPU: the CLI tunes a problem end to end into a fresh database, then a runtime call
// finds and launches the stored winner; a CLI run killed mid-way resumes without losing or
// repeating a measurement.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "gpu.hpp"
#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

TEST(EndToEnd, CliTunesThenRuntimeUsesTheStoredWinner) {
  HT_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "histtune_e2e";
  std::filesystem::remove_all(dir);
  const std::string db_path = (dir / "tune.db").string();
  const std::string cmd = histtune::test::cli_path() + " --gpu auto --db " + db_path +
                          " --problem u8:direct:256:2^20 --problem u32:direct:4096:2^20 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int rc = ::pclose(pipe);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("winner tpb"), std::string::npos) << out;

  Dispatcher disp(db_path);
  const DeviceInfo d = query_device(current_device());
  db::Database db(db_path);
  for (std::uint32_t bins : {256u, 4096u}) {
    Problem p;
    p.sample_type = bins == 256 ? SampleType::u8 : SampleType::u32;
    p.num_bins = bins;
    p.n = 1u << 20;
    auto w = db.winner(d.uuid, p.key());
    ASSERT_TRUE(w) << p.describe();
    EXPECT_FALSE(db.measurements(d.uuid, p.key()).empty());

    const auto host = tuner::make_samples(p, 99, tuner::Distribution::mixed);
    tuner::DeviceInputs in(p, host, 0);
    Choice used;
    Status s = disp.run(p, in.samples(0), in.counts(), nullptr, &used);
    ASSERT_TRUE(s.ok()) << s.message();
    HT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(used.level, LookupLevel::exact);
    EXPECT_EQ(used.config.label(), w->config_label);
    EXPECT_EQ(in.read_counts(bins), reference_histogram(p, host.data()));

    Problem near = p;  // an untuned size finds the nearest tuned one
    near.n = (1u << 21) + 5;
    EXPECT_EQ(disp.explain(d, near).level, LookupLevel::nearest_shape);
  }
  std::filesystem::remove_all(dir);
}

TEST(EndToEnd, CliRunKilledMidWayResumesWithEveryFinishedMeasurement) {
  HT_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "histtune_e2e_kill";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db_path = (dir / "tune.db").string();
  const std::string cmd = histtune::test::cli_path() + " --gpu auto --db " + db_path +
                          " --problem u8:direct:256:2^22 --budget 60 --json";
  Problem p;
  p.n = 1u << 22;
  const DeviceInfo d = query_device(current_device());
  auto stored = [&]() -> std::size_t {
    if (!std::filesystem::exists(db_path)) return 0;
    try {
      const db::Database db(db_path, db::Database::OpenMode::kReadOnly);
      return db.measurements(d.uuid, p.key()).size();
    } catch (const db::DbError&) {
      return 0;  // not created yet
    }
  };

  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + cmd + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  const auto t0 = std::chrono::steady_clock::now();
  while (stored() < 20 && std::chrono::steady_clock::now() - t0 < std::chrono::minutes(3))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  {
    SQLite::Database raw(db_path, SQLite::OPEN_READONLY);
    EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
  }
  const std::size_t before = stored();
  ASSERT_GE(before, 20u);

  std::FILE* pipe = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  ASSERT_EQ(::pclose(pipe), 0) << out;
  const nlohmann::json j = nlohmann::json::parse(out);
  const nlohmann::json& r = j.at("results").at(0);
  EXPECT_EQ(r.at("reused").get<std::size_t>(), before) << "every stored measurement reused";
  db::Database db(db_path);
  std::set<std::string> keys;
  for (const auto& m : db.measurements(d.uuid, p.key()))
    EXPECT_TRUE(keys.insert(m.distribution + "/" + m.config_label).second)
        << "measured twice: " << m.config_label;
  EXPECT_EQ(keys.size(), before + r.at("measured").get<std::size_t>());
  EXPECT_TRUE(db.winner(d.uuid, p.key()));
  std::filesystem::remove_all(dir);
}
