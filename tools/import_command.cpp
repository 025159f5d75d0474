// `histtune import`: adds a JSON export to the database, all or nothing. Needs no GPU.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "histtune/status.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_import(const Common& c, const std::string& in_path) {
  std::stringstream text;
  if (in_path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(in_path, ec))
      throw Error(StatusCode::invalid_argument, "cannot read " + in_path + ": it is a folder");
    std::ifstream in(in_path);
    if (!in)
      throw Error(StatusCode::invalid_argument,
                  "cannot read " + in_path + ": " + std::strerror(errno));
    text << in.rdbuf();
  }
  // The file is tried on a scratch database first: its faults are then told apart from the
  // database's (exit 2, not 4), and the database is not even opened for a malformed file.
  try {
    db::Database scratch(":memory:");
    scratch.import_json(text.str());
  } catch (const db::DbError& e) {
    const std::string what = e.what();
    const auto at = what.find(" failed: ");
    throw Error(StatusCode::invalid_argument,
                "bad import file " + (in_path == "-" ? std::string("(stdin)") : in_path) + ": " +
                    (at == std::string::npos ? what : what.substr(at + 9)) +
                    " (nothing imported)");
  }
  auto database = open_db(c);
  const db::ImportSummary s = database->import_json(text.str());  // all or nothing
  print_import_summary(c, "import", database->path(), s, {{"file", in_path}},
                       "imported into " + database->path(), "");
  return kOk;
}

void declare(CLI::App* app, Common& common, std::string& in_path) {
  add_common(app, common, kDb | kJson, {"print the summary as JSON"});
  app->add_option("file", in_path, "the JSON file ('-': standard input)")
      ->type_name("FILE")
      ->required();
}

}  // namespace

Command import_command() {
  return {
      "import", "add a JSON export to the database",
      "The whole file is checked before the database is opened: a malformed one changes nothing\n"
      "and exits 2, naming the first problem (its JSON path and the rule). Measurements already\n"
      "stored are skipped; an imported winner replaces a stored one only if it is faster, a\n"
      "baseline only if it was measured later. Needs no GPU.",
      bind_values<std::string>(declare, run_import)};
}

}  // namespace histtune::cli
