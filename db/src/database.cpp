// SQLite storage of the tuning database. Every write is one unit of work in one transaction, every
// read one statement; any SQLite failure becomes a DbError naming the call, the path and SQLite's
// text. Values always travel as bound parameters; the only SQL strings joined here are constants.
#include "histtune/db/database.hpp"

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/SQLiteCpp.h>
#include <nlohmann/json.hpp>

#include <sqlite3.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

namespace histtune::db {
namespace {

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

// kMigrations[i] takes schema version i + 1 to i + 2.
constexpr const char* kMigrations[] = {kMigrateV1ToV2Sql, kMigrateV2ToV3Sql};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Database::kSchemaVersion - 1,
              "one migration per schema version step");

constexpr const char* kDeviceColumns =
    "d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes,"
    " d.driver_version, d.runtime_version, d.memory_clock_khz, d.nvrtc_version";
constexpr int kDeviceColumnCount = 11;

// The problem's key columns, as read_problem reads them.
#define HT_PROBLEM_COLUMNS \
  "p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels, p.active_channels"
constexpr int kProblemColumnCount = 7;
// Matches the problem bound by bind_problem.
constexpr const char* kProblemMatch =
    " p.family = :family AND p.sample_type = :sample_type AND p.binning = :binning AND"
    " p.num_bins = :num_bins AND p.n = :n AND p.channels = :channels AND"
    " p.active_channels = :active_channels";

constexpr const char* kWinnerSelect = R"sql(
SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes,
       d.driver_version, d.runtime_version, d.memory_clock_khz, d.nvrtc_version,
       )sql" HT_PROBLEM_COLUMNS R"sql(,
       c.label, w.median_ms, w.template_hash, w.histtune_version, 'any'
FROM winners w
JOIN devices d        ON d.id = w.device_id
JOIN problems p       ON p.id = w.problem_id
JOIN configurations c ON c.id = w.config_id
)sql";

// The same columns for the per-distribution winners.
constexpr const char* kDistributionWinnerSelect = R"sql(
SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes,
       d.driver_version, d.runtime_version, d.memory_clock_khz, d.nvrtc_version,
       )sql" HT_PROBLEM_COLUMNS R"sql(,
       c.label, w.median_ms, w.template_hash, w.histtune_version, w.distribution
FROM distribution_winners w
JOIN devices d        ON d.id = w.device_id
JOIN problems p       ON p.id = w.problem_id
JOIN configurations c ON c.id = w.config_id
)sql";

constexpr const char* kInsertMeasurementSql =
    "INSERT INTO measurements (device_id, problem_id, config_id, median_ms, min_ms, max_ms,"
    "  samples, verified, template_hash, histtune_version, distribution)"
    " VALUES (:device_id, :problem_id, :config_id, :median_ms, :min_ms, :max_ms,"
    "  :samples, :verified, :template_hash, :histtune_version, :distribution)";

constexpr const char* kWinnerOrder =
    " ORDER BY p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels,"
    " p.active_channels, d.uuid";

// Builds the DbError for a failed call: the operation, the database and SQLite's own words.
DbError make_error(const char* operation, const std::string& path, const std::string& detail) {
  return DbError("histtune db: " + std::string(operation) + " on '" + path + "' failed: " + detail);
}

