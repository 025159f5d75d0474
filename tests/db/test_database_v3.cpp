// Tests of schema v3: migration of a v2 file, channels in the problem key, input distributions
// of measurements, per-distribution winners beside the robust one, and the JSON format 2 that
// carries them (version-1 files still import), merge and prune.
#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::DeviceRow;
using histtune::db::MeasurementRow;
using histtune::db::ProblemRow;
using histtune::db::PruneOptions;
using histtune::db::WinnerRow;
using nlohmann::json;

namespace {

// The schema of version 2 exactly as histtune wrote it (version 1 plus its migration).
constexpr const char* kV2Sql = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE devices (
  id              INTEGER PRIMARY KEY,
  uuid            TEXT    NOT NULL UNIQUE CHECK (length(uuid) > 0),
  name            TEXT    NOT NULL,
  cc_major        INTEGER NOT NULL,
  cc_minor        INTEGER NOT NULL,
  sm_count        INTEGER NOT NULL,
  memory_bytes    INTEGER NOT NULL,
  l2_bytes        INTEGER NOT NULL,
  driver_version  INTEGER NOT NULL,
  runtime_version INTEGER NOT NULL,
  updated_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX devices_arch ON devices (cc_major, cc_minor);
CREATE TABLE problems (
  id          INTEGER PRIMARY KEY,
  family      TEXT    NOT NULL CHECK (length(family) > 0),
  sample_type TEXT    NOT NULL CHECK (length(sample_type) > 0),
  binning     TEXT    NOT NULL CHECK (length(binning) > 0),
  num_bins    INTEGER NOT NULL CHECK (num_bins >= 0),
  n           INTEGER NOT NULL CHECK (n >= 0),
  UNIQUE (family, sample_type, binning, num_bins, n)
);
CREATE TABLE configurations (
  id          INTEGER PRIMARY KEY,
  family      TEXT NOT NULL CHECK (length(family) > 0),
  label       TEXT NOT NULL CHECK (length(label) > 0),
  params_json TEXT NOT NULL,
  UNIQUE (family, label)
);
CREATE TABLE measurements (
  id            INTEGER PRIMARY KEY,
  device_id     INTEGER NOT NULL REFERENCES devices (id),
  problem_id    INTEGER NOT NULL REFERENCES problems (id),
  config_id     INTEGER NOT NULL REFERENCES configurations (id),
  median_ms     REAL    NOT NULL CHECK (median_ms >= 0),
  min_ms        REAL    NOT NULL CHECK (min_ms >= 0),
  max_ms        REAL    NOT NULL CHECK (max_ms >= 0),
  samples       INTEGER NOT NULL CHECK (samples >= 0),
  verified      INTEGER NOT NULL CHECK (verified IN (0, 1)),
  template_hash TEXT    NOT NULL,
  created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX measurements_device_problem ON measurements (device_id, problem_id);
CREATE TABLE winners (
  device_id     INTEGER NOT NULL REFERENCES devices (id),
  problem_id    INTEGER NOT NULL REFERENCES problems (id),
  config_id     INTEGER NOT NULL REFERENCES configurations (id),
  median_ms     REAL    NOT NULL CHECK (median_ms >= 0),
  template_hash TEXT    NOT NULL,
  updated_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (device_id, problem_id)
);
ALTER TABLE devices      ADD COLUMN memory_clock_khz INTEGER NOT NULL DEFAULT 0;
ALTER TABLE devices      ADD COLUMN nvrtc_version    TEXT    NOT NULL DEFAULT '';
ALTER TABLE measurements ADD COLUMN histtune_version TEXT    NOT NULL DEFAULT '';
ALTER TABLE winners      ADD COLUMN histtune_version TEXT    NOT NULL DEFAULT '';
CREATE TABLE cubins (
  cache_key     TEXT    PRIMARY KEY CHECK (length(cache_key) > 0),
  arch          INTEGER NOT NULL,
  nvrtc_version TEXT    NOT NULL,
  template_hash TEXT    NOT NULL,
  label         TEXT    NOT NULL,
  image         BLOB    NOT NULL,
  created_at    TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE baselines (
  device_id   INTEGER NOT NULL REFERENCES devices(id),
  problem_id  INTEGER NOT NULL REFERENCES problems(id),
  default_ms  REAL CHECK (default_ms IS NULL OR default_ms >= 0),
  cub_ms      REAL CHECK (cub_ms IS NULL OR cub_ms >= 0),
  floor_ms    REAL CHECK (floor_ms IS NULL OR floor_ms >= 0),
  read_gbps   REAL CHECK (read_gbps IS NULL OR read_gbps >= 0),
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (device_id, problem_id)
);
)sql";

DeviceRow device(const std::string& uuid) {
  DeviceRow d{uuid, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85'000'000'000LL, 52'428'800, 13000, 12080};
  return d;
}

ProblemRow problem(std::uint32_t bins, std::uint64_t n, std::uint32_t channels = 1,
                   std::uint32_t active = 0) {
  // Aggregate init of the five v2 fields, as Problem::key() does; channels by assignment.
  ProblemRow p{"hist1d", "u8", "direct", bins, n};
  p.channels = channels;
  p.active_channels = active;
  return p;
}

MeasurementRow measurement(const std::string& label, double ms, const std::string& dist,
                           const std::string& hash = "h3") {
  MeasurementRow m;
  m.config_label = label;
  m.params_json = "{}";
  m.median_ms = ms;
  m.min_ms = ms * 0.9;
  m.max_ms = ms * 1.1;
  m.samples = 10;
  m.verified = true;
  m.template_hash = hash;
  m.histtune_version = "0.3.0";
  m.distribution = dist;
  return m;
}

WinnerRow chosen(const std::string& label, double ms, const std::string& dist,
                 const std::string& hash = "h3") {
  WinnerRow w;
  w.config_label = label;
  w.median_ms = ms;
  w.template_hash = hash;
  w.histtune_version = "0.3.0";
  w.distribution = dist;
  return w;
}

class DatabaseV3File : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "histtune_db_v3_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // A version-2 file with one device, two problems, measurements, a winner and a baseline.
  fs::path make_v2_file() {
    const fs::path path = dir_ / "v2.db";
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(kV2Sql);
    raw.exec("INSERT INTO meta (key, value) VALUES ('application', 'histtune')");
    raw.exec("PRAGMA user_version = 2");
    raw.exec("INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes,"
             " l2_bytes, driver_version, runtime_version, memory_clock_khz, nvrtc_version)"
             " VALUES ('GPU-v2', 'H100', 9, 0, 132, 1000, 200, 13000, 12080, 2619000, '12.8')");
    // Ids 7 and 9: the migration must keep them, every reference points at them.
    raw.exec("INSERT INTO problems (id, family, sample_type, binning, num_bins, n)"
             " VALUES (7, 'hist1d', 'u8', 'direct', 256, 1048576),"
             "        (9, 'hist1d', 'u32', 'direct', 4096, 4096)");
    raw.exec("INSERT INTO configurations (family, label, params_json)"
             " VALUES ('hist1d', 'tpb256', '{\"tpb\":256}'), ('hist1d', 'tpb512', '{}')");
    raw.exec("INSERT INTO measurements (device_id, problem_id, config_id, median_ms, min_ms,"
             " max_ms, samples, verified, template_hash, histtune_version)"
             " VALUES (1, 7, 1, 0.5, 0.4, 0.6, 15, 1, 'h2', '0.2.0'),"
             "        (1, 7, 2, 0.7, 0.6, 0.8, 15, 1, 'h2', '0.2.0'),"
             "        (1, 9, 2, 0.1, 0.1, 0.1, 15, 1, 'h2', '0.2.0')");
    raw.exec("INSERT INTO winners (device_id, problem_id, config_id, median_ms, template_hash,"
             " histtune_version) VALUES (1, 7, 1, 0.5, 'h2', '0.2.0')");
    raw.exec("INSERT INTO baselines (device_id, problem_id, cub_ms) VALUES (1, 9, 0.2)");
    raw.exec("INSERT INTO cubins (cache_key, arch, nvrtc_version, template_hash, label, image)"
             " VALUES ('k', 90, '12.8', 'h2', 'tpb256', x'7f454c46')");
    return path;
  }
  fs::path dir_;
};

std::int64_t scalar(const fs::path& path, const std::string& sql) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  return raw.execAndGet(sql).getInt64();
}

}  // namespace

// --- migration -----------------------------------------------------------------------------------

TEST_F(DatabaseV3File, DatabaseMigrationV2FileBecomesV3KeepingEveryRowAndId) {
  const fs::path path = make_v2_file();
  {
    Database db(path.string());
    EXPECT_EQ(db.schema_version(), 3);
    const ProblemRow p = problem(256, 1048576);
    const auto ms = db.measurements("GPU-v2", p);
    ASSERT_EQ(ms.size(), 2u);
    EXPECT_EQ(ms[0].config_label, "tpb256");
    EXPECT_EQ(ms[0].params_json, "{\"tpb\":256}");
    EXPECT_EQ(ms[0].distribution, "uniform") << "old rows measured uniform data";
    EXPECT_EQ(ms[0].histtune_version, "0.2.0");
    const auto w = db.winner("GPU-v2", p);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->config_label, "tpb256");
    EXPECT_EQ(w->distribution, histtune::db::kAnyDistribution);
    EXPECT_EQ(w->problem.channels, 1u);
    EXPECT_EQ(w->problem.active_channels, 0u);
    ProblemRow u32 = problem(4096, 4096);
    u32.sample_type = "u32";
    EXPECT_EQ(db.measurements("GPU-v2", u32).size(), 1u);
    EXPECT_DOUBLE_EQ(*db.baseline("GPU-v2", u32)->cub_ms, 0.2);
    EXPECT_EQ(db.get_cubin("k"), (std::vector<char>{'\x7f', 'E', 'L', 'F'}));
    EXPECT_TRUE(db.distribution_winners("GPU-v2", p).empty());
    EXPECT_EQ(db.winner_for("GPU-v2", p, "skewed")->config_label, "tpb256")
        << "no per-distribution winner yet: the robust one";

    // The new columns work on the migrated file, and foreign keys are on again.
    db.record_measurements(device("GPU-v2"), problem(256, 1048576, 4, 3),
                           {measurement("tpb256", 0.9, "runs")});
    EXPECT_EQ(db.measurements("GPU-v2", problem(256, 1048576, 4, 3)).size(), 1u);
    EXPECT_EQ(db.measurements("GPU-v2", p).size(), 2u) << "channels are part of the key";
  }
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM problems WHERE id IN (7, 9)"), 2);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM measurements"), 4);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  Database again(path.string());  // no second migration
  EXPECT_EQ(again.schema_version(), 3);
  EXPECT_EQ(again.measurements("GPU-v2", problem(256, 1048576)).size(), 2u);
}

