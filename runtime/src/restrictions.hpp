// The restrictions every kernel family shares: a block's threads and shared memory against the
// device's per-SM and per-block limits, and a two-phase flush's partials against the temporary
// memory limit. Each returns a Restriction (restriction.hpp) that holds(), or the one that does
// not with the numbers it compared. Beside them, the grid of the families whose blocks stride
// over the samples (weighted, joint), sized by the same residency.
#pragma once

#include <cstddef>
#include <cstdint>

#include "histtune/device.hpp"
#include "histtune/restriction.hpp"

namespace histtune {

// blocks_per_sm blocks of block_threads threads and smem_bytes each, side by side on one SM.
Restriction check_residency(int block_threads, int blocks_per_sm, std::size_t smem_bytes,
                            const DeviceInfo& d);
// A grid of resident blocks (blocks_per_sm per SM) that stride over the tiles of
// block_threads x items_per_thread samples, no more blocks than tiles (at least 1).
unsigned int striding_grid(int block_threads, int items_per_thread, int blocks_per_sm,
                           std::uint64_t n, const DeviceInfo& d);
// The resident blocks a __launch_bounds__ names, as the least count that compiles the same: ptxas
// caps a thread's registers at 65536 / (threads x blocks) and at 255 whatever the bound, so every
// count with threads x blocks <= 256 gives the code of 1, and configurations that differ only
// there share one program (one compile).
int launch_bounds_blocks(int block_threads, int blocks);
// A two-phase flush's partials of `bytes` (`shape` names them: "blocks x bins").
Restriction check_partials(std::uint64_t bytes, const char* shape, const DeviceInfo& d);

}  // namespace histtune
