// On the GPU: the sample types of issue 25 (i8, i16, f16, bf16) in the 1D family, every binning
// each takes x every distribution x a few configurations (sample-sized loads, 16-byte loads whose
// words hold 2 or 4 samples to sign-extend or convert, packed storage, the built-in default),
// whole and from a misaligned start, exact against the host reference; and, through the public
// C++ and C calls, the cases CUB gets wrong (NVIDIA/cccl 10975, 10976, 10977), with guard words
// after the counts. Skips, with the reason, without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "fake_device.hpp"
#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/half.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"
#include "sample_values.hpp"

using namespace histtune;

namespace {

Problem shape(SampleType t, Binning b, std::uint32_t bins, double lower = 0, double upper = 0) {
  return flat_problem(t, b, bins, 0, lower, upper);
}

// Every binning each new type takes, with the bounds and levels' spans the CUB bugs need.
std::vector<Problem> shapes() {
  return {shape(SampleType::i8, Binning::direct, 256),
          shape(SampleType::i8, Binning::even, 256, -128, 128),
          shape(SampleType::i8, Binning::even, 7, -60, 64),
          shape(SampleType::i8, Binning::range, 100, -128, 127),
          shape(SampleType::i16, Binning::direct, 4096),
          shape(SampleType::i16, Binning::even, 100, -32768, 32767),
          shape(SampleType::i16, Binning::even, 65536, -32768, 32768),
          shape(SampleType::i16, Binning::range, 1000, -32768, 32767),
          shape(SampleType::f16, Binning::even, 256, -1, 1),
          shape(SampleType::f16, Binning::even, 2100, 0, 2100),
          shape(SampleType::f16, Binning::range, 1000, -500, 500),
          shape(SampleType::bf16, Binning::even, 256, 0, 100),
          shape(SampleType::bf16, Binning::even, 300, 0, 300),
          shape(SampleType::bf16, Binning::range, 10000, -1000, 1000)};
}

const char* const kLabels[] = {
    "tpb512.vpt1.vec0.pc2.lay0.agg1.u0.pad1.bps1.st0.b1.sb0.cl1.pf0.tp0",
    "tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1.pf1.tp0",
    "tpb256.vpt1.vec16.pc1.lay0.agg2.u0.pad0.bps2.st4.b1.sb0.cl1.pf0.tp0",
};

}  // namespace

// Every shape, size, start, configuration and distribution (test::run_shapes).
TEST(GpuSampleTypes, EveryTypeBinningAndDistributionIsExact) {
  HT_REQUIRE_GPU();
  EXPECT_GE(test::run_shapes(shapes(), kLabels), 14 * 5 * 5);  // the default per shape, size, start
}

namespace {

using test::expect_exact;

// One sample in the middle of each of `bins` bins over [0, bins), rounded to the half type.
std::vector<std::uint16_t> one_per_bin(SampleType t, std::uint32_t bins) {
  std::vector<std::uint16_t> v(bins);
  for (std::uint32_t i = 0; i < bins; ++i)
    v[i] = t == SampleType::f16 ? float_to_f16(i + 0.5f) : float_to_bf16(i + 0.5f);
  return v;
}

}  // namespace

