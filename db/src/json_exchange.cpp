// JSON exchange (docs/database-format.md): export of the whole database or one device's part,
// import of a validated document in one transaction, and merge of another database file.
#include "internal.hpp"
#include "json_document.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <utility>

namespace histtune::db {
namespace {

using detail::ImportDocument;
using detail::ImportResult;
using nlohmann::json;

// --- export --------------------------------------------------------------------------------------

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

json problem_json(const ProblemRow& p) {
  return json{{"family", p.family},
              {"sample_type", p.sample_type},
              {"binning", p.binning},
              {"num_bins", p.num_bins},
              {"n", p.n},
              {"channels", p.channels},
              {"active_channels", p.active_channels}};
}

// `params` is stored as text; an export carries it as the object it is.
json measurement_json(const MeasurementRow& m, const ProblemRow& p, const std::string& path) {
  json params = json::parse(m.params_json, nullptr, false);
  if (params.is_discarded() || !params.is_object()) {
    throw detail::make_error("export_json", path,
                             "configuration '" + m.config_label + "' of family '" + p.family +
                                 "' has params that are not a JSON object");
  }
  return json{{"config_label", m.config_label},
              {"params", std::move(params)},
              {"median_ms", m.median_ms},
              {"min_ms", m.min_ms},
              {"max_ms", m.max_ms},
              {"samples", m.samples},
              {"verified", m.verified},
              {"template_hash", m.template_hash},
              {"histtune_version", m.histtune_version},
              {"distribution", m.distribution}};
}

json winner_json(const WinnerRow& w) {
  return json{{"config_label", w.config_label},
              {"median_ms", w.median_ms},
              {"template_hash", w.template_hash},
              {"histtune_version", w.histtune_version}};
}

json baseline_json(const BaselineRow& b) {
  const auto or_null = [](const std::optional<double>& t) { return t ? json(*t) : json(); };
  return json{{"default_ms", or_null(b.default_ms)},
              {"cub_ms", or_null(b.cub_ms)},
              {"floor_ms", or_null(b.floor_ms)},
              {"read_gbps", or_null(b.read_gbps)},
              {"default_min_ms", or_null(b.default_min_ms)},
              {"default_max_ms", or_null(b.default_max_ms)},
              {"cub_min_ms", or_null(b.cub_min_ms)},
              {"cub_max_ms", or_null(b.cub_max_ms)},
              {"measured_at", b.measured_at}};
}

// Everything stored of (device, problem), read through the public calls (inside the caller's
// snapshot: the connection's mutex is recursive).
json result_json(const Database& db, const std::string& uuid, const ProblemRow& p) {
  json ms = json::array();
  for (const MeasurementRow& m : db.measurements(uuid, p)) {
    ms.push_back(measurement_json(m, p, db.path()));
  }
  json win = nullptr;
  if (const auto w = db.winner(uuid, p)) win = winner_json(*w);
  json by_distribution = json::array();
  for (const WinnerRow& w : db.distribution_winners(uuid, p)) {
    json row = json{{"distribution", w.distribution}};
    row.update(winner_json(w));
    by_distribution.push_back(std::move(row));
  }
  json base = nullptr;
  if (const auto b = db.baseline(uuid, p)) base = baseline_json(*b);
  return json{{"device", uuid},
              {"problem", problem_json(p)},
              {"measurements", std::move(ms)},
              {"winner", std::move(win)},
              {"winners_by_distribution", std::move(by_distribution)},
              {"baseline", std::move(base)}};
}

// --- import --------------------------------------------------------------------------------------

// Only a faster winner replaces the one in place, and only under WinnerRule::faster
// (:replace_slower).
constexpr const char* kMergeWinnerSql =
    "INSERT INTO winners (device_id, problem_id, config_id, median_ms, template_hash,"
    "  histtune_version)"
    " VALUES (:device_id, :problem_id, :config_id, :median_ms, :template_hash,"
    "  :histtune_version)"
    " ON CONFLICT (device_id, problem_id) DO UPDATE SET config_id = excluded.config_id,"
    "  median_ms = excluded.median_ms, template_hash = excluded.template_hash,"
    "  histtune_version = excluded.histtune_version, updated_at = excluded.updated_at"
    " WHERE :replace_slower AND excluded.median_ms < winners.median_ms";

constexpr const char* kMergeDistributionWinnerSql =
    "INSERT INTO distribution_winners (device_id, problem_id, distribution, config_id,"
    "  median_ms, template_hash, histtune_version)"
    " VALUES (:device_id, :problem_id, :distribution, :config_id, :median_ms,"
    "  :template_hash, :histtune_version)"
    " ON CONFLICT (device_id, problem_id, distribution) DO UPDATE SET"
    "  config_id = excluded.config_id, median_ms = excluded.median_ms,"
    "  template_hash = excluded.template_hash,"
    "  histtune_version = excluded.histtune_version, updated_at = excluded.updated_at"
    " WHERE :replace_slower AND excluded.median_ms < distribution_winners.median_ms";

// The stored winner of (device, problem, distribution): its label and median.
constexpr const char* kStoredWinnerSql =
    "SELECT c.label, w.median_ms FROM winners w JOIN configurations c ON c.id = w.config_id"
    " WHERE w.device_id = :device_id AND w.problem_id = :problem_id AND :distribution = 'any'"
    " UNION ALL SELECT c.label, w.median_ms FROM distribution_winners w"
    " JOIN configurations c ON c.id = w.config_id"
    " WHERE w.device_id = :device_id AND w.problem_id = :problem_id"
    " AND w.distribution = :distribution";

// Only a more recent baseline replaces the one in place; timestamps sort as text.
constexpr const char* kMergeBaselineSql =
    "INSERT INTO baselines (device_id, problem_id, default_ms, cub_ms, floor_ms, read_gbps,"
    "  default_min_ms, default_max_ms, cub_min_ms, cub_max_ms, measured_at)"
    " VALUES (:device_id, :problem_id, :default_ms, :cub_ms, :floor_ms, :read_gbps,"
    "  :default_min_ms, :default_max_ms, :cub_min_ms, :cub_max_ms, :measured_at)"
    " ON CONFLICT (device_id, problem_id) DO UPDATE SET default_ms = excluded.default_ms,"
    "  cub_ms = excluded.cub_ms, floor_ms = excluded.floor_ms,"
    "  read_gbps = excluded.read_gbps, default_min_ms = excluded.default_min_ms,"
    "  default_max_ms = excluded.default_max_ms, cub_min_ms = excluded.cub_min_ms,"
    "  cub_max_ms = excluded.cub_max_ms, measured_at = excluded.measured_at"
    " WHERE excluded.measured_at > baselines.measured_at";

// Stores a validated document, inside the caller's transaction, counting what it added.
class Importer {
 public:
  Importer(SQLite::Database& db, WinnerRule rule)
      : db_(db),
        rule_(rule),
        stored_winner_(db, kStoredWinnerSql),
        same_(db,
              "SELECT 1 FROM measurements WHERE device_id = :device_id AND problem_id = :problem_id"
              " AND config_id = :config_id AND median_ms = :median_ms AND min_ms = :min_ms"
              " AND max_ms = :max_ms AND samples = :samples AND template_hash = :template_hash"
              " AND distribution = :distribution LIMIT 1"),
        insert_(db, detail::kInsertMeasurementSql),
        put_winner_(db, kMergeWinnerSql),
        put_distribution_winner_(db, kMergeDistributionWinnerSql),
        put_baseline_(db, kMergeBaselineSql) {}

