// Measurements and the winners chosen from them: the robust winner of (device, problem) in
// `winners`, each input distribution's own in `distribution_winners`, and the lookups the
// dispatcher grades (exact, same model, same device like, same architecture).
#include "internal.hpp"

namespace histtune::db {
namespace {

using detail::bind_problem;
using detail::config_id_in;
using detail::device_id_in;
using detail::kDeviceColumnCount;
using detail::kProblemColumnCount;
using detail::kProblemMatch;
using detail::kWinnerOrder;
using detail::problem_id_in;

// Both winner tables, read the same way by read_winner; `distribution` is the last column.
#define HT_WINNER_SELECT(distribution, table)                                              \
  "SELECT " HT_DEVICE_COLUMNS ", " HT_PROBLEM_COLUMNS ","                                  \
  " c.label, w.median_ms, w.template_hash, w.histtune_version, " distribution " FROM " table \
  " w JOIN devices d ON d.id = w.device_id JOIN problems p ON p.id = w.problem_id"         \
  " JOIN configurations c ON c.id = w.config_id"

constexpr const char* kWinnerSelect = HT_WINNER_SELECT("'any'", "winners");
constexpr const char* kDistributionWinnerSelect =
    HT_WINNER_SELECT("w.distribution", "distribution_winners");

// Problems like another: same family, sample type, binning, channels and active channels
// (bound by bind_problem_like).
constexpr const char* kLikeMatch =
    " p.family = :family AND p.sample_type = :sample_type AND p.binning = :binning AND"
    " p.channels = :channels AND p.active_channels = :active_channels";

// A row of kWinnerSelect or kDistributionWinnerSelect.
WinnerRow read_winner(const SQLite::Statement& q) {
  WinnerRow w;
  w.device = detail::read_device(q, 0);
  constexpr int p = kDeviceColumnCount;
  w.problem = detail::read_problem(q, p);
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

MeasurementRow read_measurement(const SQLite::Statement& q) {
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
  return r;
}

// Sets (replaces) the robust winner of (device, problem), inside the caller's transaction.
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
  detail::bind_winner(put, device_id, problem_id, config_id, median_ms, template_hash,
                      histtune_version);
  put.exec();
  detail::clear_pending_in(db, device.uuid, problem);  // it resolves `exact` from now on
}

// Replaces every per-distribution winner of (device, problem), inside the caller's transaction.
void distribution_winners_in(SQLite::Database& db, const DeviceRow& device,
                             const ProblemRow& problem,
                             const std::vector<WinnerRow>& by_distribution) {
  const std::int64_t device_id = device_id_in(db, device);
  const std::int64_t problem_id = problem_id_in(db, problem);
  SQLite::Statement clear(db,
                          "DELETE FROM distribution_winners WHERE device_id = :device_id AND"
                          " problem_id = :problem_id");
  clear.bind(":device_id", device_id);
  clear.bind(":problem_id", problem_id);
  clear.exec();
  SQLite::Statement put(db,
                        "INSERT INTO distribution_winners (device_id, problem_id, distribution,"
                        "  config_id, median_ms, template_hash, histtune_version)"
                        " VALUES (:device_id, :problem_id, :distribution, :config_id,"
                        "  :median_ms, :template_hash, :histtune_version)");
  for (const WinnerRow& w : by_distribution) {
    const std::int64_t config_id = config_id_in(db, problem.family, w.config_label, "{}", false);
    put.reset();
    detail::bind_winner(put, device_id, problem_id, config_id, w.median_ms, w.template_hash,
                        w.histtune_version);
    put.bind(":distribution", w.distribution);
    put.exec();
  }
}

}  // namespace

void Database::record_measurements(const DeviceRow& device, const ProblemRow& problem,
                                   const std::vector<MeasurementRow>& rows) {
  write("record_measurements", [&](SQLite::Database& db) {
    const std::int64_t device_id = device_id_in(db, device);
    const std::int64_t problem_id = problem_id_in(db, problem);
    SQLite::Statement insert(db, detail::kInsertMeasurementSql);
    for (const MeasurementRow& row : rows) {
      const std::int64_t config_id =
          config_id_in(db, problem.family, row.config_label, row.params_json, true);
      insert.reset();
      detail::bind_measurement(insert, device_id, problem_id, config_id, row);
      insert.exec();
    }
  });
}

std::vector<MeasurementRow> Database::measurements(const std::string& device_uuid,
                                                   const ProblemRow& problem) const {
  return read("measurements", [&](SQLite::Database& db) {
    SQLite::Statement q(db,
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
      out.push_back(read_measurement(q));
    }
    return out;
  });
}

void Database::set_winner(const DeviceRow& device, const ProblemRow& problem,
                          const std::string& label, double median_ms,
                          const std::string& template_hash,
                          const std::string& histtune_version) {
  write("set_winner", [&](SQLite::Database& db) {
    winner_in(db, device, problem, label, median_ms, template_hash, histtune_version);
  });
}

void Database::set_winners(const DeviceRow& device, const ProblemRow& problem,
                           const WinnerRow& robust, const std::vector<WinnerRow>& by_distribution) {
  for (const WinnerRow& w : by_distribution) {
    if (w.distribution.empty() || w.distribution == kAnyDistribution) {
      throw detail::make_error("set_winners", path_,
                               "a per-distribution winner needs a distribution name other than '" +
                                   std::string(kAnyDistribution) + "' (" + w.config_label + ")");
    }
  }
  write("set_winners", [&](SQLite::Database& db) {
    winner_in(db, device, problem, robust.config_label, robust.median_ms, robust.template_hash,
              robust.histtune_version);
    distribution_winners_in(db, device, problem, by_distribution);
  });
}

std::optional<WinnerRow> Database::winner(const std::string& device_uuid,
                                          const ProblemRow& problem) const {
  return read("winner", [&](SQLite::Database& db) -> std::optional<WinnerRow> {
    SQLite::Statement q(db, std::string(kWinnerSelect) + " WHERE d.uuid = :uuid AND" +
                                kProblemMatch);
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return read_winner(q);
  });
}

std::vector<WinnerRow> Database::winners(const std::string& device_uuid) const {
  return read("winners", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kWinnerSelect) + " WHERE d.uuid = :uuid" + kWinnerOrder);
    q.bind(":uuid", device_uuid);
    return read_winners(q);
  });
}

