// What `histtune stability` does without a GPU: it pairs two databases' winners by problem,
// picks the device that stands for this GPU, judges the side-by-side times of every distribution
// (taken here through tuner::side_by_side on a fake bench) on the tuner's objective, the worst
// case, and shows them beside the first distribution's and the recorded ones, in the table, its
// summary line and the JSON.
#include <gtest/gtest.h>

#include <sstream>

#include "tuner/fake_bench.hpp"
#include "histtune/db/database.hpp"
#include "stability.hpp"

namespace {

using namespace histtune;
using namespace histtune::cli;
using histtune::test::FakeBench;

db::ProblemRow u8(std::uint64_t n) { return {"hist1d", "u8", "direct", 256, n}; }
db::ProblemRow rgba() { return {"multichannel", "u8", "direct", 256, 7680ull * 4320, 4, 3}; }

db::WinnerRow winner(const db::ProblemRow& p, const std::string& label, double ms) {
  db::WinnerRow w;
  w.problem = p;
  w.config_label = label;
  w.median_ms = ms;
  return w;
}

db::DeviceRow board(const std::string& uuid, const std::string& name = "NVIDIA H100 80GB HBM3") {
  db::DeviceRow d;
  d.uuid = uuid;
  d.name = name;
  d.cc_major = 9;
  return d;
}

// The fake bench's labels are "cfg.I.J" for the point {I, J}.
tuner::Point point_of(const std::string& label) {
  tuner::Point p;
  std::stringstream in(label.substr(4));
  for (std::string v; std::getline(in, v, '.');) p.push_back(std::stoi(v));
  return p;
}

using tuner::Distribution;
const std::vector<Distribution> kFour = {Distribution::uniform, Distribution::skewed,
                                         Distribution::constant, Distribution::runs};

// Point {I, J} takes 1 ms + 1% per unit of I on every distribution; I = 9 gives a wrong result,
// I = 8 one on constant data only. J = 7 trades: 3% slower than {I, 0} on uniform data, 3% faster
// on constant data, as two winners with equal worst cases can be.
std::optional<double> cost(const tuner::Point& p, Distribution d) {
  if (p[0] == 9 || (p[0] == 8 && d == Distribution::constant)) return std::nullopt;
  const double base = 1.0 + 0.01 * p[0];
  if (p[1] != 7) return base;
  return d == Distribution::uniform ? base * 1.03 : d == Distribution::constant ? base / 1.03
                                                                                : base;
}

std::vector<StabilityRow> measured(const Matched& m, int rounds = 3,
                                   const std::vector<Distribution>& dists = kFour) {
  std::vector<StabilityRow> rows;
  tuner::SideBySideOptions opt;
  opt.rounds = rounds;
  opt.distributions = dists;
  for (const auto& pair : m.pairs) {
    FakeBench bench(cost);
    rows.push_back(stability_row(pair,
                                 tuner::side_by_side(bench, point_of(pair.a.config_label),
                                                     point_of(pair.b.config_label), opt),
                                 dists.size()));
  }
  return rows;
}

// One problem (u8, 2^20 samples) whose winners are `a` and `b`, recorded at 1.00 and 1.01 ms.
Matched one_pair(const std::string& a, const std::string& b) {
  return match_winners({winner(u8(1 << 20), a, 1.00)}, {winner(u8(1 << 20), b, 1.01)});
}

// Two runs: the same winner at 2^16 (recorded 4% apart: the runs' own noise), winners 1% apart
// at 2^20, 5% apart at 2^24, and an RGBA problem whose B gives a wrong result; 2^28 only in A,
// 2^30 only in B.
Matched two_runs() {
  const std::vector<db::WinnerRow> a = {
      winner(u8(1 << 16), "cfg.0.0", 0.0050), winner(u8(1 << 20), "cfg.0.1", 0.0200),
      winner(u8(1 << 24), "cfg.0.2", 0.1000), winner(u8(1ull << 28), "cfg.0.3", 1.0),
      winner(rgba(), "cfg.1.0", 0.5)};
  const std::vector<db::WinnerRow> b = {
      winner(u8(1ull << 30), "cfg.0.0", 4.0), winner(rgba(), "cfg.9.0", 0.5),
      winner(u8(1 << 24), "cfg.5.2", 0.1010), winner(u8(1 << 20), "cfg.1.1", 0.0201),
      winner(u8(1 << 16), "cfg.0.0", 0.0052)};
  return match_winners(a, b);
}

TEST(Stability, WinnersArePairedByProblemInAsOrder) {
  const Matched m = two_runs();
  ASSERT_EQ(m.pairs.size(), 4u);
  EXPECT_EQ(m.pairs[0].problem, u8(1 << 16));
  EXPECT_EQ(m.pairs[2].b.config_label, "cfg.5.2");
  EXPECT_EQ(m.pairs[3].problem, rgba()) << "multi-channel problems are paired too";
  EXPECT_EQ(m.only_a, std::vector<db::ProblemRow>{u8(1ull << 28)});
  EXPECT_EQ(m.only_b, std::vector<db::ProblemRow>{u8(1ull << 30)});
  EXPECT_TRUE(match_winners({}, {winner(u8(1 << 16), "cfg.0.0", 1)}).pairs.empty());
}

// --problem: only the named pairs, in A's order; a named problem tuned in one run alone (or in
// neither) is returned for the error that names it.
TEST(Stability, OnlyTheNamedProblemsAreKeptAndAnUnpairedOneIsReturned) {
  const Matched all = only_problems(two_runs(), {});
  EXPECT_EQ(all.pairs.size(), 4u);
  EXPECT_TRUE(unpaired(two_runs(), {}).empty());
  const Matched two = only_problems(two_runs(), {rgba(), u8(1 << 20)});
  ASSERT_EQ(two.pairs.size(), 2u);
  EXPECT_EQ(two.pairs[0].problem, u8(1 << 20));
  EXPECT_EQ(two.pairs[1].problem, rgba());
  EXPECT_TRUE(two.only_a.empty());
  EXPECT_TRUE(two.only_b.empty());
  EXPECT_TRUE(unpaired(two_runs(), {rgba(), u8(1 << 20)}).empty());
  const Matched one = only_problems(two_runs(), {u8(1 << 24), u8(1ull << 28)});
  ASSERT_EQ(one.pairs.size(), 1u);
  EXPECT_EQ(one.only_a, std::vector<db::ProblemRow>{u8(1ull << 28)});
  EXPECT_EQ(unpaired(two_runs(), {u8(1 << 24), u8(1ull << 28)}),
            std::vector<db::ProblemRow>{u8(1ull << 28)});
}

TEST(Stability, DifferenceIsRelativeToTheFasterAndSymmetric) {
  EXPECT_NEAR(*difference_percent(1.0, 1.05), 5.0, 1e-9);
  EXPECT_NEAR(*difference_percent(1.05, 1.0), -5.0, 1e-9) << "B faster: negative";
  EXPECT_FALSE(difference_percent(0, 1.0));
  EXPECT_FALSE(difference_percent(1.0, -1));
  EXPECT_TRUE(within_tolerance(1.0, 1.02)) << "exactly 2% is within";
  EXPECT_TRUE(within_tolerance(1.02, 1.0));
  EXPECT_FALSE(within_tolerance(1.0, 1.0201));
  EXPECT_FALSE(within_tolerance(0, 0));
}

// A faster on uniform data, B on constant data, both by 3%; equal elsewhere. The best on
// uniform is A's 1.00, on constant B's 1.00: each winner's worst ratio is 1.03, so their worst
// cases are equal, although the uniform medians are 3% apart.
TEST(Stability, TwoWinnersEachFasterOnSomeDataHaveEqualWorstCases) {
  const std::vector<double> a = {1.00, 2.00, 1.03, 0.50}, b = {1.03, 2.00, 1.00, 0.50};
  EXPECT_NEAR(*pairwise_worst_ratio(a, b), 1.03, 1e-12);
  EXPECT_NEAR(*pairwise_worst_ratio(b, a), 1.03, 1e-12);
  EXPECT_NEAR(*worst_case_difference_percent(a, b), 0.0, 1e-9);
  EXPECT_NEAR(*difference_percent(a[0], b[0]), 3.0, 1e-9) << "outside 2% on uniform data alone";
  EXPECT_FALSE(within_tolerance(a[0], b[0]));

  // B 3% slower on uniform, 2% on constant, 2% faster on runs. Bests: 1.00, 2.00, 0.50, 0.98;
  // w_A = 1.00 / 0.98 (runs), w_B = 1.03 / 1.00 (uniform); (w_B - w_A) / w_A = 1.03 x 0.98 - 1.
  const std::vector<double> a2 = {1.00, 2.00, 0.50, 1.00}, b2 = {1.03, 2.00, 0.51, 0.98};
  EXPECT_NEAR(*pairwise_worst_ratio(a2, b2), 1.0 / 0.98, 1e-12);
  EXPECT_NEAR(*pairwise_worst_ratio(b2, a2), 1.03, 1e-12);
  EXPECT_NEAR(*worst_case_difference_percent(a2, b2), 0.94, 1e-9);

  // A at least as fast everywhere: B's worst distribution decides (constant, +5%).
  const std::vector<double> a3 = {1.00, 2.00, 0.50, 1.00}, b3 = {1.01, 2.00, 0.525, 1.00};
  EXPECT_DOUBLE_EQ(*pairwise_worst_ratio(a3, b3), 1.0);
  EXPECT_NEAR(*worst_case_difference_percent(a3, b3), 5.0, 1e-9);
}

TEST(Stability, WorstCaseDifferenceFlipsSignWhenAAndBSwap) {
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{1.00, 2.00, 1.03, 0.50}, {1.03, 2.00, 1.00, 0.50}},
      {{1.00, 2.00, 0.50, 1.00}, {1.03, 2.00, 0.51, 0.98}},
      {{1.00, 2.00, 0.50, 1.00}, {1.01, 2.00, 0.525, 1.00}},
      {{0.0137, 0.0291}, {0.0131, 0.0302}},
      {{1.0, 1.0}, {1.0, 1.0}}};
  for (const auto& [a, b] : cases) {
    const auto ab = worst_case_difference_percent(a, b), ba = worst_case_difference_percent(b, a);
    ASSERT_TRUE(ab && ba);
    EXPECT_EQ(*ab, -*ba) << a[0] << " vs " << b[0];
  }
  EXPECT_EQ(*worst_case_difference_percent({1.0, 1.0}, {1.0, 1.0}), 0.0) << "identical: 0";
}

