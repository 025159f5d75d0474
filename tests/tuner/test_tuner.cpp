// tune_with on a fake bench: the three phases, the robust and per-distribution winners, ties to
// the simplest configuration, failures, resume from known measurements, and the storage side
// (resume_from, store) on an in-memory database.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fake_bench.hpp"
#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/tuner/tuner.hpp"
#include "landscapes.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;

namespace {

std::string problem_spec_of(const Problem& p) {
  return p.describe();  // type, binning, bins, n and bounds: unique per problem
}

Problem problem() {
  Problem p;
  p.num_bins = 256;
  p.n = 1u << 20;
  return p;
}

// The grid of the two basins (landscapes.hpp): most tests time this landscape.
SearchSpace grid() { return SearchSpace{{4, 4, 3}, nullptr}; }

constexpr auto& landscape = histtune::test::two_basins;

TuneOptions exhaustive_options() {
  TuneOptions o;
  o.strategy = "exhaustive";
  o.finalists = 3;
  o.distribution_budget = 8;
  o.remeasure_rounds = 2;
  o.decision_drop = 0;  // every candidate every round: the tests count the decision's calls
  return o;
}

}  // namespace

TEST(TuneWith, TheRobustWinnerHasTheBestWorstCaseAndEachDistributionKeepsItsOwn) {
  FakeBench bench(landscape);
  const TuneResult r = tune_with(problem(), grid(), bench, exhaustive_options());
  EXPECT_EQ(r.search_evaluations, 48u);
  EXPECT_EQ(r.distributions, (std::vector<std::string>{"uniform", "skewed", "constant", "runs"}));
  // Candidates: the uniform finalists {3,3,2}, {2,3,2}, {3,3,1} (worst ratios 3 / 0.85 and more,
  // on constant data), constant's own best {0,3,2}, found by the climb from the finalists (worst
  // ratio 1.10 / 0.90 on uniform data), and the worst-case climb's {1,3,2} (0.96 on both: worst
  // ratio 0.96 / 0.85), the best worst case of all, though no distribution's best.
  EXPECT_EQ(r.finalists.size(), 5u);
  EXPECT_EQ(r.winner, "cfg.1.3.2");
  EXPECT_NEAR(r.winner_ms, 0.96, 1e-9) << "the re-timed median on uniform data";
  EXPECT_NEAR(r.winner_worst_ratio, 0.96 / 0.85, 1e-9);
  ASSERT_EQ(r.by_distribution.size(), 4u);
  EXPECT_EQ(r.by_distribution[0].distribution, "uniform");
  EXPECT_EQ(r.by_distribution[0].label, "cfg.3.3.2");
  EXPECT_EQ(r.by_distribution[2].distribution, "constant");
  EXPECT_EQ(r.by_distribution[2].label, "cfg.0.3.2") << "found by the climb on constant data";
  EXPECT_NEAR(r.by_distribution[2].median_ms, 0.85, 1e-9);
  EXPECT_EQ(r.failed, 0u);
  // Every measurement of the phases is reported with its distribution.
  std::set<std::string> dists;
  for (const auto& m : r.measurements) dists.insert(m.distribution);
  EXPECT_EQ(dists.size(), 4u);
  EXPECT_EQ(bench.calls[Distribution::uniform], 48u + r.finalists.size() * 2);
}

TEST(TuneWith, NearTiesGoToTheSimplestConfiguration) {
  // The default point {0, 0, 0} is 0.4% slower than the fastest: a tie (the band is 0.5%), and
  // it is the simplest.
  FakeBench bench([](const Point& p, Distribution) -> std::optional<double> {
    if (p == Point{0, 0, 0}) return 1.004;
    if (p == Point{2, 3, 1}) return 1.00;
    return 1.5 + 0.01 * (p[0] + p[1] + p[2]);
  });
  TuneOptions o = exhaustive_options();
  o.distributions = {Distribution::uniform};
  TuneResult r = tune_with(problem(), grid(), bench, o);
  EXPECT_EQ(r.winner, "cfg.0.0.0");
  EXPECT_TRUE(r.by_distribution.empty()) << "one distribution: only the robust winner";
  EXPECT_DOUBLE_EQ(TuneOptions{}.tie_tolerance, 0.005);
  o.tie_tolerance = 0.002;  // a narrower band: 0.4% is a win
  r = tune_with(problem(), grid(), bench, o);
  EXPECT_EQ(r.winner, "cfg.2.3.1");
}

// The decision rule is TuneOptions::decision (tuner/decide.hpp; the numbers of its
// DecidePairwise test, H100 plan h's u16 65536 bins 2^24): pairwise keeps {2}, which no other
// candidate beats side by side; leximax keeps {1} for its lead on skewed data, where the
// specialist {0} is far ahead of both.
TEST(TuneWith, TheRobustWinnerIsChosenByTheDecisionRuleOfTheOptions) {
  FakeBench bench([](const Point& p, Distribution d) -> std::optional<double> {
    static const double ms[3][4] = {
        {32.2, 24.2, 30.0, 45.0}, {37.2, 28.6, 23.7, 35.0}, {38.6, 30.1, 23.8, 32.4}};
    return ms[p[0]][static_cast<int>(d)] / 1000;
  });
  ASSERT_EQ(static_cast<int>(Distribution::runs), 3);
  TuneOptions o = exhaustive_options();
  EXPECT_EQ(o.decision, RobustRule::pairwise) << "the default";
  const SearchSpace three{{3}, nullptr};
  TuneResult r = tune_with(problem(), three, bench, o);
  EXPECT_EQ(r.winner, "cfg.2");
  ASSERT_EQ(r.finalists.size(), 3u);
  for (const Finalist& f : r.finalists)
    EXPECT_EQ(f.regret == 0, f.label == "cfg.2") << f.label << " regret " << f.regret;
  o.decision = RobustRule::leximax;
  r = tune_with(problem(), three, bench, o);
  EXPECT_EQ(r.winner, "cfg.1");
}

