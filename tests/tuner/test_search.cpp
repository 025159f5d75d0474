// Search strategies on synthetic cost functions whose optimum is known by brute force.
#include <gtest/gtest.h>

#include "fake_device.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "histtune/tuner/search.hpp"
#include "histtune/tuner/tuner.hpp"

using namespace histtune;
using namespace histtune::tuner;

namespace {

using histtune::test::h100_like;

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
  const bool striped = c.layout == Layout::lane_striped;
  t *= striped ? 0.9 : 1.0 + 0.15 / c.private_copies;  // bank conflicts
  t *= striped ? 1.0 + 0.05 * (c.private_copies - 1) : 1.0 + 0.01 * c.private_copies;
  t *= c.aggregate != Aggregate::none ? 1.07 : 1.0;
  t *= 1.0 + 0.03 * std::fabs(std::log2(c.blocks_per_sm * c.block_threads / 2048.0));
  t *= c.unroll == 2 && bytes > 32 ? 1.05 : 1.0;
  t *= c.padding ? 0.98 : 1.0;
  return t * noise(pt, amplitude);
}

// A roofline: memory time (bytes in flight per SM hide latency; residency limited by threads and
// shared memory) against issue time (bank conflicts, loads per sample, aggregation, spills), plus
// the flush. Cliffs and interactions everywhere, and failures right beside the best points.
std::optional<double> kernel_roofline(const Point& pt, double amplitude) {
  const Hist1DConfig c = hist1d_config_of(pt);
  const double per_load = c.vector_bytes ? c.vector_bytes : 1;  // u8: one byte per sample
  const double bytes = per_load * c.vectors_per_thread;
  if (c.layout == Layout::lane_striped && c.block_threads == 1024 && bytes == 32 && c.unroll == 2)
    return std::nullopt;
  if (c.private_copies == 2 && c.padding == 1 && c.blocks_per_sm == 2) return std::nullopt;
  const double smem = c.private_copies * (c.layout != Layout::rows ? 256.0 * 32 : 256.0 + c.padding) * 4;
  const double fit = std::floor(228.0 * 1024 / (smem + 1024));
  const double resident =
      std::min({double(c.blocks_per_sm), fit, 2048.0 / c.block_threads}) * c.block_threads;
  const double in_flight = resident * bytes * (c.unroll == 2 ? 1.3 : 1.0);
  const double mem = 0.0876 * (1.0 + 30e3 / in_flight);
  const double conflicts = c.layout != Layout::rows ? 1.0 : 1.0 + 1.5 / (c.private_copies * (c.padding ? 1.5 : 1));
  const double issue = 0.03 * conflicts * (1.0 + 2.0 / per_load) * (c.aggregate != Aggregate::none ? 1.3 : 1.0) *
                       (bytes * c.unroll > 32 ? 1.8 : 1.0) / (c.unroll == 2 ? 1.1 : 1.0);
  const double flush = 0.003 * c.private_copies * (c.layout != Layout::rows ? 32 : 1) * c.blocks_per_sm / 8.0;
  const double tail = 1.0 + 0.04 * std::fabs(std::log2(c.block_threads / 512.0));
  return (std::max(mem, issue) + 0.3 * std::min(mem, issue) + flush) * tail * noise(pt, amplitude);
}

// `s` with its restrictions answered from a table of its valid points (one bit per grid point):
// the same space, asked in nanoseconds. Searches with budgets of thousands of points draw random
// valid points by rejection (~820 grid points asked per valid one on the 1D grid); asked through
// the family's checks, that was most of these tests' time.
SearchSpace tabled(const SearchSpace& s, const std::vector<Point>& valid) {
  const auto index = [sizes = s.sizes](const Point& p) {
    std::size_t i = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) i = i * static_cast<std::size_t>(sizes[k]) + p[k];
    return i;
  };
  std::size_t grid = 1;
  for (int n : s.sizes) grid *= static_cast<std::size_t>(n);
  auto bits = std::make_shared<std::vector<bool>>(grid);
  for (const Point& p : valid) (*bits)[index(p)] = true;
  return SearchSpace{s.sizes, [bits, index](const Point& p) { return (*bits)[index(p)]; }};
}

