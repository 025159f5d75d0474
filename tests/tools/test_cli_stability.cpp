// `histtune stability A.db B.db` as a user meets it: its help, the arguments it refuses (with the
// documented exit code, one line naming the file, the files left as they were), "no CUDA device"
// without a GPU, and on a GPU the table, the summary line and the JSON of two databases, on the
// tuner's four distributions and on uniform data alone.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/tuner.hpp"

namespace {

using histtune::test::CliResult;
using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;
namespace db = histtune::db;

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

void expect_one_line_error(const CliResult& r, int rc, const std::string& what,
                           const std::string& cmd) {
  EXPECT_EQ(r.rc, rc) << cmd << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1u) << cmd << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("histtune: ", 0), 0u) << cmd << "\n" << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << cmd << ": expected '" << what << "'\n" << r.err;
  EXPECT_EQ(r.out, "") << cmd;
}

// The H100 fixture: one winner, u8 direct 256 bins 2^28, on "GPU-1".
std::string fixture_db(const ScratchDir& dir, const std::string& name) {
  const std::string path = dir / name;
  EXPECT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + path).rc, 0);
  return path;
}

db::DeviceRow fixture_board() {
  db::DeviceRow d;
  d.uuid = "GPU-1";
  d.name = "Fixture H100";
  d.cc_major = 9;
  return d;
}

}  // namespace

