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

namespace {

// The members of `among` whose cost is within the band of the best of them: cost <= best *
// (1 + max(tolerance, noise[i] + noise[best])). Empty when every one failed.
std::vector<std::size_t> within_band(const std::vector<double>& cost, double tolerance,
                                     const std::vector<double>& noise,
                                     const std::vector<std::size_t>& among) {
  std::size_t best = kNone;
  for (std::size_t i : among)
    if (std::isfinite(cost[i]) && (best == kNone || cost[i] < cost[best])) best = i;
  if (best == kNone) return {};
  const auto noise_of = [&](std::size_t i) {
    return i < noise.size() && std::isfinite(noise[i]) ? std::max(noise[i], 0.0) : 0.0;
  };
  std::vector<std::size_t> out;
  for (std::size_t i : among) {
    const double band = std::max(std::max(tolerance, 0.0), noise_of(i) + noise_of(best));
    if (std::isfinite(cost[i]) && cost[i] <= cost[best] * (1.0 + band)) out.push_back(i);
  }
  return out;
}

// The preferred candidate when it is among `tied`, else the simplest of them.
std::size_t settle(const std::vector<Point>& points, const std::vector<std::size_t>& tied,
                   std::size_t preferred) {
  if (std::find(tied.begin(), tied.end(), preferred) != tied.end()) return preferred;
  std::size_t pick = kNone;
  for (std::size_t i : tied)
    if (pick == kNone || simpler(points[i], points[pick])) pick = i;
  return pick;
}

std::vector<std::size_t> all_of(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

std::size_t pick_within(const std::vector<Point>& points, const std::vector<double>& cost,
                        double tolerance, const std::vector<double>& noise, std::size_t preferred) {
  const std::size_t n = std::min(points.size(), cost.size());
  return settle(points, within_band(cost, tolerance, noise, all_of(n)), preferred);
}

std::size_t pick_simplest_within(const std::vector<Point>& points, const std::vector<double>& cost,
                                 double tolerance) {
  return pick_within(points, cost, tolerance, {}, kNone);
}

RobustChoice choose_robust(const std::vector<Point>& points,
                           const std::vector<std::vector<double>>& cost, double tolerance,
                           const DecisionNoise& noise) {
  RobustChoice out;
  const std::size_t n = points.size();
  std::size_t dists = 0;
  for (const auto& row : cost) dists = std::max(dists, row.size());
  const auto at = [&](std::size_t c, std::size_t d) {
    return c < cost.size() && d < cost[c].size() ? cost[c][d] : kFailed;
  };
  out.best.assign(dists, kFailed);
  out.per_distribution.assign(dists, kNone);
  const auto noise_at = [&](std::size_t c, std::size_t d) {
    return c < noise.noise.size() && d < noise.noise[c].size() ? noise.noise[c][d] : 0.0;
  };
  for (std::size_t d = 0; d < dists; ++d) {
    std::vector<double> column(n), column_noise(n);
    for (std::size_t c = 0; c < n; ++c) {
      column[c] = std::isfinite(at(c, d)) ? at(c, d) : kFailed;
      column_noise[c] = noise_at(c, d);
      out.best[d] = std::min(out.best[d], column[c]);
    }
    out.per_distribution[d] = pick_within(points, column, tolerance, column_noise, noise.preferred);
  }
  out.worst_ratio.assign(n, kFailed);
  // Each candidate's ratios to the bests, largest first (empty where it failed anywhere).
  std::vector<std::vector<double>> ratios(n);
  for (std::size_t c = 0; c < n && dists > 0; ++c) {
    std::vector<double> r;
    for (std::size_t d = 0; d < dists; ++d) {
      const double v = at(c, d);
      if (!std::isfinite(v) || !std::isfinite(out.best[d]) || out.best[d] <= 0) {
        // A zero best (an empty problem) makes every finite time a tie, never a failure.
        if (std::isfinite(v) && out.best[d] == 0) {
          r.push_back(1.0);
          continue;
        }
        r.clear();
        break;
      }
      r.push_back(v / out.best[d]);
    }
    if (r.empty()) continue;
    std::sort(r.rbegin(), r.rend());
    out.worst_ratio[c] = r.front();
    ratios[c] = std::move(r);
  }
  // A worst ratio is as uncertain as the noisiest of the medians it divides.
  std::vector<double> worst_noise(n, 0.0);
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t d = 0; d < dists; ++d) worst_noise[c] = std::max(worst_noise[c], noise_at(c, d));
  // Leximax: candidates tied on the worst ratio are told apart by the next worst, and so on; the
  // worst alone hides the rest (H100, f32 65536 bins: a run kept a configuration 20% behind on
  // constant data because every candidate was 17-20% behind the specialist on runs).
  std::vector<std::size_t> tied = all_of(n);
  for (std::size_t k = 0; k < dists && tied.size() > 1; ++k) {
    std::vector<double> level(n, kFailed);
    for (std::size_t c : tied)
      if (k < ratios[c].size()) level[c] = ratios[c][k];
    tied = within_band(level, tolerance, worst_noise, tied);
  }
  if (dists == 0) tied.clear();
  out.robust = settle(points, tied, noise.preferred);
  return out;
}

}  // namespace histtune::tuner
