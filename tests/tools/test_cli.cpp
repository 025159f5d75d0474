// The CLI as a user meets it: help and version, and the database commands, which need no GPU,
// doing their work. Bad input: test_cli_errors.cpp; --json documents: test_cli_json.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::ScratchDir;

TEST(Cli, HelpListsCommandsOptionsAndExitCodes) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* s : {"--gpu", "--db", "compare", "info", "tune", "--problem", "Exit codes"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

// Each command offers exactly the options it reads (no --gpu where no GPU is used), and every
// help ends with the exit codes.
TEST(Cli, EveryCommandsHelpListsItsOptionsAndExitCodes) {
  struct Command {
    const char* name;
    std::vector<const char*> has, lacks;
  } commands[] = {
      {"tune", {"--gpu", "--db", "--json", "--quiet", "--verbose", "--problem", "--strategy",
                "--budget", "--time-limit", "--decision", "--pending", "TYPE:BINNING:BINS:N"}, {}},
      {"compare", {"--gpu", "--db", "--json", "--quiet", "--verbose", "--problem", "within 2%"},
       {"--strategy", "--decision"}},
      {"info", {"--gpu", "--db", "--json"}, {"--quiet", "--problem"}},
      {"bench", {"--gpu", "--db", "--json [FILE]", "--only", "--matrix", "--quiet"},
       {"--verbose"}},
      {"stability", {"--gpu", "--json [FILE]", "--rounds", "--quiet", "A.db", "B.db"},
       {"--db", "--verbose"}},
      {"show", {"--db", "--json", "--problem", "--top", "--pending"}, {"--gpu"}},
      {"report", {"--db", "--json", "--html", "--quiet", "inline SVG"}, {"--gpu"}},
      {"export", {"--db", "--out", "--device", "--json"}, {"--gpu"}},
      {"import", {"--db", "--json", "file", "changes nothing"}, {"--gpu"}},
      {"merge", {"--db", "--json", "other"}, {"--gpu"}},
      {"prune", {"--db", "--json", "--all-versions", "--dry-run"}, {"--gpu"}},
      {"explain", {"--gpu", "--db", "--json", "--problem", "--device", "--arch", "--strict"},
       {"--quiet"}},
  };
  for (const auto& c : commands) {
    auto r = run_cli(std::string(c.name) + " --help");
    EXPECT_EQ(r.rc, 0) << c.name;
    EXPECT_NE(r.out.find(std::string("Usage: histtune ") + c.name), std::string::npos) << r.out;
    for (const char* s : {"Exit codes:", "  3  no CUDA device", "  4  the database"})
      EXPECT_NE(r.out.find(s), std::string::npos) << c.name << ": " << s << "\n" << r.out;
    for (const char* s : c.has) EXPECT_NE(r.out.find(s), std::string::npos) << c.name << ": " << s;
    // The options block runs from "Options:" to the first empty line; the text below may
    // mention other commands' options.
    const auto from = r.out.find("Options:");
    const std::string options = r.out.substr(from, r.out.find("\n\n", from) - from);
    for (const char* s : c.lacks) EXPECT_EQ(options.find(s), std::string::npos) << c.name << ": " << s;
  }
}

// A bare `histtune` prints the help: a tuning run takes minutes and writes a database.
TEST(Cli, BareHisttunePrintsTheHelpAndTunesNothing) {
  ScratchDir dir("histtune_cli_bare");
  auto r = histtune::test::run_shell("HISTTUNE_DB=" + (dir / "h.db") + " " +
                                     histtune::test::cli_path() + " 2>&1");
  EXPECT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"Usage: histtune", "explain", "Exit codes"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "h.db"));
}

TEST(Cli, VersionPrintsTheVersion) {
  auto r = run_cli("--version");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("histtune 0."), std::string::npos) << r.out;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  auto r = run_cli("--bogus");
  EXPECT_EQ(r.rc, 2) << r.out;
}

