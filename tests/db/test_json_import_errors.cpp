// Tests of refused imports: every malformed document is named by its JSON path and writes
// nothing; bounds on counts and nesting.
#include "db/db_test_support.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using nlohmann::json;
using namespace histtune::db::test;

namespace {

std::int64_t count_rows(const fs::path& path, const std::string& table) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  // Table names come from the test's own constant list.
  return raw.execAndGet("SELECT count(*) FROM " + table).getInt64();
}

std::vector<std::int64_t> all_counts(const fs::path& path) {
  std::vector<std::int64_t> out;
  for (const char* t : {"devices", "problems", "configurations", "measurements", "winners"}) {
    out.push_back(count_rows(path, t));
  }
  return out;
}

json valid_document() {
  Database db(":memory:");
  fill(db);
  return json::parse(db.export_json());
}

struct BadCase {
  std::string name;
  std::function<std::string()> text;
  std::string expect;  // part of the message: the offending path or the reason
};

std::string with(const std::function<void(json&)>& edit) {
  json doc = valid_document();
  edit(doc);
  return doc.dump();
}

std::vector<BadCase> bad_cases() {
  const auto m0 = [](json& d) -> json& { return d["results"][0]["measurements"][0]; };
  return {
      {"empty string", [] { return std::string(); }, "not valid JSON"},
      {"truncated", [] { const std::string t = valid_document().dump(); return t.substr(0, t.size() / 2); },
       "not valid JSON"},
      {"not an object", [] { return std::string("[1, 2, 3]"); }, "must be a JSON object"},
      {"wrong format", [] { return with([](json& d) { d["format"] = "other-db"; }); }, "format:"},
      {"format_version 3", [] { return with([](json& d) { d["format_version"] = 3; }); },
       "format_version:"},
      {"format_version 0", [] { return with([](json& d) { d["format_version"] = 0; }); },
       "format_version:"},
      {"missing devices", [] { return with([](json& d) { d.erase("devices"); }); },
       "devices: is missing"},
      {"devices not an array", [] { return with([](json& d) { d["devices"] = "GPU-a"; }); },
       "devices: must be an array"},
      {"cc_major a string", [] { return with([](json& d) { d["devices"][1]["cc_major"] = "9"; }); },
       "devices[1].cc_major"},
      {"median negative", [m0] { return with([m0](json& d) { m0(d)["median_ms"] = -1.0; }); },
       "results[0].measurements[0].median_ms: must be a finite number >= 0"},
      {"median huge", [m0] {
         std::string t = with([m0](json& d) { m0(d)["median_ms"] = 12345.5; });
         const std::size_t at = t.find("12345.5");
         return t.replace(at, 7, "1e999");
       },
       "number overflow"},
      {"median NaN as string", [m0] { return with([m0](json& d) { m0(d)["median_ms"] = "NaN"; }); },
       "results[0].measurements[0].median_ms: must be a finite number >= 0"},
      {"min_ms missing", [m0] { return with([m0](json& d) { m0(d).erase("min_ms"); }); },
       "results[0].measurements[0].min_ms: is missing"},
      {"samples negative", [m0] { return with([m0](json& d) { m0(d)["samples"] = -3; }); },
       "results[0].measurements[0].samples"},
      {"verified a number", [m0] { return with([m0](json& d) { m0(d)["verified"] = 1; }); },
       "results[0].measurements[0].verified"},
      {"bad sample_type", [] { return with([](json& d) { d["results"][2]["problem"]["sample_type"] = "u128"; }); },
       "results[2].problem.sample_type: must be one of u8, u16, u32, i32, f32, i8, i16, f16, bf16, "
       "i64, u64, f64"},
      {"bad binning", [] { return with([](json& d) { d["results"][0]["problem"]["binning"] = "logarithmic"; }); },
       "results[0].problem.binning"},
      {"bad family", [] { return with([](json& d) { d["results"][0]["problem"]["family"] = "Shared"; }); },
       "results[0].problem.family"},
      {"num_bins zero", [] { return with([](json& d) { d["results"][0]["problem"]["num_bins"] = 0; }); },
       "results[0].problem.num_bins"},
      {"n 2^40", [] { return with([](json& d) { d["results"][1]["problem"]["n"] = std::uint64_t{1} << 40; }); },
       "results[1].problem.n"},
      {"params not an object", [m0] { return with([m0](json& d) { m0(d)["params"] = "tpb256"; }); },
       "results[0].measurements[0].params: must be an object"},
      {"label with a space", [m0] { return with([m0](json& d) { m0(d)["config_label"] = "tpb 256"; }); },
       "results[0].measurements[0].config_label"},
      {"10 MB label", [m0] { return with([m0](json& d) { m0(d)["config_label"] = std::string(10 << 20, 'a'); }); },
       "results[0].measurements[0].config_label"},
      {"winner label empty", [] { return with([](json& d) { d["results"][0]["winner"]["config_label"] = ""; }); },
       "results[0].winner.config_label"},
      {"winner a number", [] { return with([](json& d) { d["results"][0]["winner"] = 3; }); },
       "results[0].winner"},
      {"uuid empty", [] { return with([](json& d) { d["devices"][0]["uuid"] = ""; }); },
       "devices[0].uuid"},
      {"duplicate device", [] { return with([](json& d) { d["devices"].push_back(d["devices"][0]); }); },
       "duplicate device"},
      {"unknown device", [] { return with([](json& d) { d["results"][1]["device"] = "GPU-zzz"; }); },
       "results[1].device: device 'GPU-zzz' is not listed in devices"},
      {"results missing", [] { return with([](json& d) { d.erase("results"); }); },
       "results: is missing"},
      {"baseline cub_ms negative", [] { return with([](json& d) {
         d["results"][0]["baseline"] = {{"default_ms", nullptr}, {"cub_ms", -2.0}, {"floor_ms", nullptr},
                                        {"read_gbps", nullptr}, {"measured_at", "2026-01-01T00:00:00.000Z"}}; }); },
       "results[0].baseline.cub_ms: must be null or a finite number >= 0"},
      {"baseline bad time", [] { return with([](json& d) {
         d["results"][0]["baseline"] = {{"default_ms", 1.0}, {"cub_ms", nullptr}, {"floor_ms", nullptr},
                                        {"read_gbps", nullptr}, {"measured_at", "yesterday"}}; }); },
       "results[0].baseline.measured_at: must be a UTC time"},
      {"baseline cub_max_ms below its min", [] { return with([](json& d) {
         d["results"][0]["baseline"] = {{"default_ms", nullptr}, {"cub_ms", 0.3}, {"floor_ms", nullptr},
                                        {"read_gbps", nullptr}, {"cub_min_ms", 0.2}, {"cub_max_ms", 0.1},
                                        {"measured_at", "2026-01-01T00:00:00.000Z"}}; }); },
       "results[0].baseline.cub_max_ms: must be >= the min"},
      {"baseline default_min_ms a string", [] { return with([](json& d) {
         d["results"][0]["baseline"] = {{"default_ms", 1.0}, {"cub_ms", nullptr}, {"floor_ms", nullptr},
                                        {"read_gbps", nullptr}, {"default_min_ms", "fast"},
                                        {"measured_at", "2026-01-01T00:00:00.000Z"}}; }); },
       "results[0].baseline.default_min_ms: must be null or a finite number >= 0"},
      {"nested 100 deep", [] {
         return std::string(100, '[') + std::string(100, ']');
       },
       "nested deeper than 32 levels"},
  };
}

}  // namespace

