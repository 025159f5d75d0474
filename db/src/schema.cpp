// The schema and opening a database: the frozen SQL of every schema version, judging a file
// before anything is written to it, creating, migrating, WAL, and where the default file lives.
#include "internal.hpp"

#include <unistd.h>

#include <SQLiteCpp/Backup.h>

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

namespace histtune::db {
namespace {

using detail::make_error;

constexpr const char* kApplication = "histtune";
constexpr int kBusyTimeoutMs = 5000;

// Schema version 1, frozen: a new file is created as version 1 and then migrated forward, so a new
// file and a migrated one are the same by construction. Never edit this text; add a migration.
// CHECKs and NOT NULLs catch bad rows inside the transaction that stores them, so a batch with one
// bad row is rolled back whole (SQLite binds NaN as NULL). Timestamps are UTC with milliseconds,
// sortable as text, filled in by column defaults.
constexpr const char* kSchemaV1Sql = R"sql(
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

// Version 1 -> 2: device memory clock and NVRTC version, the histtune version of each result, a
// persistent store of compiled kernels, and the baselines `compare` measures beside the winner.
// Added columns carry defaults, so old rows stay valid.
constexpr const char* kMigrateV1ToV2Sql = R"sql(
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

// Version 2 -> 3: multi-channel problems (channels and active channels join the problem's key,
// which needs a new table: SQLite cannot change a UNIQUE constraint in place), the input
// distribution of each measurement, and each distribution's own winner beside the robust one.
// Runs with foreign keys off (SQLite's documented way to rebuild a table others refer to): ids
// are kept, so every reference stays valid; migrate() checks that before it commits.
constexpr const char* kMigrateV2ToV3Sql = R"sql(
CREATE TABLE problems_v3 (
  id              INTEGER PRIMARY KEY,
  family          TEXT    NOT NULL CHECK (length(family) > 0),
  sample_type     TEXT    NOT NULL CHECK (length(sample_type) > 0),
  binning         TEXT    NOT NULL CHECK (length(binning) > 0),
  num_bins        INTEGER NOT NULL CHECK (num_bins >= 0),
  n               INTEGER NOT NULL CHECK (n >= 0),
  channels        INTEGER NOT NULL DEFAULT 1 CHECK (channels >= 1),
  active_channels INTEGER NOT NULL DEFAULT 0 CHECK (active_channels >= 0),
  UNIQUE (family, sample_type, binning, num_bins, n, channels, active_channels)
);
INSERT INTO problems_v3 (id, family, sample_type, binning, num_bins, n)
  SELECT id, family, sample_type, binning, num_bins, n FROM problems;
DROP TABLE problems;
ALTER TABLE problems_v3 RENAME TO problems;
ALTER TABLE measurements ADD COLUMN distribution TEXT NOT NULL DEFAULT 'uniform'
  CHECK (length(distribution) > 0);
CREATE TABLE distribution_winners (
  device_id        INTEGER NOT NULL REFERENCES devices (id),
  problem_id       INTEGER NOT NULL REFERENCES problems (id),
  distribution     TEXT    NOT NULL CHECK (length(distribution) > 0 AND distribution <> 'any'),
  config_id        INTEGER NOT NULL REFERENCES configurations (id),
  median_ms        REAL    NOT NULL CHECK (median_ms >= 0),
  template_hash    TEXT    NOT NULL,
  histtune_version TEXT    NOT NULL DEFAULT '',
  updated_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (device_id, problem_id, distribution)
);
)sql";

// Version 3 -> 4: the spread (fastest and slowest call) of the default and of CUB beside their
// medians, for the report's whiskers. Nullable: rows stored before have medians only.
constexpr const char* kMigrateV3ToV4Sql = R"sql(
ALTER TABLE baselines ADD COLUMN default_min_ms REAL
  CHECK (default_min_ms IS NULL OR default_min_ms >= 0);
ALTER TABLE baselines ADD COLUMN default_max_ms REAL
  CHECK (default_max_ms IS NULL OR default_max_ms >= 0);
ALTER TABLE baselines ADD COLUMN cub_min_ms REAL CHECK (cub_min_ms IS NULL OR cub_min_ms >= 0);
ALTER TABLE baselines ADD COLUMN cub_max_ms REAL CHECK (cub_max_ms IS NULL OR cub_max_ms >= 0);
)sql";

// Version 4 -> 5: the problems programs called that the runtime resolved below `exact`, with
// their call counts, for `histtune tune --pending`. The problem's key is inlined, not a reference
// to `problems`: a pending problem has no results, and prune keeps only problems results use.
constexpr const char* kMigrateV4ToV5Sql = R"sql(
CREATE TABLE pending (
  device_uuid     TEXT    NOT NULL CHECK (length(device_uuid) > 0),
  device_name     TEXT    NOT NULL,
  family          TEXT    NOT NULL CHECK (length(family) > 0),
  sample_type     TEXT    NOT NULL CHECK (length(sample_type) > 0),
  binning         TEXT    NOT NULL CHECK (length(binning) > 0),
  num_bins        INTEGER NOT NULL CHECK (num_bins >= 0),
  n               INTEGER NOT NULL CHECK (n >= 0),
  channels        INTEGER NOT NULL DEFAULT 1 CHECK (channels >= 1),
  active_channels INTEGER NOT NULL DEFAULT 0 CHECK (active_channels >= 0),
  lower           REAL,
  upper           REAL,
  level           TEXT    NOT NULL,
  calls           INTEGER NOT NULL CHECK (calls >= 0),
  first_seen      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  last_seen       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (device_uuid, family, sample_type, binning, num_bins, n, channels, active_channels)
);
)sql";