DbError make_error(const char* operation, const std::string& path, const SQLite::Exception& e) {
  return make_error(operation, path,
                    std::string(e.what()) + " (SQLite code " +
                        std::to_string(e.getExtendedErrorCode()) + ")");
}

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
    throw make_error("open", path,
                     "schema version " + std::to_string(version) +
                         " is newer than this build supports (" +
                         std::to_string(Database::kSchemaVersion) + "); upgrade histtune");
  }
  if (version < 1) {
    throw make_error("open", path,
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

void bind_problem(SQLite::Statement& q, const ProblemRow& p) {
  q.bind(":family", p.family);
  q.bind(":sample_type", p.sample_type);
  q.bind(":binning", p.binning);
  q.bind(":num_bins", static_cast<std::int64_t>(p.num_bins));
  // Counts above INT64_MAX wrap negative and are refused by CHECK (n >= 0).
  q.bind(":n", static_cast<std::int64_t>(p.n));
  q.bind(":channels", static_cast<std::int64_t>(p.channels));
  q.bind(":active_channels", static_cast<std::int64_t>(p.active_channels));
}

// kDeviceColumns, from column `first` on.
DeviceRow read_device(const SQLite::Statement& q, int first) {
  DeviceRow d;
  d.uuid = q.getColumn(first + 0).getString();
  d.name = q.getColumn(first + 1).getString();
  d.cc_major = q.getColumn(first + 2).getInt();
  d.cc_minor = q.getColumn(first + 3).getInt();
  d.sm_count = q.getColumn(first + 4).getInt();
  d.memory_bytes = q.getColumn(first + 5).getInt64();
  d.l2_bytes = q.getColumn(first + 6).getInt64();
  d.driver_version = q.getColumn(first + 7).getInt();
  d.runtime_version = q.getColumn(first + 8).getInt();
  d.memory_clock_khz = q.getColumn(first + 9).getInt64();
  d.nvrtc_version = q.getColumn(first + 10).getString();
  return d;
}

// HT_PROBLEM_COLUMNS from column `first` on.
ProblemRow read_problem(const SQLite::Statement& q, int first) {
  ProblemRow p;
  p.family = q.getColumn(first + 0).getString();
  p.sample_type = q.getColumn(first + 1).getString();
  p.binning = q.getColumn(first + 2).getString();
  p.num_bins = static_cast<std::uint32_t>(q.getColumn(first + 3).getInt64());
  p.n = static_cast<std::uint64_t>(q.getColumn(first + 4).getInt64());
  p.channels = static_cast<std::uint32_t>(q.getColumn(first + 5).getInt64());
  p.active_channels = static_cast<std::uint32_t>(q.getColumn(first + 6).getInt64());
  return p;
}

// A row of kWinnerSelect or kDistributionWinnerSelect.
WinnerRow read_winner(const SQLite::Statement& q) {
  WinnerRow w;
  w.device = read_device(q, 0);
  constexpr int p = kDeviceColumnCount;
  w.problem = read_problem(q, p);
  constexpr int c = p + kProblemColumnCount;
  w.config_label = q.getColumn(c + 0).getString();
  w.median_ms = q.getColumn(c + 1).getDouble();
  w.template_hash = q.getColumn(c + 2).getString();
  w.histtune_version = q.getColumn(c + 3).getString();
  w.distribution = q.getColumn(c + 4).getString();
  return w;
}

std::vector<WinnerRow> read_winners(SQLite::Statement& q) {
  std::vector<WinnerRow> out;
  while (q.executeStep()) {
    out.push_back(read_winner(q));
  }
  return out;
}

// The unit-of-work helpers below run inside a caller's transaction.

std::int64_t device_id_in(SQLite::Database& db, const DeviceRow& d) {
  // excluded.updated_at is the column default: now.
  SQLite::Statement up(
      db,
      "INSERT INTO devices (uuid, name, cc_major, cc_minor, sm_count, memory_bytes,"
      "  l2_bytes, driver_version, runtime_version, memory_clock_khz, nvrtc_version)"
      " VALUES (:uuid, :name, :cc_major, :cc_minor, :sm_count, :memory_bytes,"
      "  :l2_bytes, :driver_version, :runtime_version, :memory_clock_khz, :nvrtc_version)"
      " ON CONFLICT (uuid) DO UPDATE SET name = excluded.name,"
      "  cc_major = excluded.cc_major, cc_minor = excluded.cc_minor,"
      "  sm_count = excluded.sm_count, memory_bytes = excluded.memory_bytes,"
      "  l2_bytes = excluded.l2_bytes, driver_version = excluded.driver_version,"
      "  runtime_version = excluded.runtime_version,"
      "  memory_clock_khz = excluded.memory_clock_khz, nvrtc_version = excluded.nvrtc_version,"
      "  updated_at = excluded.updated_at");
  up.bind(":uuid", d.uuid);
  up.bind(":name", d.name);
  up.bind(":cc_major", d.cc_major);
  up.bind(":cc_minor", d.cc_minor);
  up.bind(":sm_count", d.sm_count);
  up.bind(":memory_bytes", d.memory_bytes);
  up.bind(":l2_bytes", d.l2_bytes);
  up.bind(":driver_version", d.driver_version);
  up.bind(":runtime_version", d.runtime_version);
  up.bind(":memory_clock_khz", d.memory_clock_khz);
  up.bind(":nvrtc_version", d.nvrtc_version);
  up.exec();
  // last_insert_rowid() is stale after the UPDATE branch of an upsert, so look the id up.
  SQLite::Statement id(db, "SELECT id FROM devices WHERE uuid = :uuid");
  id.bind(":uuid", d.uuid);
  id.executeStep();
  return id.getColumn(0).getInt64();
}

// `inserted`, when given, says whether the problem was new.
std::int64_t problem_id_in(SQLite::Database& db, const ProblemRow& p, bool* inserted = nullptr) {
  SQLite::Statement up(db,
                       "INSERT INTO problems (family, sample_type, binning, num_bins, n, channels,"
                       "  active_channels)"
                       " VALUES (:family, :sample_type, :binning, :num_bins, :n, :channels,"
                       "  :active_channels)"
                       " ON CONFLICT DO NOTHING");
  bind_problem(up, p);
  const int changes = up.exec();
  if (inserted != nullptr) *inserted = changes > 0;
  SQLite::Statement id(db, std::string("SELECT p.id FROM problems p WHERE") + kProblemMatch);
  bind_problem(id, p);
  id.executeStep();
  return id.getColumn(0).getInt64();
}

// replace_params = false keeps the params of an existing row: set_winner knows only the label.
std::int64_t config_id_in(SQLite::Database& db, const std::string& family,
                          const std::string& label, const std::string& params_json,
                          bool replace_params) {
  SQLite::Statement up(
      db, replace_params
              ? "INSERT INTO configurations (family, label, params_json)"
                " VALUES (:family, :label, :params_json)"
                " ON CONFLICT (family, label) DO UPDATE SET params_json = excluded.params_json"
              : "INSERT INTO configurations (family, label, params_json)"
                " VALUES (:family, :label, :params_json)"
                " ON CONFLICT (family, label) DO NOTHING");
  up.bind(":family", family);
  up.bind(":label", label);
  up.bind(":params_json", params_json.empty() ? std::string("{}") : params_json);
  up.exec();
  SQLite::Statement id(db,
                       "SELECT id FROM configurations WHERE family = :family AND label = :label");
  id.bind(":family", family);
  id.bind(":label", label);
  id.executeStep();
  return id.getColumn(0).getInt64();
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

// Sets (replaces) the robust winner of (device, problem).
void winner_in(SQLite::Database& db, const DeviceRow& device, const ProblemRow& problem,
               const std::string& label, double median_ms, const std::string& template_hash,
               const std::string& histtune_version) {
  const std::int64_t device_id = device_id_in(db, device);
  const std::int64_t problem_id = problem_id_in(db, problem);
  const std::int64_t config_id = config_id_in(db, problem.family, label, "{}", false);
  SQLite::Statement put(
      db,
      "INSERT OR REPLACE INTO winners (device_id, problem_id, config_id, median_ms,"
      "  template_hash, histtune_version)"
      " VALUES (:device_id, :problem_id, :config_id, :median_ms, :template_hash,"
      "  :histtune_version)");
  put.bind(":device_id", device_id);
  put.bind(":problem_id", problem_id);
  put.bind(":config_id", config_id);
  put.bind(":median_ms", median_ms);
  put.bind(":template_hash", template_hash);
  put.bind(":histtune_version", histtune_version);
  put.exec();
}

}  // namespace

Database::Database(const std::string& path, OpenMode mode) : path_(path) {
  constexpr const char* op = "open";
  if (path_.empty()) {
    // SQLite would silently open a temporary database; an empty path is a caller's mistake.
    throw make_error(op, path_, "empty path (use \":memory:\" for an in-memory database)");
  }
  const bool in_memory = is_memory_path(path_);
  const bool read_only = mode == OpenMode::kReadOnly;
  if (!in_memory && !read_only) {
    const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
    std::error_code ec;
    if (!parent.empty()) {
      std::filesystem::create_directories(parent, ec);
    }
    if (ec) {
      throw make_error(op, path_,
                       "cannot create folder '" + parent.string() + "': " + ec.message());
    }
  }

  try {
    db_ = std::make_unique<SQLite::Database>(
        path_, read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE,
        kBusyTimeoutMs);
  } catch (const SQLite::Exception& e) {
    throw make_error(op, path_, e);
  }

  // Judge the file with reads only; nothing is written until it is known to be ours or empty.
  FileKind kind;
  try {
    kind = inspect(*db_);
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_NOTADB) {
      throw make_error(op, path_, path_ + " is not a SQLite database: " + e.what());
    }
    throw make_error(op, path_, e);
  }

  try {
    if (kind == FileKind::kForeign) {
      throw make_error(op, path_,
                       "not a histtune database (it has tables but no meta.application = "
                       "'histtune'); refusing to touch it");
    }
    if (read_only) {
      if (kind == FileKind::kEmpty) {
        throw make_error(op, path_, "not a histtune database (it is empty)");
      }
      check_version(*db_, path_);
      if (const int version = read_user_version(*db_); version < kSchemaVersion) {
        // The file stays as it is: copy it into memory and migrate the copy.
        auto copy = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE);
        SQLite::Backup(*copy, *db_).executeStep();
        db_ = std::move(copy);
        SQLite::Transaction tx(*db_);
        migrate(*db_, version);
        tx.commit();
      }
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
      // IMMEDIATE takes the write lock first, so two processes creating the same new file
      // serialise here; the second then finds the schema in place.
      SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      const FileKind now = inspect(*db_);
      if (now == FileKind::kEmpty) {
        db_->exec(kSchemaV1Sql);
        SQLite::Statement meta(*db_, "INSERT INTO meta (key, value) VALUES ('application', :app)");
        meta.bind(":app", kApplication);
        meta.exec();
        migrate(*db_, 1);
      } else if (now == FileKind::kForeign) {
        throw make_error(op, path_,
                         "not a histtune database (another program created it meanwhile)");
      } else {
        check_version(*db_, path_);  // another histtune, perhaps a newer one, created it meanwhile
        if (const int version = read_user_version(*db_); version < kSchemaVersion) {
          migrate(*db_, version);
        }
      }
      tx.commit();
    } else if (read_user_version(*db_) < kSchemaVersion) {
      // Another process may be migrating too: re-read the version under the write lock.
      SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      check_version(*db_, path_);
      if (const int version = read_user_version(*db_); version < kSchemaVersion) {
        migrate(*db_, version);
      }
      tx.commit();
    }
    db_->exec("PRAGMA foreign_keys = ON");
  } catch (const SQLite::Exception& e) {
    throw make_error(op, path_, e);
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
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    return read_user_version(*db_);
  } catch (const SQLite::Exception& e) {
    throw make_error("schema_version", path_, e);
  }
}

