// A search's cost model: the log of a point's cost as a sum of one term per parameter value,
// fit (ridge least squares) to the points timed so far. The annealing search asks it before a
// move's kernel is compiled and leaves out the moves it predicts plainly behind
// (SearchBudget::screen_above). On H100 plan C's 60 problems, each searched point predicted from
// all the others put 15% of them above 3x the best: 99% of those the race had stopped early,
// none within 5% of the best (docs/tuning.md, "A cold plan").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "histtune/tuner/search.hpp"

namespace histtune::tuner {

class CostModel {
 public:
  // Points known before the model predicts, and times each of a point's values must have been
  // timed: an additive model of ~15 parameters needs a few points per value.
  static constexpr std::size_t kMinPoints = 24;
  static constexpr int kMinSeen = 2;

  // `sizes`: the values of each parameter (SearchSpace::sizes).
  explicit CostModel(std::vector<int> sizes);

  // A point timed at `cost` (ms, > 0); the model refits on the next predict().
  void add(const Point& p, double cost);
  // p's predicted cost (ms), or nullopt while fewer than kMinPoints points are known or one of
  // p's values was timed fewer than kMinSeen times (the model would only guess it).
  std::optional<double> predict(const Point& p) const;
  std::size_t points() const { return log_costs_.size(); }

 private:
  void fit() const;
  std::size_t column(std::size_t k, int v) const { return offset_[k] + static_cast<std::size_t>(v); }

  std::vector<int> sizes_;
  std::vector<std::size_t> offset_;  // parameter k's first column; the last column is the mean
  std::size_t columns_ = 0;
  std::vector<Point> points_;
  std::vector<double> log_costs_;
  std::vector<int> timed_;  // per column: how many points have that value
  mutable std::vector<double> coef_;
  mutable bool fitted_ = false;
};

}  // namespace histtune::tuner
