// Tests of JSON export, import and merge: the document's shape, round trips of format 2 (and
// format 1 still read), what a second import adds (nothing), and which winner or baseline wins.
#include "db/db_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::ImportSummary;
using histtune::db::ProblemRow;
using nlohmann::json;
using namespace histtune::db::test;

// --- export / import -----------------------------------------------------------------------------

TEST(DatabaseExport, DocumentHasFormatVersionDevicesAndResults) {
  Database db(":memory:");
  fill(db);
  const json doc = json::parse(db.export_json());
  EXPECT_EQ(doc.at("format"), "histtune-db");
  EXPECT_EQ(doc.at("format_version"), 2);
  EXPECT_TRUE(doc.at("exported_at").is_string());
  ASSERT_EQ(doc.at("devices").size(), 2u);
  EXPECT_EQ(doc.at("devices")[0].at("memory_clock_khz"), 2'619'000);
  EXPECT_EQ(doc.at("results").size(), 3u);
  EXPECT_TRUE(doc.at("results")[0].at("measurements")[0].at("params").is_object());

  const json one = json::parse(db.export_json(std::string("GPU-b")));
  EXPECT_EQ(one.at("devices").size(), 1u);
  EXPECT_EQ(one.at("results").size(), 1u);
}

TEST(DatabaseImport, ExportImportRoundTripsWinnersAndMeasurements) {
  Database src(":memory:");
  fill(src);
  Database dst(":memory:");
  const ImportSummary s = dst.import_json(src.export_json());
  EXPECT_EQ(s.devices, 2u);
  EXPECT_EQ(s.problems, 2u);
  EXPECT_EQ(s.measurements, 4u);
  EXPECT_EQ(s.winners, 2u);
  for (const std::string uuid : {"GPU-a", "GPU-b"}) {
    EXPECT_EQ(dst.device(uuid)->memory_clock_khz, src.device(uuid)->memory_clock_khz);
    EXPECT_EQ(dst.device(uuid)->nvrtc_version, src.device(uuid)->nvrtc_version);
    const auto ws = src.winners(uuid);
    const auto wd = dst.winners(uuid);
    ASSERT_EQ(ws.size(), wd.size());
    for (std::size_t i = 0; i < ws.size(); ++i) {
      EXPECT_EQ(wd[i].config_label, ws[i].config_label);
      EXPECT_EQ(wd[i].median_ms, ws[i].median_ms);
      EXPECT_EQ(wd[i].histtune_version, ws[i].histtune_version);
    }
    for (const ProblemRow& p : {make_problem(256, 1 << 20), make_problem(64, 4096)}) {
      const auto ms = src.measurements(uuid, p);
      const auto md = dst.measurements(uuid, p);
      ASSERT_EQ(ms.size(), md.size());
      for (std::size_t i = 0; i < ms.size(); ++i) {
        EXPECT_EQ(md[i].config_label, ms[i].config_label);
        EXPECT_EQ(json::parse(md[i].params_json), json::parse(ms[i].params_json));
        EXPECT_EQ(md[i].median_ms, ms[i].median_ms);  // bit-exact through JSON
        EXPECT_EQ(md[i].min_ms, ms[i].min_ms);
        EXPECT_EQ(md[i].max_ms, ms[i].max_ms);
        EXPECT_EQ(md[i].samples, ms[i].samples);
        EXPECT_EQ(md[i].verified, ms[i].verified);
        EXPECT_EQ(md[i].template_hash, ms[i].template_hash);
        EXPECT_EQ(md[i].histtune_version, ms[i].histtune_version);
      }
    }
  }
}

TEST(DatabaseImport, ImportingTwiceDoesNotDuplicateMeasurements) {
  Database src(":memory:");
  fill(src);
  const std::string text = src.export_json();
  Database dst(":memory:");
  dst.import_json(text);
  const ImportSummary again = dst.import_json(text);
  EXPECT_EQ(again.measurements, 0u);
  EXPECT_EQ(again.winners, 0u);
  EXPECT_EQ(dst.measurements("GPU-a", make_problem(256, 1 << 20)).size(), 2u);
  // The document exported back is the same apart from its timestamp.
  json a = json::parse(text), b = json::parse(dst.export_json());
  a.erase("exported_at");
  b.erase("exported_at");
  EXPECT_EQ(a, b);
}

