// Pruning results that an older template or build measured.
#include "internal.hpp"

namespace histtune::db {
namespace {

// The rows of a results table (measurements or either winners table) that prune deletes. A NULL
// bind means "not asked": keep everything on that criterion.
constexpr const char* kStaleRows =
    " WHERE"
    " (:device IS NULL OR device_id IN (SELECT id FROM devices WHERE uuid = :device))"
    " AND ((:hash IS NOT NULL AND template_hash <> :hash)"
    "   OR (:version IS NOT NULL AND histtune_version <> :version))"
    " AND (:family IS NULL"
    "   OR problem_id IN (SELECT id FROM problems WHERE family = :family))";

}  // namespace

std::size_t Database::prune(const PruneOptions& options) {
  return write("prune", [&](SQLite::Database& db) {
    std::size_t deleted = 0;
    // The table names are constants: only they are joined into the SQL.
    for (const char* table : {"measurements", "winners", "distribution_winners"}) {
      SQLite::Statement q(db, std::string("DELETE FROM ") + table + kStaleRows);
      detail::bind_optional(q, ":device", options.device_uuid);
      detail::bind_optional(q, ":hash", options.keep_template_hash);
      detail::bind_optional(q, ":version", options.keep_histtune_version);
      detail::bind_optional(q, ":family", options.family);
      deleted += static_cast<std::size_t>(q.exec());
    }
    deleted += static_cast<std::size_t>(db.exec(
        "DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM measurements)"
        " AND id NOT IN (SELECT problem_id FROM winners)"
        " AND id NOT IN (SELECT problem_id FROM distribution_winners)"
        " AND id NOT IN (SELECT problem_id FROM baselines)"));
    deleted += static_cast<std::size_t>(db.exec(
        "DELETE FROM configurations WHERE id NOT IN (SELECT config_id FROM measurements)"
        " AND id NOT IN (SELECT config_id FROM winners)"
        " AND id NOT IN (SELECT config_id FROM distribution_winners)"));
    return deleted;
  });
}

}  // namespace histtune::db