TEST(TuneWith, AConfigurationWrongOnOneDistributionIsNeverTheRobustWinner) {
  FakeBench bench([](const Point& p, Distribution d) -> std::optional<double> {
    if (p == Point{3, 3, 2} && d == Distribution::runs) return std::nullopt;
    return landscape(p, d == Distribution::constant ? Distribution::uniform : d);
  });
  const TuneResult r = tune_with(problem(), grid(), bench, exhaustive_options());
  EXPECT_NE(r.winner, "cfg.3.3.2");
  EXPECT_GT(r.failed, 0u);
  EXPECT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].find("runs: cfg.3.3.2"), std::string::npos) << r.errors[0];
}

TEST(TuneWith, KnownMeasurementsAreReusedNotTakenAgain) {
  FakeBench first(landscape);
  TuneOptions o = exhaustive_options();
  std::vector<db::MeasurementRow> stored;
  o.on_measurement = [&](const db::MeasurementRow& m) { stored.push_back(m); };
  const TuneResult a = tune_with(problem(), grid(), first, o);
  ASSERT_EQ(stored.size(), a.measurements.size());

  TuneOptions again = exhaustive_options();
  for (const auto& m : stored) again.known.emplace(MeasurementKey{m.distribution, m.config_label}, m);
  std::size_t new_ones = 0;
  again.on_measurement = [&](const db::MeasurementRow&) { ++new_ones; };
  FakeBench second(landscape);
  const TuneResult b = tune_with(problem(), grid(), second, again);
  EXPECT_EQ(new_ones, 0u);
  EXPECT_EQ(b.reused, stored.size());
  EXPECT_EQ(b.winner, a.winner);
  // Only the decision's re-timing touched the bench.
  std::size_t calls = 0;
  for (const auto& [d, n] : second.calls) calls += n;
  EXPECT_EQ(calls, b.finalists.size() * 4 * 2);
}

TEST(TuneWith, AnnealingStartsFromTheGivenPointsAndAnnouncesItsMoves) {
  FakeBench bench(landscape);
  TuneOptions o;
  o.distributions = {Distribution::uniform};
  o.budget.max_evaluations = 20;
  o.starts = {Point{3, 3, 2}};
  const TuneResult r = tune_with(problem(), grid(), bench, o);
  ASSERT_FALSE(r.measurements.empty());
  EXPECT_EQ(r.measurements[0].config_label, "cfg.3.3.2") << "the start is timed first";
  EXPECT_EQ(r.winner, "cfg.3.3.2");
  EXPECT_EQ(r.search_evaluations, 20u);
  EXPECT_GE(bench.prefetched, 19u) << "moves are announced before they are timed";
}

// A search that never reaches the default's region (here a random search of 3 points out of 48
// with this seed) still compares against it: the always-measured point wins when it is best.
TEST(TuneWith, AlwaysMeasuredPointsCompeteWhateverTheSearchVisits) {
  const Point best{3, 3, 2};
  TuneOptions o;
  o.strategy = "random";
  o.distributions = {Distribution::uniform};
  o.budget.max_evaluations = 3;
  o.polish_budget = 0;  // the polish would climb to it
  FakeBench without(landscape);
  const TuneResult missed = tune_with(problem(), grid(), without, o);
  ASSERT_NE(missed.winner, "cfg.3.3.2") << "pick another seed: this one finds the best alone";
  o.always = {best};
  FakeBench with(landscape);
  const TuneResult r = tune_with(problem(), grid(), with, o);
  EXPECT_EQ(r.winner, "cfg.3.3.2");
  EXPECT_EQ(r.search_evaluations, 3u) << "the search's own budget is unchanged";
}

// The always-measured point is no faster on the searched distribution than five others, but it
// is the only one that does not collapse on constant data: as a finalist it is timed there too
// and wins on its worst case.
TEST(TuneWith, AlwaysMeasuredPointsAreFinalistsOnEveryDistribution) {
  const Point robust{0, 3, 2};  // 1.10 on uniform, 0.85 on constant (landscape)
  TuneOptions o = exhaustive_options();
  o.finalists = 1;  // the fastest on uniform alone: {3, 3, 2}, 3.0 on constant
  o.distribution_budget = 0;
  o.worst_case_budget = 0;  // the climb would find {1,3,2}, better still: see the test above
  o.second_search_budget = 0;  // so would the second search on constant data
  o.distributions = {Distribution::uniform, Distribution::constant};
  FakeBench without(landscape);
  EXPECT_NE(tune_with(problem(), grid(), without, o).winner, "cfg.0.3.2");
  o.always = {robust};
  FakeBench with(landscape);
  EXPECT_EQ(tune_with(problem(), grid(), with, o).winner, "cfg.0.3.2");
}

