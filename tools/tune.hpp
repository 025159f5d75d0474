// `histtune tune`, in four files: tune_command.cpp (its options and the plan), tune_plan.cpp
// (tuning the plan problem by problem), tune_all.cpp (--gpu all: every GPU at once) and
// compare_strategies.cpp (--compare-strategies).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "gpu_models.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::cli {

struct TuneFlags {
  std::string strategy = "annealing";
  std::optional<std::size_t> budget;  // unset: the plan's budget for annealing, none otherwise
  double time_limit_s = 0;
  std::vector<std::string> distributions;  // empty: uniform, skewed, constant, runs
  std::size_t finalists = tuner::TuneOptions{}.finalists;
  double decision_drop = tuner::TuneOptions{}.decision_drop;
  int decision_samples = tuner::TuneOptions{}.decision_samples;
  double screen_above = tuner::kPlanScreenAbove;
  std::string decision = tuner::to_string(tuner::TuneOptions{}.decision);
  std::uint64_t seed = 1;
  bool fresh = false;  // measure again what the database already holds
  int jobs = 0;        // problems tuned at once on the GPU; 0: auto_jobs
  int compile_threads = 0;  // NVRTC threads per problem; 0: compile_slots(), shared
  std::string compile_in = "processes";  // with shared slots: "processes" or "threads"
  bool compare_strategies = false;
  int compare_seeds = 3;
};

// Problems tuned at once by default (--jobs 0): enough that one is always ready to time while
// the others compile, few enough that their inputs (up to about 5 GiB a problem in the default
// plan) fit beside each other in the GPU's memory: one per 6 GiB, 1 to 8 (more were slower on
// an H100: docs/tuning.md, "A cold plan").
int auto_jobs(const DeviceInfo& d);

// Tunes each problem of `plan` and stores what it measures and chooses; text goes to `text`.
// `pending`: the plan is tune --pending's, most-called first, and starts in that order.
int tune_plan(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
              const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
              db::Database& database, std::FILE* text, bool pending);

// One GPU's share of a --gpu all run: its exit status (kGpuFailed when it stopped on an error),
// the error, and its part of the JSON document (device, results, kernels, seconds, ok, error).
struct ShareOutcome {
  int status = kOk;
  std::string error;
  nlohmann::json json;
};

// Tunes the problems of `plan` that `queue` (shared with the other boards of d's model) hands
// this GPU, each line on `text` starting with `prefix`, until none is left or the GPU fails (an
// error does not escape: it stops this GPU only). `gpus`: how many tune at once (they share the
// CPU's threads). `d` must be the calling thread's current device;
// `database` this thread's own connection. t0: when the run started (the ETA's clock).
ShareOutcome tune_share(const Common& c, const std::vector<Problem>& plan, PlanQueue& queue,
                        const std::string& prefix, int gpus, const TuneFlags& f,
                        const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
                        db::Database& database, std::FILE* text,
                        std::chrono::steady_clock::time_point t0);

// --gpu all: every GPU of the machine at once (tune_all.cpp). `plan` is each model's plan, or
// with `pending` empty: each model's pending problems.
int tune_all(const Common& c, const std::vector<Problem>& plan, bool pending, const TuneFlags& f,
             const std::vector<tuner::Distribution>& dists);

// The process's NVRTC threads, one per hardware thread, shared in turns by every problem tuned at
// once on every GPU (without --compile-threads): a problem tuned alone, the last of a plan,
// compiles on every core, where a fixed share left it waiting on two (docs/tuning.md).
tuner::CompileSlots& compile_slots();
// Unless --compile-in threads or --compile-threads N, tuning compiles in child processes of this
// program (compile_processes.hpp), one per compile slot: NVRTC's threads in one process kept 9.4
// of 16 cores busy, 16 processes 13.6 (docs/tuning.md, "A cold plan").
void start_compile_children(const TuneFlags& f);
// A problem's search budget: --budget when given (0: none), else the plan's for annealing
// (tuner::plan_search_budget) and none for the listed strategies.
std::size_t plan_budget(const TuneFlags& f, const Problem& p, const DeviceInfo& d);
// Problems tuned at once on d: --jobs (0: auto_jobs(d)), at most the plan's.
int plan_jobs(const TuneFlags& f, const DeviceInfo& d, std::size_t problems);
// "  search: annealing, 160 evaluations (40 where ...) per problem; data: ...; decision: ..."
// (no newline).
std::string search_line(const TuneFlags& f, const std::vector<tuner::Distribution>& dists);

// --compare-strategies: exhaustive vs annealing on each problem of `plan`.
int run_compare_strategies(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
                           const DeviceInfo& d, db::Database& database, std::FILE* text);

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A time, or null where it was not measured (< 0).
inline nlohmann::json ms_or_null(double ms) {
  return ms >= 0 ? nlohmann::json(ms) : nlohmann::json();
}

}  // namespace histtune::cli
