// `histtune prune`: keeps the database current, dropping what another kernel template (or
// histtune version) measured. Needs no GPU.
#include <cstdio>

#include "command.hpp"
#include "histtune/family.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_prune(const Common& c, bool all_versions) {
  auto database = open_db(c, /*must_exist=*/true);
  // Results measured with another kernel template can no longer be launched as measured: each
  // family keeps its own template's.
  std::size_t n = 0;
  nlohmann::json j = {{"histtune", version()}, {"command", "prune"}, {"database", database->path()}};
  std::string kept;
  for (const KernelFamily* f : families()) {
    db::PruneOptions o;
    o.keep_template_hash = f->template_hash();
    o.family = f->name();
    if (!all_versions) o.keep_histtune_version = version();
    n += database->prune(o);
    // hist1d's key predates the others': "kept_template_hash".
    const std::string key = f->id() == Family::hist1d
                                ? "kept_template_hash"
                                : "kept_" + std::string(f->name()) + "_template_hash";
    j[key] = *o.keep_template_hash;
    kept += (kept.empty() ? "" : ", ") + std::string(f->name()) + " " + *o.keep_template_hash;
  }
  if (c.json) {
    j["deleted_rows"] = n;
    j["kept_histtune_version"] = all_versions ? nlohmann::json() : nlohmann::json(version());
    print_json(j);
    return kOk;
  }
  std::printf("histtune: pruned %zu rows from %s (kept templates %s%s)\n", n,
              database->path().c_str(), kept.c_str(),
              all_versions ? "" : (std::string(", histtune ") + version()).c_str());
  return kOk;
}

void declare(CLI::App* app, Common& common, bool& all_versions) {
  add_common(app, common, kDb | kJson, {"print the summary as JSON"});
  app->add_flag("--all-versions", all_versions,
                "keep results of other histtune versions (prune by kernel template only)");
}

}  // namespace

Command prune_command() {
  return {"prune", "delete results of another kernel template or histtune version",
          "Deletes the measurements and winners taken with another kernel template than this\n"
          "build's (and, without --all-versions, by another histtune version), then the problems\n"
          "and configurations nothing refers to, in one transaction. Needs no GPU.",
          bind_values<bool>(declare, run_prune)};
}

}  // namespace histtune::cli
