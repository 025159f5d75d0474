// The benchmark matrix of ANCHORS.md / the kernel-families issue: one row per workload, with
// the target it is held to. Rows the families cannot express yet stay in the matrix, marked so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "histtune/problem.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::tuner {

struct BenchRow {
  std::string id;  // "u8-256-2^28-uniform"
  Problem problem;
  Distribution dist = Distribution::uniform;
  std::string target;                   // as the issue states it
  std::optional<double> min_floor_pct;  // target as % of floor, when it is one
  std::optional<double> max_us;         // target as microseconds per call, when it is one
  std::optional<double> min_cub_speedup;  // target as times faster than CUB, when it is one
  std::string unsupported;              // non-empty: no family expresses this row yet (why)
  std::string skip_cub;                 // non-empty: why CUB is not run on this row
};

std::vector<BenchRow> bench_matrix();

}  // namespace histtune::tuner
