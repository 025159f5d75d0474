#include "restrictions.hpp"

#include <algorithm>

#include "histtune/two_phase.hpp"

namespace histtune {

namespace {
Restriction refused(RestrictionKind kind, std::int64_t value, std::int64_t limit,
                    std::string text = {}) {
  return {kind, value, limit, std::move(text)};
}
}  // namespace

std::string Restriction::message() const {
  const std::string v = std::to_string(value), l = std::to_string(limit);
  switch (kind) {
    case RestrictionKind::none: return {};
    case RestrictionKind::parameter_value:
      return text + " = " + v + " is not one of the family's values";
    case RestrictionKind::family_rule: return text;
    case RestrictionKind::threads_per_sm:
      return "blocks_per_sm x block_threads (" + v + ") > threads per SM (" + l + ")";
    case RestrictionKind::smem_per_block:
      return "shared memory " + v + " B > the device's per-block limit " + l + " B";
    case RestrictionKind::smem_per_sm:
      return "blocks_per_sm x shared memory per block (" + v + " B) > shared memory per SM (" +
             l + " B)";
    case RestrictionKind::partials:
      return "two-phase partials (" + v + " B: " + text + ") > the temporary memory limit (" + l +
             " B)";
  }
  return text;
}

Restriction check_residency(int block_threads, int blocks_per_sm, std::size_t smem_bytes,
                            const DeviceInfo& d) {
  if (d.max_threads_per_sm > 0 && block_threads * blocks_per_sm > d.max_threads_per_sm)
    return refused(RestrictionKind::threads_per_sm, block_threads * blocks_per_sm,
                   d.max_threads_per_sm);
  if (smem_bytes > d.smem_per_block_optin)
    return refused(RestrictionKind::smem_per_block, static_cast<std::int64_t>(smem_bytes),
                   static_cast<std::int64_t>(d.smem_per_block_optin));
  // More blocks per SM than fit beside each other only adds waves: not a point worth timing.
  // (1 KiB per block is what the hardware reserves.)
  const std::size_t per_sm = static_cast<std::size_t>(blocks_per_sm) * (smem_bytes + 1024);
  if (blocks_per_sm > 1 && d.smem_per_sm > 0 && per_sm > d.smem_per_sm)
    return refused(RestrictionKind::smem_per_sm, static_cast<std::int64_t>(per_sm),
                   static_cast<std::int64_t>(d.smem_per_sm));
  return {};
}

Restriction check_partials(std::uint64_t bytes, const char* shape, const DeviceInfo& d) {
  if (bytes <= two_phase::max_bytes(d)) return {};
  return refused(RestrictionKind::partials, static_cast<std::int64_t>(bytes),
                 static_cast<std::int64_t>(two_phase::max_bytes(d)), shape);
}

int launch_bounds_blocks(int block_threads, int blocks) {
  return static_cast<long>(block_threads) * blocks <= 256 ? 1 : blocks;
}

unsigned int striding_grid(int block_threads, int items_per_thread, int blocks_per_sm,
                           std::uint64_t n, const DeviceInfo& d) {
  const std::uint64_t tile = std::uint64_t{static_cast<unsigned>(block_threads)} * items_per_thread;
  const std::uint64_t tiles = std::max<std::uint64_t>((n + tile - 1) / tile, 1);
  const std::uint64_t resident =
      std::uint64_t{static_cast<unsigned>(std::max(d.sm_count, 1))} * blocks_per_sm;
  return static_cast<unsigned>(std::min(tiles, resident));
}

}  // namespace histtune
