// `histtune explain`: the dispatcher's lookup from the command line, without a GPU: the
// configuration, its level, what was skipped and why; read-only.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;

const histtune::db::DeviceRow kDevice{"GPU-explain", "Fixture H100", 9, 0, 132, 1, 1, 13000, 13000};
const char* const kCurrentLabel = "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4";

// One winner for u8:direct:256:2^20 measured by this build, tuned on kDevice.
void store_current_winner(const std::string& path) {
  histtune::db::Database db(path);
  db.set_winner(kDevice, {"hist1d", "u8", "direct", 256, 1u << 20}, kCurrentLabel, 0.01,
                histtune::templates::get(histtune::hist1d::kTemplate).hash, histtune::version());
}

TEST(ExplainCommand, StaleRowsFallBackToTheDefaultAndAreNamed) {
  ScratchDir dir("histtune_explain_stale");
  const std::string db = dir / "a.db";
  ASSERT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + db).rc, 0);
  const std::string before = read_text(db);
  // The fixture's only device is used when no GPU is here; --device names it anyway.
  auto r = run_cli("explain --problem u8:direct:256:2^28 --device GPU-1 --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"runs      tpb", "level     default", "skipped stale tpb1024.vpt2.vec16",
                        "the kernel source changed since (template h, now", "Fixture H100"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(read_text(db), before) << "explain writes nothing";
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(db + "-shm"));
}

TEST(ExplainCommand, CurrentRowsAreExactNearestOrSameArch) {
  ScratchDir dir("histtune_explain_levels");
  const std::string db = dir / "a.db";
  store_current_winner(db);
  auto r = run_cli_split("explain --json --problem u8:direct:256:2^20 --device GPU-explain --db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["level"], "exact");
  EXPECT_EQ(j["configuration"].get<std::string>().rfind(kCurrentLabel, 0), 0u) << r.out;
  EXPECT_EQ(j["device"]["uuid"], "GPU-explain");
  r = run_cli_split("explain --json --problem u8:direct:256:2^22 --device GPU-explain --db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["level"], "nearest_shape") << r.out;
  // Any sm_90 device: the stored one is another device of the same architecture.
  r = run_cli("explain --problem u8:direct:256:2^20 --arch sm_90 --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("level     same_arch"), std::string::npos) << r.out;
  // No stored row of sm_80: the default.
  r = run_cli("explain --problem u8:direct:256:2^20 --arch sm_80 --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("level     default"), std::string::npos) << r.out;
}

TEST(ExplainCommand, BadDeviceArchOrProblemIsAUsageError) {
  ScratchDir dir("histtune_explain_errors");
  const std::string db = dir / "a.db";
  store_current_winner(db);
  struct Case {
    std::string args, why;
  } cases[] = {
      {"--problem u8:direct:256:2^20 --device GPU-nope", "--device GPU-nope is not in"},
      {"--problem u8:direct:256:2^20 --arch sm_9", "--arch 'sm_9'"},
      {"--problem u8:direct:256:2^20 --arch sm_42", "known architecture"},
      {"--problem u8:direct:300:2^20 --arch sm_90", "at most 256 bins"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli_split("explain " + c.args + " --db " + db);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.why), std::string::npos) << c.args << "\n" << r.err;
  }
  EXPECT_EQ(run_cli("explain --problem u8:direct:256:2^20 --arch sm_90 --device GPU-explain --db " +
                    db).rc,
            2)
      << "--arch and --device exclude each other";
}

TEST(ExplainCommand, WithoutADatabaseTheDefaultIsExplained) {
  ScratchDir dir("histtune_explain_nodb");
  const auto r = run_cli("explain --problem u8:direct:256:2^20 --arch sm_90 --db " + (dir / "none.db"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("no tuning database at"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db")) << "explain creates nothing";
}

// --resources compiles the configuration the call runs (here the partitioned default of 2^20
// bins: 512 threads, two blocks an SM) for the architecture and reads its CUBIN, still without a
// GPU; the JSON carries the same numbers (its static shared memory: the 1 KB of every sm_90
// kernel, its own being dynamic).
TEST(ExplainCommand, ResourcesAreTheCompiledKernelsRegistersAndMemory) {
  ScratchDir dir("histtune_explain_resources");
  const std::string args = "explain --problem f32:even:1048576:2^24:0:100 --arch sm_90 --resources --db " +
                           (dir / "none.db");
  const auto r = run_cli(args);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("kernel    histtune_hist1d: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" registers a thread, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", 1024 bytes of static shared memory a block ("), std::string::npos)
      << r.out;
  const auto j = run_cli_split(args + " --json");
  ASSERT_EQ(j.rc, 0) << j.err;
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["resources"]["kernel"], "histtune_hist1d");
  EXPECT_GT(doc["resources"]["registers"].get<int>(), 32);
  EXPECT_LE(doc["resources"]["registers"].get<int>(), 64);
  EXPECT_EQ(doc["resources"]["shared_bytes"], 1024);
  const auto without = run_cli_split("explain --problem u8:direct:256:2^20 --arch sm_90 --json --db " +
                                     (dir / "none.db"));
  EXPECT_TRUE(nlohmann::json::parse(without.out)["resources"].is_null()) << without.out;
}

// --cubin FILE writes the CUBIN NVRTC compiled for the architecture (an ELF holding the family's
// kernel), still without a GPU; a file that cannot be written is refused with exit code 2.
TEST(ExplainCommand, CubinIsTheCompiledKernelsElf) {
  ScratchDir dir("histtune_explain_cubin");
  const std::string cubin = dir / "k.cubin";
  const auto r = run_cli("explain --problem u32:direct:65536:2^26 --arch sm_90 --cubin " + cubin +
                         " --db " + (dir / "none.db"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("cubin     " + cubin + " (sm_90, NVRTC "), std::string::npos) << r.out;
  std::ifstream in(cubin, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 4), "\x7f" "ELF");
  EXPECT_NE(bytes.find("histtune_hist1d"), std::string::npos) << "the kernel's symbol";
  const auto bad = run_cli("explain --problem u32:direct:65536:2^26 --arch sm_90 --cubin " +
                           (dir / "none") + "/such/k.cubin --db " + (dir / "none.db"));
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("cannot write --cubin file"), std::string::npos) << bad.out;
}

}  // namespace
