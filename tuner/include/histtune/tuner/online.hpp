// What the tuner offers the problems programs call: the problem a stored key (and a recorded
// call's bounds) names, and online tuning for the runtime's dispatchers ($HISTTUNE_TUNE=1,
// DispatcherOptions::tune), which the runtime cannot call itself: it sits below the tuner.
#pragma once

#include <cstddef>
#include <optional>

#include "histtune/db/database.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

// The problem a stored key names, as `histtune tune` times it: even binning over [lower, upper)
// where given (a recorded call's bounds), else [0, bins), which the key does not keep; range
// binning's levels over the tuner's default span. Throws Error(invalid_argument) for a family
// this build does not know.
Problem problem_of_key(const db::ProblemRow& key, std::optional<double> lower = std::nullopt,
                       std::optional<double> upper = std::nullopt);

// The options of an online tuning: at most `budget` configurations searched on uniform data
// (started from the winners of similar problems), a short climb, no other distribution, two
// decision rounds. Seconds per problem, mostly NVRTC compiles, where `histtune tune` spends a
// minute or more; the winner is the fastest on uniform data, not the robust one.
TuneOptions online_options(std::size_t budget);

// Registers the online tuner with the runtime (set_online_tuner): every dispatcher with online
// tuning on tunes with it. Call once, before the first histogram call (e.g. at the start of
// main); a program that never calls it links no tuning.
void enable_online_tuning();

}  // namespace histtune::tuner
