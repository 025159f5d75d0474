// Devices, problems and configurations: the keys every result refers to.
#include "internal.hpp"

namespace histtune::db {

using detail::config_id_in;
using detail::device_id_in;
using detail::problem_id_in;
using detail::read_device;

std::int64_t Database::upsert_device(const DeviceRow& device) {
  return write("upsert_device", [&](SQLite::Database& db) { return device_id_in(db, device); });
}

std::int64_t Database::upsert_problem(const ProblemRow& problem) {
  return write("upsert_problem", [&](SQLite::Database& db) { return problem_id_in(db, problem); });
}

std::int64_t Database::upsert_config(const std::string& family, const std::string& label,
                                     const std::string& params_json) {
  return write("upsert_config", [&](SQLite::Database& db) {
    return config_id_in(db, family, label, params_json, true);
  });
}

std::optional<DeviceRow> Database::device(const std::string& uuid) const {
  return read("device", [&](SQLite::Database& db) -> std::optional<DeviceRow> {
    SQLite::Statement q(db, "SELECT " HT_DEVICE_COLUMNS " FROM devices d WHERE d.uuid = :uuid");
    q.bind(":uuid", uuid);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    return read_device(q, 0);
  });
}

std::vector<DeviceRow> Database::devices() const {
  return read("devices", [&](SQLite::Database& db) {
    SQLite::Statement q(db, "SELECT " HT_DEVICE_COLUMNS " FROM devices d ORDER BY d.name, d.uuid");
    std::vector<DeviceRow> out;
    while (q.executeStep()) out.push_back(read_device(q, 0));
    return out;
  });
}

}  // namespace histtune::db
