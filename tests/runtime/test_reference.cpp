#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "histtune/db/database.hpp"
#include "histtune/reference.hpp"

using namespace histtune;

TEST(Reference, DirectCountsValuesBelowBinsAndIgnoresTheRest) {
  const std::int32_t s[] = {0, 1, 1, 3, 4, 100, -1, -2147483647 - 1};
  Problem p;
  p.sample_type = SampleType::i32;
  p.num_bins = 4;
  p.n = 8;
  EXPECT_EQ(reference_histogram(p, s), (std::vector<std::uint32_t>{1, 2, 0, 1}));
}

TEST(Reference, EvenIntegerBinsUseExactIntegerArithmetic) {
  // 3 bins over [10, 20): widths 10/3 -> bin = (s - 10) * 3 / 10.
  const std::uint16_t s[] = {9, 10, 13, 14, 16, 17, 19, 20, 65535};
  Problem p;
  p.sample_type = SampleType::u16;
  p.binning = Binning::even;
  p.num_bins = 3;
  p.lower = 10;
  p.upper = 20;
  p.n = 9;
  // 10->0 13->0 14->1 16->1 17->2 19->2
  EXPECT_EQ(reference_histogram(p, s), (std::vector<std::uint32_t>{2, 2, 2}));
}

TEST(Reference, EvenFloatIgnoresNanAndOutOfRange) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float s[] = {0.0f, 0.49f, 0.5f, 0.99999994f, 1.0f, -0.0f, nan, -1.0f};
  Problem p;
  p.sample_type = SampleType::f32;
  p.binning = Binning::even;
  p.num_bins = 2;
  p.lower = 0;
  p.upper = 1;
  p.n = 8;
  EXPECT_EQ(reference_histogram(p, s), (std::vector<std::uint32_t>{3, 2}));
}

TEST(Problem, ValidateNamesWhatIsWrong) {
  Problem p;
  p.num_bins = 0;
  EXPECT_NE(validate(p).find("num_bins"), std::string::npos);
  p.num_bins = 16;
  p.n = kMaxSamples + 1;
  EXPECT_NE(validate(p).find("2^32"), std::string::npos);
  p.n = 10;
  p.binning = Binning::even;
  p.lower = 5;
  p.upper = 5;
  EXPECT_NE(validate(p).find("lower < upper"), std::string::npos);
  p.upper = 5.5;
  EXPECT_NE(validate(p).find("integral"), std::string::npos);
  p.sample_type = SampleType::f32;
  EXPECT_EQ(validate(p), "");
  p.binning = Binning::direct;
  EXPECT_NE(validate(p).find("integer samples"), std::string::npos);
}

// ---- range binning: bin i holds levels[i] <= s < levels[i + 1] ---------------------------------

namespace {
Problem range_problem(SampleType t, std::uint32_t bins, std::uint64_t n) {
  Problem p;
  p.sample_type = t;
  p.binning = Binning::range;
  p.num_bins = bins;
  p.n = n;
  return p;
}
}  // namespace

// Reported by fuzz_problem_spec: validate() took f32 even bins over infinite bounds, which the
// kernels and the reference bin as NaN (an undefined float-to-integer conversion).
TEST(Problem, ValidateRefusesEvenBoundsThatAreNotFiniteNumbers) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (SampleType t : {SampleType::f32, SampleType::i32}) {
    Problem p = flat_problem(t, Binning::even, 256, 1 << 20, -inf, 100);
    EXPECT_EQ(validate(p), "even binning needs finite bounds, got lower = -inf, upper = 100");
    p.lower = 0;
    p.upper = inf;
    EXPECT_EQ(validate(p), "even binning needs finite bounds, got lower = 0, upper = inf");
    p.lower = -inf;
    EXPECT_NE(validate(p).find("finite bounds"), std::string::npos);
    p.upper = nan;
    EXPECT_EQ(validate(p), "even binning needs bounds that are numbers, got lower = -inf, upper = nan");
    p.lower = nan;
    p.upper = 1;
    EXPECT_NE(validate(p).find("bounds that are numbers"), std::string::npos);
  }
  Problem big = flat_problem(SampleType::f32, Binning::even, 256, 1 << 20, 0, 1e300);
  EXPECT_EQ(validate(big),
            "even binning of f32 samples needs bounds within a float's +-3.4e38, got lower = 0, "
            "upper = 1e+300");
  big.lower = -3e38;
  big.upper = 3e38;
  EXPECT_NE(validate(big).find("overflows float"), std::string::npos);
  Problem far = flat_problem(SampleType::i32, Binning::even, 256, 1 << 20, 1e18, 1e18 + 4096);
  EXPECT_NE(validate(far).find("within +-2^53"), std::string::npos);
  Problem pixels = multichannel_problem(SampleType::u16, 4, 4, 1 << 20, 64, Binning::even);
  pixels.upper = inf;
  EXPECT_NE(validate(pixels).find("finite bounds"), std::string::npos) << "every family";
  pixels.upper = 4096;
  EXPECT_EQ(validate(pixels), "");
}