// Two algorithms (parameter 0, a basin: values 0 and 2, 1 invalid, so neither is a one-step
// neighbour of the other): every variant of the second is faster on uniform data than the first's
// best and 4x slower on constant data, so the finalists (the 3 fastest on uniform) are all the
// second's. The first's best, within basin_gap of the fastest, joins them, is timed on constant
// data and wins on the worst case (H200, u32 65536 bins: eight packed-copy finalists 4.2x behind
// on constant and runs data, the sliced kernel 9th on uniform).
TEST(TuneWith, EachBasinsBestNearTheFastestIsAFinalist) {
  const auto cost = [](const Point& p, Distribution d) -> std::optional<double> {
    const double shape = 0.01 * (p[1] + p[2]);  // each basin's best at {., 0, 0}
    if (p[0] == 2) return (d == Distribution::uniform ? 0.90 : 4.0) + shape;
    return 1.0 + shape;
  };
  SearchSpace space{{3, 4, 4}, [](const Point& p) { return p[0] != 1; }};
  space.basins = {0};
  TuneOptions o = exhaustive_options();
  o.distribution_budget = 0;
  o.worst_case_budget = 0;
  o.second_search_budget = 0;
  o.distributions = {Distribution::uniform, Distribution::constant};
  o.basin_gap = -1;
  FakeBench without(cost);
  EXPECT_EQ(tune_with(problem(), space, without, o).winner.substr(0, 6), "cfg.2.");
  o.basin_gap = 0.25;
  FakeBench with(cost);
  EXPECT_EQ(tune_with(problem(), space, with, o).winner, "cfg.0.0.0");
  // Beyond the gap a basin stays out: 1.0 against 0.90 is 11% behind.
  o.basin_gap = 0.10;
  FakeBench far(cost);
  EXPECT_EQ(tune_with(problem(), space, far, o).winner.substr(0, 6), "cfg.2.");
}

// Phase 2 times every one-step neighbour of a distribution's best finalist before it climbs: on
// runs the best point is the uniform winner with one parameter switched (run merging, say), and
// it is found with no climb at all; a plateau of tiny differences around the finalist (timing
// noise) would otherwise lead a first-improvement climb away from it.
TEST(TuneWith, EachDistributionTimesTheWholeNeighbourhoodOfItsBestFinalist) {
  FakeBench bench([](const Point& p, Distribution d) -> std::optional<double> {
    const double base = 1.0 + 0.01 * ((3 - p[0]) + (3 - p[1]) + (2 - p[2]));  // best {3, 3, 2}
    if (d == Distribution::runs && p == Point{3, 3, 1}) return 0.5;  // switched: twice as fast
    return d == Distribution::runs ? 2.0 * base : base;
  });
  TuneOptions o = exhaustive_options();
  o.finalists = 1;
  o.distribution_budget = 0;  // no climb: only the neighbourhood can find it
  o.worst_case_budget = 0;    // nor the worst-case climbs, whose measurements would add up
  o.second_search_budget = 0;  // nor the second search on runs (the finalist is 2x behind)
  o.distributions = {Distribution::uniform, Distribution::runs};
  const TuneResult r = tune_with(problem(), grid(), bench, o);
  ASSERT_EQ(r.by_distribution.size(), 2u);
  EXPECT_EQ(r.by_distribution[1].label, "cfg.3.3.1");
  EXPECT_EQ(r.winner, "cfg.3.3.1") << "worst case 1.01 against 2.0 for the uniform winner";
  // The finalist and its valid neighbours {2,3,2}, {3,2,2}, {3,3,1} on runs, nothing else.
  EXPECT_EQ(bench.calls[Distribution::runs], 4u + r.finalists.size() * 2);
}

// The compromise joins the candidates: uniform data's best {0, 3} collapses on constant data,
// constant data's best {1, 0} is 21% behind on uniform data, and {1, 3} (11% and 3% behind) is
// neither distribution's best nor a finalist.
TEST(TuneWith, TheBestWorstCaseJoinsTheCandidatesThoughNoDistributionHasItFirst) {
  FakeBench bench([](const Point& p, Distribution d) -> std::optional<double> {
    if (d == Distribution::uniform) return (p[0] == 0 ? 0.9 : 1.0) * (1 + 0.03 * (3 - p[1]));
    return (p[0] == 0 ? 3.0 : 1.0) * (1 + 0.01 * p[1]);
  });
  TuneOptions o = exhaustive_options();
  o.finalists = 1;
  o.distribution_budget = 8;
  o.distributions = {Distribution::uniform, Distribution::constant};
  const SearchSpace space{{4, 4}, nullptr};
  o.worst_case_budget = 0;
  EXPECT_EQ(tune_with(problem(), space, bench, o).winner, "cfg.1.0") << "worst 1.21";
  o.worst_case_budget = 64;
  const TuneResult r = tune_with(problem(), space, bench, o);
  EXPECT_EQ(r.winner, "cfg.1.3") << "worst 1.11";
  EXPECT_LE(r.worst_case_evaluations, 64u);
}

