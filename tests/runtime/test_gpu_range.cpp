// On the GPU: range binning through the public C++ and C APIs and the multi-channel family, bit
// exact against the host reference: every sample type, several distributions, odd sizes,
// misaligned starts, n = 0 and 1, levels that are staged in shared memory and levels that are not,
// the u8 table, unsorted levels (no fault), and the levels' memory checks. The 1D family's every
// configuration runs range binning in test_gpu_hist1d.cpp (EveryConfiguration).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "gpu.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

// Device copy of bytes, freed on scope exit; `pad` extra bytes in front for misaligned starts.
struct DeviceBytes {
  std::uint8_t* d = nullptr;
  DeviceBytes(const std::vector<std::uint8_t>& host, std::size_t pad = 0) {
    HT_CUDA(cudaMalloc(&d, host.size() + pad + 16));
    if (!host.empty()) HT_CUDA(cudaMemcpy(d + pad, host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  ~DeviceBytes() { cudaFree(d); }
};

Problem range_problem(SampleType t, std::uint32_t bins, std::uint64_t n, double lower, double upper) {
  Problem p;
  p.sample_type = t;
  p.binning = Binning::range;
  p.num_bins = bins;
  p.n = n;
  p.lower = lower;
  p.upper = upper;
  return p;
}

// One call of the public API for p's type.
Status call_range(const Problem& p, const void* s, const void* lv, std::uint32_t* counts,
                  cudaStream_t stream) {
  switch (p.sample_type) {
    case SampleType::u8:
      return histogram_range(static_cast<const std::uint8_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint8_t*>(lv), counts, stream);
    case SampleType::u16:
      return histogram_range(static_cast<const std::uint16_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint16_t*>(lv), counts, stream);
    case SampleType::u32:
      return histogram_range(static_cast<const std::uint32_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint32_t*>(lv), counts, stream);
    case SampleType::i32:
      return histogram_range(static_cast<const std::int32_t*>(s), p.n, p.num_bins,
                             static_cast<const std::int32_t*>(lv), counts, stream);
    case SampleType::f32:
      return histogram_range(static_cast<const float*>(s), p.n, p.num_bins,
                             static_cast<const float*>(lv), counts, stream);
  }
  return Status(StatusCode::internal, "type");
}

// The same through the C API.
histtune_status call_range_c(const Problem& p, const void* s, const void* lv, std::uint32_t* counts) {
  switch (p.sample_type) {
    case SampleType::u8:
      return histtune_histogram_range_u8(static_cast<const std::uint8_t*>(s), p.n, p.num_bins,
                                         static_cast<const std::uint8_t*>(lv), counts, nullptr);
    case SampleType::u16:
      return histtune_histogram_range_u16(static_cast<const std::uint16_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::uint16_t*>(lv), counts, nullptr);
    case SampleType::u32:
      return histtune_histogram_range_u32(static_cast<const std::uint32_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::uint32_t*>(lv), counts, nullptr);
    case SampleType::i32:
      return histtune_histogram_range_i32(static_cast<const std::int32_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::int32_t*>(lv), counts, nullptr);
    case SampleType::f32:
      return histtune_histogram_range_f32(static_cast<const float*>(s), p.n, p.num_bins,
                                          static_cast<const float*>(lv), counts, nullptr);
  }
  return HISTTUNE_INTERNAL;
}

std::vector<std::uint32_t> read(const std::uint32_t* d, std::size_t count) {
  std::vector<std::uint32_t> h(count);
  HT_CUDA(cudaMemcpy(h.data(), d, 4 * count, cudaMemcpyDeviceToHost));
  return h;
}

struct Shape {
  SampleType type;
  std::uint32_t bins;
  double lower, upper;
};

// Staged levels (f32 1000, u16 3000, i32 64), global levels (f32 6000, u32 70000, u16 20000), the
// u8 table (u8 255 over every value, u8 7).
const Shape kShapes[] = {{SampleType::u8, 255, 0, 255},        {SampleType::u8, 7, 3, 200},
                         {SampleType::u16, 3000, 0, 65535},    {SampleType::u16, 20000, 100, 65000},
                         {SampleType::u32, 70000, 0, 4294967295.0}, {SampleType::i32, 64, -70000, 70000},
                         {SampleType::f32, 1000, -1.5, 2.25},  {SampleType::f32, 6000, 0, 100}};

TEST(GpuRange, PublicApiMatchesTheReferenceForEveryTypeSizeAndAlignment) {
  HT_REQUIRE_GPU();
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * 70000));
  cudaStream_t stream;
  HT_CUDA(cudaStreamCreate(&stream));
  for (const Shape& sh : kShapes) {
    for (const auto& [n, dist] : {std::pair{0ull, tuner::Distribution::mixed},
                                  std::pair{1ull, tuner::Distribution::mixed},
                                  std::pair{4099ull, tuner::Distribution::skewed},
                                  std::pair{(1ull << 20) + 5, tuner::Distribution::mixed},
                                  std::pair{100003ull, tuner::Distribution::runs},
                                  std::pair{65537ull, tuner::Distribution::constant}}) {
      const Problem p = range_problem(sh.type, sh.bins, n, sh.lower, sh.upper);
      const auto levels = tuner::make_levels(p);
      const auto host = tuner::make_samples(p, fresh_seed(), dist);
      const auto expect = reference_histogram(p, host.data(), levels.data());
      const DeviceBytes lv(levels);
      const std::size_t sb = sample_bytes(p.sample_type);
      for (std::size_t shift : {0, 1, 3}) {  // samples starting 0, 1 and 3 samples past 16 bytes
        const DeviceBytes s(host, 16 + shift * sb);
        ASSERT_EQ(cudaMemset(d_counts, 0xFF, 4 * p.num_bins), cudaSuccess);
        const Status st = call_range(p, s.d + 16 + shift * sb, lv.d, d_counts, stream);
        ASSERT_TRUE(st.ok()) << st.message();
        HT_CUDA(cudaStreamSynchronize(stream));
        EXPECT_EQ(read(d_counts, p.num_bins), expect)
            << p.describe() << " " << tuner::to_string(dist) << " shift " << shift << " "
            << last_choice().summary();
      }
      // The C API, and n = 0 with no levels at all (the counts are only zeroed).
      ASSERT_EQ(call_range_c(p, nullptr, nullptr, d_counts) == HISTTUNE_OK, n == 0)
          << histtune_last_error();
      if (n > 0) {
        const DeviceBytes s(host);
        ASSERT_EQ(call_range_c(p, s.d, lv.d, d_counts), HISTTUNE_OK) << histtune_last_error();
        EXPECT_EQ(read(d_counts, p.num_bins), expect) << "C API " << p.describe();
      } else {
        EXPECT_EQ(read(d_counts, p.num_bins), std::vector<std::uint32_t>(p.num_bins, 0));
      }
    }
  }
  HT_CUDA(cudaStreamDestroy(stream));
  HT_CUDA(cudaFree(d_counts));
}

TEST(GpuRange, HostLevelsAreRefusedAndPinnedMappedOnesAreRead) {
  HT_REQUIRE_GPU();
  const Problem p = range_problem(SampleType::f32, 100, 10000, 0, 100);
  const auto levels = tuner::make_levels(p);
  const auto host = tuner::make_samples(p, fresh_seed(), tuner::Distribution::mixed);
  const DeviceBytes s(host);
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * p.num_bins));
  const Status pageable = call_range(p, s.d, levels.data(), d_counts, nullptr);
  EXPECT_EQ(pageable.code(), StatusCode::invalid_argument);
  EXPECT_NE(pageable.message().find("host memory the GPU cannot read"), std::string::npos)
      << pageable.message();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused call leaves no CUDA error behind";
  void* pinned = nullptr;
  HT_CUDA(cudaHostAlloc(&pinned, levels.size(), cudaHostAllocMapped));
  std::memcpy(pinned, levels.data(), levels.size());
  const Status mapped = call_range(p, s.d, pinned, d_counts, nullptr);
  ASSERT_TRUE(mapped.ok()) << mapped.message();
  EXPECT_EQ(read(d_counts, p.num_bins), reference_histogram(p, host.data(), levels.data()));
  HT_CUDA(cudaFreeHost(pinned));
  HT_CUDA(cudaFree(d_counts));
}