TEST_F(DatabaseV3File, DatabaseMigrationReadOnlyOpenOfV2LeavesFileAtV2) {
  const fs::path path = make_v2_file();
  {
    const Database ro(path.string(), Database::OpenMode::kReadOnly);
    EXPECT_EQ(ro.schema_version(), 3);
    EXPECT_EQ(ro.measurements("GPU-v2", problem(256, 1048576)).at(0).distribution, "uniform");
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), 2);
}

TEST_F(DatabaseV3File, DatabaseForeignKeysAreEnforcedAfterMigration) {
  const fs::path path = make_v2_file();
  { Database db(path.string()); }
  // Through a second connection of our own, the way the Database sets it up: a dangling
  // reference is refused, so the rebuilt problems table is the one measurements refer to.
  SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
  raw.exec("PRAGMA foreign_keys = ON");
  EXPECT_THROW(raw.exec("INSERT INTO measurements (device_id, problem_id, config_id, median_ms,"
                        " min_ms, max_ms, samples, verified, template_hash)"
                        " VALUES (1, 12345, 1, 1, 1, 1, 1, 1, 'x')"),
               SQLite::Exception);
  EXPECT_NO_THROW(raw.exec("INSERT INTO measurements (device_id, problem_id, config_id,"
                           " median_ms, min_ms, max_ms, samples, verified, template_hash)"
                           " VALUES (1, 9, 1, 1, 1, 1, 1, 1, 'x')"));
}

