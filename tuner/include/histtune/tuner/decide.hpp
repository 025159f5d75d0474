// How a winner is chosen from measured candidates, as pure functions (tested on CPU with
// synthetic numbers). Near-ties are ties: among the candidates within a tolerance band of the
// best, the simplest configuration wins, deterministically. With several input distributions the
// winner is the candidate with the best worst case.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "histtune/tuner/search.hpp"

namespace histtune::tuner {

// The simplicity order of points of a family's grid, whose parameter tables list each
// parameter's values simplest first (index 0 is the built-in default's value):
//   1. fewer parameters away from their first value;
//   2. then the smaller sum of value indices (closer to the defaults);
//   3. then the lexicographically smaller index vector (the table's first parameters decide).
// A strict total order: two different points never tie.
bool simpler(const Point& a, const Point& b);

constexpr double kFailed = std::numeric_limits<double>::infinity();
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The candidate to choose: the simplest (see simpler) of those whose cost is within `tolerance`
// of the best, i.e. cost <= best * (1 + tolerance). Costs are medians; kFailed (or any infinite
// or NaN cost) never wins. kNone when every candidate failed.
std::size_t pick_simplest_within(const std::vector<Point>& points, const std::vector<double>& cost,
                                 double tolerance);

// What a decision knows beyond the medians. Empty members: the fixed band alone, the simplest.
struct DecisionNoise {
  // noise[c][d]: the relative half-width of candidate c's median's 95% confidence interval on
  // distribution d. Two candidates are then tied where their gap is within the fixed tolerance
  // or within both intervals (the sum of their half-widths): a 3% gap between two 6 us calls
  // each known to +-2% is not a measured difference.
  std::vector<std::vector<double>> noise;
  // A candidate chosen before the simplest when it is within the band: the built-in default,
  // which every run measures, so that runs whose noise puts different points at the top of one
  // plateau still store the same one. kNone: none.
  std::size_t preferred = kNone;
};

struct RobustChoice {
  std::size_t robust = kNone;
  std::vector<std::size_t> per_distribution;  // kNone where every candidate failed
  std::vector<double> best;                    // per distribution
  std::vector<double> worst_ratio;             // per candidate; kFailed where it failed
};
// The choice over several distributions. cost[c][d] is candidate c's median on distribution d
// (kFailed where it failed or was not measured; a candidate that failed anywhere is never the
// robust winner). Each distribution's best is min over c of cost[c][d]; a candidate's ratios are
// cost[c][d] / best[d], its worst ratio the largest. The robust winner has the best worst ratio,
// ties (the band of pick_within) told apart by the next worst ratio, and so on (leximax); among
// those still tied, the preferred candidate, else the simplest. Each distribution's winner is
// pick_within over that distribution's costs.
RobustChoice choose_robust(const std::vector<Point>& points,
                           const std::vector<std::vector<double>>& cost, double tolerance,
                           const DecisionNoise& noise = {});

// pick_simplest_within with a band widened by each candidate's noise (relative CI half-widths,
// one per candidate; empty: none) and a preferred candidate (kNone: none): candidate i is within
// when cost[i] <= best * (1 + max(tolerance, noise[i] + noise[best])).
std::size_t pick_within(const std::vector<Point>& points, const std::vector<double>& cost,
                        double tolerance, const std::vector<double>& noise, std::size_t preferred);

}  // namespace histtune::tuner