  void devices(const std::vector<DeviceRow>& devices) {
    SQLite::Statement known(db_, "SELECT 1 FROM devices WHERE uuid = :uuid");
    for (const DeviceRow& d : devices) {
      known.reset();
      known.bind(":uuid", d.uuid);
      if (!known.executeStep()) ++summary_.devices;
      device_ids_.emplace(d.uuid, detail::device_id_in(db_, d));
    }
  }

  void result(const ImportResult& r) {
    const std::int64_t device_id = device_ids_.at(r.device_uuid);
    bool new_problem = false;
    const std::int64_t problem_id = detail::problem_id_in(db_, r.problem, &new_problem);
    if (new_problem) ++summary_.problems;
    for (const MeasurementRow& m : r.measurements) {
      measurement(device_id, problem_id, r.problem.family, m);
    }
    if (r.winner) {
      note_conflict(r, device_id, problem_id, *r.winner, kAnyDistribution);
      summary_.winners += run(bound_winner(put_winner_, device_id, problem_id, r.problem.family,
                                           *r.winner));
    }
    for (const MeasurementRow& w : r.distribution_winners) {
      note_conflict(r, device_id, problem_id, w, w.distribution);
      SQLite::Statement& put =
          bound_winner(put_distribution_winner_, device_id, problem_id, r.problem.family, w);
      put.bind(":distribution", w.distribution);
      summary_.winners += run(put);
    }
    if (r.baseline) baseline(device_id, problem_id, *r.baseline);
  }

  const ImportSummary& summary() const { return summary_; }

 private:
  // Inserts a measurement unless an identical one is stored.
  void measurement(std::int64_t device_id, std::int64_t problem_id, const std::string& family,
                   const MeasurementRow& m) {
    const std::int64_t config_id =
        detail::config_id_in(db_, family, m.config_label, m.params_json, true);
    same_.reset();
    detail::bind_measurement_identity(same_, device_id, problem_id, config_id, m);
    if (same_.executeStep()) {
      return;
    }
    insert_.reset();
    detail::bind_measurement(insert_, device_id, problem_id, config_id, m);
    insert_.exec();
    ++summary_.measurements;
  }