double optimum(const std::vector<Point>& valid, const Objective& f) {
  double best = INFINITY;
  for (const auto& p : valid)
    if (auto c = f(p)) best = std::min(best, *c);
  return best;
}

// Runs `strategy` with a budget of 15% of the valid points over `seeds` seeds; the gaps to the
// optimum (0.02 = 2% slower than the best point). `valid`: s's valid points, where the caller
// has them (an enumeration checks every grid point: seconds for the 1D family's).
std::vector<double> gaps_at_15_percent(const std::string& strategy, const SearchSpace& s,
                                       const Objective& f, int seeds,
                                       const std::vector<Point>& valid) {
  const double best = optimum(valid, f);
  const std::size_t budget = valid.size() * 15 / 100;
  const SearchSpace fast = tabled(s, valid);
  std::vector<double> gaps;
  for (int seed = 1; seed <= seeds; ++seed) {
    SearchResult r = make_strategy(strategy)->run(fast, f, {budget, 0}, static_cast<std::uint64_t>(seed));
    EXPECT_LE(r.evaluations, budget) << strategy << " seed " << seed;
    gaps.push_back(r.best.empty() ? INFINITY : r.best_cost / best - 1.0);
  }
  return gaps;
}

std::vector<double> gaps_at_15_percent(const std::string& strategy, const SearchSpace& s,
                                       const Objective& f, int seeds) {
  return gaps_at_15_percent(strategy, s, f, seeds, valid_points(s));
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

std::string percent(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + std::to_string(x * 100).substr(0, 5) + "%";
  return s;
}

// (a) separable: each parameter has its own best value and no interactions.
SearchSpace separable_grid() { return SearchSpace{{8, 6, 5, 4, 3}, nullptr}; }
std::optional<double> separable_cost(const Point& p, double amplitude) {
  const double v = (1 + 0.1 * std::abs(p[0] - 5)) * (1 + 0.08 * std::abs(p[1] - 1)) *
                   (1 + 0.15 * std::abs(p[2] - 3)) * (1 + 0.05 * std::abs(p[3] - 2)) *
                   (1 + 0.2 * p[4]);
  return v * noise(p, amplitude);
}

// (b) rugged: coupled parameters, a ripple, and a restriction that cuts holes through the grid.
SearchSpace rugged_grid() {
  return SearchSpace{{12, 12, 8, 6}, [](const Point& p) { return (p[0] * 7 + p[1] * 3 + p[2]) % 11 != 0; }};
}
std::optional<double> rugged_cost(const Point& p, double amplitude) {
  const double x = p[0] - 8.3, y = p[1] - 2.7, z = p[2] - 5.0, w = p[3] - 1.0;
  const double v = 1.0 + 0.02 * (x * x + y * y + z * z + w * w) + 0.01 * x * y +
                   0.05 * std::fabs(std::sin(1.7 * p[0] + 0.9 * p[1]));
  return v * noise(p, amplitude);
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
  EXPECT_TRUE(r.stopped_by_budget);
  EXPECT_EQ(r.history.size(), 50u);
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

TEST(SearchStrategy, UnknownNameListsTheValidOnes) {
  try {
    make_strategy("bayes");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("exhaustive, random, annealing"), std::string::npos);
  }
}

TEST(SearchStrategy, InvalidPointsAreNeverEvaluated) {
  const Problem p = u8_256();
  const DeviceInfo d = h100_like();
  const SearchSpace s = hist1d_search_space(p, d);
  for (const auto& name : strategy_names()) {
    std::size_t bad = 0;
    Objective f = [&](const Point& pt) {
      bad += !hist1d::check(hist1d_config_of(pt), p, d).holds();
      return kernel_like(pt, 0.0);
    };
    SearchResult r = make_strategy(name)->run(s, f, {500, 0}, 2);
    EXPECT_EQ(bad, 0u) << name << " evaluated a point the restrictions remove";
    if (name == "annealing") {  // with a budget: drawn lazily, the space not counted
      EXPECT_EQ(r.invalid_skipped + r.valid_points, 0u) << name;
      continue;
    }
    EXPECT_EQ(r.invalid_skipped + r.valid_points, 4u * 4 * 4 * 6 * 2 * 3 * 2 * 2 * 5 * 6 * 3 * 2 * 4 * 3 * 2) << name;
    EXPECT_GT(r.invalid_skipped, 0u) << name;
  }
}

// The 1D grid has ~22 M points, ~0.1% of them valid: a budgeted annealing search asks the
// restrictions about a few hundred thousand random points at most (rejection sampling, ~820 per
// valid one), never the whole grid (3 s per problem).
TEST(SearchStrategy, BudgetedAnnealingNeverEnumeratesTheGrid) {
  const SearchSpace full = hist1d_search_space(u8_256(), h100_like());
  std::size_t asked = 0;
  SearchSpace s = full;
  s.valid = [&](const Point& pt) {
    ++asked;
    return full.valid(pt);
  };
  std::size_t grid = 1;
  for (int n : s.sizes) grid *= static_cast<std::size_t>(n);
  Objective f = [](const Point& p) { return kernel_roofline(p, 0.01); };
  const SearchResult r = make_strategy("annealing")->run(s, f, {100, 0}, 3);
  EXPECT_EQ(r.evaluations, 100u);
  EXPECT_TRUE(r.stopped_by_budget);
  EXPECT_LT(asked, grid / 20) << "asked about " << asked << " of " << grid << " grid points";
  // An empty grid has nothing to draw.
  const SearchResult none = make_strategy("annealing")->run(SearchSpace{{3, 0, 2}, nullptr}, f,
                                                            {10, 0}, 1);
  EXPECT_EQ(none.evaluations, 0u);
  EXPECT_TRUE(none.best.empty());
  // Without a budget it counts the space (it anneals over a tenth of it).
  std::size_t invalid = 0;
  const std::size_t valid = valid_points(separable_grid(), &invalid).size();
  const SearchResult all = make_strategy("annealing")->run(
      separable_grid(), [](const Point& p) { return separable_cost(p, 0.0); }, {}, 1);
  EXPECT_EQ(all.valid_points, valid);
  EXPECT_EQ(all.invalid_skipped, invalid);
  EXPECT_EQ(all.evaluations, std::max<std::size_t>(valid / 10, 1));
}

TEST(SearchStrategy, EveryStrategyStopsAtTheBudgetAndNeverRepeatsAPoint) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  Objective f = [](const Point& p) { return kernel_roofline(p, 0.01); };
  for (const auto& name : strategy_names()) {
    std::size_t calls = 0;
    Objective counted = [&](const Point& p) {
      ++calls;
      return f(p);
    };
    SearchResult r = make_strategy(name)->run(s, counted, {120, 0}, 9);
    EXPECT_EQ(r.evaluations, 120u) << name;
    EXPECT_EQ(calls, 120u) << name;
    EXPECT_TRUE(r.stopped_by_budget) << name;
    EXPECT_FALSE(r.stopped_by_time) << name;
    std::set<Point> distinct;
    for (const auto& h : r.history) distinct.insert(h.first);
    EXPECT_EQ(distinct.size(), r.history.size()) << name << " evaluated a point twice";
  }
  // A budget larger than the space is no stop.
  SearchResult all = make_strategy("exhaustive")->run(separable_grid(), [](const Point& p) {
    return separable_cost(p, 0.0);
  }, {100000, 0}, 1);
  EXPECT_EQ(all.evaluations, all.valid_points);
  EXPECT_FALSE(all.stopped_by_budget);
}