// Where the compromise is off every path the phases took, the climb walks to it. p[0] = 0 is
// twice as fast as the rest on uniform data and five times slower on constant data; p[1] = 3 is
// best on both (2% a step). The search sees only p[0] = 0 and the default {2, 0}; constant data
// sees the neighbourhood of {2, 0}, and its best, {2, 1}, is timed on uniform data. Without the
// climbs the best worst case is {2, 1} (2.08 times uniform data's best); the climb from there
// walks {2, 1} -> {2, 2} -> {2, 3} (2.00).
TEST(TuneWith, TheWorstCaseClimbWalksToACompromiseNoPhaseMeasured) {
  constexpr auto& cost = histtune::test::off_path_compromise;
  TuneOptions o = exhaustive_options();
  o.budget.max_evaluations = 4;  // {0, 0} ... {0, 3} on uniform data
  o.polish_budget = 0;
  o.finalists = 1;
  o.distribution_budget = 0;
  o.always = {{2, 0}};
  o.second_search_budget = 0;  // it would find the compromise's row on constant data
  o.distributions = {Distribution::uniform, Distribution::constant};
  const SearchSpace space{{4, 4}, nullptr};
  o.worst_case_budget = 0;
  FakeBench without_climb(cost);
  EXPECT_EQ(tune_with(problem(), space, without_climb, o).winner, "cfg.2.1");
  o.worst_case_budget = 64;
  FakeBench bench(cost);
  const TuneResult r = tune_with(problem(), space, bench, o);
  EXPECT_EQ(r.winner, "cfg.2.3");
  EXPECT_NEAR(r.winner_worst_ratio, 2.0, 1e-9);
  // Constant data's best {2, 1} on uniform data: 1. The first climb, each centre's new
  // neighbours on uniform data (its worst): 3 of {2, 1}, 3 of {2, 2}, 2 of {2, 3}; on constant
  // data only those faster on uniform data: {2, 2}, {2, 3}. {1, x} and {3, x} tie the centre on
  // uniform data and are never timed on constant data. The second climb, from {2, 0}: {1, 0} and
  // {3, 0} on uniform data, then it steps onto the first path and stops. The third, from {0, 3}
  // (worst: constant data): {1, 3} and {0, 2} there, neither faster.
  EXPECT_EQ(r.worst_case_evaluations, 1u + 3 + 1 + 3 + 1 + 2 + 2 + 2);
}

// The climbs start from each distribution's best too: uniform data's best, x = 8, is 80% behind
// on constant data, and constant data's best, x = 0, 20% behind on uniform data, next to the
// compromise x = 1 (7% and 10% behind). A climb from x = 8 (or 7) would need 7 (6) steps, one
// new measurement each; from x = 0 one step finds it within a budget of 4.
TEST(TuneWith, TheWorstCaseClimbsStartFromEachDistributionsBest) {
  FakeBench bench([](const Point& p, Distribution d) -> std::optional<double> {
    const int x = p[0];
    if (d == Distribution::uniform) return x == 0 ? 1.2 : 1.0 + 0.01 * (8 - x);
    return 1.0 + 0.1 * x;
  });
  TuneOptions o = exhaustive_options();
  o.strategy = "annealing";  // from x = 8, one evaluation: uniform data sees x = 8 alone
  o.starts = {{8}};
  o.budget.max_evaluations = 1;
  o.polish_budget = 0;
  o.finalists = 1;  // constant data sees x = 8, its neighbour 7, and climbs down to 0
  o.distributions = {Distribution::uniform, Distribution::constant};
  o.worst_case_budget = 4;
  const TuneResult r = tune_with(problem(), SearchSpace{{9}, nullptr}, bench, o);
  EXPECT_EQ(r.winner, "cfg.1");
  EXPECT_NEAR(r.winner_worst_ratio, 1.1, 1e-9);
  EXPECT_LE(r.worst_case_evaluations, 4u);
}

// Phase 2a: a second (annealing) search on the distribution where the first distribution's best
// is furthest behind. One parameter, 64 values; uniform data is fastest at x = 50. Constant data
// has a local optimum at x = 51 (0.95; 50 and 52 at 1.0), a ridge at 49 (1.05), and beyond it
// a slope to 0.80 at x = 0: phase 2's neighbourhood and climb stop at 51, 5% ahead of uniform
// data's best there; the annealing, allowed worse moves, crosses the ridge within 16
// evaluations. Runs data follows uniform data: its gap is 0 and it is not searched again.
TEST(TuneWith, ASecondSearchCrossesTheRidgeOnTheDistributionFurthestFromTheFirstsBest) {
  constexpr auto& cost = histtune::test::ridge;
  TuneOptions o = exhaustive_options();
  o.worst_case_budget = 0;  // the compromise climbs would walk the slope too
  o.distributions = {Distribution::uniform, Distribution::runs, Distribution::constant};
  const SearchSpace line{{64}, nullptr};
  o.second_search_budget = 0;
  FakeBench without(cost);
  const TuneResult before = tune_with(problem(), line, without, o);
  ASSERT_EQ(before.by_distribution.size(), 3u);
  EXPECT_EQ(before.by_distribution[2].label, "cfg.51");
  EXPECT_TRUE(before.second_search.empty());
  o.second_search_budget = 16;
  FakeBench bench(cost);
  const TuneResult r = tune_with(problem(), line, bench, o);
  EXPECT_EQ(r.second_search, "constant");
  EXPECT_GT(r.second_search_evaluations, 0u);
  EXPECT_LE(r.second_search_evaluations, 16u);
  ASSERT_EQ(r.by_distribution.size(), 3u);
  EXPECT_LT(r.by_distribution[2].median_ms, 0.9) << r.by_distribution[2].label;
  EXPECT_LE(bench.calls[Distribution::constant],
            without.calls[Distribution::constant] + 16 + r.finalists.size() * 2)
      << "at most the budget more, besides the decision's re-timing of the extra candidate";
}

