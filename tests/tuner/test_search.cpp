// Search strategies on synthetic cost functions whose optimum is known by brute force.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "histtune/tuner/search.hpp"

using namespace histtune;
using namespace histtune::tuner;

namespace {

DeviceInfo h100_like() {
  DeviceInfo d;
  d.cc_major = 9;
  d.sm_count = 132;
  d.smem_per_block_optin = 227 * 1024;
  d.smem_per_sm = 228 * 1024;
  d.max_threads_per_sm = 2048;
  return d;
}

Problem u8_256() {
  Problem p;
  p.num_bins = 256;
  p.n = 1u << 28;
  return p;
}

// Deterministic multiplicative noise of about +-1% per point (same point, same noise).
double noise(const Point& p, double amplitude) {
  std::uint64_t h = 1469598103934665603ull;
  for (int v : p) h = (h ^ static_cast<std::uint64_t>(v + 1)) * 1099511628211ull;
  return 1.0 + amplitude * (static_cast<double>(h % 2001) / 1000.0 - 1.0);
}

// Shaped like a histogram kernel's time on the hist1d grid: wants wide loads and enough bytes in
// flight, big blocks, the lane-striped layout for small samples, no aggregation on uniform data,
// and a grid of a couple of blocks per SM; parameters interact; a few points fail.
std::optional<double> kernel_like(const Point& pt, double amplitude) {
  const Hist1DConfig c = hist1d_config_of(pt);
  if (c.block_threads == 512 && c.vectors_per_thread == 8 && c.unroll == 2) return std::nullopt;
  const double bytes = (c.vector_bytes ? c.vector_bytes : 1) * c.vectors_per_thread;
  double t = 0.09;
  t *= 1.0 + 0.6 / std::sqrt(bytes);                                  // latency hiding
  t *= 1.0 + std::fabs(std::log2(bytes / 32.0)) * 0.04;               // registers past 32 B
  t *= 1.0 + 0.2 * std::fabs(std::log2(c.block_threads / 1024.0));   // block size
  t *= c.layout == 1 ? 0.9 : 1.0 + 0.15 / c.private_copies;           // bank conflicts
  t *= c.layout == 1 ? 1.0 + 0.05 * (c.private_copies - 1) : 1.0 + 0.01 * c.private_copies;
  t *= c.aggregate ? 1.07 : 1.0;
  t *= 1.0 + 0.03 * std::fabs(std::log2(c.blocks_per_sm * c.block_threads / 2048.0));
  t *= c.unroll == 2 && bytes > 32 ? 1.05 : 1.0;
  t *= c.padding ? 0.98 : 1.0;
  return t * noise(pt, amplitude);
}

double optimum(const SearchSpace& s, const Objective& f) {
  double best = INFINITY;
  for (const auto& p : valid_points(s))
    if (auto c = f(p)) best = std::min(best, *c);
  return best;
}

TEST(SearchStrategy, ExhaustiveFindsTheTrueOptimumAndSkipsInvalidPoints) {
  SearchSpace s{{5, 4, 3}, [](const Point& p) { return (p[0] + p[1]) % 3 != 0; }};
  std::size_t calls = 0;
  Objective f = [&](const Point& p) -> std::optional<double> {
    EXPECT_NE((p[0] + p[1]) % 3, 0) << "an invalid point was evaluated";
    ++calls;
    return 1.0 + std::pow(p[0] - 3, 2) + std::pow(p[1] - 1, 2) + std::pow(p[2] - 2, 2);
  };
  SearchResult r = make_strategy("exhaustive")->run(s, f, {}, 1);
  EXPECT_EQ(r.best, (Point{3, 1, 2}));
  EXPECT_DOUBLE_EQ(r.best_cost, 1.0);
  EXPECT_EQ(r.evaluations, calls);
  EXPECT_EQ(r.evaluations + r.invalid_skipped, 60u);
  EXPECT_EQ(r.valid_points, r.evaluations);
}

TEST(SearchStrategy, FailedPointsNeverWin) {
  SearchSpace s{{10}, nullptr};
  Objective f = [](const Point& p) -> std::optional<double> {
    if (p[0] == 0) return std::nullopt;  // "would be fastest" but failed
    return static_cast<double>(p[0]);
  };
  for (const auto& name : strategy_names()) {
    SearchResult r = make_strategy(name)->run(s, f, {}, 3);
    ASSERT_FALSE(r.best.empty()) << name;
    EXPECT_NE(r.best[0], 0) << name;
  }
}

TEST(SearchStrategy, RandomRespectsTheBudgetAndNeverRepeats) {
  SearchSpace s{{10, 10, 10}, nullptr};
  Objective f = [](const Point& p) { return std::optional<double>(p[0] + p[1] + p[2] + 1.0); };
  SearchResult r = make_strategy("random")->run(s, f, {50, 0}, 7);
  EXPECT_EQ(r.evaluations, 50u);
  EXPECT_TRUE(r.stopped_by_budget || r.history.size() == 50u);
  std::set<Point> distinct;
  for (const auto& h : r.history) distinct.insert(h.first);
  EXPECT_EQ(distinct.size(), 50u);
}

TEST(SearchStrategy, TimeLimitStopsASearch) {
  SearchSpace s{{100, 100}, nullptr};
  Objective slow = [](const Point& p) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return std::optional<double>(p[0] + p[1] + 1.0);
  };
  for (const auto& name : strategy_names()) {
    auto t0 = std::chrono::steady_clock::now();
    SearchResult r = make_strategy(name)->run(s, slow, {0, 0.2}, 1);
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(r.stopped_by_time) << name;
    EXPECT_LT(el, 1.0) << name;
    EXPECT_LT(r.evaluations, 200u) << name;
  }
}

