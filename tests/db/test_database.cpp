// Tests of the SQLite tuning database: schema, round trips, upsert ids, winner lookups, all-or-none
// transactions, refusal of files that are not ours, and where the default database lives.
#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::DeviceRow;
using histtune::db::MeasurementRow;
using histtune::db::ProblemRow;
using histtune::db::WinnerRow;

namespace {

DeviceRow make_device(const std::string& uuid, int cc_major = 9, int cc_minor = 0) {
  DeviceRow d;
  d.uuid = uuid;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = 132;
  d.memory_bytes = 85'000'000'000LL;
  d.l2_bytes = 52'428'800;
  d.driver_version = 13000;
  d.runtime_version = 12080;
  return d;
}

ProblemRow make_problem(std::uint32_t num_bins, std::uint64_t n,
                        const std::string& family = "shared", const std::string& sample_type = "u8",
                        const std::string& binning = "even") {
  ProblemRow p;
  p.family = family;
  p.sample_type = sample_type;
  p.binning = binning;
  p.num_bins = num_bins;
  p.n = n;
  return p;
}

MeasurementRow make_measurement(const std::string& label, double median_ms) {
  MeasurementRow m;
  m.config_label = label;
  m.params_json = "{\"label\":\"" + label + "\"}";
  m.median_ms = median_ms;
  m.min_ms = median_ms * 0.9;
  m.max_ms = median_ms * 1.2;
  m.samples = 50;
  m.verified = true;
  m.template_hash = "abc123";
  return m;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::string> labels_of(const std::vector<WinnerRow>& ws) {
  std::vector<std::string> out;
  for (const WinnerRow& w : ws) out.push_back(w.config_label);
  return out;
}

// A fresh folder per test, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "histtune_db_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// Sets or clears an environment variable for one scope and restores the old value.
class EnvGuard {
 public:
  explicit EnvGuard(const char* name) : name_(name) {
    if (const char* v = std::getenv(name)) {
      had_ = true;
      old_ = v;
    }
  }
  ~EnvGuard() {
    if (had_) {
      setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  void set(const std::string& value) { setenv(name_.c_str(), value.c_str(), 1); }
  void clear() { unsetenv(name_.c_str()); }

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace

// --- schema ------------------------------------------------------------------------------------

TEST(DatabaseSchema, MemoryDatabaseHasCurrentSchemaVersion) {
  Database db(":memory:");
  EXPECT_EQ(db.path(), ":memory:");
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
  EXPECT_EQ(Database::kSchemaVersion, 3);
}

TEST_F(TempDirTest, FileDatabaseHasMetaApplicationTablesVersionAndWal) {
  const fs::path path = dir_ / "h.db";
  { Database db(path.string()); }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'application'").getString(),
            "histtune");
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), Database::kSchemaVersion);
  for (const char* table : {"meta", "devices", "problems", "configurations", "measurements",
                            "winners"}) {
    EXPECT_TRUE(raw.tableExists(table)) << table;
  }
  // The journal mode is stored in the file, so another connection sees it.
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
}

TEST_F(TempDirTest, OpeningCreatesMissingParentFolders) {
  const fs::path path = dir_ / "a" / "b" / "c" / "histtune.db";
  ASSERT_FALSE(fs::exists(path.parent_path()));
  Database db(path.string());
  EXPECT_TRUE(fs::is_regular_file(path));
  EXPECT_EQ(db.path(), path.string());
}

TEST_F(TempDirTest, FileDatabasePersistsAcrossReopen) {
  const fs::path path = dir_ / "h.db";
  const ProblemRow p = make_problem(256, 1 << 20);
  {
    Database db(path.string());
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("tpb256", 0.5)});
    db.set_winner(make_device("GPU-a"), p, "tpb256", 0.5, "abc123");
  }
  Database db(path.string());
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
  ASSERT_TRUE(db.device("GPU-a").has_value());
  ASSERT_EQ(db.measurements("GPU-a", p).size(), 1u);
  const auto w = db.winner("GPU-a", p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->config_label, "tpb256");
}

TEST_F(TempDirTest, TwoConnectionsOnOneFileShareData) {
  const fs::path path = dir_ / "h.db";
  Database first(path.string());
  Database second(path.string());
  first.upsert_device(make_device("GPU-a"));
  EXPECT_TRUE(second.device("GPU-a").has_value());
}