std::vector<WinnerRow> Database::distribution_winners(const std::string& device_uuid,
                                                      const ProblemRow& problem) const {
  return read("distribution_winners", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kDistributionWinnerSelect) + " WHERE d.uuid = :uuid AND" +
                                kProblemMatch + " ORDER BY w.distribution");
    q.bind(":uuid", device_uuid);
    bind_problem(q, problem);
    return read_winners(q);
  });
}

std::vector<WinnerRow> Database::distribution_winners(const std::string& device_uuid) const {
  return read("distribution_winners", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kDistributionWinnerSelect) + " WHERE d.uuid = :uuid" +
                                kWinnerOrder + ", w.distribution");
    q.bind(":uuid", device_uuid);
    return read_winners(q);
  });
}

std::optional<WinnerRow> Database::winner_for(const std::string& device_uuid,
                                              const ProblemRow& problem,
                                              const std::string& distribution) const {
  return read("winner_for", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kDistributionWinnerSelect) +
                                " WHERE d.uuid = :uuid AND w.distribution = :distribution AND" +
                                kProblemMatch);
    q.bind(":uuid", device_uuid);
    q.bind(":distribution", distribution);
    bind_problem(q, problem);
    if (q.executeStep()) return std::optional<WinnerRow>(read_winner(q));
    // None of that distribution: the robust one (whose own errors name "winner").
    return winner(device_uuid, problem);
  });
}

std::vector<WinnerRow> Database::winners_like(const std::string& device_uuid,
                                              const ProblemRow& like) const {
  return read("winners_like", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kWinnerSelect) + " WHERE d.uuid = :uuid AND" +
                                kLikeMatch + kWinnerOrder);
    q.bind(":uuid", device_uuid);
    detail::bind_problem_like(q, like);
    return read_winners(q);
  });
}

// The SQL of same_model (database.hpp): keep the two alike.
std::vector<WinnerRow> Database::winners_same_model(const DeviceRow& device,
                                                    const ProblemRow& problem) const {
  return read("winners_same_model", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kWinnerSelect) +
                                " WHERE d.name = :name AND d.cc_major = :cc_major AND"
                                " d.cc_minor = :cc_minor AND d.sm_count = :sm_count AND"
                                " d.memory_bytes = :memory_bytes AND d.uuid <> :exclude AND" +
                                kProblemMatch + kWinnerOrder);
    q.bind(":name", device.name);
    q.bind(":cc_major", device.cc_major);
    q.bind(":cc_minor", device.cc_minor);
    q.bind(":sm_count", device.sm_count);
    q.bind(":memory_bytes", device.memory_bytes);
    q.bind(":exclude", device.uuid);
    bind_problem(q, problem);
    return read_winners(q);
  });
}

std::vector<WinnerRow> Database::winners_same_arch(int cc_major, int cc_minor,
                                                   const std::string& exclude_uuid,
                                                   const ProblemRow& like) const {
  return read("winners_same_arch", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kWinnerSelect) +
                                " WHERE d.cc_major = :cc_major AND d.cc_minor = :cc_minor AND"
                                " d.uuid <> :exclude AND" +
                                kLikeMatch + kWinnerOrder);
    q.bind(":cc_major", cc_major);
    q.bind(":cc_minor", cc_minor);
    q.bind(":exclude", exclude_uuid);
    detail::bind_problem_like(q, like);
    return read_winners(q);
  });
}

}  // namespace histtune::db
