// What `histtune stability` does without a GPU: it pairs two databases' winners by problem,
// picks the device that stands for this GPU, and shows the side-by-side times (taken here through
// tuner::side_by_side on a fake bench) beside the recorded ones, in the table, its summary line
// and the JSON.
#include <gtest/gtest.h>

#include <sstream>

#include "tuner/fake_bench.hpp"
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

// Point {I, 0} takes 1 ms + 1% per unit of I; I = 9 gives a wrong result.
std::optional<double> cost(const tuner::Point& p, tuner::Distribution) {
  if (p[0] == 9) return std::nullopt;
  return 1.0 + 0.01 * p[0];
}

std::vector<StabilityRow> measured(const Matched& m, int rounds = 3) {
  std::vector<StabilityRow> rows;
  tuner::SideBySideOptions opt;
  opt.rounds = rounds;
  for (const auto& pair : m.pairs) {
    FakeBench bench(cost);
    rows.push_back({pair, tuner::side_by_side(bench, point_of(pair.a.config_label),
                                              point_of(pair.b.config_label), opt)});
  }
  return rows;
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
  EXPECT_EQ(p.family, "multichannel");
  EXPECT_EQ(p.channels, 4u);
  EXPECT_EQ(p.active_channels, 3u);
}

TEST(Stability, TheDeviceIsThisGpuElseTheOnlyOtherBoardOfItsModel) {
  const db::DeviceRow gpu = board("GPU-this");
  DeviceMatch m = match_device({board("GPU-other"), board("GPU-this")}, gpu);
  ASSERT_TRUE(m.device);
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.device->uuid, "GPU-this");

  m = match_device({board("GPU-a100", "NVIDIA A100"), board("GPU-other")}, gpu);
  ASSERT_TRUE(m.device) << m.why_not;
  EXPECT_FALSE(m.exact);
  EXPECT_EQ(m.device->uuid, "GPU-other");

  m = match_device({board("GPU-x"), board("GPU-y")}, gpu);
  EXPECT_FALSE(m.device) << "two candidates: not guessed";
  EXPECT_NE(m.why_not.find("2 other NVIDIA H100 80GB HBM3 (sm_90) boards: GPU-x GPU-y"),
            std::string::npos) << m.why_not;

  m = match_device({board("GPU-a100", "NVIDIA A100")}, gpu);
  EXPECT_FALSE(m.device);
  EXPECT_NE(m.why_not.find("no winners for this GPU (GPU-this) or another NVIDIA H100"),
            std::string::npos) << m.why_not;
  EXPECT_NE(m.why_not.find("it holds winners of NVIDIA A100 (sm_90)"), std::string::npos)
      << m.why_not;
}

TEST(Stability, SummaryCountsSideBySideAndRecordedAgreementApart) {
  const std::vector<StabilityRow> rows = measured(two_runs());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_DOUBLE_EQ(rows[1].now.a.timing.median_ms, 1.00);
  EXPECT_DOUBLE_EQ(rows[1].now.b.timing.median_ms, 1.01);
  const StabilitySummary s = stability_summary(rows);
  EXPECT_EQ(s.compared, 4u);
  EXPECT_EQ(s.within, 2u) << "same and 1% apart; not 5% apart, not the wrong result";
  EXPECT_EQ(s.recorded_within, 3u) << "2^16 recorded 4% apart; 2^20 0.5%, 2^24 1%, RGBA 0%";
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.same, 1u);
  EXPECT_EQ(stability_summary_line(s),
            "2 of 4 problems within 2% (side by side, measured now); recorded times: 3 of 4 "
            "within; same configuration: 1; 1 FAILED\n");
}

