// The evidence that the guided search is good enough: for one problem, the exhaustive search
// (every valid configuration), then annealing at each budget and seed, each measuring afresh (no
// measurement is shared between runs, only compiled kernels); then the best configuration of
// every run re-timed side by side, interleaved, so that the gap is not the exhaustive minimum's
// luck (the fastest of thousands of noisy medians is biased low). On uniform data.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

struct StrategyComparisonOptions {
  TimingOptions timing;
  // Annealing budgets; 0 stands for 15% of the valid configurations (the ceiling).
  std::vector<std::size_t> budgets = {kPlanBudget, 0};
  double screen_above = kPlanScreenAbove;  // the annealing runs screen as the plan's searches do
  int seeds = 3;                // annealing runs per budget, seeds first_seed, first_seed + 1, ...
  std::uint64_t first_seed = 1;
  int rounds = 3;               // interleaved re-timing rounds of the runs' best configurations
  int compile_threads = 0;
  std::function<void(const Progress&)> on_progress;
};

struct StrategyRun {
  std::string strategy;
  std::size_t budget = 0;  // 0: none (exhaustive)
  std::uint64_t seed = 0;
  std::size_t evaluations = 0;
  std::string best;        // label; empty when nothing verified
  double search_ms = 0;    // the best's median in the search
  double retimed_ms = 0;   // the best's median re-timed beside the others (< 0: failed)
  double gap = 0;          // retimed_ms / exhaustive's retimed_ms - 1
  double seconds = 0;      // wall time of the search
};

struct StrategyComparison {
  Problem problem;
  std::size_t valid = 0;
  StrategyRun exhaustive;
  std::vector<StrategyRun> guided;
};

// On any bench (the CPU tests use a fake one).
StrategyComparison compare_strategies_with(const Problem& p, const SearchSpace& space, Bench& bench,
                                           const StrategyComparisonOptions& opt);
// On the GPU, for the 1D family.
StrategyComparison compare_strategies(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                                      const StrategyComparisonOptions& opt);

// The table of docs/tuning.md: per problem and run, best ms, evaluations (and % of the valid
// space), the gap to exhaustive; then per budget the worst and median gap over the problems.
std::string comparison_table(const std::vector<StrategyComparison>& rows);

}  // namespace histtune::tuner
