// What the runtime will make of the stored winners, by the dispatcher's own rule (judge_row):
// used, used but flagged unverified, or skipped as stale; said by import, show, info and report
// so that a database full of stale rows does not look normal.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"

namespace histtune::cli {

struct Standing {
  std::size_t used = 0, unverified = 0, stale = 0;
  std::map<std::string, std::size_t> unverified_why, stale_why;  // reason -> winners
  std::size_t total() const { return used + unverified + stale; }
};

// The driver of this machine (cudaDriverGetVersion); 0 without one: rows are then not judged
// by driver.
int local_driver_version();

// The robust winners (the ones Dispatcher::lookup reads) judged against this build and `driver`.
Standing standing_of(const std::vector<db::WinnerRow>& winners, int driver);

// One line per kind that has rows, each starting with `indent`:
//   "the runtime uses 3 of 34 winners as measured"
//   "31 skipped as stale: the kernel source changed since (template 1a2b, now 3c4d)"
//   "2 used but unverified: NVRTC 12.8 -> 13.0 (re-tune to confirm)"
std::string standing_text(const Standing& s, const std::string& indent);
// {"winners", "used", "unverified", "stale", "unverified_why": {reason: n}, "stale_why": {...}}
nlohmann::json standing_json(const Standing& s);

// Every device of `db`: "  NAME (UUID):" and its standing_text, indented by four; `by_device`
// receives {UUID: standing_json}.
std::string database_standing(const db::Database& db, nlohmann::json& by_device);

}  // namespace histtune::cli
