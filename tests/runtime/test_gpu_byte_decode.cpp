// On the GPU: byte decoding (hist1d.cuh's HT_BYTE_DECODE), u8 even and range binning with fewer
// than 256 bins and i8 with up to 256, over bounds that leave byte values outside every bin, on every decoding storage,
// odd sizes and every distribution (and every byte value drawn uniformly), exact against the host
// reference with the output poisoned before each call. Each case asserts that its configuration
// decodes, so the test cannot pass on the binning path.
#include <gtest/gtest.h>

#include <random>

#include "gpu.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

std::uint64_t fresh_seed() {
  return std::random_device{}() * 0x100000001ull + std::random_device{}();
}

// Storage 0 (lane-striped, copies with padding, runs with prefetch, scalar loads) and storage 1
// (batches 1, 2, 4, with prefetch).
const char* kLabels[] = {
    "tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0",
    "tpb1024.vpt2.vec16.pc2.lay0.agg0.u0.pad1.bps2.st0.b1.sb0.cl1.pf0.tp0",
    "tpb512.vpt2.vec8.pc1.lay0.agg1.u2.pad0.bps2.st0.b1.sb0.cl1.pf1.tp0",
    "tpb256.vpt1.vec0.pc4.lay0.agg1.u0.pad1.bps8.st0.b1.sb0.cl1.pf0.tp0",
    "tpb128.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1.pf0.tp0",
    "tpb256.vpt1.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b4.sb0.cl1.pf1.tp0",
    "tpb128.vpt1.vec4.pc1.lay0.agg0.u0.pad0.bps1.st1.b1.sb0.cl1.pf0.tp0",
};

// Even bins over bounds that cover the bytes exactly, leave some outside, squeeze them into few
// bins or (64-bit arithmetic) into one; range bins over make_levels' levels.
std::vector<Problem> shapes() {
  std::vector<Problem> out;
  const double bounds[][2] = {{0, 256}, {10, 250}, {-1000, 1000}};
  for (const std::uint32_t bins : {1u, 2u, 10u, 64u, 100u, 255u})
    for (const auto& b : bounds)
      out.push_back(flat_problem(SampleType::u8, Binning::even, bins, 0, b[0], b[1]));
  out.push_back(flat_problem(SampleType::u8, Binning::even, 64, 0, -2147483648.0, 2147483648.0));
  const double levels[][3] = {
      {1, 100, 101}, {3, 20, 200}, {10, 0, 255}, {100, 10, 250}, {255, 0, 255}};
  for (const auto& l : levels)
    out.push_back(flat_problem(SampleType::u8, Binning::range, static_cast<std::uint32_t>(l[0]), 0,
                               l[1], l[2]));
  // i8: signed bytes, every bin count up to 256, bounds over all of them or some.
  const double signed_bounds[][2] = {{-128, 127}, {-100, 100}};
  for (const std::uint32_t bins : {1u, 10u, 255u, 256u})
    for (const auto& b : signed_bounds)
      out.push_back(flat_problem(SampleType::i8, Binning::even, bins, 0, b[0], b[1]));
  out.push_back(flat_problem(SampleType::i8, Binning::range, 100, 0, -120, 120));
  return out;
}

// The inputs of one case: every distribution of make_samples, then every byte value uniformly.
const tuner::Distribution kDists[] = {tuner::Distribution::uniform, tuner::Distribution::skewed,
                                      tuner::Distribution::constant, tuner::Distribution::runs,
                                      tuner::Distribution::mixed};
constexpr int kInputs = 6;

// make_levels' levels for a range problem, none for the others.
std::vector<std::uint8_t> levels_for(const Problem& p) {
  return p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
}

std::vector<std::uint32_t> expected(const Problem& p, const std::vector<std::uint8_t>& host,
                                    const std::vector<std::uint8_t>& levels) {
  return reference_histogram(p, host.data(), levels.empty() ? nullptr : levels.data());
}

