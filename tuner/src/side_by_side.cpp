#include "histtune/tuner/side_by_side.hpp"

#include <algorithm>

#include "histtune/multichannel.hpp"
#include "histtune/tuner/search.hpp"

namespace histtune::tuner {

SideBySide side_by_side(Bench& bench, const Point& a, const Point& b,
                        const SideBySideOptions& opt) {
  SideBySide r;
  r.a.label = bench.label(a);
  r.b.label = bench.label(b);
  bench.prefetch({a, b});
  SideTiming* side[2] = {&r.a, &r.b};
  const Point* point[2] = {&a, &b};
  std::vector<double> pooled[2];
  // Round -1 is measured, verified and dropped: it takes the GPU off its idle clocks, which
  // otherwise slow whichever side goes first (22% on a 20 us kernel against itself).
  for (int round = -1; round < std::max(opt.rounds, 1); ++round) {
    if (!r.a.error.empty() && !r.b.error.empty()) break;
    for (int k = 0; k < 2; ++k) {
      const int s = round % 2 ? 1 - k : k;  // A B, then B A: neither always goes first
      if (!side[s]->error.empty()) continue;
      const Bench::Measured m = bench.measure(*point[s], opt.dist);
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

SideBySide side_by_side(const DeviceInfo& d, const Problem& p, const std::string& label_a,
                        const std::string& label_b, KernelCache& cache,
                        const SideBySideOptions& opt) {
  const std::optional<Point> a = point_of_label(label_a, p, d);
  const std::optional<Point> b = point_of_label(label_b, p, d);
  if (!a || !b) {
    // Nothing is timed: one side alone answers nothing.
    SideBySide r;
    r.a.label = label_a;
    r.b.label = label_b;
    const std::string why = "not a valid configuration of this problem on " + d.name;
    if (!a) r.a.error = why;
    if (!b) r.b.error = why;
    return r;
  }
  TuneOptions bench_opt;  // only what a bench reads: timing, distributions, seed, threads
  bench_opt.timing = opt.timing;
  bench_opt.distributions = {opt.dist};
  const std::unique_ptr<Bench> bench = p.family == multichannel::kFamily
                                           ? make_multichannel_bench(d, p, cache, bench_opt)
                                           : make_hist1d_bench(d, p, cache, bench_opt);
  return side_by_side(*bench, *a, *b, opt);
}

}  // namespace histtune::tuner
