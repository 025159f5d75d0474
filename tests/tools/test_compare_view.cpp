// What `histtune compare` prints for one measured problem, from H100 measurements: spreads,
// speedups, verdicts (ties named as ties), % of floor, and the same in JSON.
#include <gtest/gtest.h>

#include "compare_view.hpp"

namespace {

using histtune::cli::compare_json;
using histtune::cli::compare_legend;
using histtune::cli::compare_text;

histtune::db::ProblemRow key_2_24() { return {"hist1d", "u8", "direct", 256, 1u << 24}; }

// H100, u8 direct 256 bins, 2^24 (git show 450c83b:docs/results/h100/compare.log).
histtune::tuner::CompareRow row_2_24() {
  histtune::tuner::CompareRow r;
  r.tuned_label = "tpb1024.vpt2.vec8.pc1.lay0.agg0.u2.pad0.bps2";
  r.tuned = {0.0144, 0.0141, 0.0180, 15};
  r.fallback = {0.0392, 0.0385, 0.0401, 15};
  r.cub = {0.0154, 0.0149, 0.0176, 15};
  r.tuned_ok = r.fallback_ok = r.cub_ok = true;
  r.floor_ms = 0.0055;
  return r;
}

TEST(CompareView, TextShowsSpreadsSpeedupsVerdictsAndFloor) {
  const std::string s = compare_text(key_2_24(), row_2_24(), false);
  EXPECT_NE(s.find("u8 direct bins=256 n=2^24  (tuned: tpb1024.vpt2.vec8"), std::string::npos) << s;
  EXPECT_NE(s.find("  tuned       0.0141    0.0144    0.0180\n"), std::string::npos)
      << "tuned min median max\n" << s;
  EXPECT_NE(s.find("2.72x  tuned wins"), std::string::npos) << "vs default\n" << s;
  EXPECT_NE(s.find("1.07x  tie (ranges overlap)"), std::string::npos) << "vs CUB: not a win\n" << s;
  EXPECT_NE(s.find("38.2% of the floor"), std::string::npos) << s;
  EXPECT_EQ(s.find("calls"), std::string::npos) << "call counts only with --verbose";
  const std::string v = compare_text(key_2_24(), row_2_24(), true);
  EXPECT_NE(v.find("0.0401     15     2.72x"), std::string::npos) << v;
}

TEST(CompareView, LegendStatesTheTieRule) {
  const std::string s = compare_legend();
  EXPECT_NE(s.find("min / median / max"), std::string::npos) << s;
  EXPECT_NE(s.find("within 2%"), std::string::npos) << s;
  EXPECT_NE(s.find("ranges overlap"), std::string::npos) << s;
}

TEST(CompareView, WrongResultsAndMissingCubAreNotJudged) {
  auto r = row_2_24();
  r.fallback_ok = false;
  r.cub_error = "CUB cannot express this problem";
  const std::string s = compare_text(key_2_24(), r, false);
  EXPECT_NE(s.find("WRONG RESULT"), std::string::npos) << s;
  EXPECT_NE(s.find("CUB      n/a: CUB cannot express"), std::string::npos) << s;
  EXPECT_EQ(s.find("tuned wins"), std::string::npos) << s;
  const auto j = compare_json(key_2_24(), r);
  EXPECT_TRUE(j["vs_default"].is_null()) << j;
  EXPECT_TRUE(j["vs_cub"].is_null()) << j;
  EXPECT_EQ(j["cub"]["error"], "CUB cannot express this problem");
  EXPECT_EQ(j["default"]["verified"], false);
}

TEST(CompareView, JsonCarriesSpreadsSpeedupsAndVerdicts) {
  histtune::tuner::CompareRow r = row_2_24();
  r.cub.hold_timeouts = 2;
  const auto j = compare_json(key_2_24(), r);
  EXPECT_EQ(j["problem"]["spec"], "u8:direct:256:2^24");
  EXPECT_EQ(j["configuration"], "tpb1024.vpt2.vec8.pc1.lay0.agg0.u2.pad0.bps2");
  EXPECT_DOUBLE_EQ(j["tuned"]["min_ms"].get<double>(), 0.0141);
  EXPECT_DOUBLE_EQ(j["cub"]["max_ms"].get<double>(), 0.0176);
  EXPECT_EQ(j["tuned"]["samples"], 15);
  EXPECT_EQ(j["tuned"]["hold_timeouts"], 0);
  EXPECT_EQ(j["cub"]["hold_timeouts"], 2) << "samples that may include host time are named";
  EXPECT_EQ(j["vs_default"]["verdict"], "win");
  EXPECT_EQ(j["vs_cub"]["verdict"], "tie");
  EXPECT_EQ(j["vs_cub"]["ranges_overlap"], true);
  EXPECT_NEAR(j["vs_cub"]["speedup"].get<double>(), 0.0154 / 0.0144, 1e-12);
  EXPECT_NEAR(j["percent_of_floor"].get<double>(), 100 * 0.0055 / 0.0144, 1e-9);
}

}  // namespace

TEST(CompareView, BaselineKeepsTheDefaultsAndCubsSpread) {
  const histtune::db::BaselineRow b = histtune::cli::baseline_of(row_2_24(), 3000);
  EXPECT_DOUBLE_EQ(*b.default_ms, 0.0392);
  EXPECT_DOUBLE_EQ(*b.default_min_ms, 0.0385);
  EXPECT_DOUBLE_EQ(*b.default_max_ms, 0.0401);
  EXPECT_DOUBLE_EQ(*b.cub_ms, 0.0154);
  EXPECT_DOUBLE_EQ(*b.cub_min_ms, 0.0149);
  EXPECT_DOUBLE_EQ(*b.cub_max_ms, 0.0176);
  EXPECT_DOUBLE_EQ(*b.floor_ms, 0.0055);
  EXPECT_DOUBLE_EQ(*b.read_gbps, 3000);

  // A wrong result or a CUB that did not run stores nothing of it, spread included.
  histtune::tuner::CompareRow r = row_2_24();
  r.fallback_ok = false;
  r.cub_error = "CUB cannot express this problem";
  const histtune::db::BaselineRow none = histtune::cli::baseline_of(r, 3000);
  EXPECT_FALSE(none.default_ms || none.default_min_ms || none.default_max_ms);
  EXPECT_FALSE(none.cub_ms || none.cub_min_ms || none.cub_max_ms);
}
