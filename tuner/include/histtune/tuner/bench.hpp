// The benchmark matrix (README, Results): one row per workload, with
// the target it is held to, each family's bench_rows() (workload.hpp) in family order.
#pragma once

#include <vector>

#include "histtune/workload.hpp"

namespace histtune::tuner {

using histtune::BenchRow;

std::vector<BenchRow> bench_matrix();

}  // namespace histtune::tuner