TEST(Stability, WithOneDistributionTheWorstCaseIsTheDifferenceBitForBit) {
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{
           {1.0, 1.05}, {1.05, 1.0}, {1.0, 1.0201}, {0.0137, 0.0133}, {0.0208, 0.0214},
           {0.1068, 0.1061}, {2.5, 2.5}}) {
    const auto worst = worst_case_difference_percent({a}, {b});
    ASSERT_TRUE(worst);
    EXPECT_EQ(*worst, *difference_percent(a, b)) << a << " vs " << b;
  }
}

TEST(Stability, WorstCaseNeedsATimeOfBothOnEveryDistribution) {
  EXPECT_FALSE(worst_case_difference_percent({1.0, 0.0}, {1.0, 1.0})) << "A failed on one";
  EXPECT_FALSE(worst_case_difference_percent({1.0, 1.0}, {1.0, -1.0}));
  EXPECT_FALSE(worst_case_difference_percent({1.0, 1.0}, {1.0})) << "lists of one length";
  EXPECT_FALSE(worst_case_difference_percent({}, {}));
  EXPECT_FALSE(pairwise_worst_ratio({1.0}, {0.0}));
}

TEST(Stability, PlanProblemsAreTimedOverThePlansBoundsOthersOverTheDefaults) {
  Problem p = timed_problem({"hist1d", "i32", "even", 256, 1u << 24});
  EXPECT_EQ(p.lower, -1000);
  EXPECT_EQ(p.upper, 1000);
  p = timed_problem({"hist1d", "f32", "range", 1024, 1u << 24});
  EXPECT_EQ(p.binning, Binning::range);
  EXPECT_EQ(p.upper, 100) << "the plan's level span, not [0, BINS]";
  p = timed_problem({"hist1d", "i32", "even", 256, 1u << 20});  // not in the plan
  EXPECT_EQ(p.lower, 0);
  EXPECT_EQ(p.upper, 256);
  p = timed_problem(rgba());
  EXPECT_EQ(p.family, Family::multichannel);
  EXPECT_EQ(p.channels, 4u);
  EXPECT_EQ(p.active_channels, 3u);
}

