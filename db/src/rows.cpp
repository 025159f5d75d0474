// The helpers every table's code shares (see internal.hpp): errors, binders, row readers and the
// id lookups of devices, problems and configurations.
#include "internal.hpp"

namespace histtune::db::detail {

DbError make_error(const char* operation, const std::string& path, const std::string& detail) {
  return DbError("histtune db: " + std::string(operation) + " on '" + path + "' failed: " + detail);
}

DbError make_error(const char* operation, const std::string& path, const SQLite::Exception& e) {
  return make_error(operation, path,
                    std::string(e.what()) + " (SQLite code " +
                        std::to_string(e.getExtendedErrorCode()) + ")");
}

void bind_optional(SQLite::Statement& q, const char* name, const std::optional<double>& v) {
  if (v)
    q.bind(name, *v);
  else
    q.bind(name);  // NULL
}

void bind_optional(SQLite::Statement& q, const char* name, const std::optional<std::string>& v) {
  if (v)
    q.bind(name, *v);
  else
    q.bind(name);
}

std::optional<double> optional_column(const SQLite::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getDouble();
}

void bind_problem_like(SQLite::Statement& q, const ProblemRow& like) {
  q.bind(":family", like.family);
  q.bind(":sample_type", like.sample_type);
  q.bind(":binning", like.binning);
  q.bind(":channels", static_cast<std::int64_t>(like.channels));
  q.bind(":active_channels", static_cast<std::int64_t>(like.active_channels));
}

void bind_problem(SQLite::Statement& q, const ProblemRow& p) {
  bind_problem_like(q, p);
  q.bind(":num_bins", static_cast<std::int64_t>(p.num_bins));
  // Counts above INT64_MAX wrap negative and are refused by CHECK (n >= 0).
  q.bind(":n", static_cast<std::int64_t>(p.n));
}

void bind_measurement_identity(SQLite::Statement& q, std::int64_t device_id,
                               std::int64_t problem_id, std::int64_t config_id,
                               const MeasurementRow& m) {
  q.bind(":device_id", device_id);
  q.bind(":problem_id", problem_id);
  q.bind(":config_id", config_id);
  q.bind(":median_ms", m.median_ms);
  q.bind(":min_ms", m.min_ms);
  q.bind(":max_ms", m.max_ms);
  q.bind(":samples", m.samples);
  q.bind(":template_hash", m.template_hash);
  q.bind(":distribution", m.distribution);
}

void bind_measurement(SQLite::Statement& q, std::int64_t device_id, std::int64_t problem_id,
                      std::int64_t config_id, const MeasurementRow& m) {
  bind_measurement_identity(q, device_id, problem_id, config_id, m);
  q.bind(":verified", m.verified ? 1 : 0);
  q.bind(":histtune_version", m.histtune_version);
}

void bind_winner(SQLite::Statement& q, std::int64_t device_id, std::int64_t problem_id,
                 std::int64_t config_id, double median_ms, const std::string& template_hash,
                 const std::string& histtune_version) {
  q.bind(":device_id", device_id);
  q.bind(":problem_id", problem_id);
  q.bind(":config_id", config_id);
  q.bind(":median_ms", median_ms);
  q.bind(":template_hash", template_hash);
  q.bind(":histtune_version", histtune_version);
}

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
      "  updated_at = excluded.updated_at"
      // A device row that would not change is not written: a repeated import changes nothing.
      " WHERE (name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, driver_version,"
      "  runtime_version, memory_clock_khz, nvrtc_version) IS NOT"
      " (excluded.name, excluded.cc_major, excluded.cc_minor, excluded.sm_count,"
      "  excluded.memory_bytes, excluded.l2_bytes, excluded.driver_version,"
      "  excluded.runtime_version, excluded.memory_clock_khz, excluded.nvrtc_version)");
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

std::int64_t problem_id_in(SQLite::Database& db, const ProblemRow& p, bool* inserted) {
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

std::int64_t config_id_in(SQLite::Database& db, const std::string& family,
                          const std::string& label, const std::string& params_json,
                          bool replace_params) {
  SQLite::Statement up(
      db, replace_params
              ? "INSERT INTO configurations (family, label, params_json)"
                " VALUES (:family, :label, :params_json)"
                " ON CONFLICT (family, label) DO UPDATE SET params_json = excluded.params_json"
                " WHERE params_json IS NOT excluded.params_json"
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

}  // namespace histtune::db::detail
