// The tuner's inputs without a GPU: range problems' levels (uneven, strictly ascending, inside the
// sample type) and samples drawn inside them; segmented problems' offsets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "histtune/half.hpp"
#include "histtune/reference.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using namespace histtune::tuner;

namespace {

Problem range(SampleType t, std::uint32_t bins, double lower, double upper, std::uint64_t n = 0) {
  Problem p;
  p.sample_type = t;
  p.binning = Binning::range;
  p.num_bins = bins;
  p.lower = lower;
  p.upper = upper;
  p.n = n;
  return p;
}

template <class T>
std::vector<T> as(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

TEST(MakeLevels, FloatLevelsAreQuadraticFromLowerToUpper) {
  const auto lv = as<float>(make_levels(range(SampleType::f32, 1024, 0, 100)));
  ASSERT_EQ(lv.size(), 1025u);
  EXPECT_EQ(lv.front(), 0.0f);
  EXPECT_EQ(lv.back(), 100.0f);
  for (std::size_t i = 1; i < lv.size(); ++i) ASSERT_LT(lv[i - 1], lv[i]) << i;
  // Narrow bins first, wide last: the last bin is about 3x the first.
  const float first = lv[1] - lv[0], last = lv[1024] - lv[1023];
  EXPECT_GT(last / first, 2.9f);
}

TEST(MakeLevels, IntegerLevelsAreStrictlyAscendingInsideTheType) {
  for (const Problem& p : {range(SampleType::u8, 255, 0, 255), range(SampleType::u8, 40, 0, 255),
                           range(SampleType::u8, 1, 0, 1)}) {
    const auto lv = as<std::uint8_t>(make_levels(p));
    ASSERT_EQ(lv.size(), p.num_bins + 1u) << p.describe();
    EXPECT_EQ(lv.front(), 0);
    EXPECT_EQ(lv.back(), static_cast<std::uint8_t>(p.upper));
    for (std::size_t i = 1; i < lv.size(); ++i) ASSERT_LT(lv[i - 1], lv[i]) << i;
  }
  const auto u32 = as<std::uint32_t>(make_levels(range(SampleType::u32, 777, 0, 4294967295.0)));
  EXPECT_EQ(u32.back(), 4294967295u);
  for (std::size_t i = 1; i < u32.size(); ++i) ASSERT_LT(u32[i - 1], u32[i]) << i;
  EXPECT_LT(u32[1] - u32[0], u32[777] - u32[776]) << "uneven";
  const auto i32 = as<std::int32_t>(make_levels(range(SampleType::i32, 64, -1000, 1000)));
  EXPECT_EQ(i32.front(), -1000);
  EXPECT_EQ(i32.back(), 1000);
}

TEST(MakeLevels, ImpossibleSpansAreRefusedWithTheReason) {
  EXPECT_NE(level_span_problem(range(SampleType::u8, 100, 0, 50)).find("upper - lower >= num_bins"),
            std::string::npos);
  EXPECT_NE(level_span_problem(range(SampleType::u8, 10, 0, 300)).find("leaves the u8 values"),
            std::string::npos);
  EXPECT_NE(level_span_problem(range(SampleType::i32, 10, 0.5, 300)).find("integral"),
            std::string::npos);
  EXPECT_NE(level_span_problem(range(SampleType::f32, 10, 1, 1)).find("lower < upper"),
            std::string::npos);
  EXPECT_THROW(make_levels(range(SampleType::u16, 100, 0, 50)), Error);
  EXPECT_EQ(level_span_problem(range(SampleType::f32, 10, -1, 1)), "");
}

TEST(MakeLevels, DefaultSpansFitTheType) {
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::i32,
                             SampleType::f32})
    for (const std::uint32_t bins : {1u, 100u, 255u}) {
      Problem p = range(t, bins, 0, 0);
      set_default_level_span(p);
      EXPECT_EQ(level_span_problem(p), "") << p.describe() << " [" << p.lower << ", " << p.upper << "]";
    }
  Problem u8 = range(SampleType::u8, 200, 0, 0);
  set_default_level_span(u8);
  EXPECT_EQ(u8.upper, 255);
  Problem u16 = range(SampleType::u16, 1000, 0, 0);
  set_default_level_span(u16);
  EXPECT_EQ(u16.upper, 4000);
}

