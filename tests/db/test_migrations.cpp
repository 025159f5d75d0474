// Tests of schema migrations: a v1, a v2 and a v3 file (built from tests/db/fixtures) become
// current keeping every row and id, read-only opens migrate a memory copy and leave the file as
// it was, and foreign keys hold afterwards.
#include "db/db_test_support.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DeviceRow;
using histtune::db::ProblemRow;
using namespace histtune::db::test;

namespace {

std::int64_t scalar(const fs::path& path, const std::string& sql) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  return raw.execAndGet(sql).getInt64();
}

}  // namespace

// --- v1 to current -------------------------------------------------------------------------------

TEST_F(DatabaseV2File, DatabaseMigrationV1FileBecomesCurrentKeepingEveryRow) {
  const fs::path path = dir_ / "v1.db";
  build_from_fixtures(path, {"schema_v1.sql", "data_v1.sql"});
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
  build_from_fixtures(path, {"schema_v1.sql", "data_v1.sql"});
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

// --- v2 to v3 ------------------------------------------------------------------------------------

TEST_F(DatabaseV3File, DatabaseMigrationV2FileBecomesV3KeepingEveryRowAndId) {
  const fs::path path = make_v2_file();
  {
    Database db(path.string());
    EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
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
    db.record_measurements(make_device("GPU-v2"), problem(256, 1048576, 4, 3),
                           {measurement("tpb256", 0.9, "runs")});
    EXPECT_EQ(db.measurements("GPU-v2", problem(256, 1048576, 4, 3)).size(), 1u);
    EXPECT_EQ(db.measurements("GPU-v2", p).size(), 2u) << "channels are part of the key";
  }
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM problems WHERE id IN (7, 9)"), 2);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM measurements"), 4);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  Database again(path.string());  // no second migration
  EXPECT_EQ(again.schema_version(), Database::kSchemaVersion);
  EXPECT_EQ(again.measurements("GPU-v2", problem(256, 1048576)).size(), 2u);
}

TEST_F(DatabaseV3File, DatabaseMigrationReadOnlyOpenOfV2LeavesFileAtV2) {
  const fs::path path = make_v2_file();
  {
    const Database ro(path.string(), Database::OpenMode::kReadOnly);
    EXPECT_EQ(ro.schema_version(), Database::kSchemaVersion);
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

// --- v3 to v4 ------------------------------------------------------------------------------------

TEST_F(DatabaseV4File, DatabaseMigrationV3FileBecomesV4KeepingBaselinesWithoutSpread) {
  const fs::path path = make_v3_file();
  const ProblemRow p = problem(256, 1048576);
  const ProblemRow px = problem(256, 1048576, 4, 3);
  {
    Database db(path.string());
    EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
    const auto b = db.baseline("GPU-v3", p);
    ASSERT_TRUE(b);
    EXPECT_DOUBLE_EQ(*b->default_ms, 0.8);
    EXPECT_DOUBLE_EQ(*b->cub_ms, 0.3);
    EXPECT_DOUBLE_EQ(*b->floor_ms, 0.1);
    EXPECT_DOUBLE_EQ(*b->read_gbps, 3000);
    EXPECT_EQ(b->measured_at, "2026-01-02T03:04:05.678Z");
    EXPECT_FALSE(b->default_min_ms || b->default_max_ms || b->cub_min_ms || b->cub_max_ms)
        << "rows stored before version 4 have medians only";
    EXPECT_FALSE(db.baseline("GPU-v3", px)->cub_ms);
    EXPECT_EQ(db.winner("GPU-v3", px)->config_label, "tpb256");
    EXPECT_EQ(db.winner_for("GPU-v3", p, "constant")->median_ms, 0.9);
    EXPECT_EQ(db.measurements("GPU-v3", p).size(), 2u);

    // The new columns work on the migrated file, and refuse a negative time.
    histtune::db::BaselineRow spread = *b;
    spread.cub_min_ms = 0.25;
    spread.cub_max_ms = 0.4;
    db.set_baseline(make_device("GPU-v3"), p, spread);
    EXPECT_DOUBLE_EQ(*db.baseline("GPU-v3", p)->cub_max_ms, 0.4);
    spread.default_min_ms = -1;
    EXPECT_THROW(db.set_baseline(make_device("GPU-v3"), p, spread), histtune::db::DbError);
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), Database::kSchemaVersion);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM baselines"), 2);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  Database again(path.string());  // no second migration
  EXPECT_DOUBLE_EQ(*again.baseline("GPU-v3", p)->cub_min_ms, 0.25);
}

TEST_F(DatabaseV4File, DatabaseMigrationReadOnlyOpenOfV3LeavesFileAtV3) {
  const fs::path path = make_v3_file();
  {
    const Database ro(path.string(), Database::OpenMode::kReadOnly);
    EXPECT_EQ(ro.schema_version(), Database::kSchemaVersion);
    EXPECT_FALSE(ro.baseline("GPU-v3", problem(256, 1048576))->cub_min_ms);
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), 3);
}

// --- v4 to v5 ------------------------------------------------------------------------------------

TEST_F(DatabaseV5File, DatabaseMigrationV4FileGetsAnEmptyPendingTableKeepingEveryRow) {
  const fs::path path = make_v4_file();
  ASSERT_EQ(scalar(path, "PRAGMA user_version"), 4);
  const ProblemRow p = problem(256, 1048576);
  {
    Database db(path.string());
    EXPECT_EQ(db.schema_version(), 5);
    EXPECT_TRUE(db.pending().empty());
    EXPECT_EQ(db.winner("GPU-v3", p)->config_label, "tpb256");
    EXPECT_DOUBLE_EQ(*db.baseline("GPU-v3", p)->cub_ms, 0.3);
    histtune::db::PendingRow r;
    r.device_uuid = "GPU-v3";
    r.device_name = "H100";
    r.problem = problem(64, 4096);
    r.level = "nearest_shape";
    r.calls = 3;
    db.add_pending({r});
    EXPECT_EQ(db.pending().at(0).calls, 3u);
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), 5);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM pending"), 1);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM winners"), 2);
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

TEST_F(DatabaseV5File, DatabaseMigrationReadOnlyOpenOfV4LeavesFileAtV4) {
  const fs::path path = make_v4_file();
  {
    const Database ro(path.string(), Database::OpenMode::kReadOnly);
    EXPECT_EQ(ro.schema_version(), 5);
    EXPECT_TRUE(ro.pending().empty());
  }
  EXPECT_EQ(scalar(path, "PRAGMA user_version"), 4);
}