std::int64_t Database::upsert_device(const DeviceRow& device) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t id = device_id_in(*db_, device);
    tx.commit();
    return id;
  } catch (const SQLite::Exception& e) {
    throw make_error("upsert_device", path_, e);
  }
}

std::int64_t Database::upsert_problem(const ProblemRow& problem) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t id = problem_id_in(*db_, problem);
    tx.commit();
    return id;
  } catch (const SQLite::Exception& e) {
    throw make_error("upsert_problem", path_, e);
  }
}

std::int64_t Database::upsert_config(const std::string& family, const std::string& label,
                                     const std::string& params_json) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t id = config_id_in(*db_, family, label, params_json, true);
    tx.commit();
    return id;
  } catch (const SQLite::Exception& e) {
    throw make_error("upsert_config", path_, e);
  }
}

void Database::record_measurements(const DeviceRow& device, const ProblemRow& problem,
                                   const std::vector<MeasurementRow>& rows) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    // IMMEDIATE: a deferred transaction that reads first can fail to upgrade to a writer under
    // WAL without waiting on the busy timeout.
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = device_id_in(*db_, device);
    const std::int64_t problem_id = problem_id_in(*db_, problem);
    SQLite::Statement insert(*db_, kInsertMeasurementSql);
    for (const MeasurementRow& row : rows) {
      const std::int64_t config_id =
          config_id_in(*db_, problem.family, row.config_label, row.params_json, true);
      insert.reset();
      insert.bind(":device_id", device_id);
      insert.bind(":problem_id", problem_id);
      insert.bind(":config_id", config_id);
      insert.bind(":median_ms", row.median_ms);
      insert.bind(":min_ms", row.min_ms);
      insert.bind(":max_ms", row.max_ms);
      insert.bind(":samples", row.samples);
      insert.bind(":verified", row.verified ? 1 : 0);
      insert.bind(":template_hash", row.template_hash);
      insert.bind(":histtune_version", row.histtune_version);
      insert.bind(":distribution", row.distribution);
      insert.exec();
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("record_measurements", path_, e);
  }
}

void Database::set_winner(const DeviceRow& device, const ProblemRow& problem,
                          const std::string& label, double median_ms,
                          const std::string& template_hash,
                          const std::string& histtune_version) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    winner_in(*db_, device, problem, label, median_ms, template_hash, histtune_version);
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("set_winner", path_, e);
  }
}

void Database::set_winners(const DeviceRow& device, const ProblemRow& problem,
                           const WinnerRow& robust, const std::vector<WinnerRow>& by_distribution) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (const WinnerRow& w : by_distribution) {
    if (w.distribution.empty() || w.distribution == kAnyDistribution) {
      throw make_error("set_winners", path_,
                       "a per-distribution winner needs a distribution name other than '" +
                           std::string(kAnyDistribution) + "' (" + w.config_label + ")");
    }
  }
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    winner_in(*db_, device, problem, robust.config_label, robust.median_ms,
              robust.template_hash, robust.histtune_version);
    const std::int64_t device_id = device_id_in(*db_, device);
    const std::int64_t problem_id = problem_id_in(*db_, problem);
    SQLite::Statement clear(*db_,
                            "DELETE FROM distribution_winners WHERE device_id = :device_id AND"
                            " problem_id = :problem_id");
    clear.bind(":device_id", device_id);
    clear.bind(":problem_id", problem_id);
    clear.exec();
    SQLite::Statement put(*db_,
                          "INSERT INTO distribution_winners (device_id, problem_id, distribution,"
                          "  config_id, median_ms, template_hash, histtune_version)"
                          " VALUES (:device_id, :problem_id, :distribution, :config_id,"
                          "  :median_ms, :template_hash, :histtune_version)");
    for (const WinnerRow& w : by_distribution) {
      const std::int64_t config_id =
          config_id_in(*db_, problem.family, w.config_label, "{}", false);
      put.reset();
      put.bind(":device_id", device_id);
      put.bind(":problem_id", problem_id);
      put.bind(":distribution", w.distribution);
      put.bind(":config_id", config_id);
      put.bind(":median_ms", w.median_ms);
      put.bind(":template_hash", w.template_hash);
      put.bind(":histtune_version", w.histtune_version);
      put.exec();
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("set_winners", path_, e);
  }
}

std::vector<DeviceRow> Database::devices() const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string("SELECT ") + kDeviceColumns +
                                  " FROM devices d ORDER BY d.name, d.uuid");
    std::vector<DeviceRow> out;
    while (q.executeStep()) out.push_back(read_device(q, 0));
    return out;
  } catch (const SQLite::Exception& e) {
    throw make_error("devices", path_, e);
  }
}

namespace {
void bind_optional(SQLite::Statement& q, const char* name, const std::optional<double>& v) {
  if (v)
    q.bind(name, *v);
  else
    q.bind(name);  // NULL
}
std::optional<double> optional_column(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getDouble();
}
}  // namespace

void Database::set_baseline(const DeviceRow& device, const ProblemRow& problem,
                            const BaselineRow& b) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = device_id_in(*db_, device);
    const std::int64_t problem_id = problem_id_in(*db_, problem);
    SQLite::Statement put(*db_,
                          "INSERT OR REPLACE INTO baselines (device_id, problem_id, default_ms,"
                          "  cub_ms, floor_ms, read_gbps)"
                          " VALUES (:device_id, :problem_id, :default_ms, :cub_ms, :floor_ms,"
                          "  :read_gbps)");
    put.bind(":device_id", device_id);
    put.bind(":problem_id", problem_id);
    bind_optional(put, ":default_ms", b.default_ms);
    bind_optional(put, ":cub_ms", b.cub_ms);
    bind_optional(put, ":floor_ms", b.floor_ms);
    bind_optional(put, ":read_gbps", b.read_gbps);
    put.exec();
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("set_baseline", path_, e);
  }
}

namespace {

constexpr const char* kBaselineSelect =
    "SELECT " HT_PROBLEM_COLUMNS ","
    "  b.default_ms, b.cub_ms, b.floor_ms, b.read_gbps, b.measured_at"
    " FROM baselines b JOIN devices d ON d.id = b.device_id"
    " JOIN problems p ON p.id = b.problem_id";

BaselineRow read_baseline(const SQLite::Statement& q) {
  BaselineRow b;
  b.problem = read_problem(q, 0);
  constexpr int c = kProblemColumnCount;
  b.default_ms = optional_column(q.getColumn(c + 0));
  b.cub_ms = optional_column(q.getColumn(c + 1));
  b.floor_ms = optional_column(q.getColumn(c + 2));
  b.read_gbps = optional_column(q.getColumn(c + 3));
  b.measured_at = q.getColumn(c + 4).getString();
  return b;
}

}  // namespace

std::optional<BaselineRow> Database::baseline(const std::string& device_uuid,
                                              const ProblemRow& problem) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kBaselineSelect) + " WHERE d.uuid = :uuid AND" +
                                  kProblemMatch);
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    if (!q.executeStep()) return std::nullopt;
    return read_baseline(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("baseline", path_, e);
  }
}

std::vector<BaselineRow> Database::baselines(const std::string& device_uuid) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kBaselineSelect) + " WHERE d.uuid = :uuid" +
                                  " ORDER BY " HT_PROBLEM_COLUMNS);
    q.bind(":uuid", device_uuid);
    std::vector<BaselineRow> out;
    while (q.executeStep()) out.push_back(read_baseline(q));
    return out;
  } catch (const SQLite::Exception& e) {
    throw make_error("baselines", path_, e);
  }
}