// No second search where the first distribution's best is within second_search_gap of every
// other distribution's best: the landscapes agree there.
TEST(TuneWith, NoSecondSearchWhereTheFirstDistributionsBestIsWithinTheGapEverywhere) {
  const auto cost = [](const Point& p, Distribution d) -> std::optional<double> {
    const double t = 1.0 + 0.01 * std::abs(p[0] - 5);
    // On constant data x = 6 is 1.5% ahead of x = 5, uniform data's best.
    return d == Distribution::constant && p[0] == 6 ? 1.0 / 1.015 : t;
  };
  TuneOptions o = exhaustive_options();
  o.distributions = {Distribution::uniform, Distribution::constant};
  FakeBench bench(cost);
  const TuneResult r = tune_with(problem(), SearchSpace{{12}, nullptr}, bench, o);
  EXPECT_TRUE(r.second_search.empty());
  EXPECT_EQ(r.second_search_evaluations, 0u);
  o.second_search_gap = 0.01;  // a 1.5% gap is then wide enough
  FakeBench narrower(cost);
  EXPECT_EQ(tune_with(problem(), SearchSpace{{12}, nullptr}, narrower, o).second_search,
            "constant");
}

// Phase 1c: the interacting parameters moved together. Three parameters of three values; the
// search (one evaluation, from {1, 1, 1}) and its polish stay at {1, 1, 1} (1.0), whose every
// single move is slower (1.05); {2, 2, 0} is faster still (0.9), two and three single moves
// away through slower points. The factorial times it; the polish from it finds nothing better.
TEST(TuneWith, TheFactorialReachesABasinThatSingleMovesCannot) {
  const auto cost = [](const Point& p, Distribution) -> std::optional<double> {
    if (p == Point{2, 2, 0}) return 0.9;
    if (p == Point{1, 1, 1}) return 1.0;
    const int from_peak = (p[0] != 2) + (p[1] != 2) + (p[2] != 0);
    return from_peak == 1 ? 0.95 + 0.01 * p[0] : 1.05 + 0.01 * (p[0] + p[1] + p[2]);
  };
  TuneOptions o = exhaustive_options();
  o.strategy = "annealing";
  o.starts = {{1, 1, 1}};
  o.budget.max_evaluations = 1;
  o.distributions = {Distribution::uniform};
  SearchSpace space{{3, 3, 3}, nullptr};
  space.interacting = {0, 1, 2};
  o.factorial = false;
  FakeBench without(cost);
  const TuneResult before = tune_with(problem(), space, without, o);
  EXPECT_EQ(before.winner, "cfg.1.1.1");
  EXPECT_EQ(before.factorial_evaluations, 0u);
  o.factorial = true;
  FakeBench bench(cost);
  const TuneResult r = tune_with(problem(), space, bench, o);
  EXPECT_EQ(r.winner, "cfg.2.2.0");
  EXPECT_EQ(r.polish_evaluations, 6u) << "the six single moves from {1, 1, 1}";
  EXPECT_EQ(r.factorial_evaluations, 26u - 6u)
      << "the combinations the polish had not timed; every neighbour of {2, 2, 0} is one of them, "
         "so the second polish times nothing new";
}

TEST(TuneStorage, ResumeFromStoresEachMeasurementAndStoreWritesEveryWinner) {
  db::Database database(":memory:");
  db::DeviceRow device{"GPU-fake", "Fake", 9, 0, 132, 1, 1, 1, 1};
  TuneOptions o = exhaustive_options();
  std::size_t seen = 0;
  o.on_measurement = [&](const db::MeasurementRow&) { ++seen; };
  resume_from(database, device, problem(), "fake-template", o);
  EXPECT_TRUE(o.known.empty());
  FakeBench bench(landscape);
  const TuneResult r = tune_with(problem(), grid(), bench, o);
  EXPECT_EQ(seen, r.measurements.size()) << "the earlier callback still runs";
  EXPECT_EQ(database.measurements("GPU-fake", problem().key()).size(), r.measurements.size());
  store(database, device, r, /*measurements=*/false);
  EXPECT_EQ(database.winner("GPU-fake", problem().key())->config_label, "cfg.1.3.2");
  EXPECT_EQ(database.winner_for("GPU-fake", problem().key(), "uniform")->config_label, "cfg.3.3.2");
  EXPECT_EQ(database.distribution_winners("GPU-fake", problem().key()).size(), 4u);

  TuneOptions next = exhaustive_options();
  resume_from(database, device, problem(), "fake-template", next);
  EXPECT_EQ(next.known.size(), r.measurements.size());
  TuneOptions other_template = exhaustive_options();
  resume_from(database, device, problem(), "another-template", other_template);
  EXPECT_TRUE(other_template.known.empty()) << "results of another kernel are not reused";
}

