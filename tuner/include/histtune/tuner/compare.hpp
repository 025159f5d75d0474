// Tuned vs. default vs. CUB vs. the read floor for one problem, all timed in one run on the same
// inputs, each output verified against the host reference.
#pragma once

#include <string>

#include "histtune/device.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/timing.hpp"

namespace histtune::tuner {

struct CompareRow {
  Problem problem;
  std::string tuned_label;
  Timing tuned, fallback, cub;  // fallback: the built-in default configuration
  bool tuned_ok = false, fallback_ok = false, cub_ok = false;  // verified exactly
  std::string cub_error;  // when CUB cannot run the problem
  double floor_ms = 0;    // input bytes / measured read bandwidth
};

// `tuned` (values of p's family's parameters), the family's built-in default and CUB (where it
// expresses the problem: its MultiHistogram takes up to 4 interleaved channels) on the same
// inputs. `skip_cub`, when not empty, is why CUB is not run (it becomes cub_error): for problems
// where CUB is known to fault, since a fault would poison this process's CUDA context.
// `graph_calls` > 0: each side's calls are captured once into a CUDA graph of that many calls
// (zeroing and launch nodes), the graph is replayed, and times are per call: how a program that
// replays graphs (a training step) pays for them.
CompareRow compare(const DeviceInfo& d, const Problem& p, const ParamValues& tuned,
                   KernelCache& cache, double read_gbps,
                   Distribution dist = Distribution::uniform, const TimingOptions& timing = {},
                   const std::string& skip_cub = {}, int graph_calls = 0);

}  // namespace histtune::tuner
