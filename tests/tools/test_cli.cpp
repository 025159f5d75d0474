// The CLI as a user meets it: help, version, bad input, and (on a machine without a GPU) one
// clear line and a non-zero exit instead of a crash.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "gpu.hpp"

namespace {

struct Result {
  int rc;
  std::string out;
};

Result run(const std::string& args) {
  const std::string cmd = histtune::test::cli_path() + " " + args + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (pipe && std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int status = pipe ? ::pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

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