TEST(DatabaseOpen, EmptyPathIsRefused) { EXPECT_THROW(Database(""), DbError); }

// --- refusing files that are not ours ------------------------------------------------------------

TEST_F(TempDirTest, RefusesNonSqliteFileAndLeavesItUntouched) {
  const fs::path path = dir_ / "notes.db";
  const std::string garbage =
      "this is a text file, not a database\n" + std::string(2000, 'x') + "\n";
  { std::ofstream(path, std::ios::binary) << garbage; }
  try {
    Database db(path.string());
    FAIL() << "opening a text file should throw";
  } catch (const DbError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("is not a SQLite database"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("file is not a database"), std::string::npos) << msg;  // SQLite's text
  }
  EXPECT_EQ(read_bytes(path), garbage);
  // No journal or WAL files left beside it either.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(TempDirTest, RefusesForeignSqliteDatabaseAndLeavesItUntouched) {
  const fs::path path = dir_ / "other.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE foo (x INTEGER)");
    raw.exec("INSERT INTO foo VALUES (42)");
  }
  const std::string before = read_bytes(path);
  try {
    Database db(path.string());
    FAIL() << "opening another program's database should throw";
  } catch (const DbError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("not a histtune database"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
  }
  EXPECT_EQ(read_bytes(path), before);
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  EXPECT_FALSE(raw.tableExists("devices"));
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "delete");
}

TEST_F(TempDirTest, RefusesForeignDatabaseWithItsOwnMetaTable) {
  const fs::path path = dir_ / "other.db";
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("CREATE TABLE meta (name TEXT, data BLOB)");
  }
  const std::string before = read_bytes(path);
  EXPECT_THROW(Database(path.string()), DbError);
  EXPECT_EQ(read_bytes(path), before);
}

TEST_F(TempDirTest, RefusesNewerSchemaVersionAndLeavesFileUntouched) {
  const fs::path path = dir_ / "h.db";
  { Database db(path.string()); }
  {
    SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 99");
  }
  const std::string before = read_bytes(path);
  try {
    Database db(path.string());
    FAIL() << "a newer schema should be refused";
  } catch (const DbError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
  }
  EXPECT_EQ(read_bytes(path), before);
}

TEST_F(TempDirTest, EmptyExistingFileBecomesHisttuneDatabase) {
  const fs::path path = dir_ / "empty.db";
  { std::ofstream touch(path); }
  Database db(path.string());
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
}

// --- round trips ---------------------------------------------------------------------------------

TEST(DatabaseRoundTrip, DeviceKeepsEveryField) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-1234", 8, 9);
  db.upsert_device(d);
  const auto got = db.device("GPU-1234");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->uuid, d.uuid);
  EXPECT_EQ(got->name, d.name);
  EXPECT_EQ(got->cc_major, 8);
  EXPECT_EQ(got->cc_minor, 9);
  EXPECT_EQ(got->sm_count, d.sm_count);
  EXPECT_EQ(got->memory_bytes, d.memory_bytes);
  EXPECT_EQ(got->l2_bytes, d.l2_bytes);
  EXPECT_EQ(got->driver_version, d.driver_version);
  EXPECT_EQ(got->runtime_version, d.runtime_version);
  EXPECT_FALSE(db.device("GPU-unknown").has_value());
}

TEST(DatabaseRoundTrip, MeasurementsComeBackFastestFirstWithAllFields) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1'000'000);
  MeasurementRow slow = make_measurement("tpb128.ipt4", 0.9);
  slow.verified = false;
  slow.samples = 17;
  db.record_measurements(make_device("GPU-a"), p,
                         {slow, make_measurement("tpb256.ipt8", 0.3),
                          make_measurement("tpb512.ipt2", 0.6)});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].config_label, "tpb256.ipt8");
  EXPECT_EQ(ms[1].config_label, "tpb512.ipt2");
  EXPECT_EQ(ms[2].config_label, "tpb128.ipt4");
  EXPECT_EQ(ms[2].params_json, slow.params_json);
  EXPECT_DOUBLE_EQ(ms[2].median_ms, 0.9);
  EXPECT_DOUBLE_EQ(ms[2].min_ms, slow.min_ms);
  EXPECT_DOUBLE_EQ(ms[2].max_ms, slow.max_ms);
  EXPECT_EQ(ms[2].samples, 17);
  EXPECT_FALSE(ms[2].verified);
  EXPECT_TRUE(ms[0].verified);
  EXPECT_EQ(ms[2].template_hash, "abc123");
  // Another problem or device sees none of them.
  EXPECT_TRUE(db.measurements("GPU-a", make_problem(256, 1'000'001)).empty());
  EXPECT_TRUE(db.measurements("GPU-b", p).empty());
}