TEST(Stability, TheDeviceIsThisGpuElseTheFirstOtherBoardOfItsModel) {
  const db::DeviceRow gpu = board("GPU-this");
  DeviceMatch m = match_device({board("GPU-other"), board("GPU-this")}, gpu);
  ASSERT_TRUE(m.device);
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.device->uuid, "GPU-this");

  m = match_device({board("GPU-a100", "NVIDIA A100"), board("GPU-other")}, gpu);
  ASSERT_TRUE(m.device) << m.why_not;
  EXPECT_FALSE(m.exact);
  EXPECT_EQ(m.device->uuid, "GPU-other");

  // A --gpu all database tuned elsewhere: each board holds part of the plan; model_winners
  // combines them from the first by UUID.
  m = match_device({board("GPU-y"), board("GPU-a100", "NVIDIA A100"), board("GPU-x")}, gpu);
  ASSERT_TRUE(m.device) << m.why_not;
  EXPECT_FALSE(m.exact);
  EXPECT_EQ(m.device->uuid, "GPU-x");
  EXPECT_EQ(m.boards, (std::vector<std::string>{"GPU-x", "GPU-y"}));

  m = match_device({board("GPU-a100", "NVIDIA A100")}, gpu);
  EXPECT_FALSE(m.device);
  EXPECT_NE(m.why_not.find("no winners for this GPU (GPU-this) or another NVIDIA H100"),
            std::string::npos) << m.why_not;
  EXPECT_NE(m.why_not.find("it holds winners of NVIDIA A100 (sm_90)"), std::string::npos)
      << m.why_not;
}