TEST(DatabaseImport, BaselineSpreadsRoundTrip) {
  Database src(":memory:");
  fill(src);
  const ProblemRow p = make_problem(256, 1 << 20);
  src.set_baseline(make_device("GPU-a"), p, baseline_with_spreads());
  const json doc = json::parse(src.export_json());
  bool found = false;
  for (const json& r : doc.at("results")) {
    if (r.at("baseline").is_null()) continue;
    found = true;
    EXPECT_EQ(r.at("baseline").at("cub_min_ms"), 0.2);
    EXPECT_EQ(r.at("baseline").at("default_max_ms"), 0.47);
  }
  EXPECT_TRUE(found);
  Database dst(":memory:");
  EXPECT_EQ(dst.import_json(doc.dump()).baselines, 1u);
  const auto got = dst.baseline("GPU-a", p);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got->default_min_ms, 0.38);
  EXPECT_EQ(*got->default_max_ms, 0.47);
  EXPECT_EQ(*got->cub_min_ms, 0.2);
  EXPECT_EQ(*got->cub_max_ms, 0.31);
  // And a second export of the imported file is the same document.
  json a = doc, again = json::parse(dst.export_json());
  a.erase("exported_at");
  again.erase("exported_at");
  EXPECT_EQ(a, again);
}

TEST(DatabaseImport, BaselineWithoutSpreadsStillImports) {
  Database src(":memory:");
  fill(src);
  const ProblemRow p = make_problem(256, 1 << 20);
  histtune::db::BaselineRow b;
  b.default_ms = 0.4;
  b.cub_ms = 0.25;
  src.set_baseline(make_device("GPU-a"), p, b);
  json doc = json::parse(src.export_json());
  for (json& r : doc["results"]) {  // as an export before schema 4 wrote it
    if (r["baseline"].is_null()) continue;
    for (const char* k : {"default_min_ms", "default_max_ms", "cub_min_ms", "cub_max_ms"}) {
      ASSERT_TRUE(r["baseline"].contains(k)) << k;
      r["baseline"].erase(k);
    }
  }
  Database dst(":memory:");
  EXPECT_EQ(dst.import_json(doc.dump()).baselines, 1u);
  const auto got = dst.baseline("GPU-a", p);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(*got->cub_ms, 0.25);
  EXPECT_DOUBLE_EQ(*got->default_ms, 0.4);
  EXPECT_FALSE(got->default_min_ms || got->default_max_ms || got->cub_min_ms || got->cub_max_ms);
}

TEST(DatabaseImport, BaselinesRoundTripAndOnlyANewerOneReplaces) {
  Database src(":memory:");
  fill(src);
  const histtune::db::ProblemRow p = make_problem(256, 1 << 20);
  histtune::db::BaselineRow b;
  b.cub_ms = 0.25;
  b.floor_ms = 0.1;
  src.set_baseline(make_device("GPU-a"), p, b);
  json doc = json::parse(src.export_json());
  Database dst(":memory:");
  ImportSummary s = dst.import_json(doc.dump());
  EXPECT_EQ(s.baselines, 1u);
  auto got = dst.baseline("GPU-a", p);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(*got->cub_ms, 0.25);
  EXPECT_FALSE(got->default_ms);
  EXPECT_EQ(got->measured_at, src.baseline("GPU-a", p)->measured_at);
  // An older baseline does not replace it; a newer one does.
  for (json& r : doc["results"]) {
    if (r["baseline"].is_null()) continue;
    r["baseline"]["cub_ms"] = 9.0;
    r["baseline"]["measured_at"] = "2000-01-01T00:00:00.000Z";
  }
  EXPECT_EQ(dst.import_json(doc.dump()).baselines, 0u);
  EXPECT_DOUBLE_EQ(*dst.baseline("GPU-a", p)->cub_ms, 0.25);
  for (json& r : doc["results"]) {
    if (!r["baseline"].is_null()) r["baseline"]["measured_at"] = "2999-01-01T00:00:00.000Z";
  }
  EXPECT_EQ(dst.import_json(doc.dump()).baselines, 1u);
  EXPECT_DOUBLE_EQ(*dst.baseline("GPU-a", p)->cub_ms, 9.0);
  EXPECT_EQ(dst.baselines("GPU-a").size(), 1u);
}

// --- JSON format 2 -------------------------------------------------------------------------------

