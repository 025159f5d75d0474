// The parts search.cpp, climbs.cpp and space.cpp share: the bookkeeping of one search (budget,
// time, history), the restrictions asked lazily, the first-improvement climb and the one-step
// moves on the grid.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "histtune/tuner/search.hpp"

namespace histtune::tuner::detail {

using Clock = std::chrono::steady_clock;

// Budget and time bookkeeping shared by the strategies; evaluate() is the only way to call the
// objective, so every strategy stops the same way and records the same history.
class Run {
 public:
  Run(const Objective& f, const SearchBudget& b, SearchResult& r)
      : f_(f), b_(b), r_(r), start_(Clock::now()) {}

  bool exhausted() {
    if (b_.max_evaluations && r_.evaluations >= b_.max_evaluations) {
      r_.stopped_by_budget = true;
      return true;
    }
    if (b_.time_limit_s > 0 &&
        std::chrono::duration<double>(Clock::now() - start_).count() >= b_.time_limit_s) {
      r_.stopped_by_time = true;
      return true;
    }
    return false;
  }

  std::optional<double> evaluate(const Point& p) {
    auto it = seen_.find(p);
    if (it != seen_.end()) return it->second;
    std::optional<double> c = f_(p);
    if (c && !std::isfinite(*c)) c.reset();
    ++r_.evaluations;
    r_.history.emplace_back(p, c);
    seen_.emplace(p, c);
    if (c && (r_.best.empty() || *c < r_.best_cost)) {
      r_.best = p;
      r_.best_cost = *c;
    }
    return c;
  }

  // A point the cost model leaves out: it uses an evaluation and is never timed (to the
  // climbs that meet it later, a point that failed).
  void screen(const Point& p) {
    if (!seen_.emplace(p, std::nullopt).second) return;
    ++r_.evaluations;
    ++r_.screened;
  }

  bool seen(const Point& p) const { return seen_.count(p) != 0; }

 private:
  const Objective& f_;
  SearchBudget b_;
  SearchResult& r_;
  Clock::time_point start_;
  std::map<Point, std::optional<double>> seen_;
};

// The restrictions asked point by point, each answer kept: a budgeted search visits a few
// hundred points of a grid of millions (1D family: ~27,000 valid of 22 M), so it draws random
// valid points by rejection instead of enumerating the grid first (3 s per problem, most of the
// search's own time). The grid is enumerated only when a search needs all of it: no budget (a
// tenth of the space), or rejection failing in a sparse corner.
class LazyValid {
 public:
  explicit LazyValid(const SearchSpace& space) : space_(space) {}

  bool operator()(const Point& q) {
    if (q.size() != space_.sizes.size()) return false;
    for (std::size_t k = 0; k < q.size(); ++k)
      if (q[k] < 0 || q[k] >= space_.sizes[k]) return false;
    if (!space_.valid) return true;
    const auto it = memo_.find(q);
    if (it != memo_.end()) return it->second;
    return memo_.emplace(q, space_.valid(q)).first->second;
  }

  // A uniformly random valid point accepted by `take`, or nullopt when there is none.
  template <class Take>
  std::optional<Point> random(std::mt19937_64& rng, const Take& take) {
    // Expected tries: grid / valid (~820 for the 1D family); 100x that before enumerating.
    if (space_.sizes.empty() ||
        std::any_of(space_.sizes.begin(), space_.sizes.end(), [](int n) { return n <= 0; }))
      return std::nullopt;  // an empty grid
    if (!all_) {
      Point q(space_.sizes.size());
      for (int t = 0; t < kTries; ++t) {
        for (std::size_t k = 0; k < q.size(); ++k)
          q[k] = static_cast<int>(rng() % static_cast<std::uint64_t>(space_.sizes[k]));
        // not memoised: random grid points seldom repeat
        if ((!space_.valid || space_.valid(q)) && take(q)) return q;
      }
    }
    const std::vector<Point>& pts = all();
    for (int t = 0; t < 64 && !pts.empty(); ++t) {
      const Point& q = pts[rng() % pts.size()];
      if (take(q)) return q;
    }
    for (const auto& q : pts)
      if (take(q)) return q;
    return std::nullopt;
  }

  // Every valid point, enumerated once; `invalid` (when given) gets the grid points removed.
  const std::vector<Point>& all(std::size_t* invalid = nullptr) {
    if (!all_) all_ = valid_points(space_, &invalid_);
    if (invalid) *invalid = invalid_;
    return *all_;
  }

 private:
  static constexpr int kTries = 100000;
  const SearchSpace& space_;
  std::map<Point, bool> memo_;
  std::optional<std::vector<Point>> all_;
  std::size_t invalid_ = 0;
};

// First-improvement hill climb over the untried neighbours of the best point of `r`, announced
// to `plan` before they are timed, until a local optimum or done(); the move that led to the
// centre (from `came_from` at first) is tried first (climbs.cpp).
void climb(const SearchSpace& space, const std::function<bool(const Point&)>& valid, Run& run,
           SearchResult& r, std::mt19937_64& rng,
           const std::function<void(const std::vector<Point>&)>& plan,
           const std::function<bool()>& done, Point came_from = {});

// The coupled pair's first parameter one rung in direction dir and its second one rung the other
// way, or nullopt past either end (space.cpp).
std::optional<Point> coupled_step(const SearchSpace& space, const Point& from,
                                  const std::pair<std::size_t, std::size_t>& pair, int dir);

// The points one step away from centre (neighbours() in search.hpp), on the grid, that `keep`
// accepts: each parameter one rung down and up, then each coupled pair both ways.
template <class Keep>
std::vector<Point> one_step(const SearchSpace& space, const Point& centre, const Keep& keep) {
  std::vector<Point> out;
  for (std::size_t k = 0; k < centre.size() && k < space.sizes.size(); ++k)
    for (int dir : {-1, 1}) {
      Point q = centre;
      q[k] = rung_step(space, k, centre[k], dir);
      if (q[k] >= 0 && keep(q)) out.push_back(q);
    }
  for (const auto& pair : space.coupled)
    for (int dir : {1, -1})
      if (const auto q = coupled_step(space, centre, pair, dir); q && keep(*q)) out.push_back(*q);
  return out;
}

}  // namespace histtune::tuner::detail
