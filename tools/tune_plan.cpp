// Tuning a plan, problem by problem: a problem this kernel template already has a winner for on
// this GPU's model is skipped (so an interrupted run resumes); each other one is searched, decided
// and stored, with one line; the run ends with a summary and, with --fresh, how far the earlier
// run's winners are from this run's. Under --gpu all each GPU runs its own PlanRun on the problems
// a queue shared with the other boards of its model hands it (tune_all.cpp).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "gpu_models.hpp"
#include "histtune/compile_processes.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "tune.hpp"

namespace histtune::cli {
namespace {

// --fresh over a stored winner: the earlier run's winner, re-timed beside this run's.
struct Stability {
  std::string problem, previous;
  double previous_then_ms, previous_now_ms;
  std::string winner;
  double winner_ms, apart;
};

// "  winner LABEL  MS ms, worst case ...  (STRATEGY: N searched; ...)": a problem's result.
std::string winner_line(const tuner::TuneResult& r, std::size_t distributions, double seconds) {
  char worst[64] = "";
  if (distributions > 1 && !r.winner.empty())
    std::snprintf(worst, sizeof worst, ", worst case %.2fx over %zu distributions",
                  r.winner_worst_ratio, distributions);
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
  if (r.screened)
    std::snprintf(searched + std::strlen(searched), sizeof searched - std::strlen(searched),
                  " (%zu of them screened out untimed)", r.screened);
  char pruned[48] = "";
  if (r.valid) std::snprintf(pruned, sizeof pruned, "%zu pruned, ", r.pruned);
  char line[704];
  std::snprintf(line, sizeof line,
                "  winner %s  %s ms%s  (%s: %s; %zu measured (%zu raced out), %zu reused from the database, "
                "%s%zu failed; decided among %zu (%zu dropped after a round); %.1f s: %.1f s measuring "
                "on the GPU, %.1f s waiting for kernels)",
                r.winner.empty() ? "(none)" : r.winner.c_str(), fmt_ms(r.winner_ms).c_str(),
                worst, r.strategy.c_str(), searched, r.measurements.size(), r.raced_out, r.reused, pruned,
                r.failed, r.finalists.size(), r.decision_dropped, seconds, r.spent.device_s,
                r.spent.compile_wait_s);
  return line;
}

nlohmann::json by_distribution_json(const tuner::TuneResult& r) {
  nlohmann::json by_distribution = nlohmann::json::array();
  for (const auto& w : r.by_distribution)
    by_distribution.push_back(
        {{"distribution", w.distribution}, {"winner", w.label}, {"winner_ms", w.median_ms}});
  return by_distribution;
}

nlohmann::json finalists_json(const tuner::TuneResult& r) {
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
  return finalists;
}

// One run over the plan: what every problem's steps read, and what they add up. With jobs() > 1
// several problems are tuned at once (run_one on several threads): what they share is taken
// under mutex_, and each problem's lines are printed together when it is done. Under --gpu all
// one PlanRun per GPU takes its problems from `queue`, shared with the other boards of its model.
class PlanRun {
 public:
  // `prefix` starts every line ("[GPU 1] " under --gpu all, "" alone); `gpus`: the GPUs tuning
  // at once in this process (their problems share compile_slots()); with one, the JSON lists
  // every problem, reached or not.
  PlanRun(const Common& c, const TuneFlags& f, const std::vector<tuner::Distribution>& dists,
          const DeviceInfo& d, db::Database& database, std::FILE* text, PlanQueue& queue,
          std::string prefix = "", int gpus = 1);
  int jobs() const { return jobs_; }
  void print_header() const;
  void run_one(const std::vector<Problem>& plan, std::size_t i,
               std::chrono::steady_clock::time_point t_all);
  // The stability table where --fresh met stored winners, and the closing line.
  void print_summary(double seconds) const;
  // The run as JSON: the device, each problem's result (null: not reached), the kernels, the time.
  nlohmann::json summary_json(double seconds) const;
  int status() const { return status_; }
  const DeviceInfo& device() const { return d_; }