TEST_F(DatabaseV2File, DatabaseImportRejectsMalformedDocumentsAndWritesNothing) {
  const fs::path path = dir_ / "h.db";
  Database db(path.string());
  fill(db);
  db.set_winner(make_device("GPU-a"), make_problem(64, 4096), "tpb64.ipt1", 0.01, "x", "0.1");
  const std::vector<std::int64_t> before = all_counts(path);
  for (const BadCase& c : bad_cases()) {
    SCOPED_TRACE(c.name);
    const std::string text = c.text();
    try {
      db.import_json(text);
      ADD_FAILURE() << "accepted: " << c.name;
    } catch (const DbError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(c.expect), std::string::npos) << msg.substr(0, 500);
      EXPECT_LT(msg.size(), 2000u) << "the message should not echo a huge value";
    }
    EXPECT_EQ(all_counts(path), before);
  }
}

TEST(DatabaseImport, TooManyMeasurementsAreRefused) {
  json doc = valid_document();
  // Spliced as text: building a million-element json value is much slower than parsing one.
  const std::string one = doc["results"][0]["measurements"][0].dump();
  std::string many;
  many.reserve((one.size() + 1) * 1'000'001);
  for (int i = 0; i < 1'000'001; ++i) {
    if (i > 0) many += ',';
    many += one;
  }
  doc["results"][0]["measurements"] = "@MANY@";
  std::string text = doc.dump();
  text.replace(text.find("\"@MANY@\""), 8, "[" + many + "]");
  Database db(":memory:");
  try {
    db.import_json(text);
    FAIL() << "a million and one measurements should be refused";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000000"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(db.winners("GPU-a").empty());
}

TEST(DatabaseImportV3, BadChannelsAndDistributionsAreRefusedAndWriteNothing) {
  Database src(":memory:");
  fill_v3(src);
  const json good = json::parse(src.export_json());
  struct Case {
    const char* name;
    void (*edit)(json&);
    const char* expect;
  };
  const Case cases[] = {
      {"channels 0", [](json& d) { d["results"][0]["problem"]["channels"] = 0; },
       "results[0].problem.channels"},
      {"active beyond channels",
       [](json& d) { d["results"][1]["problem"]["active_channels"] = 5; },
       "results[1].problem.active_channels"},
      {"distribution any",
       [](json& d) { d["results"][0]["measurements"][0]["distribution"] = "any"; },
       "results[0].measurements[0].distribution"},
      {"distribution upper case",
       [](json& d) { d["results"][0]["measurements"][0]["distribution"] = "Uniform"; },
       "results[0].measurements[0].distribution"},
      {"winners_by_distribution not an array",
       [](json& d) { d["results"][0]["winners_by_distribution"] = 3; },
       "results[0].winners_by_distribution"},
      {"duplicate distribution winner",
       [](json& d) {
         auto& w = d["results"][0]["winners_by_distribution"];
         w.push_back(w[0]);
       },
       "duplicate distribution"},
      {"distribution winner median negative",
       [](json& d) { d["results"][0]["winners_by_distribution"][0]["median_ms"] = -1; },
       "results[0].winners_by_distribution[0].median_ms"},
  };
  Database dst(":memory:");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    json doc = good;
    c.edit(doc);
    try {
      dst.import_json(doc.dump());
      ADD_FAILURE() << "accepted";
    } catch (const DbError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
    EXPECT_TRUE(dst.devices().empty());
  }
}