std::optional<DeviceRow> Database::device(const std::string& uuid) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string("SELECT ") + kDeviceColumns +
                                  " FROM devices d WHERE d.uuid = :uuid");
    q.bind(":uuid", uuid);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return read_device(q, 0);
  } catch (const SQLite::Exception& e) {
    throw make_error("device", path_, e);
  }
}

std::optional<WinnerRow> Database::winner(const std::string& device_uuid,
                                          const ProblemRow& problem) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) + " WHERE d.uuid = :uuid AND" +
                                  kProblemMatch);
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return read_winner(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winner", path_, e);
  }
}

std::vector<WinnerRow> Database::distribution_winners(const std::string& device_uuid,
                                                      const ProblemRow& problem) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kDistributionWinnerSelect) +
                                  " WHERE d.uuid = :uuid AND" + kProblemMatch +
                                  " ORDER BY w.distribution");
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("distribution_winners", path_, e);
  }
}

std::vector<WinnerRow> Database::distribution_winners(const std::string& device_uuid) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kDistributionWinnerSelect) + " WHERE d.uuid = :uuid" +
                                  kWinnerOrder + ", w.distribution");
    q.bind(":uuid", device_uuid);
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("distribution_winners", path_, e);
  }
}

std::optional<WinnerRow> Database::winner_for(const std::string& device_uuid,
                                              const ProblemRow& problem,
                                              const std::string& distribution) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kDistributionWinnerSelect) +
                                  " WHERE d.uuid = :uuid AND w.distribution = :distribution AND" +
                                  kProblemMatch);
    q.bind(":uuid", device_uuid);
    q.bind(":distribution", distribution);
    bind_problem(q, problem);
    if (q.executeStep()) return read_winner(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winner_for", path_, e);
  }
  return winner(device_uuid, problem);
}

std::vector<WinnerRow> Database::winners(const std::string& device_uuid) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) + " WHERE d.uuid = :uuid" + kWinnerOrder);
    q.bind(":uuid", device_uuid);
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winners", path_, e);
  }
}

std::vector<WinnerRow> Database::winners_like(const std::string& device_uuid,
                                              const ProblemRow& like) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) +
                                  " WHERE d.uuid = :uuid AND p.family = :family AND"
                                  " p.sample_type = :sample_type AND p.binning = :binning AND"
                                  " p.channels = :channels AND"
                                  " p.active_channels = :active_channels" +
                                  kWinnerOrder);
    q.bind(":uuid", device_uuid);
    q.bind(":family", like.family);
    q.bind(":sample_type", like.sample_type);
    q.bind(":binning", like.binning);
    q.bind(":channels", static_cast<std::int64_t>(like.channels));
    q.bind(":active_channels", static_cast<std::int64_t>(like.active_channels));
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winners_like", path_, e);
  }
}

std::vector<WinnerRow> Database::winners_same_arch(int cc_major, int cc_minor,
                                                   const std::string& exclude_uuid,
                                                   const ProblemRow& like) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) +
                                  " WHERE d.cc_major = :cc_major AND d.cc_minor = :cc_minor AND"
                                  " d.uuid <> :exclude AND p.family = :family AND"
                                  " p.sample_type = :sample_type AND p.binning = :binning AND"
                                  " p.channels = :channels AND"
                                  " p.active_channels = :active_channels" +
                                  kWinnerOrder);
    q.bind(":cc_major", cc_major);
    q.bind(":cc_minor", cc_minor);
    q.bind(":exclude", exclude_uuid);
    q.bind(":family", like.family);
    q.bind(":sample_type", like.sample_type);
    q.bind(":binning", like.binning);
    q.bind(":channels", static_cast<std::int64_t>(like.channels));
    q.bind(":active_channels", static_cast<std::int64_t>(like.active_channels));
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winners_same_arch", path_, e);
  }
}

std::vector<MeasurementRow> Database::measurements(const std::string& device_uuid,
                                                   const ProblemRow& problem) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_,
                        std::string("SELECT c.label, c.params_json, m.median_ms, m.min_ms,"
                                    "  m.max_ms, m.samples, m.verified, m.template_hash,"
                                    "  m.histtune_version, m.distribution"
                                    " FROM measurements m"
                                    " JOIN devices d        ON d.id = m.device_id"
                                    " JOIN problems p       ON p.id = m.problem_id"
                                    " JOIN configurations c ON c.id = m.config_id"
                                    " WHERE d.uuid = :uuid AND") +
                            kProblemMatch + " ORDER BY m.median_ms, m.id");
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    std::vector<MeasurementRow> out;
    while (q.executeStep()) {
      MeasurementRow r;
      r.config_label = q.getColumn(0).getString();
      r.params_json = q.getColumn(1).getString();
      r.median_ms = q.getColumn(2).getDouble();
      r.min_ms = q.getColumn(3).getDouble();
      r.max_ms = q.getColumn(4).getDouble();
      r.samples = q.getColumn(5).getInt();
      r.verified = q.getColumn(6).getInt() != 0;
      r.template_hash = q.getColumn(7).getString();
      r.histtune_version = q.getColumn(8).getString();
      r.distribution = q.getColumn(9).getString();
      out.push_back(std::move(r));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    throw make_error("measurements", path_, e);
  }
}

// --- compiled kernels --------------------------------------------------------------------------

void Database::put_cubin(const std::string& cache_key, int arch, const std::string& nvrtc_version,
                         const std::string& template_hash, const std::string& label,
                         const std::vector<char>& image) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (image.size() > static_cast<std::size_t>(INT_MAX)) {
    throw make_error("put_cubin", path_, "image of " + std::to_string(image.size()) +
                                             " bytes is larger than SQLite binds");
  }
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement put(*db_,
                          "INSERT OR REPLACE INTO cubins (cache_key, arch, nvrtc_version,"
                          "  template_hash, label, image)"
                          " VALUES (:cache_key, :arch, :nvrtc_version, :template_hash, :label,"
                          "  :image)");
    put.bind(":cache_key", cache_key);
    put.bind(":arch", arch);
    put.bind(":nvrtc_version", nvrtc_version);
    put.bind(":template_hash", template_hash);
    put.bind(":label", label);
    // A null pointer would bind NULL, not an empty blob.
    static const char kEmpty = 0;
    put.bind(":image", image.empty() ? static_cast<const void*>(&kEmpty) : image.data(),
             static_cast<int>(image.size()));
    put.exec();
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("put_cubin", path_, e);
  }
}

std::optional<std::vector<char>> Database::get_cubin(const std::string& cache_key) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Statement q(*db_, "SELECT image FROM cubins WHERE cache_key = :cache_key");
    q.bind(":cache_key", cache_key);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    const SQLite::Column image = q.getColumn(0);
    const char* bytes = static_cast<const char*>(image.getBlob());
    return std::vector<char>(bytes, bytes + image.getBytes());
  } catch (const SQLite::Exception& e) {
    throw make_error("get_cubin", path_, e);
  }
}

// --- JSON export / import -------------------------------------------------------------------------