// A `--gpu all` database holds each problem under the board that tuned it: this GPU's winners
// are its own and, where it has none, those of the other boards of its model.
TEST(Stability, ModelWinnersJoinTheBoardsOfTheModelThisGpusOwnFirst) {
  db::Database database(":memory:");
  const db::DeviceRow self = board("GPU-0"), twin = board("GPU-1"), a100 = board("GPU-a", "A100");
  database.set_winner(self, u8(1 << 20), "self-20", 1, "h");
  database.set_winner(twin, u8(1 << 20), "twin-20", 1, "h");
  database.set_winner(twin, u8(1 << 16), "twin-16", 1, "h");
  database.set_winner(a100, u8(1 << 24), "a100-24", 1, "h");
  const std::vector<db::WinnerRow> ws = model_winners(database, self);
  ASSERT_EQ(ws.size(), 2u);
  EXPECT_EQ(ws[0].config_label, "twin-16") << "in problem order";
  EXPECT_EQ(ws[0].device.uuid, "GPU-1");
  EXPECT_EQ(ws[1].config_label, "self-20") << "its own first";
  EXPECT_EQ(model_winners(database, a100).size(), 1u);
  const Matched m = match_winners(model_winners(database, self), database.winners("GPU-0"));
  EXPECT_EQ(m.pairs.size(), 1u);
  EXPECT_EQ(m.only_a.size(), 1u);
}

TEST(Stability, SummaryCountsSideBySideAndRecordedAgreementApart) {
  const std::vector<StabilityRow> rows = measured(two_runs());
  ASSERT_EQ(rows.size(), 4u);
  ASSERT_EQ(rows[1].now.size(), 4u) << "one side-by-side timing per distribution";
  EXPECT_DOUBLE_EQ(rows[1].now[0].a.timing.median_ms, 1.00);
  EXPECT_DOUBLE_EQ(rows[1].now[0].b.timing.median_ms, 1.01);
  const StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.compared, 4u);
  EXPECT_EQ(s.worst_case_within, 2u) << "same and 1% apart; not 5% apart, not the wrong result";
  EXPECT_EQ(s.first_within, 2u) << "these winners are as far apart on every distribution";
  EXPECT_EQ(s.recorded_within, 3u) << "2^16 recorded 4% apart; 2^20 0.5%, 2^24 1%, RGBA 0%";
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.same, 1u);
  EXPECT_EQ(stability_summary_line(s, kFour),
            "2 of 4 problems within 2% on the worst case over uniform, skewed, constant, runs "
            "(the tuner's objective); 2 of 4 on uniform data alone; recorded times: 3 of 4 "
            "within; same configuration: 1; within or the same configuration (one kernel: equal "
            "times, the rest is timing noise): 2 of 4; B as good as A or better (at most 2% "
            "slower on the worst case): 2 of 4; 1 FAILED\n");
  EXPECT_EQ(stability_summary_line(stability_summary(measured(two_runs(), 3,
                                                              {Distribution::uniform})),
                                   {Distribution::uniform}),
            "2 of 4 problems within 2% on uniform data (side by side, measured now); recorded "
            "times: 3 of 4 within; same configuration: 1; within or the same configuration (one "
            "kernel: equal times, the rest is timing noise): 2 of 4; B as good as A or better "
            "(at most 2% slower on the worst case): 2 of 4; 1 FAILED\n");
}

// One configuration timed twice can differ by the timing's noise; it is still one kernel.
TEST(Stability, TheSameConfigurationTimedApartCountsAsWithinOnlyInItsOwnFigure) {
  std::vector<StabilityRow> rows = measured(two_runs());
  ASSERT_EQ(rows[0].pair.a.config_label, rows[0].pair.b.config_label);
  for (auto& t : rows[0].now) t.b.timing.median_ms = t.a.timing.median_ms * 1.05;
  const StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.worst_case_within, 1u) << "the measured 5% stays a miss in the measured figure";
  EXPECT_EQ(s.b_as_good, 1u) << "B 5% slower is worse; 1% apart is as good";
  EXPECT_EQ(s.within_or_same, 2u) << "the same kernel, and the winners 1% apart";
  // A failed side is never excused by sharing its configuration.
  rows[0].now[0].b.verified = false;
  rows[0].now[0].b.error = "wrong result";
  EXPECT_EQ(stability_summary(rows).within_or_same, 1u);
}