// --- channels ------------------------------------------------------------------------------------

TEST(DatabaseChannels, ChannelsAndActiveChannelsArePartOfTheKeyAndOfNearestLookups) {
  Database db(":memory:");
  const DeviceRow d = device("GPU-a");
  const ProblemRow flat = problem(256, 1 << 20);
  const ProblemRow rgba = problem(256, 1 << 20, 4, 4);
  const ProblemRow rgb_of_rgba = problem(256, 1 << 20, 4, 3);
  db.set_winner(d, flat, "flat", 0.1, "h3", "0.3.0");
  db.set_winner(d, rgba, "rgba", 0.2, "h3", "0.3.0");
  db.set_winner(d, rgb_of_rgba, "rgb", 0.3, "h3", "0.3.0");
  EXPECT_EQ(db.winner("GPU-a", flat)->config_label, "flat");
  EXPECT_EQ(db.winner("GPU-a", rgba)->config_label, "rgba");
  EXPECT_EQ(db.winner("GPU-a", rgb_of_rgba)->config_label, "rgb");
  EXPECT_EQ(db.winner("GPU-a", rgb_of_rgba)->problem.active_channels, 3u);
  EXPECT_EQ(db.winners("GPU-a").size(), 3u);

  const auto like = db.winners_like("GPU-a", problem(256, 1 << 24, 4, 3));
  ASSERT_EQ(like.size(), 1u) << "only equal channels / active channels are near";
  EXPECT_EQ(like[0].config_label, "rgb");
  ASSERT_EQ(db.winners_like("GPU-a", problem(64, 1 << 10)).size(), 1u);
  DeviceRow other = device("GPU-b");
  db.set_winner(other, problem(256, 4096, 4, 4), "b-rgba", 0.2, "h3", "0.3.0");
  const auto arch = db.winners_same_arch(9, 0, "GPU-a", problem(1, 1, 4, 4));
  ASSERT_EQ(arch.size(), 1u);
  EXPECT_EQ(arch[0].config_label, "b-rgba");
  EXPECT_TRUE(db.winners_same_arch(9, 0, "GPU-a", problem(1, 1)).empty());
}