namespace {

using nlohmann::json;

constexpr const char* kFormat = "histtune-db";
constexpr int kFormatVersion = 2;
constexpr int kOldestFormatVersion = 1;  // version 1: no channels, distributions or their winners
constexpr std::int64_t kMaxChannels = 65536;
constexpr std::size_t kMaxImportMeasurements = 1'000'000;
constexpr std::size_t kMaxLabel = 200;
constexpr std::size_t kMaxUuid = 100;
constexpr std::size_t kMaxText = 200;
constexpr std::size_t kMaxDevices = 100'000;
constexpr std::size_t kMaxResults = 1'000'000;
// Real documents nest 6 deep (params one more); the bound keeps dump() and the destructor of a
// hostile document from recursing without limit.
constexpr std::size_t kMaxDepth = 32;
constexpr std::size_t kMaxKeyShown = 40;  // a path names at most this much of one key

// A document that fails validation; the message starts with the JSON path.
class Invalid : public std::runtime_error {
 public:
  Invalid(const std::string& where, const std::string& why) : std::runtime_error(where + ": " + why) {}
};

std::string at(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

std::string at(const std::string& where, std::size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

const json& field(const json& object, const std::string& where, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) {
    throw Invalid(at(where, key), "is missing");
  }
  return *it;
}

const json& object_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_object()) throw Invalid(at(where, key), "must be an object");
  return v;
}

const json& array_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_array()) throw Invalid(at(where, key), "must be an array");
  return v;
}

bool printable(const std::string& s, bool allow_space) {
  for (const char c : s) {
    if (c < (allow_space ? 0x20 : 0x21) || c > 0x7e) return false;
  }
  return true;
}

// Any printable ASCII text of at most `max` characters (empty allowed).
std::string text_at(const json& object, const std::string& where, const char* key,
                    std::size_t max = kMaxText) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() > max || !printable(s, true)) {
    throw Invalid(at(where, key),
                  "must be printable ASCII of at most " + std::to_string(max) + " characters");
  }
  return s;
}

std::string label_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxLabel || !printable(s, false)) {
    throw Invalid(at(where, key), "must be printable ASCII without spaces, 1 to " +
                                      std::to_string(kMaxLabel) + " characters");
  }
  return s;
}

std::string uuid_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxUuid || !printable(s, true)) {
    throw Invalid(at(where, key),
                  "must be 1 to " + std::to_string(kMaxUuid) + " printable ASCII characters");
  }
  return s;
}

std::int64_t integer_at(const json& object, const std::string& where, const char* key,
                        std::int64_t lo, std::int64_t hi) {
  const json& v = field(object, where, key);
  const std::string why =
      "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer()) throw Invalid(at(where, key), why);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    // The parser stores every non-negative integer as unsigned.
    if (u > static_cast<std::uint64_t>(hi) || (lo > 0 && u < static_cast<std::uint64_t>(lo))) {
      throw Invalid(at(where, key), why);
    }
    return static_cast<std::int64_t>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < lo || i > hi) throw Invalid(at(where, key), why);
  return i;
}

double time_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw Invalid(at(where, key), "must be a finite number >= 0");
  }
  return v.get<double>();
}

std::string one_of(const json& object, const std::string& where, const char* key,
                   std::initializer_list<const char*> allowed) {
  const json& v = field(object, where, key);
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get_ref<const std::string&>() == a) return a;
    list += list.empty() ? a : std::string(", ") + a;
  }
  throw Invalid(at(where, key), "must be one of " + list);
}

// family and distribution names: [a-z0-9_]{1,32}.
std::string family_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  const std::string why = "must match [a-z0-9_]{1,32}";
  if (!v.is_string()) throw Invalid(at(where, key), why);
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 32) throw Invalid(at(where, key), why);
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      throw Invalid(at(where, key), why);
    }
  }
  return s;
}

// The timestamps the database writes: "2025-01-31T12:00:00.000Z", UTC, sortable as text.
std::string timestamp_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  const std::string why = "must be a UTC time like 2025-01-31T12:00:00.000Z";
  if (!v.is_string()) throw Invalid(at(where, key), why);
  const std::string& s = v.get_ref<const std::string&>();
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (s.size() != sizeof(kShape) - 1) throw Invalid(at(where, key), why);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool ok = kShape[i] == 'd' ? (s[i] >= '0' && s[i] <= '9') : s[i] == kShape[i];
    if (!ok) throw Invalid(at(where, key), why);
  }
  return s;
}

// null (not measured) or a finite number >= 0.
std::optional<double> optional_time_at(const json& object, const std::string& where,
                                       const char* key) {
  if (field(object, where, key).is_null()) return std::nullopt;
  const json& v = field(object, where, key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw Invalid(at(where, key), "must be null or a finite number >= 0");
  }
  return v.get<double>();
}

