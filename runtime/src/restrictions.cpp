#include "restrictions.hpp"

#include "histtune/two_phase.hpp"

namespace histtune {

std::string check_residency(int block_threads, int blocks_per_sm, std::size_t smem_bytes,
                            const DeviceInfo& d) {
  if (d.max_threads_per_sm > 0 && block_threads * blocks_per_sm > d.max_threads_per_sm)
    return "blocks_per_sm x block_threads (" + std::to_string(block_threads * blocks_per_sm) +
           ") > threads per SM (" + std::to_string(d.max_threads_per_sm) + ")";
  if (smem_bytes > d.smem_per_block_optin)
    return "shared memory " + std::to_string(smem_bytes) + " B > the device's per-block limit " +
           std::to_string(d.smem_per_block_optin) + " B";
  // More blocks per SM than fit beside each other only adds waves: not a point worth timing.
  // (1 KiB per block is what the hardware reserves.)
  const std::size_t per_sm = static_cast<std::size_t>(blocks_per_sm) * (smem_bytes + 1024);
  if (blocks_per_sm > 1 && d.smem_per_sm > 0 && per_sm > d.smem_per_sm)
    return "blocks_per_sm x shared memory per block (" + std::to_string(per_sm) +
           " B) > shared memory per SM (" + std::to_string(d.smem_per_sm) + " B)";
  return {};
}

std::string check_partials(std::uint64_t bytes, const char* what, const DeviceInfo& d) {
  if (bytes <= two_phase::max_bytes(d)) return {};
  return "two-phase partials (" + std::to_string(bytes) + " B: " + what +
         ") > the temporary memory limit (" + std::to_string(two_phase::max_bytes(d)) + " B)";
}

}  // namespace histtune