// A new tuner's plan (B) against an old one's (A): a winner 5% faster is no miss of B's, though
// not within; 5% slower is.
TEST(Stability, BFasterBeyondTheToleranceIsAsGoodButNotWithin) {
  std::vector<StabilityRow> rows = measured(two_runs());
  for (auto& t : rows[2].now) t.b.timing.median_ms = t.a.timing.median_ms / 1.05;
  StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.worst_case_within, 2u);
  EXPECT_EQ(s.b_as_good, 3u) << "same, 1% apart, B 5% faster; not the failed row";
  for (auto& t : rows[2].now) t.b.timing.median_ms = t.a.timing.median_ms * 1.05;
  s = stability_summary(rows);
  EXPECT_EQ(s.b_as_good, 2u);
  EXPECT_EQ(stability_json(rows, two_runs())["b_as_good"], 2);
}

// The H100 case: the winners trade 3% on uniform data for 3% on constant data.
TEST(Stability, WinnersEachFasterOnSomeDataAreWithinOnTheWorstCaseNotOnUniform) {
  const Matched m = one_pair("cfg.0.0", "cfg.0.7");
  const std::vector<StabilityRow> rows = measured(m);
  const StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.worst_case_within, 1u);
  EXPECT_EQ(s.first_within, 0u);
  EXPECT_EQ(s.failed, 0u);
  const std::string line = stability_line(rows[0]);
  EXPECT_NE(line.find("1.0000    1.0300    +3.0%    +0.0%    -3.0%    +0.0%   +0.0% yes "),
            std::string::npos)
      << line;
  EXPECT_EQ(stability_summary_line(s, kFour).rfind(
                "1 of 1 problems within 2% on the worst case over uniform, skewed, constant, "
                "runs (the tuner's objective); 0 of 1 on uniform data alone;",
                0),
            0u);
  const nlohmann::json j = stability_json(rows, m);
  EXPECT_EQ(j["worst_case_within"], 1);
  EXPECT_EQ(j["worst_case_all_within"], true);
  EXPECT_EQ(j["within"], 0) << "the first distribution alone, as the key always meant";
  EXPECT_EQ(j["all_within"], false);
  const auto& row = j["rows"][0];
  EXPECT_NEAR(row["worst_case_difference_percent"].get<double>(), 0.0, 1e-9);
  EXPECT_EQ(row["worst_case_within_tolerance"], true);
  EXPECT_NEAR(row["worst_ratio_a"].get<double>(), 1.03, 1e-9) << "A's worst: constant";
  EXPECT_NEAR(row["worst_ratio_b"].get<double>(), 1.03, 1e-9) << "B's worst: uniform";
  EXPECT_NEAR(row["difference_percent"].get<double>(), 3.0, 1e-9);
  EXPECT_EQ(row["within_tolerance"], false);
  // Swapped, only the signs change.
  const Matched swapped = one_pair("cfg.0.7", "cfg.0.0");
  const nlohmann::json k = stability_row_json(measured(swapped)[0]);
  EXPECT_NEAR(k["difference_percent"].get<double>(), -3.0, 1e-9);
  EXPECT_EQ(k["worst_case_within_tolerance"], true);
}

TEST(Stability, OnUniformDataAloneTheVerdictIsTheUniformDifference) {
  const std::vector<StabilityRow> rows =
      measured(one_pair("cfg.0.0", "cfg.0.7"), 3, {Distribution::uniform});
  ASSERT_EQ(rows[0].now.size(), 1u);
  const nlohmann::json row = stability_row_json(rows[0]);
  EXPECT_EQ(row["worst_case_difference_percent"], row["difference_percent"]);
  EXPECT_EQ(row["worst_case_within_tolerance"], false);
  EXPECT_EQ(stability_summary(rows).worst_case_within, 0u);
}

TEST(Stability, AWinnerThatFailsOnOneDistributionIsFailed) {
  const Matched m = one_pair("cfg.0.0", "cfg.8.0");  // B: wrong on constant data only
  const std::vector<StabilityRow> rows = measured(m);
  const StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.worst_case_within, 0u);
  const std::string line = stability_line(rows[0]);
  EXPECT_NE(line.find("1.0000    1.0800    +8.0%    +8.0%        -    +8.0%       - FAILED"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("\n    B (constant): output differs from the host reference\n"),
            std::string::npos)
      << line;
  EXPECT_EQ(line.find("\n    A"), std::string::npos) << "A had no error: " << line;
  const nlohmann::json row = stability_row_json(rows[0]);
  EXPECT_EQ(row["failed"], true);
  EXPECT_TRUE(row["worst_case_difference_percent"].is_null());
  EXPECT_TRUE(row["worst_ratio_b"].is_null());
  EXPECT_EQ(row["worst_case_within_tolerance"], false);
  EXPECT_EQ(row["b"]["verified"], true) << "on uniform data it verified";
  EXPECT_EQ(row["distributions"][2]["b"]["verified"], false);
  EXPECT_EQ(row["distributions"][2]["b"]["error"], "output differs from the host reference");
}