// --- distributions -------------------------------------------------------------------------------

TEST(DatabaseDistributions, MeasurementsKeepTheirDistributionAndWinnersAreKeptPerDistribution) {
  Database db(":memory:");
  const DeviceRow d = device("GPU-a");
  const ProblemRow p = problem(256, 1 << 24);
  db.record_measurements(d, p, {measurement("a", 1.0, "uniform"), measurement("a", 3.0, "constant"),
                                measurement("b", 1.2, "constant")});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].distribution, "uniform");
  EXPECT_EQ(ms[1].distribution, "constant");
  EXPECT_EQ(ms[1].config_label, "b");

  EXPECT_FALSE(db.winner_for("GPU-a", p, "constant")) << "nothing stored yet";
  db.set_winners(d, p, chosen("b", 1.1, histtune::db::kAnyDistribution),
                 {chosen("a", 1.0, "uniform"), chosen("b", 1.2, "constant")});
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "b") << "the robust winner is the winner";
  const auto per = db.distribution_winners("GPU-a", p);
  ASSERT_EQ(per.size(), 2u);
  EXPECT_EQ(per[0].distribution, "constant");
  EXPECT_EQ(per[0].config_label, "b");
  EXPECT_EQ(per[1].distribution, "uniform");
  EXPECT_EQ(db.winner_for("GPU-a", p, "uniform")->config_label, "a");
  EXPECT_EQ(db.winner_for("GPU-a", p, "uniform")->distribution, "uniform");
  // The device-wide call: every problem's, ordered like winners() then by distribution.
  const ProblemRow small = problem(64, 1 << 10);
  db.set_winners(d, small, chosen("c", 0.1, histtune::db::kAnyDistribution),
                 {chosen("c", 0.1, "skewed")});
  db.set_winners(device("GPU-b"), p, chosen("a", 1.0, histtune::db::kAnyDistribution),
                 {chosen("a", 1.0, "runs")});
  const auto all = db.distribution_winners("GPU-a");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].problem, small);
  EXPECT_EQ(all[0].distribution, "skewed");
  EXPECT_EQ(all[1].problem, p);
  EXPECT_EQ(all[1].distribution, "constant");
  EXPECT_EQ(all[2].distribution, "uniform");
  const auto fallback = db.winner_for("GPU-a", p, "runs");
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->config_label, "b");
  EXPECT_EQ(fallback->distribution, histtune::db::kAnyDistribution);

  // Setting them again replaces all of them, in one transaction.
  db.set_winners(d, p, chosen("a", 1.0, "any"), {chosen("a", 1.0, "runs")});
  EXPECT_EQ(db.distribution_winners("GPU-a", p).size(), 1u);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "a");
  // "any" is not a distribution; a refused call changes nothing.
  EXPECT_THROW(db.set_winners(d, p, chosen("b", 1.0, "any"), {chosen("b", 1.0, "any")}), DbError);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "a");
  EXPECT_EQ(db.distribution_winners("GPU-a", p).size(), 1u);
}