TEST(RangeReference, IntegerBoundariesBelowAndAbove) {
  const std::uint16_t levels[] = {10, 12, 20, 100};
  const std::uint16_t s[] = {9, 10, 11, 12, 19, 20, 99, 100, 0, 65535};
  EXPECT_EQ(reference_histogram(range_problem(SampleType::u16, 3, 10), s, levels),
            (std::vector<std::uint32_t>{2, 2, 2}));
}

TEST(RangeReference, SignedLevelsAndOneBin) {
  const std::int32_t levels[] = {-5, 5};
  const std::int32_t s[] = {-5, 0, 4, 5, -6, -2147483647 - 1, 2147483647};
  EXPECT_EQ(reference_histogram(range_problem(SampleType::i32, 1, 7), s, levels),
            (std::vector<std::uint32_t>{3}));
}

TEST(RangeReference, FloatIgnoresNanInfinityAndOutOfRange) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float levels[] = {-1.0f, 0.0f, 0.5f, 10.0f};
  const float s[] = {-1.0f, -0.0f, 0.0f, 0.49999997f, 0.5f, 9.999999f,
                     10.0f, nan,   inf,  -inf,        -1.0000001f};
  // -1 -> 0; -0, 0, 0.4999 -> 1 (-0 == 0); 0.5, 9.99 -> 2; the rest in no bin.
  EXPECT_EQ(reference_histogram(range_problem(SampleType::f32, 3, 11), s, levels),
            (std::vector<std::uint32_t>{1, 3, 2}));
}

TEST(RangeReference, U8UnevenLevelsOverEveryValue) {
  const std::uint8_t levels[] = {0, 1, 3, 7, 255};
  std::vector<std::uint8_t> s(256);
  for (int v = 0; v < 256; ++v) s[v] = static_cast<std::uint8_t>(v);
  // 255 is the last level: not counted (levels are u8, so u8 range binning never counts 255).
  EXPECT_EQ(reference_histogram(range_problem(SampleType::u8, 4, 256), s.data(), levels),
            (std::vector<std::uint32_t>{1, 2, 4, 248}));
}

TEST(RangeReference, LargeU32LevelsAtTheTopOfTheType) {
  const std::uint32_t levels[] = {0, 4000000000u, 4294967295u};
  const std::uint32_t s[] = {0, 3999999999u, 4000000000u, 4294967294u, 4294967295u};
  EXPECT_EQ(reference_histogram(range_problem(SampleType::u32, 2, 5), s, levels),
            (std::vector<std::uint32_t>{2, 2}));
}

TEST(RangeReference, MultiChannelSharesTheLevels) {
  const std::uint8_t levels[] = {0, 2, 4};
  const std::uint8_t px[] = {0, 3, 9, 7, 1, 2, 4, 0};  // 2 rows of 4 channels, 3 active
  Problem p = range_problem(SampleType::u8, 2, 2);
  p.family = Family::multichannel;
  p.channels = 4;
  p.active_channels = 3;
  // channel 0: 0, 1 -> bin 0 twice; channel 1: 3, 2 -> bin 1 twice; channel 2: 9, 4 -> none.
  EXPECT_EQ(reference_histogram(p, px, levels), (std::vector<std::uint32_t>{2, 0, 0, 2, 0, 0}));
}

TEST(RangeReference, NeedsTheHostLevels) {
  const float s[] = {1.0f};
  EXPECT_THROW(reference_histogram(range_problem(SampleType::f32, 4, 1), s), std::invalid_argument);
  EXPECT_EQ(reference_histogram(range_problem(SampleType::f32, 4, 0), s),
            (std::vector<std::uint32_t>(4, 0)));
}

