// GPU tests skip, with the reason, where there is no device; everything else runs everywhere.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "histtune/device.hpp"
#include "histtune/status.hpp"

namespace histtune::test {

// The input sizes the large-bin GPU tests run (slices, partitioned storage): one sample, a few
// tiles, odd sizes past 2^20 and 2^23 (misaligned tails, many tiles, several rounds).
inline constexpr std::uint64_t kLargeBinSizes[] = {1, 4097, (std::uint64_t{1} << 20) + 3,
                                                   (std::uint64_t{1} << 23) + 1};


// The reason there is no usable device, or empty when there is one.
inline std::string no_gpu_reason() {
  try {
    histtune::device_count();
    return {};
  } catch (const histtune::Error& e) {
    return e.what();
  }
}

// The histtune CLI under test: $HISTTUNE_CLI if set (binaries moved to another machine), else the
// one this build made.
inline std::string cli_path() {
  const char* env = std::getenv("HISTTUNE_CLI");
  return env && *env ? env : HISTTUNE_CLI_PATH;
}

}  // namespace histtune::test

#define HT_REQUIRE_GPU()                                                     \
  do {                                                                       \
    const std::string ht_reason_ = ::histtune::test::no_gpu_reason();        \
    if (!ht_reason_.empty()) GTEST_SKIP() << "GPU test skipped: " << ht_reason_; \
  } while (0)
