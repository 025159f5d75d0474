// Tests of opening a database: the schema a new file gets, WAL, refusal of files that are not
// ours (left untouched), and where the default database lives.
#include "db/db_test_support.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::ProblemRow;
using namespace histtune::db::test;

namespace {

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

// --- schema --------------------------------------------------------------------------------------

TEST(DatabaseSchema, MemoryDatabaseHasCurrentSchemaVersion) {
  Database db(":memory:");
  EXPECT_EQ(db.path(), ":memory:");
  EXPECT_EQ(db.schema_version(), Database::kSchemaVersion);
  EXPECT_EQ(Database::kSchemaVersion, 5);
}

TEST_F(TempDirTest, FileDatabaseHasMetaApplicationTablesVersionAndWal) {
  const fs::path path = dir_ / "h.db";
  { Database db(path.string()); }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'application'").getString(),
            "histtune");
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), Database::kSchemaVersion);
  for (const char* table : {"meta", "devices", "problems", "configurations", "measurements",
                            "winners", "pending"}) {
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