TEST(Stability, TableShowsBothTimesEachDistributionsDifferenceTheWorstAndTheRecordedOnes) {
  const std::vector<StabilityRow> rows = measured(two_runs());
  const std::string header = stability_table_header(kFour);
  for (const char* col : {"problem", "A ms", "B ms", " uniform", "  skewed", "constant", "    runs",
                          "worst", "within", "recorded A", "recorded B", "rec. diff",
                          "A configuration | B configuration"})
    EXPECT_NE(header.find(col), std::string::npos) << col << "\n" << header;
  const std::string same = stability_line(rows[0]);
  EXPECT_EQ(same,
            "u8:direct:256:2^16                1.0000    1.0000    +0.0%    +0.0%    +0.0%    "
            "+0.0%   +0.0% yes        0.0050     0.0052     +4.0%  cfg.0.0 | same\n");
  EXPECT_EQ(same.find("+0.0% yes"), header.find("worst")) << "columns line up\n"
                                                               << header << same;
  const std::string apart = stability_line(rows[2]);
  EXPECT_NE(apart.find("1.0000    1.0500    +5.0%    +5.0%    +5.0%    +5.0%   +5.0% NO "),
            std::string::npos)
      << apart;
  EXPECT_NE(apart.find("cfg.0.2 | cfg.5.2"), std::string::npos) << apart;
  const std::string wrong = stability_line(rows[3]);
  EXPECT_NE(wrong.find("mc:3/4:u8:direct:256:33177600"), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("1.0100     WRONG        -        -        -        -       - FAILED"),
            std::string::npos)
      << wrong;
  EXPECT_NE(wrong.find("\n    B: output differs from the host reference\n"), std::string::npos)
      << "one line for the same error on every distribution\n"
      << wrong;
  const std::string legend = stability_legend(3, kFour);
  EXPECT_NE(legend.find("3 rounds alternating A B / B A per distribution"), std::string::npos)
      << legend;
  EXPECT_NE(legend.find("data: uniform, skewed, constant, runs."), std::string::npos) << legend;
  EXPECT_NE(legend.find("within: |worst| <= 2%"), std::string::npos) << legend;
}

// Two winners apart: the line says whether each run had timed the other's (never: the search's
// coverage; timed and not chosen: the decision or its timing). Winners within the tolerance, or
// one configuration, get no such line.
TEST(Stability, AMissSaysWhereEachRunTimedTheOthersWinner) {
  std::vector<db::MeasurementRow> a_measured(4);
  const char* dists[] = {"uniform", "skewed", "uniform", "runs"};
  for (std::size_t i = 0; i < a_measured.size(); ++i) {
    a_measured[i].config_label = i == 3 ? "cfg.1.1" : "cfg.5.2";
    a_measured[i].distribution = dists[i];
    a_measured[i].verified = i != 1;  // a wrong result is not a time
  }
  EXPECT_EQ(timed_on(a_measured, "cfg.5.2"), (std::vector<std::string>{"uniform"}));
  EXPECT_TRUE(timed_on(a_measured, "cfg.0.2").empty());

  Matched m = two_runs();
  m.pairs[2].a_timed_b = timed_on(a_measured, "cfg.5.2");  // u8 2^24: 5% apart
  const std::vector<StabilityRow> rows = measured(m);
  const std::string apart = stability_line(rows[2]);
  EXPECT_NE(apart.find("\n    A timed B's winner on uniform; B timed A's never\n"),
            std::string::npos)
      << apart;
  for (std::size_t i : {0u, 1u, 3u})  // the same winner, 1% apart, a failed winner
    EXPECT_EQ(stability_line(rows[i]).find("timed B's winner"), std::string::npos) << i;
  const nlohmann::json row = stability_row_json(rows[2]);
  EXPECT_EQ(row["a_timed_b"], nlohmann::json::array({"uniform"}));
  EXPECT_EQ(row["b_timed_a"], nlohmann::json::array());
  EXPECT_EQ(row["a_raced_b"], nlohmann::json::array());
}