TEST(DefaultPlan, FortyFiveProblemsOverTypesBinsSizesAndBinningAllTunableOnAnH100) {
  std::vector<Problem> plan;  // the 1D part; test_multichannel_tuning.cpp checks the rest
  for (const Problem& p : default_plan())
    if (p.family == hist1d::kFamily) plan.push_back(p);
  EXPECT_EQ(plan.size(), 45u);
  std::set<SampleType> types;
  std::set<std::uint32_t> bins;
  std::set<std::uint64_t> sizes;
  std::set<Binning> binnings;
  std::set<std::string> keys;
  bool n_over_16 = false;
  const DeviceInfo d = histtune::test::h100_like();
  for (const Problem& p : plan) {
    EXPECT_EQ(validate(p), "") << p.describe();
    types.insert(p.sample_type);
    bins.insert(p.num_bins);
    sizes.insert(p.n);
    binnings.insert(p.binning);
    n_over_16 |= p.num_bins == p.n / 16;
    EXPECT_TRUE(keys.insert(problem_spec_of(p)).second) << "twice: " << p.describe();
    // Something to tune: the restrictions leave configurations, the default among them or not.
    std::size_t valid = 0;
    params::for_each(hist1d::params(), [&](const Hist1DConfig& c) {
      return !(hist1d::check(c, p, d).holds() && ++valid > 20);
    });
    EXPECT_GT(valid, 20u) << p.describe();
  }
  EXPECT_EQ(types.size(), 10u) << "u8, u16, u32, i32, f32, i64, f16, bf16, i8, i16";
  EXPECT_EQ(binnings.size(), 3u) << "direct, even and range";
  for (std::uint32_t b : {64u, 256u, 1024u, 4096u, 65536u}) EXPECT_TRUE(bins.count(b)) << b;
  EXPECT_TRUE(n_over_16);
  EXPECT_EQ(*sizes.begin(), 1ull << 12);  // the MoE routing counts
  EXPECT_EQ(*sizes.rbegin(), 1ull << 28);
  EXPECT_GT(kPlanBudget, 0u);
}

// Exactly the plan's problems whose built-in default partitions (bins far beyond shared memory:
// i32 1048576 bins, f32 1048576 and 4194304 bins) search with the smaller budget; 131072 bins
// (sliced) and every other family keep kPlanBudget.
TEST(DefaultPlan, PartitionedProblemsSearchWithTheSmallerBudget) {
  const DeviceInfo d = histtune::test::h100_like();
  std::vector<std::string> smaller;
  for (const Problem& p : default_plan()) {
    const std::size_t budget = plan_search_budget(p, d);
    const bool partitioned = p.family == hist1d::kFamily &&
                             hist1d::default_for(p, d).storage == Storage::partitioned;
    EXPECT_EQ(budget, partitioned ? kPartitionedPlanBudget : kPlanBudget) << p.describe();
    if (budget == kPartitionedPlanBudget) smaller.push_back(problem_spec_of(p));
  }
  std::sort(smaller.begin(), smaller.end());
  EXPECT_EQ(smaller, (std::vector<std::string>{"hist1d f32 even bins=1048576 n=2^24 [0, 100)",
                                               "hist1d f32 even bins=4194304 n=2^26 [0, 100)",
                                               "hist1d i32 direct bins=1048576 n=2^26"}));
  EXPECT_LT(kPartitionedPlanBudget, kPlanBudget);
  Problem invalid;  // a problem validate() refuses gets the plan's budget, not a throw
  invalid.num_bins = 0;
  EXPECT_EQ(plan_search_budget(invalid, d), kPlanBudget);
}

// The phases after the search shrink by the same share for those problems only.
TEST(DefaultPlan, PartitionedProblemsClimbWithAShareOfEachPhaseBudget) {
  const DeviceInfo d = histtune::test::h100_like();
  const TuneOptions plain;
  for (const Problem& p : default_plan()) {
    TuneOptions opt;
    plan_phase_budgets(opt, p, d);
    const std::size_t share = default_partitions(p, d) ? kPartitionedShare : 1;
    EXPECT_EQ(opt.polish_budget, plain.polish_budget / share) << p.describe();
    EXPECT_EQ(opt.distribution_budget, plain.distribution_budget / share) << p.describe();
    EXPECT_EQ(opt.second_search_budget, plain.second_search_budget / share) << p.describe();
    EXPECT_EQ(opt.worst_case_budget, plain.worst_case_budget / share) << p.describe();
    EXPECT_GT(opt.polish_budget, 0u) << "a share of each phase, never none: " << p.describe();
    EXPECT_GT(opt.worst_case_budget, 0u) << p.describe();
  }
  EXPECT_GT(kPartitionedShare, 1u);
}

