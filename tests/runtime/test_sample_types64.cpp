// The 64-bit sample types of issue 25 on the host: i64, u64 and f64 by name, size, validation,
// exact bounds, NVRTC defines, kernel arguments and configurations, and the host reference's
// rules against counts worked out by hand: i64 and u64 even bins by their edges over the whole
// range (not by the reference's 128-bit arithmetic), f64's specials.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "fake_device.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/kernel_args.hpp"
#include "histtune/reference.hpp"
#include "sample_values.hpp"

using namespace histtune;

namespace {

constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

Problem problem(SampleType t, Binning b, std::uint32_t bins, std::uint64_t n, double lower = 0,
                double upper = 0) {
  return flat_problem(t, b, bins, n, lower, upper);
}

template <class T>
Problem even64(SampleType t, std::uint32_t bins, std::uint64_t n, T lower, T upper) {
  Problem p = problem(t, Binning::even, bins, n);
  set_even_bounds(p, lower, upper);
  return p;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

double from_bits(long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

}  // namespace

TEST(SampleTypes64, NamesSizesAndCodesComeAfterTheOthers) {
  EXPECT_EQ(static_cast<int>(SampleType::i64), 9);
  EXPECT_EQ(static_cast<int>(SampleType::u64), 10);
  EXPECT_EQ(static_cast<int>(SampleType::f64), 11);
  EXPECT_EQ(std::size(kSampleTypes), 12u);
  for (const char* name : {"i64", "u64", "f64"}) {
    ASSERT_TRUE(parse_sample_type(name)) << name;
    EXPECT_EQ(to_string(*parse_sample_type(name)), std::string(name));
    EXPECT_EQ(sample_bytes(*parse_sample_type(name)), 8u);
  }
  EXPECT_FALSE(parse_sample_type("i128"));
  EXPECT_TRUE(is_float(SampleType::f64) && !is_half(SampleType::f64));
  EXPECT_FALSE(is_float(SampleType::i64) || is_float(SampleType::u64));
  EXPECT_TRUE(is_int64(SampleType::i64) && is_int64(SampleType::u64) && !is_int64(SampleType::f64));
  EXPECT_FALSE(is_int64(SampleType::i32));
  EXPECT_EQ(distinct_values(SampleType::i64), 0u);  // no limit on range bins
}

TEST(SampleTypes64, ExactBoundsFromIntegersAndFromDoubles) {
  // The whole ranges: the doubles -2^63 and 2^63 (2^64) are the types' ends, saturated.
  const Problem i64 = problem(SampleType::i64, Binning::even, 4, 10, -0x1p63, 0x1p63);
  EXPECT_EQ(static_cast<std::int64_t>(i64.lower_bits), kI64Min);
  EXPECT_EQ(static_cast<std::int64_t>(i64.upper_bits), kI64Max);
  EXPECT_EQ(even_range64(i64), kU64Max);
  EXPECT_EQ(validate(i64), "");
  const Problem u64 = problem(SampleType::u64, Binning::even, 4, 10, 0, 0x1p64);
  EXPECT_EQ(u64.upper_bits, kU64Max);
  EXPECT_EQ(validate(u64), "");
  // Bounds no double holds: set exactly, printed exactly.
  const Problem odd = even64<std::int64_t>(SampleType::i64, 3, 10, kI64Min + 1, kI64Max - 1);
  EXPECT_EQ(validate(odd), "");
  EXPECT_EQ(even_range64(odd), kU64Max - 2);
  EXPECT_TRUE(contains(odd.describe(), "[-9223372036854775807, 9223372036854775806)"))
      << odd.describe();
  const Problem near = even64<std::uint64_t>(SampleType::u64, 7, 10, (1ull << 60) + 1, (1ull << 60) + 1001);
  EXPECT_EQ(validate(near), "");
  EXPECT_EQ(even_range64(near), 1000u);
  EXPECT_TRUE(contains(near.describe(), "[1152921504606846977, 1152921504606847977)"));
}

TEST(SampleTypes64, ValidationSaysWhatIsWrongWithTheBounds) {
  // Doubles changed after the exact bounds were set: told, not binned by stale bounds.
  Problem stale = even64<std::int64_t>(SampleType::i64, 4, 10, 0, 100);
  stale.upper = 200;
  EXPECT_TRUE(contains(validate(stale), "set_even_bounds")) << validate(stale);
  EXPECT_TRUE(contains(validate(problem(SampleType::u64, Binning::even, 4, 10, -1, 100)),
                       "within u64's values"));
  EXPECT_TRUE(contains(validate(problem(SampleType::i64, Binning::even, 4, 10, 0, 0x1p64)),
                       "within i64's values"));
  EXPECT_TRUE(contains(validate(problem(SampleType::i64, Binning::even, 4, 10, 0.5, 10)), "integral"));
  EXPECT_TRUE(contains(validate(even64<std::uint64_t>(SampleType::u64, 4, 10, 5, 5)), "lower < upper"));
  EXPECT_TRUE(contains(validate(even64<std::int64_t>(SampleType::i64, 4, 10, 5, -5)), "lower < upper"));
  EXPECT_TRUE(contains(validate(problem(SampleType::i64, Binning::even, 4, 10, NAN, 1)), "numbers"));
  // f64: the range and the scale must be doubles.
  EXPECT_EQ(validate(problem(SampleType::f64, Binning::even, 256, 10, -1e300, 1e300)), "");
  EXPECT_EQ(validate(problem(SampleType::f64, Binning::even, 256, 10, 0, 1e-300)), "");
  EXPECT_TRUE(contains(validate(problem(SampleType::f64, Binning::even, 4, 10, -DBL_MAX, DBL_MAX)),
                       "overflows double"));
  EXPECT_TRUE(contains(validate(problem(SampleType::f64, Binning::even, 1 << 20, 10, 0, 1e-310)),
                       "too narrow"));
  EXPECT_TRUE(contains(validate(problem(SampleType::f64, Binning::even, 4, 10, 0, INFINITY)), "finite"));
  // Direct for the integers only; range without a bin limit; multi-channel with the same rules.
  EXPECT_EQ(validate(problem(SampleType::i64, Binning::direct, 1 << 20, 10)), "");
  EXPECT_EQ(validate(problem(SampleType::u64, Binning::direct, 256, 10)), "");
  EXPECT_TRUE(contains(validate(problem(SampleType::f64, Binning::direct, 256, 10)), "integer samples"));
  EXPECT_EQ(validate(problem(SampleType::u64, Binning::range, 1000000, 10)), "");
  EXPECT_TRUE(contains(validate(multichannel_problem(SampleType::f64, 4, 3, 100)), "integer samples"));
  EXPECT_EQ(validate(multichannel_problem(SampleType::i64, 4, 3, 100)), "");
}

TEST(SampleTypes64, DefinesArithmeticAndLevelMemory) {
  const auto i64 = sample_defines(problem(SampleType::i64, Binning::direct, 256, 10));
  EXPECT_TRUE(has(i64, "-DHT_SAMPLE_T=long long"));
  EXPECT_TRUE(has(i64, "-DHT_EVERY_VALUE_A_BIN=0"));
  EXPECT_TRUE(has(sample_defines(problem(SampleType::u64, Binning::direct, 256, 10)),
                  "-DHT_SAMPLE_T=unsigned long long"));
  const auto f64 = sample_defines(problem(SampleType::f64, Binning::even, 256, 10, 0, 1));
  EXPECT_TRUE(has(f64, "-DHT_SAMPLE_T=double"));
  EXPECT_TRUE(has(f64, "-DHT_SAMPLE_IS_FLOAT=1"));
  // 32-bit arithmetic where it is exact, from the exact bounds; 128-bit products elsewhere.
  EXPECT_TRUE(even_narrow(problem(SampleType::i64, Binning::even, 256, 10, -1000, 1000)));
  EXPECT_TRUE(even_narrow(even64<std::uint64_t>(SampleType::u64, 256, 10, 1ull << 63, (1ull << 63) + 256)));
  EXPECT_FALSE(even_narrow(problem(SampleType::i64, Binning::even, 256, 10, -0x1p63, 0x1p63)));
  EXPECT_FALSE(even_narrow(problem(SampleType::f64, Binning::even, 256, 10, 0, 256)));
  // Staged levels: 8 bytes each, and 4 to reach an 8-byte boundary after the counters.
  EXPECT_EQ(range_mode(problem(SampleType::i64, Binning::range, 2047, 10)), 1);
  EXPECT_EQ(range_mode(problem(SampleType::i64, Binning::range, 2048, 10)), 0);
  EXPECT_EQ(range_smem_bytes(problem(SampleType::f64, Binning::range, 100, 10)), 101u * 8 + 4);
}

TEST(SampleTypes64, KernelArgumentsCarryTheWideBounds) {
  const KernelArgs narrow =
      KernelArgs::of(problem(SampleType::i64, Binning::even, 256, 10, -1000, 1000), nullptr, nullptr, 0);
  EXPECT_EQ(narrow.binning.lower_i, -1000);
  EXPECT_EQ(narrow.binning.range_i, 2000u);
  EXPECT_EQ(narrow.binning.recip_i, ~0ull / 2000);
  const KernelArgs wide = KernelArgs::of(
      even64<std::uint64_t>(SampleType::u64, 3, 10, 7, kU64Max), nullptr, nullptr, 0);
  EXPECT_EQ(static_cast<std::uint64_t>(wide.binning.lower_i), 7u);
  EXPECT_EQ(wide.binning.range_i, kU64Max - 7);
  EXPECT_EQ(from_bits(static_cast<long long>(wide.binning.recip_i)), 3.0 / static_cast<double>(kU64Max - 7));
  const KernelArgs f64 =
      KernelArgs::of(problem(SampleType::f64, Binning::even, 10, 10, -2.5, 7.5), nullptr, nullptr, 0);
  EXPECT_EQ(from_bits(f64.binning.lower_i), -2.5);
  EXPECT_EQ(from_bits(static_cast<long long>(f64.binning.range_i)), 7.5);
  EXPECT_EQ(from_bits(static_cast<long long>(f64.binning.recip_i)), 1.0);
}

TEST(SampleTypes64, VectorsHoldWholeSamples) {
  const DeviceInfo d = test::h100_like();
  const Problem p = problem(SampleType::i64, Binning::direct, 256, 1 << 20);
  auto holds = [&](const char* label) {
    return hist1d::check(*Hist1DConfig::parse(label), p, d).holds();
  };
  EXPECT_TRUE(holds("tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0"));
  EXPECT_FALSE(holds("tpb256.vpt1.vec4.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0"));
  EXPECT_FALSE(holds("tpb256.vpt1.vec8.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0"));
  EXPECT_TRUE(holds("tpb256.vpt1.vec16.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0"));
  EXPECT_EQ(hist1d::tile_samples(*Hist1DConfig::parse(
                "tpb256.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0"), p),
            256u * 4 * 2);
  // The built-in default loads them two to a vector where 4-byte samples take vec8.
  EXPECT_EQ(hist1d::default_for(p, d).label(),
            "tpb1024.vpt1.vec16.pc1.lay0.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0");
  EXPECT_EQ(hist1d::default_for(problem(SampleType::u32, Binning::direct, 256, 1 << 20), d).label(),
            "tpb1024.vpt2.vec8.pc1.lay0.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0");
}

// ---- the reference: i64 and u64 by their edges, over the whole range and odd ones ------------

TEST(SampleTypes64Reference, EvenBinsEndWhereTheEdgesSay) {
  struct Case {
    SampleType t;
    std::uint64_t lower, range;
  };
  const Case cases[] = {
      {SampleType::i64, static_cast<std::uint64_t>(kI64Min), kU64Max},  // the whole i64 range
      {SampleType::u64, 0, kU64Max},                                    // the whole u64 range
      {SampleType::u64, 3, kU64Max - 4},
      {SampleType::i64, static_cast<std::uint64_t>(std::int64_t{-5}), (1ull << 63) + 4},
      {SampleType::u64, 1ull << 40, 1000003},
      {SampleType::i64, static_cast<std::uint64_t>(std::int64_t{-100}), 300},
  };
  for (const Case& k : cases)
    for (const std::uint32_t bins : {1u, 3u, 7u, 1000u, 1u << 20}) {
      Problem p = problem(k.t, Binning::even, bins, 0);
      if (k.t == SampleType::u64)
        set_even_bounds(p, k.lower, k.lower + k.range);
      else
        set_even_bounds(p, static_cast<std::int64_t>(k.lower),
                        static_cast<std::int64_t>(k.lower + k.range));
      ASSERT_EQ(validate(p), "") << p.describe();
      const auto e = test::even_edges64<std::uint64_t>(k.lower, k.range, bins, test::edge_bins(bins));
      p.n = e.samples.size();
      EXPECT_EQ(reference_histogram(p, e.samples.data()), e.counts) << p.describe();
    }
}

TEST(SampleTypes64Reference, OutsideTheBoundsAndDirectBins) {
  // [-2, 2) in 4 bins: the type's ends and the bounds' neighbours are outside.
  const std::int64_t s[] = {kI64Min, -3, -2, -1, 0, 1, 2, kI64Max};
  EXPECT_EQ(reference_histogram(even64<std::int64_t>(SampleType::i64, 4, 8, -2, 2), s),
            (std::vector<std::uint32_t>{1, 1, 1, 1}));
  // The largest value is never in even bins (upper is excluded), the one below is the last bin's.
  const std::uint64_t u[] = {0, 1, kU64Max - 1, kU64Max};
  EXPECT_EQ(reference_histogram(even64<std::uint64_t>(SampleType::u64, 2, 4, 0, kU64Max), u),
            (std::vector<std::uint32_t>{2, 1}));
  // Direct: the value is the bin, compared in 64 bits (2^32 is not bin 0), negatives ignored.
  const std::int64_t d[] = {kI64Min, -1, 0, 1, 255, 256, 1ll << 32, (1ll << 32) + 5, kI64Max};
  std::vector<std::uint32_t> direct(256, 0);
  direct[0] = direct[1] = direct[255] = 1;
  EXPECT_EQ(reference_histogram(problem(SampleType::i64, Binning::direct, 256, 9), d), direct);
  const std::uint64_t ud[] = {kU64Max, 1ull << 32, (1ull << 32) + 1, 7, 7};
  std::vector<std::uint32_t> udirect(8, 0);
  udirect[7] = 2;
  EXPECT_EQ(reference_histogram(problem(SampleType::u64, Binning::direct, 8, 5), ud), udirect);
  // Range: compared in the type (no double rounding: 2^60 + 1 is above 2^60).
  const std::uint64_t levels[] = {1ull << 60, (1ull << 60) + 1, kU64Max};
  const std::uint64_t r[] = {(1ull << 60) - 1, 1ull << 60, (1ull << 60) + 1, kU64Max - 1, kU64Max};
  EXPECT_EQ(reference_histogram(problem(SampleType::u64, Binning::range, 2, 5), r, levels),
            (std::vector<std::uint32_t>{1, 2}));
}

// ---- f64: the float rule in double; NaN and infinities never counted ----------------------------

TEST(SampleTypes64Reference, F64SpecialValuesAndEdges) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double s[] = {NAN,  INFINITY, -INFINITY, -1.0, -0.5,  -0.0,     0.0,
                      0.5,  1.0,      std::nextafter(1.0, 0.0), -tiny, DBL_MAX, -DBL_MAX};
  const std::uint64_t n = std::size(s);
  // Two bins over [-1, 1): bin = floor(v + 1) in double; 1 - 2^-53 + 1 rounds to 2 (the last bin),
  // -tiny + 1 to 1.
  EXPECT_EQ(reference_histogram(problem(SampleType::f64, Binning::even, 2, n, -1, 1), s),
            (std::vector<std::uint32_t>{2, 5}));
  // Infinite levels around every finite value: the infinities are still not counted.
  const double levels[] = {-INFINITY, 0.0, INFINITY};
  EXPECT_EQ(reference_histogram(problem(SampleType::f64, Binning::range, 2, n), s, levels),
            (std::vector<std::uint32_t>{4, 6}));
  // Values on bin starts go up, in double: 0.30000000000000004 (0.1 + 0.2) starts bin 3.
  const double e[] = {0.0, 0.1, 0.2, 0.30000000000000004, 0.4};
  EXPECT_EQ(reference_histogram(problem(SampleType::f64, Binning::even, 4, 5, 0, 0.4), e),
            (std::vector<std::uint32_t>{1, 1, 1, 1}));
}
