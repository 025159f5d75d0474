#include "histtune/tuner/decide.hpp"

#include <algorithm>
#include <cmath>

namespace histtune::tuner {

bool simpler(const Point& a, const Point& b) {
  const auto off = [](const Point& p) {
    return std::count_if(p.begin(), p.end(), [](int v) { return v != 0; });
  };
  const auto sum = [](const Point& p) {
    long s = 0;
    for (int v : p) s += v;
    return s;
  };
  if (off(a) != off(b)) return off(a) < off(b);
  if (sum(a) != sum(b)) return sum(a) < sum(b);
  return a < b;
}

std::size_t pick_simplest_within(const std::vector<Point>& points, const std::vector<double>& cost,
                                 double tolerance) {
  const std::size_t n = std::min(points.size(), cost.size());
  double best = kFailed;
  for (std::size_t i = 0; i < n; ++i)
    if (std::isfinite(cost[i])) best = std::min(best, cost[i]);
  if (!std::isfinite(best)) return kNone;
  const double band = best * (1.0 + std::max(tolerance, 0.0));
  std::size_t pick = kNone;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(cost[i]) || cost[i] > band) continue;
    if (pick == kNone || simpler(points[i], points[pick])) pick = i;
  }
  return pick;
}

RobustChoice choose_robust(const std::vector<Point>& points,
                           const std::vector<std::vector<double>>& cost, double tolerance) {
  RobustChoice out;
  const std::size_t n = points.size();
  std::size_t dists = 0;
  for (const auto& row : cost) dists = std::max(dists, row.size());
  const auto at = [&](std::size_t c, std::size_t d) {
    return c < cost.size() && d < cost[c].size() ? cost[c][d] : kFailed;
  };
  out.best.assign(dists, kFailed);
  out.per_distribution.assign(dists, kNone);
  for (std::size_t d = 0; d < dists; ++d) {
    std::vector<double> column(n);
    for (std::size_t c = 0; c < n; ++c) {
      column[c] = std::isfinite(at(c, d)) ? at(c, d) : kFailed;
      out.best[d] = std::min(out.best[d], column[c]);
    }
    out.per_distribution[d] = pick_simplest_within(points, column, tolerance);
  }
  out.worst_ratio.assign(n, kFailed);
  for (std::size_t c = 0; c < n && dists > 0; ++c) {
    double worst = 0;
    for (std::size_t d = 0; d < dists; ++d) {
      const double v = at(c, d);
      if (!std::isfinite(v) || !std::isfinite(out.best[d]) || out.best[d] <= 0) {
        // A zero best (an empty problem) makes every finite time a tie, never a failure.
        if (std::isfinite(v) && out.best[d] == 0) continue;
        worst = kFailed;
        break;
      }
      worst = std::max(worst, v / out.best[d]);
    }
    out.worst_ratio[c] = worst;
  }
  out.robust = pick_simplest_within(points, out.worst_ratio, tolerance);
  return out;
}

}  // namespace histtune::tuner
