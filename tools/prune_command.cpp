// `histtune prune`: keeps the database current, dropping what another kernel template (or
// histtune version) measured. Needs no GPU.
#include <cstdio>

#include "command.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_prune(const Common& c, bool all_versions) {
  auto database = open_db(c, /*must_exist=*/true);
  db::PruneOptions o;
  // Results measured with another kernel template can no longer be launched as measured: each
  // family keeps its own template's.
  o.keep_template_hash = templates::get(hist1d::kTemplate).hash;
  o.family = hist1d::kFamily;
  if (!all_versions) o.keep_histtune_version = version();
  std::size_t n = database->prune(o);
  db::PruneOptions mc = o;
  mc.keep_template_hash = templates::get(multichannel::kTemplate).hash;
  mc.family = multichannel::kFamily;
  n += database->prune(mc);
  if (c.json) {
    print_json({{"histtune", version()},
                {"command", "prune"},
                {"database", database->path()},
                {"deleted_rows", n},
                {"kept_template_hash", *o.keep_template_hash},
                {"kept_multichannel_template_hash", *mc.keep_template_hash},
                {"kept_histtune_version",
                 all_versions ? nlohmann::json() : nlohmann::json(version())}});
    return kOk;
  }
  std::printf("histtune: pruned %zu rows from %s (kept templates %s, multi-channel %s%s)\n", n,
              database->path().c_str(), o.keep_template_hash->c_str(),
              mc.keep_template_hash->c_str(),
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