TEST(SearchStrategy, SameSeedSameSearchOtherSeedOtherSearch) {
  const SearchSpace s = rugged_grid();
  Objective f = [](const Point& p) { return rugged_cost(p, 0.01); };
  for (const char* name : {"random", "annealing"}) {
    auto points = [&](std::uint64_t seed) {
      std::vector<Point> out;
      for (const auto& h : make_strategy(name)->run(s, f, {200, 0}, seed).history)
        out.push_back(h.first);
      return out;
    };
    EXPECT_EQ(points(4), points(4)) << name;
    EXPECT_NE(points(4), points(5)) << name << " ignores its seed";
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
    EXPECT_EQ(hist1d::check(c, u8_256(), h100_like()).message(), "");
  }
  EXPECT_EQ(hist1d_point_of(hist1d::default_config()), Point(hist1d::params().size(), 0))
      << "the default is the simplest value of every parameter";
}

// Blocks per SM are listed {8, 1, 2, 4, 16} (simplest first): a step goes to the next value by
// size, 8 -> 4 or 16, not to the next index; threads per block and blocks per SM also move
// together, keeping the threads per SM.
TEST(SearchSpaceHist1D, OneStepIsOneRungOfTheSortedValuesAndCoupledPairsMoveTogether) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  const Hist1DConfig c = hist1d::default_config();
  ASSERT_EQ(c.block_threads, 256);
  ASSERT_EQ(c.blocks_per_sm, 8);
  std::set<std::string> around;
  for (const Point& q : neighbours(s, hist1d_point_of(c))) around.insert(hist1d_config_of(q).label());
  auto with = [&c](int tpb, int bps) {
    Hist1DConfig x = c;
    x.block_threads = tpb;
    x.blocks_per_sm = bps;
    return x.label();
  };
  EXPECT_EQ(around.count(with(256, 4)), 1u) << "8 -> 4 is one rung";
  EXPECT_EQ(around.count(with(256, 1)), 0u) << "8 -> 1 is the next index, three rungs away";
  EXPECT_EQ(around.count(with(128, 8)), 1u);
  EXPECT_EQ(around.count(with(512, 8)), 0u) << "512 x 8 threads do not fit an SM";
  EXPECT_EQ(around.count(with(512, 4)), 1u) << "coupled: 2048 threads per SM either way";
  EXPECT_EQ(around.count(with(128, 16)), 1u) << "coupled: 2048 threads per SM either way";
}

