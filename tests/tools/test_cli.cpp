// The CLI as a user meets it: help, version, bad input, and (on a machine without a GPU) one
// clear line and a non-zero exit instead of a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "cli_runner.hpp"

namespace {

using Result = histtune::test::CliResult;
Result run(const std::string& args) { return histtune::test::run_cli(args); }

TEST(Cli, HelpListsCommandsOptionsAndExitCodes) {
  Result r = run("--help");
  EXPECT_EQ(r.rc, 0);
  for (const char* s : {"--gpu", "--db", "compare", "info", "tune", "--problem", "Exit codes"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(Cli, VersionPrintsTheVersion) {
  Result r = run("--version");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("histtune 0."), std::string::npos) << r.out;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  Result r = run("--bogus");
  EXPECT_EQ(r.rc, 2) << r.out;
}

TEST(Cli, MalformedProblemNamesTheBadField) {
  Result r = run("--problem u9:direct:256:2^20 --db /tmp/histtune_cli_unused.db");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("unknown sample type 'u9'"), std::string::npos) << r.out;
  r = run("--problem u8:direct:0:2^20");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("num_bins"), std::string::npos) << r.out;
}

TEST(Cli, BadGpuArgumentIsAUsageError) {
  Result r = run("--gpu banana --problem u8:direct:256:2^10");
  if (histtune::test::no_gpu_reason().empty()) {
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find("--gpu must be"), std::string::npos) << r.out;
  } else {
    EXPECT_NE(r.rc, 0) << r.out;
  }
}

TEST(Cli, WithoutAGpuEveryGpuCommandSaysSoInOneLine) {
  if (histtune::test::no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  const std::string db = "/tmp/histtune_cli_nogpu.db";
  for (const char* cmd : {"--gpu auto", "tune --gpu 0", "compare --gpu auto", "info"}) {
    Result r = run(std::string(cmd) + " --db " + db);
    EXPECT_EQ(r.rc, 3) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("no CUDA device"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_EQ(r.out.find("Abort"), std::string::npos) << r.out;
  }
}

TEST(Cli, CorruptDatabaseIsReportedAndLeftUntouched) {
  const std::string path = "/tmp/histtune_cli_corrupt.db";
  {
    std::ofstream f(path);
    f << "this is not a database";
  }
  Result r = run("info --db " + path);
  EXPECT_EQ(r.rc, 4) << r.out;
  std::ifstream f(path);
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "this is not a database");
  std::filesystem::remove(path);
}

}  // namespace

namespace {

std::string fixture_path() { return std::string(HISTTUNE_TEST_FIXTURES) + "/small_export.json"; }

std::string read_file(const std::string& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(CliDatabase, ImportExportMergeReportPruneWithoutAGpu) {
  const auto dir = std::filesystem::temp_directory_path() / "histtune_cli_db";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "a.db").string(), b = (dir / "b.db").string();
  Result r = run("import " + fixture_path() + " --db " + a);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("2 new measurements, 1 winners"), std::string::npos) << r.out;
  r = run("import " + fixture_path() + " --db " + a);  // again: nothing duplicated
  EXPECT_NE(r.out.find("0 new measurements"), std::string::npos) << r.out;
  r = run("export --db " + a + " --out " + (dir / "e.json").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(read_file((dir / "e.json").string()).find("tpb1024.vpt2.vec16"), std::string::npos);
  r = run("merge " + a + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run("report --html " + (dir / "r.html").string() + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string html = read_file((dir / "r.html").string());
  EXPECT_NE(html.find("Fixture H100"), std::string::npos);
  EXPECT_NE(html.find("class=\"bar tuned\""), std::string::npos);
  EXPECT_NE(html.find("class=\"bar default\""), std::string::npos) << "default from its measurement";
  r = run("prune --db " + b);  // the fixture's template hash is not this build's
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run("export --db " + b);
  EXPECT_EQ(r.out.find("tpb1024"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(CliDatabase, ShowListsWinnersAndFastestMeasurements) {
  const auto dir = std::filesystem::temp_directory_path() / "histtune_cli_show";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "a.db").string();
  ASSERT_EQ(run("import " + fixture_path() + " --db " + db).rc, 0);
  Result r = run("show --top 2 --db " + db);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("Fixture H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tpb256.vpt1.vec0"), std::string::npos) << "second fastest listed\n" << r.out;
  r = run("show --json --problem u8:direct:256:2^28 --db " + db);
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"winner_ms\": 0.1235"), std::string::npos) << r.out;
  r = run("show --problem u8:direct:256:2^20 --db " + db);
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("is not tuned"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(CliDatabase, MalformedImportChangesNothing) {
  const auto dir = std::filesystem::temp_directory_path() / "histtune_cli_badimport";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "a.db").string();
  ASSERT_EQ(run("import " + fixture_path() + " --db " + db).rc, 0);
  const std::string before = run("export --db " + db).out;
  std::string bad = read_file(fixture_path());
  bad.replace(bad.find("0.1235"), 6, "-1.000");
  {
    std::ofstream f(dir / "bad.json");
    f << bad;
  }
  Result r = run("import " + (dir / "bad.json").string() + " --db " + db);
  EXPECT_EQ(r.rc, 4) << r.out;
  EXPECT_NE(r.out.find("median_ms"), std::string::npos) << r.out;
  // exported_at differs between runs; everything else must not.
  const std::regex stamp("\"exported_at\": \"[^\"]*\"");
  EXPECT_EQ(std::regex_replace(run("export --db " + db).out, stamp, ""),
            std::regex_replace(before, stamp, ""));
  std::filesystem::remove_all(dir);
}

}  // namespace
