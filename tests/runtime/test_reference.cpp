#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
