// What a kernel family is measured on and against, declared by the family itself (its traits'
// plan_problems(), bench_rows() and kBaseline; family.hpp): the distributions of bins the tuner
// draws inputs from, the rows of `histtune bench` and the peer each row is compared with. The
// tuner draws, times and compares (tuner/inputs.hpp, bench.hpp, compare.hpp); nothing here runs.
#pragma once

#include <optional>
#include <string>

#include "histtune/problem.hpp"

namespace histtune {

// The benchmark distributions of bins, and one for correctness tests:
//   uniform   independent uniform bins (the hard case for shared-memory atomics: random banks)
//   skewed    exponential, most mass in the lowest ~5% of bins (hot bins, contention)
//   constant  every sample in one bin (worst-case contention)
//   runs      slowly varying values with small noise: long runs of equal neighbours (image-like)
//   mixed     uniform over a range wider than the bins' (direct: ~1% >= num_bins; even: 5% below
//             lower and above upper; f32: 0.1% NaN), so every rejection path is exercised
enum class Distribution { uniform, skewed, constant, runs, mixed };
const char* to_string(Distribution d);
std::optional<Distribution> parse_distribution(const std::string& name);

// The peer a family's problems are compared with in `compare` and `bench` (the tuner builds it).
enum class Baseline {
  none,                 // no peer: the CUB column says so
  cub_histogram,        // CUB's HistogramEven (direct: even over [0, bins)) or HistogramRange
  cub_multi_histogram,  // CUB's MultiHistogramEven / MultiHistogramRange of interleaved channels
};

// One row of the benchmark matrix (README, Results): a workload and the
// target it is held to. Rows a family cannot express yet stay in the matrix, marked so.
struct BenchRow {
  std::string id;  // "u8-256-2^28-uniform"
  Problem problem;
  Distribution dist = Distribution::uniform;
  std::string target;                     // as the issue states it
  std::optional<double> min_floor_pct;    // target as % of floor, when it is one
  std::optional<double> max_us;           // target as microseconds per call, when it is one
  std::optional<double> min_cub_speedup;  // target as times faster than CUB, when it is one
  std::string unsupported;                // non-empty: no family expresses this row yet (why)
  std::string skip_cub;                   // non-empty: why CUB is not run on this row
  int graph_calls = 0;  // > 0: timed per call in replays of a CUDA graph of that many calls
};

// A row of a family CUB has no counterpart of (`no_cub` says so), held to `target`, which is a
// share of the floor where floor_pct is given.
BenchRow row_without_cub(std::string id, Problem p, std::string target,
                         std::optional<double> floor_pct, std::string no_cub);

}  // namespace histtune
