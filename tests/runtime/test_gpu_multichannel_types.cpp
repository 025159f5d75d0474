// On the GPU: the multi-channel family over the sample types of issue 25 (i8, i16, f16, bf16,
// i64, u64, f64). Every binning each type takes, over every layout, one-sample and 16-byte loads,
// every distribution, whole and from a misaligned start, exact against the host reference; and
// through the public C++ and C calls every value of i8 and i16, every f16 and bf16 pattern (NaN
// and infinities never counted), f64's specials, the edges of even bins over the whole i64 and
// u64 ranges, pitched images, with guard words after the counts. Skips, with the reason,
// without a GPU.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/half.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "multichannel_type_cases.hpp"
#include "sample_values.hpp"

using namespace histtune;
using test::expect_exact;

namespace {

// `c` on p's rows `skip` samples into the device copy (so that loads split elsewhere), for every
// distribution; returns the cases run.
int run_all_distributions(KernelCache& cache, const MultiChannelConfig& c, Problem p,
                          const DeviceInfo& d, std::uint64_t skip) {
  int ran = 0;
  const std::size_t sb = sample_bytes(p.sample_type);
  for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::skewed,
                          tuner::Distribution::constant, tuner::Distribution::runs,
                          tuner::Distribution::mixed}) {
    Problem flat = as_one_stream(p);
    flat.n = p.total_samples() + skip;
    const std::uint64_t seed = test::fresh_seed();
    const auto host = tuner::make_samples(flat, seed, dist);
    const auto levels =
        p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
    test::DeviceBytes in(host.size()), d_levels(levels.size());
    HT_CUDA(cudaMemcpy(in.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
    if (!levels.empty())
      HT_CUDA(cudaMemcpy(d_levels.ptr, levels.data(), levels.size(), cudaMemcpyHostToDevice));
    p.d_levels = levels.empty() ? nullptr : d_levels.ptr;
    const auto expect = reference_histogram(p, host.data() + skip * sb,
                                            levels.empty() ? nullptr : levels.data());
    test::GuardedCounts counts(static_cast<std::uint32_t>(expect.size()));
    const Kernel k = cache.get(multichannel::request(c, p, d.arch()), multichannel::kKernel);
    multichannel::launch(cache, k, c, p, d, static_cast<const std::uint8_t*>(in.ptr) + skip * sb,
                         counts.get(), nullptr);
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), expect)
        << c.label() << " " << p.describe() << " skip " << skip << " " << tuner::to_string(dist)
        << " seed " << seed;
    EXPECT_TRUE(guards_ok) << c.label() << " " << p.describe() << ": a count past the bins";
    ++ran;
  }
  return ran;
}

Status c_status(histtune_status s) {
  return s == HISTTUNE_OK ? Status() : Status(StatusCode::internal, histtune_last_error());
}

// v repeated `channels` times: each channel of a row holds the same sample.
template <class T>
std::vector<T> in_every_channel(const std::vector<T>& v, std::uint32_t channels) {
  std::vector<T> out;
  for (const T& x : v) out.insert(out.end(), channels, x);
  return out;
}

}  // namespace

TEST(GpuMultiChannelTypes, EveryTypeBinningAndLayoutIsExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  int ran = 0, layouts[4] = {0, 0, 0, 0};
  for (const test::MultiChannelTypeCase& s : test::kMultiChannelTypeCases)
    for (const std::uint64_t rows : {std::uint64_t{1}, std::uint64_t{4097}, std::uint64_t{20011}})
      for (const std::uint64_t skip : {0u, 1u}) {
        Problem p = test::problem_of(s, rows);
        if (p.binning == Binning::range && p.lower == p.upper) tuner::set_default_level_span(p);
        std::vector<MultiChannelConfig> configs = {multichannel::default_for(p, d)};
        for (const char* label : test::kMultiChannelTypeLabels)
          if (const auto c = MultiChannelConfig::parse(label);
              c && multichannel::check(*c, p, d).holds())
            configs.push_back(*c);
        for (const MultiChannelConfig& c : configs) {
          ran += run_all_distributions(cache, c, p, d, skip);
          ++layouts[static_cast<int>(c.layout)];
        }
      }
  EXPECT_GE(ran, 22 * 3 * 2 * 5);
  for (int l = 0; l < 4; ++l) EXPECT_GT(layouts[l], 0) << "layout " << l << " never ran";
}

