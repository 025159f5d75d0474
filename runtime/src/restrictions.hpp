// The restrictions every kernel family shares: a block's threads and shared memory against the
// device's per-SM and per-block limits, and a two-phase flush's partials against the temporary
// memory limit. Each returns a Restriction (restriction.hpp) that holds(), or the one that does
// not with the numbers it compared.
#pragma once

#include <cstddef>
#include <cstdint>

#include "histtune/device.hpp"
#include "histtune/restriction.hpp"

namespace histtune {

// blocks_per_sm blocks of block_threads threads and smem_bytes each, side by side on one SM.
Restriction check_residency(int block_threads, int blocks_per_sm, std::size_t smem_bytes,
                            const DeviceInfo& d);
// A two-phase flush's partials of `bytes` (`shape` names them: "blocks x bins").
Restriction check_partials(std::uint64_t bytes, const char* shape, const DeviceInfo& d);

}  // namespace histtune
