// SQLite storage of the tuning database. Every write is one unit of work in one transaction, every
// read one statement; any SQLite failure becomes a DbError naming the call, the path and SQLite's
// text. Values always travel as bound parameters; the only SQL strings joined here are constants.
#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

namespace histtune::db {
namespace {

constexpr const char* kApplication = "histtune";
constexpr int kBusyTimeoutMs = 5000;

// Schema of version kSchemaVersion. CHECKs and NOT NULLs catch bad rows inside the transaction
// that stores them, so a batch with one bad row is rolled back whole (SQLite binds NaN as NULL).
// Timestamps are UTC with milliseconds, sortable as text, filled in by column defaults.
constexpr const char* kSchemaSql = R"sql(
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

constexpr const char* kWinnerSelect = R"sql(
SELECT d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes,
       d.driver_version, d.runtime_version,
       p.family, p.sample_type, p.binning, p.num_bins, p.n,
       c.label, w.median_ms, w.template_hash
FROM winners w
JOIN devices d        ON d.id = w.device_id
JOIN problems p       ON p.id = w.problem_id
JOIN configurations c ON c.id = w.config_id
)sql";

constexpr const char* kWinnerOrder =
    " ORDER BY p.family, p.sample_type, p.binning, p.num_bins, p.n, d.uuid";

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
  if (version < Database::kSchemaVersion) {
    // The place for migrations once there is more than one version.
    throw make_error("open", path,
                     "schema version " + std::to_string(version) + " has no migration to " +
                         std::to_string(Database::kSchemaVersion));
  }
}

void bind_problem(SQLite::Statement& q, const ProblemRow& p) {
  q.bind(":family", p.family);
  q.bind(":sample_type", p.sample_type);
  q.bind(":binning", p.binning);
  q.bind(":num_bins", static_cast<std::int64_t>(p.num_bins));
  // Counts above INT64_MAX wrap negative and are refused by CHECK (n >= 0).
  q.bind(":n", static_cast<std::int64_t>(p.n));
}

// Columns 0..8 of kWinnerSelect.
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
  return d;
}

WinnerRow read_winner(const SQLite::Statement& q) {
  WinnerRow w;
  w.device = read_device(q, 0);
  w.problem.family = q.getColumn(9).getString();
  w.problem.sample_type = q.getColumn(10).getString();
  w.problem.binning = q.getColumn(11).getString();
  w.problem.num_bins = static_cast<std::uint32_t>(q.getColumn(12).getInt64());
  w.problem.n = static_cast<std::uint64_t>(q.getColumn(13).getInt64());
  w.config_label = q.getColumn(14).getString();
  w.median_ms = q.getColumn(15).getDouble();
  w.template_hash = q.getColumn(16).getString();
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
      "  l2_bytes, driver_version, runtime_version)"
      " VALUES (:uuid, :name, :cc_major, :cc_minor, :sm_count, :memory_bytes,"
      "  :l2_bytes, :driver_version, :runtime_version)"
      " ON CONFLICT (uuid) DO UPDATE SET name = excluded.name,"
      "  cc_major = excluded.cc_major, cc_minor = excluded.cc_minor,"
      "  sm_count = excluded.sm_count, memory_bytes = excluded.memory_bytes,"
      "  l2_bytes = excluded.l2_bytes, driver_version = excluded.driver_version,"
      "  runtime_version = excluded.runtime_version, updated_at = excluded.updated_at");
  up.bind(":uuid", d.uuid);
  up.bind(":name", d.name);
  up.bind(":cc_major", d.cc_major);
  up.bind(":cc_minor", d.cc_minor);
  up.bind(":sm_count", d.sm_count);
  up.bind(":memory_bytes", d.memory_bytes);
  up.bind(":l2_bytes", d.l2_bytes);
  up.bind(":driver_version", d.driver_version);
  up.bind(":runtime_version", d.runtime_version);
  up.exec();
  // last_insert_rowid() is stale after the UPDATE branch of an upsert, so look the id up.
  SQLite::Statement id(db, "SELECT id FROM devices WHERE uuid = :uuid");
  id.bind(":uuid", d.uuid);
  id.executeStep();
  return id.getColumn(0).getInt64();
}

std::int64_t problem_id_in(SQLite::Database& db, const ProblemRow& p) {
  SQLite::Statement up(db,
                       "INSERT INTO problems (family, sample_type, binning, num_bins, n)"
                       " VALUES (:family, :sample_type, :binning, :num_bins, :n)"
                       " ON CONFLICT DO NOTHING");
  bind_problem(up, p);
  up.exec();
  SQLite::Statement id(db,
                       "SELECT id FROM problems WHERE family = :family AND"
                       " sample_type = :sample_type AND binning = :binning AND"
                       " num_bins = :num_bins AND n = :n");
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

}  // namespace