// Every i8 and i16 value in 4 channels, even over the whole range (CUB's HistogramEven puts them
// all in bin 0, NVIDIA/cccl#10975), direct (negatives ignored) and range; the C++ and C calls.
TEST(GpuMultiChannelTypes, EverySmallIntegerValueThroughTheApi) {
  HT_REQUIRE_GPU();
  const auto i8 = in_every_channel(test::every_value<std::int8_t>(), 4);
  Problem p = multichannel_problem(SampleType::i8, 4, 3, i8.size() / 4, 256, Binning::even);
  p.lower = -128;
  p.upper = 128;
  expect_exact(p, i8, [&](void* s, void*, std::uint32_t* c) {
    return histogram_multichannel_even(static_cast<const std::int8_t*>(s), i8.size() / 4, 4, 3,
                                       256, -128, 128, c);
  });
  p.binning = Binning::direct;
  p.num_bins = 100;
  expect_exact(p, i8, [&](void* s, void*, std::uint32_t* c) {
    return c_status(histtune_histogram_multichannel_direct_i8(static_cast<const std::int8_t*>(s),
                                                              i8.size() / 4, 4, 3, 100, c,
                                                              nullptr));
  });
  const auto i16 = in_every_channel(test::every_value<std::int16_t>(), 2);
  Problem q = multichannel_problem(SampleType::i16, 2, 2, i16.size() / 2, 1000, Binning::even);
  q.lower = -32768;
  q.upper = 32768;
  expect_exact(q, i16, [&](void* s, void*, std::uint32_t* c) {
    return c_status(histtune_histogram_multichannel_even_i16(
        static_cast<const std::int16_t*>(s), i16.size() / 2, 2, 2, 1000, -32768, 32768, c,
        nullptr));
  });
  const std::vector<std::int16_t> levels = {-32768, -1000, -1, 0, 1, 7, 30000, 32767};
  q.binning = Binning::range;
  q.num_bins = static_cast<std::uint32_t>(levels.size() - 1);
  expect_exact(q, i16, [&](void* s, void* l, std::uint32_t* c) {
    return histogram_multichannel_range(static_cast<const std::int16_t*>(s), i16.size() / 2, 2,
                                        2, q.num_bins, static_cast<const std::int16_t*>(l), c);
  }, levels);
}

// Every f16 and bf16 pattern: even and range bins as the converted floats fall, NaN and
// infinities never counted (not even between infinite levels); and channels of NaN and
// infinities only, which count nothing at all.
TEST(GpuMultiChannelTypes, EveryHalfPatternThroughTheApi) {
  HT_REQUIRE_GPU();
  const auto patterns = in_every_channel(test::every_pattern(), 3);
  const std::uint64_t rows = patterns.size() / 3;
  for (const SampleType t : {SampleType::f16, SampleType::bf16}) {
    Problem p = multichannel_problem(t, 3, 3, rows, 1000, Binning::even);
    p.lower = -2;
    p.upper = 2;
    expect_exact(p, patterns, [&](void* s, void*, std::uint32_t* c) {
      return t == SampleType::f16
                 ? histogram_multichannel_even(static_cast<const __half*>(s), rows, 3, 3, 1000,
                                               -2.0f, 2.0f, c)
                 : c_status(histtune_histogram_multichannel_even_bf16(
                       static_cast<const std::uint16_t*>(s), rows, 3, 3, 1000, -2.0f, 2.0f, c,
                       nullptr));
    });
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<std::uint16_t> levels = {
        t == SampleType::f16 ? float_to_f16(-inf) : float_to_bf16(-inf),
        t == SampleType::f16 ? float_to_f16(0.0f) : float_to_bf16(0.0f),
        t == SampleType::f16 ? float_to_f16(inf) : float_to_bf16(inf)};
    p.binning = Binning::range;
    p.num_bins = 2;
    expect_exact(p, patterns, [&](void* s, void* l, std::uint32_t* c) {
      return c_status(t == SampleType::f16
                          ? histtune_histogram_multichannel_range_f16(
                                static_cast<const std::uint16_t*>(s), rows, 3, 3, 2,
                                static_cast<const std::uint16_t*>(l), c, nullptr)
                          : histtune_histogram_multichannel_range_bf16(
                                static_cast<const std::uint16_t*>(s), rows, 3, 3, 2,
                                static_cast<const std::uint16_t*>(l), c, nullptr));
    }, levels);
  }
  // NaN and infinities only: every count stays 0.
  std::vector<std::uint16_t> specials;
  for (std::uint32_t v = 0x7C00; v <= 0x7FFF; ++v) {
    specials.push_back(static_cast<std::uint16_t>(v));
    specials.push_back(static_cast<std::uint16_t>(v | 0x8000));
  }
  test::DeviceBytes in(specials.size() * 2);
  HT_CUDA(cudaMemcpy(in.ptr, specials.data(), specials.size() * 2, cudaMemcpyHostToDevice));
  test::GuardedCounts counts(2 * 16);
  ASSERT_TRUE(histogram_multichannel_even(static_cast<const __half*>(in.ptr), specials.size() / 2,
                                          2, 2, 16, -65504.0f, 65504.0f, counts.get())
                  .ok());
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  EXPECT_EQ(counts.read(guards_ok), std::vector<std::uint32_t>(32, 0u));
  EXPECT_TRUE(guards_ok);
}