TEST(CliStability, HelpNamesBothDatabasesTheRoundsTheDistributionsAndTheTarget) {
  const auto top = run_cli("--help");
  EXPECT_NE(top.out.find("stability"), std::string::npos) << top.out;
  const auto r = run_cli("stability --help");
  EXPECT_EQ(r.rc, 0);
  for (const char* s : {"Usage: histtune stability", "A.db", "B.db", "--rounds", "--json [FILE]",
                        "--gpu", "--quiet", "--distributions", "uniform,skewed,constant,runs",
                        "--problem", "--again",
                        "side by side", "within 2%", "worst case over the distributions",
                        "on the first distribution alone", "Exit codes:", "  3  no CUDA device"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  const auto from = r.out.find("Options:");
  const std::string options = r.out.substr(from, r.out.find("\n\n", from) - from);
  EXPECT_EQ(options.find("--db"), std::string::npos) << "the databases are the arguments";
}

TEST(CliStability, MissingFilesAndBadOptionsAreUsageErrors) {
  ScratchDir dir("histtune_stab_usage");
  const std::string good = fixture_db(dir, "good.db");
  const std::vector<std::string> refused = {
      "stability " + (dir / "missing.db") + " " + good,
      "stability " + good + " " + (dir / "missing.db"),
      "stability " + good,
      "stability",
      "stability " + good + " " + dir.path().string(),  // a folder
      "stability " + good + " " + good + " --rounds 0",
      "stability " + good + " " + good + " --distributions mixed",  // no winner is chosen on it
      "stability " + good + " " + good + " --distributions uniform,gaussian",
      "stability " + good + " " + good + " --db " + good};  // the databases are the arguments
  for (const std::string& args : refused) {
    const auto r = run_cli_split(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_LE(lines(r.err), 2u) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  const auto r = run_cli_split("stability " + (dir / "missing.db") + " " + good);
  EXPECT_NE(r.err.find(dir / "missing.db"), std::string::npos) << "names the file\n" << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.db"));
}

TEST(CliStability, AFileThatIsNotAHisttuneDatabaseIsNamedAndLeftUntouched) {
  ScratchDir dir("histtune_stab_foreign");
  const std::string good = fixture_db(dir, "good.db");
  std::ofstream(dir / "text.db") << "this is not a database";
  {
    SQLite::Database foreign(dir / "foreign.db", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    foreign.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')");
  }
  struct Case {
    std::string file, why;
  } cases[] = {{dir / "text.db", "is not a SQLite database"},
               {dir / "foreign.db", "not a histtune database"}};
  for (const auto& c : cases) {
    const std::string before = read_text(c.file);
    for (const std::string& args : std::vector<std::string>{
             "stability " + c.file + " " + good, "stability " + good + " " + c.file}) {
      const auto r = run_cli_split(args);
      expect_one_line_error(r, 4, c.why, args);
      EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
    }
    EXPECT_EQ(read_text(c.file), before) << c.file;
  }
}

TEST(CliStability, NothingToCompareIsSaidBeforeTheGpuIsAsked) {
  ScratchDir dir("histtune_stab_nothing");
  const std::string good = fixture_db(dir, "good.db");
  { db::Database empty(dir / "empty.db"); }  // a histtune database with no winners
  {
    db::Database other(dir / "other.db");
    other.set_winner(fixture_board(), {"hist1d", "u16", "direct", 1024, 1u << 20},
                     "tpb256.vpt1.vec0.pc1.lay0.agg0.u1.pad0.bps8", 0.01, "h");
  }
  auto r = run_cli_split("stability " + (dir / "empty.db") + " " + good);
  expect_one_line_error(r, 1, (dir / "empty.db") + " holds no tuned problem (no winners)",
                        "empty A");
  r = run_cli_split("stability " + good + " " + (dir / "other.db"));
  expect_one_line_error(
      r, 1, good + " and " + (dir / "other.db") + " have no tuned problem in common", "disjoint");
  // --problem: one tuned in one database alone is named, before the GPU is asked.
  { db::Database both(dir / "both.db"); }
  EXPECT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + (dir / "both.db")).rc, 0);
  r = run_cli_split("stability " + good + " " + (dir / "both.db") +
                    " --problem u16:direct:1024:2^20 --problem u8:direct:256:2^28");
  expect_one_line_error(r, 1,
                        "u16:direct:1024:2^20 is not tuned in both " + good + " and " +
                            (dir / "both.db") + ", on any device",
                        "one named problem not in both");
  r = run_cli_split("stability " + good + " " + (dir / "both.db") + " --problem u8:nope:256:2^28");
  EXPECT_EQ(r.rc, 2) << r.err;
}

TEST(CliStability, WithoutAGpuItSaysNoCudaDeviceAndExits3) {
  if (histtune::test::no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  ScratchDir dir("histtune_stab_nogpu");
  const std::string a = fixture_db(dir, "a.db"), b = fixture_db(dir, "b.db");
  for (const std::string& extra :
       std::vector<std::string>{"", " --json", " --json " + (dir / "s.json"), " --gpu 1"}) {
    const auto r = run_cli_split("stability " + a + " " + b + extra);
    EXPECT_EQ(r.rc, 3) << extra << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("histtune: no CUDA device", 0), 0u) << r.err;
    EXPECT_EQ(r.out, "") << "no JSON document without a device";
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "s.json"));
}

// On the GPU: A and B hold winners of a 1D problem (the default in A, another valid
// configuration in B) and of an RGBA problem (the default in both; B's recorded on another
// board of this model), plus a problem only A has.
TEST(CliStability, TwoDatabasesOnTheGpuGiveTheTableSummaryAndJson) {
  HT_REQUIRE_GPU();
  using namespace histtune;
  ScratchDir dir("histtune_stab_gpu");
  const DeviceInfo d = query_device(0);
  Problem p1;
  p1.num_bins = 256;
  p1.n = 1u << 20;
  Problem rgba;
  rgba.family = multichannel::kFamily;
  rgba.channels = 4;
  rgba.active_channels = 3;
  rgba.num_bins = 256;
  rgba.n = 512 * 512;
  Problem only_a = p1;
  only_a.n = 1u << 18;
  const std::string def = hist1d::default_for(p1, d).label();
  std::string other;
  for (const auto& pt : tuner::valid_points(tuner::hist1d_search_space(p1, d)))
    if (const std::string l = tuner::hist1d_config_of(pt).label(); l != def) {
      other = l;
      break;
    }
  ASSERT_FALSE(other.empty());
  const std::string mc = multichannel::default_for(rgba, d).label();
  db::DeviceRow elsewhere = d.row();
  elsewhere.uuid = "GPU-another-board";
  {
    db::Database a(dir / "a.db"), b(dir / "b.db");
    a.set_winner(d.row(), p1.key(), def, 0.0100, "h");
    a.set_winner(d.row(), rgba.key(), mc, 0.0200, "h");
    a.set_winner(d.row(), only_a.key(), def, 0.0050, "h");
    b.set_winner(elsewhere, p1.key(), other, 0.0103, "h");
    b.set_winner(elsewhere, rgba.key(), mc, 0.0201, "h");
  }
  const std::string args = "stability " + (dir / "a.db") + " " + (dir / "b.db") + " --rounds 2";
  auto r = run_cli_split(args + " --json " + (dir / "s.json"));
  ASSERT_EQ(r.rc, 0) << r.out << r.err;
  for (const std::string& s : std::vector<std::string>{
           std::string("A = ") + (dir / "a.db"), std::string("B holds the winners of another"),
        std::string("1 problem tuned only in A, not compared: u8:direct:256:2^18"),
        std::string("2 rounds alternating A B / B A per distribution"), "u8:direct:256:2^20",
        def + " | " + other, mc + " | same",
        std::string("of 2 problems within 2% on the worst case over uniform, skewed, constant, "
                    "runs (the tuner's objective); "),
        std::string("of 2 on uniform data alone; recorded times: ")})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_text(dir / "s.json"));
  EXPECT_EQ(j["command"], "stability");
  EXPECT_EQ(j["compared"], 2);
  EXPECT_EQ(j["rounds"], 2);
  EXPECT_EQ(j["database_b"]["device"], "GPU-another-board");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["distributions"],
            nlohmann::json::array({"uniform", "skewed", "constant", "runs"}));
  EXPECT_EQ(j["distribution"], "uniform");
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["a"]["verified"], true) << row;
    EXPECT_EQ(row["b"]["verified"], true) << row;
    EXPECT_GT(row["a"]["median_ms"].get<double>(), 0);
    EXPECT_EQ(row["failed"], false) << row;
    EXPECT_TRUE(row["worst_case_difference_percent"].is_number()) << row;
    ASSERT_EQ(row["distributions"].size(), 4u) << row;
    for (const auto& d : row["distributions"]) {
      EXPECT_EQ(d["a"]["verified"], true) << "each distribution's inputs drawn: " << d;
      EXPECT_EQ(d["b"]["verified"], true) << d;
      EXPECT_EQ(d["rounds"], 2) << d;
    }
  }
  EXPECT_EQ(j["rows"][1]["problem"]["family"], "multichannel");
  EXPECT_EQ(j["only_in_a"], nlohmann::json::array({"u8:direct:256:2^18"}));
  // --json alone: the document on stdout, the table on stderr; --quiet drops the notes.
  r = run_cli_split(args + " --json --quiet");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["compared"], 2);
  EXPECT_NE(r.err.find("of 2 problems within 2%"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("note:"), std::string::npos) << r.err;
  // On uniform data alone: the check as it was, one column and its verdict.
  r = run_cli_split(args + " --distributions uniform --quiet --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("of 2 problems within 2% on uniform data (side by side, measured now)"),
            std::string::npos)
      << r.err;
  const auto u = nlohmann::json::parse(r.out);
  EXPECT_EQ(u["distributions"], nlohmann::json::array({"uniform"}));
  for (const auto& row : u["rows"]) {
    EXPECT_EQ(row["distributions"].size(), 1u) << row;
    EXPECT_EQ(row["worst_case_difference_percent"], row["difference_percent"]) << row;
  }
  // --again: uniform timed once more after the others, beside the verdict; four distributions
  // still, the verdict the first timing's.
  r = run_cli_split(args + " --again --problem u8:direct:256:2^20 --quiet --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("    uniform again, after the others: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; uniform again after the others: "), std::string::npos) << r.err;
  const auto again = nlohmann::json::parse(r.out);
  ASSERT_EQ(again["rows"].size(), 1u);
  const auto& row = again["rows"][0];
  EXPECT_EQ(row["distributions"].size(), 4u) << row;
  EXPECT_EQ(row["again"]["distribution"], "uniform") << row;
  EXPECT_EQ(row["again"]["a"]["verified"], true) << row;
  EXPECT_EQ(row["again"]["b"]["verified"], true) << row;
  EXPECT_TRUE(row["again"]["moved_points"].is_number()) << row;
  EXPECT_EQ(again["again"], 1);
  // An unwritable --json file is refused before anything is timed.
  r = run_cli_split(args + " --json " + (dir / "no/such/folder/s.json"));
  expect_one_line_error(r, 2, "cannot write --json file", "unwritable --json");
}
