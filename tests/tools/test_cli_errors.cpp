// Bad input to every command: a short error on stderr that names the problem, the documented exit
// code (2 bad input, 3 no GPU, 4 database), and a database that is left byte for byte as it was.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

#include "cli_runner.hpp"

namespace {

using histtune::test::CliResult;
using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::run_shell;
using histtune::test::ScratchDir;

// FNV-1a of the file's bytes: "left untouched" means this does not change.
std::uint64_t checksum(const std::string& path) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : read_text(path)) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// One line on stderr, starting "histtune: " and holding `what`; nothing on stdout.
void expect_one_line_error(const CliResult& r, const std::string& what, const std::string& cmd) {
  EXPECT_EQ(lines(r.err), 1u) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("histtune: ", 0), 0u) << cmd << "\n" << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << cmd << ": expected '" << what << "'\n" << r.err;
  EXPECT_EQ(r.out, "") << cmd;
}

std::string imported_fixture(const ScratchDir& dir, const std::string& name = "good.db") {
  const std::string db = dir / name;
  EXPECT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + db).rc, 0);
  return db;
}

// Every command that opens the database, with what it needs besides --db.
std::vector<std::string> database_commands(const ScratchDir& dir) {
  std::vector<std::string> cmds = {
      "info", "show", "show --json", "report --html " + (dir / "r.html"), "export",
      "import " + fixture("small_export.json"), "merge " + (dir / "other.db"), "prune"};
  if (histtune::test::no_gpu_reason().empty()) {  // without a GPU these stop at exit 3 first
    cmds.push_back("compare");
    cmds.push_back("tune --problem u8:direct:256:2^16 --budget 1");
  }
  return cmds;
}

TEST(CliErrors, CorruptOrForeignDatabaseIsRefusedByEveryCommandAndLeftUntouched) {
  ScratchDir dir("histtune_err_corrupt");
  const std::string good = imported_fixture(dir);
  ASSERT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + (dir / "other.db")).rc, 0);
  struct Case {
    std::string file, why;
  };
  std::vector<Case> cases;
  {
    std::ofstream(dir / "text.db") << "this is not a database";
    cases.push_back({dir / "text.db", "is not a SQLite database"});
  }
  {
    SQLite::Database foreign(dir / "foreign.db", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    foreign.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
    cases.push_back({dir / "foreign.db", "not a histtune database"});
  }
  {
    std::filesystem::copy_file(good, dir / "header.db");
    std::fstream f(dir / "header.db", std::ios::in | std::ios::out | std::ios::binary);
    f.write("garbage header!!", 16);  // the 16-byte "SQLite format 3" magic
    cases.push_back({dir / "header.db", "is not a SQLite database"});
  }
  {
    std::filesystem::copy_file(good, dir / "truncated.db");
    std::filesystem::resize_file(dir / "truncated.db", 20000);  // pages missing
    cases.push_back({dir / "truncated.db", "malformed"});
  }
  for (const auto& c : cases) {
    const std::uint64_t before = checksum(c.file);
    for (const auto& cmd : database_commands(dir)) {
      const auto r = run_cli_split(cmd + " --db " + c.file);
      EXPECT_EQ(r.rc, 4) << cmd << " --db " << c.file << "\n" << r.err;
      expect_one_line_error(r, c.why, cmd + " --db " + c.file);
      EXPECT_EQ(r.err.rfind("histtune: database ", 0), 0u) << r.err;
      EXPECT_EQ(checksum(c.file), before) << cmd << " changed " << c.file;
    }
    // As the other file of a merge: named, and neither file changes.
    const std::uint64_t target = checksum(good);
    const auto r = run_cli_split("merge " + c.file + " --db " + good);
    EXPECT_EQ(r.rc, 4) << r.err;
    expect_one_line_error(r, c.file, "merge " + c.file);
    EXPECT_EQ(checksum(c.file), before);
    EXPECT_EQ(checksum(good), target);
  }
}