// The storage is the 1D family's basin parameter (tuning.cpp's finalists take each storage's best
// near the fastest); the other families declare none.
TEST(SearchSpaceHist1D, TheStorageAndVectorsPerThreadAreTheBasinParameters) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  ASSERT_EQ(s.basins.size(), 2u);
  EXPECT_EQ(hist1d::params()[s.basins[0]].key, "st");
  EXPECT_EQ(hist1d::params()[s.basins[1]].key, "vpt");
  Problem mc = u8_256();
  mc.family = Family::multichannel;
  mc.channels = 4;
  mc.active_channels = 3;
  const SearchSpace m = search_space(mc, h100_like());
  ASSERT_EQ(m.basins.size(), 1u);
  EXPECT_EQ(multichannel::params()[m.basins[0]].key, "vpt");
}

TEST(SearchClimb, StepsFollowTheRungsNotTheIndices) {
  const int value[] = {8, 1, 2, 4, 16};  // a table's order; the best value is 16
  auto f = [&value](const Point& p) -> std::optional<double> {
    return 1.0 + std::abs(value[p[0]] - 16);
  };
  const SearchSpace by_index{{5}, nullptr};
  const SearchSpace by_value{{5}, nullptr, {{1, 2, 3, 0, 4}}, {}};
  EXPECT_EQ(rung_step(by_value, 0, 0, -1), 3);
  EXPECT_EQ(rung_step(by_value, 0, 0, 1), 4);
  EXPECT_EQ(rung_step(by_value, 0, 4, 1), -1);
  EXPECT_EQ(rung_step(by_value, 0, 1, -1), -1);
  EXPECT_EQ(rung_step(by_index, 0, 0, 1), 1);
  EXPECT_EQ(hill_climb(by_value, f, {{0}}, {}, 1).best, Point{4}) << "8 -> 16: one rung";
  EXPECT_EQ(hill_climb(by_index, f, {{0}}, {}, 1).best, Point{0}) << "index 1 (value 1) is worse";
}

