// `--pending` of `histtune show` and `histtune tune`: the problems programs called that the
// runtime resolved below `exact`, as recorded in the database or in its side file
// (docs/tuning.md, "Record, then tune").
#pragma once

#include <cstdio>
#include <vector>

#include "common.hpp"

namespace histtune::cli {

// show --pending: every pending problem, of the database and the side file summed, most-called
// first, as text or --json. Needs no GPU and writes nothing; a missing database is no error.
int show_pending(const Common& c);

// tune --pending: moves the side file's rows into `database`, then returns the problems pending
// on the boards of `model` (one GPU, or under --gpu all the boards of one model, whose calls of a
// problem add up), most-called first, as tune times them (even binning over the first call's
// bounds). Says on `text` what it found, and which rows it skips (an unknown family, an invalid
// problem).
std::vector<Problem> pending_plan(db::Database& database, const std::vector<DeviceInfo>& model,
                                  std::FILE* text, bool quiet);

// After tune --pending: the problems of `plan` that now have a winner of this kernel template on
// the model (model_winner: on one of its boards) leave the pending list of every board of
// `model` (those tuned before are skipped by the plan, not stored again).
void clear_tuned(db::Database& database, const std::vector<DeviceInfo>& model,
                 const std::vector<Problem>& plan);

}  // namespace histtune::cli