Database::Database(const std::string& path) : path_(path) {
  constexpr const char* op = "open";
  if (path_.empty()) {
    // SQLite would silently open a temporary database; an empty path is a caller's mistake.
    throw make_error(op, path_, "empty path (use \":memory:\" for an in-memory database)");
  }
  const bool in_memory = is_memory_path(path_);
  if (!in_memory) {
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
    db_ = std::make_unique<SQLite::Database>(path_, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE,
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
    if (kind == FileKind::kHisttune) {
      check_version(*db_, path_);
    }

    db_->exec("PRAGMA foreign_keys = ON");
    if (!in_memory) {
      // WAL lets readers (a lookup at launch) run beside a tuner writing. Set outside any
      // transaction: SQLite cannot change the journal mode inside one.
      db_->exec("PRAGMA journal_mode = WAL");
    }

    if (kind == FileKind::kEmpty) {
      // IMMEDIATE takes the write lock first, so two processes creating the same new file
      // serialise here; the second then finds the schema in place.
      SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      const FileKind now = inspect(*db_);
      if (now == FileKind::kEmpty) {
        db_->exec(kSchemaSql);
        SQLite::Statement meta(*db_, "INSERT INTO meta (key, value) VALUES ('application', :app)");
        meta.bind(":app", kApplication);
        meta.exec();
        // PRAGMA takes no bound parameters; the value is a compile-time constant.
        db_->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
      } else if (now == FileKind::kForeign) {
        throw make_error(op, path_,
                         "not a histtune database (another program created it meanwhile)");
      } else {
        check_version(*db_, path_);  // another histtune, perhaps a newer one, created it meanwhile
      }
      tx.commit();
    }
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
  try {
    return read_user_version(*db_);
  } catch (const SQLite::Exception& e) {
    throw make_error("schema_version", path_, e);
  }
}

std::int64_t Database::upsert_device(const DeviceRow& device) {
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
  try {
    // IMMEDIATE: a deferred transaction that reads first can fail to upgrade to a writer under
    // WAL without waiting on the busy timeout.
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = device_id_in(*db_, device);
    const std::int64_t problem_id = problem_id_in(*db_, problem);
    SQLite::Statement insert(
        *db_,
        "INSERT INTO measurements (device_id, problem_id, config_id, median_ms, min_ms, max_ms,"
        "  samples, verified, template_hash)"
        " VALUES (:device_id, :problem_id, :config_id, :median_ms, :min_ms, :max_ms,"
        "  :samples, :verified, :template_hash)");
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
      insert.exec();
    }
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("record_measurements", path_, e);
  }
}

void Database::set_winner(const DeviceRow& device, const ProblemRow& problem,
                          const std::string& label, double median_ms,
                          const std::string& template_hash) {
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = device_id_in(*db_, device);
    const std::int64_t problem_id = problem_id_in(*db_, problem);
    const std::int64_t config_id = config_id_in(*db_, problem.family, label, "{}", false);
    SQLite::Statement put(
        *db_,
        "INSERT OR REPLACE INTO winners (device_id, problem_id, config_id, median_ms,"
        "  template_hash)"
        " VALUES (:device_id, :problem_id, :config_id, :median_ms, :template_hash)");
    put.bind(":device_id", device_id);
    put.bind(":problem_id", problem_id);
    put.bind(":config_id", config_id);
    put.bind(":median_ms", median_ms);
    put.bind(":template_hash", template_hash);
    put.exec();
    tx.commit();
  } catch (const SQLite::Exception& e) {
    throw make_error("set_winner", path_, e);
  }
}

std::optional<DeviceRow> Database::device(const std::string& uuid) const {
  try {
    SQLite::Statement q(*db_,
                        "SELECT uuid, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes,"
                        " driver_version, runtime_version FROM devices WHERE uuid = :uuid");
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
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) +
                                  " WHERE d.uuid = :uuid AND p.family = :family AND"
                                  " p.sample_type = :sample_type AND p.binning = :binning AND"
                                  " p.num_bins = :num_bins AND p.n = :n");
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

std::vector<WinnerRow> Database::winners(const std::string& device_uuid) const {
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
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) +
                                  " WHERE d.uuid = :uuid AND p.family = :family AND"
                                  " p.sample_type = :sample_type AND p.binning = :binning" +
                                  kWinnerOrder);
    q.bind(":uuid", device_uuid);
    q.bind(":family", like.family);
    q.bind(":sample_type", like.sample_type);
    q.bind(":binning", like.binning);
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winners_like", path_, e);
  }
}

std::vector<WinnerRow> Database::winners_same_arch(int cc_major, int cc_minor,
                                                   const std::string& exclude_uuid,
                                                   const ProblemRow& like) const {
  try {
    SQLite::Statement q(*db_, std::string(kWinnerSelect) +
                                  " WHERE d.cc_major = :cc_major AND d.cc_minor = :cc_minor AND"
                                  " d.uuid <> :exclude AND p.family = :family AND"
                                  " p.sample_type = :sample_type AND p.binning = :binning" +
                                  kWinnerOrder);
    q.bind(":cc_major", cc_major);
    q.bind(":cc_minor", cc_minor);
    q.bind(":exclude", exclude_uuid);
    q.bind(":family", like.family);
    q.bind(":sample_type", like.sample_type);
    q.bind(":binning", like.binning);
    return read_winners(q);
  } catch (const SQLite::Exception& e) {
    throw make_error("winners_same_arch", path_, e);
  }
}

std::vector<MeasurementRow> Database::measurements(const std::string& device_uuid,
                                                   const ProblemRow& problem) const {
  try {
    SQLite::Statement q(*db_,
                        "SELECT c.label, c.params_json, m.median_ms, m.min_ms, m.max_ms,"
                        "  m.samples, m.verified, m.template_hash"
                        " FROM measurements m"
                        " JOIN devices d        ON d.id = m.device_id"
                        " JOIN problems p       ON p.id = m.problem_id"
                        " JOIN configurations c ON c.id = m.config_id"
                        " WHERE d.uuid = :uuid AND p.family = :family AND"
                        "  p.sample_type = :sample_type AND p.binning = :binning AND"
                        "  p.num_bins = :num_bins AND p.n = :n"
                        " ORDER BY m.median_ms, m.id");
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
      out.push_back(std::move(r));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    throw make_error("measurements", path_, e);
  }
}

}  // namespace histtune::db