// Runs over one or two bins: the walk's step is wider than the bins, and its reflection once
// left them (a read past the levels, then a crash).
TEST(MakeSamples, RunsOverOneOrTwoBinsStayInside) {
  for (const std::uint32_t bins : {1u, 2u}) {
    const Problem p = range(SampleType::u8, bins, 100, 201, 100003);
    const auto levels = make_levels(p);
    const auto h = reference_histogram(p, make_samples(p, 3, Distribution::runs).data(),
                                       levels.data());
    std::uint64_t total = 0;
    for (auto c : h) total += c;
    EXPECT_EQ(total, p.n) << p.describe();
  }
}

TEST(MakeSamples, RangeSamplesFallInsideTheLevelsExceptMixed) {
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::i32,
                             SampleType::f32}) {
    Problem p = range(t, 100, 0, 0, 20000);
    set_default_level_span(p);
    const auto levels = make_levels(p);
    for (const Distribution d : {Distribution::uniform, Distribution::skewed,
                                 Distribution::constant, Distribution::runs}) {
      const auto s = make_samples(p, 11, d);
      const auto h = reference_histogram(p, s.data(), levels.data());
      std::uint64_t total = 0;
      for (auto c : h) total += c;
      EXPECT_EQ(total, p.n) << p.describe() << " " << to_string(d);
    }
    // Uniform over bins of unequal widths: every bin gets samples, the widest no more than its share.
    const auto h = reference_histogram(p, make_samples(p, 12, Distribution::uniform).data(),
                                       levels.data());
    for (auto c : h) EXPECT_GT(c, 100u) << p.describe();
    const auto m = reference_histogram(p, make_samples(p, 13, Distribution::mixed).data(),
                                       levels.data());
    std::uint64_t counted = 0;
    for (auto c : m) counted += c;
    EXPECT_LT(counted, p.n) << "mixed data leaves some samples out: " << p.describe();
  }
}

namespace {

// How many of make_samples(p)'s samples (seed 7) the reference counts, per distribution (the
// benchmark's, then mixed); range problems count within make_levels(p), checked for size.
std::vector<std::pair<Distribution, std::uint64_t>> counted_by_distribution(const Problem& p) {
  std::vector<std::uint8_t> levels;
  if (p.binning == Binning::range) {
    levels = make_levels(p);
    if (levels.size() != (p.num_bins + 1) * sample_bytes(p.sample_type)) {
      ADD_FAILURE() << p.describe() << ": " << levels.size() << " bytes of levels";
      return {};
    }
  }
  std::vector<std::pair<Distribution, std::uint64_t>> out;
  for (const Distribution dist : {Distribution::uniform, Distribution::skewed,
                                  Distribution::constant, Distribution::runs, Distribution::mixed}) {
    const auto host = make_samples(p, 7, dist);
    if (host.size() != p.n * sample_bytes(p.sample_type)) {
      ADD_FAILURE() << p.describe() << ": " << host.size() << " bytes of samples";
      return out;
    }
    const auto h = reference_histogram(p, host.data(), levels.empty() ? nullptr : levels.data());
    std::uint64_t counted = 0;
    for (const std::uint32_t c : h) counted += c;
    out.emplace_back(dist, counted);
  }
  return out;
}

}  // namespace

// Issue 25's types: every distribution and binning draws samples (inside the bins, mostly: a
// half's rounding may cross an edge), and range levels are strictly ascending in the type.
TEST(MakeSamples, NewTypesDrawEveryDistributionAndBinning) {
  const Problem shapes[] = {
      flat_problem(SampleType::i8, Binning::direct, 100, 4096),
      flat_problem(SampleType::i8, Binning::even, 256, 4096, -128, 128),
      range(SampleType::i8, 100, -128, 127, 4096),
      flat_problem(SampleType::i16, Binning::direct, 4096, 4096),
      flat_problem(SampleType::i16, Binning::even, 100, 4096, -32768, 32767),
      range(SampleType::i16, 1000, -32768, 32767, 4096),
      flat_problem(SampleType::f16, Binning::even, 256, 4096, -1, 1),
      range(SampleType::f16, 1000, -500, 500, 4096),
      flat_problem(SampleType::bf16, Binning::even, 300, 4096, 0, 300),
      range(SampleType::bf16, 10000, -1000, 1000, 4096),
  };
  for (const Problem& p : shapes)
    for (const auto& [dist, counted] : counted_by_distribution(p)) {
      // Mixed draws 5% outside the bounds (and NaN, infinities); the others stay inside.
      const double least = dist == Distribution::mixed ? 0.8 : 0.98;
      EXPECT_GE(counted, least * p.n) << p.describe() << " " << to_string(dist);
    }
  // Half levels: strictly ascending and finite once converted.
  for (const Problem& p : {range(SampleType::f16, 1000, -500, 500), range(SampleType::bf16, 10000, -1000, 1000)}) {
    const auto bits = as<std::uint16_t>(make_levels(p));
    const bool f16 = p.sample_type == SampleType::f16;
    for (std::size_t i = 1; i < bits.size(); ++i) {
      const float a = f16 ? f16_to_float(bits[i - 1]) : bf16_to_float(bits[i - 1]);
      const float b = f16 ? f16_to_float(bits[i]) : bf16_to_float(bits[i]);
      ASSERT_LT(a, b) << p.describe() << " level " << i;
      ASSERT_TRUE(std::isfinite(b)) << p.describe() << " level " << i;
    }
  }
}