 private:
  void print_position(const std::vector<Problem>& plan, std::size_t i, double elapsed) const;
  bool skip_if_tuned(const Problem& p, std::size_t i, std::string& out);
  void tune_problem(const Problem& p, std::size_t i, std::string& out);
  tuner::TuneOptions options_for(const Problem& p, ProgressLine& progress,
                                 std::chrono::steady_clock::time_point t0) const;
  std::optional<db::WinnerRow> resume(const Problem& p, tuner::TuneOptions& opt) const;
  void store(const Problem& p, const tuner::TuneResult& r);
  void print_result(const tuner::TuneResult& r, double seconds, ProgressLine& progress,
                    std::string& out) const;
  nlohmann::json compare_previous(const Problem& p, const std::optional<db::WinnerRow>& previous,
                                  const tuner::TuneResult& r, std::string& out);
  nlohmann::json result_json(const Problem& p, const tuner::TuneResult& r,
                             const nlohmann::json& previous, double seconds) const;
  void print_stability(double most_apart) const;
  // Writes `text` on text_, `prefix_` before each of its lines, in one call: the lines of
  // several GPUs interleave whole.
  void say(const std::string& text) const;

  const Common& c_;
  const TuneFlags& f_;
  const std::vector<tuner::Distribution>& dists_;
  const DeviceInfo& d_;
  db::Database& database_;
  std::FILE* text_;
  PlanQueue& queue_;
  std::string prefix_;
  int gpus_;
  int jobs_;
  KernelCache cache_;
  mutable tuner::DeviceTurn turn_;  // the problems tuned at once take turns on the GPU
  mutable std::mutex mutex_;  // what follows, the database's winners read back, the text
  tuner::Bench::Spent spent_;  // the benches' time, summed over the problems (tuner.hpp)
  double decision_s_ = 0;       // of spent_.device_s, the decisions' re-timings
  int status_ = kOk;
  std::vector<Stability> stability_;   // --fresh over stored winners
  std::vector<db::WinnerRow> chosen_;  // winners of this run (robust first), for later starts
  std::size_t compiled_ = 0;           // kernels this run needed that were not loaded yet
  std::vector<nlohmann::json> results_;  // plan order
};

PlanRun::PlanRun(const Common& c, const TuneFlags& f,
                 const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
                 db::Database& database, std::FILE* text, PlanQueue& queue, std::string prefix,
                 int gpus)
    : c_(c), f_(f), dists_(dists), d_(d), database_(database), text_(text), queue_(queue),
      prefix_(std::move(prefix)), gpus_(std::max(gpus, 1)), jobs_(plan_jobs(f, d, queue.size())),
      results_(queue.size()) {
  cache_.set_store(&database);  // compiled kernels persist: a re-run compiles nothing
  // The threads timing the GPU wait for it most of the plan: blocking waits leave their cores to
  // the compiles, which spinning ones held. (Events time the GPU: the timings do not change.)
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == d.ordinal)
    (void)cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
  (void)cudaGetLastError();
}

void PlanRun::say(const std::string& text) const {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size() - 1);
    out += prefix_ + text.substr(at, end + 1 - at);
    at = end + 1;
  }
  std::fputs(out.c_str(), text_);
}

void PlanRun::print_header() const {
  if (c_.quiet) return;
  say(printf_text("histtune: tuning %zu problems on GPU %d, %s (sm_%d, %d SMs), database %s\n",
                  results_.size(), d_.ordinal, d_.name.c_str(), d_.arch(), d_.sm_count,
                  database_.path().c_str()) +
      search_line(f_, dists_) + printf_text("; %d at once\n", jobs_));
}

// A problem of the plan: skipped when tuned, else tuned. One at a time, its position comes first
// and the bar follows; several at once, its lines come together when it is done.
void PlanRun::run_one(const std::vector<Problem>& plan, std::size_t i,
                      std::chrono::steady_clock::time_point t_all) {
  std::string out;  // the problem's lines after its position and bar
  if (jobs_ == 1) print_position(plan, i, seconds_since(t_all));
  if (!skip_if_tuned(plan[i], i, out)) tune_problem(plan[i], i, out);
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.finish_one();
  if (jobs_ > 1) print_position(plan, i, seconds_since(t_all));
  say(out);
  std::fflush(text_);
}

