// On the GPU: the multi-channel family, every sampled configuration bit-exact against the host
// reference for pixels and many-channel shapes, odd row counts, a misaligned start, 0 and 1 rows;
// and the public multi-channel API.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "gpu.hpp"
#include "sampled_kernels.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

struct Shape {
  SampleType type;
  Binning binning;
  std::uint32_t channels, active, bins;
};

std::string shape_name(const Shape& s) {
  return std::string(to_string(s.type)) + "_" + to_string(s.binning) + "_c" +
         std::to_string(s.channels) + "a" + std::to_string(s.active) + "_" + std::to_string(s.bins);
}

Problem problem_of(const Shape& s, std::uint64_t rows) {
  Problem p;
  p.family = multichannel::kFamily;
  p.sample_type = s.type;
  p.binning = s.binning;
  p.channels = s.channels;
  p.active_channels = s.active;
  p.num_bins = s.bins;
  p.n = rows;
  p.lower = 0;
  p.upper = s.binning == Binning::even ? s.bins * 3 : 0;
  return p;
}

// rows x channels samples drawn as one 1D problem of the same type and bins.
std::vector<std::uint8_t> samples_for(const Problem& p, std::uint64_t seed, tuner::Distribution d) {
  Problem flat;
  flat.sample_type = p.sample_type;
  flat.binning = p.binning;
  flat.num_bins = p.num_bins;
  flat.lower = p.lower;
  flat.upper = p.upper;
  flat.n = p.total_samples();
  return tuner::make_samples(flat, seed, d);
}

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

class MultiChannelEveryConfiguration : public ::testing::TestWithParam<Shape> {};

}  // namespace

TEST_P(MultiChannelEveryConfiguration, BitExact) {
  HT_REQUIRE_GPU();
  const Shape s = GetParam();
  const DeviceInfo d = query_device(current_device());
  // Every configuration of every stride-th distinct kernel.
  const auto sample = test::sample_kernels<MultiChannelFamily>(
      multichannel::space(), problem_of(s, 4097), problem_of(s, 1), d, test::gpu_stride(7));
  const auto& [configs, req_of, reqs] = sample;
  ASSERT_FALSE(configs.empty());
  tuner::CompilePool pool(reqs, 0);
  KernelCache cache;
  const std::pair<std::uint64_t, tuner::Distribution> sizes[] = {
      {0, tuner::Distribution::uniform}, {1, tuner::Distribution::mixed},
      {4097, tuner::Distribution::mixed}, {20011, tuner::Distribution::runs},
      {3001, tuner::Distribution::constant}};
  for (const auto& [rows, dist] : sizes) {
    for (const int offset : {0, 1}) {  // 1: the data starts one sample after an aligned address
      const Problem p = problem_of(s, rows);
      const std::uint64_t seed = fresh_seed();
      auto host = samples_for(p, seed, dist);
      const auto expect = reference_histogram(p, host.data());
      const std::size_t sb = sample_bytes(p.sample_type);
      std::vector<std::uint8_t> padded(offset * sb, 0);
      padded.insert(padded.end(), host.begin(), host.end());
      std::uint8_t* d_in = nullptr;
      std::uint32_t* d_counts = nullptr;
      HT_CUDA(cudaMalloc(&d_in, padded.size() + 16));
      HT_CUDA(cudaMemcpy(d_in, padded.data(), padded.size(), cudaMemcpyHostToDevice));
      HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * expect.size() + 4));
      int wrong = 0;
      for (std::size_t i = 0; i < configs.size(); ++i) {
        const Kernel k = cache.load(reqs[req_of[i]], pool.get(req_of[i]), multichannel::kKernel);
        multichannel::launch(cache, k, configs[i], p, d, d_in + offset * sb, d_counts, nullptr);
        HT_CUDA(cudaDeviceSynchronize());
        std::vector<std::uint32_t> got(expect.size());
        HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * got.size(),
                           cudaMemcpyDeviceToHost));
        if (got != expect && ++wrong <= 5)
          ADD_FAILURE() << configs[i].label() << " wrong for " << p.describe() << " offset "
                        << offset << " " << tuner::to_string(dist) << " seed " << seed;
      }
      EXPECT_EQ(wrong, 0) << p.describe();
      HT_CUDA(cudaFree(d_in));
      HT_CUDA(cudaFree(d_counts));
    }
  }
  RecordProperty("configurations", static_cast<int>(configs.size()));
}