// A first pass over the text that builds nothing: finds syntax errors, nesting deeper than
// kMaxDepth and too many measurements before a DOM is allocated for them, and says where (the
// JSON path of the value being read when it stopped).
class Prescan : public nlohmann::json_sax<json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frames_.back().key = k.size() > kMaxKeyShown ? k.substr(0, kMaxKeyShown) + "..." : k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) override {
    return fail(std::string("not valid JSON: ") + e.what());
  }

  // Where and why the scan stopped; empty when the text passed.
  const std::string& where() const { return where_; }
  const std::string& why() const { return why_; }

 private:
  struct Frame {
    bool array = false;
    std::size_t count = 0;  // elements begun, arrays only
    std::string key;        // the current key, objects only
  };

  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.array && f.count > 0) {
        out += "[" + std::to_string(f.count - 1) + "]";
      } else if (!f.array && !f.key.empty()) {
        out += (out.empty() ? "" : ".") + f.key;
      }
    }
    return out.empty() ? "document" : out;
  }
  bool fail(const std::string& why) {
    where_ = path();
    why_ = why;
    return false;
  }
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
    return true;
  }
  bool open(bool array) {
    value();
    if (frames_.size() >= kMaxDepth) {
      return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    // An object directly in results[i].measurements is one measurement.
    if (!array && frames_.size() == 4 && frames_[0].key == "results" && frames_[1].array &&
        frames_[2].key == "measurements" && frames_[3].array &&
        ++measurements_ > kMaxImportMeasurements) {
      return fail("more than " + std::to_string(kMaxImportMeasurements) +
                  " measurements in one document");
    }
    frames_.push_back(Frame{array, 0, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
  std::size_t measurements_ = 0;
  std::string where_, why_;
};

DeviceRow parse_device(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object");
  DeviceRow d;
  d.uuid = uuid_at(j, where, "uuid");
  d.name = text_at(j, where, "name");
  d.cc_major = static_cast<int>(integer_at(j, where, "cc_major", 0, 1000));
  d.cc_minor = static_cast<int>(integer_at(j, where, "cc_minor", 0, 1000));
  d.sm_count = static_cast<int>(integer_at(j, where, "sm_count", 0, INT_MAX));
  d.memory_bytes = integer_at(j, where, "memory_bytes", 0, INT64_MAX);
  d.l2_bytes = integer_at(j, where, "l2_bytes", 0, INT64_MAX);
  d.driver_version = static_cast<int>(integer_at(j, where, "driver_version", 0, INT_MAX));
  d.runtime_version = static_cast<int>(integer_at(j, where, "runtime_version", 0, INT_MAX));
  d.memory_clock_khz = integer_at(j, where, "memory_clock_khz", 0, INT64_MAX);
  d.nvrtc_version = text_at(j, where, "nvrtc_version");
  return d;
}

ProblemRow parse_problem(const json& j, const std::string& where) {
  ProblemRow p;
  p.family = family_at(j, where, "family");
  p.sample_type = one_of(j, where, "sample_type", {"u8", "u16", "u32", "i32", "f32"});
  p.binning = one_of(j, where, "binning", {"direct", "even", "range"});
  p.num_bins = static_cast<std::uint32_t>(integer_at(j, where, "num_bins", 1, UINT32_MAX));
  p.n = static_cast<std::uint64_t>(integer_at(j, where, "n", 0, UINT32_MAX));
  // Optional (format 2): absent in version-1 files and for 1D problems.
  if (j.contains("channels")) {
    p.channels = static_cast<std::uint32_t>(integer_at(j, where, "channels", 1, kMaxChannels));
  }
  if (j.contains("active_channels")) {
    p.active_channels = static_cast<std::uint32_t>(
        integer_at(j, where, "active_channels", 0, static_cast<std::int64_t>(p.channels)));
  }
  return p;
}

// A distribution name: [a-z0-9_]{1,32}, and not the robust winner's "any".
std::string distribution_at(const json& object, const std::string& where, const char* key) {
  std::string d = family_at(object, where, key);
  if (d == kAnyDistribution) {
    throw Invalid(at(where, key), std::string("'") + kAnyDistribution +
                                      "' names the robust winner, not a distribution");
  }
  return d;
}

MeasurementRow parse_measurement(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object");
  MeasurementRow m;
  m.config_label = label_at(j, where, "config_label");
  m.params_json = object_at(j, where, "params").dump();
  m.median_ms = time_at(j, where, "median_ms");
  m.min_ms = time_at(j, where, "min_ms");
  m.max_ms = time_at(j, where, "max_ms");
  m.samples = static_cast<int>(integer_at(j, where, "samples", 0, INT_MAX));
  const json& verified = field(j, where, "verified");
  if (!verified.is_boolean()) throw Invalid(at(where, "verified"), "must be true or false");
  m.verified = verified.get<bool>();
  m.template_hash = text_at(j, where, "template_hash");
  m.histtune_version = text_at(j, where, "histtune_version");
  // Optional (format 2): version-1 files measured uniform data only.
  if (j.contains("distribution")) m.distribution = distribution_at(j, where, "distribution");
  return m;
}

BaselineRow parse_baseline(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object or null");
  BaselineRow b;
  b.default_ms = optional_time_at(j, where, "default_ms");
  b.cub_ms = optional_time_at(j, where, "cub_ms");
  b.floor_ms = optional_time_at(j, where, "floor_ms");
  b.read_gbps = optional_time_at(j, where, "read_gbps");
  b.measured_at = timestamp_at(j, where, "measured_at");
  return b;
}

// One validated result: a device's measurements, winner and baseline of one problem.
struct ImportResult {
  std::string device_uuid;
  ProblemRow problem;
  std::vector<MeasurementRow> measurements;
  std::optional<MeasurementRow> winner;  // only label, median, hash and version are used
  std::vector<MeasurementRow> distribution_winners;  // the same, plus the distribution
  std::optional<BaselineRow> baseline;
};

struct ImportDocument {
  std::vector<DeviceRow> devices;
  std::vector<ImportResult> results;
};

ImportDocument parse_document(const std::string& text) {
  Prescan scan;
  bool scanned = false;
  json doc;
  try {
    scanned = json::sax_parse(text, &scan);
    if (scanned) doc = json::parse(text);
  } catch (const json::exception& e) {
    throw Invalid("document", std::string("not valid JSON: ") + e.what());
  }
  if (!scanned) throw Invalid(scan.where(), scan.why());
  if (!doc.is_object()) throw Invalid("document", "must be a JSON object");
  const json& format = field(doc, "", "format");
  if (!format.is_string() || format.get_ref<const std::string&>() != kFormat) {
    throw Invalid("format", std::string("must be \"") + kFormat + "\"");
  }
  const json& version = field(doc, "", "format_version");
  if (!version.is_number_integer() || version.get<std::int64_t>() < kOldestFormatVersion ||
      version.get<std::int64_t>() > kFormatVersion) {
    throw Invalid("format_version", "unsupported (this build reads " +
                                        std::to_string(kOldestFormatVersion) + " to " +
                                        std::to_string(kFormatVersion) + ")");
  }

  // Written by every export since the first; optional so that those older files still import.
  if (doc.contains("histtune_version")) text_at(doc, "", "histtune_version");
  if (doc.contains("exported_at")) text_at(doc, "", "exported_at");

  ImportDocument out;
  std::set<std::string> uuids;
  const json& devices = array_at(doc, "", "devices");
  if (devices.size() > kMaxDevices) {
    throw Invalid("devices", "more than " + std::to_string(kMaxDevices) + " devices");
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceRow d = parse_device(devices[i], at("devices", i));
    if (!uuids.insert(d.uuid).second) {
      throw Invalid(at(at("devices", i), "uuid"), "duplicate device '" + d.uuid + "'");
    }
    out.devices.push_back(std::move(d));
  }

  std::size_t total = 0;
  const json& results = array_at(doc, "", "results");
  if (results.size() > kMaxResults) {
    throw Invalid("results", "more than " + std::to_string(kMaxResults) + " results");
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = at("results", i);
    const json& r = results[i];
    if (!r.is_object()) throw Invalid(where, "must be an object");
    ImportResult result;
    result.device_uuid = uuid_at(r, where, "device");
    if (uuids.count(result.device_uuid) == 0) {
      throw Invalid(at(where, "device"),
                    "device '" + result.device_uuid + "' is not listed in devices");
    }
    result.problem = parse_problem(object_at(r, where, "problem"), at(where, "problem"));
    const json& ms = array_at(r, where, "measurements");
    total += ms.size();
    if (total > kMaxImportMeasurements) {
      throw Invalid(at(where, "measurements"),
                    "more than " + std::to_string(kMaxImportMeasurements) +
                        " measurements in one document");
    }
    for (std::size_t k = 0; k < ms.size(); ++k) {
      result.measurements.push_back(parse_measurement(ms[k], at(at(where, "measurements"), k)));
    }
    const json& w = field(r, where, "winner");
    if (!w.is_null()) {
      const std::string ww = at(where, "winner");
      if (!w.is_object()) throw Invalid(ww, "must be an object or null");
      MeasurementRow winner;
      winner.config_label = label_at(w, ww, "config_label");
      winner.median_ms = time_at(w, ww, "median_ms");
      winner.template_hash = text_at(w, ww, "template_hash");
      winner.histtune_version = text_at(w, ww, "histtune_version");
      result.winner = std::move(winner);
    }
    // Optional (format 2).
    if (const auto dw = r.find("winners_by_distribution"); dw != r.end() && !dw->is_null()) {
      const std::string wd = at(where, "winners_by_distribution");
      if (!dw->is_array()) throw Invalid(wd, "must be an array or null");
      std::set<std::string> seen;
      for (std::size_t k = 0; k < dw->size(); ++k) {
        const json& e = (*dw)[k];
        const std::string we = at(wd, k);
        if (!e.is_object()) throw Invalid(we, "must be an object");
        MeasurementRow row;
        row.distribution = distribution_at(e, we, "distribution");
        if (!seen.insert(row.distribution).second) {
          throw Invalid(at(we, "distribution"), "duplicate distribution '" + row.distribution + "'");
        }
        row.config_label = label_at(e, we, "config_label");
        row.median_ms = time_at(e, we, "median_ms");
        row.template_hash = text_at(e, we, "template_hash");
        row.histtune_version = text_at(e, we, "histtune_version");
        result.distribution_winners.push_back(std::move(row));
      }
    }
    // Optional: exports before baselines were stored have no such field.
    if (const auto b = r.find("baseline"); b != r.end() && !b->is_null()) {
      result.baseline = parse_baseline(*b, at(where, "baseline"));
    }
    out.results.push_back(std::move(result));
  }
  return out;
}

json device_json(const DeviceRow& d) {
  return json{{"uuid", d.uuid},
              {"name", d.name},
              {"cc_major", d.cc_major},
              {"cc_minor", d.cc_minor},
              {"sm_count", d.sm_count},
              {"memory_bytes", d.memory_bytes},
              {"l2_bytes", d.l2_bytes},
              {"driver_version", d.driver_version},
              {"runtime_version", d.runtime_version},
              {"memory_clock_khz", d.memory_clock_khz},
              {"nvrtc_version", d.nvrtc_version}};
}

}  // namespace

std::string Database::export_json(const std::optional<std::string>& device_uuid) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    // One read transaction: a single snapshot even while other processes write.
    SQLite::Transaction snapshot(*db_);
    json doc;
    doc["format"] = kFormat;
    doc["format_version"] = kFormatVersion;
    doc["histtune_version"] = HISTTUNE_VERSION;
    doc["exported_at"] = db_->execAndGet("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")
                             .getString();

    json devices = json::array();
    SQLite::Statement dq(*db_, std::string("SELECT ") + kDeviceColumns +
                                   " FROM devices d WHERE :uuid IS NULL OR d.uuid = :uuid"
                                   " ORDER BY d.uuid");
    if (device_uuid) dq.bind(":uuid", *device_uuid); else dq.bind(":uuid");
    while (dq.executeStep()) {
      devices.push_back(device_json(read_device(dq, 0)));
    }
    doc["devices"] = std::move(devices);

    // Every (device, problem) with a measurement, a winner or a baseline.
    json results = json::array();
    SQLite::Statement rq(*db_,
                         "SELECT d.uuid, " HT_PROBLEM_COLUMNS
                         " FROM (SELECT device_id, problem_id FROM measurements"
                         "       UNION SELECT device_id, problem_id FROM winners"
                         "       UNION SELECT device_id, problem_id FROM distribution_winners"
                         "       UNION SELECT device_id, problem_id FROM baselines) k"
                         " JOIN devices d  ON d.id = k.device_id"
                         " JOIN problems p ON p.id = k.problem_id"
                         " WHERE :uuid IS NULL OR d.uuid = :uuid"
                         " ORDER BY d.uuid, " HT_PROBLEM_COLUMNS);
    if (device_uuid) rq.bind(":uuid", *device_uuid); else rq.bind(":uuid");
    while (rq.executeStep()) {
      const std::string uuid = rq.getColumn(0).getString();
      const ProblemRow p = read_problem(rq, 1);

      json ms = json::array();
      for (const MeasurementRow& m : measurements(uuid, p)) {
        json params = json::parse(m.params_json, nullptr, false);
        if (params.is_discarded() || !params.is_object()) {
          throw make_error("export_json", path_,
                           "configuration '" + m.config_label + "' of family '" + p.family +
                               "' has params that are not a JSON object");
        }
        ms.push_back(json{{"config_label", m.config_label},
                          {"params", std::move(params)},
                          {"median_ms", m.median_ms},
                          {"min_ms", m.min_ms},
                          {"max_ms", m.max_ms},
                          {"samples", m.samples},
                          {"verified", m.verified},
                          {"template_hash", m.template_hash},
                          {"histtune_version", m.histtune_version},
                          {"distribution", m.distribution}});
      }
      json win = nullptr;
      if (const auto w = winner(uuid, p)) {
        win = json{{"config_label", w->config_label},
                   {"median_ms", w->median_ms},
                   {"template_hash", w->template_hash},
                   {"histtune_version", w->histtune_version}};
      }
      json by_distribution = json::array();
      for (const WinnerRow& w : distribution_winners(uuid, p)) {
        by_distribution.push_back(json{{"distribution", w.distribution},
                                       {"config_label", w.config_label},
                                       {"median_ms", w.median_ms},
                                       {"template_hash", w.template_hash},
                                       {"histtune_version", w.histtune_version}});
      }
      json base = nullptr;
      if (const auto b = baseline(uuid, p)) {
        const auto or_null = [](const std::optional<double>& t) { return t ? json(*t) : json(); };
        base = json{{"default_ms", or_null(b->default_ms)},
                    {"cub_ms", or_null(b->cub_ms)},
                    {"floor_ms", or_null(b->floor_ms)},
                    {"read_gbps", or_null(b->read_gbps)},
                    {"measured_at", b->measured_at}};
      }
      results.push_back(json{{"device", uuid},
                             {"problem",
                              {{"family", p.family},
                               {"sample_type", p.sample_type},
                               {"binning", p.binning},
                               {"num_bins", p.num_bins},
                               {"n", p.n},
                               {"channels", p.channels},
                               {"active_channels", p.active_channels}}},
                             {"measurements", std::move(ms)},
                             {"winner", std::move(win)},
                             {"winners_by_distribution", std::move(by_distribution)},
                             {"baseline", std::move(base)}});
    }
    doc["results"] = std::move(results);
    snapshot.commit();
    // Names written by other tools may not be UTF-8; replace rather than fail the export.
    return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  } catch (const SQLite::Exception& e) {
    throw make_error("export_json", path_, e);
  }
}