TEST(DatabaseRoundTrip, RecordingTwiceKeepsBothBatches) {
  Database db(":memory:");
  const ProblemRow p = make_problem(64, 4096);
  db.record_measurements(make_device("GPU-a"), p, {make_measurement("x", 1.0)});
  db.record_measurements(make_device("GPU-a"), p, {make_measurement("x", 0.8)});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_DOUBLE_EQ(ms[0].median_ms, 0.8);
}

TEST(DatabaseRoundTrip, WinnerCarriesFullDeviceAndProblem) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a", 9, 0);
  const ProblemRow p = make_problem(1024, 123456789, "global", "f32", "even");
  db.set_winner(d, p, "tpb256.ipt4", 0.25, "hash-1");
  const auto w = db.winner("GPU-a", p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->device.uuid, "GPU-a");
  EXPECT_EQ(w->device.name, d.name);
  EXPECT_EQ(w->device.sm_count, d.sm_count);
  EXPECT_EQ(w->device.memory_bytes, d.memory_bytes);
  EXPECT_EQ(w->problem, p);
  EXPECT_EQ(w->config_label, "tpb256.ipt4");
  EXPECT_DOUBLE_EQ(w->median_ms, 0.25);
  EXPECT_EQ(w->template_hash, "hash-1");
  EXPECT_FALSE(db.winner("GPU-a", make_problem(1024, 123456788, "global", "f32", "even")));
  EXPECT_FALSE(db.winner("GPU-b", p));
}

TEST(DatabaseRoundTrip, LargeSampleCountsSurvive) {
  Database db(":memory:");
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{4294967295u}, std::uint64_t{1} << 40}) {
    const ProblemRow p = make_problem(4294967295u, n);
    db.set_winner(make_device("GPU-a"), p, "cfg", 1.0, "h");
    const auto w = db.winner("GPU-a", p);
    ASSERT_TRUE(w.has_value()) << n;
    EXPECT_EQ(w->problem.n, n);
    EXPECT_EQ(w->problem.num_bins, 4294967295u);
  }
}

TEST(DatabaseRoundTrip, SampleCountAboveInt64IsRefused) {
  Database db(":memory:");
  const ProblemRow p = make_problem(16, std::numeric_limits<std::uint64_t>::max());
  EXPECT_THROW(db.upsert_problem(p), DbError);
}

// --- upserts -------------------------------------------------------------------------------------

TEST(DatabaseUpsert, SameDeviceUuidKeepsIdAndUpdatesFields) {
  Database db(":memory:");
  DeviceRow d = make_device("GPU-a");
  const auto id1 = db.upsert_device(d);
  d.driver_version = 13010;
  d.name = "renamed";
  const auto id2 = db.upsert_device(d);
  EXPECT_EQ(id1, id2);
  EXPECT_NE(db.upsert_device(make_device("GPU-b")), id1);
  const auto got = db.device("GPU-a");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->driver_version, 13010);
  EXPECT_EQ(got->name, "renamed");
}

TEST(DatabaseUpsert, SameProblemKeepsIdAndAnyKeyFieldMakesANewOne) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000, "shared", "u8", "even");
  const auto id = db.upsert_problem(p);
  EXPECT_EQ(db.upsert_problem(p), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1001, "shared", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(257, 1000, "shared", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "global", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "shared", "u16", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "shared", "u8", "direct")), id);
  EXPECT_EQ(db.upsert_problem(p), id);
}

TEST(DatabaseUpsert, SameConfigFamilyAndLabelKeepsId) {
  Database db(":memory:");
  const auto id = db.upsert_config("shared", "tpb256", "{\"tpb\":256}");
  EXPECT_EQ(db.upsert_config("shared", "tpb256", "{\"tpb\":256}"), id);
  EXPECT_NE(db.upsert_config("global", "tpb256", "{\"tpb\":256}"), id);
  EXPECT_NE(db.upsert_config("shared", "tpb512", "{\"tpb\":512}"), id);
}

