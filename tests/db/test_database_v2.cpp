// Tests of schema v2 and what came with it: migration of a v1 file, the cubin store, several
// processes writing one file, JSON export / import / merge, and pruning stale results.
#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::DeviceRow;
using histtune::db::ImportSummary;
using histtune::db::MeasurementRow;
using histtune::db::ProblemRow;
using histtune::db::PruneOptions;
using nlohmann::json;

namespace {

// The schema of version 1 exactly as histtune 1 wrote it: the start of every migration test.
constexpr const char* kV1Sql = R"sql(
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
)sql";

DeviceRow make_device(const std::string& uuid) {
  // Aggregate init of the nine v1 fields, as callers outside db/ do.
  DeviceRow d{uuid, "NVIDIA H100 80GB HBM3", 9, 0, 132, 85'000'000'000LL, 52'428'800, 13000, 12080};
  return d;
}

ProblemRow make_problem(std::uint32_t num_bins, std::uint64_t n) {
  ProblemRow p;
  p.family = "shared";
  p.sample_type = "u8";
  p.binning = "even";
  p.num_bins = num_bins;
  p.n = n;
  return p;
}

MeasurementRow make_measurement(const std::string& label, double median_ms,
                                const std::string& hash = "abc123",
                                const std::string& version = "0.2.0") {
  MeasurementRow m;
  m.config_label = label;
  m.params_json = "{\"label\":\"" + label + "\"}";
  m.median_ms = median_ms;
  m.min_ms = median_ms * 0.9;
  m.max_ms = median_ms * 1.2;
  m.samples = 50;
  m.verified = true;
  m.template_hash = hash;
  m.histtune_version = version;
  return m;
}

class DatabaseV2File : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "histtune_db_v2_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

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

// A small database: two devices, two problems, measurements and winners.
void fill(Database& db) {
  const ProblemRow p1 = make_problem(256, 1 << 20);
  const ProblemRow p2 = make_problem(64, 4096);
  DeviceRow a = make_device("GPU-a");
  a.memory_clock_khz = 2'619'000;
  a.nvrtc_version = "12.8";
  db.record_measurements(a, p1, {make_measurement("tpb256.ipt4", 0.5),
                                 make_measurement("tpb128.ipt8", 0.7)});
  db.set_winner(a, p1, "tpb256.ipt4", 0.5, "abc123", "0.2.0");
  db.record_measurements(a, p2, {make_measurement("tpb64.ipt1", 0.01)});
  db.record_measurements(make_device("GPU-b"), p1, {make_measurement("tpb512.ipt2", 0.4)});
  db.set_winner(make_device("GPU-b"), p1, "tpb512.ipt2", 0.4, "abc123", "0.2.0");
}

}  // namespace

// --- migration -----------------------------------------------------------------------------------

TEST_F(DatabaseV2File, DatabaseMigrationV1FileBecomesCurrentKeepingEveryRow) {
  const fs::path path = dir_ / "v1.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(kV1Sql);
    raw.exec("INSERT INTO meta (key, value) VALUES ('application', 'histtune')");
    raw.exec("PRAGMA user_version = 1");
    raw.exec(
        "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
        " driver_version, runtime_version) VALUES ('GPU-old', 'Old GPU', 8, 6, 84, 1000, 200,"
        " 12000, 11080)");
    raw.exec("INSERT INTO problems (family, sample_type, binning, num_bins, n)"
             " VALUES ('shared', 'u8', 'even', 256, 1048576)");
    raw.exec("INSERT INTO configurations (family, label, params_json)"
             " VALUES ('shared', 'tpb256', '{\"tpb\":256}')");
    raw.exec("INSERT INTO measurements (device_id, problem_id, config_id, median_ms, min_ms,"
             " max_ms, samples, verified, template_hash) VALUES (1, 1, 1, 0.5, 0.4, 0.6, 50, 1,"
             " 'h1')");
    raw.exec("INSERT INTO winners (device_id, problem_id, config_id, median_ms, template_hash)"
             " VALUES (1, 1, 1, 0.5, 'h1')");
  }
  Database db(path.string());
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
  const auto d = db.device("GPU-old");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->name, "Old GPU");
  EXPECT_EQ(d->cc_minor, 6);
  EXPECT_EQ(d->memory_clock_khz, 0);
  EXPECT_EQ(d->nvrtc_version, "");
  const ProblemRow p = make_problem(256, 1048576);
  const auto ms = db.measurements("GPU-old", p);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].params_json, "{\"tpb\":256}");
  EXPECT_EQ(ms[0].template_hash, "h1");
  EXPECT_EQ(ms[0].histtune_version, "");
  const auto w = db.winner("GPU-old", p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->config_label, "tpb256");
  EXPECT_EQ(w->histtune_version, "");

  // The new columns and the cubin table work on the migrated file.
  DeviceRow updated = *d;
  updated.memory_clock_khz = 1'593'000;
  updated.nvrtc_version = "12.8";
  db.upsert_device(updated);
  db.set_winner(updated, p, "tpb256", 0.45, "h2", "0.2.0");
  db.put_cubin("sm86/12.8/h2/tpb256", 86, "12.8", "h2", "tpb256", {'\x7f', 'E', 'L', 'F'});
  EXPECT_EQ(db.device("GPU-old")->memory_clock_khz, 1'593'000);
  EXPECT_EQ(db.winner("GPU-old", p)->histtune_version, "0.2.0");
  EXPECT_EQ(db.get_cubin("sm86/12.8/h2/tpb256"), (std::vector<char>{'\x7f', 'E', 'L', 'F'}));

  // Reopening does not migrate again.
  Database again(path.string());
  EXPECT_EQ(again.schema_version(), Database::kSchemaVersion);
  EXPECT_EQ(again.measurements("GPU-old", p).size(), 1u);
}

