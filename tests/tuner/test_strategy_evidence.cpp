// The guided-vs-exhaustive evidence on a fake bench: every run measures afresh, the gap comes from
// the runs' best configurations re-timed side by side, and the table says it.
#include <gtest/gtest.h>

#include <cmath>

#include "fake_bench.hpp"
#include "histtune/tuner/strategy_evidence.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;

namespace {
std::optional<double> bowl(const Point& p, Distribution) {
  const double x = p[0] - 7, y = p[1] - 2, z = p[2] - 4;
  return 1.0 + 0.01 * (x * x + y * y + z * z) + 0.003 * ((p[0] * 7 + p[1] * 3 + p[2]) % 5);
}
}  // namespace

TEST(StrategyEvidence, ExhaustiveAndAnnealingMeasureAfreshAndTheGapComesFromTheRetiming) {
  const SearchSpace space{{10, 8, 6}, [](const Point& p) { return (p[0] + p[1]) % 7 != 3; }};
  const std::size_t valid = valid_points(space).size();
  Point optimum;
  double best = 1e30;
  for (const Point& pt : valid_points(space))
    if (*bowl(pt, Distribution::uniform) < best) {
      best = *bowl(pt, Distribution::uniform);
      optimum = pt;
    }
  FakeBench bench(bowl);
  StrategyComparisonOptions opt;
  opt.budgets = {40, 0};  // 0: 15% of the valid points
  opt.seeds = 2;
  opt.rounds = 2;
  Problem p;
  p.n = 1u << 24;
  const StrategyComparison c = compare_strategies_with(p, space, bench, opt);
  EXPECT_EQ(c.valid, valid);
  EXPECT_EQ(c.exhaustive.evaluations, valid);
  EXPECT_EQ(c.exhaustive.best, bench.label(optimum));
  ASSERT_EQ(c.guided.size(), 4u);
  std::size_t guided_evaluations = 0;
  for (const StrategyRun& r : c.guided) {
    EXPECT_EQ(r.strategy, "annealing");
    EXPECT_LE(r.evaluations, r.budget);
    guided_evaluations += r.evaluations;
    EXPECT_GE(r.gap, 0.0) << "nothing beats the exhaustive optimum on a noiseless bench";
    const Point best_of_run = {r.best[4] - '0', r.best[6] - '0', r.best[8] - '0'};  // "cfg.x.y.z"
    EXPECT_NEAR(r.gap, *bowl(best_of_run, Distribution::uniform) / best - 1, 1e-12);
  }
  EXPECT_EQ(c.guided[2].budget, valid * 15 / 100);
  EXPECT_EQ(c.guided[3].seed, 2u);
  // Every run measured afresh: the bench saw every evaluation, plus the re-timing rounds.
  EXPECT_GE(bench.calls[Distribution::uniform], valid + guided_evaluations + 2);
  EXPECT_NEAR(c.exhaustive.retimed_ms, best, 1e-12);

  const std::string table = comparison_table({c, c});
  EXPECT_NE(table.find("exhaustive"), std::string::npos) << table;
  EXPECT_NE(table.find("annealing/40 s1"), std::string::npos) << table;
  EXPECT_NE(table.find("over 2 problems: worst gap"), std::string::npos) << table;
}