INSTANTIATE_TEST_SUITE_P(
    MultiChannel, MultiChannelEveryConfiguration,
    ::testing::Values(Shape{SampleType::u8, Binning::direct, 4, 3, 256},
                      Shape{SampleType::u8, Binning::even, 3, 3, 100},
                      Shape{SampleType::u16, Binning::direct, 4, 4, 1024},
                      Shape{SampleType::u8, Binning::direct, 64, 40, 256},
                      Shape{SampleType::u8, Binning::direct, 512, 512, 256}),
    [](const auto& info) { return shape_name(info.param); });

// As the 1D test of the same name: a shape called again with bounds that need the other even
// arithmetic (histtune::even_narrow) gets that kernel, not the one its first call resolved.
TEST(MultiChannelApi, OneShapeCalledWithOtherBoundsGetsTheArithmeticTheyNeed) {
  HT_REQUIRE_GPU();
  constexpr std::uint64_t rows = 16384;  // 4 channels: every u16 value once, 49151 among them
  std::vector<std::uint16_t> host(rows * 4);
  for (std::uint64_t v = 0; v < host.size(); ++v) host[v] = static_cast<std::uint16_t>(v);
  std::uint16_t* d_in = nullptr;
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_in, host.size() * 2));
  HT_CUDA(cudaMemcpy(d_in, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * 4 * 4));
  for (const std::int64_t upper : {256, 65535, 256}) {
    Problem p = multichannel_problem(SampleType::u16, 4, 4, rows, 4, Binning::even);
    p.lower = 0;
    p.upper = static_cast<double>(upper);
    EXPECT_EQ(even_narrow(p), upper == 256 ? 1 : 2);
    const Status st = histogram_multichannel_even(d_in, rows, 4, 4, 4, 0, upper, d_counts);
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<std::uint32_t> got(16);
    HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * 16, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, reference_histogram(p, host.data())) << p.describe();
  }
  HT_CUDA(cudaFree(d_in));
  HT_CUDA(cudaFree(d_counts));
}

TEST(MultiChannelApi, PixelsAndColumnsMatchTheReference) {
  HT_REQUIRE_GPU();
  for (const Shape s : {Shape{SampleType::u8, Binning::direct, 4, 3, 256},
                        Shape{SampleType::u8, Binning::direct, 512, 512, 256},
                        Shape{SampleType::u16, Binning::even, 3, 2, 64}}) {
    const Problem p = problem_of(s, 10007);
    const auto host = samples_for(p, fresh_seed(), tuner::Distribution::mixed);
    const auto expect = reference_histogram(p, host.data());
    std::uint8_t* d_in = nullptr;
    std::uint32_t* d_counts = nullptr;
    HT_CUDA(cudaMalloc(&d_in, host.size()));
    HT_CUDA(cudaMemcpy(d_in, host.data(), host.size(), cudaMemcpyHostToDevice));
    HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * expect.size()));
    Status st;
    if (s.type == SampleType::u8)
      st = histogram_multichannel_direct(d_in, p.n, s.channels, s.active, s.bins, d_counts);
    else
      st = histogram_multichannel_even(reinterpret_cast<const std::uint16_t*>(d_in), p.n,
                                       s.channels, s.active, s.bins, 0, s.bins * 3, d_counts);
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<std::uint32_t> got(expect.size());
    HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * got.size(), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expect) << p.describe();
    HT_CUDA(cudaFree(d_in));
    HT_CUDA(cudaFree(d_counts));
  }
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 16));
  const Status bad = histogram_multichannel_direct(static_cast<const std::uint8_t*>(nullptr), 0, 4,
                                                   5, 4, d_counts);
  EXPECT_EQ(bad.code(), StatusCode::invalid_argument);
  EXPECT_NE(bad.message().find("active_channels"), std::string::npos) << bad.message();
  HT_CUDA(cudaFree(d_counts));
}

