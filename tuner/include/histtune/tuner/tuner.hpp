// Tuning of one problem: a search strategy (exhaustive by default) picks configurations of the
// family's space that pass its restrictions; each is compiled (ahead, in a thread pool, where the
// strategy knows its points), timed, and verified exactly against the host reference; the
// fastest verified one wins.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/timing.hpp"

namespace histtune::tuner {

struct Progress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::string label;  // the configuration just measured
};

struct TuneOptions {
  TimingOptions timing;
  std::uint64_t seed = 1;
  Distribution distribution = Distribution::uniform;
  int compile_threads = 0;  // 0: one per hardware thread
  std::string strategy = "exhaustive";  // see tuner/search.hpp
  SearchBudget budget;                  // evaluations and seconds; 0 = unlimited
  std::function<void(const Progress&)> on_progress;
  // Measurements of this problem already in the database (same device and template hash), by
  // label: the search reuses them instead of timing again, so an interrupted run resumes.
  std::map<std::string, db::MeasurementRow> known;
  // Called with each new measurement as soon as it is taken (the CLI stores it at once, so an
  // interrupted run loses nothing it finished).
  std::function<void(const db::MeasurementRow&)> on_measurement;
};

struct TuneResult {
  Problem problem;
  std::vector<db::MeasurementRow> measurements;  // every configuration timed in this run
  std::size_t reused = 0;                        // taken from TuneOptions::known instead
  std::size_t pruned = 0;                        // points the restrictions skipped
  std::size_t compiled = 0;                      // distinct kernels compiled by NVRTC
  std::size_t valid = 0;                         // points of the space that pass the restrictions
  std::string strategy;
  bool stopped_early = false;                    // by the evaluation budget or the time limit
  std::size_t failed = 0;                        // compiled or verified wrongly (listed in errors)
  std::vector<std::string> errors;
  std::string winner;  // label; empty when nothing verified
  double winner_ms = 0;
  std::string template_hash;
};

TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt);

// Records the measurements and the winner (one transaction each). A caller that stored every
// measurement through on_measurement passes measurements = false.
void store(db::Database& database, const DeviceInfo& d, const TuneResult& r,
           bool measurements = true);

// The default plan of `histtune --gpu auto`.
std::vector<Problem> default_plan();

}  // namespace histtune::tuner
