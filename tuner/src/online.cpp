// Online tuning: the tuner the runtime's dispatchers call on a first call below `exact`.
#include "histtune/tuner/online.hpp"

#include <cstdio>
#include <string>

#include "histtune/dispatcher.hpp"
#include "histtune/status.hpp"

namespace histtune::tuner {

TuneOptions online_options(std::size_t budget) {
  TuneOptions opt;
  opt.distributions = {Distribution::uniform};
  opt.budget = SearchBudget{budget, 0};
  opt.polish_budget = 8;
  opt.factorial = false;
  opt.finalists = 4;
  opt.distribution_budget = 0;
  opt.second_search_budget = 0;
  opt.worst_case_budget = 0;
  opt.remeasure_rounds = 2;
  return opt;
}

namespace {

// The call's problem as the tuner times it: its shape and even bounds (exactly, 64-bit ones
// too), none of its pointers.
Problem tunable(const Problem& call) {
  Problem p = problem_of_key(call.key());
  if (p.binning == Binning::even) {
    p.lower = call.lower;
    p.upper = call.upper;
    p.lower_bits = call.lower_bits;
    p.upper_bits = call.upper_bits;
  }
  return p;
}

std::string tune_online(const DeviceInfo& d, const Problem& call, db::Database& database,
                        KernelCache& cache, std::size_t budget) {
  const Problem p = tunable(call);
  TuneOptions opt = online_options(budget);
  opt.starts = tuning_starts(database, d, p);
  resume_from(database, d.row(), p, template_hash_of(p), opt);
  const TuneResult r = tune(d, p, cache, opt);
  store(database, d, r, /*measurements=*/false);
  if (r.winner.empty())
    throw Error(StatusCode::internal,
                "no configuration verified" + (r.errors.empty() ? "" : ": " + r.errors[0]));
  char line[256];
  std::snprintf(line, sizeof line, "winner %s %.4f ms, %zu measured, %zu failed",
                r.winner.c_str(), r.winner_ms, r.measurements.size(), r.failed);
  return line;
}

}  // namespace

void enable_online_tuning() { set_online_tuner(tune_online); }

}  // namespace histtune::tuner
