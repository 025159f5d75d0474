// `histtune merge OTHER`: adds another database file (only read) to this one. Needs no GPU.
#include <cstdio>

#include "command.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_merge(const Common& c, const std::string& other) {
  auto database = open_db(c);
  const db::ImportSummary s = database->merge_from(other);
  print_import_summary(c, "merge", database->path(), s, {{"other", other}},
                       "merged " + other + " into " + database->path(),
                       " (the faster one is kept)");
  return kOk;
}

void declare(CLI::App* app, Common& common, std::string& other) {
  add_common(app, common, kDb | kJson, {"print the summary as JSON"});
  app->add_option("other", other, "the other database file (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
}

}  // namespace

Command merge_command() {
  return {"merge", "merge another histtune database file into this one",
          "Import's rules: the faster winner and the later baseline are kept. Needs no GPU.",
          bind_values<std::string>(declare, run_merge)};
}

}  // namespace histtune::cli