TEST(TuneWith, ReferencesAreRetimedBesideTheCandidatesButNeverChosen) {
  FakeBench bench(landscape);
  TuneOptions o = exhaustive_options();
  o.distributions = {Distribution::uniform};
  o.finalists = 2;
  o.references = {Point{0, 0, 0}, Point{3, 3, 2}};  // the slowest point, and the fastest
  const TuneResult r = tune_with(problem(), grid(), bench, o);
  EXPECT_EQ(r.winner, "cfg.3.3.2");
  ASSERT_EQ(r.references.size(), 2u);
  EXPECT_EQ(r.references[0].label, "cfg.0.0.0");
  EXPECT_NEAR(r.references[0].median_ms[0], *landscape({0, 0, 0}, Distribution::uniform), 1e-12);
  EXPECT_EQ(r.references[1].label, "cfg.3.3.2") << "a reference that is a candidate too";

  // A reference faster than every candidate is still not chosen: it was not found.
  FakeBench other([](const Point& p, Distribution) -> std::optional<double> {
    return p == Point{0, 0, 0} ? 0.1 : 1.0 + p[0] + p[1] + p[2];
  });
  o.strategy = "random";
  o.budget.max_evaluations = 5;
  o.references = {Point{0, 0, 0}};
  o.seed = 3;
  const TuneResult q = tune_with(problem(), grid(), other, o);
  bool searched_it = false;
  for (const auto& m : q.measurements) searched_it |= m.config_label == "cfg.0.0.0";
  if (!searched_it) {
    EXPECT_NE(q.winner, "cfg.0.0.0");
  }
}

// The decision's later rounds leave out a candidate plainly behind after a round, and only it:
// one 3% behind is timed every round, one 20% behind once per distribution.
TEST(TuneWith, TheDecisionStopsTimingACandidatePlainlyBehindAfterARound) {
  const auto cost = [](const Point& p, Distribution) -> std::optional<double> {
    if (p == Point{0, 0}) return 1.0;
    if (p == Point{1, 0}) return 1.03;
    return 1.2 + 0.1 * (p[0] + p[1]);
  };
  TuneOptions o;
  o.strategy = "exhaustive";
  o.finalists = 3;  // {0,0}, {1,0} and {0,1} (1.3)
  o.remeasure_rounds = 3;
  const auto count = [](const FakeBench& b, const Point& pt) {
    return std::count(b.measured.begin(), b.measured.end(), pt);
  };
  FakeBench all_rounds(cost);
  o.decision_drop = 0;
  const TuneResult full = tune_with(problem(), SearchSpace{{3, 3}, nullptr}, all_rounds, o);
  FakeBench dropping(cost);
  o.decision_drop = 0.05;
  const TuneResult r = tune_with(problem(), SearchSpace{{3, 3}, nullptr}, dropping, o);
  EXPECT_EQ(full.decision_dropped, 0u);
  EXPECT_EQ(r.decision_dropped, 1u);
  EXPECT_EQ(r.winner, "cfg.0.0");
  EXPECT_EQ(r.winner, full.winner);
  // Four distributions: two rounds of four measurements fewer, for {0,1} alone.
  EXPECT_EQ(count(all_rounds, Point{0, 1}) - count(dropping, Point{0, 1}), 8);
  EXPECT_EQ(count(all_rounds, Point{1, 0}), count(dropping, Point{1, 0}));
  EXPECT_EQ(count(all_rounds, Point{0, 0}), count(dropping, Point{0, 0}));
  // The dropped candidate is still reported, with its first round's times.
  ASSERT_EQ(r.finalists.size(), 3u);
  for (const Finalist& f : r.finalists) {
    if (f.label == "cfg.0.1") {
      EXPECT_NEAR(f.median_ms[0], 1.3, 1e-9);
    }
  }
}

// --decision-samples: every re-timing of the decision asks for exactly that many samples; the
// search's measurements keep the stopping rule's least (10), and the winner is the same.
TEST(TuneWith, DecisionSamplesFixTheReTimingsSamplesAndLeaveTheSearchAlone) {
  const auto cost = [](const Point& p, Distribution) -> std::optional<double> {
    return 1.0 + 0.05 * p[0] + 0.02 * p[1];
  };
  TuneOptions o;
  o.strategy = "exhaustive";
  o.finalists = 3;
  o.remeasure_rounds = 2;
  o.decision_samples = 0;  // the stopping rule
  FakeBench plain(cost);
  const TuneResult a = tune_with(problem(), SearchSpace{{3, 3}, nullptr}, plain, o);
  o.decision_samples = 4;
  FakeBench fixed(cost);
  const TuneResult b = tune_with(problem(), SearchSpace{{3, 3}, nullptr}, fixed, o);
  EXPECT_EQ(a.winner, b.winner);
  const auto asked = [](const FakeBench& f, int n) {
    return std::count(f.least_samples.begin(), f.least_samples.end(), n);
  };
  EXPECT_EQ(asked(plain, 4), 0);
  EXPECT_GT(asked(fixed, 4), 0);
  // The same calls; only the decision's (each candidate x distribution x round) ask for 4.
  ASSERT_EQ(plain.least_samples.size(), fixed.least_samples.size());
  EXPECT_EQ(asked(fixed, 4), asked(plain, TimingOptions{}.min_samples) - asked(fixed, 10));
  EXPECT_EQ(static_cast<std::size_t>(asked(fixed, 4)) % (o.remeasure_rounds * 4), 0u);
}

