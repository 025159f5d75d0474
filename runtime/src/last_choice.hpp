// The public entry points' one way to the dispatcher: Dispatcher::run on the default dispatcher,
// remembering the choice per family for last_choice() and last_multichannel_choice().
#pragma once

#include "histtune/histtune.hpp"

namespace histtune {

Status run_recorded(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                    cudaStream_t stream);

}  // namespace histtune
