// Two configurations of one problem timed side by side, in one process on the same inputs: the
// fair answer to "are these two equally fast?", which the times two runs recorded cannot give
// (each run saw its own clocks and launch jitter). Rounds alternate the order (A B, B A, ...) so
// that neither always runs in the other's wake; each round is a full time_calls (warm-up, stable
// median, input rotation) and is verified, and the rounds' samples are pooled as the tuner's
// decision phase pools them. Each distribution asked for is timed so, one after the other, through
// one bench: the tuner chooses its winner by the worst case over its distributions, so a fair
// comparison of two winners times both on each of them. Over the Bench interface, so it is
// tested on CPU with a fake bench.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/timing.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

struct SideBySideOptions {
  int rounds = 5;  // rounds of A and B per distribution (>= 1)
  // The data timed, in this order; empty: uniform. By default the tuner's own (TuneOptions), the
  // first of which its recorded winner times are on.
  std::vector<Distribution> distributions = TuneOptions{}.distributions;
  TimingOptions timing;  // of each round (the GPU bench's; a given Bench keeps its own)
  // With several distributions: the first timed once more after the others, through the same
  // bench (one more SideBySide at the end), since a time can depend on what the bench ran before
  // (docs/tuning.md, "A cold plan", session 34).
  bool again = false;
};

// One configuration's part: the pooled samples of every round it verified in.
struct SideTiming {
  std::string label;
  Timing timing;           // summarize() of the pooled samples; samples = 0 when none
  bool verified = false;   // every round's output matched the host reference exactly
  std::string error;       // the first failure (compile error, wrong result, not runnable here)
};

// Both configurations on one distribution.
struct SideBySide {
  Distribution dist = Distribution::uniform;
  SideTiming a, b;
  int rounds = 0;  // rounds timed
};

// Per distribution of opt.distributions, in order (one SideBySide each): a dropped warm-up round,
// then `rounds` rounds of a and b through `bench`; a configuration that fails stops being timed
// on that distribution (its error is kept), the other goes on, and each distribution starts
// afresh. a == b is allowed: the spread is then the method's own noise. With opt.again and
// several distributions, one more SideBySide at the end: the first distribution again.
std::vector<SideBySide> side_by_side(Bench& bench, const Point& a, const Point& b,
                                     const SideBySideOptions& opt = {});

// The same on the GPU for two stored labels of p's family: one GPU bench of the family (the
// tuner's own: its inputs, launch and verification) with the inputs of every distribution drawn,
// both kernels compiled ahead through `cache`. A label that does not parse or is not valid for p
// on d is an error of its side on every distribution, not an exception; nothing is timed then.
std::vector<SideBySide> side_by_side(const DeviceInfo& d, const Problem& p,
                                     const std::string& label_a, const std::string& label_b,
                                     KernelCache& cache, const SideBySideOptions& opt = {});

}  // namespace histtune::tuner