TEST(RangeProblem, BinningTextRoundTripsAndIsInTheKeyButTheLevelsAreNot) {
  EXPECT_STREQ(to_string(Binning::range), "range");
  EXPECT_EQ(parse_binning("range"), Binning::range);
  EXPECT_EQ(parse_binning(to_string(Binning::even)), Binning::even);
  EXPECT_EQ(parse_binning("ranges"), std::nullopt);
  Problem a = range_problem(SampleType::f32, 1024, 1 << 24);
  Problem b = a;
  b.d_levels = reinterpret_cast<const void*>(0x1000);
  EXPECT_TRUE(a.key() == b.key());
  EXPECT_EQ(a.key().binning, "range");
  Problem even = a;
  even.binning = Binning::even;
  EXPECT_FALSE(even.key() == a.key());
  Problem more = a;
  more.num_bins = 1025;
  EXPECT_FALSE(more.key() == a.key());
  EXPECT_NE(a.describe().find("range bins=1024"), std::string::npos) << a.describe();
}

TEST(RangeProblem, ValidateCountsTheLevelsTheTypeCanHold) {
  EXPECT_EQ(validate(range_problem(SampleType::u8, 255, 10)), "");
  EXPECT_NE(validate(range_problem(SampleType::u8, 256, 10)).find("at most 255 bins"),
            std::string::npos);
  EXPECT_EQ(validate(range_problem(SampleType::u16, 65535, 10)), "");
  EXPECT_NE(validate(range_problem(SampleType::u16, 65536, 10)).find("65535"), std::string::npos);
  EXPECT_EQ(validate(range_problem(SampleType::u32, 1u << 20, 10)), "");
  EXPECT_NE(validate(range_problem(SampleType::f32, 0, 10)).find("num_bins"), std::string::npos);
}

TEST(RangeProblem, DefinesAndSharedMemoryFollowTheLevelsSize) {
  // The other binnings get no HT_RANGE_MODE (same kernels as before range binning existed).
  Problem even = range_problem(SampleType::f32, 64, 10);
  even.binning = Binning::even;
  EXPECT_EQ(sample_defines(even),
            (std::vector<std::string>{"-DHT_SAMPLE_T=float", "-DHT_BINNING=1",
                                      "-DHT_SAMPLE_IS_FLOAT=1", "-DHT_EVERY_VALUE_A_BIN=0"}));
  EXPECT_EQ(range_smem_bytes(even), 0u);
  // u8: the 256-byte table, whatever the bins.
  const Problem u8 = range_problem(SampleType::u8, 3, 10);
  EXPECT_EQ(range_mode(u8), 2);
  EXPECT_EQ(range_smem_bytes(u8), 256u);
  EXPECT_EQ(sample_defines(u8).back(), "-DHT_RANGE_MODE=2");
  EXPECT_EQ(sample_defines(u8)[1], "-DHT_BINNING=2");
  // Staged up to kRangeStageMaxBytes of levels, rounded up to whole words.
  EXPECT_EQ(range_mode(range_problem(SampleType::u16, 2, 10)), 1);
  EXPECT_EQ(range_smem_bytes(range_problem(SampleType::u16, 2, 10)), 8u);  // 3 x 2 bytes
  EXPECT_EQ(range_mode(range_problem(SampleType::f32, 4095, 10)), 1);
  EXPECT_EQ(range_smem_bytes(range_problem(SampleType::f32, 4095, 10)), kRangeStageMaxBytes);
  EXPECT_EQ(range_mode(range_problem(SampleType::u16, 8191, 10)), 1);
  // Beyond: in global memory below kRangeIndexFromBins bins, then an index of every 2^shift-th
  // level, the fewest windows within kRangeIndexMaxBytes.
  EXPECT_EQ(range_mode(range_problem(SampleType::f32, 4096, 10)), 0);
  EXPECT_EQ(range_smem_bytes(range_problem(SampleType::f32, 4096, 10)), 0u);
  EXPECT_EQ(range_mode(range_problem(SampleType::f32, kRangeIndexFromBins - 1, 10)), 0);
  const Problem first = range_problem(SampleType::f32, kRangeIndexFromBins, 10);
  EXPECT_EQ(range_mode(first), 3);
  EXPECT_EQ(range_index_shift(first), 3);  // 2048 windows of 8 levels, 8192 bytes
  EXPECT_EQ(range_smem_bytes(first), kRangeIndexMaxBytes);
  EXPECT_EQ(sample_defines(first).back(),
            "-DHT_RANGE_INDEX_BYTES=" + std::to_string(kRangeIndexMaxBytes));
  const Problem f2p20 = range_problem(SampleType::f32, 1u << 20, 10);
  EXPECT_EQ(range_index_shift(f2p20), 9);
  EXPECT_EQ(range_smem_bytes(f2p20), 2048u * 4);
  // A last window of fewer levels: ceil(1000001 / 512) = 1954 windows.
  const Problem odd = range_problem(SampleType::f32, 1000001, 10);
  EXPECT_EQ(range_index_shift(odd), 9);
  EXPECT_EQ(range_smem_bytes(odd), 1954u * 4);
  // The window search's 32-bit arithmetic bounds the bins (2^21-level windows here).
  EXPECT_EQ(validate(range_problem(SampleType::u32, 4292870143u, 10)), "");
  EXPECT_EQ(validate(range_problem(SampleType::u32, 4292870144u, 10)),
            "range binning of u32 samples has at most 4292870143 bins (its search's 32-bit "
            "windows), got 4292870144");
  EXPECT_EQ(range_mode(range_problem(SampleType::u16, 8192, 10)), 0);
  EXPECT_EQ(range_mode(range_problem(SampleType::u16, 30000, 10)), 3);
  EXPECT_EQ(range_smem_bytes(range_problem(SampleType::u16, 30000, 10)), 3750u * 2);  // 8 a window
}