TEST(TuneStarts, WinnersOfSimilarProblemsNearestFirstNeverTheProblemsOwn) {
  const DeviceInfo d = histtune::test::h100_like();
  Problem p;  // u8, direct, 256 bins
  p.n = 1u << 24;
  auto winner = [](std::uint64_t n, const char* type, const char* binning, const Hist1DConfig& c) {
    db::WinnerRow w;
    w.problem = db::ProblemRow{"hist1d", type, binning, 256, n};
    w.config_label = c.label();
    return w;
  };
  Hist1DConfig a = hist1d::default_config(), b = a, c = a, own = a, other_type = a,
               other_binning = a;
  b.block_threads = 512;
  b.blocks_per_sm = 4;
  c.block_threads = 1024;
  c.blocks_per_sm = 2;
  own.block_threads = 128;
  other_type.vectors_per_thread = 2;
  other_binning.vectors_per_thread = 4;
  const std::vector<db::WinnerRow> winners = {
      winner(1u << 16, "u8", "direct", a),             // 8 octaves away
      winner(1u << 28, "u8", "direct", b),             // 4 away
      winner(1u << 24, "u8", "direct", own),           // p itself: not a start
      winner(1u << 22, "u8", "direct", c),             // 2 away
      winner(1u << 23, "u32", "direct", other_type),   // 1, + 4 for a wider sample type
      winner(1u << 26, "u8", "even", other_binning)};  // 2, + 4 for another binning
  const auto starts = hist1d_starts(winners, d, p);
  ASSERT_EQ(starts.size(), 5u);
  EXPECT_EQ(hist1d_config_of(starts[0]), c);
  EXPECT_EQ(hist1d_config_of(starts[1]), b);
  EXPECT_EQ(hist1d_config_of(starts[2]), other_type);
  EXPECT_EQ(hist1d_config_of(starts[3]), other_binning);
  EXPECT_EQ(hist1d_config_of(starts[4]), a);
  EXPECT_EQ(hist1d_starts(winners, d, p, 1).size(), 1u);
  // A sample type of the same width is nearer than one of another width.
  Problem i32 = p;
  i32.sample_type = SampleType::i32;
  const auto for_i32 = hist1d_starts(winners, d, i32, 2);
  ASSERT_EQ(for_i32.size(), 2u);
  EXPECT_EQ(hist1d_config_of(for_i32[0]), other_type);  // u32: 1 + 2
  EXPECT_EQ(hist1d_config_of(for_i32[1]), own);         // u8 of its size: 0 + 4
  // Through the database: what earlier runs stored, on this device only.
  db::Database database(":memory:");
  database.set_winner(d.row(), winners[1].problem, b.label(), 0.1, "h", "v");
  database.set_winner(d.row(), winners[2].problem, own.label(), 0.1, "h", "v");
  database.set_winner(d.row(), winners[4].problem, other_type.label(), 0.1, "h", "v");
  db::DeviceRow elsewhere = d.row();
  elsewhere.uuid = "GPU-elsewhere";
  database.set_winner(elsewhere, winners[3].problem, c.label(), 0.1, "h", "v");
  const auto from_db = hist1d_starts(database, d, p);
  ASSERT_EQ(from_db.size(), 2u);
  EXPECT_EQ(hist1d_config_of(from_db[0]), b);
  EXPECT_EQ(hist1d_config_of(from_db[1]), other_type);
}

// The search's budget ends on a slope: the polish climbs from its fastest point to the optimum,
// timing only points it has not seen, and no more of them than its own budget.
TEST(TuneWith, ThePolishClimbsFromWhereTheSearchStoppedToALocalOptimum) {
  TuneOptions o;
  o.strategy = "random";
  o.distributions = {Distribution::uniform};
  o.budget.max_evaluations = 3;
  o.polish_budget = 0;
  FakeBench without(landscape);
  const TuneResult stopped = tune_with(problem(), grid(), without, o);
  ASSERT_NE(stopped.winner, "cfg.3.3.2") << "pick another seed: this one finds the best alone";
  EXPECT_EQ(stopped.polish_evaluations, 0u);

  o.polish_budget = 32;
  FakeBench with(landscape);
  const TuneResult r = tune_with(problem(), grid(), with, o);
  EXPECT_EQ(r.winner, "cfg.3.3.2") << "the landscape has one optimum: the climb reaches it";
  EXPECT_EQ(r.search_evaluations, 3u) << "the search's own budget is unchanged";
  EXPECT_GT(r.polish_evaluations, 0u);
  EXPECT_LE(r.polish_evaluations, 32u);
  // Each point was timed once in the search and the polish (the decision re-times finalists).
  std::set<std::string> labels;
  for (const auto& m : r.measurements) EXPECT_TRUE(labels.insert(m.config_label).second) << m.config_label;
  EXPECT_EQ(r.measurements.size(), 3u + r.polish_evaluations);

  o.polish_budget = 2;  // too few to get there: it stops after two new points
  FakeBench capped(landscape);
  const TuneResult short_climb = tune_with(problem(), grid(), capped, o);
  EXPECT_EQ(short_climb.polish_evaluations, 2u);
  EXPECT_EQ(short_climb.measurements.size(), 5u);
}
