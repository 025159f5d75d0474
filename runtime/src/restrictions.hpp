// The restrictions every kernel family shares: a block's threads and shared memory against the
// device's per-SM and per-block limits, and a two-phase flush's partials against the temporary
// memory limit. Each returns empty when it holds, else why not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "histtune/device.hpp"

namespace histtune {

// blocks_per_sm blocks of block_threads threads and smem_bytes each, side by side on one SM.
std::string check_residency(int block_threads, int blocks_per_sm, std::size_t smem_bytes,
                            const DeviceInfo& d);
// A two-phase flush's partials of `bytes` (`what` names their shape: "blocks x bins").
std::string check_partials(std::uint64_t bytes, const char* what, const DeviceInfo& d);

}  // namespace histtune