TEST(DatabaseUpsert, EmptyConfigLabelIsRefusedWithOperationInMessage) {
  Database db(":memory:");
  try {
    db.upsert_config("shared", "", "{}");
    FAIL() << "an empty label should be refused";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("upsert_config"), std::string::npos) << e.what();
  }
}

// --- winners -------------------------------------------------------------------------------------

TEST(DatabaseWinners, SetWinnerReplacesThePreviousOne) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  const ProblemRow p = make_problem(256, 1000);
  db.set_winner(d, p, "old", 1.0, "h1");
  db.set_winner(d, p, "new", 0.5, "h2");
  const auto ws = db.winners("GPU-a");
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].config_label, "new");
  EXPECT_DOUBLE_EQ(ws[0].median_ms, 0.5);
  EXPECT_EQ(ws[0].template_hash, "h2");
}

TEST_F(TempDirTest, SetWinnerKeepsParamsOfAKnownConfigAndWritesEmptyObjectForANewOne) {
  const fs::path path = dir_ / "h.db";
  const ProblemRow p = make_problem(256, 1000);
  {
    Database db(path.string());
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("known", 1.0)});
    db.set_winner(make_device("GPU-a"), p, "known", 1.0, "h");
    db.set_winner(make_device("GPU-a"), make_problem(256, 2000), "unseen", 1.0, "h");
    EXPECT_EQ(db.measurements("GPU-a", p).at(0).params_json, "{\"label\":\"known\"}");
  }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(raw, "SELECT params_json FROM configurations WHERE label = :label");
  q.bind(":label", "unseen");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getString(), "{}");
}

TEST(DatabaseWinners, WinnersOfADeviceAreOrderedByFamilyTypeBinningBinsN) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  // Stored out of order on purpose; labels spell the expected position.
  db.set_winner(d, make_problem(256, 2000, "shared", "u8", "even"), "5", 1, "h");
  db.set_winner(d, make_problem(16, 5000, "global", "u8", "even"), "1", 1, "h");
  db.set_winner(d, make_problem(256, 1000, "shared", "u8", "even"), "4", 1, "h");
  db.set_winner(d, make_problem(16, 1000, "shared", "u8", "direct"), "3", 1, "h");
  db.set_winner(d, make_problem(64, 1000, "shared", "u8", "even"), "4a", 1, "h");
  db.set_winner(d, make_problem(16, 1000, "shared", "f32", "even"), "2", 1, "h");
  db.set_winner(make_device("GPU-b"), make_problem(16, 1, "aaa", "u8", "even"), "other", 1, "h");
  EXPECT_EQ(labels_of(db.winners("GPU-a")),
            (std::vector<std::string>{"1", "2", "3", "4a", "4", "5"}));
  EXPECT_TRUE(db.winners("GPU-none").empty());
}

TEST(DatabaseWinners, WinnersLikeKeepsSameDeviceFamilySampleTypeAndBinning) {
  Database db(":memory:");
  const DeviceRow a = make_device("GPU-a");
  const DeviceRow b = make_device("GPU-b");
  db.set_winner(a, make_problem(256, 1000, "shared", "u8", "even"), "match-1", 1, "h");
  db.set_winner(a, make_problem(64, 9999, "shared", "u8", "even"), "match-0", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "global", "u8", "even"), "other-family", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "shared", "u16", "even"), "other-type", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "shared", "u8", "direct"), "other-binning", 1, "h");
  db.set_winner(b, make_problem(256, 1000, "shared", "u8", "even"), "other-device", 1, "h");
  const auto ws = db.winners_like("GPU-a", make_problem(128, 5, "shared", "u8", "even"));
  EXPECT_EQ(labels_of(ws), (std::vector<std::string>{"match-0", "match-1"}));
}

TEST(DatabaseWinners, WinnersSameArchKeepsOtherDevicesOfSameComputeCapability) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000, "shared", "u8", "even");
  db.set_winner(make_device("GPU-self", 9, 0), p, "self", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), p, "twin", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), make_problem(32, 7, "shared", "u8", "even"),
                "twin-small", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), make_problem(256, 1000, "shared", "u8", "direct"),
                "twin-direct", 1, "h");
  db.set_winner(make_device("GPU-minor", 9, 1), p, "other-minor", 1, "h");
  db.set_winner(make_device("GPU-major", 8, 0), p, "other-major", 1, "h");
  const auto ws = db.winners_same_arch(9, 0, "GPU-self", p);
  EXPECT_EQ(labels_of(ws), (std::vector<std::string>{"twin-small", "twin"}));
  for (const WinnerRow& w : ws) {
    EXPECT_EQ(w.device.uuid, "GPU-twin");
    EXPECT_EQ(w.device.cc_major, 9);
    EXPECT_EQ(w.device.cc_minor, 0);
  }
  EXPECT_TRUE(db.winners_same_arch(7, 5, "GPU-self", p).empty());
}

