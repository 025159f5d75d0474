#include "histtune/tuner/strategy_evidence.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "histtune/tuner/search.hpp"

namespace histtune::tuner {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

StrategyComparison compare_strategies_with(const Problem& p, const SearchSpace& space, Bench& bench,
                                           const StrategyComparisonOptions& opt) {
  StrategyComparison out;
  out.problem = p;
  const std::size_t valid = valid_points(space).size();
  out.valid = valid;
  std::vector<std::size_t> budgets;
  for (std::size_t b : opt.budgets) budgets.push_back(b ? b : std::max<std::size_t>(valid * 15 / 100, 1));
  const int seeds = std::max(opt.seeds, 1);
  const int rounds = std::max(opt.rounds, 1);

  std::size_t done = 0, total = valid;
  for (std::size_t b : budgets) total += std::min(b, valid) * static_cast<std::size_t>(seeds);
  total += (1 + budgets.size() * static_cast<std::size_t>(seeds)) * static_cast<std::size_t>(rounds);
  auto progress = [&](const std::string& what) {
    ++done;
    if (opt.on_progress) opt.on_progress(Progress{done, std::max(done, total), what});
  };
  auto objective = [&](const std::string& who) -> Objective {
    return [&, who](const Point& pt) -> std::optional<double> {
      const Bench::Measured m = bench.measure(pt, Distribution::uniform);
      progress(who + ": " + bench.label(pt));
      if (!m.verified) return std::nullopt;
      return m.timing.median_ms;
    };
  };
  auto plan = [&](const std::vector<Point>& pts) { bench.prefetch(pts); };
  std::vector<Point> bests;  // per run, exhaustive first
  auto record = [&](StrategyRun& run, const SearchResult& sr) {
    run.evaluations = sr.evaluations;
    if (!sr.best.empty()) {
      run.best = bench.label(sr.best);
      run.search_ms = sr.best_cost;
    }
    bests.push_back(sr.best);
  };

  {
    const auto t0 = std::chrono::steady_clock::now();
    out.exhaustive.strategy = "exhaustive";
    const SearchResult sr =
        make_strategy("exhaustive")->run(space, objective("exhaustive"), {}, opt.first_seed, plan);
    out.exhaustive.seconds = seconds_since(t0);
    record(out.exhaustive, sr);
  }
  for (std::size_t b : budgets) {
    for (int s = 0; s < seeds; ++s) {
      StrategyRun run;
      run.strategy = "annealing";
      run.budget = b;
      run.seed = opt.first_seed + static_cast<std::uint64_t>(s);
      const auto t0 = std::chrono::steady_clock::now();
      // Fresh measurements: the objective is the bench, not the exhaustive run's memo.
      const SearchResult sr = make_strategy("annealing")
                                  ->run(space, objective("annealing/" + std::to_string(b)),
                                        SearchBudget{b, 0, opt.screen_above}, run.seed, plan);
      run.seconds = seconds_since(t0);
      record(run, sr);
      out.guided.push_back(run);
    }
  }

  // Re-time every run's best side by side: round-robin over the distinct points, pooled samples.
  std::vector<Point> distinct;
  for (const Point& pt : bests)
    if (!pt.empty() && std::find(distinct.begin(), distinct.end(), pt) == distinct.end())
      distinct.push_back(pt);
  std::map<Point, std::vector<double>> pooled;
  std::map<Point, bool> failed;
  for (int r = 0; r < rounds; ++r) {
    for (const Point& pt : distinct) {
      if (failed[pt]) continue;
      const Bench::Measured m = bench.measure(pt, Distribution::uniform);
      progress("re-timing: " + bench.label(pt));
      if (!m.verified) {
        failed[pt] = true;
        continue;
      }
      pooled[pt].insert(pooled[pt].end(), m.timing.sample_ms.begin(), m.timing.sample_ms.end());
    }
  }
  auto retimed = [&](const Point& pt) {
    if (pt.empty() || failed[pt] || pooled[pt].empty()) return -1.0;
    return summarize(pooled[pt]).median_ms;
  };
  out.exhaustive.retimed_ms = retimed(bests[0]);
  for (std::size_t i = 0; i < out.guided.size(); ++i) {
    StrategyRun& run = out.guided[i];
    run.retimed_ms = retimed(bests[i + 1]);
    run.gap = run.retimed_ms > 0 && out.exhaustive.retimed_ms > 0
                  ? run.retimed_ms / out.exhaustive.retimed_ms - 1.0
                  : -1.0;
  }
  return out;
}

StrategyComparison compare_strategies(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                                      const StrategyComparisonOptions& opt) {
  TuneOptions t;
  t.timing = opt.timing;
  t.seed = opt.first_seed;
  t.distributions = {Distribution::uniform};
  t.compile_threads = opt.compile_threads;
  const std::unique_ptr<Bench> bench = make_bench(d, p, cache, t);
  return compare_strategies_with(p, search_space(p, d), *bench, opt);
}

std::string comparison_table(const std::vector<StrategyComparison>& rows) {
  std::string out;
  char line[512];
  auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("%-36s %-20s %10s %12s %8s %8s\n", "problem", "search", "best ms", "evaluations",
      "% space", "gap");
  std::map<std::size_t, std::vector<double>> gaps;  // per budget, the worst gap of each problem
  for (const StrategyComparison& c : rows) {
    const std::string name = c.problem.describe();
    const double v = c.valid ? static_cast<double>(c.valid) : 1.0;
    add("%-36.36s %-20s %10.4f %12zu %7.1f%% %8s\n", name.c_str(), "exhaustive",
        c.exhaustive.retimed_ms, c.exhaustive.evaluations, 100.0 * c.exhaustive.evaluations / v,
        "-");
    std::map<std::size_t, double> worst;
    for (const StrategyRun& r : c.guided) {
      char who[64], gap[32];
      std::snprintf(who, sizeof who, "annealing/%zu s%llu", r.budget,
                    static_cast<unsigned long long>(r.seed));
      if (r.gap >= 0 || r.retimed_ms > 0)
        std::snprintf(gap, sizeof gap, "%+.1f%%", 100.0 * r.gap);
      else
        std::snprintf(gap, sizeof gap, "failed");
      add("%-36s %-20s %10.4f %12zu %7.1f%% %8s\n", "", who, r.retimed_ms, r.evaluations,
          100.0 * r.evaluations / v, gap);
      const double g = r.retimed_ms > 0 ? r.gap : 1e9;
      worst[r.budget] = std::max(worst.count(r.budget) ? worst[r.budget] : -1e9, g);
    }
    for (const auto& [b, g] : worst) gaps[b].push_back(g);
  }
  for (auto& [b, g] : gaps) {
    std::sort(g.begin(), g.end());
    add("annealing/%zu over %zu problems: worst gap %+.1f%%, median of the worst per problem "
        "%+.1f%%\n",
        b, g.size(), 100.0 * g.back(), 100.0 * g[g.size() / 2]);
  }
  return out;
}

}  // namespace histtune::tuner
