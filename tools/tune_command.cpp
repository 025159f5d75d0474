// `histtune tune` (the default action): tunes the default plan, or the given problems, on one
// GPU and records every measurement and the winners; with --compare-strategies, measures how
// close the guided search comes to the exhaustive one instead (docs/tuning.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <cstdio>
#include <cstring>

#include "commands.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/strategy_evidence.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"

namespace histtune::cli {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

nlohmann::json ms_or_null(double ms) { return ms >= 0 ? nlohmann::json(ms) : nlohmann::json(); }

int run_compare_strategies(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
                           const DeviceInfo& d, db::Database& database, std::FILE* text);
}  // namespace

int run_tune(const Common& c, const std::vector<std::string>& problem_specs, const TuneFlags& f) {
  std::vector<Problem> plan;
  for (const auto& s : problem_specs) plan.push_back(parse_problem(s));
  if (plan.empty()) plan = tuner::default_plan();
  const std::vector<tuner::Distribution> dists = parse_distributions(f.distributions);

  const DeviceInfo d = select_device(c);
  auto database = open_db(c);
  std::FILE* text = text_stream(c);  // stderr under --json: stdout carries the document
  if (f.compare_strategies) return run_compare_strategies(c, plan, f, d, *database, text);

  // The search budget: --budget when given (0: none), else the plan's for the guided search and
  // none for the listed strategies.
  const std::size_t budget =
      f.budget ? *f.budget : (f.strategy == "annealing" ? tuner::kPlanBudget : 0);
  if (!c.quiet)
    std::fprintf(text,
                 "histtune: tuning %zu problems on GPU %d, %s (sm_%d, %d SMs), database %s\n"
                 "  search: %s, %s per problem; data: %s; decision: %s%s\n",
                 plan.size(), d.ordinal, d.name.c_str(), d.arch(), d.sm_count,
                 database->path().c_str(), f.strategy.c_str(),
                 budget ? (std::to_string(budget) + " evaluations").c_str() : "no budget",
                 distribution_list(dists).c_str(), f.decision.c_str(),
                 f.fresh ? "; --fresh: stored measurements are not reused" : "");

  KernelCache cache;
  cache.set_store(database.get());  // compiled kernels persist: a re-run compiles nothing
  int status = kOk;
  struct Stability {
    std::string problem, previous;
    double previous_then_ms, previous_now_ms;
    std::string winner;
    double winner_ms, apart;
  };
  std::vector<Stability> stability;  // --fresh over stored winners
  std::vector<db::WinnerRow> chosen;  // winners of this run (robust first), for later starts
  std::size_t compiled = 0;  // kernels this run needed that were not loaded yet
  nlohmann::json results = nlohmann::json::array();
  const auto t_all = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Problem& p = plan[i];
    if (!c.quiet) {
      // The plan's ETA assumes the problems left take as long as the ones done on average.
      const double elapsed = seconds_since(t_all);
      if (i == 0)
        std::fprintf(text, "[%zu/%zu] %s\n", i + 1, plan.size(), p.describe().c_str());
      else
        std::fprintf(text, "[%zu/%zu] %s  (%.0f s elapsed, plan eta %.0f s)\n", i + 1,
                     plan.size(), p.describe().c_str(), elapsed,
                     elapsed / static_cast<double>(i) * static_cast<double>(plan.size() - i));
    }
    // A problem whose winner this kernel template already chose is done: running the command
    // again after an interruption goes on with the problems left (--fresh tunes it again).
    if (!f.fresh) {
      const auto w = database->winner(d.uuid, p.key());
      if (w && w->template_hash == tuner::template_hash_of(p)) {
        if (!(c.quiet && c.json))
          std::fprintf(text, "  already tuned: winner %s  %s ms (--fresh tunes it again)\n",
                       w->config_label.c_str(), fmt_ms(w->median_ms).c_str());
        results.push_back({{"problem", problem_json(p.key())},
                           {"winner", w->config_label},
                           {"winner_ms", w->median_ms},
                           {"skipped", true}});
        continue;
      }
    }
    // --verbose prints a line per measurement instead of the bar.
    ProgressLine progress(c.quiet || c.verbose, text);
    const auto t0 = std::chrono::steady_clock::now();
    tuner::TuneOptions opt;
    opt.strategy = f.strategy;
    opt.budget = tuner::SearchBudget{budget, f.time_limit_s};
    opt.seed = f.seed;
    opt.distributions = dists;
    opt.finalists = f.finalists;
    opt.decision = tuner::robust_rule_of(f.decision);
    opt.on_progress = [&](const tuner::Progress& pr) {
      progress.update(pr.label, pr.done, pr.total, seconds_since(t0));
    };
    // Starts: the winners of similar problems; with --fresh only this run's, as in a first run.
    if (f.strategy == "annealing")
      opt.starts = f.fresh ? tuner::tuning_starts(chosen, d, p) : tuner::tuning_starts(*database, d, p);
    opt.on_measurement = [&](const db::MeasurementRow& m) {
      if (c.verbose && !c.quiet)
        std::fprintf(text, "  %-8s %-60s %s ms (%s..%s, %d samples)%s\n", m.distribution.c_str(),
                     m.config_label.c_str(), fmt_ms(m.median_ms).c_str(),
                     fmt_ms(m.min_ms).c_str(), fmt_ms(m.max_ms).c_str(), m.samples,
                     m.verified ? "" : "  WRONG RESULT");
    };
    // Resume: what an earlier (interrupted) run measured with this template is reused (unless
    // --fresh); each new measurement is stored as soon as it is taken, in its own transaction.
    tuner::resume_from(*database, d.row(), p, tuner::template_hash_of(p), opt);
    // --fresh: the stored winner (of an earlier run) is re-timed beside the new candidates, not
    // chosen: how far apart two runs' winners are, measured side by side.
    std::optional<db::WinnerRow> previous;
    if (f.fresh) {
      opt.known.clear();
      previous = database->winner(d.uuid, p.key());
      if (previous) {
        if (auto pt = tuner::point_of_label(previous->config_label, p, d))
          opt.references.push_back(*pt);
        else
          previous.reset();
      }
    }
    tuner::TuneResult r = tuner::tune(d, p, cache, opt);
    tuner::store(*database, d, r, /*measurements=*/false);
    if (!r.winner.empty()) {
      db::WinnerRow w;
      w.problem = p.key();
      w.config_label = r.winner;
      chosen.push_back(w);
      for (const auto& dw : r.by_distribution) {
        w.config_label = dw.label;
        chosen.push_back(w);
      }
    }
    compiled += r.compiled;
    const double seconds = seconds_since(t0);
    char line[704];
    char worst[64] = "";
    if (dists.size() > 1 && !r.winner.empty())
      std::snprintf(worst, sizeof worst, ", worst case %.2fx over %zu distributions",
                    r.winner_worst_ratio, dists.size());
    // A budgeted annealing search draws valid points without counting the space (valid 0).
    char searched[160];
    if (r.valid)
      std::snprintf(searched, sizeof searched, "%zu of %zu valid searched", r.search_evaluations,
                    r.valid);
    else
      std::snprintf(searched, sizeof searched, "%zu searched", r.search_evaluations);
    if (!r.second_search.empty())
      std::snprintf(searched + std::strlen(searched), sizeof searched - std::strlen(searched),
                    ", %zu more on %s", r.second_search_evaluations, r.second_search.c_str());
    char pruned[48] = "";
    if (r.valid) std::snprintf(pruned, sizeof pruned, "%zu pruned, ", r.pruned);
    std::snprintf(line, sizeof line,
                  "  winner %s  %s ms%s  (%s: %s; %zu measured, %zu reused from the database, "
                  "%s%zu failed, %.1f s)",
                  r.winner.empty() ? "(none)" : r.winner.c_str(), fmt_ms(r.winner_ms).c_str(),
                  worst, r.strategy.c_str(), searched, r.measurements.size(), r.reused, pruned,
                  r.failed, seconds);
    if (!c.quiet && !c.verbose)
      progress.finish(line);  // replaces the bar
    else if (!(c.quiet && c.json))
      std::fprintf(text, "%s\n", line);
    if (c.verbose && !c.quiet)
      for (const auto& w : r.by_distribution)
        std::fprintf(text, "  best on %-8s %s  %s ms\n", w.distribution.c_str(), w.label.c_str(),
                     fmt_ms(w.median_ms).c_str());
    nlohmann::json previous_json;
    if (previous && !r.references.empty() && !r.winner.empty()) {
      const double then_ms = previous->median_ms;
      const double now_ms = r.references[0].median_ms.empty() ? -1 : r.references[0].median_ms[0];
      const double apart = now_ms > 0 ? std::fabs(now_ms - r.winner_ms) / std::min(now_ms, r.winner_ms) : -1;
      if (!(c.quiet && c.json))
        std::fprintf(text, "  previous winner %s: %s ms when chosen, %s ms now; %s\n",
                     previous->config_label.c_str(), fmt_ms(then_ms).c_str(),
                     fmt_ms(now_ms).c_str(),
                     apart < 0 ? "failed now"
                               : (std::to_string(apart * 100).substr(0, 4) + "% from this winner").c_str());
      stability.push_back({p.describe(), previous->config_label, then_ms, now_ms, r.winner, r.winner_ms, apart});
      previous_json = {{"winner", previous->config_label},
                       {"winner_ms_then", then_ms},
                       {"winner_ms_now", ms_or_null(now_ms)},
                       {"apart", apart >= 0 ? nlohmann::json(apart) : nlohmann::json()}};
    }
    for (const auto& e : r.errors) std::fprintf(stderr, "  failed: %s\n", e.c_str());
    if (r.failed || r.winner.empty()) status = kFailure;
    nlohmann::json by_distribution = nlohmann::json::array();
    for (const auto& w : r.by_distribution)
      by_distribution.push_back(
          {{"distribution", w.distribution}, {"winner", w.label}, {"winner_ms", w.median_ms}});
    nlohmann::json finalists = nlohmann::json::array();
    for (const auto& fin : r.finalists) {
      nlohmann::json per = nlohmann::json::object();
      for (std::size_t k = 0; k < fin.median_ms.size() && k < r.distributions.size(); ++k)
        per[r.distributions[k]] = ms_or_null(fin.median_ms[k]);
      finalists.push_back({{"configuration", fin.label},
                           {"median_ms", per},
                           {"worst_ratio", std::isfinite(fin.worst_ratio)
                                               ? nlohmann::json(fin.worst_ratio)
                                               : nlohmann::json()},
                           {"regret_percent", std::isfinite(fin.regret) ? nlohmann::json(fin.regret)
                                                                        : nlohmann::json()}});
    }
    results.push_back({{"problem", problem_json(p.key())},
                       {"winner", r.winner.empty() ? nlohmann::json() : nlohmann::json(r.winner)},
                       {"winner_ms", r.winner.empty() ? nlohmann::json() : nlohmann::json(r.winner_ms)},
                       {"worst_ratio", r.winner.empty() ? nlohmann::json()
                                                        : nlohmann::json(r.winner_worst_ratio)},
                       {"by_distribution", by_distribution},
                       {"finalists", finalists},
                       {"distributions", r.distributions},
                       {"strategy", r.strategy},
                       {"decision", f.decision},
                       {"budget", budget},
                       {"valid", r.valid ? nlohmann::json(r.valid) : nlohmann::json()},
                       {"searched", r.search_evaluations},
                       {"second_search",
                        r.second_search.empty()
                            ? nlohmann::json()
                            : nlohmann::json{{"distribution", r.second_search},
                                             {"searched", r.second_search_evaluations}}},
                       {"measured", r.measurements.size()},
                       {"reused", r.reused},
                       {"pruned", r.valid ? nlohmann::json(r.pruned) : nlohmann::json()},
                       {"failed", r.failed},
                       {"stopped_early", r.stopped_early},
                       {"errors", r.errors},
                       {"previous", previous_json},
                       {"skipped", false},
                       {"seconds", seconds}});
  }
  const double seconds = seconds_since(t_all);
  double most_apart = -1;
  for (const auto& s : stability) most_apart = std::max(most_apart, s.apart < 0 ? 1e9 : s.apart);
  if (!stability.empty() && !c.quiet) {
    // The winner-stability figure: the earlier run's winner and this run's, timed side by side.
    std::fprintf(text, "\nwinner stability (earlier run's winner vs this run's, re-timed together):\n");
    std::fprintf(text, "%-44s %10s %10s %10s %8s\n", "problem", "then ms", "now ms", "new ms",
                 "apart");
    for (const auto& s : stability) {
      std::fprintf(text, "%-44.44s %10s %10s %10s %7.2f%%%s\n", s.problem.c_str(),
                   fmt_ms(s.previous_then_ms).c_str(), fmt_ms(s.previous_now_ms).c_str(),
                   fmt_ms(s.winner_ms).c_str(), s.apart * 100,
                   s.previous == s.winner ? "  (same configuration)" : "");
    }
    std::fprintf(text, "at most %.2f%% apart over %zu problems\n", most_apart * 100,
                 stability.size());
  }
  if (!c.quiet)
    std::fprintf(text,
                 "histtune: done in %.1f s; %zu kernels needed, %zu compiled by NVRTC, %zu from "
                 "the database's CUBIN store; results in %s\n",
                 seconds, compiled, cache.compiles(), cache.store_hits(),
                 database->path().c_str());
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "tune"},
                {"device", device_json(d)},
                {"database", database->path()},
                {"results", results},
                {"kernels_needed", compiled},
                {"compiled_by_nvrtc", cache.compiles()},
                {"loaded_from_database", cache.store_hits()},
                {"seconds", seconds},
                {"winners_at_most_apart", stability.empty() ? nlohmann::json() : nlohmann::json(most_apart)},
                {"ok", status == kOk}});
  return status;
}

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

int run_compare_strategies(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
                           const DeviceInfo& d, db::Database& database, std::FILE* text) {
  KernelCache cache;
  cache.set_store(&database);  // the exhaustive run fills it; the guided runs then compile nothing
  tuner::StrategyComparisonOptions opt;
  if (f.budget) opt.budgets = {*f.budget};
  opt.seeds = f.compare_seeds;
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

}  // namespace
}  // namespace histtune::cli
