// The climbs: the first-improvement climb the strategies end with, hill_climb (a short local
// search from known good points) and worst_case_climb (the compromise over the distributions).
#include <algorithm>
#include <limits>

#include "search_internal.hpp"

namespace histtune::tuner {

using detail::LazyValid;
using detail::Run;

// First-improvement hill climb over the untried neighbours (one parameter one step away) of the
// best point, announced to `plan` before they are timed; stops at a local optimum or when done().
// The move that led to the centre (from `came_from` at first) is tried again first: a step that
// paid often pays again (f32 2^20 bins on constant data: threads per SM 1,024 -> 512 -> 256,
// each step ~30% faster), and a climb of 16 evaluations that tries neighbours in random order
// stopped one such step short (H100 plan i: 89.6 us on constant data against 56.5 us two steps
// on).
void detail::climb(const SearchSpace& space, const std::function<bool(const Point&)>& valid,
                   Run& run, SearchResult& r, std::mt19937_64& rng,
                   const std::function<void(const std::vector<Point>&)>& plan,
                   const std::function<bool()>& done, Point came_from) {
  bool improved = true;
  while (improved && !done() && !r.best.empty()) {
    improved = false;
    const Point centre = r.best;
    std::vector<Point> around = detail::one_step(space, centre, [&](const Point& q) {
      return !run.seen(q) && valid(q);
    });
    std::shuffle(around.begin(), around.end(), rng);
    if (const auto again = repeat_move(space, came_from, centre))
      if (const auto it = std::find(around.begin(), around.end(), *again); it != around.end())
        std::rotate(around.begin(), it, it + 1);
    if (plan && !around.empty()) plan(around);
    for (const auto& q : around) {
      if (done()) break;
      run.evaluate(q);
      if (r.best != centre) {
        came_from = centre;
        improved = true;
        break;
      }
    }
  }
}

SearchResult hill_climb(const SearchSpace& space, const Objective& f,
                        const std::vector<Point>& starts, const SearchBudget& b,
                        std::uint64_t seed,
                        const std::function<void(const std::vector<Point>&)>& plan,
                        const Point& came_from) {
  // The restrictions are asked point by point (LazyValid, never its all()): a short climb should
  // not pay for enumerating the grid (valid_points and invalid_skipped stay 0).
  SearchResult r;
  LazyValid valid(space);
  std::mt19937_64 rng(seed);
  Run run(f, b, r);
  std::vector<Point> first;
  for (const auto& p : starts)
    if (valid(p) && std::find(first.begin(), first.end(), p) == first.end()) first.push_back(p);
  if (plan && !first.empty()) plan(first);
  for (const auto& p : first) {
    if (run.exhausted()) break;
    run.evaluate(p);
  }
  detail::climb(space, [&valid](const Point& q) { return valid(q); }, run, r, rng, plan,
        [&] { return run.exhausted(); }, came_from);
  return r;
}

double worst_ratio(const std::vector<double>& cost,
                   const std::function<double(std::size_t)>& best_on) {
  double w = 0;
  for (std::size_t d = 0; d < cost.size(); ++d) {
    if (!std::isfinite(cost[d])) return std::numeric_limits<double>::infinity();
    const double b = best_on(d);
    w = std::max(w, b > 0 ? cost[d] / b : 1.0);  // zero best: an empty problem
  }
  return w;
}

std::vector<Point> worst_case_climb(const SearchSpace& space, std::size_t distributions,
                                    const DistributionObjective& cost,
                                    const std::function<double(std::size_t)>& best_on,
                                    const Point& start, double tolerance, std::size_t max_steps,
                                    const std::function<void(const std::vector<Point>&)>& plan,
                                    const std::function<bool(const Point&)>& joins) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // Ratios are taken afresh at each comparison: every point timed may lower a distribution's
  // best, and with it raise every other point's ratio there (a centre that was the best known on
  // constant data is 20% behind once its neighbour with warp aggregation is timed).
  const auto ratio = [&](std::size_t d, double c) {
    const double b = best_on(d);
    return !std::isfinite(c) ? kNever : b > 0 ? c / b : 1.0;  // zero best: an empty problem
  };
  const auto at = [&](std::size_t d, const Point& q) {
    const std::optional<double> c = cost(d, q);
    return c ? *c : kNever;
  };
  const auto worst = [&](const std::vector<double>& c) { return worst_ratio(c, best_on); };
  std::vector<Point> path{start};
  if (distributions == 0) return path;
  while (path.size() <= max_steps) {
    const Point& centre = path.back();
    std::vector<double> centre_cost(distributions);
    for (std::size_t d = 0; d < distributions; ++d) centre_cost[d] = at(d, centre);
    if (!std::isfinite(worst(centre_cost))) break;
    // The centre's distributions, worst first: a neighbour is judged where it can lose soonest.
    std::vector<std::size_t> order(distributions);
    for (std::size_t d = 0; d < distributions; ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return ratio(a, centre_cost[a]) > ratio(b, centre_cost[b]);
    });
    const std::vector<Point> around = neighbours(space, centre);
    if (plan && !around.empty()) plan(around);
    std::optional<Point> next;
    std::vector<double> next_cost;
    for (const Point& q : around) {
      // No faster on the centre's worst distribution: its worst ratio cannot be lower.
      std::vector<double> q_cost(distributions, kNever);
      q_cost[order[0]] = at(order[0], q);
      if (!(q_cost[order[0]] < centre_cost[order[0]])) continue;
      const double bound = worst(next ? next_cost : centre_cost);
      bool can_win = true;
      for (std::size_t i = 1; i < distributions && can_win; ++i) {
        q_cost[order[i]] = at(order[i], q);
        can_win = ratio(order[i], q_cost[order[i]]) < bound;
      }
      if (can_win && worst(q_cost) < worst(next ? next_cost : centre_cost)) {
        next = q;
        next_cost = q_cost;
      }
    }
    if (!next || worst(next_cost) * (1.0 + std::max(tolerance, 0.0)) >= worst(centre_cost)) break;
    path.push_back(*next);
    if (joins && joins(path.back())) break;
  }
  return path;
}

}  // namespace histtune::tuner
