// `histtune prune`: keeps the database current, dropping what another kernel template (or
// histtune version) measured; --dry-run lists what would go. Needs no GPU.
#include <cstdio>

#include "command.hpp"
#include "histtune/family.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

struct PruneValues {
  bool all_versions = false;
  bool dry_run = false;
};

// Why prune drops a row measured under `hash` and `version` (empty: it keeps it).
std::string prune_reason(const std::string& hash, const std::string& version_of_row,
                         const KernelFamily& f, bool all_versions) {
  if (hash != f.template_hash())
    return "kernel template " + (hash.empty() ? std::string("unrecorded") : hash) + ", now " +
           f.template_hash();
  if (!all_versions && version_of_row != version())
    return "histtune " + (version_of_row.empty() ? std::string("unrecorded") : version_of_row) +
           ", now " + version();
  return {};
}

// Per device and problem, the winner and the measurements that go, and why: the lines of
// --dry-run (and of --verbose).
std::string pruned_rows(db::Database& database, bool all_versions, nlohmann::json& listed) {
  std::string text;
  listed = nlohmann::json::array();
  for (const auto& dev : database.devices()) {
    for (const auto& w : database.winners(dev.uuid)) {
      const std::optional<Family> fam = parse_family(w.problem.family);
      if (!fam) continue;
      const KernelFamily& f = family(*fam);
      const std::string why = prune_reason(w.template_hash, w.histtune_version, f, all_versions);
      std::size_t measurements = 0;
      for (const auto& m : database.measurements(dev.uuid, w.problem))
        if (!prune_reason(m.template_hash, m.histtune_version, f, all_versions).empty())
          ++measurements;
      if (why.empty() && measurements == 0) continue;
      listed.push_back({{"device", dev.uuid}, {"problem", problem_json(w.problem)},
                        {"winner", why.empty() ? nlohmann::json() : nlohmann::json(w.config_label)},
                        {"measurements", measurements}, {"why", why}});
      text += "  " + dev.name + " " + problem_name(w.problem) + ": " +
              (why.empty() ? "winner kept" : "winner " + w.config_label + " (" + why + ")") +
              ", " + std::to_string(measurements) + " measurements\n";
    }
  }
  return text;
}

int run_prune(const Common& c, const PruneValues& v) {
  auto database = open_db(c, /*must_exist=*/true);
  nlohmann::json listed;
  const std::string lines = v.dry_run || c.verbose ? pruned_rows(*database, v.all_versions, listed)
                                                   : std::string();
  // Results measured with another kernel template can no longer be launched as measured: each
  // family keeps its own template's.
  db::PruneSummary n;
  nlohmann::json j = {{"histtune", version()}, {"command", "prune"}, {"database", database->path()}};
  std::string kept;
  for (const KernelFamily* f : families()) {
    db::PruneOptions o;
    o.keep_template_hash = f->template_hash();
    o.family = f->name();
    o.dry_run = v.dry_run;
    if (!v.all_versions) o.keep_histtune_version = version();
    const db::PruneSummary s = database->prune_summary(o);
    n.measurements += s.measurements;
    n.winners += s.winners;
    n.distribution_winners += s.distribution_winners;
    n.problems += s.problems;
    n.configurations += s.configurations;
    // hist1d's key predates the others': "kept_template_hash".
    const std::string key = f->id() == Family::hist1d
                                ? "kept_template_hash"
                                : "kept_" + std::string(f->name()) + "_template_hash";
    j[key] = *o.keep_template_hash;
    kept += (kept.empty() ? "" : ", ") + std::string(f->name()) + " " + *o.keep_template_hash;
  }
  const std::string why = "measured with another kernel template than this build's (" + kept +
                          ")" + (v.all_versions ? "" : std::string(" or by another histtune than ") +
                                                           version());
  if (c.json) {
    j["dry_run"] = v.dry_run;
    j["deleted_rows"] = v.dry_run ? 0 : n.total();
    j["rows"] = {{"measurements", n.measurements}, {"winners", n.winners},
                 {"distribution_winners", n.distribution_winners}, {"problems", n.problems},
                 {"configurations", n.configurations}};
    j["why"] = why;
    if (v.dry_run || c.verbose) j["listed"] = listed;
    j["kept_histtune_version"] = v.all_versions ? nlohmann::json() : nlohmann::json(version());
    print_json(j);
    return kOk;
  }
  std::printf("histtune: %s %zu rows %s %s: %zu measurements, %zu winners, %zu per-distribution "
              "winners, %zu problems and %zu configurations nothing else refers to\n",
              v.dry_run ? "prune --dry-run: would delete" : "pruned", n.total(),
              v.dry_run ? "of" : "from", database->path().c_str(), n.measurements, n.winners,
              n.distribution_winners, n.problems, n.configurations);
  std::printf("  why: %s\n%s", why.c_str(), lines.c_str());
  if (v.dry_run) std::printf("  nothing was deleted (run without --dry-run to delete)\n");
  return kOk;
}

void declare(CLI::App* app, Common& common, PruneValues& v) {
  add_common(app, common, kDb | kJson | kVerbose,
             {"print the summary as JSON", nullptr, "also list each problem that loses rows"});
  app->add_flag("--all-versions", v.all_versions,
                "keep results of other histtune versions (prune by kernel template only)");
  app->add_flag("-n,--dry-run", v.dry_run,
                "list what would be deleted, per device and problem, and delete nothing");
}

}  // namespace

Command prune_command() {
  return {"prune", "delete results of another kernel template or histtune version",
          "Deletes the measurements and winners taken with another kernel template than this\n"
          "build's (and, without --all-versions, by another histtune version), then the problems\n"
          "and configurations nothing refers to, in one transaction, and says how many of each\n"
          "and why. --dry-run lists per device and problem what would go and deletes nothing.\n"
          "Needs no GPU.",
          bind_values<PruneValues>(declare, run_prune)};
}

}  // namespace histtune::cli
