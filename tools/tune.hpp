// `histtune tune`, in three files: tune_command.cpp (its options and the plan), tune_plan.cpp
// (tuning the plan problem by problem) and compare_strategies.cpp (--compare-strategies).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::cli {

struct TuneFlags {
  std::string strategy = "annealing";
  std::optional<std::size_t> budget;  // unset: the plan's budget for annealing, none otherwise
  double time_limit_s = 0;
  std::vector<std::string> distributions;  // empty: uniform, skewed, constant, runs
  std::size_t finalists = tuner::TuneOptions{}.finalists;
  std::string decision = tuner::to_string(tuner::TuneOptions{}.decision);
  std::uint64_t seed = 1;
  bool fresh = false;  // measure again what the database already holds
  int jobs = 0;        // problems tuned at once on the GPU; 0: auto_jobs
  bool compare_strategies = false;
  int compare_seeds = 3;
};

// Problems tuned at once by default (--jobs 0): enough that one is always ready to time while
// the others compile, few enough that their inputs (up to about 5 GiB a problem in the default
// plan) fit beside each other in the GPU's memory: one per 6 GiB, 1 to 8 (more were slower on
// an H100: docs/tuning.md, "A cold plan").
int auto_jobs(const DeviceInfo& d);

// Tunes each problem of `plan` and stores what it measures and chooses; text goes to `text`.
int tune_plan(const Common& c, const std::vector<Problem>& plan, const TuneFlags& f,
              const std::vector<tuner::Distribution>& dists, const DeviceInfo& d,
              db::Database& database, std::FILE* text);

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
