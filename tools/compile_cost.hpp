// histtune_compile_cost (compile_cost.cpp): what NVRTC costs the default plan, without a GPU.
// compile_cost_search.cpp counts the kernels a cold plan's searches ask for.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"

namespace histtune::compile_cost {

// One problem of the plan as a cold run searches it: the kernels its search announced to the
// compile pool, by what became of them.
struct SearchedProblem {
  std::size_t problem = 0;        // index in the plan
  std::size_t timed = 0;          // announced, new to the plan, timed
  std::size_t never_timed = 0;    // announced, new to the plan, never timed
  std::size_t stored = 0;         // announced, compiled for an earlier problem already
  std::size_t unannounced = 0;    // timed without being announced (compiled on the timing thread)
  std::vector<CompileRequest> compile;  // the timed new kernels (of the problems `only` names)
};

// Tunes every problem of `plan` in order over a bench that times nothing (compile_cost_search.cpp)
// and counts its kernels; keeps the requests of the problems whose description contains `only`
// (none when it is empty).
std::vector<SearchedProblem> searched_kernels(const std::vector<Problem>& plan,
                                              const DeviceInfo& d, int arch,
                                              const std::string& only);
void print_searched(const std::vector<Problem>& plan, const std::vector<SearchedProblem>& s);

}  // namespace histtune::compile_cost
