// Device descriptions for tests that need none of a GPU: restrictions, search spaces, lookups.
#pragma once

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

}  // namespace histtune::test
