// Cost landscapes of the tune_with tests (test_tuner.cpp), which the golden traces
// (test_golden_trace.cpp) replay: cost(point, distribution) in ms, for FakeBench.
#pragma once

#include <cstdlib>
#include <optional>

#include "histtune/tuner/tuner.hpp"

namespace histtune::test {

// A 4 x 4 x 3 grid; uniform data is fastest at {3, 3, 2}, but p[0] = 3 and 2 collapse on
// constant data (hot-bin contention, say), where {0, 3, 2} is best, 22% behind on uniform data.
inline std::optional<double> two_basins(const tuner::Point& p, tuner::Distribution d) {
  double t = 1.0 + 0.1 * (3 - p[1]) + 0.05 * (2 - p[2]);  // wants p[1] = 3, p[2] = 2
  switch (p[0]) {
    case 3: t *= d == tuner::Distribution::constant ? 3.0 : 0.90; break;
    case 2: t *= d == tuner::Distribution::constant ? 2.0 : 0.93; break;
    case 1: t *= 0.96; break;
    default: t *= d == tuner::Distribution::constant ? 0.85 : 1.10; break;
  }
  return t;
}

// A 4 x 4 grid whose compromise is off every path the phases take: p[0] = 0 is twice as fast as
// the rest on uniform data and five times slower on constant data; p[1] = 3 is best on both (2%
// a step).
inline std::optional<double> off_path_compromise(const tuner::Point& p, tuner::Distribution d) {
  const double along = 1 + 0.02 * (3 - p[1]);
  if (d == tuner::Distribution::uniform) return (p[0] == 0 ? 1.0 : 2.0) * along;
  return (p[0] < 2 ? 5.0 : 1.0) * along;
}

// One parameter, 64 values; every distribution but constant data is fastest at x = 50. Constant
// data has a local optimum at x = 51 (0.95; 50 and 52 at 1.0), a ridge at 49 (1.05), and beyond
// it a slope to 0.80 at x = 0.
inline std::optional<double> ridge(const tuner::Point& p, tuner::Distribution d) {
  const int x = p[0];
  if (d != tuner::Distribution::constant) return 1.0 + 0.01 * std::abs(x - 50);
  if (x == 51) return 0.95;
  if (x == 50 || x == 52) return 1.0;
  if (x == 49) return 1.05;
  return x < 49 ? 0.8 + 0.002 * x : 1.0 + 0.01 * (x - 52);
}

}  // namespace histtune::test
