// How `histtune compare` shows one measured problem: a text block (min / median / max of tuned,
// default and CUB, the speedups with their verdicts, % of the floor) and the same as JSON. Pure
// functions of the measurement, so they are tested without a GPU.
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

}  // namespace histtune::cli