TEST(SearchClimb, RepeatMoveGoesAsManyRungsAgainTheSameWay) {
  const SearchSpace by_value{{5, 4}, nullptr, {{1, 2, 3, 0, 4}, {}}, {{0, 1}}};
  // Rungs of parameter 0 (values 1, 2, 4, 8, 16 at indices 1, 2, 3, 0, 4): 2 -> 4 repeats as 8.
  EXPECT_EQ(repeat_move(by_value, {2, 0}, {3, 0}), (Point{0, 0}));
  EXPECT_EQ(repeat_move(by_value, {0, 1}, {0, 2}), (Point{0, 3}));
  EXPECT_EQ(repeat_move(by_value, {1, 2}, {2, 1}), (Point{3, 0})) << "a coupled step";
  EXPECT_EQ(repeat_move(by_value, {0, 2}, {4, 1}), std::nullopt) << "16 is the top rung";
  EXPECT_EQ(repeat_move(by_value, {0, 3}, {0, 3}), std::nullopt) << "no move";
  EXPECT_EQ(repeat_move(by_value, {0, 2}, {0, 3}), std::nullopt) << "past the last index";
}

// A slope along parameter 0, and a climb with 5 evaluations after its start: repeating the step
// that paid first walks straight down whatever the random order of the other neighbours; without
// it each step finds the one better neighbour of three first a third of the time.
TEST(SearchClimb, TheStepThatPaidIsTriedAgainFirst) {
  auto f = [](const Point& p) -> std::optional<double> { return 100.0 - 10 * p[0] + p[1]; };
  const SearchSpace space{{8, 8}, nullptr};
  int reached_without = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(hill_climb(space, f, {{2, 0}}, SearchBudget{6, 0}, seed, {}, {1, 0}).best,
              (Point{7, 0}))
        << "seed " << seed;
    reached_without += hill_climb(space, f, {{2, 0}}, SearchBudget{6, 0}, seed).best == Point{7, 0};
  }
  EXPECT_LT(reached_without, 20);
}

// A ridge only a coupled move follows: the cost falls along a + b == 3 and is high off it.
TEST(SearchClimb, CoupledMovesFollowARidgeThatSingleStepsCannotCross) {
  auto f = [](const Point& p) -> std::optional<double> {
    return p[0] + p[1] == 3 ? 5.0 - p[0] : 10.0;
  };
  const SearchSpace plain{{4, 4}, nullptr};
  SearchSpace paired = plain;
  paired.coupled = {{0, 1}};
  EXPECT_EQ(hill_climb(plain, f, {{0, 3}}, {}, 1).best, (Point{0, 3}));
  EXPECT_EQ(hill_climb(paired, f, {{0, 3}}, {}, 1).best, (Point{3, 0}));
  EXPECT_EQ(neighbours(paired, {1, 2}),
            (std::vector<Point>{{0, 2}, {2, 2}, {1, 1}, {1, 3}, {2, 1}, {0, 3}}));
}

// The factorial moves the interacting parameters together, one rung down, not at all or one
// rung up each: 3^3 - 1 points inside the grid, fewer at its edges, never an invalid one.
TEST(SearchFactorial, EveryCombinationOfOneRungMovesOfTheInteractingParameters) {
  SearchSpace s{{4, 4, 4, 3}, nullptr};
  EXPECT_TRUE(factorial(s, {1, 1, 1, 1}).empty()) << "no interacting parameters: nothing";
  s.interacting = {0, 2, 3};
  const std::vector<Point> inside = factorial(s, {1, 1, 1, 1});
  EXPECT_EQ(inside.size(), 26u);
  EXPECT_EQ(std::set<Point>(inside.begin(), inside.end()).size(), 26u) << "no repeats";
  for (const Point& q : inside) EXPECT_EQ(q[1], 1) << "a parameter not listed never moves";
  EXPECT_EQ(std::count(inside.begin(), inside.end(), Point{2, 1, 2, 0}), 1);
  EXPECT_EQ(factorial(s, {0, 1, 3, 2}).size(), 2u * 2 * 2 - 1) << "a corner: two values each";
  s.valid = [](const Point& q) { return q[0] + q[2] < 4; };
  for (const Point& q : factorial(s, {1, 1, 1, 1})) EXPECT_LT(q[0] + q[2], 4);
}

TEST(SearchFactorial, TheFamiliesMoveThreadsCopiesAndPrefetchTogether) {
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  Hist1DConfig c = hist1d::default_config();
  c.block_threads = 512;
  c.blocks_per_sm = 2;
  c.vector_bytes = 16;
  c.private_copies = 1;
  c.prefetch = 1;
  std::set<std::string> combos;
  for (const Point& q : factorial(s, hist1d_point_of(c))) combos.insert(hist1d_config_of(q).label());
  Hist1DConfig other = c;  // the other basin of H100's u8 64 bins 2^24
  other.block_threads = 1024;
  other.private_copies = 2;
  other.prefetch = 0;
  EXPECT_EQ(combos.count(other.label()), 1u);
  EXPECT_LE(combos.size(), 17u) << "threads 3 x copies 3 x prefetch 2, less the centre";
}