TEST(DatabaseImportV3, FormatTwoRoundTripsChannelsDistributionsAndTheirWinners) {
  Database src(":memory:");
  fill_v3(src);
  const std::string text = src.export_json();
  const json doc = json::parse(text);
  EXPECT_EQ(doc.at("format_version"), 2);
  const json& r0 = doc.at("results").at(0);
  EXPECT_TRUE(r0.at("problem").contains("channels"));
  EXPECT_TRUE(r0.at("measurements").at(0).contains("distribution"));
  EXPECT_TRUE(r0.at("winners_by_distribution").is_array());

  Database dst(":memory:");
  const auto s = dst.import_json(text);
  EXPECT_EQ(s.problems, 2u);
  EXPECT_EQ(s.measurements, 4u);
  EXPECT_EQ(s.winners, 4u);  // two robust, two per distribution
  const ProblemRow p = problem(256, 1 << 24);
  EXPECT_EQ(dst.measurements("GPU-a", p).size(), 3u);
  EXPECT_EQ(dst.measurements("GPU-a", p)[1].distribution, "constant");
  EXPECT_EQ(dst.distribution_winners("GPU-a", p).size(), 2u);
  EXPECT_EQ(dst.winner_for("GPU-a", p, "constant")->config_label, "b");
  EXPECT_EQ(dst.winner("GPU-a", problem(256, 1 << 26, 4, 3))->config_label, "c");
  // Twice adds nothing, and exports the same document.
  const auto again = dst.import_json(text);
  EXPECT_EQ(again.measurements, 0u);
  EXPECT_EQ(again.winners, 0u);
  json a = doc, b = json::parse(dst.export_json());
  a.erase("exported_at");
  b.erase("exported_at");
  EXPECT_EQ(a, b);
}

TEST(DatabaseImportV3, VersionOneFilesStillImportWithTheDefaults) {
  Database src(":memory:");
  fill_v3(src);
  json doc = json::parse(src.export_json());
  doc["format_version"] = 1;
  doc["results"].erase(1);  // the multi-channel problem did not exist in version 1
  for (json& r : doc["results"]) {
    r["problem"].erase("channels");
    r["problem"].erase("active_channels");
    r.erase("winners_by_distribution");
    for (json& m : r["measurements"]) m.erase("distribution");
  }
  Database dst(":memory:");
  const auto s = dst.import_json(doc.dump());
  EXPECT_EQ(s.measurements, 3u);
  const auto ms = dst.measurements("GPU-a", problem(256, 1 << 24));
  ASSERT_EQ(ms.size(), 3u);
  for (const auto& m : ms) EXPECT_EQ(m.distribution, "uniform");
  EXPECT_EQ(dst.winner("GPU-a", problem(256, 1 << 24))->problem.channels, 1u);
}

// --- merge ---------------------------------------------------------------------------------------

TEST_F(DatabaseV2File, DatabaseMergeKeepsTheFasterWinner) {
  const fs::path mine = dir_ / "mine.db";
  const fs::path theirs = dir_ / "theirs.db";
  const ProblemRow p1 = make_problem(256, 1 << 20);
  const ProblemRow p2 = make_problem(64, 4096);
  {
    Database other(theirs.string());
    other.set_winner(make_device("GPU-a"), p1, "tpb128", 0.3, "abc123", "0.2.0");  // faster
    other.set_winner(make_device("GPU-a"), p2, "tpb32", 0.9, "abc123", "0.2.0");   // slower
    other.record_measurements(make_device("GPU-a"), p1, {make_measurement("tpb128", 0.3)});
  }
  Database db(mine.string());
  db.set_winner(make_device("GPU-a"), p1, "tpb256", 0.5, "abc123", "0.2.0");
  db.set_winner(make_device("GPU-a"), p2, "tpb64", 0.2, "abc123", "0.2.0");
  const ImportSummary s = db.merge_from(theirs.string());
  EXPECT_EQ(s.winners, 1u);
  EXPECT_EQ(s.measurements, 1u);
  EXPECT_EQ(db.winner("GPU-a", p1)->config_label, "tpb128");
  EXPECT_EQ(db.winner("GPU-a", p2)->config_label, "tpb64");
  EXPECT_EQ(db.merge_from(theirs.string()).measurements, 0u);
  EXPECT_THROW(db.merge_from((dir_ / "missing.db").string()), DbError);
}

