// The exactness loop the 1D family's GPU tests share: one configuration on one shape, every
// distribution, from a misaligned start, against the host reference.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::test {

inline std::uint64_t fresh_seed() {
  return std::random_device{}() * 0x100000001ull + std::random_device{}();
}

// Runs `c` on `p` (its samples `skip` elements into the device copy, the host reference on the
// same samples) for every distribution; returns the cases run.
inline int run_all_distributions(KernelCache& cache, const Hist1DConfig& c, Problem p,
                                 const DeviceInfo& d, std::uint64_t skip) {
  int ran = 0;
  for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::skewed,
                          tuner::Distribution::constant, tuner::Distribution::runs,
                          tuner::Distribution::mixed}) {
    Problem whole = p;
    whole.n = p.n + skip;
    const std::uint64_t seed = fresh_seed();
    const auto host = tuner::make_samples(whole, seed, dist);
    const auto levels =
        p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
    tuner::DeviceInputs in(whole, host, 0, levels);
    p.d_levels = in.levels();
    const Kernel kern = cache.get(hist1d::request(c, p, d.arch()), hist1d::kKernel);
    const Hist1DLaunch launch(cache, kern, c, p, d);
    HT_CUDA(cudaMemset(in.counts(), 0xFF, p.num_bins * sizeof(std::uint32_t)));
    const std::size_t bytes = sample_bytes(p.sample_type);
    launch(p, static_cast<const std::uint8_t*>(in.samples(0)) + skip * bytes, in.counts(),
           nullptr);
    HT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(in.read_counts(p.num_bins),
              reference_histogram(p, host.data() + skip * bytes,
                                  levels.empty() ? nullptr : levels.data()))
        << c.label() << " " << p.describe() << " skip " << skip << " "
        << tuner::to_string(dist) << " seed " << seed;
    ++ran;
  }
  return ran;
}

}  // namespace histtune::test