// Two distributions on a line of 9 values: the first wants x = 8, the second x = 0, each 10%
// slower per step away. From the first's best, the climb on the worst ratio walks to the middle,
// where both are 1.4 times their best; it never times a neighbour on the first distribution that
// is slower than the centre on the second (the centre's worst).
TEST(SearchWorstCaseClimb, WalksToTheBalanceAndTimesOnlyNeighboursThatCanWin) {
  const SearchSpace line{{9}, nullptr};
  std::map<std::size_t, int> calls;
  const DistributionObjective cost = [&](std::size_t d, const Point& p) -> std::optional<double> {
    ++calls[d];
    return 1.0 + 0.1 * (d == 0 ? 8 - p[0] : p[0]);
  };
  const auto best_on = [](std::size_t) { return 1.0; };
  const std::vector<Point> path = worst_case_climb(line, 2, cost, best_on, {8}, 0.005, 16);
  EXPECT_EQ(path, (std::vector<Point>{{8}, {7}, {6}, {5}, {4}}));
  // From x = 5 on, the centre's worst is the first distribution: x + 1 is slower there and is
  // never timed on the second. From 8, 7, 6, the second: x + 1 is never timed on the first.
  calls.clear();
  worst_case_climb(line, 2, cost, best_on, {6}, 0.005, 16);  // 6 -> 5 -> 4
  // Centre 6 (worst: d1): 5 on d1, faster, then on d0; 7 on d1, slower: stop. Centre 5 (d1):
  // same. Centre 4 (tie: d0 first, stable order): 3 on d0 is slower; 5 on d0 faster, on d1 not.
  EXPECT_LE(calls[0], 3 * 3 + 3 * 2 + 3);
  EXPECT_EQ(worst_case_climb(line, 2, cost, best_on, {8}, 0.2, 16), (std::vector<Point>{{8}}))
      << "each step gains 1/18 - 1/17 < 20%: none is taken";
  EXPECT_EQ(worst_case_climb(line, 2, cost, best_on, {8}, 0.005, 2),
            (std::vector<Point>{{8}, {7}, {6}}))
      << "at most two steps";
  const DistributionObjective fails_on_1 = [](std::size_t d, const Point& p) -> std::optional<double> {
    if (d == 1 && p[0] < 8) return std::nullopt;
    return 1.0 + 0.1 * (d == 0 ? 8 - p[0] : p[0]);
  };
  EXPECT_EQ(worst_case_climb(line, 2, fails_on_1, best_on, {8}, 0.005, 16),
            (std::vector<Point>{{8}}))
      << "a neighbour that fails (or is past the budget) on a distribution never wins";
}

// The worst ratio the climbs and the tuner's choice of their starts share.
TEST(SearchWorstCaseClimb, WorstRatioIsTheLargestRatioToEachBest) {
  const auto best_on = [](std::size_t d) { return d == 0 ? 2.0 : d == 1 ? 1.0 : 0.0; };
  EXPECT_DOUBLE_EQ(worst_ratio({3.0, 1.2, 5.0}, best_on), 1.5) << "a zero best counts 1";
  EXPECT_TRUE(std::isinf(worst_ratio({3.0, std::numeric_limits<double>::infinity()}, best_on)));
  EXPECT_DOUBLE_EQ(worst_ratio({}, best_on), 0.0);
}