TEST_F(DatabaseV2File, DatabaseMigrationReadOnlyOpenOfV1LeavesFileAtV1) {
  const fs::path path = dir_ / "v1.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(kV1Sql);
    raw.exec("INSERT INTO meta (key, value) VALUES ('application', 'histtune')");
    raw.exec("PRAGMA user_version = 1");
    raw.exec("INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes,"
             " l2_bytes, driver_version, runtime_version) VALUES ('GPU-old', 'Old', 8, 6, 84,"
             " 1, 2, 3, 4)");
  }
  {
    const Database ro(path.string(), Database::OpenMode::kReadOnly);
    EXPECT_EQ(ro.schema_version(), Database::kSchemaVersion);  // of the memory copy
    EXPECT_TRUE(ro.device("GPU-old").has_value());
  }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), 1);
}

TEST(DatabaseMigration, NewDatabaseHasV2ColumnsAndCubinTable) {
  Database db(":memory:");
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
  DeviceRow d = make_device("GPU-a");
  d.memory_clock_khz = 2'619'000;
  d.nvrtc_version = "12.8";
  db.upsert_device(d);
  const auto back = db.device("GPU-a");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->memory_clock_khz, 2'619'000);
  EXPECT_EQ(back->nvrtc_version, "12.8");
  const ProblemRow p = make_problem(256, 1024);
  db.record_measurements(d, p, {make_measurement("tpb256", 0.5, "h", "0.2.0")});
  EXPECT_EQ(db.measurements("GPU-a", p).at(0).histtune_version, "0.2.0");
}

// --- cubins --------------------------------------------------------------------------------------

TEST(DatabaseCubin, PutGetReplaceAndMissing) {
  Database db(":memory:");
  EXPECT_FALSE(db.get_cubin("nope").has_value());
  std::vector<char> image(100'000);
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<char>(i * 7);
  db.put_cubin("k1", 90, "12.8", "h", "tpb256", image);
  EXPECT_EQ(db.get_cubin("k1"), image);
  db.put_cubin("k1", 90, "12.8", "h", "tpb256", {'x'});
  EXPECT_EQ(db.get_cubin("k1"), std::vector<char>{'x'});
  db.put_cubin("empty", 90, "12.8", "h", "tpb256", {});
  EXPECT_EQ(db.get_cubin("empty"), std::vector<char>{});
  EXPECT_THROW(db.put_cubin("", 90, "12.8", "h", "tpb256", {'x'}), DbError);
}

// The tuner's compile threads store CUBINs through the connection the main thread uses for
// measurements: their transactions must not interleave (it failed so on the H100).
TEST_F(DatabaseV2File, DatabaseConcurrencyThreadsShareOneConnection) {
  Database db((dir_ / "threads.db").string());
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&db, t] {
      for (int i = 0; i < 50; ++i)
        db.put_cubin("k" + std::to_string(t) + "_" + std::to_string(i), 90, "13.0", "h", "l",
                     std::vector<char>(2000, static_cast<char>(i)));
    });
  }
  for (int i = 0; i < 50; ++i) {
    MeasurementRow m;
    m.config_label = "cfg" + std::to_string(i);
    m.median_ms = m.min_ms = m.max_ms = 0.1;
    m.samples = 5;
    m.verified = true;
    ASSERT_NO_THROW(db.record_measurements(make_device("GPU-a"), make_problem(256, 1 << 20), {m}));
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(db.measurements("GPU-a", make_problem(256, 1 << 20)).size(), 50u);
  EXPECT_TRUE(db.get_cubin("k3_49").has_value());
}

// --- several processes writing one file ------------------------------------------------------------

TEST_F(DatabaseV2File, DatabaseConcurrencyFourProcessesWriteOneFileWithoutBusyErrors) {
  const fs::path path = dir_ / "shared.db";
  constexpr int kChildren = 4;
  constexpr int kBatches = 30;
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        // Every child opens (and perhaps creates) the file itself, at about the same time.
        Database db(path.string());
        const DeviceRow shared = make_device("GPU-shared");
        for (int b = 0; b < kBatches; ++b) {
          const ProblemRow p = make_problem(256, static_cast<std::uint64_t>(c * 1000 + b));
          db.record_measurements(shared, p, {make_measurement("tpb256", 0.5 + b),
                                             make_measurement("tpb128", 0.6 + b)});
          db.set_winner(shared, p, "tpb256", 0.5 + b, "abc123", "0.2.0");
        }
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "a writer failed";
  }
  Database db(path.string());
  EXPECT_EQ(db.winners("GPU-shared").size(), static_cast<std::size_t>(kChildren * kBatches));
  for (int c = 0; c < kChildren; ++c) {
    for (int b = 0; b < kBatches; ++b) {
      const ProblemRow p = make_problem(256, static_cast<std::uint64_t>(c * 1000 + b));
      EXPECT_EQ(db.measurements("GPU-shared", p).size(), 2u) << c << "/" << b;
    }
  }
}

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