// --- JSON format 2 -------------------------------------------------------------------------------

namespace {
void fill_v3(Database& db) {
  const DeviceRow d = device("GPU-a");
  const ProblemRow p = problem(256, 1 << 24);
  const ProblemRow px = problem(256, 1 << 26, 4, 3);  // exported after p
  db.record_measurements(d, p, {measurement("a", 1.0, "uniform"), measurement("a", 3.0, "constant"),
                                measurement("b", 1.2, "constant")});
  db.set_winners(d, p, chosen("b", 1.1, "any"),
                 {chosen("a", 1.0, "uniform"), chosen("b", 1.2, "constant")});
  db.record_measurements(d, px, {measurement("c", 0.5, "uniform")});
  db.set_winner(d, px, "c", 0.5, "h3", "0.3.0");
}
}  // namespace

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

TEST_F(DatabaseV3File, DatabaseMergeKeepsTheFasterPerDistributionWinner) {
  const fs::path theirs = dir_ / "theirs.db";
  const ProblemRow p = problem(256, 1 << 24);
  {
    Database other(theirs.string());
    other.set_winners(device("GPU-a"), p, chosen("x", 1.0, "any"),
                      {chosen("fast", 0.5, "constant"), chosen("slow", 2.0, "skewed")});
  }
  Database db((dir_ / "mine.db").string());
  db.set_winners(device("GPU-a"), p, chosen("y", 0.9, "any"),
                 {chosen("mine", 0.8, "constant"), chosen("mine", 1.0, "skewed")});
  const auto s = db.merge_from(theirs.string());
  EXPECT_EQ(s.winners, 1u) << "only the faster constant winner";
  EXPECT_EQ(db.winner_for("GPU-a", p, "constant")->config_label, "fast");
  EXPECT_EQ(db.winner_for("GPU-a", p, "skewed")->config_label, "mine");
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "y");
}

TEST(DatabasePruneV3, StalePerDistributionWinnersGoWithTheirTemplate) {
  Database db(":memory:");
  const ProblemRow p = problem(256, 1 << 24);
  db.set_winners(device("GPU-a"), p, chosen("new", 1.0, "any", "h3"),
                 {chosen("old", 1.0, "constant", "h2"), chosen("new", 1.0, "runs", "h3")});
  PruneOptions keep;
  keep.keep_template_hash = "h3";
  EXPECT_EQ(db.prune(keep), 2u) << "the stale row and the configuration only it referred to";
  const auto per = db.distribution_winners("GPU-a", p);
  ASSERT_EQ(per.size(), 1u);
  EXPECT_EQ(per[0].distribution, "runs");
}

TEST(DatabasePruneV3, FamilyLimitsPruningToThatFamilysProblems) {
  // Each family's kernel has its own template hash: pruning one family by its hash must leave
  // the other family's rows alone.
  Database db(":memory:");
  const ProblemRow flat = problem(256, 1 << 24);
  ProblemRow pixels = problem(256, 1 << 20, 4, 3);
  pixels.family = "multichannel";
  db.set_winner(device("GPU-a"), flat, "tpb256", 1.0, "h1d");
  db.set_winner(device("GPU-a"), pixels, "mc.tpb256", 1.0, "hmc");
  db.record_measurements(device("GPU-a"), pixels,
                         {measurement("mc.tpb256", 1.0, "uniform", "hmc")});
  PruneOptions hist1d;
  hist1d.keep_template_hash = "h1d";
  hist1d.family = "hist1d";
  EXPECT_EQ(db.prune(hist1d), 0u);
  EXPECT_TRUE(db.winner("GPU-a", pixels));
  PruneOptions mc;
  mc.keep_template_hash = "hmc";
  mc.family = "multichannel";
  EXPECT_EQ(db.prune(mc), 0u);
  EXPECT_TRUE(db.winner("GPU-a", flat));
  mc.keep_template_hash = "hmc-new";  // the multi-channel kernel changed
  EXPECT_GT(db.prune(mc), 0u);
  EXPECT_FALSE(db.winner("GPU-a", pixels));
  EXPECT_TRUE(db.measurements("GPU-a", pixels).empty());
  EXPECT_TRUE(db.winner("GPU-a", flat)) << "the 1D winner stays";
}
