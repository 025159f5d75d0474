// On the GPU: the CLI tunes a problem end to end into a fresh database, then a runtime call
// finds and launches the stored winner.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "gpu.hpp"
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
