// A histtune subcommand, as it registers itself: its name and --help texts, and a function that
// binds its options to values and returns what runs it. Each is `Command NAME_command()` in its
// own file; commands() (commands.cpp) lists them.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"

namespace histtune::cli {

// Runs a command on its parsed options; returns an Exit code (common.hpp).
using Run = std::function<int()>;

// A command's options bound to one set of values: `declare` adds them to an app, `run` runs the
// command on what was parsed into them.
struct Bound {
  std::function<void(CLI::App*)> declare;
  Run run;
};

struct Command {
  std::string name;         // `histtune NAME`
  std::string description;  // its line in `histtune --help`
  std::string details;      // its --help footer, before the exit codes
  // Binds the command's own values and `common` (the options every command shares).
  std::function<Bound(Common& common)> bind;
  bool is_default = false;  // also what `histtune` runs without a subcommand, on the same options
};

// Every subcommand, in the order `histtune --help` lists them.
const std::vector<Command>& commands();

// A Command's bind over one `Values` of its own: `declare(app, common, values)` adds its options
// to an app, `run(common, values)` runs it on what was parsed.
template <class Values, class Declare, class Execute>
std::function<Bound(Common&)> bind_values(Declare declare, Execute run) {
  return [declare, run](Common& common) -> Bound {
    auto values = std::make_shared<Values>();
    return {[declare, values, &common](CLI::App* app) { declare(app, common, *values); },
            [run, values, &common] { return run(common, *values); }};
  };
}

// The Values of a command that reads only the shared options.
struct NoValues {};

}  // namespace histtune::cli