// --- all or none ---------------------------------------------------------------------------------

TEST(DatabaseTransactions, BatchWithEmptyLabelStoresNothingNotEvenTheDevice) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000);
  const std::vector<MeasurementRow> rows = {make_measurement("good-1", 1.0),
                                            make_measurement("good-2", 2.0),
                                            make_measurement("", 3.0)};
  try {
    db.record_measurements(make_device("GPU-new"), p, rows);
    FAIL() << "a row with an empty label should fail the batch";
  } catch (const DbError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("record_measurements"), std::string::npos) << msg;
    EXPECT_NE(msg.find(":memory:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CHECK constraint failed"), std::string::npos) << msg;  // SQLite's text
  }
  EXPECT_FALSE(db.device("GPU-new").has_value());
  EXPECT_TRUE(db.measurements("GPU-new", p).empty());
  // The configurations of the good rows were rolled back too: the next id is the first one.
  EXPECT_EQ(db.upsert_config("shared", "good-1", "{}"), 1);
}

TEST_F(TempDirTest, BatchWithNaNTimeLeavesEarlierDataAsItWas) {
  const fs::path path = dir_ / "h.db";
  const ProblemRow p = make_problem(256, 1000);
  {
    Database db(path.string());
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("first", 1.0)});
    MeasurementRow nan_row = make_measurement("bad", 2.0);
    nan_row.median_ms = std::nan("");  // SQLite stores NaN as NULL, refused by NOT NULL
    EXPECT_THROW(db.record_measurements(make_device("GPU-a"), p,
                                        {make_measurement("second", 0.5), nan_row}),
                 DbError);
    // The same connection stays usable after the rollback.
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("third", 3.0)});
  }
  Database db(path.string());
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].config_label, "first");
  EXPECT_EQ(ms[1].config_label, "third");
}

// --- default path --------------------------------------------------------------------------------

TEST(DatabaseDefaultPath, HisttuneDbWins) {
  EnvGuard db_env("HISTTUNE_DB"), xdg("XDG_DATA_HOME"), home("HOME");
  db_env.set("/tmp/somewhere/mine.db");
  xdg.set("/xdg");
  home.set("/home/someone");
  EXPECT_EQ(Database::default_path(), "/tmp/somewhere/mine.db");
}

TEST(DatabaseDefaultPath, EmptyHisttuneDbFallsBackToXdgDataHome) {
  EnvGuard db_env("HISTTUNE_DB"), xdg("XDG_DATA_HOME"), home("HOME");
  db_env.set("");
  xdg.set("/xdg/data");
  home.set("/home/someone");
  EXPECT_EQ(Database::default_path(), "/xdg/data/histtune/histtune.db");
}

TEST(DatabaseDefaultPath, WithoutXdgDataHomeUsesHomeLocalShare) {
  EnvGuard db_env("HISTTUNE_DB"), xdg("XDG_DATA_HOME"), home("HOME");
  db_env.clear();
  xdg.clear();
  home.set("/home/someone");
  EXPECT_EQ(Database::default_path(), "/home/someone/.local/share/histtune/histtune.db");
}

TEST(DatabaseDefaultPath, RelativeXdgDataHomeIsIgnored) {
  EnvGuard db_env("HISTTUNE_DB"), xdg("XDG_DATA_HOME"), home("HOME");
  db_env.clear();
  xdg.set("relative/data");
  home.set("/home/someone");
  EXPECT_EQ(Database::default_path(), "/home/someone/.local/share/histtune/histtune.db");
}

TEST(DatabaseDefaultPath, NothingSetUsesCurrentFolder) {
  EnvGuard db_env("HISTTUNE_DB"), xdg("XDG_DATA_HOME"), home("HOME");
  db_env.clear();
  xdg.clear();
  home.clear();
  EXPECT_EQ(Database::default_path(), "./histtune.db");
}
