// --json: every command that takes it prints one JSON document, alone on stdout, whose keys are
// those docs/cli.md lists; without a GPU the GPU commands print none and say why on stderr.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;
using json = nlohmann::json;

// The document on stdout; a test failure (and null) when it is not one JSON document.
json parse_stdout(const histtune::test::CliResult& r) {
  try {
    return json::parse(r.out);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "stdout is not one JSON document: " << e.what() << "\n" << r.out;
    return json();
  }
}

// A database holding the fixture export: one device, one problem, two measurements.
std::string imported_fixture(const ScratchDir& dir) {
  const std::string db = dir / "a.db";
  EXPECT_EQ(run_cli("import " + fixture("small_export.json") + " --db " + db).rc, 0);
  return db;
}

TEST(CliJson, InfoDescribesDatabaseAndDeviceOrWhyThereIsNone) {
  ScratchDir dir("histtune_json_info");
  const std::string db = imported_fixture(dir);
  const auto r = run_cli_split("info --json --db " + db);
  const json j = parse_stdout(r);
  EXPECT_EQ(j["histtune"].get<std::string>().rfind("0.", 0), 0u) << j;
  EXPECT_EQ(j["command"], "info");
  EXPECT_TRUE(j["nvrtc"].is_string()) << j;
  ASSERT_TRUE(j["nvrtc_archs"].is_array()) << j;
  EXPECT_NE(std::find(j["nvrtc_archs"].begin(), j["nvrtc_archs"].end(), 90),
            j["nvrtc_archs"].end()) << j;
  const json& d = j["database"];
  EXPECT_EQ(d["path"], db);
  EXPECT_EQ(d["exists"], true);
  EXPECT_EQ(d["schema_version"], histtune::db::Database::kSchemaVersion);
  ASSERT_EQ(d["devices"].size(), 1u) << j;
  EXPECT_EQ(d["devices"][0]["name"], "Fixture H100");
  EXPECT_EQ(d["devices"][0]["arch"], "sm_90");
  EXPECT_EQ(d["devices"][0]["tuned_problems"], 1);
  EXPECT_EQ(d["devices"][0]["measurements"], 2);
  EXPECT_EQ(d["devices"][0]["compared_problems"], 0);
  if (histtune::test::no_gpu_reason().empty()) {
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(j["device"].is_object()) << j;
    EXPECT_TRUE(j["tuned_on_this_device"].is_array()) << j;
    EXPECT_EQ(j["nvrtc_compiles_for_device"], true) << j;
  } else {
    EXPECT_EQ(r.rc, 3) << r.err;
    EXPECT_TRUE(j["device"].is_null()) << j;
    EXPECT_NE(j["device_error"].get<std::string>().find("no CUDA device"), std::string::npos);
    EXPECT_EQ(r.err.find("histtune: no CUDA device"), 0u) << r.err;
  }
}

TEST(CliJson, InfoOfAMissingDatabaseSaysSoAndCreatesNothing) {
  ScratchDir dir("histtune_json_info_missing");
  const auto r = run_cli_split("info --json --db " + (dir / "none.db"));
  const json j = parse_stdout(r);
  EXPECT_EQ(j["database"]["exists"], false) << j;
  EXPECT_FALSE(j["database"].contains("devices")) << j;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
}

