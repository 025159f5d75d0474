#include <gtest/gtest.h>

#include "histtune/tuner/timing.hpp"
#include "histtune/tuner/tuner.hpp"

using namespace histtune;

TEST(Timing, SummarizeTakesTheMedianAndTheSpread) {
  auto t = tuner::summarize({5, 1, 3, 2, 4});
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.min_ms, 1);
  EXPECT_DOUBLE_EQ(t.max_ms, 5);
  EXPECT_EQ(t.samples, 5);
  EXPECT_DOUBLE_EQ(tuner::summarize({4, 1, 3, 2}).median_ms, 2.5);
  EXPECT_EQ(tuner::summarize({}).samples, 0);
}

TEST(DefaultPlan, CoversTheFoundationProblems) {
  auto plan = tuner::default_plan();
  ASSERT_EQ(plan.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(plan[i].sample_type, SampleType::u8);
    EXPECT_EQ(plan[i].num_bins, 256u);
    EXPECT_EQ(plan[i].n, 1ull << (16 + 4 * i));
  }
  EXPECT_EQ(plan[4].sample_type, SampleType::u32);
  EXPECT_EQ(plan[4].num_bins, 4096u);
  EXPECT_EQ(plan[4].n, 1ull << 26);
  for (const auto& p : plan) EXPECT_EQ(validate(p), "") << p.describe();
}
