// What the runtime makes of stored winners (tools/standing.cpp), and the commands that say it:
// import (plain and gzip), show, info and report; read-only commands and a repeated import
// leave the database file as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"
#include "standing.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_shell;
using histtune::test::ScratchDir;
namespace cli = histtune::cli;

histtune::db::WinnerRow winner(const std::string& hash, const std::string& histtune_version,
                               const std::string& nvrtc) {
  histtune::db::WinnerRow w;
  w.problem = {"hist1d", "u8", "direct", 256, 1u << 20};
  w.config_label = "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4";
  w.template_hash = hash;
  w.histtune_version = histtune_version;
  w.device.nvrtc_version = nvrtc;
  w.device.driver_version = 13000;
  return w;
}

TEST(Standing, CountsUsedUnverifiedAndStaleByTheDispatchersRule) {
  const std::string hash = histtune::templates::get(histtune::hist1d::kTemplate).hash;
  const std::string nvrtc = histtune::nvrtc_version();
  const cli::Standing s = cli::standing_of(
      {winner(hash, histtune::version(), nvrtc), winner(hash, "0.0.1", nvrtc),
       winner("old", histtune::version(), nvrtc), winner("old", "0.0.1", nvrtc)},
      /*driver=*/0);
  EXPECT_EQ(s.used, 1u);
  EXPECT_EQ(s.unverified, 1u);
  EXPECT_EQ(s.stale, 2u);
  const std::string text = cli::standing_text(s, "  ");
  for (const std::string& line : std::vector<std::string>{
           "  the runtime uses 1 of 4 winners as measured\n",
        "  2 skipped as stale, their kernel source changed since they were tuned: hist1d template "
        "old, now " + hash,
        "  1 used but unverified, recorded under histtune 0.0.1 -> " +
            std::string(histtune::version())})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  // A driver is compared only when this machine has one.
  EXPECT_EQ(cli::standing_of({winner(hash, histtune::version(), nvrtc)}, 12080).unverified, 1u);
  EXPECT_EQ(cli::standing_text({}, "").rfind("no winners stored", 0), 0u);
}

TEST(StandingCommands, ImportShowInfoAndReportSayTheStaleRows) {
  ScratchDir dir("histtune_standing_cli");
  const std::string db = dir / "a.db";
  const std::string gz = dir / "small.json.gz";
  ASSERT_EQ(run_shell("gzip -c " + fixture("small_export.json") + " > " + gz).rc, 0);
  auto r = run_cli("import " + gz + " --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  const char* const stale = "1 skipped as stale, their kernel source changed since they were "
                            "tuned: hist1d template h, now";
  for (const char* s : {"2 new measurements, 1 winners", "the runtime uses 0 of 1 winners", stale})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  const std::string imported = read_text(db);
  for (const std::string& cmd :
       std::vector<std::string>{"show --top 2", "info", "report --html " + (dir / "r.html"),
                                "export --out " + (dir / "e.json"), "show --json"}) {
    r = run_cli(cmd + " --db " + db);
    EXPECT_TRUE(r.rc == 0 || (cmd == "info" && r.rc == 3)) << cmd << "\n" << r.out;
    if (cmd.rfind("export", 0) != 0 && cmd != "show --json") {
      EXPECT_NE(r.out.find(stale), std::string::npos) << cmd << "\n" << r.out;
    }
    EXPECT_EQ(read_text(db), imported) << cmd << " writes nothing";
    EXPECT_FALSE(std::filesystem::exists(db + "-wal")) << cmd;
    EXPECT_FALSE(std::filesystem::exists(db + "-shm")) << cmd;
  }
  r = run_cli("show --top 2 --db " + db);
  EXPECT_NE(r.out.find("[stale: skipped by the runtime]"), std::string::npos) << r.out;
  // --top names each measurement's input distribution (format 1 exports: uniform).
  EXPECT_NE(r.out.find("      uniform  tpb1024.vpt2.vec16"), std::string::npos) << r.out;
  // The same file again adds nothing and rewrites nothing.
  r = run_cli("import " + fixture("small_export.json") + " --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("0 new measurements, 0 winners"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(db), imported);
  EXPECT_FALSE(std::filesystem::exists(db + "-wal"));
}

TEST(StandingCommands, CorruptGzipIsABadImportFile) {
  ScratchDir dir("histtune_standing_gz");
  const std::string gz = dir / "cut.json.gz";
  ASSERT_EQ(run_shell("gzip -c " + fixture("small_export.json") + " | head -c 40 > " + gz).rc, 0);
  const auto r = run_cli("import " + gz + " --db " + (dir / "a.db"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("gzip data"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "a.db"));
}

}  // namespace
