// Device descriptions for tests that need none of a GPU: restrictions, search spaces, lookups.
#pragma once

#include <string>

#include "histtune/device.hpp"

namespace histtune::test {

// The limits of an H100 (sm_90): 132 SMs, 227 KiB of opt-in shared memory per block.
inline DeviceInfo h100_like() {
  DeviceInfo d;
  d.name = "H100-like";
  d.uuid = "GPU-test";
  d.cc_major = 9;
  d.sm_count = 132;
  d.smem_per_block_optin = 227 * 1024;
  d.smem_per_sm = 228 * 1024;
  d.max_threads_per_sm = 2048;
  return d;
}

// A GPU the dispatcher tests store rows for: an H100's limits under any uuid and compute
// capability (no per-SM shared memory, as a lookup needs none).
inline DeviceInfo fixture_gpu(const std::string& uuid, int major = 9, int minor = 0) {
  DeviceInfo d;
  d.name = "Fixture GPU";
  d.uuid = uuid;
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = 132;
  d.smem_per_block_optin = 227 * 1024;
  d.max_threads_per_sm = 2048;
  return d;
}

// A board of `d`'s architecture but of another model (more memory, as an H100 NVL beside an SXM
// part): rows stored for `d`'s model reach it at `same_arch`, never at `same_model`.
inline DeviceInfo another_model(DeviceInfo d) {
  d.memory_bytes += 94LL << 30;
  return d;
}

}  // namespace histtune::test