TEST(CliDatabase, ImportExportMergeReportPruneWithoutAGpu) {
  ScratchDir dir("histtune_cli_db");
  const std::string a = dir / "a.db", b = dir / "b.db";
  auto r = run_cli("import " + fixture("small_export.json") + " --db " + a);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("2 new measurements, 1 winners"), std::string::npos) << r.out;
  r = run_cli("import " + fixture("small_export.json") + " --db " + a);  // nothing duplicated
  EXPECT_NE(r.out.find("0 new measurements"), std::string::npos) << r.out;
  r = run_cli("export --db " + a + " --out " + (dir / "e.json"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(read_text(dir / "e.json").find("tpb1024.vpt2.vec16"), std::string::npos);
  r = run_cli("merge " + a + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run_cli("report --html " + (dir / "r.html") + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string html = read_text(dir / "r.html");
  EXPECT_NE(html.find("Fixture H100"), std::string::npos);
  EXPECT_NE(html.find("class=\"mark tuned\""), std::string::npos);
  r = run_cli("prune --db " + b);  // the fixture's template hash is not this build's
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run_cli("export --db " + b);
  EXPECT_EQ(r.out.find("tpb1024"), std::string::npos) << r.out;
}

TEST(CliDatabase, ShowListsWinnersAndFastestMeasurements) {
  ScratchDir dir("histtune_cli_show");
  const std::string db = dir / "a.db";
  ASSERT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + db).rc, 0);
  auto r = run_cli("show --top 2 --db " + db);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("Fixture H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tpb256.vpt1.vec0"), std::string::npos) << "second fastest listed\n" << r.out;
  r = run_cli("show --json --problem u8:direct:256:2^28 --db " + db);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"winner_ms\": 0.1235"), std::string::npos) << r.out;
}

TEST(CliDatabase, ReportOfTheH100FixtureHasEveryProblem) {
  ScratchDir dir("histtune_cli_report");
  const std::string db = dir / "h100.db";
  ASSERT_EQ(run_cli("import " + fixture("h100_compare.json") + " --db " + db).rc, 0);
  auto r = run_cli("report --html " + (dir / "r.html") + " --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("1 devices, 6 problems"), std::string::npos) << r.out;
  const std::string html = read_text(dir / "r.html");
  for (const char* s : {"NVIDIA H100 80GB HBM3", "CUDA driver 13.0", "NVRTC 13.0",
                        "u32 direct bins=4096 n=2^26", "70.7% of floor",
                        "tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2", "u8 direct, 256 bins"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
}

TEST(CliDatabase, MultiChannelWinnersAreNamedByTheirSpecAndSurvivePrune) {
  ScratchDir dir("histtune_cli_mc");
  const std::string path = dir / "mc.db";
  histtune::db::ProblemRow pixels{"multichannel", "u8", "direct", 256, 1u << 20};
  pixels.channels = 4;
  pixels.active_channels = 3;
  const histtune::db::ProblemRow flat{"hist1d", "u8", "direct", 256, 1u << 20};
  {
    histtune::db::Database db(path);
    histtune::db::DeviceRow d{"GPU-mc", "Fixture H100", 9, 0, 132, 1, 1, 13000, 13000};
    db.set_winner(d, pixels, "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0", 0.05,
                  histtune::templates::get(histtune::multichannel::kTemplate).hash,
                  histtune::version());
    db.set_winner(d, flat, "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4", 0.01,
                  histtune::templates::get(histtune::hist1d::kTemplate).hash, histtune::version());
  }
  auto r = run_cli("show --json --problem mc:3/4:u8:direct:256:2^20 --db " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* s : {"\"spec\": \"mc:3/4:u8:direct:256:2^20\"", "\"channels\": 4",
                        "\"active_channels\": 3", "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("tpb256.vpt1.vec0.pc1.lay0"), std::string::npos) << "only the named problem";
  // Each family keeps the results of its own current kernel template.
  r = run_cli("prune --db " + path);
  ASSERT_EQ(r.rc, 0) << r.out;
  histtune::db::Database db(path);
  EXPECT_TRUE(db.winner("GPU-mc", pixels));
  EXPECT_TRUE(db.winner("GPU-mc", flat));
}

}  // namespace