void PlanRun::print_position(const std::vector<Problem>& plan, std::size_t i,
                             double elapsed) const {
  if (c_.quiet) return;
  // The plan's ETA assumes the problems left take as long as the ones done on average (under
  // --gpu all: done by every board of this model, i of them handed out).
  const std::size_t done = queue_.finished();
  if (jobs_ > 1)
    say(printf_text("[%zu/%zu] %s  (%zu done, %.0f s elapsed, plan eta %.0f s)\n", i + 1,
                    plan.size(), plan[i].describe().c_str(), done, elapsed,
                    elapsed / static_cast<double>(done) * static_cast<double>(plan.size() - done)));
  else if (i == 0)
    say(printf_text("[%zu/%zu] %s\n", i + 1, plan.size(), plan[i].describe().c_str()));
  else
    say(printf_text("[%zu/%zu] %s  (%.0f s elapsed, plan eta %.0f s)\n", i + 1, plan.size(),
                    plan[i].describe().c_str(), elapsed,
                    elapsed / static_cast<double>(i) * static_cast<double>(plan.size() - i)));
}

// A problem whose winner this kernel template already chose, on this GPU or on another board of
// its model (which serves this one at `same_model`), is done: running the command again after an
// interruption goes on with the problems left (--fresh tunes it again).
bool PlanRun::skip_if_tuned(const Problem& p, std::size_t i, std::string& out) {
  if (f_.fresh) return false;
  const auto w = model_winner(database_, d_, p);
  if (!w) return false;
  const std::string where = w->device.uuid == d_.uuid ? "" : " on " + w->device.uuid + ", same model";
  if (!(c_.quiet && c_.json))
    out += printf_text("  already tuned%s: winner %s  %s ms (--fresh tunes it again)\n",
                       where.c_str(), w->config_label.c_str(), fmt_ms(w->median_ms).c_str());
  std::lock_guard<std::mutex> lock(mutex_);
  results_[i] = {{"problem", problem_json(p.key())},
                 {"winner", w->config_label},
                 {"winner_ms", w->median_ms},
                 {"skipped", true}};
  return true;
}

void PlanRun::tune_problem(const Problem& p, std::size_t i, std::string& out) {
  // --verbose prints a line per measurement instead of the bar; so do problems tuned at once.
  ProgressLine progress(c_.quiet || c_.verbose || jobs_ > 1, text_, prefix_);
  const auto t0 = std::chrono::steady_clock::now();
  tuner::TuneOptions opt = options_for(p, progress, t0);
  const std::optional<db::WinnerRow> previous = resume(p, opt);
  const tuner::TuneResult r = tuner::tune(d_, p, cache_, opt);
  const double seconds = seconds_since(t0);
  std::lock_guard<std::mutex> lock(mutex_);
  store(p, r);
  print_result(r, seconds, progress, out);
  const nlohmann::json previous_json = compare_previous(p, previous, r, out);
  for (const auto& e : r.errors) std::fprintf(stderr, "%s  failed: %s\n", prefix_.c_str(), e.c_str());
  if (r.failed || r.winner.empty()) status_ = kFailure;
  results_[i] = result_json(p, r, previous_json, seconds);
}

tuner::TuneOptions PlanRun::options_for(const Problem& p, ProgressLine& progress,
                                        std::chrono::steady_clock::time_point t0) const {
  tuner::TuneOptions opt;
  opt.strategy = f_.strategy;
  opt.budget = tuner::SearchBudget{plan_budget(f_, p, d_), f_.time_limit_s, f_.screen_above};
  tuner::plan_phase_budgets(opt, p, d_);
  opt.seed = f_.seed;
  opt.distributions = dists_;
  opt.finalists = f_.finalists;
  opt.decision_drop = f_.decision_drop;
  opt.decision_samples = f_.decision_samples;
  opt.decision = tuner::robust_rule_of(f_.decision);
  opt.turn = &turn_;
  opt.compile_threads = f_.compile_threads;
  if (f_.compile_threads == 0) opt.compile_slots = &compile_slots();
  opt.on_progress = [&progress, t0](const tuner::Progress& pr) {
    progress.update(pr.label, pr.done, pr.total, seconds_since(t0));
  };
  // Starts: the winners of similar problems on this GPU's model (under --gpu all the other
  // boards of the model tune the rest of the plan); with --fresh only this run's, as in a first
  // run.
  if (f_.strategy == "annealing") {
    std::lock_guard<std::mutex> lock(mutex_);
    opt.starts = f_.fresh ? tuner::tuning_starts(chosen_, d_, p)
                          : tuner::tuning_starts(model_start_rows(database_, d_), d_, p);
  }
  opt.on_measurement = [this](const db::MeasurementRow& m) {
    if (c_.verbose && !c_.quiet)
      say(printf_text("  %-8s %-60s %s ms (%s..%s, %d samples)%s\n", m.distribution.c_str(),
                      m.config_label.c_str(), fmt_ms(m.median_ms).c_str(),
                      fmt_ms(m.min_ms).c_str(), fmt_ms(m.max_ms).c_str(), m.samples,
                      m.verified ? "" : "  WRONG RESULT"));
  };
  return opt;
}

