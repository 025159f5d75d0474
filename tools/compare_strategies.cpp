// `histtune tune --compare-strategies`: how close the guided search comes to the exhaustive one,
// problem by problem, on uniform data (docs/tuning.md); stores only compiled kernels.
#include <chrono>
#include <cstdio>

#include "histtune/tuner/strategy_evidence.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "tune.hpp"

namespace histtune::cli {
namespace {

nlohmann::json run_json(const tuner::StrategyRun& r) {
  return {{"strategy", r.strategy},
          {"budget", r.budget ? nlohmann::json(r.budget) : nlohmann::json()},
          {"seed", r.seed},
          {"evaluations", r.evaluations},
          {"best", r.best.empty() ? nlohmann::json() : nlohmann::json(r.best)},
          {"search_ms", r.search_ms},
          {"retimed_ms", ms_or_null(r.retimed_ms)},
          {"gap", r.strategy == "exhaustive" || r.retimed_ms < 0 ? nlohmann::json()
                                                                 : nlohmann::json(r.gap)},
          {"seconds", r.seconds}};
}

nlohmann::json comparison_json(const tuner::StrategyComparison& c) {
  nlohmann::json guided = nlohmann::json::array();
  for (const auto& r : c.guided) guided.push_back(run_json(r));
  return {{"problem", problem_json(c.problem.key())},
          {"valid", c.valid},
          {"exhaustive", run_json(c.exhaustive)},
          {"annealing", guided}};
}

}  // namespace

int run_compare_strategies(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
                           const DeviceInfo& d, db::Database& database, std::FILE* text) {
  KernelCache cache;
  cache.set_store(&database);  // the exhaustive run fills it; the guided runs then compile nothing
  tuner::StrategyComparisonOptions opt;
  if (f.budget) opt.budgets = {*f.budget};
  opt.seeds = f.compare_seeds;
  opt.screen_above = f.screen_above;  // --screen-above, as the plan takes it
  opt.first_seed = f.seed;
  if (!c.quiet)
    std::fprintf(text,
                 "histtune: guided vs exhaustive search on GPU %d, %s, %zu problems (uniform data; "
                 "%d annealing seeds per budget); nothing but compiled kernels is stored\n",
                 d.ordinal, d.name.c_str(), plan.size(), opt.seeds);
  nlohmann::json rows = nlohmann::json::array();
  std::vector<tuner::StrategyComparison> done;
  const auto t_all = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Problem& p = plan[i];
    if (!c.quiet) std::fprintf(text, "[%zu/%zu] %s\n", i + 1, plan.size(), p.describe().c_str());
    ProgressLine progress(c.quiet, text);
    const auto t0 = std::chrono::steady_clock::now();
    opt.on_progress = [&](const tuner::Progress& pr) {
      progress.update(pr.label, pr.done, pr.total, seconds_since(t0));
    };
    tuner::StrategyComparison cmp = tuner::compare_strategies(d, p, cache, opt);
    progress.finish("  " + std::to_string(cmp.exhaustive.evaluations) + " exhaustive evaluations, " +
                    std::to_string(cmp.guided.size()) + " guided runs, " +
                    std::to_string(static_cast<int>(seconds_since(t0))) + " s");
    done.push_back(cmp);
    rows.push_back(comparison_json(cmp));
  }
  const std::string table = tuner::comparison_table(done);
  std::fprintf(c.json ? stderr : stdout, "%s", table.c_str());
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "tune --compare-strategies"},
                {"device", device_json(d)},
                {"rows", rows},
                {"seconds", seconds_since(t_all)},
                {"ok", true}});
  return kOk;
}

}  // namespace histtune::cli