// A time of one sample is the search's racing, not a measurement the decision weighed: the line
// says so, per distribution (here: raced out on runs, fully timed on uniform, which had a
// one-sample time too).
TEST(Stability, AMissSaysWhereTheOthersWinnerWasRacedOutAfterOneSample) {
  std::vector<db::MeasurementRow> a_measured(3);
  const char* dists[] = {"uniform", "runs", "uniform"};
  const int samples[] = {1, 1, 20};
  for (std::size_t i = 0; i < a_measured.size(); ++i) {
    a_measured[i].config_label = "cfg.5.2";
    a_measured[i].distribution = dists[i];
    a_measured[i].samples = samples[i];
    a_measured[i].verified = true;
  }
  EXPECT_EQ(timed_once_on(a_measured, "cfg.5.2"), (std::vector<std::string>{"runs"}));
  EXPECT_TRUE(timed_once_on(a_measured, "cfg.0.2").empty());
  Matched m = two_runs();
  m.pairs[2].a_timed_b = timed_on(a_measured, "cfg.5.2");
  m.pairs[2].a_raced_b = timed_once_on(a_measured, "cfg.5.2");
  const std::vector<StabilityRow> rows = measured(m);
  const std::string apart = stability_line(rows[2]);
  EXPECT_NE(apart.find("\n    A timed B's winner on uniform, runs (one sample, raced out: runs); "
                       "B timed A's never\n"),
            std::string::npos)
      << apart;
  EXPECT_EQ(stability_row_json(rows[2])["a_raced_b"], nlohmann::json::array({"runs"}));
}