// Resume: what an earlier (interrupted) run measured with this template is reused (unless
// --fresh); each new measurement is stored as soon as it is taken, in its own transaction.
// --fresh: the stored winner (of an earlier run) is re-timed beside the new candidates, not
// chosen: how far apart two runs' winners are, measured side by side. Returns that winner.
std::optional<db::WinnerRow> PlanRun::resume(const Problem& p, tuner::TuneOptions& opt) const {
  tuner::resume_from(database_, d_.row(), p, tuner::template_hash_of(p), opt);
  if (!f_.fresh) return std::nullopt;
  opt.known.clear();
  std::optional<db::WinnerRow> previous = database_.winner(d_.uuid, p.key());
  if (!previous) return previous;
  if (auto pt = tuner::point_of_label(previous->config_label, p, d_)) {
    opt.references.push_back(*pt);
    return previous;
  }
  return std::nullopt;
}

// Stores the winners, and keeps them as starts for the problems after this one.
void PlanRun::store(const Problem& p, const tuner::TuneResult& r) {
  tuner::store(database_, d_, r, /*measurements=*/false);
  if (!r.winner.empty()) {
    db::WinnerRow w;
    w.problem = p.key();
    w.config_label = r.winner;
    chosen_.push_back(w);
    for (const auto& dw : r.by_distribution) {
      w.config_label = dw.label;
      chosen_.push_back(w);
    }
  }
  compiled_ += r.compiled;
  spent_ += r.spent;
  decision_s_ += r.decision_device_s;
}

void PlanRun::print_result(const tuner::TuneResult& r, double seconds, ProgressLine& progress,
                           std::string& out) const {
  const std::string line = winner_line(r, dists_.size(), seconds);
  if (!c_.quiet && !c_.verbose && jobs_ == 1)
    progress.finish(line);  // replaces the bar
  else if (!(c_.quiet && c_.json))
    out += line + "\n";
  if (c_.verbose && !c_.quiet)
    for (const auto& w : r.by_distribution)
      out += printf_text("  best on %-8s %s  %s ms\n", w.distribution.c_str(), w.label.c_str(),
                         fmt_ms(w.median_ms).c_str());
}

// --fresh: the earlier run's winner against this run's, both timed now; its JSON (null when
// there is none).
nlohmann::json PlanRun::compare_previous(const Problem& p,
                                         const std::optional<db::WinnerRow>& previous,
                                         const tuner::TuneResult& r, std::string& out) {
  if (!previous || r.references.empty() || r.winner.empty()) return nlohmann::json();
  const double then_ms = previous->median_ms;
  const double now_ms = r.references[0].median_ms.empty() ? -1 : r.references[0].median_ms[0];
  const double apart =
      now_ms > 0 ? std::fabs(now_ms - r.winner_ms) / std::min(now_ms, r.winner_ms) : -1;
  if (!(c_.quiet && c_.json))
    out += printf_text(
        "  previous winner %s: %s ms when chosen, %s ms now; %s\n",
        previous->config_label.c_str(), fmt_ms(then_ms).c_str(), fmt_ms(now_ms).c_str(),
        apart < 0 ? "failed now"
                  : (std::to_string(apart * 100).substr(0, 4) + "% from this winner").c_str());
  stability_.push_back(
      {p.describe(), previous->config_label, then_ms, now_ms, r.winner, r.winner_ms, apart});
  return {{"winner", previous->config_label},
          {"winner_ms_then", then_ms},
          {"winner_ms_now", ms_or_null(now_ms)},
          {"apart", apart >= 0 ? nlohmann::json(apart) : nlohmann::json()}};
}

