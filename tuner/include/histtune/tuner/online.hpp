// Online tuning for the runtime's dispatchers ($HISTTUNE_TUNE=1, DispatcherOptions::tune), which
// the runtime cannot call itself: it sits below the tuner, so the tuner registers it.
#pragma once

#include <cstddef>

#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

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