// The segments the tuner cuts a segmented problem into: rows + 1 ascending offsets from 0 to n,
// the same for the same seed, lengths around their mean, some empty when segments are short.
TEST(Inputs, SegmentOffsetsAscendFromZeroToN) {
  const Problem p = segmented_problem(SampleType::u32, Binning::direct, 256, 1000, 1024000);
  const std::vector<std::int64_t> o = make_offsets(p);
  ASSERT_EQ(o.size(), 1001u);
  EXPECT_EQ(o.front(), 0);
  EXPECT_EQ(o.back(), 1024000);
  EXPECT_TRUE(std::is_sorted(o.begin(), o.end()));
  EXPECT_EQ(make_offsets(p), o);
  EXPECT_NE(make_offsets(p, 12), o);
  std::int64_t longest = 0;
  for (std::size_t r = 0; r + 1 < o.size(); ++r) longest = std::max(longest, o[r + 1] - o[r]);
  EXPECT_GT(longest, 2 * 1024) << "random lengths, not equal ones";
  const Problem short_segments = segmented_problem(SampleType::u8, Binning::direct, 256, 1000, 500);
  const std::vector<std::int64_t> s = make_offsets(short_segments);
  EXPECT_NE(std::adjacent_find(s.begin(), s.end()), s.end()) << "some segments are empty";
  EXPECT_EQ(make_offsets(segmented_problem(SampleType::u8, Binning::direct, 256, 3, 0)),
            (std::vector<std::int64_t>{0, 0, 0, 0}));
}

// The 64-bit types: every distribution and binning draws samples, even bins from the exact
// bounds (whole ranges, and bounds no double holds) and inside them but for `mixed`; range
// levels strictly ascending in the type.
TEST(MakeSamples, SixtyFourBitTypesDrawEveryDistributionAndBinning) {
  Problem near = flat_problem(SampleType::u64, Binning::even, 7, 4096);
  set_even_bounds(near, (std::uint64_t{1} << 60) + 1, (std::uint64_t{1} << 60) + 1001);
  const Problem shapes[] = {
      flat_problem(SampleType::i64, Binning::direct, 4096, 4096),
      flat_problem(SampleType::i64, Binning::even, 1000, 4096, -0x1p63, 0x1p63),
      flat_problem(SampleType::i64, Binning::even, 256, 4096, -1000, 1000),
      range(SampleType::i64, 1000, -1e15, 1e15, 4096),
      flat_problem(SampleType::u64, Binning::even, 3, 4096, 0, 0x1p64),
      near,
      range(SampleType::u64, 100, 0, 1e18, 4096),
      flat_problem(SampleType::f64, Binning::even, 256, 4096, -1, 1),
      range(SampleType::f64, 5000, -1e300, 1e300, 4096),
  };
  for (const Problem& p : shapes) {
    ASSERT_EQ(validate(p), "") << p.describe();
    for (const auto& [dist, counted] : counted_by_distribution(p)) {
      if (dist == Distribution::mixed) {
        EXPECT_GE(counted, 0.8 * p.n) << p.describe();
      } else if (p.binning == Binning::range) {  // levels drawn in double may round onto the next
        EXPECT_GE(counted, 0.98 * p.n) << p.describe() << " " << to_string(dist);
      } else {
        EXPECT_EQ(counted, p.n) << p.describe() << " " << to_string(dist);
      }
    }
  }
  const auto i64 = as<std::int64_t>(make_levels(range(SampleType::i64, 1000, -1e15, 1e15)));
  for (std::size_t i = 1; i < i64.size(); ++i) ASSERT_LT(i64[i - 1], i64[i]) << i;
  const auto f64 = as<double>(make_levels(range(SampleType::f64, 5000, -1e300, 1e300)));
  for (std::size_t i = 1; i < f64.size(); ++i) ASSERT_LT(f64[i - 1], f64[i]) << i;
}