TEST(CliErrors, LockedDatabaseIsReportedAfterTheBusyTimeoutAndLeftUntouched) {
  ScratchDir dir("histtune_err_locked");
  const std::string db = imported_fixture(dir);
  const std::uint64_t before = checksum(db);
  {
    // Another process's lock, as a tuner in the middle of a write would hold it.
    SQLite::Database holder(db, SQLite::OPEN_READWRITE);
    holder.exec("PRAGMA locking_mode = EXCLUSIVE");
    holder.exec("BEGIN EXCLUSIVE");
    // A writer and a reader at once: each waits out the 5 s busy timeout, in parallel.
    const std::string cli = histtune::test::cli_path();
    run_shell("(" + cli + " import " + fixture("small_export.json") + " --db " + db + " >" +
              (dir / "w.out") + " 2>&1; echo rc=$? >>" + (dir / "w.out") + ") & (" + cli +
              " show --db " + db + " >" + (dir / "r.out") + " 2>&1; echo rc=$? >>" +
              (dir / "r.out") + ") & wait");
    holder.exec("ROLLBACK");
  }
  for (const char* out : {"w.out", "r.out"}) {
    const std::string text = read_text(dir / out);
    EXPECT_NE(text.find("database is locked"), std::string::npos) << out << "\n" << text;
    EXPECT_NE(text.find("another process holds it"), std::string::npos) << text;
    EXPECT_NE(text.find("rc=4"), std::string::npos) << out << "\n" << text;
  }
  EXPECT_EQ(checksum(db), before);
  EXPECT_EQ(run_cli("show --db " + db).rc, 0) << "usable again once the lock is gone";
}

TEST(CliErrors, UnreadableDatabaseNamesTheProblem) {
  ScratchDir dir("histtune_err_unreadable");
  std::filesystem::create_directories(dir / "folder.db");
  const std::vector<std::string> commands = {"show", "info", "prune",
                                             "report --html " + (dir / "r.html")};
  for (const auto& cmd : commands) {
    const auto r = run_cli_split(cmd + " --db " + (dir / "folder.db"));
    EXPECT_EQ(r.rc, 4) << cmd << "\n" << r.err;
    expect_one_line_error(r, "is a folder, not a file", cmd);
  }
  // A database whose folder cannot be created: a file is in the way.
  std::ofstream(dir / "plain") << "x";
  auto r = run_cli_split("import " + fixture("small_export.json") + " --db " + (dir / "plain") +
                         "/sub/x.db");
  EXPECT_EQ(r.rc, 4) << r.err;
  expect_one_line_error(r, "cannot create folder", "import into plain/sub/x.db");
  // A file without read permission (root reads everything, so only checked as another user).
  const std::string db = imported_fixture(dir);
  if (::geteuid() != 0) {
    std::filesystem::permissions(db, std::filesystem::perms::none);
    r = run_cli_split("show --db " + db);
    std::filesystem::permissions(db, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write);
    EXPECT_EQ(r.rc, 4) << r.err;
    expect_one_line_error(r, "cannot read database", "show of an unreadable file");
  }
  // Commands that only read never create a database where there is none.
  r = run_cli_split("show --db " + (dir / "missing.db"));
  EXPECT_EQ(r.rc, 4) << r.err;
  expect_one_line_error(r, "no database at " + (dir / "missing.db"), "show of a missing file");
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.db"));
}

TEST(CliErrors, BadImportFilesAreUsageErrorsAndChangeNothing) {
  ScratchDir dir("histtune_err_import");
  const std::string db = imported_fixture(dir);
  const std::uint64_t before = checksum(db);
  std::string negative = read_text(fixture("small_export.json"));
  negative.replace(negative.find("0.1235"), 6, "-1.000");
  std::ofstream(dir / "negative.json") << negative;
  std::ofstream(dir / "truncated.json") << negative.substr(0, negative.size() / 2);
  std::ofstream(dir / "foreign.json") << R"({"format": "something-else", "format_version": 1})";
  std::ofstream(dir / "array.json") << "[1, 2, 3]";
  struct Case {
    std::string args, why;
  } cases[] = {
      {dir / "negative.json", "median_ms: must be a finite number >= 0"},
      {dir / "truncated.json", "not valid JSON"},
      {dir / "foreign.json", "format"},
      {dir / "array.json", "must be a JSON object"},
      {dir / "missing.json", "cannot read " + (dir / "missing.json")},
      {dir.path().string(), "it is a folder"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli_split("import " + c.args + " --db " + db);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
    expect_one_line_error(r, c.why, "import " + c.args);
    EXPECT_EQ(checksum(db), before) << c.args;
  }
  auto r = run_shell("echo 'not json' | " + histtune::test::cli_path() + " import - --db " + db +
                     " 2>&1");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("bad import file (stdin)"), std::string::npos) << r.out;
  // A malformed file does not even create the database it was meant for.
  r = run_cli_split("import " + (dir / "negative.json") + " --db " + (dir / "new.db"));
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "new.db"));
  EXPECT_EQ(checksum(db), before);
}