// Issue 27's shapes whose histograms exceed one block's shared memory when their channels share
// it (u16 17 x 4096 bins: 278664 B against 232448 B on an H100): the public API (groups of 1, 2
// and 4 channels by the built-in default, or a stored row that fits) and the default's own
// kernel, exact for three distributions; one channel beyond a block (u16 65535 bins > ~58K on
// an H100) runs on the global layout.
TEST(MultiChannelLargeBins, ShapesBeyondOneBlockRunExactly) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  std::vector<std::pair<Shape, std::uint64_t>> cases = {
      {Shape{SampleType::u16, Binning::direct, 17, 17, 4096}, 1ull << 20},
      {Shape{SampleType::u16, Binning::direct, 17, 17, 4096}, 100003},
      {Shape{SampleType::u16, Binning::direct, 4, 4, 16384}, 1ull << 22},
      {Shape{SampleType::u16, Binning::even, 4, 3, 16384}, 65537}};
  for (std::uint32_t active = 3; active <= 6; ++active)
    cases.push_back({Shape{SampleType::u16, Binning::direct, 8, active, 8192}, 1ull << 20});
  cases.push_back({Shape{SampleType::u16, Binning::direct, 4, 4, 65535}, (1ull << 16) + 3});
  cases.push_back({Shape{SampleType::u16, Binning::even, 3, 2, 60001}, 100003});
  KernelCache cache;
  for (const auto& [s, rows] : cases) {
    const Problem p = problem_of(s, rows);
    const MultiChannelConfig fitted = multichannel::default_for(p, d);
    ASSERT_EQ(multichannel::check(fitted, p, d).message(), "") << p.describe() << " " << fitted.label();
    EXPECT_EQ(fitted.layout == ChannelLayout::global, s.bins > 60000) << fitted.label();
    const CompileRequest req = multichannel::request(fitted, p, d.arch());
    const Kernel k = cache.load(req, cache.compiled(req), multichannel::kKernel);
    for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::mixed,
                            tuner::Distribution::constant}) {
      const std::uint64_t seed = fresh_seed();
      const auto host = samples_for(p, seed, dist);
      const auto expect = reference_histogram(p, host.data());
      std::uint16_t* d_in = nullptr;
      std::uint32_t* d_counts = nullptr;
      HT_CUDA(cudaMalloc(&d_in, host.size()));
      HT_CUDA(cudaMemcpy(d_in, host.data(), host.size(), cudaMemcpyHostToDevice));
      HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * expect.size()));
      std::vector<std::uint32_t> got(expect.size());
      auto fetch = [&] {
        HT_CUDA(cudaDeviceSynchronize());
        HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * got.size(),
                           cudaMemcpyDeviceToHost));
      };
      const Status st =
          s.binning == Binning::direct
              ? histogram_multichannel_direct(d_in, rows, s.channels, s.active, s.bins, d_counts)
              : histogram_multichannel_even(d_in, rows, s.channels, s.active, s.bins, 0,
                                            s.bins * 3, d_counts);
      ASSERT_TRUE(st.ok()) << p.describe() << ": " << st.message();
      fetch();
      EXPECT_TRUE(got == expect) << "API, " << p.describe() << " " << tuner::to_string(dist)
                                 << " seed " << seed;
      multichannel::launch(cache, k, fitted, p, d, d_in, d_counts, nullptr);
      fetch();
      EXPECT_TRUE(got == expect) << fitted.label() << ", " << p.describe() << " "
                                 << tuner::to_string(dist) << " seed " << seed;
      HT_CUDA(cudaFree(d_in));
      HT_CUDA(cudaFree(d_counts));
    }
  }
}