std::vector<std::uint8_t> samples_for(const Problem& p, int input, std::uint64_t seed) {
  if (input < kInputs - 1) return tuner::make_samples(p, seed, kDists[input]);
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> out(p.n);
  for (auto& v : out) v = static_cast<std::uint8_t>(rng());
  return out;
}

}  // namespace

TEST(ByteDecode, ExactOnEveryDecodingStorageSizeAndDistribution) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  std::vector<Hist1DConfig> configs;
  for (const char* label : kLabels) configs.push_back(Hist1DConfig::parse(label).value());
  const std::vector<Problem> all = shapes();
  int ran = 0;
  for (Problem p : all) {
    const auto levels = levels_for(p);
    for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{4097},
                                  (std::uint64_t{1} << 20) + 3, (std::uint64_t{1} << 22) + 1}) {
      p.n = n;
      for (int input = 0; input < kInputs; ++input) {
        const std::uint64_t seed = fresh_seed();
        const auto host = samples_for(p, input, seed);
        tuner::DeviceInputs in(p, host, 0, levels);
        p.d_levels = in.levels();
        const auto expect = expected(p, host, levels);
        for (std::size_t i = 0; i < configs.size(); ++i) {
          const Hist1DConfig& c = configs[i];
          ASSERT_TRUE(hist1d::byte_decoded(c, p)) << kLabels[i] << " " << p.describe();
          ASSERT_EQ(hist1d::check(c, p, d).message(), "") << kLabels[i] << " " << p.describe();
          const Kernel k = cache.get(hist1d_request(c, p, d.arch()), hist1d::kKernel);
          const Hist1DLaunch launch(cache, k, c, p, d);
          HT_CUDA(cudaMemset(in.counts(), 0xFF, p.num_bins * sizeof(std::uint32_t)));
          launch(p, in.samples(0), in.counts(), nullptr);
          HT_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(in.read_counts(p.num_bins), expect)
              << kLabels[i] << " " << p.describe() << " input " << input << " seed " << seed;
          ++ran;
        }
      }
    }
  }
  EXPECT_EQ(ran, 7 * (6 * 3 + 1 + 5 + 4 * 2 + 1) * 4 * kInputs);
}

// Per-thread counters of byte values summed into the block's 256 totals after every tile
// (HT_TEST_FLUSH_TILES=1), as real inputs do only past ~2^30 samples.
TEST(ByteDecode, PerThreadCountersFlushedEveryTileStayExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const Hist1DConfig c = Hist1DConfig::parse(kLabels[4]).value();
  int ran = 0;
  for (const Problem& shape : {flat_problem(SampleType::u8, Binning::even, 10, 0, 10, 250),
                               flat_problem(SampleType::u8, Binning::range, 100, 0, 10, 250)}) {
    Problem p = shape;
    p.n = (std::uint64_t{1} << 22) - 3;
    ASSERT_TRUE(hist1d::byte_decoded(c, p)) << p.describe();
    CompileRequest req = hist1d_request(c, p, d.arch());
    req.defines.push_back("-DHT_TEST_FLUSH_TILES=1");
    const Kernel k = cache.get(req, hist1d::kKernel);
    const auto levels = levels_for(p);
    for (int input = 0; input < kInputs; ++input) {
      const std::uint64_t seed = fresh_seed();
      const auto host = samples_for(p, input, seed);
      tuner::DeviceInputs in(p, host, 0, levels);
      p.d_levels = in.levels();
      HT_CUDA(cudaMemset(in.counts(), 0xFF, p.num_bins * sizeof(std::uint32_t)));
      launch_hist1d(cache, k, c, p, d, in.samples(0), in.counts(), nullptr);
      HT_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(in.read_counts(p.num_bins), expected(p, host, levels))
          << p.describe() << " input " << input << " seed " << seed;
      ++ran;
    }
  }
  EXPECT_EQ(ran, 2 * kInputs);
}
