// The sample types of issue 25 on the host: i8, i16, f16 and bf16 by name, size, validation and
// NVRTC defines, the half conversions, and the host reference's rules over every value of each
// type, against counts worked out by hand (not by the reference's arithmetic).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <vector>

#include "histtune/half.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "sample_values.hpp"

using namespace histtune;
using histtune::test::every_pattern;
using histtune::test::every_value;

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool mentions(const std::vector<std::string>& v, const std::string& part) {
  for (const auto& s : v)
    if (s.find(part) != std::string::npos) return true;
  return false;
}

Problem problem(SampleType t, Binning b, std::uint32_t bins, std::uint64_t n, double lower = 0,
                double upper = 0) {
  return flat_problem(t, b, bins, n, lower, upper);
}

// Bin b of `bins` even bins over [0, range) holds the offsets d with b <= d * bins / range < b + 1:
// ceil(b * range / bins) <= d < ceil((b + 1) * range / bins).
std::vector<std::uint32_t> even_counts(std::uint64_t range, std::uint32_t bins) {
  std::vector<std::uint32_t> h(bins);
  auto ceil_div = [](std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; };
  for (std::uint32_t b = 0; b < bins; ++b)
    h[b] = static_cast<std::uint32_t>(ceil_div((b + 1ull) * range, bins) - ceil_div(b * range, bins));
  return h;
}

}  // namespace

TEST(SampleTypes, NamesSizesAndCodesKeepTheOldTypesFirst) {
  // The C API and Python pass these values: the old ones must not move.
  EXPECT_EQ(static_cast<int>(SampleType::u8), 0);
  EXPECT_EQ(static_cast<int>(SampleType::f32), 4);
  EXPECT_EQ(static_cast<int>(SampleType::i8), 5);
  EXPECT_EQ(static_cast<int>(SampleType::bf16), 8);
  for (const SampleType t : kSampleTypes) EXPECT_EQ(parse_sample_type(to_string(t)), t);
  for (const char* old : {"u8", "u16", "u32", "i32", "f32"}) EXPECT_TRUE(parse_sample_type(old));
  EXPECT_FALSE(parse_sample_type("f128"));
  EXPECT_FALSE(parse_sample_type("half"));
  EXPECT_EQ(sample_bytes(SampleType::i8), 1u);
  EXPECT_EQ(sample_bytes(SampleType::i16), 2u);
  EXPECT_EQ(sample_bytes(SampleType::f16), 2u);
  EXPECT_EQ(sample_bytes(SampleType::bf16), 2u);
  EXPECT_TRUE(is_float(SampleType::f16) && is_float(SampleType::bf16));
  EXPECT_FALSE(is_float(SampleType::i8) || is_float(SampleType::i16));
  EXPECT_TRUE(is_half(SampleType::f16) && is_half(SampleType::bf16) && !is_half(SampleType::f32));
}

TEST(SampleTypes, ValidationAllowsDirectForIntegersAndEvenAndRangeForAll) {
  EXPECT_EQ(validate(problem(SampleType::i8, Binning::direct, 256, 10)), "");
  EXPECT_EQ(validate(problem(SampleType::i16, Binning::direct, 65536, 10)), "");
  for (const SampleType t : {SampleType::f16, SampleType::bf16}) {
    EXPECT_NE(validate(problem(t, Binning::direct, 256, 10)).find("integer samples"),
              std::string::npos);
    EXPECT_EQ(validate(problem(t, Binning::even, 256, 10, -1.5, 2.25)), "");
    EXPECT_NE(validate(problem(t, Binning::even, 256, 10, 0, 1e39)).find("+-3.4e38"),
              std::string::npos);
  }
  EXPECT_EQ(validate(problem(SampleType::i8, Binning::even, 256, 10, -128, 128)), "");
  EXPECT_NE(validate(problem(SampleType::i8, Binning::even, 256, 10, -128, 127.5)).find("integral"),
            std::string::npos);
  // Range: at most one bin fewer than the type's distinct values.
  const std::pair<SampleType, std::uint32_t> most[] = {{SampleType::i8, 255},
                                                       {SampleType::i16, 65535},
                                                       {SampleType::f16, 63488},
                                                       {SampleType::bf16, 65280}};
  for (const auto& [t, bins] : most) {
    EXPECT_EQ(validate(problem(t, Binning::range, bins, 10)), "") << to_string(t);
    EXPECT_NE(validate(problem(t, Binning::range, bins + 1, 10)).find("at most"), std::string::npos)
        << to_string(t);
  }
  // The multi-channel family takes them with the same rules.
  EXPECT_EQ(validate(multichannel_problem(SampleType::i8, 4, 3, 100)), "");
  EXPECT_NE(validate(multichannel_problem(SampleType::f16, 4, 3, 100)).find("integer samples"),
            std::string::npos);
}