nlohmann::json PlanRun::result_json(const Problem& p, const tuner::TuneResult& r,
                                    const nlohmann::json& previous, double seconds) const {
  const bool none = r.winner.empty();
  return {{"problem", problem_json(p.key())},
          {"winner", none ? nlohmann::json() : nlohmann::json(r.winner)},
          {"winner_ms", none ? nlohmann::json() : nlohmann::json(r.winner_ms)},
          {"worst_ratio", none ? nlohmann::json() : nlohmann::json(r.winner_worst_ratio)},
          {"by_distribution", by_distribution_json(r)},
          {"finalists", finalists_json(r)},
          {"decision_dropped", r.decision_dropped},
          {"distributions", r.distributions},
          {"strategy", r.strategy},
          {"decision", f_.decision},
          {"budget", plan_budget(f_, p, d_)},
          {"valid", r.valid ? nlohmann::json(r.valid) : nlohmann::json()},
          {"searched", r.search_evaluations},
          {"screened", r.screened},
          {"second_search", r.second_search.empty()
                                ? nlohmann::json()
                                : nlohmann::json{{"distribution", r.second_search},
                                                 {"searched", r.second_search_evaluations}}},
          {"measured", r.measurements.size()},
          {"raced_out", r.raced_out},
          {"reused", r.reused},
          {"pruned", r.valid ? nlohmann::json(r.pruned) : nlohmann::json()},
          {"failed", r.failed},
          {"stopped_early", r.stopped_early},
          {"errors", r.errors},
          {"previous", previous},
          {"skipped", false},
          {"seconds", seconds}};
}

// The winner-stability figure: the earlier run's winner and this run's, timed side by side.
void PlanRun::print_stability(double most_apart) const {
  std::string table =
      "\nwinner stability (earlier run's winner vs this run's, re-timed together):\n" +
      printf_text("%-44s %10s %10s %10s %8s\n", "problem", "then ms", "now ms", "new ms", "apart");
  for (const auto& s : stability_)
    table += printf_text("%-44.44s %10s %10s %10s %7.2f%%%s\n", s.problem.c_str(),
                         fmt_ms(s.previous_then_ms).c_str(), fmt_ms(s.previous_now_ms).c_str(),
                         fmt_ms(s.winner_ms).c_str(), s.apart * 100,
                         s.previous == s.winner ? "  (same configuration)" : "");
  say(table + printf_text("at most %.2f%% apart over %zu problems\n", most_apart * 100,
                          stability_.size()));
}

// The furthest apart the earlier and this run's winners were (-1: none compared; 1e9: a
// previous winner failed now).
double most_apart_of(const std::vector<Stability>& stability) {
  double most_apart = -1;
  for (const auto& s : stability) most_apart = std::max(most_apart, s.apart < 0 ? 1e9 : s.apart);
  return most_apart;
}

void PlanRun::print_summary(double seconds) const {
  if (c_.quiet) return;
  if (!stability_.empty()) print_stability(most_apart_of(stability_));
  say(printf_text("histtune: done in %.1f s (the GPU measuring for %.1f s: %.1f s in the timed "
                  "calls, %.1f s of them timed samples; %.1f s re-timing the finalists; %.1f s "
                  "loading kernels); %zu kernels needed, %zu compiled by NVRTC, %zu from the "
                  "database's CUBIN store, %zu shared between problems compiling them at once, "
                  "%zu compiled in child processes; results in %s\n",
                  seconds, spent_.device_s, spent_.calls_s, spent_.samples_s, decision_s_,
                  spent_.load_s, compiled_, cache_.compiles(), cache_.store_hits(),
                  cache_.shared_compiles(), compile_processes::stats().served,
                  database_.path().c_str()));
}

nlohmann::json PlanRun::summary_json(double seconds) const {
  nlohmann::json results = nlohmann::json::array();
  for (const nlohmann::json& r : results_)  // under --gpu all, only this board's problems
    if (!r.is_null() || gpus_ == 1) results.push_back(r);
  return {{"device", device_json(d_)},
          {"results", results},
          {"jobs", jobs_},
          {"device_seconds", spent_.device_s},
          {"device_calls_seconds", spent_.calls_s},
          {"device_samples_seconds", spent_.samples_s},
          {"device_decision_seconds", decision_s_},
          {"kernel_load_seconds", spent_.load_s},
          {"kernels_needed", compiled_},
          {"compiled_by_nvrtc", cache_.compiles()},
          {"loaded_from_database", cache_.store_hits()},
          {"compiles_shared", cache_.shared_compiles()},
          {"compiled_in_processes", compile_processes::stats().served},
          {"seconds", seconds},
          {"winners_at_most_apart", stability_.empty()
                                        ? nlohmann::json()
                                        : nlohmann::json(most_apart_of(stability_))},
          {"ok", status_ == kOk}};
}