TEST(CliJson, ShowListsDevicesProblemsAndFastest) {
  ScratchDir dir("histtune_json_show");
  const std::string db = imported_fixture(dir);
  const auto r = run_cli_split("show --json --top 1 --db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = parse_stdout(r);
  EXPECT_EQ(j["command"], "show");
  ASSERT_EQ(j["devices"].size(), 1u) << j;
  const json& dev = j["devices"][0];
  EXPECT_EQ(dev["uuid"], "GPU-1");
  ASSERT_EQ(dev["problems"].size(), 1u) << j;
  const json& p = dev["problems"][0];
  EXPECT_EQ(p["problem"]["spec"], "u8:direct:256:2^28");
  EXPECT_EQ(p["problem"]["n"], 268435456);
  EXPECT_EQ(p["winner"], "tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2");
  EXPECT_DOUBLE_EQ(p["winner_ms"].get<double>(), 0.1235);
  ASSERT_EQ(p["fastest"].size(), 1u) << "--top 1";
  EXPECT_DOUBLE_EQ(p["fastest"][0]["min_ms"].get<double>(), 0.12);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliJson, ImportMergePruneExportReportPrintTheirSummaries) {
  ScratchDir dir("histtune_json_db");
  const std::string a = dir / "a.db", b = dir / "b.db";
  auto r = run_cli_split("import --json " + fixture("small_export.json") + " --db " + a);
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = parse_stdout(r);
  EXPECT_EQ(j["command"], "import");
  EXPECT_EQ(j["measurements"], 2);
  EXPECT_EQ(j["winners"], 1);
  EXPECT_EQ(j["database"], a);

  r = run_cli_split("merge --json " + a + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = parse_stdout(r);
  EXPECT_EQ(j["command"], "merge");
  EXPECT_EQ(j["other"], a);
  EXPECT_EQ(j["measurements"], 2);

  r = run_cli_split("export --json --out " + (dir / "e.json") + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(parse_stdout(r)["out"], dir / "e.json");
  r = run_cli_split("export --db " + b);  // without --out the export itself is the document
  EXPECT_EQ(parse_stdout(r)["format"], "histtune-db");

  r = run_cli_split("report --json --html " + (dir / "r.html") + " --db " + b);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = parse_stdout(r);
  EXPECT_EQ(j["html"], dir / "r.html");
  EXPECT_EQ(j["devices"], 1);
  EXPECT_EQ(j["problems"], 1);

  r = run_cli_split("prune --json --db " + b);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = parse_stdout(r);
  EXPECT_EQ(j["command"], "prune");
  EXPECT_GT(j["deleted_rows"].get<int>(), 0) << "the fixture's template hash is not this build's";
  EXPECT_TRUE(j["kept_template_hash"].is_string());
}

TEST(CliJson, GpuCommandsAcceptJsonAndWithoutAGpuPrintNoDocument) {
  if (histtune::test::no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  ScratchDir dir("histtune_json_nogpu");
  const std::string db = imported_fixture(dir);
  const std::vector<std::string> commands = {
      "--json", "tune --json --problem u8:direct:256:2^16", "compare --json",
        "compare --json --problem u8:direct:256:2^28", "bench --json", "bench --json --only u8",
        "bench --json " + (dir / "b.json")};
  for (const std::string& cmd : commands) {
    const auto r = run_cli_split(cmd + " --db " + db);
    EXPECT_EQ(r.rc, 3) << cmd << "\n" << r.err;
    EXPECT_EQ(r.out, "") << cmd << ": no partial document";
    EXPECT_EQ(r.err.rfind("histtune: no CUDA device", 0), 0u) << cmd << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << "\n" << r.err;
  }
}

// On a GPU: tune a small problem, compare it, and read both documents.
TEST(CliJson, TuneThenCompareOnTheGpu) {
  HT_REQUIRE_GPU();
  ScratchDir dir("histtune_json_gpu");
  const std::string db = dir / "g.db";
  auto r = run_cli_split("tune --json --problem u8:direct:256:2^16 --strategy random --budget 4 "
                         "--db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = parse_stdout(r);
  EXPECT_EQ(j["command"], "tune");
  EXPECT_TRUE(j["device"]["uuid"].is_string()) << j;
  ASSERT_EQ(j["results"].size(), 1u) << j;
  EXPECT_EQ(j["results"][0]["problem"]["spec"], "u8:direct:256:2^16");
  EXPECT_TRUE(j["results"][0]["winner"].is_string()) << j;
  EXPECT_EQ(j["ok"], true);

  r = run_cli_split("compare --json --db " + db);
  ASSERT_EQ(r.rc, 0) << r.err;
  j = parse_stdout(r);
  ASSERT_EQ(j["rows"].size(), 1u) << j;
  const json& row = j["rows"][0];
  for (const char* who : {"tuned", "default", "cub"}) {
    EXPECT_LE(row[who]["min_ms"].get<double>(), row[who]["median_ms"].get<double>()) << who;
    EXPECT_LE(row[who]["median_ms"].get<double>(), row[who]["max_ms"].get<double>()) << who;
  }
  EXPECT_GT(row["percent_of_floor"].get<double>(), 0.0);
  EXPECT_EQ(j["tie_tolerance"], 0.02);
  for (const char* vs : {"vs_default", "vs_cub"}) {
    const std::string v = row[vs]["verdict"];
    EXPECT_TRUE(v == "win" || v == "tie" || v == "loss") << vs << ": " << v;
  }

  r = run_cli_split("--gpu 99 info --json --db " + db);  // no such device: exit 3, named
  EXPECT_EQ(r.rc, 3) << r.err;
}

}  // namespace
