#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

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

namespace {
// n samples around `centre`, deterministic, spread uniformly over +-rel (a noise model).
std::vector<double> spread(int n, double centre, double rel, std::uint64_t seed = 1) {
  std::vector<double> out;
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
  for (int i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(s >> 11) * 0x1.0p-53;  // [0, 1)
    out.push_back(centre * (1 + rel * (2 * u - 1)));
  }
  return out;
}

// Takes samples from `source` the way time_calls does (min_samples first, then batches) until
// the rule stops; returns how many it took and why it stopped.
std::pair<int, tuner::SamplingState> run_rule(const std::vector<double>& source,
                                             const tuner::TimingOptions& o) {
  std::vector<double> ms;
  double spent = 0;
  auto state = tuner::sampling_state(ms, spent, o);
  while (state == tuner::SamplingState::more) {
    const int n = static_cast<int>(ms.size());
    const int want = std::min(n < o.min_samples ? o.min_samples - n : o.batch, o.max_samples - n);
    for (int i = 0; i < want; ++i) {
      ms.push_back(source.at(ms.size()));
      spent += ms.back();
    }
    state = tuner::sampling_state(ms, spent, o);
  }
  return {static_cast<int>(ms.size()), state};
}
}  // namespace

TEST(TimingStopRule, MedianConfidenceIntervalUsesTheMiddleOrderStatistics) {
  // n = 10: the interval runs from the 2nd to the 9th smallest sample.
  EXPECT_DOUBLE_EQ(tuner::median_ci_half_width({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 3.5);
  // n = 100 (values 1..100): the 40th to the 61st.
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_DOUBLE_EQ(tuner::median_ci_half_width(v), 10.5);
  EXPECT_TRUE(std::isinf(tuner::median_ci_half_width({1.0})));
  // Outliers beyond the middle do not widen it.
  std::vector<double> outliers(20, 1.0);
  outliers[0] = 50;
  outliers[1] = 0.01;
  EXPECT_DOUBLE_EQ(tuner::median_ci_half_width(outliers), 0.0);
}

TEST(TimingStopRule, QuietSamplesStopAtTheMinimum) {
  const tuner::TimingOptions o;  // min 10, max 100, 1%
  const auto [n, why] = run_rule(spread(200, 0.1, 0.002), o);
  EXPECT_EQ(n, 10);
  EXPECT_EQ(why, tuner::SamplingState::stable);
}

TEST(TimingStopRule, NoisierSamplesTakeMoreUntilTheMedianIsWithinOnePercent) {
  const tuner::TimingOptions o;
  const auto src = spread(200, 0.1, 0.03);  // +-3% noise: the median needs more samples
  const auto [n, why] = run_rule(src, o);
  EXPECT_GT(n, 10);
  EXPECT_LT(n, 100);
  EXPECT_EQ(why, tuner::SamplingState::stable);
  const std::vector<double> taken(src.begin(), src.begin() + n);
  EXPECT_LE(tuner::median_ci_half_width(taken), 0.01 * tuner::summarize(taken).median_ms);
}

TEST(TimingStopRule, WildSamplesStopAtTheCap) {
  tuner::TimingOptions o;
  const auto [n, why] = run_rule(spread(200, 0.1, 0.9), o);
  EXPECT_EQ(n, 100);
  EXPECT_EQ(why, tuner::SamplingState::max_samples);
  o.max_samples = 40;
  EXPECT_EQ(run_rule(spread(200, 0.1, 0.9), o).first, 40);
}

TEST(TimingStopRule, SlowCallsStopAtTheTimeCapWithAtLeastThreeSamples) {
  const tuner::TimingOptions o;  // max_total_ms 1000
  const auto [n, why] = run_rule(spread(200, 300.0, 0.5), o);
  EXPECT_EQ(why, tuner::SamplingState::time_cap);
  EXPECT_GE(n, 3);
  EXPECT_EQ(tuner::sampling_state({400, 450}, 850, o), tuner::SamplingState::more);
  EXPECT_EQ(tuner::sampling_state({400, 450, 420}, 1270, o), tuner::SamplingState::time_cap);
}

TEST(TimingStopRule, ARacedConfigurationStopsAfterThreeSamplesAboveTheBound) {
  tuner::TimingOptions o;
  o.give_up_above_ms = 0.010;
  // Plainly slower than the bound: three samples say so.
  EXPECT_EQ(tuner::sampling_state({0.013, 0.012}, 0.025, o), tuner::SamplingState::more);
  EXPECT_EQ(tuner::sampling_state({0.013, 0.012, 0.0125}, 0.0375, o),
            tuner::SamplingState::given_up);
  // One slow sample of three is not enough: the median is under the bound.
  EXPECT_EQ(tuner::sampling_state({0.009, 0.030, 0.0095}, 0.05, o), tuner::SamplingState::more);
  // Without a bound the same samples go on to the precision asked.
  EXPECT_EQ(tuner::sampling_state({0.013, 0.012, 0.0125}, 0.0375, tuner::TimingOptions{}),
            tuner::SamplingState::more);
}

TEST(TimingStopRule, SpreadBelowTheEventResolutionCountsAsStable) {
  // 5 us calls quantised to 0.5 us steps: 10% apart, but no finer than the timer can tell.
  std::vector<double> ms;
  for (int i = 0; i < 10; ++i) ms.push_back(i % 2 ? 0.0050 : 0.0055);
  EXPECT_EQ(tuner::sampling_state(ms, 0.05, tuner::TimingOptions{}), tuner::SamplingState::stable);
  tuner::TimingOptions strict;
  strict.resolution_ms = 0;
  EXPECT_EQ(tuner::sampling_state(ms, 0.05, strict), tuner::SamplingState::more);
}

TEST(TimingStopRule, BatchedSamplesResolveEachCallToTheEventResolutionOverTheCalls) {
  // 5 us calls timed 50 at a time, +-3% from sample to sample: the events resolve each call to
  // 0.01 us, so 10 samples do not yet pin the median to 1%; one call a sample they would.
  const auto src = spread(200, 0.005, 0.03);
  const std::vector<double> ten(src.begin(), src.begin() + 10);
  const tuner::TimingOptions o;
  EXPECT_EQ(tuner::sampling_state(ten, 2.5, o, 1), tuner::SamplingState::stable);
  EXPECT_EQ(tuner::sampling_state(ten, 2.5, o, 50), tuner::SamplingState::more);
  std::vector<double> ms;
  auto state = tuner::SamplingState::more;
  while (state == tuner::SamplingState::more) {
    for (int i = 0; i < 10; ++i) ms.push_back(src.at(ms.size()));
    state = tuner::sampling_state(ms, 0.25 * static_cast<double>(ms.size()), o, 50);
  }
  EXPECT_EQ(state, tuner::SamplingState::stable);
  EXPECT_GT(ms.size(), 10u);
  EXPECT_LE(tuner::median_ci_half_width(ms), 0.01 * tuner::summarize(ms).median_ms);
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