// A climb that steps onto an earlier climb's path stops there: the rest of the way is known.
TEST(SearchWorstCaseClimb, StopsWhereItJoinsAnEarlierPath) {
  const SearchSpace line{{9}, nullptr};
  const DistributionObjective cost = [](std::size_t d, const Point& p) -> std::optional<double> {
    return 1.0 + 0.1 * (d == 0 ? 8 - p[0] : p[0]);
  };
  const auto best_on = [](std::size_t) { return 1.0; };
  const auto joins = [](const Point& p) { return p[0] == 6; };
  EXPECT_EQ(worst_case_climb(line, 2, cost, best_on, {8}, 0.005, 16, {}, joins),
            (std::vector<Point>{{8}, {7}, {6}}));
  EXPECT_EQ(worst_case_climb(line, 2, cost, best_on, {0}, 0.005, 16, {}, joins),
            (std::vector<Point>{{0}, {1}, {2}, {3}, {4}}))
      << "never on the path: it climbs to the balance as before";
}

// A neighbour that lowers a distribution's best raises the centre's ratio there: it is judged
// against the centre's new worst ratio. Centre {1}: 1.0 and 1.1 (the second's best so far is
// {2}'s 1.0). Neighbour {0}: 1.2 and 0.8, the new best: the centre's worst becomes 1.1 / 0.8 =
// 1.375, and {0}'s is 1.2: it wins, though 1.2 is more than the centre's worst before it.
TEST(SearchWorstCaseClimb, ANeighbourThatLowersABestIsJudgedAgainstTheCentresNewRatio) {
  const SearchSpace line{{3}, nullptr};
  const double costs[2][3] = {{1.2, 1.0, 2.0}, {0.8, 1.1, 1.0}};
  std::map<std::size_t, std::map<Point, double>> seen;
  seen[1][{2}] = 1.0;
  const DistributionObjective cost = [&](std::size_t d, const Point& p) -> std::optional<double> {
    return seen[d][p] = costs[d][p[0]];
  };
  const auto best_on = [&](std::size_t d) {
    double b = std::numeric_limits<double>::infinity();
    for (const auto& [p, c] : seen[d]) b = std::min(b, c);
    return b;
  };
  EXPECT_EQ(worst_case_climb(line, 2, cost, best_on, {1}, 0.005, 4),
            (std::vector<Point>{{1}, {0}}));
}

// The guided strategy's target: within 3% of the exhaustive optimum with at most 15% of the
// evaluations, on a space shaped like the real one, with and without 1% measurement noise.
struct HistogramCase {
  const char* name;
  std::optional<double> (*cost)(const Point&, double);
  double noise;
};

void PrintTo(const HistogramCase& c, std::ostream* os) { *os << c.name; }

class SearchAnnealingHist1D : public ::testing::TestWithParam<HistogramCase> {};

TEST_P(SearchAnnealingHist1D, WithinThreePercentOfOptimumOnFifteenPercentOfTheSpace) {
  const HistogramCase k = GetParam();
  const SearchSpace s = hist1d_search_space(u8_256(), h100_like());
  const std::vector<Point> valid = valid_points(s);  // once: each enumeration checks every grid point
  Objective f = [k](const Point& p) { return k.cost(p, k.noise); };
  const std::vector<double> gaps = gaps_at_15_percent("annealing", s, f, 10, valid);
  EXPECT_GE(std::count_if(gaps.begin(), gaps.end(), [](double g) { return g <= 0.03; }), 9)
      << "gaps per seed: " << percent(gaps);
  RecordProperty("mean_gap_percent", std::to_string(mean(gaps) * 100));
}

INSTANTIATE_TEST_SUITE_P(
    HistogramShaped, SearchAnnealingHist1D,
    ::testing::Values(HistogramCase{"kernel_like_exact", kernel_like, 0.0},
                      HistogramCase{"kernel_like_noise1pct", kernel_like, 0.01},
                      HistogramCase{"roofline_exact", kernel_roofline, 0.0},
                      HistogramCase{"roofline_noise1pct", kernel_roofline, 0.01}),
    [](const ::testing::TestParamInfo<HistogramCase>& i) { return std::string(i.param.name); });

