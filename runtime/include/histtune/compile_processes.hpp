// Compiling in child processes: NVRTC serializes part of its work between the threads of one
// process, and processes compile about a third more kernels a second on the same cores
// (docs/tuning.md, "A cold plan"). Once a program turns this on,
// compile() (jit.hpp) hands each request to an idle child that runs the same program, so the same
// templates and NVRTC, and compiles in this process wherever no child can serve: a child that
// cannot start, dies, or holds other templates costs time, never a kernel.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "histtune/jit.hpp"

namespace histtune::compile_processes {

// The argument that makes a histtune program a compile child (its main calls serve()).
inline constexpr const char* kServeArgument = "__compile-child";
// Whether a program's arguments are exactly kServeArgument: its main then returns serve().
bool asked_to_serve(int argc, char** argv);

// Children run `command` (the program, then its arguments; it must answer as serve() does); at
// most `max` run at once, started when first needed. max 0 turns it off and ends idle children.
void enable(std::vector<std::string> command, unsigned max);
void disable();
bool enabled();
// This program and kServeArgument: what a histtune program passes to enable().
std::vector<std::string> this_program();

// Compiles `req` in a child: nullopt where none served it (turned off, every child busy, a child
// lost), and the caller compiles here. Throws Error(compile_error) as compile() does where NVRTC
// rejects the kernel.
std::optional<CompiledKernel> compile(const CompileRequest& req);

// The child's loop: answers requests from stdin on stdout until stdin closes (anything else the
// process prints goes to stderr). Returns the exit status.
int serve();

struct Stats {
  std::size_t served = 0;   // compiles a child returned (kernels and NVRTC's rejections)
  std::size_t started = 0;  // children started
  std::size_t lost = 0;     // children that failed mid-request (then compiled here)
  std::size_t here = 0;     // requests compiled here while turned on
};
Stats stats();

}  // namespace histtune::compile_processes