// f64's NaN, infinities, zeros, subnormals and extremes; the edges of even bins over the whole
// i64 and u64 ranges (the 128-bit correction); direct bins compared in 64 bits; a pitched image.
TEST(GpuMultiChannelTypes, SixtyFourBitValuesThroughTheApi) {
  HT_REQUIRE_GPU();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> f = in_every_channel<double>(
      {NAN, INFINITY, -INFINITY, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, std::nextafter(1.0, 0.0), -tiny,
       tiny, DBL_MAX, -DBL_MAX},
      2);
  Problem p = multichannel_problem(SampleType::f64, 2, 2, f.size() / 2, 2, Binning::even);
  p.lower = -1;
  p.upper = 1;
  expect_exact(p, f, [&](void* s, void*, std::uint32_t* c) {
    return c_status(histtune_histogram_multichannel_even_f64(static_cast<const double*>(s),
                                                             f.size() / 2, 2, 2, 2, -1.0, 1.0, c,
                                                             nullptr));
  });
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
  for (const std::uint32_t bins : {1u, 7u, 1000u}) {
    const auto e = test::even_edges64<std::int64_t>(static_cast<std::uint64_t>(kMin), kU64Max, bins,
                                                    test::edge_bins(bins));
    const auto i = in_every_channel(e.samples, 2);
    Problem q = multichannel_problem(SampleType::i64, 2, 2, i.size() / 2, bins, Binning::even);
    set_even_bounds(q, kMin, kMax);
    expect_exact(q, i, [&](void* s, void*, std::uint32_t* c) {
      return histogram_multichannel_even(static_cast<const std::int64_t*>(s), i.size() / 2, 2, 2,
                                         bins, kMin, kMax, c);
    });
    const auto ue = test::even_edges64<std::uint64_t>(3, kU64Max - 4, bins, test::edge_bins(bins));
    const auto u = in_every_channel(ue.samples, 2);
    Problem r = multichannel_problem(SampleType::u64, 2, 1, u.size() / 2, bins, Binning::even);
    set_even_bounds(r, std::uint64_t{3}, kU64Max - 1);
    expect_exact(r, u, [&](void* s, void*, std::uint32_t* c) {
      return c_status(histtune_histogram_multichannel_even_u64(
          static_cast<const std::uint64_t*>(s), u.size() / 2, 2, 1, bins, 3, kU64Max - 1, c,
          nullptr));
    });
  }
  // Direct, compared in 64 bits; a pitched image of 3 rows of 2 pixels, one padding sample each.
  const std::vector<std::int64_t> px = {1ll << 32, 1, -1, 7, kMin,  // 2 pixels, then padding
                                        99, 6, 255, 5, 42,
                                        kMax, 2, 3, (1ll << 32) + 3, 8};
  Problem img = multichannel_problem(SampleType::i64, 2, 2, 6, 256, Binning::direct);
  img.row_pixels = 2;
  img.row_pitch_bytes = 5 * 8;
  expect_exact(img, px, [&](void* s, void*, std::uint32_t* c) {
    return histogram_multichannel_direct(static_cast<const std::int64_t*>(s), 2, 3, 5 * 8, 2, 2,
                                         256, c);
  });
}
