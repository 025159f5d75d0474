#include "histtune/tuner/decide.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

std::optional<double> difference_percent(double a_ms, double b_ms) {
  if (!(a_ms > 0) || !(b_ms > 0)) return std::nullopt;
  return 100.0 * (b_ms - a_ms) / std::min(a_ms, b_ms);
}

std::optional<double> pairwise_worst_ratio(const std::vector<double>& x_ms,
                                           const std::vector<double>& other_ms) {
  if (x_ms.empty() || x_ms.size() != other_ms.size()) return std::nullopt;
  double worst = 0;
  for (std::size_t d = 0; d < x_ms.size(); ++d) {
    if (!(x_ms[d] > 0) || !(other_ms[d] > 0)) return std::nullopt;
    worst = std::max(worst, x_ms[d] / std::min(x_ms[d], other_ms[d]));
  }
  return worst;
}

std::optional<double> worst_case_difference_percent(const std::vector<double>& a_ms,
                                                    const std::vector<double>& b_ms) {
  const auto w_a = pairwise_worst_ratio(a_ms, b_ms), w_b = pairwise_worst_ratio(b_ms, a_ms);
  if (!w_a || !w_b) return std::nullopt;
  // Where one winner is at least as fast on every distribution (always so with one), its ratio
  // is exactly 1 and the formula reduces to difference_percent of both times on the other's
  // worst distribution; taken from those times it has no rounding of the ratios, so one
  // distribution gives difference_percent to the last bit.
  const auto worst_at = [](const std::vector<double>& x, const std::vector<double>& other) {
    std::size_t at = 0;
    for (std::size_t d = 1; d < x.size(); ++d)
      if (x[d] / std::min(x[d], other[d]) > x[at] / std::min(x[at], other[at])) at = d;
    return at;
  };
  if (*w_a == 1) {
    const std::size_t d = worst_at(b_ms, a_ms);
    return difference_percent(a_ms[d], b_ms[d]);
  }
  if (*w_b == 1) {
    const std::size_t d = worst_at(a_ms, b_ms);
    return difference_percent(a_ms[d], b_ms[d]);
  }
  return difference_percent(*w_a, *w_b);
}

RobustRule robust_rule_of(const std::string& name) {
  if (name == "pairwise") return RobustRule::pairwise;
  if (name == "leximax") return RobustRule::leximax;
  throw std::invalid_argument("unknown decision rule '" + name + "' (pairwise, leximax)");
}

const std::vector<std::string>& robust_rule_names() {
  static const std::vector<std::string> names = {"pairwise", "leximax"};
  return names;
}

const char* to_string(RobustRule rule) {
  return rule == RobustRule::pairwise ? "pairwise" : "leximax";
}

namespace {

// The members of `among` whose cost is within the band of the best of them: cost <= best *
// (1 + max(tolerance, min(noise[i] + noise[best], kNoiseBandCap))). Empty when every one failed.
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
    const double noise_band = std::min(noise_of(i) + noise_of(best), kNoiseBandCap);
    const double band = std::max(std::max(tolerance, 0.0), noise_band);
    if (std::isfinite(cost[i]) && cost[i] <= cost[best] * (1.0 + band)) out.push_back(i);
  }
  return out;
}

// The preferred candidate when it is among `tied`, else the one of fewest blocks an SM
// (`blocks_rung`, where given), else the simplest of those.
std::size_t settle(const std::vector<Point>& points, const std::vector<std::size_t>& tied,
                   std::size_t preferred, const std::vector<int>& blocks_rung = {}) {
  if (std::find(tied.begin(), tied.end(), preferred) != tied.end()) return preferred;
  const auto rung = [&](std::size_t i) { return i < blocks_rung.size() ? blocks_rung[i] : 0; };
  std::size_t pick = kNone;
  for (std::size_t i : tied)
    if (pick == kNone || rung(i) < rung(pick) ||
        (rung(i) == rung(pick) && simpler(points[i], points[pick])))
      pick = i;
  return pick;
}

std::vector<std::size_t> all_of(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

std::size_t pick_within(const std::vector<Point>& points, const std::vector<double>& cost,
                        double tolerance, const std::vector<double>& noise, std::size_t preferred,
                        const std::vector<int>& blocks_rung) {
  const std::size_t n = std::min(points.size(), cost.size());
  return settle(points, within_band(cost, tolerance, noise, all_of(n)), preferred, blocks_rung);
}

std::size_t pick_simplest_within(const std::vector<Point>& points, const std::vector<double>& cost,
                                 double tolerance) {
  return pick_within(points, cost, tolerance, {}, kNone);
}

RobustChoice choose_robust(const std::vector<Point>& points,
                           const std::vector<std::vector<double>>& cost, double tolerance,
                           const DecisionNoise& noise, RobustRule rule) {
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
    out.per_distribution[d] =
        pick_within(points, column, tolerance, column_noise, noise.preferred, noise.blocks_rung);
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
  // Regret: against each other candidate alone, how much worse this one's worst case is (0 where
  // no other beats it). Costs that are not positive (an empty problem) tie.
  out.regret.assign(n, kFailed);
  std::vector<std::vector<double>> rows(n, std::vector<double>(dists));
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t d = 0; d < dists; ++d) rows[c][d] = at(c, d);
  for (std::size_t c = 0; c < n; ++c) {
    if (ratios[c].empty()) continue;
    double regret = 0;
    for (std::size_t y = 0; y < n; ++y)
      if (y != c && !ratios[y].empty())
        regret = std::max(regret, worst_case_difference_percent(rows[y], rows[c]).value_or(0.0));
    out.regret[c] = regret;
  }
  std::vector<std::size_t> tied = all_of(n);
  if (rule == RobustRule::pairwise) {
    // On the scale of worst ratios (1 + regret), so that the band is pick_within's.
    std::vector<double> level(n, kFailed);
    for (std::size_t c = 0; c < n; ++c) level[c] = 1.0 + out.regret[c] / 100.0;
    tied = within_band(level, tolerance, worst_noise, tied);
  } else {
    // Leximax: candidates tied on the worst ratio are told apart by the next worst, and so on;
    // the worst alone hides the rest (H100, f32 65536 bins: a run kept a configuration 20% behind
    // on constant data because every candidate was 17-20% behind the specialist on runs).
    for (std::size_t k = 0; k < dists && tied.size() > 1; ++k) {
      std::vector<double> level(n, kFailed);
      for (std::size_t c : tied)
        if (k < ratios[c].size()) level[c] = ratios[c][k];
      tied = within_band(level, tolerance, worst_noise, tied);
    }
  }
  if (dists == 0) tied.clear();
  out.robust = settle(points, tied, noise.preferred, noise.blocks_rung);
  return out;
}

}  // namespace histtune::tuner