// NVIDIA/cccl 10975 (i8/i16 even over the whole range: all in bin 0), 10977 (negative i8
// dropped), 10976 (bf16 above 256 bins, f16 above 2048, i16 above 32768: bins merged or dropped,
// counts written out of bounds): exact here, through the public calls.
TEST(GpuSampleTypes, CubsWrongCasesAreExactThroughTheApi) {
  HT_REQUIRE_GPU();
  using I8 = const std::int8_t*;
  using I16 = const std::int16_t*;
  const auto i8 = test::every_value<std::int8_t>();
  const auto i16 = test::every_value<std::int16_t>();
  for (const std::uint32_t bins : {256u, 3u}) {
    const Problem p = flat_problem(SampleType::i8, Binning::even, bins, 256, -128, 128);
    expect_exact(p, i8, [&](void* s, void*, std::uint32_t* c) {
      return histogram_even(static_cast<I8>(s), 256, bins, -128, 128, c);
    });
  }
  const std::vector<std::int8_t> four = {-60, -1, 10, 63};
  expect_exact(flat_problem(SampleType::i8, Binning::even, 4, 4, -60, 64), four,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<I8>(s), 4, 4, -60, 64, c);
               });
  expect_exact(flat_problem(SampleType::i8, Binning::direct, 256, 256), i8,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_direct(static_cast<I8>(s), 256, 256, c);
               });
  const std::vector<std::int8_t> i8_levels = {-128, -1, 0, 127};
  expect_exact(flat_problem(SampleType::i8, Binning::range, 3, 256), i8,
               [](void* s, void* l, std::uint32_t* c) {
                 return histogram_range(static_cast<I8>(s), 256, 3, static_cast<I8>(l), c);
               },
               i8_levels);
  expect_exact(flat_problem(SampleType::i16, Binning::even, 100, 65536, -32768, 32767), i16,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<I16>(s), 65536, 100, -32768, 32767, c);
               });
  expect_exact(flat_problem(SampleType::i16, Binning::even, 65536, 65536, -32768, 32768), i16,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<I16>(s), 65536, 65536, -32768, 32768, c);
               });
  expect_exact(flat_problem(SampleType::i16, Binning::direct, 65536, 65536), i16,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_direct(static_cast<I16>(s), 65536, 65536, c);
               });
  // Halfs: one sample per bin past CUB's limits, and every pattern (NaN, infinities,
  // subnormals, both zeros) over [-1, 1).
  expect_exact(flat_problem(SampleType::bf16, Binning::even, 300, 300, 0, 300),
               one_per_bin(SampleType::bf16, 300), [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<const __nv_bfloat16*>(s), 300, 300, 0.0f,
                                       300.0f, c);
               });
  expect_exact(flat_problem(SampleType::f16, Binning::even, 2100, 2100, 0, 2100),
               one_per_bin(SampleType::f16, 2100), [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<const __half*>(s), 2100, 2100, 0.0f, 2100.0f, c);
               });
  const auto all = test::every_pattern();
  expect_exact(flat_problem(SampleType::f16, Binning::even, 2, 65536, -1, 1), all,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<const __half*>(s), 65536, 2, -1.0f, 1.0f, c);
               });
  expect_exact(flat_problem(SampleType::bf16, Binning::even, 2, 65536, -1, 1), all,
               [](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<const __nv_bfloat16*>(s), 65536, 2, -1.0f,
                                       1.0f, c);
               });
  // Infinite levels around every finite value: the infinities are still not counted.
  const std::vector<std::uint16_t> f16_inf = {0xFC00, 0x0000, 0x7C00};
  expect_exact(flat_problem(SampleType::f16, Binning::range, 2, 65536), all,
               [](void* s, void* l, std::uint32_t* c) {
                 return histogram_range(static_cast<const __half*>(s), 65536, 2,
                                        static_cast<const __half*>(l), c);
               },
               f16_inf);
  const std::vector<std::uint16_t> bf16_inf = {0xFF80, 0x0000, 0x7F80};
  expect_exact(flat_problem(SampleType::bf16, Binning::range, 2, 65536), all,
               [](void* s, void* l, std::uint32_t* c) {
                 return histogram_range(static_cast<const __nv_bfloat16*>(s), 65536, 2,
                                        static_cast<const __nv_bfloat16*>(l), c);
               },
               bf16_inf);
}

// The C calls take halfs as 16-bit patterns, and i8 and i16 as themselves.
TEST(GpuSampleTypes, CCallsCountLikeTheCppCalls) {
  HT_REQUIRE_GPU();
  const auto all = test::every_pattern();
  auto c_status = [](histtune_status s) {
    return s == HISTTUNE_OK ? Status() : Status(StatusCode::internal, histtune_last_error());
  };
  expect_exact(flat_problem(SampleType::f16, Binning::even, 64, 65536, -8, 8), all,
               [&](void* s, void*, std::uint32_t* c) {
                 return c_status(histtune_histogram_even_f16(static_cast<const std::uint16_t*>(s),
                                                             65536, 64, -8.0f, 8.0f, c, nullptr));
               });
  expect_exact(flat_problem(SampleType::bf16, Binning::even, 64, 65536, -8, 8), all,
               [&](void* s, void*, std::uint32_t* c) {
                 return c_status(histtune_histogram_even_bf16(static_cast<const std::uint16_t*>(s),
                                                              65536, 64, -8.0f, 8.0f, c, nullptr));
               });
  expect_exact(flat_problem(SampleType::i16, Binning::even, 256, 65536, -32768, 32768), all,
               [&](void* s, void*, std::uint32_t* c) {
                 return c_status(histtune_histogram_even_i16(static_cast<const std::int16_t*>(s),
                                                             65536, 256, -32768, 32768, c, nullptr));
               });
  expect_exact(flat_problem(SampleType::i8, Binning::direct, 128, 65536), all,
               [&](void* s, void*, std::uint32_t* c) {
                 return c_status(histtune_histogram_direct_i8(static_cast<const std::int8_t*>(s),
                                                              65536, 128, c, nullptr));
               });
}