// kMigrations[i] takes schema version i + 1 to i + 2.
constexpr const char* kMigrations[] = {kMigrateV1ToV2Sql, kMigrateV2ToV3Sql, kMigrateV3ToV4Sql,
                                       kMigrateV4ToV5Sql};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Database::kSchemaVersion - 1,
              "one migration per schema version step");

// The operation every error of opening names.
constexpr const char* kOpen = "open";

bool is_memory_path(const std::string& path) { return path == ":memory:"; }

// What an opened file holds, judged before anything is written to it.
enum class FileKind { kEmpty, kHisttune, kForeign };

FileKind inspect(SQLite::Database& db) {
  SQLite::Statement objects(db, "SELECT count(*) FROM sqlite_master");
  objects.executeStep();
  if (objects.getColumn(0).getInt64() == 0) {
    return FileKind::kEmpty;
  }
  SQLite::Statement has_meta(
      db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  has_meta.executeStep();
  if (has_meta.getColumn(0).getInt() == 0) {
    return FileKind::kForeign;
  }
  try {
    SQLite::Statement app(db, "SELECT value FROM meta WHERE key = 'application'");
    if (app.executeStep() && app.getColumn(0).getString() == kApplication) {
      return FileKind::kHisttune;
    }
  } catch (const SQLite::Exception&) {
    // Some other program's `meta` table, without our columns.
  }
  return FileKind::kForeign;
}

int read_user_version(const SQLite::Database& db) {
  SQLite::Statement q(db, "PRAGMA user_version");
  q.executeStep();
  return q.getColumn(0).getInt();
}

// Refuses a histtune file whose schema this build cannot read or write.
void check_version(const SQLite::Database& db, const std::string& path) {
  const int version = read_user_version(db);
  if (version > Database::kSchemaVersion) {
    throw make_error(kOpen, path,
                     "schema version " + std::to_string(version) +
                         " is newer than this build supports (" +
                         std::to_string(Database::kSchemaVersion) + "); upgrade histtune");
  }
  if (version < 1) {
    throw make_error(kOpen, path,
                     "schema version " + std::to_string(version) + " has no migration to " +
                         std::to_string(Database::kSchemaVersion));
  }
}

// Runs inside the caller's write transaction, with foreign keys off (the caller's job: the
// pragma is a no-op inside a transaction): a failed step rolls every step back.
void migrate(SQLite::Database& db, int from) {
  for (int version = from; version < Database::kSchemaVersion; ++version) {
    db.exec(kMigrations[version - 1]);
  }
  // Rebuilt tables keep their ids; prove that no reference dangles before committing.
  SQLite::Statement check(db, "PRAGMA foreign_key_check");
  if (check.executeStep()) {
    throw SQLite::Exception("migration left a dangling reference in table '" +
                            check.getColumn(0).getString() + "'");
  }
  // PRAGMA takes no bound parameters; the value is a compile-time constant.
  db.exec("PRAGMA user_version = " + std::to_string(Database::kSchemaVersion));
}

// Changing the journal mode needs the file to itself: another process creating or migrating the
// schema at that moment makes it busy, and SQLite returns that at once instead of waiting on the
// busy timeout. Wait here, as long as the busy timeout.
void set_wal(SQLite::Database& db) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  while (true) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const SQLite::Exception& e) {
      if ((e.getErrorCode() & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= until)
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The steps of opening below throw DbError for what they judge; the constructor turns any other
// SQLite failure into one.
void create_parent_folders(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) {
    std::filesystem::create_directories(parent, ec);
  }
  if (ec) {
    throw make_error(kOpen, path,
                     "cannot create folder '" + parent.string() + "': " + ec.message());
  }
}

// A read-only open of a writable file is a read-write connection with query_only set: a
// SQLITE_OPEN_READONLY connection to a WAL database creates its -wal and -shm files and, unable
// to checkpoint, leaves them behind; a read-write one removes them when it closes last. Only a
// file left with committed frames in its -wal (a killed writer) is written then: SQLite moves
// them into the file, as any next writer would. A file we may not write opens SQLITE_OPEN_READONLY.
std::unique_ptr<SQLite::Database> connect(const std::string& path, bool read_only) {
  const bool writable = !read_only || ::access(path.c_str(), W_OK) == 0;
  const int flags = !read_only ? SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE
                    : writable ? SQLite::OPEN_READWRITE
                               : SQLite::OPEN_READONLY;
  try {
    auto db = std::make_unique<SQLite::Database>(path, flags, kBusyTimeoutMs);
    if (read_only && writable) db->exec("PRAGMA query_only = ON");
    return db;
  } catch (const SQLite::Exception& e) {
    throw make_error(kOpen, path, e);
  }
}

// Judges the file with reads only; nothing is written until it is known to be ours or empty.
FileKind judge(SQLite::Database& db, const std::string& path) {
  try {
    return inspect(db);
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_NOTADB) {
      throw make_error(kOpen, path, path + " is not a SQLite database: " + e.what());
    }
    throw make_error(kOpen, path, e);
  }
}

