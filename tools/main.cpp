// The histtune command line: `histtune tune` (or `histtune --gpu auto`) tunes this machine's GPU;
// the subcommands compare, benchmark, inspect and move what was tuned; a bare `histtune` prints
// the help (a tuning run takes minutes and writes a database: not what a first try should do). Each subcommand registers itself from its
// own file (command.hpp); this file parses, dispatches and turns errors into one line on stderr
// and a documented exit code (see common.hpp).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <utility>

#include "command.hpp"
#include "histtune/compile_processes.hpp"
#include "histtune/db/database.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

// "histtune db: open on 'x.db' failed: database is locked (SQLite code 5)" reads, after the
// CLI's own "histtune: ", as "database open on 'x.db' failed: ...", with a hint where one helps.
std::string database_error_text(std::string what) {
  const std::string prefix = "histtune db: ";
  if (what.rfind(prefix, 0) == 0) what = "database " + what.substr(prefix.size());
  if (what.find("database is locked") != std::string::npos)
    what += "; another process holds it (histtune waited 5 s): retry when it is done";
  return what;
}

// Runs the command; an error it throws is one line on stderr and its exit code.
int run_reporting_errors(const Run& run) {
  try {
    return run();
  } catch (const Error& e) {
    std::fprintf(stderr, "histtune: %s\n", e.what());
    switch (e.code()) {
      case StatusCode::no_device: return kNoDevice;
      case StatusCode::invalid_argument: return kUsage;
      case StatusCode::database_error: return kDatabase;
      default: return kFailure;
    }
  } catch (const db::DbError& e) {
    std::fprintf(stderr, "histtune: %s\n", database_error_text(e.what()).c_str());
    return kDatabase;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "histtune: %s\n", e.what());
    return kFailure;
  }
}

}  // namespace
}  // namespace histtune::cli

int main(int argc, char** argv) {
  using namespace histtune::cli;
  // A compile child of a tuning run (compile_processes.hpp): no CLI, no CUDA.
  if (histtune::compile_processes::asked_to_serve(argc, argv))
    return histtune::compile_processes::serve();
  CLI::App app{"histtune: autotuned CUDA histogram kernels. Alone, `histtune` prints this help; "
               "with tune's options and no subcommand (`histtune --gpu auto`) it tunes, as "
               "`histtune tune` does.",
               "histtune"};
  app.set_version_flag("--version", std::string("histtune ") + histtune::version(),
                       "print the version and exit");
  app.footer(help_footer(
      std::string("Every subcommand has its own --help. Output for scripts: --json.\n") +
      kProblemFormat));
  // Parse errors read like the others: one line, prefixed.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "histtune: " + std::string(e.what()) + " (see --help)\n";
  });

  Common common;
  Run default_run;
  std::vector<std::pair<CLI::App*, Run>> subcommands;
  for (const Command& command : commands()) {
    Bound bound = command.bind(common);
    if (command.is_default) {
      bound.declare(&app);
      default_run = bound.run;
    }
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    bound.declare(sub);
    sub->footer(help_footer(command.details));
    subcommands.emplace_back(sub, bound.run);
  }
  app.require_subcommand(0, 1);

  if (argc == 1) {
    std::printf("%s", app.help().c_str());
    return kOk;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kOk : kUsage;
  }
  for (const auto& [sub, run] : subcommands)
    if (*sub) return run_reporting_errors(run);
  return run_reporting_errors(default_run);
}
