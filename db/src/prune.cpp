// Pruning results that an older template or build measured.
#include "internal.hpp"

#include <utility>

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

// Deletes what `options` names inside the caller's transaction, counting per table.
PruneSummary delete_stale(SQLite::Database& db, const PruneOptions& options) {
  PruneSummary s;
  // The table names are constants: only they are joined into the SQL.
  for (auto [table, count] : {std::pair{"measurements", &s.measurements},
                              {"winners", &s.winners},
                              {"distribution_winners", &s.distribution_winners}}) {
    SQLite::Statement q(db, std::string("DELETE FROM ") + table + kStaleRows);
    detail::bind_optional(q, ":device", options.device_uuid);
    detail::bind_optional(q, ":hash", options.keep_template_hash);
    detail::bind_optional(q, ":version", options.keep_histtune_version);
    detail::bind_optional(q, ":family", options.family);
    *count = static_cast<std::size_t>(q.exec());
  }
  s.problems = static_cast<std::size_t>(db.exec(
      "DELETE FROM problems WHERE id NOT IN (SELECT problem_id FROM measurements)"
      " AND id NOT IN (SELECT problem_id FROM winners)"
      " AND id NOT IN (SELECT problem_id FROM distribution_winners)"
      " AND id NOT IN (SELECT problem_id FROM baselines)"));
  s.configurations = static_cast<std::size_t>(db.exec(
      "DELETE FROM configurations WHERE id NOT IN (SELECT config_id FROM measurements)"
      " AND id NOT IN (SELECT config_id FROM winners)"
      " AND id NOT IN (SELECT config_id FROM distribution_winners)"));
  return s;
}

}  // namespace

std::size_t Database::prune(const PruneOptions& options) { return prune_summary(options).total(); }

PruneSummary Database::prune_summary(const PruneOptions& options) {
  if (!options.dry_run)
    return write("prune", [&](SQLite::Database& db) { return delete_stale(db, options); });
  // A dry run makes the real deletes, orphans included, in a transaction that is never
  // committed: the counts are exact and the file is left as it was.
  return read("prune (dry run)", [&](SQLite::Database& db) {
    SQLite::Transaction uncommitted(db, SQLite::TransactionBehavior::IMMEDIATE);
    return delete_stale(db, options);
  });
}

}  // namespace histtune::db