// A read-only open of an existing histtune file; an older schema is migrated in a memory copy,
// and the file stays as it is.
std::unique_ptr<SQLite::Database> read_only_view(std::unique_ptr<SQLite::Database> db,
                                                 FileKind kind, const std::string& path) {
  if (kind == FileKind::kEmpty) {
    throw make_error(kOpen, path, "not a histtune database (it is empty)");
  }
  check_version(*db, path);
  if (const int version = read_user_version(*db); version < Database::kSchemaVersion) {
    auto copy = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE);
    SQLite::Backup(*copy, *db).executeStep();
    db = std::move(copy);
    SQLite::Transaction tx(*db);
    migrate(*db, version);
    tx.commit();
  }
  return db;
}

// Brings the file to the current schema when it is older. Another process may be migrating
// too: the version is re-read under the write lock.
void migrate_if_older(SQLite::Database& db, const std::string& path) {
  check_version(db, path);
  if (const int version = read_user_version(db); version < Database::kSchemaVersion) {
    migrate(db, version);
  }
}

// Creates the schema in an empty file. IMMEDIATE takes the write lock first, so two processes
// creating the same new file serialise here; the second then finds the schema in place.
void create_schema(SQLite::Database& db, const std::string& path) {
  SQLite::Transaction tx(db, SQLite::TransactionBehavior::IMMEDIATE);
  const FileKind now = inspect(db);
  if (now == FileKind::kEmpty) {
    db.exec(kSchemaV1Sql);
    SQLite::Statement meta(db, "INSERT INTO meta (key, value) VALUES ('application', :app)");
    meta.bind(":app", kApplication);
    meta.exec();
    migrate(db, 1);
  } else if (now == FileKind::kForeign) {
    throw make_error(kOpen, path,
                     "not a histtune database (another program created it meanwhile)");
  } else {
    migrate_if_older(db, path);  // another histtune, perhaps a newer one, created it meanwhile
  }
  tx.commit();
}

}  // namespace

Database::Database(const std::string& path, OpenMode mode) : path_(path) {
  if (path_.empty()) {
    // SQLite would silently open a temporary database; an empty path is a caller's mistake.
    throw make_error(kOpen, path_, "empty path (use \":memory:\" for an in-memory database)");
  }
  const bool in_memory = is_memory_path(path_);
  const bool read_only = mode == OpenMode::kReadOnly;
  if (!in_memory && !read_only) {
    create_parent_folders(path_);
  }
  db_ = connect(path_, read_only);
  const FileKind kind = judge(*db_, path_);

  try {
    if (kind == FileKind::kForeign) {
      throw make_error(kOpen, path_,
                       "not a histtune database (it has tables but no meta.application = "
                       "'histtune'); refusing to touch it");
    }
    if (read_only) {
      db_ = read_only_view(std::move(db_), kind, path_);
      db_->exec("PRAGMA foreign_keys = ON");
      return;
    }
    if (kind == FileKind::kHisttune) {
      check_version(*db_, path_);
    }

    // Foreign keys are turned on after any migration: a migration that rebuilds a table needs
    // them off (and the pragma cannot change inside a transaction).
    if (!in_memory) {
      // WAL lets readers (a lookup at launch) run beside a tuner writing. Set outside any
      // transaction: SQLite cannot change the journal mode inside one.
      set_wal(*db_);
      // In WAL mode NORMAL still survives a killed process (the tuner stores each measurement
      // as it is taken); it skips the fsync per commit that would slow that down.
      db_->exec("PRAGMA synchronous = NORMAL");
    }

    if (kind == FileKind::kEmpty) {
      create_schema(*db_, path_);
    } else if (read_user_version(*db_) < kSchemaVersion) {
      SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      migrate_if_older(*db_, path_);
      tx.commit();
    }
    db_->exec("PRAGMA foreign_keys = ON");
  } catch (const SQLite::Exception& e) {
    throw make_error(kOpen, path_, e);
  }
}

Database::~Database() = default;

std::string Database::default_path() {
  const auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? std::string(value) : std::string();
  };
  if (std::string p = env("HISTTUNE_DB"); !p.empty()) {
    return p;
  }
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  if (std::string xdg = env("XDG_DATA_HOME"); !xdg.empty() && xdg.front() == '/') {
    return (std::filesystem::path(xdg) / "histtune" / "histtune.db").string();
  }
  if (std::string home = env("HOME"); !home.empty()) {
    return (std::filesystem::path(home) / ".local" / "share" / "histtune" / "histtune.db").string();
  }
  return "./histtune.db";
}

int Database::schema_version() const {
  return read("schema_version", [](SQLite::Database& db) { return read_user_version(db); });
}

}  // namespace histtune::db