ImportSummary Database::import_json(const std::string& text) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  ImportDocument doc;
  try {
    doc = parse_document(text);
  } catch (const Invalid& e) {
    throw make_error("import_json", path_, e.what());
  }

  ImportSummary summary;
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    std::map<std::string, std::int64_t> device_ids;
    SQLite::Statement known_device(*db_, "SELECT 1 FROM devices WHERE uuid = :uuid");
    for (const DeviceRow& d : doc.devices) {
      known_device.reset();
      known_device.bind(":uuid", d.uuid);
      if (!known_device.executeStep()) ++summary.devices;
      device_ids.emplace(d.uuid, device_id_in(*db_, d));
    }
    SQLite::Statement same(
        *db_,
        "SELECT 1 FROM measurements WHERE device_id = :device_id AND problem_id = :problem_id"
        " AND config_id = :config_id AND median_ms = :median_ms AND min_ms = :min_ms"
        " AND max_ms = :max_ms AND samples = :samples AND template_hash = :template_hash"
        " AND distribution = :distribution LIMIT 1");
    SQLite::Statement insert(*db_, kInsertMeasurementSql);
    // Only a faster winner replaces the one in place.
    SQLite::Statement put_winner(
        *db_,
        "INSERT INTO winners (device_id, problem_id, config_id, median_ms, template_hash,"
        "  histtune_version)"
        " VALUES (:device_id, :problem_id, :config_id, :median_ms, :template_hash,"
        "  :histtune_version)"
        " ON CONFLICT (device_id, problem_id) DO UPDATE SET config_id = excluded.config_id,"
        "  median_ms = excluded.median_ms, template_hash = excluded.template_hash,"
        "  histtune_version = excluded.histtune_version, updated_at = excluded.updated_at"
        " WHERE excluded.median_ms < winners.median_ms");
    SQLite::Statement put_distribution_winner(
        *db_,
        "INSERT INTO distribution_winners (device_id, problem_id, distribution, config_id,"
        "  median_ms, template_hash, histtune_version)"
        " VALUES (:device_id, :problem_id, :distribution, :config_id, :median_ms,"
        "  :template_hash, :histtune_version)"
        " ON CONFLICT (device_id, problem_id, distribution) DO UPDATE SET"
        "  config_id = excluded.config_id, median_ms = excluded.median_ms,"
        "  template_hash = excluded.template_hash,"
        "  histtune_version = excluded.histtune_version, updated_at = excluded.updated_at"
        " WHERE excluded.median_ms < distribution_winners.median_ms");
    // Only a more recent baseline replaces the one in place; timestamps sort as text.
    SQLite::Statement put_baseline(
        *db_,
        "INSERT INTO baselines (device_id, problem_id, default_ms, cub_ms, floor_ms, read_gbps,"
        "  measured_at)"
        " VALUES (:device_id, :problem_id, :default_ms, :cub_ms, :floor_ms, :read_gbps,"
        "  :measured_at)"
        " ON CONFLICT (device_id, problem_id) DO UPDATE SET default_ms = excluded.default_ms,"
        "  cub_ms = excluded.cub_ms, floor_ms = excluded.floor_ms,"
        "  read_gbps = excluded.read_gbps, measured_at = excluded.measured_at"
        " WHERE excluded.measured_at > baselines.measured_at");
    for (const ImportResult& r : doc.results) {
      const std::int64_t device_id = device_ids.at(r.device_uuid);
      bool new_problem = false;
      const std::int64_t problem_id = problem_id_in(*db_, r.problem, &new_problem);
      if (new_problem) ++summary.problems;
      for (const MeasurementRow& m : r.measurements) {
        const std::int64_t config_id =
            config_id_in(*db_, r.problem.family, m.config_label, m.params_json, true);
        same.reset();
        same.bind(":device_id", device_id);
        same.bind(":problem_id", problem_id);
        same.bind(":config_id", config_id);
        same.bind(":median_ms", m.median_ms);
        same.bind(":min_ms", m.min_ms);
        same.bind(":max_ms", m.max_ms);
        same.bind(":samples", m.samples);
        same.bind(":template_hash", m.template_hash);
        same.bind(":distribution", m.distribution);
        if (same.executeStep()) {
          continue;
        }
        insert.reset();
        insert.bind(":device_id", device_id);
        insert.bind(":problem_id", problem_id);
        insert.bind(":config_id", config_id);
        insert.bind(":median_ms", m.median_ms);
        insert.bind(":min_ms", m.min_ms);
        insert.bind(":max_ms", m.max_ms);
        insert.bind(":samples", m.samples);
        insert.bind(":verified", m.verified ? 1 : 0);
        insert.bind(":template_hash", m.template_hash);
        insert.bind(":histtune_version", m.histtune_version);
        insert.bind(":distribution", m.distribution);
        insert.exec();
        ++summary.measurements;
      }
      if (r.winner) {
        const std::int64_t config_id =
            config_id_in(*db_, r.problem.family, r.winner->config_label, "{}", false);
        put_winner.reset();
        put_winner.bind(":device_id", device_id);
        put_winner.bind(":problem_id", problem_id);
        put_winner.bind(":config_id", config_id);
        put_winner.bind(":median_ms", r.winner->median_ms);
        put_winner.bind(":template_hash", r.winner->template_hash);
        put_winner.bind(":histtune_version", r.winner->histtune_version);
        summary.winners += static_cast<std::size_t>(put_winner.exec());
      }
      for (const MeasurementRow& w : r.distribution_winners) {
        const std::int64_t config_id =
            config_id_in(*db_, r.problem.family, w.config_label, "{}", false);
        put_distribution_winner.reset();
        put_distribution_winner.bind(":device_id", device_id);
        put_distribution_winner.bind(":problem_id", problem_id);
        put_distribution_winner.bind(":distribution", w.distribution);
        put_distribution_winner.bind(":config_id", config_id);
        put_distribution_winner.bind(":median_ms", w.median_ms);
        put_distribution_winner.bind(":template_hash", w.template_hash);
        put_distribution_winner.bind(":histtune_version", w.histtune_version);
        summary.winners += static_cast<std::size_t>(put_distribution_winner.exec());
      }
      if (r.baseline) {
        put_baseline.reset();
        put_baseline.bind(":device_id", device_id);
        put_baseline.bind(":problem_id", problem_id);
        bind_optional(put_baseline, ":default_ms", r.baseline->default_ms);
        bind_optional(put_baseline, ":cub_ms", r.baseline->cub_ms);
        bind_optional(put_baseline, ":floor_ms", r.baseline->floor_ms);
        bind_optional(put_baseline, ":read_gbps", r.baseline->read_gbps);
        put_baseline.bind(":measured_at", r.baseline->measured_at);
        summary.baselines += static_cast<std::size_t>(put_baseline.exec());
      }
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("import_json", path_, e);
  }
  return summary;
}

