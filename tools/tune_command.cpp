// `histtune tune` (the default action): tunes the default plan, or the given problems, on one
// GPU and records every measurement and each winner.
#include <chrono>
#include <cstdio>

#include "commands.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::cli {
namespace {
std::string templates_hash() { return templates::get(hist1d::kTemplate).hash; }
}  // namespace

int run_tune(const Common& c, const std::vector<std::string>& problem_specs, const TuneFlags& f) {
  std::vector<Problem> plan;
  for (const auto& s : problem_specs) plan.push_back(parse_problem(s));
  if (plan.empty()) plan = tuner::default_plan();

  const DeviceInfo d = select_device(c);
  auto database = open_db(c);
  if (!c.quiet)
    std::printf("histtune: tuning %zu problems on GPU %d, %s (sm_%d, %d SMs), database %s\n",
                plan.size(), d.ordinal, d.name.c_str(), d.arch(), d.sm_count,
                database->path().c_str());

  KernelCache cache;
  cache.set_store(database.get());  // compiled kernels persist: a re-run compiles nothing
  int status = kOk;
  std::size_t compiled = 0;  // kernels this run needed that were not loaded yet
  const auto t_all = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Problem& p = plan[i];
    if (!c.quiet) std::printf("[%zu/%zu] %s\n", i + 1, plan.size(), p.describe().c_str());
    ProgressLine progress(c.quiet);
    const auto t0 = std::chrono::steady_clock::now();
    tuner::TuneOptions opt;
    opt.strategy = f.strategy;
    opt.budget = tuner::SearchBudget{f.budget, f.time_limit_s};
    opt.on_progress = [&](const tuner::Progress& pr) {
      std::chrono::duration<double> el = std::chrono::steady_clock::now() - t0;
      progress.update(pr.label, pr.done, pr.total, el.count());
    };
    // Resume: what an earlier (interrupted) run measured with this template is reused; each
    // new measurement is stored as soon as it is taken.
    const std::string hash = templates_hash();
    for (auto& m : database->measurements(d.uuid, p.key()))
      if (m.template_hash == hash) opt.known.emplace(m.config_label, m);
    opt.on_measurement = [&](const db::MeasurementRow& m) {
      database->record_measurements(d.row(), p.key(), {m});
    };
    tuner::TuneResult r = tuner::tune(d, p, cache, opt);
    tuner::store(*database, d, r, /*measurements=*/false);
    compiled += r.compiled;
    std::chrono::duration<double> el = std::chrono::steady_clock::now() - t0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "  winner %s  %s ms  (%s: %zu of %zu valid measured, %zu reused from the "
                  "database, %zu pruned, %zu failed, %.1f s)",
                  r.winner.empty() ? "(none)" : r.winner.c_str(), fmt_ms(r.winner_ms).c_str(),
                  r.strategy.c_str(), r.measurements.size(), r.valid, r.reused, r.pruned,
                  r.failed, el.count());
    progress.finish(line);
    for (const auto& e : r.errors) std::fprintf(stderr, "  failed: %s\n", e.c_str());
    if (r.failed || r.winner.empty()) status = kFailure;
  }
  std::chrono::duration<double> el = std::chrono::steady_clock::now() - t_all;
  if (!c.quiet)
    std::printf("histtune: done in %.1f s; %zu kernels needed, %zu compiled by NVRTC, %zu from the "
                "database's CUBIN store; results in %s\n",
                el.count(), compiled, cache.compiles(), cache.store_hits(), database->path().c_str());
  return status;
}

}  // namespace histtune::cli