namespace {

Problem even_problem(SampleType t, std::uint32_t bins, double lower, double upper) {
  return flat_problem(t, Binning::even, bins, 1u << 24, lower, upper);
}

bool has_narrow_define(const Problem& p) {
  for (const auto& d : sample_defines(p))
    if (d == "-DHT_EVEN_NARROW=1") return true;
  return false;
}

// What the kernel computes under HT_EVEN_NARROW (ht_common.cuh), from the same recip_i.
std::uint32_t narrow_bin(std::uint64_t d, std::uint32_t bins, std::uint64_t range) {
  const std::uint64_t recip_i = ~0ull / range;  // kernel_args.cpp
  const auto m = static_cast<std::uint32_t>(recip_i >> 32) + 1u;
  const auto x = static_cast<std::uint32_t>(d * bins);
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(x) * m) >> 32);
}

// Mode 2: x times the 64-bit M = recip_i + 1, high 64 bits, from two 32-bit halves of M.
std::uint32_t narrow_bin2(std::uint64_t d, std::uint32_t bins, std::uint64_t range) {
  const std::uint64_t m = ~0ull / range + 1;
  const auto x = static_cast<std::uint32_t>(d * bins);
  const std::uint64_t hi_of_lo = (static_cast<std::uint64_t>(x) * static_cast<std::uint32_t>(m)) >> 32;
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(x) * (m >> 32) + hi_of_lo) >> 32);
}

}  // namespace