TEST(GpuRange, UnsortedLevelsGiveSomeCountsAndNeverAFault) {
  HT_REQUIRE_GPU();
  // Reversed and random levels, staged, global and as the u8 table: the kernel's search stays
  // inside [0, num_bins) whatever it reads (compute-sanitizer would name a stray access).
  for (const Shape& sh : {Shape{SampleType::f32, 500, 0, 100}, Shape{SampleType::f32, 9000, 0, 100},
                          Shape{SampleType::u8, 100, 0, 255}}) {
    Problem p = range_problem(sh.type, sh.bins, 200001, sh.lower, sh.upper);
    auto levels = tuner::make_levels(p);
    const std::size_t sb = sample_bytes(p.sample_type);
    std::vector<std::uint8_t> shuffled = levels;
    std::mt19937 rng(7);
    for (std::size_t i = shuffled.size() / sb - 1; i > 0; --i) {
      const std::size_t j = rng() % (i + 1);
      std::swap_ranges(shuffled.begin() + i * sb, shuffled.begin() + (i + 1) * sb,
                       shuffled.begin() + j * sb);
    }
    const auto host = tuner::make_samples(p, fresh_seed(), tuner::Distribution::uniform);
    const DeviceBytes s(host), lv(shuffled);
    std::uint32_t* d_counts = nullptr;
    HT_CUDA(cudaMalloc(&d_counts, 4 * p.num_bins));
    ASSERT_TRUE(call_range(p, s.d, lv.d, d_counts, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << p.describe();
    std::uint64_t total = 0;
    for (auto c : read(d_counts, p.num_bins)) total += c;
    EXPECT_LE(total, p.n) << p.describe();
    HT_CUDA(cudaFree(d_counts));
  }
}

TEST(GpuRange, MultiChannelEverySampledConfigurationAndThePublicApi) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  struct Mc {
    SampleType type;
    std::uint32_t channels, active, bins;
    double upper;
  };
  for (const Mc& m : {Mc{SampleType::u8, 4, 3, 255, 255}, Mc{SampleType::u8, 64, 64, 20, 255},
                      Mc{SampleType::u16, 3, 3, 3000, 65535}, Mc{SampleType::u16, 4, 4, 9000, 40000}}) {
    for (const std::uint64_t rows : {0ull, 1ull, 1001ull, 77777ull}) {
      Problem p;
      p.family = multichannel::kFamily;
      p.sample_type = m.type;
      p.binning = Binning::range;
      p.channels = m.channels;
      p.active_channels = m.active;
      p.num_bins = m.bins;
      p.n = rows;
      p.upper = m.upper;
      Problem flat = p;  // the levels and the samples as one stream over the same bins
      flat.family = "hist1d";
      flat.channels = flat.active_channels = 1;
      flat.n = p.total_samples();
      const auto levels = tuner::make_levels(flat);
      const auto host = tuner::make_samples(flat, fresh_seed(), tuner::Distribution::mixed);
      const auto expect = reference_histogram(p, host.data(), levels.data());
      const std::size_t sb = sample_bytes(p.sample_type);
      // Aligned, and one sample in (misaligned for vector loads).
      const DeviceBytes lv(levels), aligned(host), s(host, sb);
      p.d_levels = lv.d;
      std::uint32_t* d_counts = nullptr;
      HT_CUDA(cudaMalloc(&d_counts, 4 * std::max<std::size_t>(expect.size(), 1)));
      int i = 0;
      for (const auto& c : multichannel::space()) {
        if (!multichannel::check(c, p, d).empty() || i++ % 97 != 0) continue;
        const Kernel k = cache.get(multichannel::request(c, p, d.arch()), multichannel::kKernel);
        for (const std::uint8_t* start : {aligned.d, s.d + sb}) {
          multichannel::launch(cache, k, c, p, d, start, d_counts, nullptr);
          HT_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(read(d_counts, expect.size()), expect)
              << c.label() << " rows " << rows << (start == aligned.d ? "" : " misaligned");
        }
      }
      const Status st =
          m.type == SampleType::u8
              ? histogram_multichannel_range(reinterpret_cast<const std::uint8_t*>(s.d + sb), rows,
                                             m.channels, m.active, m.bins,
                                             reinterpret_cast<const std::uint8_t*>(lv.d), d_counts)
              : histogram_multichannel_range(reinterpret_cast<const std::uint16_t*>(s.d + sb), rows,
                                             m.channels, m.active, m.bins,
                                             reinterpret_cast<const std::uint16_t*>(lv.d), d_counts);
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(read(d_counts, expect.size()), expect) << "public API rows " << rows;
      const histtune_status cs =
          m.type == SampleType::u8
              ? histtune_histogram_multichannel_range_u8(
                    reinterpret_cast<const std::uint8_t*>(s.d + sb), rows, m.channels, m.active,
                    m.bins, reinterpret_cast<const std::uint8_t*>(lv.d), d_counts, nullptr)
              : histtune_histogram_multichannel_range_u16(
                    reinterpret_cast<const std::uint16_t*>(s.d + sb), rows, m.channels, m.active,
                    m.bins, reinterpret_cast<const std::uint16_t*>(lv.d), d_counts, nullptr);
      ASSERT_EQ(cs, HISTTUNE_OK) << histtune_last_error();
      EXPECT_EQ(read(d_counts, expect.size()), expect) << "C API rows " << rows;
      HT_CUDA(cudaFree(d_counts));
    }
  }
}

}  // namespace
