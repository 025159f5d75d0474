// The tie/win decision of `histtune compare`: overlapping spreads and medians within 2% are ties,
// never wins; only separated spreads with medians further apart decide.
#include <gtest/gtest.h>

#include <limits>

#include "verdict.hpp"

using histtune::cli::judge;
using histtune::cli::kTieTolerance;
using histtune::cli::Spread;
using histtune::cli::Verdict;

TEST(Verdict, SeparatedRangesFarApartDecide) {
  // H100, u8 direct 256 bins, 2^28: tuned vs CUB, measured apart.
  const Spread tuned{0.1228, 0.1235, 0.1245}, cub{0.1296, 0.1308, 0.1317};
  auto j = judge(tuned, cub);
  EXPECT_EQ(j.verdict, Verdict::win);
  EXPECT_FALSE(j.ranges_overlap);
  EXPECT_FALSE(j.within_tolerance);
  EXPECT_EQ(judge(cub, tuned).verdict, Verdict::loss);
}

TEST(Verdict, OverlappingRangesAreATieEvenWithMediansFarApart) {
  // H100, u8 direct 256 bins, 2^24: medians 7% apart, but the spreads overlap.
  const Spread tuned{0.0141, 0.0144, 0.0180}, cub{0.0149, 0.0154, 0.0176};
  auto j = judge(tuned, cub);
  EXPECT_EQ(j.verdict, Verdict::tie);
  EXPECT_TRUE(j.ranges_overlap);
  EXPECT_FALSE(j.within_tolerance);
  EXPECT_EQ(judge(cub, tuned).verdict, Verdict::tie) << "symmetric";
}

TEST(Verdict, TouchingRangesOverlap) {
  EXPECT_EQ(judge({1.0, 1.1, 1.2}, {1.2, 1.3, 1.4}).verdict, Verdict::tie);
  EXPECT_EQ(judge({1.0, 1.1, 1.19}, {1.2, 1.3, 1.4}).verdict, Verdict::win);
}

TEST(Verdict, MediansWithinTheBandAreATieEvenWithTightRanges) {
  EXPECT_DOUBLE_EQ(kTieTolerance, 0.02);
  // 1.9% apart, ranges separate: still a tie.
  auto j = judge({1.000, 1.000, 1.000}, {1.019, 1.019, 1.019});
  EXPECT_EQ(j.verdict, Verdict::tie);
  EXPECT_FALSE(j.ranges_overlap);
  EXPECT_TRUE(j.within_tolerance);
  // 2.1% apart: decided.
  EXPECT_EQ(judge({1.000, 1.000, 1.000}, {1.021, 1.021, 1.021}).verdict, Verdict::win);
  EXPECT_EQ(judge({1.021, 1.021, 1.021}, {1.000, 1.000, 1.000}).verdict, Verdict::loss);
  // The band is a parameter.
  EXPECT_EQ(judge({1.0, 1.0, 1.0}, {1.04, 1.04, 1.04}, 0.05).verdict, Verdict::tie);
}

TEST(Verdict, AMedianWithoutARangeIsAPoint) {
  // min and max unset (0): only the medians and the band decide.
  EXPECT_EQ(judge({0, 1.0, 0}, {0, 2.0, 0}).verdict, Verdict::win);
  EXPECT_EQ(judge({0, 1.0, 0}, {0, 1.01, 0}).verdict, Verdict::tie);
}

TEST(Verdict, UnmeasuredOrNonFiniteMediansCannotWin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(judge({0, 0, 0}, {1, 1, 1}).verdict, Verdict::tie);
  EXPECT_EQ(judge({1, 1, 1}, {0, 0, 0}).verdict, Verdict::tie);
  EXPECT_EQ(judge({nan, nan, nan}, {1, 1, 1}).verdict, Verdict::tie);
  EXPECT_EQ(judge({1, 1, 1}, {inf, inf, inf}).verdict, Verdict::tie);
  EXPECT_EQ(judge({-1, -1, -1}, {1, 1, 1}).verdict, Verdict::tie);
}

TEST(Verdict, NamesAreWinTieLoss) {
  EXPECT_STREQ(to_string(Verdict::win), "win");
  EXPECT_STREQ(to_string(Verdict::tie), "tie");
  EXPECT_STREQ(to_string(Verdict::loss), "loss");
}
