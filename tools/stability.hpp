// What `histtune stability` compares and how it shows it: the winners two databases hold for
// this GPU, paired by problem; each pair's side-by-side times beside the times each run recorded
// for its own winner; the table, its summary and the JSON. Pure functions of database rows and
// measurements, so they are tested without a GPU.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/side_by_side.hpp"

namespace histtune::cli {

// Two winners are equally fast when the slower is at most this much slower (issue 4's target).
constexpr double kStabilityTolerance = 0.02;

// The device whose winners a database holds for this GPU: the one with its UUID, else the only
// other board of the same model (name and compute capability), since two runs on rented machines
// often land on different boards. `tuned`: the database's devices that have winners.
struct DeviceMatch {
  std::optional<db::DeviceRow> device;
  bool exact = false;   // the same UUID
  std::string why_not;  // when there is no device: what the database holds instead
};
DeviceMatch match_device(const std::vector<db::DeviceRow>& tuned, const db::DeviceRow& gpu);

struct StabilityPair {
  db::ProblemRow problem;
  db::WinnerRow a, b;
};

struct Matched {
  std::vector<StabilityPair> pairs;  // problems with a winner in both, in A's order
  std::vector<db::ProblemRow> only_a, only_b;
};
Matched match_winners(const std::vector<db::WinnerRow>& a, const std::vector<db::WinnerRow>& b);

// The problem a stored key names, with the bounds it was tuned with where the default plan has
// it: a key keeps no bounds, and problem_of's [0, BINS) would draw other data than the run did
// (i32 even 256 bins over [-1000, 1000), say), so the times would not match the recorded ones.
Problem timed_problem(const db::ProblemRow& key);

// 100 x (b - a) / min(a, b): how much slower B is than A (negative: faster), relative to the
// faster one, so that swapping A and B only flips the sign. nullopt unless both are > 0.
std::optional<double> difference_percent(double a_ms, double b_ms);
// |difference| <= kStabilityTolerance (false where there is no difference).
bool within_tolerance(double a_ms, double b_ms);

struct StabilityRow {
  StabilityPair pair;
  tuner::SideBySide now;  // both winners, timed in this process
};

struct StabilitySummary {
  std::size_t compared = 0;         // problems with a winner in both databases
  std::size_t within = 0;           // ... whose side-by-side medians are within the tolerance
  std::size_t recorded_within = 0;  // ... whose recorded times are
  std::size_t failed = 0;           // ... where a winner failed (not verified, not runnable)
  std::size_t same = 0;             // ... where both runs chose the same configuration
};
StabilitySummary stability_summary(const std::vector<StabilityRow>& rows);

// What the columns mean (the rounds of each side-by-side timing are part of it).
std::string stability_legend(int rounds);
std::string stability_table_header();
// One problem's line, then an indented line per error.
std::string stability_line(const StabilityRow& r);
// "N of M problems within 2% (side by side, measured now); recorded times: K of M within; ..."
std::string stability_summary_line(const StabilitySummary& s);

// {"problem", "same_configuration", "a", "b" (each: "configuration", "recorded_ms", the timing,
//  "verified", "error" where one), "rounds", "difference_percent", "within_tolerance",
//  "recorded_difference_percent", "recorded_within_tolerance"}; differences are null where a
// side has no time.
nlohmann::json stability_row_json(const StabilityRow& r);
// {"tolerance", "rows", "only_in_a", "only_in_b" (problem specs), "compared", "within",
//  "recorded_within", "failed", "same_configuration", "all_within"}
nlohmann::json stability_json(const std::vector<StabilityRow>& rows, const Matched& matched);

}  // namespace histtune::cli