TEST(SearchStrategy, SameSeedSameSearch) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  Objective f = [](const Point& p) { return kernel_like(p, 0.01); };
  auto a = make_strategy("annealing")->run(s, f, {300, 0}, 11);
  auto b = make_strategy("annealing")->run(s, f, {300, 0}, 11);
  ASSERT_EQ(a.history.size(), b.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) EXPECT_EQ(a.history[i].first, b.history[i].first);
}

TEST(SearchStrategy, UnknownNameListsTheValidOnes) {
  try {
    make_strategy("bayes");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("exhaustive, random, annealing"), std::string::npos);
  }
}

TEST(SearchSpaceHist1D, PointsMapToConfigurationsAndBack) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  std::size_t invalid = 0;
  auto pts = valid_points(s, &invalid);
  EXPECT_GT(pts.size(), 1000u);
  EXPECT_GT(invalid, 0u);
  for (std::size_t i = 0; i < pts.size(); i += 97) {
    const Hist1DConfig c = hist1d_config_of(pts[i]);
    EXPECT_EQ(hist1d_point_of(c), pts[i]);
    EXPECT_EQ(hist1d::check(c, u8_256(), h100_like()), "");
  }
  EXPECT_EQ(hist1d_point_of(hist1d::default_config()), Point(hist1d::params().size(), 0))
      << "the default is the simplest value of every parameter";
}

// The guided strategy's target: within 3% of the exhaustive optimum with at most 15% of the
// evaluations, on a space shaped like the real one, with 1% measurement noise.
TEST(SearchAnnealing, WithinThreePercentOfOptimumOnFifteenPercentOfTheSpace) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  Objective f = [](const Point& p) { return kernel_like(p, 0.01); };
  const double best = optimum(s, f);
  const std::size_t budget = valid_points(s).size() * 15 / 100;
  int within = 0;
  double worst_gap = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SearchResult r = make_strategy("annealing")->run(s, f, {budget, 0}, seed);
    ASSERT_LE(r.evaluations, budget);
    const double gap = r.best_cost / best - 1.0;
    worst_gap = std::max(worst_gap, gap);
    within += gap <= 0.03;
  }
  EXPECT_GE(within, 9) << "worst gap " << worst_gap * 100 << "%";
  RecordProperty("worst_gap_percent", std::to_string(worst_gap * 100));
}

TEST(SearchAnnealing, BeatsRandomOnARuggedGridWithInteractions) {
  SearchSpace s{{12, 12, 8, 6}, [](const Point& p) { return (p[0] * 7 + p[1] * 3 + p[2]) % 11 != 0; }};
  Objective f = [](const Point& p) -> std::optional<double> {
    const double x = p[0] - 8.3, y = p[1] - 2.7, z = p[2] - 5.0, w = p[3] - 1.0;
    double v = 1.0 + 0.02 * (x * x + y * y + z * z + w * w) + 0.01 * x * y +
               0.05 * std::fabs(std::sin(1.7 * p[0] + 0.9 * p[1]));
    return v * noise(p, 0.01);
  };
  const double best = optimum(s, f);
  const std::size_t budget = valid_points(s).size() * 15 / 100;
  double gap_anneal = 0, gap_random = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    gap_anneal += make_strategy("annealing")->run(s, f, {budget, 0}, seed).best_cost / best - 1;
    gap_random += make_strategy("random")->run(s, f, {budget, 0}, seed).best_cost / best - 1;
  }
  EXPECT_LE(gap_anneal / 10, 0.03);
  EXPECT_LE(gap_anneal, gap_random);
}

}  // namespace