// The problems `queue` hands out, tuned run.jobs() at a time until it is empty; the first error
// stops this run (a device left unusable) and is thrown. `check_device`: after each problem,
// throw where the GPU's context is lost (a sticky CUDA error): under --gpu all such a board would
// otherwise fail every problem it takes within seconds, taking them from the healthy boards.
void run_jobs(PlanRun& run, const std::vector<Problem>& plan, PlanQueue& queue,
              std::chrono::steady_clock::time_point t_all, bool check_device) {
  std::mutex mutex;            // failure
  std::exception_ptr failure;  // the first error that stops the run
  const auto work = [&] {
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
      }
      const std::optional<std::size_t> i = queue.next();
      if (!i) return;
      try {
        run.run_one(plan, *i, t_all);
        if (check_device) HT_CUDA(cudaDeviceSynchronize());
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  for (int j = 1; j < run.jobs(); ++j)
    workers.emplace_back([&] {
      // A new thread's current device is device 0: the run's must be current on it too.
      try {
        make_current(run.device());
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
      work();
    });
  work();
  for (auto& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::size_t plan_budget(const TuneFlags& f, const Problem& p, const DeviceInfo& d) {
  if (f.budget) return *f.budget;
  return f.strategy == "annealing" ? tuner::plan_search_budget(p, d) : 0;
}

int auto_jobs(const DeviceInfo& d) {
  const std::int64_t gib = d.memory_bytes >> 30;
  return static_cast<int>(std::clamp<std::int64_t>(gib / 6, 1, 8));
}

void start_compile_children(const TuneFlags& f) {
  if (f.compile_threads == 0 && f.compile_in == "processes")
    compile_processes::enable(compile_processes::this_program(), compile_slots().count());
}

tuner::CompileSlots& compile_slots() {
  static tuner::CompileSlots slots(0);
  return slots;
}

int plan_jobs(const TuneFlags& f, const DeviceInfo& d, std::size_t problems) {
  return static_cast<int>(std::min<std::size_t>(f.jobs > 0 ? f.jobs : auto_jobs(d),
                                                std::max<std::size_t>(problems, 1)));
}

std::string search_line(const TuneFlags& f, const std::vector<tuner::Distribution>& dists) {
  std::string budget = "no budget";
  if (f.budget && *f.budget)
    budget = std::to_string(*f.budget) + " evaluations";
  else if (!f.budget && f.strategy == "annealing")
    budget = printf_text("%zu evaluations (%zu where the built-in default partitions)",
                         tuner::kPlanBudget, tuner::kPartitionedPlanBudget);
  return printf_text("  search: %s, %s per problem; data: %s; decision: %s%s", f.strategy.c_str(),
                     budget.c_str(),
                     distribution_list(dists).c_str(), f.decision.c_str(),
                     f.fresh ? "; --fresh: stored measurements are not reused" : "");
}

int tune_plan(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
              const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
              db::Database& database, std::FILE* text, bool pending) {
  start_compile_children(f);
  const std::unique_ptr<PlanQueue> queue = plan_queue(plan, pending);
  PlanRun run(c, f, dists, d, database, text, *queue);
  run.print_header();
  const auto t_all = std::chrono::steady_clock::now();
  run_jobs(run, plan, *queue, t_all, /*check_device=*/false);
  const double seconds = seconds_since(t_all);
  run.print_summary(seconds);
  if (c.json) {
    nlohmann::json doc = {{"histtune", version()}, {"command", "tune"}};
    doc.update(run.summary_json(seconds));
    doc["database"] = database.path();
    print_json(doc);
  }
  return run.status();
}

ShareOutcome tune_share(const Common& c, const std::vector<Problem>& plan, PlanQueue& queue,
                        const std::string& prefix, int gpus, const TuneFlags& f,
                        const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
                        db::Database& database, std::FILE* text,
                        std::chrono::steady_clock::time_point t0) {
  PlanRun run(c, f, dists, d, database, text, queue, prefix, gpus);
  ShareOutcome out;
  try {
    run_jobs(run, plan, queue, t0, /*check_device=*/true);
  } catch (const std::exception& e) {
    // The problems it was on are left untuned; the other boards go on with the queue.
    out.error = e.what();
  }
  const double seconds = seconds_since(t0);
  run.print_summary(seconds);
  out.status = out.error.empty() ? run.status() : kGpuFailed;
  out.json = run.summary_json(seconds);
  out.json["error"] = out.error.empty() ? nlohmann::json() : nlohmann::json(out.error);
  if (!out.error.empty()) out.json["ok"] = false;
  return out;
}

}  // namespace histtune::cli
