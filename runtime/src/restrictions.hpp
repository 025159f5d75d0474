// The restrictions every kernel family shares: a block's threads and shared memory against the
// device's per-SM and per-block limits, and a two-phase flush's partials against the temporary
// memory limit. Each returns a Restriction (restriction.hpp) that holds(), or the one that does
// not with the numbers it compared. Beside them, the grid of the families whose blocks stride
// over the samples (weighted, joint), sized by the same residency.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

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

// A built-in configuration, measured on GPUs of 2048 threads an SM, on a device of fewer
// (sm_75: 1024; sm_86, 89, 120: 1536) or of less shared memory an SM (sm_70): the same kernel
// with blocks_per_sm halved until `check` holds; nullopt where it fails for another reason, or at
// one block an SM. Without it the dispatcher refuses a valid call on such a GPU.
template <class Config, class Check>
std::optional<Config> fewer_blocks_per_sm(Config c, const Check& check) {
  for (Restriction r = check(c); !r.holds(); r = check(c)) {
    if ((r.kind != RestrictionKind::threads_per_sm && r.kind != RestrictionKind::smem_per_sm) ||
        c.blocks_per_sm <= 1)
      return std::nullopt;
    c.blocks_per_sm /= 2;
  }
  return c;
}

}  // namespace histtune