// The plan's budget with the plan's screening, ten seeds: a screened move is never timed, the
// search ends as near the optimum as it does timing every move, and on the roofline (cliffs: a
// real kernel's slow corners, 2-10x behind) the model leaves untimed at least 5% of the budget.
// kernel_like's costs lie within ~3x of each other: little is ever that far behind.
TEST(SearchAnnealing, ScreeningTimesFewerPointsAndFindsAsGoodAnOptimum) {
  const SearchSpace full = hist1d_search_space(u8_256(), h100_like());
  const std::vector<Point> valid = valid_points(full);
  const SearchSpace s = tabled(full, valid);
  for (const bool roofline : {false, true}) {
    const auto cost = roofline ? kernel_roofline : kernel_like;
    const double best = optimum(valid, [&](const Point& p) { return cost(p, 0.01); });
    std::size_t timed = 0, screened = 0;
    std::vector<double> with, without;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      Objective f = [&](const Point& p) {
        ++timed;
        return cost(p, 0.01);
      };
      const SearchResult r =
          make_strategy("annealing")->run(s, f, {kPlanBudget, 0, kPlanScreenAbove}, seed);
      EXPECT_EQ(r.evaluations, kPlanBudget) << "screened moves use the budget";
      screened += r.screened;
      with.push_back(r.best_cost / best - 1.0);
      const SearchResult plain = make_strategy("annealing")->run(s, f, {kPlanBudget, 0}, seed);
      EXPECT_EQ(plain.screened, 0u);
      without.push_back(plain.best_cost / best - 1.0);
    }
    EXPECT_EQ(timed, 20 * kPlanBudget - screened) << "a screened move is never timed";
    EXPECT_LE(mean(with), mean(without) + 0.005)
        << "gaps with screening " << percent(with) << ", without " << percent(without);
    if (roofline) {
      EXPECT_GE(screened, 10 * kPlanBudget / 20) << "at least 5% of the budget left untimed";
    }
  }
}

TEST(SearchAnnealing, WithinThreePercentOnAverageOnASeparableGrid) {
  for (double amplitude : {0.0, 0.01}) {
    Objective f = [amplitude](const Point& p) { return separable_cost(p, amplitude); };
    const std::vector<double> gaps = gaps_at_15_percent("annealing", separable_grid(), f, 10);
    EXPECT_LE(mean(gaps), 0.03) << "noise " << amplitude << ", gaps " << percent(gaps);
  }
}

TEST(SearchAnnealing, BeatsRandomOnARuggedGridWithInteractions) {
  for (double amplitude : {0.0, 0.01}) {
    Objective f = [amplitude](const Point& p) { return rugged_cost(p, amplitude); };
    const std::vector<double> anneal = gaps_at_15_percent("annealing", rugged_grid(), f, 10);
    const std::vector<double> random = gaps_at_15_percent("random", rugged_grid(), f, 10);
    EXPECT_LE(mean(anneal), 0.03) << "noise " << amplitude << ", gaps " << percent(anneal);
    EXPECT_LE(mean(anneal), mean(random)) << "noise " << amplitude;
  }
}

// Failures beside the optimum: the five best points of the landscape fail; the search must
// settle on a point that succeeded, and still near the top.
TEST(SearchAnnealing, SettlesOnASucceededPointWhenTheBestOnesFail) {
  const SearchSpace full = hist1d_search_space(u8_256(), h100_like());
  const std::vector<Point> valid = valid_points(full);  // once: each enumeration checks every grid point
  const SearchSpace s = tabled(full, valid);
  std::vector<std::pair<double, Point>> ranked;
  for (const auto& p : valid)
    if (auto c = kernel_like(p, 0.0)) ranked.emplace_back(*c, p);
  std::sort(ranked.begin(), ranked.end());
  const std::set<Point> failing = {ranked[0].second, ranked[1].second, ranked[2].second,
                                   ranked[3].second, ranked[4].second};
  Objective f = [&](const Point& p) -> std::optional<double> {
    if (failing.count(p)) return std::nullopt;
    return kernel_like(p, 0.0);
  };
  const std::size_t budget = valid.size() * 15 / 100;
  for (const auto& name : strategy_names()) {
    SearchResult r = make_strategy(name)->run(s, f, {name == "exhaustive" ? std::size_t{0} : budget, 0}, 5);
    ASSERT_FALSE(r.best.empty()) << name;
    EXPECT_EQ(failing.count(r.best), 0u) << name << " chose a failed point";
    EXPECT_TRUE(f(r.best).has_value()) << name;
    if (name != "random") {
      EXPECT_LE(r.best_cost / ranked[5].first - 1.0, 0.03) << name;
    }
  }
}

}  // namespace
