// What `histtune stability` compares and how it shows it: the winners two databases hold for
// this GPU, paired by problem; each pair's side-by-side times on every distribution, judged on
// the tuner's own objective (the worst case over the distributions), beside the times each run
// recorded for its own winner; the table, its summary and the JSON. Pure functions of database
// rows and measurements, so they are tested without a GPU.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/decide.hpp"
#include "histtune/tuner/side_by_side.hpp"

namespace histtune::cli {

// Two winners are equally good when the worse is at most this much worse (issue 4's target).
constexpr double kStabilityTolerance = 0.02;

// The device whose winners a database holds for this GPU: the one with its UUID, else the first
// by UUID of the other boards of the same model (name and compute capability), since two runs on
// rented machines often land on different boards and a `--gpu all` database holds each problem
// under the board that tuned it; model_winners() then adds the other boards' problems, as the
// runtime's `same_model` lookup would serve them here. `tuned`: the database's devices that have
// winners.
struct DeviceMatch {
  std::optional<db::DeviceRow> device;
  bool exact = false;               // the same UUID
  std::vector<std::string> boards;  // not exact: the other boards of the model, by UUID
  std::string why_not;              // when there is no device: what the database holds instead
};
DeviceMatch match_device(const std::vector<db::DeviceRow>& tuned, const db::DeviceRow& gpu);

struct StabilityPair {
  db::ProblemRow problem;
  db::WinnerRow a, b;
  // The distributions on which run A verified a measurement of B's winner, and B of A's (empty:
  // never timed it). Two winners apart with neither timed by the other run are the search's
  // coverage; timed and still not chosen, the decision or its timing.
  std::vector<std::string> a_timed_b, b_timed_a;
  // Of those, the distributions where every time of it is one sample: the search raced it out
  // after that sample (before session 39 a lone call, twice a short call's time).
  std::vector<std::string> a_raced_b, b_raced_a;
};

// The distributions, in the order first met, on which `measurements` hold a verified time of
// configuration `label`.
std::vector<std::string> timed_on(const std::vector<db::MeasurementRow>& measurements,
                                  const std::string& label);
// Of those, the ones where each verified time of `label` is a single sample.
std::vector<std::string> timed_once_on(const std::vector<db::MeasurementRow>& measurements,
                                       const std::string& label);

// The winners a database holds for `device`'s model: the device's own, then, for the problems it
// has none of, those of the other boards of its model (db::same_model; the first by UUID), since
// `histtune tune --gpu all` stores each problem under the board that tuned it. Each row keeps the
// device it was tuned on (whose measurements timed_on reads).
std::vector<db::WinnerRow> model_winners(const db::Database& database, const db::DeviceRow& device);

struct Matched {
  std::vector<StabilityPair> pairs;  // problems with a winner in both, in A's order
  std::vector<db::ProblemRow> only_a, only_b;
};
Matched match_winners(const std::vector<db::WinnerRow>& a, const std::vector<db::WinnerRow>& b);
// m kept to the problems `only` names (all of m when it names none), pairs in A's order.
Matched only_problems(const Matched& m, const std::vector<db::ProblemRow>& only);
// The problems `only` names that m has no pair for (tuned in one database, or in neither).
std::vector<db::ProblemRow> unpaired(const Matched& m, const std::vector<db::ProblemRow>& only);

// The problem a stored key names, with the bounds it was tuned with where the default plan has
// it: a key keeps no bounds, and problem_of's [0, BINS) would draw other data than the run did
// (i32 even 256 bins over [-1000, 1000), say), so the times would not match the recorded ones.
Problem timed_problem(const db::ProblemRow& key);

// The judge's measures are the tuner's own (tuner/decide.hpp), so that what `histtune stability`
// calls a miss is what the tuner's decision minimises.
using tuner::difference_percent;
using tuner::pairwise_worst_ratio;
using tuner::worst_case_difference_percent;
// |difference| <= kStabilityTolerance (false where there is no difference).
bool within_tolerance(double a_ms, double b_ms);

struct StabilityRow {
  StabilityPair pair;
  // Both winners timed in this process, one per distribution (the first: the data the recorded
  // times are on, uniform by default).
  std::vector<tuner::SideBySide> now;
  // With --again: the first distribution timed once more, after the others (a SideBySide
  // options' `again`). Shown beside the verdict, which stays the first timing's.
  std::optional<tuner::SideBySide> again;
};

// A pair's row from side_by_side's results over `dists` distributions: one more at the end (the
// first timed again, SideBySideOptions::again) becomes `again`.
StabilityRow stability_row(const StabilityPair& pair, std::vector<tuner::SideBySide> timed,
                           std::size_t dists);

// How far the first distribution's difference moved, in percentage points, when timed again
// after the others (again's minus the first's); none without both.
std::optional<double> again_moved(const StabilityRow& r);

struct StabilitySummary {
  std::size_t compared = 0;           // problems with a winner in both databases
  std::size_t worst_case_within = 0;  // ... whose worst-case difference is within the tolerance
  std::size_t first_within = 0;       // ... whose medians on the first distribution alone are
  std::size_t recorded_within = 0;    // ... whose recorded times are
  std::size_t failed = 0;  // ... where a winner failed on some distribution (wrong, not runnable)
  std::size_t same = 0;    // ... where both runs chose the same configuration
  // ... within the tolerance or (not failed) the same configuration: one kernel, so the two
  // winners' times are equal and what side-by-side timing finds between them is its own noise.
  std::size_t within_or_same = 0;
  // ... not failed, where B's worst case is at most the tolerance slower than A's, or faster: a
  // new tuner (B) judged against an old one (A), whose better winners are no miss.
  std::size_t b_as_good = 0;
  std::size_t again = 0;        // ... whose first distribution was timed again after the others
  std::size_t again_moved = 0;  // ... whose difference there moved by more than the tolerance
};
StabilitySummary stability_summary(const std::vector<StabilityRow>& rows);

// `dists`: the distributions every row was timed on, in order (their names head the columns).
// What the columns mean (the rounds of each side-by-side timing are part of it).
std::string stability_legend(int rounds, const std::vector<tuner::Distribution>& dists);
std::string stability_table_header(const std::vector<tuner::Distribution>& dists);
// One problem's line, then an indented line per error (the distributions it happened on named
// unless it happened on all), for two different winners apart by more than the tolerance a
// line saying where each run had timed the other's, and with --again the first distribution's
// times and difference timed again after the others.
std::string stability_line(const StabilityRow& r);
// "N of M problems within 2% on the worst case over uniform, skewed, constant, runs (the tuner's
// objective); K of M on uniform data alone; recorded times: ...; same configuration: ..."; with
// one distribution "N of M problems within 2% on uniform data (side by side, measured now); ...";
// with --again "; uniform again after the others: K of M moved more than 2 points".
std::string stability_summary_line(const StabilitySummary& s,
                                   const std::vector<tuner::Distribution>& dists);

// {"problem", "same_configuration", "failed" (a winner failed on some distribution),
//  "worst_ratio_a", "worst_ratio_b", "worst_case_difference_percent",
//  "worst_case_within_tolerance": the tuner's objective over every distribution;
//  "distributions": per distribution {"distribution", "a", "b" (each: the timing, "verified",
//  "error" where one), "rounds", "difference_percent", "within_tolerance"};
//  and on the first distribution, as before several were timed: "a", "b" (each: "configuration",
//  "recorded_ms", the timing, "verified", "error" where one), "rounds", "difference_percent",
//  "within_tolerance"; "recorded_difference_percent", "recorded_within_tolerance";
//  "a_timed_b", "b_timed_a": the distributions each run timed the other's winner on;
//  "a_raced_b", "b_raced_a": of those, the ones where that time was a single sample;
//  with --again "again": {"distribution", "a", "b", "rounds", "difference_percent",
//  "moved_points"}}.
// Differences and ratios are null where a side has no time.
nlohmann::json stability_row_json(const StabilityRow& r);
// {"tolerance", "rows", "only_in_a", "only_in_b" (problem specs), "compared",
//  "worst_case_within", "worst_case_all_within" (the verdict), "within" and "all_within" (on the
//  first distribution alone), "recorded_within", "failed", "same_configuration",
//  "within_or_same_configuration" (within, or one configuration in both and not failed), and
//  with --again "again", "again_moved"}
nlohmann::json stability_json(const std::vector<StabilityRow>& rows, const Matched& matched);

}  // namespace histtune::cli