// histtune merge: medians of two runs are not compared; the stored winner stays and the
// disagreement is reported, robust and per distribution.
TEST_F(DatabaseV3File, MergeByTheExistingRuleKeepsTheStoredWinnersAndReportsThem) {
  const fs::path theirs = dir_ / "theirs.db";
  const ProblemRow p = problem(256, 1 << 24);
  {
    Database other(theirs.string());
    other.set_winners(make_device("GPU-a"), p, chosen("x", 0.1, "any", "h9"),
                      {chosen("fast", 0.5, "constant"), chosen("mine", 2.0, "skewed")});
  }
  Database db((dir_ / "mine.db").string());
  db.set_winners(make_device("GPU-a"), p, chosen("y", 0.9, "any"),
                 {chosen("mine", 0.8, "constant"), chosen("mine", 1.0, "skewed")});
  const auto s = db.merge_from(theirs.string(), histtune::db::WinnerRule::existing);
  EXPECT_EQ(s.winners, 0u);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "y");
  EXPECT_EQ(db.winner_for("GPU-a", p, "constant")->config_label, "mine");
  ASSERT_EQ(s.conflicts.size(), 2u) << "skewed names the same configuration: no conflict";
  EXPECT_EQ(s.conflicts[0].distribution, "any");
  EXPECT_EQ(s.conflicts[0].stored_label, "y");
  EXPECT_EQ(s.conflicts[0].imported_label, "x");
  EXPECT_EQ(s.conflicts[0].imported_template_hash, "h9");
  EXPECT_FALSE(s.conflicts[0].imported_kept);
  EXPECT_EQ(s.conflicts[1].distribution, "constant");
  EXPECT_EQ(s.conflicts[1].imported_label, "fast");
  // The faster rule reports the same disagreements, and which side it kept.
  const auto faster = db.merge_from(theirs.string());
  ASSERT_EQ(faster.conflicts.size(), 2u);
  EXPECT_TRUE(faster.conflicts[0].imported_kept);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "x");
}

// Importing what is already stored changes nothing, and so writes nothing to the file.
TEST_F(DatabaseV3File, RepeatedImportLeavesTheFileAsItWas) {
  const fs::path path = dir_ / "a.db";
  std::string text;
  {
    Database db(path.string());
    db.set_winners(make_device("GPU-a"), problem(256, 1 << 24), chosen("y", 0.9, "any"),
                   {chosen("mine", 0.8, "constant")});
    db.record_measurements(make_device("GPU-a"), problem(256, 1 << 24),
                           {make_measurement("y", 0.9)});
    text = db.export_json();
  }
  auto bytes = [&] {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string before = bytes();
  {
    Database db(path.string());
    const auto s = db.import_json(text);
    EXPECT_EQ(s.devices + s.problems + s.measurements + s.winners + s.baselines, 0u);
  }
  EXPECT_EQ(bytes(), before);
}

TEST_F(DatabaseV3File, DatabaseMergeKeepsTheFasterPerDistributionWinner) {
  const fs::path theirs = dir_ / "theirs.db";
  const ProblemRow p = problem(256, 1 << 24);
  {
    Database other(theirs.string());
    other.set_winners(make_device("GPU-a"), p, chosen("x", 1.0, "any"),
                      {chosen("fast", 0.5, "constant"), chosen("slow", 2.0, "skewed")});
  }
  Database db((dir_ / "mine.db").string());
  db.set_winners(make_device("GPU-a"), p, chosen("y", 0.9, "any"),
                 {chosen("mine", 0.8, "constant"), chosen("mine", 1.0, "skewed")});
  const auto s = db.merge_from(theirs.string());
  EXPECT_EQ(s.winners, 1u) << "only the faster constant winner";
  EXPECT_EQ(db.winner_for("GPU-a", p, "constant")->config_label, "fast");
  EXPECT_EQ(db.winner_for("GPU-a", p, "skewed")->config_label, "mine");
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "y");
}

// Issue 25's sample types are stored by name like the others, and import back.
TEST(DatabaseImport, NewSampleTypesRoundTrip) {
  Database src(":memory:");
  for (const char* type : {"i8", "i16", "f16", "bf16"})
    src.record_measurements(make_device("GPU-a"), make_problem(256, 1 << 20, "hist1d", type),
                            {make_measurement("tpb256.ipt4", 0.5)});
  Database dst(":memory:");
  EXPECT_EQ(dst.import_json(src.export_json()).problems, 4u);
  for (const char* type : {"i8", "i16", "f16", "bf16"})
    EXPECT_EQ(dst.measurements("GPU-a", make_problem(256, 1 << 20, "hist1d", type)).size(), 1u)
        << type;
}

// The 64-bit sample types too (issue 25's second step).
TEST(DatabaseImport, SixtyFourBitSampleTypesRoundTrip) {
  Database src(":memory:");
  for (const char* type : {"i64", "u64", "f64"})
    src.record_measurements(make_device("GPU-a"), make_problem(256, 1 << 20, "hist1d", type),
                            {make_measurement("tpb256.ipt4", 0.5)});
  Database dst(":memory:");
  EXPECT_EQ(dst.import_json(src.export_json()).problems, 3u);
  for (const char* type : {"i64", "u64", "f64"})
    EXPECT_EQ(dst.measurements("GPU-a", make_problem(256, 1 << 20, "hist1d", type)).size(), 1u)
        << type;
}