TEST(CliErrors, UnknownOrMalformedProblemIsNamed) {
  ScratchDir dir("histtune_err_problem");
  const std::string db = imported_fixture(dir);
  struct Case {
    std::string args;
    int rc;
    std::string why;
  } cases[] = {
      {"--problem u9:direct:256:2^20", 2, "unknown sample type 'u9'"},
      {"tune --problem u8:sideways:256:2^20", 2, "unknown binning 'sideways'"},
      {"tune --problem u8:direct:256", 2, "wrong number of fields"},
      {"tune --problem u8:direct:0:2^20", 2, "num_bins"},
      {"tune --problem u8:direct:256:2^x", 2, "bad sample count"},
      {"tune --problem f32:direct:256:2^20", 2, "direct binning needs integer samples"},
      {"compare --problem u8:direct:256:lots", 2, "bad sample count 'lots'"},
      {"show --problem u16:direct", 2, "wrong number of fields"},
      {"show --problem u8:direct:256:2^20", 1, "u8 direct bins=256 n=2^20 is not tuned"},
      {"tune --problem mc:3:u8:direct:256:2^20", 2, "bad channels '3'"},
      {"tune --problem mc:5/4:u8:direct:256:2^20", 2, "active_channels must be 1 .. channels"},
      {"tune --problem mc:3/4:u8:direct:256", 2, "wrong number of fields"},
      {"show --problem mc:3/4:u8:direct:256:7680x4320", 1,
       "u8 direct bins=256 n=33177600 channels=3/4 is not tuned"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli_split(c.args + " --db " + db);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.err;
    expect_one_line_error(r, c.why, c.args);
  }
}

TEST(CliErrors, BadOptionsAndOutputPathsAreUsageErrors) {
  ScratchDir dir("histtune_err_options");
  const std::string db = imported_fixture(dir);
  struct Case {
    std::string args;
    int rc;
    std::string why;
  } cases[] = {
      {"report --html " + (dir / "no/such/folder/r.html"), 2, "cannot write --html file"},
      {"export --out " + (dir / "no/such/folder/e.json"), 2, "cannot write --out file"},
      {"export --device GPU-nope", 1, "no device GPU-nope"},
      {"bench --only '('", 2, "--only '(' is not a regular expression"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli_split(c.args + " --db " + db);
    EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.err;
    expect_one_line_error(r, c.why, c.args);
  }
  // Refused by the command line parser (its message, then a pointer to --help).
  const std::vector<std::string> refused = {
      "--gpu banana", "--gpu -1", "compare --gpu 1x", "--strategy greedy", "--decision median",
      "--budget -3", "show --top -1", "merge " + (dir / "missing.db"), "show --gpu 0", "report",
      "import", "frobnicate"};
  for (const auto& args : refused) {
    const auto r = run_cli_split(args + " --db " + db);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_LE(lines(r.err), 2u) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_NE(run_cli_split("--gpu banana").err.find("must be 'auto' or a device index"),
            std::string::npos);
}

TEST(CliErrors, WithoutAGpuEveryGpuCommandSaysSoInOneLine) {
  if (histtune::test::no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  ScratchDir dir("histtune_err_nogpu");
  const std::string db = imported_fixture(dir);
  for (const char* cmd : {"", "--gpu auto", "tune --gpu 0", "tune --gpu 7 --problem u8:direct:256:2^16",
                          "compare", "compare --gpu 1", "bench --only u8", "info", "info --gpu 3"}) {
    const auto r = run_cli_split(std::string(cmd) + " --db " + db);
    EXPECT_EQ(r.rc, 3) << cmd << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << cmd << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("histtune: no CUDA device", 0), 0u) << cmd << "\n" << r.err;
  }
}

TEST(CliErrors, UnknownGpuIndexIsNamed) {
  HT_REQUIRE_GPU();
  ScratchDir dir("histtune_err_gpu_index");
  const std::string db = imported_fixture(dir);
  for (const char* cmd : {"tune --gpu 99 --problem u8:direct:256:2^16", "compare --gpu 99",
                          "bench --gpu 99"}) {
    const auto r = run_cli_split(std::string(cmd) + " --db " + db);
    EXPECT_EQ(r.rc, 3) << cmd << "\n" << r.err;
    expect_one_line_error(r, "no CUDA device 99: this machine has", cmd);
  }
  // info still reports the database (its documented behaviour), then the device error.
  const auto info = run_cli_split("info --gpu 99 --db " + db);
  EXPECT_EQ(info.rc, 3);
  EXPECT_NE(info.out.find("database: " + db), std::string::npos) << info.out;
  EXPECT_EQ(lines(info.err), 1u) << info.err;
  EXPECT_NE(info.err.find("no CUDA device 99: this machine has"), std::string::npos) << info.err;
}

}  // namespace