TEST(Stability, AnUnrunnableWinnerIsNamedAndItsPartnerMarkedNotTimed) {
  StabilityRow r{two_runs().pairs[1], {}, std::nullopt};
  for (const Distribution d : kFour) {
    tuner::SideBySide t;
    t.dist = d;
    t.a.label = r.pair.a.config_label;
    t.b.label = r.pair.b.config_label;
    t.b.error = "not a valid configuration of this problem on NVIDIA H100";
    r.now.push_back(t);
  }
  const std::string s = stability_line(r);
  EXPECT_NE(s.find("        -         -        -        -        -        -       - FAILED"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("\n    B: not a valid configuration"), std::string::npos) << s;
  EXPECT_NE(s.find("\n    A: not timed"), std::string::npos) << s;
  EXPECT_EQ(stability_summary({r}).failed, 1u);
  EXPECT_EQ(stability_summary({StabilityRow{two_runs().pairs[1], {}, std::nullopt}}).failed, 1u)
      << "nothing timed at all";
}

// --again: the first distribution timed once more after the others, on a bench where B's
// cfg.5.2 is 8% slower on uniform data until other data has been timed through it. The row
// shows both figures and how far the difference moved; the verdict stays the first timing's.
TEST(Stability, AgainShowsHowFarTheFirstDifferenceMovedAndKeepsTheVerdict) {
  const Matched m = one_pair("cfg.0.2", "cfg.0.3");
  bool others = false;
  FakeBench bench([&](const tuner::Point& p, Distribution d) -> std::optional<double> {
    if (d != Distribution::uniform) others = true;
    return p[1] == 3 && d == Distribution::uniform && !others ? 1.08 : 1.0;
  });
  tuner::SideBySideOptions opt;
  opt.rounds = 2;
  opt.distributions = kFour;
  opt.again = true;
  const StabilityRow r = stability_row(
      m.pairs[0], tuner::side_by_side(bench, {0, 2}, {0, 3}, opt), kFour.size());
  ASSERT_EQ(r.now.size(), 4u) << "the extra timing is not a fifth distribution";
  ASSERT_TRUE(r.again.has_value());
  EXPECT_EQ(r.again->dist, Distribution::uniform);
  ASSERT_TRUE(again_moved(r).has_value());
  EXPECT_NEAR(*again_moved(r), -8.0, 1e-9);
  const std::string line = stability_line(r);
  EXPECT_NE(line.find("+8.0% NO "), std::string::npos) << "the verdict is the first timing's\n"
                                                        << line;
  EXPECT_NE(line.find("\n    uniform again, after the others: 1.0000 1.0000 ms, +0.0% (timed "
                      "first: +8.0%; moved -8.0 points)\n"),
            std::string::npos)
      << line;
  const StabilitySummary s = stability_summary({r});
  EXPECT_EQ(s.worst_case_within, 0u);
  EXPECT_EQ(s.again, 1u);
  EXPECT_EQ(s.again_moved, 1u);
  EXPECT_NE(stability_summary_line(s, kFour)
                .find("; uniform again after the others: 1 of 1 moved more than 2 points"),
            std::string::npos)
      << stability_summary_line(s, kFour);
  const nlohmann::json row = stability_row_json(r);
  EXPECT_EQ(row["again"]["distribution"], "uniform");
  EXPECT_NEAR(row["again"]["moved_points"].get<double>(), -8.0, 1e-9);
  EXPECT_NEAR(row["again"]["difference_percent"].get<double>(), 0.0, 1e-9);
  const nlohmann::json j = stability_json({r}, m);
  EXPECT_EQ(j["again"], 1);
  EXPECT_EQ(j["again_moved"], 1);

  // Without --again: no such line, key or count.
  const std::vector<StabilityRow> plain = measured(m);
  EXPECT_FALSE(plain[0].again.has_value());
  EXPECT_EQ(stability_line(plain[0]).find("again"), std::string::npos);
  EXPECT_FALSE(stability_row_json(plain[0]).contains("again"));
  EXPECT_FALSE(stability_json(plain, m).contains("again_moved"));
  EXPECT_EQ(stability_summary_line(stability_summary(plain), kFour).find("again"),
            std::string::npos);
}

TEST(Stability, JsonCarriesEveryRowTheUnmatchedProblemsAndTheCounts) {
  const Matched m = two_runs();
  const nlohmann::json j = stability_json(measured(m, 2), m);
  EXPECT_DOUBLE_EQ(j["tolerance"].get<double>(), 0.02);
  EXPECT_EQ(j["compared"], 4);
  EXPECT_EQ(j["worst_case_within"], 2);
  EXPECT_EQ(j["worst_case_all_within"], false);
  EXPECT_EQ(j["within"], 2);
  EXPECT_EQ(j["recorded_within"], 3);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["same_configuration"], 1);
  EXPECT_EQ(j["within_or_same_configuration"], 2);
  EXPECT_EQ(j["all_within"], false);
  EXPECT_EQ(j["only_in_a"], nlohmann::json::array({"u8:direct:256:2^28"}));
  EXPECT_EQ(j["only_in_b"], nlohmann::json::array({"u8:direct:256:2^30"}));
  const auto& same = j["rows"][0];
  EXPECT_EQ(same["problem"]["spec"], "u8:direct:256:2^16");
  EXPECT_EQ(same["same_configuration"], true);
  EXPECT_EQ(same["failed"], false);
  EXPECT_EQ(same["rounds"], 2);
  EXPECT_EQ(same["a"]["configuration"], "cfg.0.0");
  EXPECT_DOUBLE_EQ(same["b"]["recorded_ms"].get<double>(), 0.0052);
  EXPECT_EQ(same["a"]["samples"], 20);
  EXPECT_EQ(same["a"]["verified"], true);
  EXPECT_FALSE(same["a"].contains("error"));
  EXPECT_DOUBLE_EQ(same["difference_percent"].get<double>(), 0.0);
  EXPECT_EQ(same["within_tolerance"], true);
  EXPECT_DOUBLE_EQ(same["worst_case_difference_percent"].get<double>(), 0.0);
  EXPECT_EQ(same["worst_case_within_tolerance"], true);
  EXPECT_DOUBLE_EQ(same["worst_ratio_a"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(same["worst_ratio_b"].get<double>(), 1.0);
  EXPECT_NEAR(same["recorded_difference_percent"].get<double>(), 4.0, 1e-9);
  EXPECT_EQ(same["recorded_within_tolerance"], false);
  // Per distribution, in order: both timings (each its own rounds pooled) and the difference.
  ASSERT_EQ(same["distributions"].size(), 4u);
  const char* names[] = {"uniform", "skewed", "constant", "runs"};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& d = same["distributions"][i];
    EXPECT_EQ(d["distribution"], names[i]);
    EXPECT_EQ(d["rounds"], 2);
    for (const char* side : {"a", "b"}) {
      EXPECT_EQ(d[side]["samples"], 20) << names[i] << " " << side;
      EXPECT_EQ(d[side]["verified"], true);
      EXPECT_DOUBLE_EQ(d[side]["median_ms"].get<double>(), 1.0);
      for (const char* key : {"min_ms", "max_ms"}) EXPECT_TRUE(d[side].contains(key)) << key;
    }
    EXPECT_DOUBLE_EQ(d["difference_percent"].get<double>(), 0.0);
    EXPECT_EQ(d["within_tolerance"], true);
  }
  const auto& apart = j["rows"][2];
  EXPECT_NEAR(apart["worst_case_difference_percent"].get<double>(), 5.0, 1e-9);
  EXPECT_NEAR(apart["worst_ratio_b"].get<double>(), 1.05, 1e-9);
  EXPECT_EQ(apart["worst_case_within_tolerance"], false);
  const auto& wrong = j["rows"][3];
  EXPECT_EQ(wrong["failed"], true);
  EXPECT_TRUE(wrong["difference_percent"].is_null()) << wrong;
  EXPECT_TRUE(wrong["worst_case_difference_percent"].is_null()) << wrong;
  EXPECT_EQ(wrong["within_tolerance"], false);
  EXPECT_EQ(wrong["worst_case_within_tolerance"], false);
  EXPECT_EQ(wrong["b"]["verified"], false);
  EXPECT_EQ(wrong["b"]["error"], "output differs from the host reference");
  EXPECT_EQ(wrong["distributions"][3]["b"]["error"], "output differs from the host reference");
  EXPECT_EQ(wrong["problem"]["active_channels"], 3);
}

}  // namespace