namespace {

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
      {"bad sample_type", [] { return with([](json& d) { d["results"][2]["problem"]["sample_type"] = "u64"; }); },
       "results[2].problem.sample_type: must be one of u8, u16, u32, i32, f32"},
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

// --- prune ---------------------------------------------------------------------------------------

TEST(DatabasePrune, DeletesStaleRowsAndKeepsFreshOnes) {
  Database db(":memory:");
  const ProblemRow fresh = make_problem(256, 1 << 20);
  const ProblemRow stale = make_problem(64, 4096);
  const DeviceRow a = make_device("GPU-a");
  const DeviceRow b = make_device("GPU-b");
  db.record_measurements(a, fresh, {make_measurement("new", 0.5, "h2", "0.2.0"),
                                    make_measurement("old", 0.6, "h1", "0.2.0")});
  db.set_winner(a, fresh, "new", 0.5, "h2", "0.2.0");
  db.record_measurements(a, stale, {make_measurement("old2", 0.1, "h1", "0.1.0")});
  db.set_winner(a, stale, "old2", 0.1, "h1", "0.1.0");
  db.record_measurements(b, stale, {make_measurement("oldb", 0.1, "h1", "0.1.0")});

  PruneOptions only_a;
  only_a.keep_template_hash = "h2";
  only_a.device_uuid = "GPU-a";
  // a: measurements "old", "old2", winner of stale; configuration "old" (still "old2" for b? no:
  // "old2" is only a's) -> configs "old", "old2" go. Problem `stale` stays: b still measures it.
  EXPECT_EQ(db.prune(only_a), 2u + 1u + 2u);
  EXPECT_EQ(db.measurements("GPU-a", fresh).size(), 1u);
  EXPECT_EQ(db.measurements("GPU-a", fresh)[0].config_label, "new");
  EXPECT_TRUE(db.winner("GPU-a", fresh).has_value());
  EXPECT_FALSE(db.winner("GPU-a", stale).has_value());
  EXPECT_EQ(db.measurements("GPU-b", stale).size(), 1u);

  PruneOptions by_version;
  by_version.keep_histtune_version = "0.2.0";
  // b's measurement, then problem `stale` and configuration "oldb".
  EXPECT_EQ(db.prune(by_version), 3u);
  EXPECT_TRUE(db.measurements("GPU-b", stale).empty());
  EXPECT_EQ(db.measurements("GPU-a", fresh).size(), 1u);
  EXPECT_EQ(db.prune(PruneOptions{}), 0u);
}

namespace {

histtune::db::DeviceRow baseline_device() {
  histtune::db::DeviceRow d;
  d.uuid = "GPU-baseline";
  d.name = "Baseline GPU";
  d.cc_major = 9;
  return d;
}

}  // namespace

TEST(DatabaseBaseline, SetReplaceReadAndListDevices) {
  histtune::db::Database db(":memory:");
  histtune::db::ProblemRow p{"hist1d", "u8", "direct", 256, 1u << 20};
  EXPECT_FALSE(db.baseline("GPU-baseline", p));
  histtune::db::BaselineRow b;
  b.cub_ms = 0.13;
  b.floor_ms = 0.087;
  db.set_baseline(baseline_device(), p, b);
  auto got = db.baseline("GPU-baseline", p);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(*got->cub_ms, 0.13);
  EXPECT_DOUBLE_EQ(*got->floor_ms, 0.087);
  EXPECT_FALSE(got->default_ms) << "not measured stays NULL";
  EXPECT_FALSE(got->measured_at.empty());
  b.cub_ms.reset();
  b.default_ms = 0.4;
  db.set_baseline(baseline_device(), p, b);
  got = db.baseline("GPU-baseline", p);
  EXPECT_FALSE(got->cub_ms);
  EXPECT_DOUBLE_EQ(*got->default_ms, 0.4);
  auto devices = db.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].uuid, "GPU-baseline");
  // A problem that only a baseline references survives a prune.
  histtune::db::PruneOptions keep;
  keep.keep_template_hash = "h";
  EXPECT_NO_THROW(db.prune(keep));
  EXPECT_TRUE(db.baseline("GPU-baseline", p));
}

TEST(DatabaseBaseline, NegativeTimesAreRefused) {
  histtune::db::Database db(":memory:");
  histtune::db::BaselineRow b;
  b.cub_ms = -1;
  EXPECT_THROW(db.set_baseline(baseline_device(), {"hist1d", "u8", "direct", 256, 16}, b),
               histtune::db::DbError);
}
