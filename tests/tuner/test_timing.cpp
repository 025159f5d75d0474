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
  ASSERT_EQ(plan.size(), 9u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(plan[i].sample_type, SampleType::u8);
    EXPECT_EQ(plan[i].num_bins, 256u);
    EXPECT_EQ(plan[i].n, 1ull << (16 + 4 * i));
  }
  EXPECT_EQ(plan[4].sample_type, SampleType::u32);
  EXPECT_EQ(plan[4].num_bins, 4096u);
  EXPECT_EQ(plan[4].n, 1ull << 26);
  EXPECT_EQ(plan[5].num_bins, 256u);
  EXPECT_EQ(plan[6].sample_type, SampleType::u16);
  EXPECT_EQ(plan[6].num_bins, 1024u);
  EXPECT_EQ(plan[7].num_bins, 65536u);
  EXPECT_EQ(plan[8].sample_type, SampleType::f32);
  EXPECT_EQ(plan[8].num_bins, plan[8].n / 16);
  for (const auto& p : plan) EXPECT_EQ(validate(p), "") << p.describe();
}

namespace {
Problem direct_u8(std::uint64_t n, std::uint32_t bins) {
  Problem p;
  p.num_bins = bins;
  p.n = n;
  return p;
}
}  // namespace

TEST(Distributions, EveryBenchmarkDistributionStaysInsideTheBins) {
  for (auto dist : {tuner::Distribution::uniform, tuner::Distribution::skewed,
                    tuner::Distribution::constant, tuner::Distribution::runs}) {
    Problem p = direct_u8(100000, 200);
    auto s = tuner::make_samples(p, 3, dist);
    for (std::uint8_t v : s) ASSERT_LT(v, 200) << tuner::to_string(dist);
    Problem f;
    f.sample_type = SampleType::f32;
    f.binning = Binning::even;
    f.num_bins = 1000;
    f.lower = 0;
    f.upper = 100;
    f.n = 100000;
    auto fs = tuner::make_samples(f, 3, dist);
    const float* v = reinterpret_cast<const float*>(fs.data());
    for (std::uint64_t i = 0; i < f.n; ++i) ASSERT_TRUE(v[i] >= 0.0f && v[i] < 100.0f) << v[i];
  }
}

TEST(Distributions, ShapesAreWhatTheirNamesSay) {
  const Problem p = direct_u8(1 << 20, 256);
  auto skewed = tuner::make_samples(p, 5, tuner::Distribution::skewed);
  std::size_t low = 0;
  for (auto v : skewed) low += v < 256 / 20;  // the lowest 5% of the bins
  EXPECT_GT(low, skewed.size() * 9 / 10);
  auto constant = tuner::make_samples(p, 5, tuner::Distribution::constant);
  for (auto v : constant) ASSERT_EQ(v, constant[0]);
  auto runs = tuner::make_samples(p, 5, tuner::Distribution::runs);
  std::size_t equal = 0;
  for (std::size_t i = 1; i < runs.size(); ++i) equal += runs[i] == runs[i - 1];
  EXPECT_GT(equal, runs.size() * 8 / 10) << "long runs of equal neighbours";
  auto uniform = tuner::make_samples(p, 5, tuner::Distribution::uniform);
  std::vector<std::size_t> h(256);
  for (auto v : uniform) ++h[v];
  for (auto c : h) EXPECT_NEAR(static_cast<double>(c), 4096.0, 4096.0 * 0.1);
  EXPECT_EQ(tuner::make_samples(p, 5, tuner::Distribution::runs), runs) << "deterministic in seed";
}
