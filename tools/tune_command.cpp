// `histtune tune` (the default action): tunes the default plan, or the given problems, on one
// GPU and records every measurement and each winner.
#include <chrono>
#include <cstdio>

#include "commands.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"

namespace histtune::cli {
namespace {
std::string templates_hash() { return templates::get(hist1d::kTemplate).hash; }
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int run_tune(const Common& c, const std::vector<std::string>& problem_specs, const TuneFlags& f) {
  std::vector<Problem> plan;
  for (const auto& s : problem_specs) plan.push_back(parse_problem(s));
  if (plan.empty()) plan = tuner::default_plan();

  const DeviceInfo d = select_device(c);
  auto database = open_db(c);
  std::FILE* text = text_stream(c);  // stderr under --json: stdout carries the document
  if (!c.quiet)
    std::fprintf(text, "histtune: tuning %zu problems on GPU %d, %s (sm_%d, %d SMs), database %s\n",
                 plan.size(), d.ordinal, d.name.c_str(), d.arch(), d.sm_count,
                 database->path().c_str());

  KernelCache cache;
  cache.set_store(database.get());  // compiled kernels persist: a re-run compiles nothing
  int status = kOk;
  std::size_t compiled = 0;  // kernels this run needed that were not loaded yet
  nlohmann::json results = nlohmann::json::array();
  const auto t_all = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Problem& p = plan[i];
    if (!c.quiet) std::fprintf(text, "[%zu/%zu] %s\n", i + 1, plan.size(), p.describe().c_str());
    // --verbose prints a line per measurement instead of the bar.
    ProgressLine progress(c.quiet || c.verbose, text);
    const auto t0 = std::chrono::steady_clock::now();
    tuner::TuneOptions opt;
    opt.strategy = f.strategy;
    opt.budget = tuner::SearchBudget{f.budget, f.time_limit_s};
    opt.on_progress = [&](const tuner::Progress& pr) {
      progress.update(pr.label, pr.done, pr.total, seconds_since(t0));
    };
    // Resume: what an earlier (interrupted) run measured with this template is reused; each
    // new measurement is stored as soon as it is taken.
    const std::string hash = templates_hash();
    for (auto& m : database->measurements(d.uuid, p.key()))
      if (m.template_hash == hash) opt.known.emplace(m.config_label, m);
    opt.on_measurement = [&](const db::MeasurementRow& m) {
      database->record_measurements(d.row(), p.key(), {m});
      if (c.verbose && !c.quiet)
        std::fprintf(text, "  %-56s %s ms (%s..%s)%s\n", m.config_label.c_str(),
                     fmt_ms(m.median_ms).c_str(), fmt_ms(m.min_ms).c_str(),
                     fmt_ms(m.max_ms).c_str(), m.verified ? "" : "  WRONG RESULT");
    };
    tuner::TuneResult r = tuner::tune(d, p, cache, opt);
    tuner::store(*database, d, r, /*measurements=*/false);
    compiled += r.compiled;
    const double seconds = seconds_since(t0);
    char line[512];
    std::snprintf(line, sizeof line,
                  "  winner %s  %s ms  (%s: %zu of %zu valid measured, %zu reused from the "
                  "database, %zu pruned, %zu failed, %.1f s)",
                  r.winner.empty() ? "(none)" : r.winner.c_str(), fmt_ms(r.winner_ms).c_str(),
                  r.strategy.c_str(), r.measurements.size(), r.valid, r.reused, r.pruned,
                  r.failed, seconds);
    if (!c.quiet && !c.verbose)
      progress.finish(line);  // replaces the bar
    else if (!(c.quiet && c.json))
      std::fprintf(text, "%s\n", line);
    for (const auto& e : r.errors) std::fprintf(stderr, "  failed: %s\n", e.c_str());
    if (r.failed || r.winner.empty()) status = kFailure;
    results.push_back({{"problem", problem_json(p.key())},
                       {"winner", r.winner.empty() ? nlohmann::json() : nlohmann::json(r.winner)},
                       {"winner_ms", r.winner.empty() ? nlohmann::json() : nlohmann::json(r.winner_ms)},
                       {"strategy", r.strategy},
                       {"valid", r.valid},
                       {"measured", r.measurements.size()},
                       {"reused", r.reused},
                       {"pruned", r.pruned},
                       {"failed", r.failed},
                       {"stopped_early", r.stopped_early},
                       {"errors", r.errors},
                       {"seconds", seconds}});
  }
  const double seconds = seconds_since(t_all);
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
                {"ok", status == kOk}});
  return status;
}

}  // namespace histtune::cli