ImportSummary Database::merge_from(const std::string& other_db_path) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  const Database other(other_db_path, OpenMode::kReadOnly);
  return import_json(other.export_json());
}

std::size_t Database::prune(const PruneOptions& options) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  const auto bind_optional = [](SQLite::Statement& q, const char* name,
                                const std::optional<std::string>& value) {
    if (value) q.bind(name, *value); else q.bind(name);
  };
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    std::size_t deleted = 0;
    // A NULL bind means "not asked": keep everything on that criterion.
    for (const char* sql :
         {"DELETE FROM measurements WHERE"
          " (:device IS NULL OR device_id IN (SELECT id FROM devices WHERE uuid = :device))"
          " AND ((:hash IS NOT NULL AND template_hash <> :hash)"
          "   OR (:version IS NOT NULL AND histtune_version <> :version))"
          " AND (:family IS NULL"
          "   OR problem_id IN (SELECT id FROM problems WHERE family = :family))",
          "DELETE FROM winners WHERE"
          " (:device IS NULL OR device_id IN (SELECT id FROM devices WHERE uuid = :device))"
          " AND ((:hash IS NOT NULL AND template_hash <> :hash)"
          "   OR (:version IS NOT NULL AND histtune_version <> :version))"
          " AND (:family IS NULL"
          "   OR problem_id IN (SELECT id FROM problems WHERE family = :family))",
          "DELETE FROM distribution_winners WHERE"
          " (:device IS NULL OR device_id IN (SELECT id FROM devices WHERE uuid = :device))"
          " AND ((:hash IS NOT NULL AND template_hash <> :hash)"
          "   OR (:version IS NOT NULL AND histtune_version <> :version))"
          " AND (:family IS NULL"
          "   OR problem_id IN (SELECT id FROM problems WHERE family = :family))"}) {
      SQLite::Statement q(*db_, sql);
      bind_optional(q, ":device", options.device_uuid);
      bind_optional(q, ":hash", options.keep_template_hash);
      bind_optional(q, ":version", options.keep_histtune_version);
      bind_optional(q, ":family", options.family);
      deleted += static_cast<std::size_t>(q.exec());
    }
    deleted += static_cast<std::size_t>(db_->exec(
        "DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM measurements)"
        " AND id NOT IN (SELECT problem_id FROM winners)"
        " AND id NOT IN (SELECT problem_id FROM distribution_winners)"
        " AND id NOT IN (SELECT problem_id FROM baselines)"));
    deleted += static_cast<std::size_t>(db_->exec(
        "DELETE FROM configurations WHERE id NOT IN (SELECT config_id FROM measurements)"
        " AND id NOT IN (SELECT config_id FROM winners)"
        " AND id NOT IN (SELECT config_id FROM distribution_winners)"));
    tx.commit();
    return deleted;
  } catch (const SQLite::Exception& e) {
    throw make_error("prune", path_, e);
  }
}

}  // namespace histtune::db