TEST(SampleTypes, DefinesNameTheTypeAndTheHalfFormat) {
  const auto i8 = sample_defines(problem(SampleType::i8, Binning::even, 256, 10, -128, 128));
  EXPECT_TRUE(has(i8, "-DHT_SAMPLE_T=signed char"));
  EXPECT_TRUE(has(i8, "-DHT_SAMPLE_IS_FLOAT=0"));
  EXPECT_TRUE(has(i8, "-DHT_EVEN_NARROW=1"));  // range 256, 256 bins: 32-bit arithmetic
  EXPECT_TRUE(has(sample_defines(problem(SampleType::i16, Binning::direct, 256, 10)),
                  "-DHT_SAMPLE_T=short"));
  const auto f16 = sample_defines(problem(SampleType::f16, Binning::even, 256, 10, 0, 1));
  EXPECT_TRUE(has(f16, "-DHT_SAMPLE_T=unsigned short"));
  EXPECT_TRUE(has(f16, "-DHT_SAMPLE_IS_FLOAT=1"));
  EXPECT_TRUE(has(f16, "-DHT_SAMPLE_HALF=1"));
  EXPECT_TRUE(has(sample_defines(problem(SampleType::bf16, Binning::range, 256, 10)),
                  "-DHT_SAMPLE_HALF=2"));
  // The old types' requests are unchanged: no half define.
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::f32})
    EXPECT_FALSE(mentions(sample_defines(problem(t, Binning::even, 256, 10, 0, 256)), "HALF"));
  EXPECT_FALSE(every_value_a_bin(problem(SampleType::i8, Binning::direct, 256, 10)));
}

