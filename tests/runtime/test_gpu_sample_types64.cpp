// On the GPU: the 64-bit sample types of issue 25 (i64, u64, f64) in the 1D family, every binning
// each takes x every distribution x configurations that load them alone and two to a 16-byte
// vector (every counter storage the shapes admit, the built-in default), whole and from a
// misaligned start, exact against the host reference; and through the public C++ and C calls
// the edges of even bins over the whole i64 and u64 ranges (the 128-bit correction), direct bins
// beyond 2^32, f64's NaN and infinities, with guard words after the counts. Skips, with the
// reason, without a GPU.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "sample_values.hpp"

using namespace histtune;
using test::expect_exact;

namespace {

constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

Problem shape(SampleType t, Binning b, std::uint32_t bins, double lower = 0, double upper = 0) {
  return flat_problem(t, b, bins, 0, lower, upper);
}

// Every binning each 64-bit type takes: even in 32-bit arithmetic and with 128-bit products
// over the whole range; range levels staged in shared memory and searched in global memory.
std::vector<Problem> shapes() {
  return {shape(SampleType::i64, Binning::direct, 256),
          shape(SampleType::i64, Binning::direct, 131072),
          shape(SampleType::i64, Binning::even, 256, -1000, 1000),
          shape(SampleType::i64, Binning::even, 1000, -0x1p63, 0x1p63),
          shape(SampleType::i64, Binning::range, 1000, -1e15, 1e15),
          shape(SampleType::u64, Binning::direct, 4096),
          shape(SampleType::u64, Binning::even, 7, 0, 0x1p64),
          shape(SampleType::u64, Binning::range, 100, 0, 1e18),
          shape(SampleType::f64, Binning::even, 256, -1, 1),
          shape(SampleType::f64, Binning::range, 1000, -500, 500),
          shape(SampleType::f64, Binning::range, 5000, -1e300, 1e300)};
}

const char* const kLabels[] = {
    "tpb512.vpt1.vec0.pc2.lay0.agg1.u0.pad1.bps1.st0.b1.sb0.cl1.pf0.tp0",
    "tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1.pf1.tp0",
    "tpb128.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps4.st1.b2.sb0.cl1.pf1.tp0",
    "tpb256.vpt1.vec16.pc1.lay0.agg2.u0.pad0.bps2.st4.b1.sb0.cl1.pf0.tp0",
    "tpb128.vpt8.vec16.pc1.lay0.agg1.u2.pad0.bps2.st2.b1.sb0.cl1.pf1.tp0",
    "tpb512.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0",
    "tpb256.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb1.cl1.pf0.tp0",
};

Status c_status(histtune_status s) {
  return s == HISTTUNE_OK ? Status() : Status(StatusCode::internal, histtune_last_error());
}

}  // namespace

TEST(GpuSampleTypes64, EveryTypeBinningAndDistributionIsExact) {
  HT_REQUIRE_GPU();
  EXPECT_GE(test::run_shapes(shapes(), kLabels), 11 * 5 * 5);  // the default per shape, size, start
}

// Even bins' first and last values over the whole i64 and u64 ranges and odd ones: where the
// double estimate is one off, the 128-bit comparison must correct it.
TEST(GpuSampleTypes64, EvenEdgesOverTheWholeRangeThroughTheApi) {
  HT_REQUIRE_GPU();
  for (const std::uint32_t bins : {1u, 3u, 7u, 1000u, 1u << 20}) {
    const auto i = test::even_edges64<std::int64_t>(static_cast<std::uint64_t>(kI64Min), kU64Max,
                                                    bins, test::edge_bins(bins));
    Problem p = flat_problem(SampleType::i64, Binning::even, bins, i.samples.size());
    set_even_bounds(p, kI64Min, kI64Max);
    expect_exact(p, i.samples, [&](void* s, void*, std::uint32_t* c) {
      return histogram_even(static_cast<const std::int64_t*>(s), i.samples.size(), bins, kI64Min,
                            kI64Max, c);
    });
    const auto u = test::even_edges64<std::uint64_t>(3, kU64Max - 4, bins, test::edge_bins(bins));
    Problem q = flat_problem(SampleType::u64, Binning::even, bins, u.samples.size());
    set_even_bounds(q, std::uint64_t{3}, kU64Max - 1);
    expect_exact(q, u.samples, [&](void* s, void*, std::uint32_t* c) {
      return c_status(histtune_histogram_even_u64(static_cast<const std::uint64_t*>(s),
                                                  u.samples.size(), bins, 3, kU64Max - 1, c,
                                                  nullptr));
    });
  }
}

TEST(GpuSampleTypes64, DirectRangeAndF64SpecialsThroughTheApi) {
  HT_REQUIRE_GPU();
  // Direct: compared in 64 bits (2^32 + 1 is not bin 1), negatives ignored.
  const std::vector<std::int64_t> d = {kI64Min, -1, 0, 1, 255, 256, 1ll << 32, (1ll << 32) + 1, kI64Max};
  expect_exact(flat_problem(SampleType::i64, Binning::direct, 256, d.size()), d,
               [&](void* s, void*, std::uint32_t* c) {
                 return histogram_direct(static_cast<const std::int64_t*>(s), d.size(), 256, c);
               });
  const std::vector<std::uint64_t> ud = {kU64Max, 1ull << 32, (1ull << 32) + 7, 7, 7};
  expect_exact(flat_problem(SampleType::u64, Binning::direct, 8, ud.size()), ud,
               [&](void* s, void*, std::uint32_t* c) {
                 return c_status(histtune_histogram_direct_u64(static_cast<const std::uint64_t*>(s),
                                                               ud.size(), 8, c, nullptr));
               });
  // Range levels no double tells apart.
  const std::vector<std::uint64_t> levels = {1ull << 60, (1ull << 60) + 1, kU64Max};
  const std::vector<std::uint64_t> r = {(1ull << 60) - 1, 1ull << 60, (1ull << 60) + 1, kU64Max - 1,
                                        kU64Max};
  expect_exact(flat_problem(SampleType::u64, Binning::range, 2, r.size()), r,
               [&](void* s, void* l, std::uint32_t* c) {
                 return histogram_range(static_cast<const std::uint64_t*>(s), r.size(), 2,
                                        static_cast<const std::uint64_t*>(l), c);
               },
               levels);
  // f64: NaN, infinities, zeros, subnormals, the extremes; even in double, and between
  // infinite levels (the infinities still not counted).
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> f = {NAN, INFINITY, -INFINITY, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0,
                                 std::nextafter(1.0, 0.0), -tiny, tiny, DBL_MAX, -DBL_MAX};
  expect_exact(flat_problem(SampleType::f64, Binning::even, 2, f.size(), -1, 1), f,
               [&](void* s, void*, std::uint32_t* c) {
                 return histogram_even(static_cast<const double*>(s), f.size(), 2, -1.0, 1.0, c);
               });
  const std::vector<double> inf_levels = {-INFINITY, 0.0, INFINITY};
  expect_exact(flat_problem(SampleType::f64, Binning::range, 2, f.size()), f,
               [&](void* s, void* l, std::uint32_t* c) {
                 return c_status(histtune_histogram_range_f64(static_cast<const double*>(s),
                                                              f.size(), 2,
                                                              static_cast<const double*>(l), c,
                                                              nullptr));
               },
               inf_levels);
}