  // Records an imported winner that names another configuration than the stored one, and which
  // of the two the rule keeps (the upsert then does the same).
  void note_conflict(const ImportResult& r, std::int64_t device_id, std::int64_t problem_id,
                     const MeasurementRow& w, const std::string& distribution) {
    stored_winner_.reset();
    stored_winner_.bind(":device_id", device_id);
    stored_winner_.bind(":problem_id", problem_id);
    stored_winner_.bind(":distribution", distribution);
    if (!stored_winner_.executeStep()) return;
    const std::string label = stored_winner_.getColumn(0).getString();
    const double ms = stored_winner_.getColumn(1).getDouble();
    if (label == w.config_label) return;
    const bool imported_kept = rule_ == WinnerRule::faster && w.median_ms < ms;
    summary_.conflicts.push_back({r.device_uuid, r.problem, distribution, label, w.config_label,
                                  ms, w.median_ms, w.template_hash, w.histtune_version,
                                  imported_kept});
  }

  // A winner upsert, reset and bound but for the distribution of a per-distribution winner;
  // the configuration is added if new, keeping the params of a known one.
  SQLite::Statement& bound_winner(SQLite::Statement& put, std::int64_t device_id,
                                  std::int64_t problem_id, const std::string& family,
                                  const MeasurementRow& w) {
    const std::int64_t config_id = detail::config_id_in(db_, family, w.config_label, "{}", false);
    put.reset();
    detail::bind_winner(put, device_id, problem_id, config_id, w.median_ms, w.template_hash,
                        w.histtune_version);
    put.bind(":replace_slower", rule_ == WinnerRule::faster ? 1 : 0);
    return put;
  }

  // The rows an upsert changed: 0 where the row in place is kept.
  static std::size_t run(SQLite::Statement& put) { return static_cast<std::size_t>(put.exec()); }

  void baseline(std::int64_t device_id, std::int64_t problem_id, const BaselineRow& b) {
    put_baseline_.reset();
    put_baseline_.bind(":device_id", device_id);
    put_baseline_.bind(":problem_id", problem_id);
    detail::bind_baseline_times(put_baseline_, b);
    put_baseline_.bind(":measured_at", b.measured_at);
    summary_.baselines += run(put_baseline_);
  }

  SQLite::Database& db_;
  WinnerRule rule_;
  SQLite::Statement stored_winner_;
  SQLite::Statement same_, insert_, put_winner_, put_distribution_winner_, put_baseline_;
  std::map<std::string, std::int64_t> device_ids_;
  ImportSummary summary_;
};

}  // namespace

std::string Database::export_json(const std::optional<std::string>& device_uuid) const {
  return read("export_json", [&](SQLite::Database& db) {
    // One read transaction: a single snapshot even while other processes write.
    SQLite::Transaction snapshot(db);
    json doc;
    doc["format"] = detail::kFormat;
    doc["format_version"] = detail::kFormatVersion;
    doc["histtune_version"] = HISTTUNE_VERSION;
    doc["exported_at"] =
        db.execAndGet("SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now')").getString();

    json devices = json::array();
    SQLite::Statement dq(db, "SELECT " HT_DEVICE_COLUMNS
                             " FROM devices d WHERE :uuid IS NULL OR d.uuid = :uuid"
                             " ORDER BY d.uuid");
    detail::bind_optional(dq, ":uuid", device_uuid);  // NULL: every device
    while (dq.executeStep()) {
      devices.push_back(device_json(detail::read_device(dq, 0)));
    }
    doc["devices"] = std::move(devices);

    // Every (device, problem) with a measurement, a winner or a baseline.
    json results = json::array();
    SQLite::Statement rq(db,
                         "SELECT d.uuid, " HT_PROBLEM_COLUMNS
                         " FROM (SELECT device_id, problem_id FROM measurements"
                         "       UNION SELECT device_id, problem_id FROM winners"
                         "       UNION SELECT device_id, problem_id FROM distribution_winners"
                         "       UNION SELECT device_id, problem_id FROM baselines) k"
                         " JOIN devices d  ON d.id = k.device_id"
                         " JOIN problems p ON p.id = k.problem_id"
                         " WHERE :uuid IS NULL OR d.uuid = :uuid"
                         " ORDER BY d.uuid, " HT_PROBLEM_COLUMNS);
    detail::bind_optional(rq, ":uuid", device_uuid);
    while (rq.executeStep()) {
      results.push_back(result_json(*this, rq.getColumn(0).getString(),
                                    detail::read_problem(rq, 1)));
    }
    doc["results"] = std::move(results);
    snapshot.commit();
    // Names written by other tools may not be UTF-8; replace rather than fail the export.
    return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  });
}

ImportSummary Database::import_json(const std::string& text, WinnerRule rule) {
  ImportDocument doc;
  try {
    doc = detail::parse_document(text);
  } catch (const detail::Invalid& e) {
    throw detail::make_error("import_json", path_, e.what());
  }
  // One transaction for the whole document: a failure part-way stores nothing.
  return write("import_json", [&](SQLite::Database& db) {
    Importer importer(db, rule);
    importer.devices(doc.devices);
    for (const ImportResult& r : doc.results) importer.result(r);
    return importer.summary();
  });
}

ImportSummary Database::merge_from(const std::string& other_db_path, WinnerRule rule) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  const Database other(other_db_path, OpenMode::kReadOnly);
  return import_json(other.export_json(), rule);
}

}  // namespace histtune::db
