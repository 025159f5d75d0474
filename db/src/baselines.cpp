// The baselines `histtune compare` measures beside the winner of (device, problem): the built-in
// default, CUB and the read-bandwidth floor.
#include "internal.hpp"

namespace histtune::db {

void detail::bind_baseline_times(SQLite::Statement& q, const BaselineRow& b) {
  bind_optional(q, ":default_ms", b.default_ms);
  bind_optional(q, ":cub_ms", b.cub_ms);
  bind_optional(q, ":floor_ms", b.floor_ms);
  bind_optional(q, ":read_gbps", b.read_gbps);
  bind_optional(q, ":default_min_ms", b.default_min_ms);
  bind_optional(q, ":default_max_ms", b.default_max_ms);
  bind_optional(q, ":cub_min_ms", b.cub_min_ms);
  bind_optional(q, ":cub_max_ms", b.cub_max_ms);
}

namespace {

constexpr const char* kBaselineSelect =
    "SELECT " HT_PROBLEM_COLUMNS ","
    "  b.default_ms, b.cub_ms, b.floor_ms, b.read_gbps, b.measured_at,"
    "  b.default_min_ms, b.default_max_ms, b.cub_min_ms, b.cub_max_ms"
    " FROM baselines b JOIN devices d ON d.id = b.device_id"
    " JOIN problems p ON p.id = b.problem_id";

BaselineRow read_baseline(const SQLite::Statement& q) {
  BaselineRow b;
  b.problem = detail::read_problem(q, 0);
  constexpr int c = detail::kProblemColumnCount;
  b.default_ms = detail::optional_column(q.getColumn(c + 0));
  b.cub_ms = detail::optional_column(q.getColumn(c + 1));
  b.floor_ms = detail::optional_column(q.getColumn(c + 2));
  b.read_gbps = detail::optional_column(q.getColumn(c + 3));
  b.measured_at = q.getColumn(c + 4).getString();
  b.default_min_ms = detail::optional_column(q.getColumn(c + 5));
  b.default_max_ms = detail::optional_column(q.getColumn(c + 6));
  b.cub_min_ms = detail::optional_column(q.getColumn(c + 7));
  b.cub_max_ms = detail::optional_column(q.getColumn(c + 8));
  return b;
}

}  // namespace

void Database::set_baseline(const DeviceRow& device, const ProblemRow& problem,
                            const BaselineRow& b) {
  write("set_baseline", [&](SQLite::Database& db) {
    const std::int64_t device_id = detail::device_id_in(db, device);
    const std::int64_t problem_id = detail::problem_id_in(db, problem);
    SQLite::Statement put(db,
                          "INSERT OR REPLACE INTO baselines (device_id, problem_id, default_ms,"
                          "  cub_ms, floor_ms, read_gbps, default_min_ms, default_max_ms,"
                          "  cub_min_ms, cub_max_ms)"
                          " VALUES (:device_id, :problem_id, :default_ms, :cub_ms, :floor_ms,"
                          "  :read_gbps, :default_min_ms, :default_max_ms, :cub_min_ms,"
                          "  :cub_max_ms)");
    put.bind(":device_id", device_id);
    put.bind(":problem_id", problem_id);
    detail::bind_baseline_times(put, b);
    put.exec();
  });
}

std::optional<BaselineRow> Database::baseline(const std::string& device_uuid,
                                              const ProblemRow& problem) const {
  return read("baseline", [&](SQLite::Database& db) -> std::optional<BaselineRow> {
    SQLite::Statement q(db, std::string(kBaselineSelect) + " WHERE d.uuid = :uuid AND" +
                                detail::kProblemMatch);
    q.bind(":uuid", device_uuid);
    detail::bind_problem(q, problem);
    if (!q.executeStep()) return std::nullopt;
    return read_baseline(q);
  });
}

std::vector<BaselineRow> Database::baselines(const std::string& device_uuid) const {
  return read("baselines", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string(kBaselineSelect) + " WHERE d.uuid = :uuid" +
                                " ORDER BY " HT_PROBLEM_COLUMNS);
    q.bind(":uuid", device_uuid);
    std::vector<BaselineRow> out;
    while (q.executeStep()) out.push_back(read_baseline(q));
    return out;
  });
}

}  // namespace histtune::db
