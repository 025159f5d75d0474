// How `histtune compare` shows one measured problem: a text block (min / median / max of tuned,
// default and CUB, the speedups with their verdicts, % of the floor), the same as JSON, and the
// baseline the database keeps of it. Pure functions of the measurement, so they are tested
// without a GPU.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "histtune/db/database.hpp"
#include "histtune/tuner/compare.hpp"

namespace histtune::cli {

// The lines above the blocks: what the columns mean and what a tie is.
std::string compare_legend();
// One problem's block; `verbose` adds how many calls each spread is taken from.
std::string compare_text(const db::ProblemRow& key, const tuner::CompareRow& r, bool verbose);
// {"problem", "configuration", "tuned", "default", "cub", "floor_ms", "percent_of_floor",
//  "vs_default", "vs_cub"}; a vs_* is null where a result was wrong or CUB did not run.
nlohmann::json compare_json(const db::ProblemRow& key, const tuner::CompareRow& r);
// What the database keeps of it for `histtune report`: the default's and CUB's medians with their
// fastest and slowest calls, each where it ran and was right, the floor and `gbps`.
db::BaselineRow baseline_of(const tuner::CompareRow& r, double gbps);

}  // namespace histtune::cli