TEST(Stability, TableShowsBothTimesTheirDifferenceAndTheRecordedOnes) {
  const std::vector<StabilityRow> rows = measured(two_runs());
  const std::string header = stability_table_header();
  for (const char* col : {"problem", "A ms", "B ms", "diff", "within", "recorded A",
                          "recorded B", "rec. diff", "A configuration | B configuration"})
    EXPECT_NE(header.find(col), std::string::npos) << col << "\n" << header;
  const std::string same = stability_line(rows[0]);
  EXPECT_EQ(same,
            "u8:direct:256:2^16                1.0000    1.0000   +0.0% yes        0.0050     "
            "0.0052     +4.0%  cfg.0.0 | same\n");
  const std::string apart = stability_line(rows[2]);
  EXPECT_NE(apart.find("1.0000    1.0500   +5.0% NO "), std::string::npos) << apart;
  EXPECT_NE(apart.find("cfg.0.2 | cfg.5.2"), std::string::npos) << apart;
  const std::string wrong = stability_line(rows[3]);
  EXPECT_NE(wrong.find("mc:3/4:u8:direct:256:33177600"), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("1.0100     WRONG       - FAILED"), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("\n    B: output differs from the host reference\n"), std::string::npos)
      << wrong;
  const std::string legend = stability_legend(3);
  EXPECT_NE(legend.find("3 rounds alternating A B / B A"), std::string::npos) << legend;
  EXPECT_NE(legend.find("|diff| <= 2%"), std::string::npos) << legend;
}

TEST(Stability, AnUnrunnableWinnerIsNamedAndItsPartnerMarkedNotTimed) {
  StabilityRow r{two_runs().pairs[1], {}};
  r.now.a.label = r.pair.a.config_label;
  r.now.b.label = r.pair.b.config_label;
  r.now.b.error = "not a valid configuration of this problem on NVIDIA H100";
  const std::string s = stability_line(r);
  EXPECT_NE(s.find("        -         -       - FAILED"), std::string::npos) << s;
  EXPECT_NE(s.find("    B: not a valid configuration"), std::string::npos) << s;
  EXPECT_NE(s.find("    A: not timed"), std::string::npos) << s;
}

TEST(Stability, JsonCarriesEveryRowTheUnmatchedProblemsAndTheCounts) {
  const Matched m = two_runs();
  const nlohmann::json j = stability_json(measured(m, 2), m);
  EXPECT_DOUBLE_EQ(j["tolerance"].get<double>(), 0.02);
  EXPECT_EQ(j["compared"], 4);
  EXPECT_EQ(j["within"], 2);
  EXPECT_EQ(j["recorded_within"], 3);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["all_within"], false);
  EXPECT_EQ(j["only_in_a"], nlohmann::json::array({"u8:direct:256:2^28"}));
  EXPECT_EQ(j["only_in_b"], nlohmann::json::array({"u8:direct:256:2^30"}));
  const auto& same = j["rows"][0];
  EXPECT_EQ(same["problem"]["spec"], "u8:direct:256:2^16");
  EXPECT_EQ(same["same_configuration"], true);
  EXPECT_EQ(same["rounds"], 2);
  EXPECT_EQ(same["a"]["configuration"], "cfg.0.0");
  EXPECT_DOUBLE_EQ(same["b"]["recorded_ms"].get<double>(), 0.0052);
  EXPECT_EQ(same["a"]["samples"], 20);
  EXPECT_EQ(same["a"]["verified"], true);
  EXPECT_FALSE(same["a"].contains("error"));
  EXPECT_DOUBLE_EQ(same["difference_percent"].get<double>(), 0.0);
  EXPECT_EQ(same["within_tolerance"], true);
  EXPECT_NEAR(same["recorded_difference_percent"].get<double>(), 4.0, 1e-9);
  EXPECT_EQ(same["recorded_within_tolerance"], false);
  const auto& wrong = j["rows"][3];
  EXPECT_TRUE(wrong["difference_percent"].is_null()) << wrong;
  EXPECT_EQ(wrong["within_tolerance"], false);
  EXPECT_EQ(wrong["b"]["verified"], false);
  EXPECT_EQ(wrong["b"]["error"], "output differs from the host reference");
  EXPECT_EQ(wrong["problem"]["active_channels"], 3);
}

}  // namespace