TEST(EvenNarrow, ThirtyTwoBitArithmeticOnlyWhereItIsExact) {
  // The default plan's integer even problems whose bounds allow it: one multiply-high.
  EXPECT_EQ(even_narrow(even_problem(SampleType::u8, 64, 0, 256)), 1);
  EXPECT_EQ(even_narrow(even_problem(SampleType::u16, 256, 0, 65536)), 1);
  EXPECT_EQ(even_narrow(even_problem(SampleType::i32, 256, -1000, 1000)), 1);
  EXPECT_EQ(even_narrow(even_problem(SampleType::u32, 1024, 0, 1 << 20)), 1);
  EXPECT_EQ(even_narrow(even_problem(SampleType::u8, 100, 10, 250)), 1);
  // d * bins can pass 2^32: 64-bit.
  EXPECT_FALSE(even_narrow(even_problem(SampleType::i32, 65536, -1048576, 1048576)));
  EXPECT_FALSE(even_narrow(even_problem(SampleType::u32, 777, 0, 4294967296.0)));
  EXPECT_FALSE(even_narrow(even_problem(SampleType::u8, 7, -2147483648.0, 2147483648.0)));
  // Small enough, but one multiply-high is not exact for every offset: the 64-bit reciprocal.
  EXPECT_EQ(even_narrow(even_problem(SampleType::i32, 300, -70000, 70000)), 2);
  EXPECT_NE(narrow_bin(16333, 300, 140000), 16333u * 300 / 140000);  // why mode 1 must not be used
  EXPECT_EQ(narrow_bin2(16333, 300, 140000), 16333u * 300 / 140000);
  EXPECT_EQ(even_narrow(even_problem(SampleType::u16, 4, 0, 65535)), 2);
  EXPECT_NE(narrow_bin(49151, 4, 65535), 49151u * 4 / 65535);
  EXPECT_EQ(narrow_bin2(49151, 4, 65535), 49151u * 4 / 65535);
  // i16 over [-32768, 32767) with 256 bins (issue 25's row as first measured): mode 2.
  EXPECT_EQ(even_narrow(even_problem(SampleType::i16, 256, -32768, 32767)), 2);
  // 32-bit offsets: exact while every value's offset lies in [range - 2^32, 2^32); the last
  // 999 i32 values just do (INT_MIN's offset wraps to 1000), bounds far beyond u8's do not.
  EXPECT_EQ(even_narrow(even_problem(SampleType::i32, 100, 2147482648.0, 2147483647.0)), 1);
  EXPECT_EQ(even_narrow(even_problem(SampleType::i32, 100, 2147482650.0, 2147483650.0)), 0);  // would wrap to 998
  EXPECT_EQ(even_narrow(even_problem(SampleType::u8, 10, -4294967100.0, -4294966100.0)), 0);
  // A range of 1 (m would not fit 32 bits), floats and the other binnings: never.
  EXPECT_FALSE(even_narrow(even_problem(SampleType::u16, 1, 5, 6)));
  EXPECT_FALSE(even_narrow(even_problem(SampleType::f32, 64, 0, 256)));
  EXPECT_FALSE(even_narrow(flat_problem(SampleType::u8, Binning::direct, 64, 1u << 24)));
  // The define follows even_narrow; other problems' compile requests are unchanged.
  EXPECT_TRUE(has_narrow_define(even_problem(SampleType::u8, 64, 0, 256)));
  EXPECT_FALSE(has_narrow_define(even_problem(SampleType::u32, 777, 0, 4294967296.0)));
  EXPECT_EQ(sample_defines(even_problem(SampleType::u32, 777, 0, 4294967296.0)).size(), 4u);
}

TEST(EvenNarrow, WhereItHoldsEveryOffsetGetsTheExactBin) {
  // Every offset of each range against floor(d * bins / range), the reference's arithmetic;
  // ranges of 3 to 2^20 and 3 to 65536 bins, power-of-two and odd, bins above and below the range.
  const std::pair<std::uint64_t, std::uint32_t> cases[] = {
      {256, 64}, {240, 100}, {2000, 256}, {7, 3}, {3, 1000}, {255, 256}, {65536, 1000},
      {65536, 65536}, {1u << 20, 1024}, {4099, 100}, {100011, 3}, {10007, 10}};
  for (const auto& [range, bins] : cases) {
    ASSERT_EQ(even_narrow(even_problem(SampleType::u32, bins, 0, static_cast<double>(range))), 1)
        << range << " " << bins;
    std::uint64_t wrong = 0;
    for (std::uint64_t d = 0; d < range; ++d) wrong += narrow_bin(d, bins, range) != d * bins / range;
    EXPECT_EQ(wrong, 0u) << "range " << range << ", " << bins << " bins";
  }
}

TEST(EvenNarrow, TheSixtyFourBitReciprocalGetsEveryOffsetsBinWhereOneMultiplyHighCannot) {
  // Mode 2's cases: (range - 1) * bins < 2^32 but one multiply-high is not exact; ranges up to
  // 2^32 - 1 (offsets sampled beyond 2^22: the first and last 2^21 and a stride between).
  const std::pair<std::uint64_t, std::uint32_t> cases[] = {
      {65535, 256}, {65535, 4}, {140000, 300}, {131071, 32768}, {4294967295ull, 1},
      {3000000007ull, 1}, {1000003, 4000}, {65537, 65535}};
  for (const auto& [range, bins] : cases) {
    ASSERT_EQ(even_narrow(even_problem(SampleType::u32, bins, 0, static_cast<double>(range))), 2)
        << range << " " << bins;
    std::uint64_t wrong = 0, tried = 0;
    const std::uint64_t edge = 1u << 21, step = range > 2 * edge ? (range - 2 * edge) / 4093 + 1 : 1;
    for (std::uint64_t d = 0; d < range; d += (d < edge || d + edge >= range) ? 1 : step, ++tried)
      wrong += narrow_bin2(d, bins, range) != d * bins / range;
    EXPECT_EQ(wrong, 0u) << "range " << range << ", " << bins << " bins, " << tried << " offsets";
  }
}
