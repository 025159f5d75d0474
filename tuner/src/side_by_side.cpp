#include "histtune/tuner/side_by_side.hpp"

#include <algorithm>

#include "histtune/tuner/search.hpp"

namespace histtune::tuner {
namespace {

// The distributions timed: opt's, or uniform when it names none (as a bench reads an empty list).
std::vector<Distribution> timed(const SideBySideOptions& opt) {
  return opt.distributions.empty() ? std::vector<Distribution>{Distribution::uniform}
                                   : opt.distributions;
}

SideBySide on_one(Bench& bench, const Point& a, const Point& b, Distribution dist, int rounds) {
  SideBySide r;
  r.dist = dist;
  r.a.label = bench.label(a);
  r.b.label = bench.label(b);
  SideTiming* side[2] = {&r.a, &r.b};
  const Point* point[2] = {&a, &b};
  std::vector<double> pooled[2];
  // Round -1 is measured, verified and dropped: it takes the GPU off its idle clocks, which
  // otherwise slow whichever side goes first (22% on a 20 us kernel against itself), and it
  // loads this distribution's inputs.
  for (int round = -1; round < std::max(rounds, 1); ++round) {
    if (!r.a.error.empty() && !r.b.error.empty()) break;
    for (int k = 0; k < 2; ++k) {
      const int s = round % 2 ? 1 - k : k;  // A B, then B A: neither always goes first
      if (!side[s]->error.empty()) continue;
      const Bench::Measured m = bench.measure(*point[s], dist);
      if (!m.verified) {
        side[s]->error = m.error.empty() ? "failed" : m.error;
        continue;
      }
      if (round >= 0)
        pooled[s].insert(pooled[s].end(), m.timing.sample_ms.begin(), m.timing.sample_ms.end());
    }
    if (round >= 0) ++r.rounds;
  }
  for (int s = 0; s < 2; ++s) {
    side[s]->timing = summarize(pooled[s]);
    side[s]->verified = side[s]->error.empty() && !pooled[s].empty();
  }
  return r;
}

}  // namespace

std::vector<SideBySide> side_by_side(Bench& bench, const Point& a, const Point& b,
                                     const SideBySideOptions& opt) {
  bench.prefetch({a, b});
  const std::vector<Distribution> dists = timed(opt);
  std::vector<SideBySide> out;
  for (Distribution dist : dists) out.push_back(on_one(bench, a, b, dist, opt.rounds));
  if (opt.again && dists.size() > 1) out.push_back(on_one(bench, a, b, dists.front(), opt.rounds));
  return out;
}

std::vector<SideBySide> side_by_side(const DeviceInfo& d, const Problem& p,
                                     const std::string& label_a, const std::string& label_b,
                                     KernelCache& cache, const SideBySideOptions& opt) {
  const std::optional<Point> a = point_of_label(label_a, p, d);
  const std::optional<Point> b = point_of_label(label_b, p, d);
  if (!a || !b) {
    // Nothing is timed: one side alone answers nothing.
    std::vector<SideBySide> out;
    const std::string why = "not a valid configuration of this problem on " + d.name;
    for (Distribution dist : timed(opt)) {
      SideBySide r;
      r.dist = dist;
      r.a.label = label_a;
      r.b.label = label_b;
      if (!a) r.a.error = why;
      if (!b) r.b.error = why;
      out.push_back(r);
    }
    return out;
  }
  TuneOptions bench_opt;  // only what a bench reads: timing, distributions, seed, threads
  bench_opt.timing = opt.timing;
  // A bench draws the inputs of the distributions it is given, and only those.
  bench_opt.distributions = timed(opt);
  const std::unique_ptr<Bench> bench = make_bench(d, p, cache, bench_opt);
  return side_by_side(*bench, *a, *b, opt);
}

}  // namespace histtune::tuner
