// The list of subcommands. A new one is its file, tools/NAME_command.cpp defining
// `Command NAME_command()`, and its line here (and the file in tools/CMakeLists.txt).
#include "command.hpp"

// X(NAME) for each subcommand, in the order `histtune --help` lists them.
#define HISTTUNE_CLI_COMMANDS(X) \
  X(tune)                        \
  X(compare)                     \
  X(info)                        \
  X(bench)                       \
  X(stability)                   \
  X(show)                        \
  X(explain)                     \
  X(report)                      \
  X(export)                      \
  X(import)                      \
  X(merge)                       \
  X(prune)

namespace histtune::cli {

#define HISTTUNE_CLI_DECLARE(name) Command name##_command();
HISTTUNE_CLI_COMMANDS(HISTTUNE_CLI_DECLARE)
#undef HISTTUNE_CLI_DECLARE

const std::vector<Command>& commands() {
#define HISTTUNE_CLI_ENTRY(name) name##_command(),
  static const std::vector<Command> all = {HISTTUNE_CLI_COMMANDS(HISTTUNE_CLI_ENTRY)};
#undef HISTTUNE_CLI_ENTRY
  return all;
}

}  // namespace histtune::cli