TEST(HalfConversion, KnownPatternsAndEveryPatternRoundTrips) {
  EXPECT_EQ(f16_to_float(0x3C00), 1.0f);
  EXPECT_EQ(f16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(f16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(f16_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(f16_to_float(0xC000), -2.0f);
  EXPECT_TRUE(std::signbit(f16_to_float(0x8000)) && f16_to_float(0x8000) == 0.0f);
  EXPECT_EQ(f16_to_float(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(f16_to_float(0x7E00)));
  EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_float(0x0001), std::ldexp(1.0f, -133));
  EXPECT_EQ(bf16_to_float(0x7F80), INFINITY);
  EXPECT_TRUE(std::isnan(bf16_to_float(0xFFC0)));
  // Ties to even, overflow to infinity.
  EXPECT_EQ(float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(float_to_f16(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_f16(65520.0f), 0x7C00);
  EXPECT_EQ(float_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // a tie between 0 and 2^-24
  EXPECT_EQ(float_to_f16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7F80);
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const auto h = static_cast<std::uint16_t>(i);
    if (!std::isnan(f16_to_float(h))) {
      ASSERT_EQ(float_to_f16(f16_to_float(h)), h) << i;
    }
    if (!std::isnan(bf16_to_float(h))) {
      ASSERT_EQ(float_to_bf16(bf16_to_float(h)), h) << i;
    }
  }
}

// ---- the reference over every value: i8 and i16 are sign-extended, exact over the whole range --

TEST(SampleTypesReference, EveryI8Value) {
  const auto s = every_value<std::int8_t>();
  // Direct: the 128 non-negative values are their bins; negative values are ignored.
  std::vector<std::uint32_t> direct(256, 0);
  for (int b = 0; b < 128; ++b) direct[b] = 1;
  EXPECT_EQ(reference_histogram(problem(SampleType::i8, Binning::direct, 256, 256), s.data()),
            direct);
  // Even over the whole range (CUB: everything in bin 0 or negatives dropped, cccl 10975/10977).
  EXPECT_EQ(reference_histogram(problem(SampleType::i8, Binning::even, 256, 256, -128, 128), s.data()),
            std::vector<std::uint32_t>(256, 1));
  EXPECT_EQ(reference_histogram(problem(SampleType::i8, Binning::even, 3, 256, -128, 128), s.data()),
            (std::vector<std::uint32_t>{86, 85, 85}));
  // cccl 10977's case: 4 bins of width 31 over [-60, 64).
  const std::int8_t four[] = {-60, -1, 10, 63};
  EXPECT_EQ(reference_histogram(problem(SampleType::i8, Binning::even, 4, 4, -60, 64), four),
            (std::vector<std::uint32_t>{1, 1, 1, 1}));
  const std::int8_t levels[] = {-128, -1, 0, 127};
  EXPECT_EQ(reference_histogram(problem(SampleType::i8, Binning::range, 3, 256), s.data(), levels),
            (std::vector<std::uint32_t>{127, 1, 127}));
}

TEST(SampleTypesReference, EveryI16Value) {
  const auto s = every_value<std::int16_t>();
  const std::uint64_t n = s.size();
  const auto direct = reference_histogram(problem(SampleType::i16, Binning::direct, 65536, n), s.data());
  for (std::uint32_t b = 0; b < 65536; ++b) ASSERT_EQ(direct[b], b < 32768 ? 1u : 0u) << b;
  EXPECT_EQ(reference_histogram(problem(SampleType::i16, Binning::even, 256, n, -32768, 32768), s.data()),
            std::vector<std::uint32_t>(256, 256));
  // cccl 10975's case: 100 bins over [-32768, 32767) (every sample in bin 0 from CUB).
  EXPECT_EQ(reference_histogram(problem(SampleType::i16, Binning::even, 100, n, -32768, 32767), s.data()),
            even_counts(65535, 100));
  const std::int16_t levels[] = {-32768, -100, 0, 100, 32767};
  EXPECT_EQ(reference_histogram(problem(SampleType::i16, Binning::range, 4, n), s.data(), levels),
            (std::vector<std::uint32_t>{32668, 100, 100, 32667}));
}

// ---- halfs: the float rule on the converted sample; NaN and infinities never counted ----------

TEST(SampleTypesReference, F16SpecialValuesAndEdges) {
  // NaN, +-inf, +-smallest subnormal, largest subnormal, -0, +0, 1, 0.5, +-65504, -1.
  const std::uint16_t s[] = {0x7E00, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x03FF, 0x8000,
                             0x0000, 0x3C00, 0x3800, 0x7BFF, 0xFBFF, 0xBC00};
  const std::uint64_t n = std::size(s);
  // Two bins over [-1, 1): bin = floor(v + 1) in float. -2^-24 + 1 is a float below 1: bin 0.
  EXPECT_EQ(reference_histogram(problem(SampleType::f16, Binning::even, 2, n, -1, 1), s),
            (std::vector<std::uint32_t>{2, 5}));
  // Values exactly on edges go up; the largest f16 below 4 (3.998) is in the last bin.
  const std::uint16_t edges[] = {0x3C00, 0x4000, 0x4200, 0x43FF, 0x4400, 0x0000};
  EXPECT_EQ(reference_histogram(problem(SampleType::f16, Binning::even, 4, 6, 0, 4), edges),
            (std::vector<std::uint32_t>{1, 1, 1, 2}));
  // Infinite levels: every finite sample is between them, the infinities are not counted.
  const std::uint16_t levels[] = {0xFC00, 0x0000, 0x7C00};
  EXPECT_EQ(reference_histogram(problem(SampleType::f16, Binning::range, 2, n), s, levels),
            (std::vector<std::uint32_t>{3, 7}));
}

TEST(SampleTypesReference, EveryF16AndBf16Pattern) {
  const auto s = every_pattern();
  // f16 over [-1, 1): the 15360 negatives in [-1, 0) in bin 0; -0, +0 and the 15359 positives
  // below 1 in bin 1 (v + 1 is exact in float for every f16 v).
  const std::vector<std::uint32_t> f16{15360, 15361};
  EXPECT_EQ(reference_histogram(problem(SampleType::f16, Binning::even, 2, 65536, -1, 1), s.data()), f16);
  const std::uint16_t f16_levels[] = {0xBC00, 0x0000, 0x3C00};
  EXPECT_EQ(reference_histogram(problem(SampleType::f16, Binning::range, 2, 65536), s.data(), f16_levels),
            f16);
  // bf16 over [-1, 1) in float: v + 1 rounds to 1 for negatives down to -2^-25 (0xB300, a tie to
  // even): those 13056 land in bin 1 with -0, +0 and the 16255 positives below 1; the 3200
  // negatives from below -2^-25 to -1 in bin 0. Range binning compares, no rounding: 16256.
  EXPECT_EQ(reference_histogram(problem(SampleType::bf16, Binning::even, 2, 65536, -1, 1), s.data()),
            (std::vector<std::uint32_t>{3200, 29313}));
  const std::uint16_t bf16_levels[] = {0xBF80, 0x0000, 0x3F80};
  EXPECT_EQ(reference_histogram(problem(SampleType::bf16, Binning::range, 2, 65536), s.data(),
                                bf16_levels),
            (std::vector<std::uint32_t>{16256, 16257}));
}

// The multi-channel and row calls of issue 25's types refuse bad input before anything runs
// (these host counters could not even be written by a launch), with what failed; C and C++.
TEST(SampleTypes, TheFamiliesOfTheNewTypesRefuseBadInputBeforeAnythingRuns) {
  std::vector<std::uint32_t> counts(4 * 256, 0x5A5A5A5Au);
  const auto refused = [&](const Status& st, const std::string& says) {
    EXPECT_EQ(st.code(), StatusCode::invalid_argument) << st.message();
    EXPECT_NE(st.message().find(says), std::string::npos) << st.message() << " / " << says;
  };
  const auto* i16 = reinterpret_cast<const std::int16_t*>(0x1001);
  refused(histogram_multichannel_direct(i16, 10, 4, 3, 16, counts.data()), "not aligned");
  const auto* f64 = reinterpret_cast<const double*>(0x1000);
  refused(histogram_multichannel_range(f64, 10, 4, 3, 16, nullptr, counts.data()),
          "d_levels is null");
  refused(histogram_multichannel_range(f64, 10, 4, 3, 16, f64 + 1,
                                       reinterpret_cast<std::uint32_t*>(0x2002)),
          "not aligned");
  const auto* i8 = reinterpret_cast<const std::int8_t*>(0x1000);
  refused(histogram_multichannel_range(i8, 10, 4, 4, 256, i8, counts.data()), "at most 255");
  const auto* u64 = reinterpret_cast<const std::uint64_t*>(0x1000);
  refused(histogram_multichannel_even(u64, 10, 4, 4, 16, std::uint64_t{9}, std::uint64_t{9},
                                      counts.data()),
          "lower < upper");
  refused(histogram_multichannel_even(reinterpret_cast<const __half*>(0x1000), 10, 4, 4, 16, 0.0f,
                                      INFINITY, counts.data()),
          "finite");
  refused(histogram_multichannel_direct(u64, 10, 4, 4, 16, static_cast<std::uint32_t*>(nullptr)),
          "d_counts is null");
  refused(histogram_batched_even(reinterpret_cast<const __nv_bfloat16*>(0x1000), 4, 100, 99, 16,
                                 -1.0f, 1.0f, counts.data()),
          "row_stride");
  refused(histogram_batched_direct(reinterpret_cast<const std::int64_t*>(0x1004), 4, 10, 0, 16,
                                   counts.data()),
          "not aligned");
  refused(histogram_segmented_range(f64, 100, 4, nullptr, 16, f64, counts.data()),
          "d_offsets is null");
  refused(histogram_segmented_direct(i8, 100, 4, reinterpret_cast<const std::int64_t*>(0x3004), 16,
                                     counts.data()),
          "8-byte offsets");
  EXPECT_EQ(histtune_histogram_multichannel_direct_pitched_i64(
                reinterpret_cast<const std::int64_t*>(0x1000), 10, 3, 10 * 4 * 8 - 8, 4, 4, 16,
                counts.data(), nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("row_pitch_bytes"), std::string::npos)
      << histtune_last_error();
  EXPECT_EQ(histtune_histogram_segmented_even_bf16(reinterpret_cast<const std::uint16_t*>(0x1000),
                                                   100, 4, nullptr, 16, 1.0f, -1.0f,
                                                   counts.data(), nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  for (const std::uint32_t c : counts) EXPECT_EQ(c, 0x5A5A5A5Au);
}
