// Host and device inputs for tuning and testing: random samples of a problem, the host reference
// of them, and a device pool of identical copies that timing rotates through so that inputs
// smaller than L2 are still read from memory.
#pragma once

#include <cstdint>
#include <vector>

#include "histtune/problem.hpp"

namespace histtune::tuner {

enum class Distribution { uniform };  // more (skewed, constant, runs) come with data-aware tuning

// n samples for p, deterministic in `seed`. Direct binning: integers in [0, num_bins) plus ~1%
// out of range; even binning: values over a range 10% wider than [lower, upper) (and, for f32,
// a few NaN), so every rejection path is exercised.
std::vector<std::uint8_t> make_samples(const Problem& p, std::uint64_t seed,
                                       Distribution dist = Distribution::uniform);

// Owns device memory: `copies` copies of the samples back to back (each 256-byte aligned) and
// the counts buffer.
class DeviceInputs {
 public:
  DeviceInputs(const Problem& p, const std::vector<std::uint8_t>& host, std::int64_t l2_bytes);
  ~DeviceInputs();
  DeviceInputs(const DeviceInputs&) = delete;
  DeviceInputs& operator=(const DeviceInputs&) = delete;

  const void* samples(int rep) const;  // the copy for repetition `rep` (rotates)
  std::uint32_t* counts() const { return d_counts_; }
  int copies() const { return copies_; }
  std::vector<std::uint32_t> read_counts(std::uint32_t num_bins) const;

 private:
  std::uint8_t* d_pool_ = nullptr;
  std::uint32_t* d_counts_ = nullptr;
  std::size_t stride_ = 0;
  int copies_ = 1;
};

}  // namespace histtune::tuner
