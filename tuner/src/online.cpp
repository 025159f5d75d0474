// The problems programs call: a stored key as a problem to tune, and the online tuner the
// runtime's dispatchers call on a first call below `exact`.
#include "histtune/tuner/online.hpp"

#include <cstdio>
#include <string>

#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::tuner {

Problem problem_of_key(const db::ProblemRow& key, std::optional<double> lower,
                       std::optional<double> upper) {
  Problem p;
  const std::optional<Family> fam = parse_family(key.family);
  if (!fam)
    throw Error(StatusCode::invalid_argument, "unknown kernel family '" + key.family +
                                                  "' in the database (this histtune has " +
                                                  family_names() + ")");
  p.family = *fam;
  if (auto t = parse_sample_type(key.sample_type)) p.sample_type = *t;
  if (auto b = parse_binning(key.binning)) p.binning = *b;
  p.num_bins = key.num_bins;
  p.n = key.n;
  if (family_of(p).has_channels()) {
    p.channels = key.channels;
    p.active_channels = key.active_channels;
  }
  if (family_of(p).has_rows()) p.rows = key.channels;  // the key's channels column holds them
  if (p.binning == Binning::even) {
    p.lower = lower.value_or(0);
    p.upper = upper.value_or(p.num_bins);
    bounds_from_doubles(p);
  } else if (p.binning == Binning::range) {
    set_default_level_span(p);
  }
  return p;
}

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
