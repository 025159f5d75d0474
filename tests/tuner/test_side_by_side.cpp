// Two configurations timed side by side: on a fake bench, the rounds alternate A B / B A, every
// round's samples are pooled, a failure stops only its own side on its own distribution, and each
// distribution asked for is timed in turn through one bench; on the GPU, the tuner's own bench
// times two stored labels of each family on the same inputs of every distribution and verifies
// both.
#include <gtest/gtest.h>

#include <cmath>

#include "fake_bench.hpp"
#include "gpu.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/tuner/side_by_side.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;

namespace {

const Point kA = {1, 0}, kB = {2, 0};

// A point's time is 1 ms + 3% per unit of p[0]; p[0] = 9 gives a wrong result, p[0] = 8 one on
// constant data only; skewed data is twice as slow and runs data half as slow, to show which
// distribution was timed.
std::optional<double> cost(const Point& p, Distribution d) {
  if (p[0] == 9 || (p[0] == 8 && d == Distribution::constant)) return std::nullopt;
  const double scale = d == Distribution::skewed ? 2.0 : d == Distribution::runs ? 0.5 : 1.0;
  return (1.0 + 0.03 * p[0]) * scale;
}

// n rounds on uniform data alone: one SideBySide.
SideBySideOptions rounds(int n) {
  SideBySideOptions o;
  o.rounds = n;
  o.distributions = {Distribution::uniform};
  return o;
}

SideBySide one(const std::vector<SideBySide>& r) {
  EXPECT_EQ(r.size(), 1u);
  return r.empty() ? SideBySide{} : r.front();
}

}  // namespace

TEST(SideBySide, RoundsAlternateTheOrderAndPoolEverySample) {
  FakeBench bench(cost);
  const SideBySide r = one(side_by_side(bench, kA, kB, rounds(4)));
  EXPECT_EQ(r.dist, Distribution::uniform);
  // A dropped warm-up round (B A), then the four timed rounds.
  const std::vector<Point> order = {kB, kA, kA, kB, kB, kA, kA, kB, kB, kA};
  EXPECT_EQ(bench.measured, order);
  EXPECT_EQ(bench.prefetched, 2u) << "both kernels compile ahead";
  EXPECT_EQ(r.rounds, 4);
  EXPECT_EQ(r.a.label, "cfg.1.0");
  EXPECT_EQ(r.b.label, "cfg.2.0");
  ASSERT_TRUE(r.a.verified && r.b.verified);
  EXPECT_EQ(r.a.timing.samples, 40) << "ten samples per round, four rounds";
  EXPECT_EQ(r.a.timing.sample_ms.size(), 40u);
  EXPECT_DOUBLE_EQ(r.a.timing.median_ms, 1.03);
  EXPECT_DOUBLE_EQ(r.b.timing.median_ms, 1.06);
  EXPECT_TRUE(r.a.error.empty() && r.b.error.empty());
}

TEST(SideBySide, TimesTheRequestedDistribution) {
  FakeBench bench(cost);
  SideBySideOptions o = rounds(2);
  o.distributions = {Distribution::skewed};
  const SideBySide r = one(side_by_side(bench, kA, kB, o));
  EXPECT_EQ(bench.calls[Distribution::skewed], 6u);  // with the warm-up round
  EXPECT_EQ(bench.calls[Distribution::uniform], 0u);
  EXPECT_EQ(r.dist, Distribution::skewed);
  EXPECT_DOUBLE_EQ(r.a.timing.median_ms, 2.06);
}

TEST(SideBySide, ByDefaultTheTunersFourDistributionsAreTimedInTurnThroughOneBench) {
  FakeBench bench(cost);
  SideBySideOptions o;
  o.rounds = 2;
  const std::vector<SideBySide> r = side_by_side(bench, kA, kB, o);
  const std::vector<Distribution> four = {Distribution::uniform, Distribution::skewed,
                                          Distribution::constant, Distribution::runs};
  EXPECT_EQ(o.distributions, four) << "the tuner's default, TuneOptions::distributions";
  ASSERT_EQ(r.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r[i].dist, four[i]);
    EXPECT_EQ(r[i].rounds, 2);
    EXPECT_EQ(bench.calls[four[i]], 6u) << to_string(four[i]) << ": a warm-up round and two";
    EXPECT_TRUE(r[i].a.verified && r[i].b.verified);
    EXPECT_EQ(r[i].a.timing.samples, 20) << "each distribution pools only its own rounds";
  }
  EXPECT_EQ(bench.prefetched, 2u) << "both kernels compile ahead, once";
  // One distribution after the other, each with its own warm-up round (B A) first.
  const std::vector<Point> each = {kB, kA, kA, kB, kB, kA};
  std::vector<Point> order;
  for (int i = 0; i < 4; ++i) order.insert(order.end(), each.begin(), each.end());
  EXPECT_EQ(bench.measured, order);
  EXPECT_DOUBLE_EQ(r[0].b.timing.median_ms, 1.06);
  EXPECT_DOUBLE_EQ(r[1].b.timing.median_ms, 2.12);
  EXPECT_DOUBLE_EQ(r[2].b.timing.median_ms, 1.06);
  EXPECT_DOUBLE_EQ(r[3].b.timing.median_ms, 0.53);
}

// A bench whose B is 8% slower on uniform data until another distribution has been timed
// through it, as a GPU's can be (docs/tuning.md, session 34): `again` times uniform once more
// at the end, through the same bench, and shows it.
TEST(SideBySide, AgainTimesTheFirstDistributionOnceMoreAfterTheOthersThroughTheSameBench) {
  bool others = false;
  FakeBench bench([&](const Point& p, Distribution d) -> std::optional<double> {
    if (d != Distribution::uniform) others = true;
    const std::optional<double> c = cost(p, d);
    return c && p == kB && d == Distribution::uniform && !others ? *c * 1.08 : c;
  });
  SideBySideOptions o;
  o.rounds = 2;
  o.again = true;
  const std::vector<SideBySide> r = side_by_side(bench, kA, kB, o);
  ASSERT_EQ(r.size(), 5u) << "the four distributions, then uniform again";
  EXPECT_EQ(r[4].dist, Distribution::uniform);
  EXPECT_EQ(r[4].rounds, 2);
  EXPECT_EQ(bench.calls[Distribution::uniform], 12u) << "twice a warm-up round and two";
  EXPECT_EQ(bench.calls[Distribution::runs], 6u);
  EXPECT_EQ(bench.prefetched, 2u) << "one bench, both kernels compiled once";
  EXPECT_DOUBLE_EQ(r[0].b.timing.median_ms, 1.06 * 1.08);
  EXPECT_DOUBLE_EQ(r[4].b.timing.median_ms, 1.06);
  EXPECT_DOUBLE_EQ(r[4].a.timing.median_ms, 1.03);
  EXPECT_EQ(r[4].a.timing.samples, 20) << "its own rounds only";

  FakeBench alone(cost);
  SideBySideOptions u = rounds(2);
  u.again = true;
  EXPECT_EQ(side_by_side(alone, kA, kB, u).size(), 1u) << "one distribution: nothing between";
  EXPECT_EQ(alone.calls[Distribution::uniform], 6u);
}

TEST(SideBySide, AFailureOnOneDistributionStopsItsSideThereOnly) {
  FakeBench bench(cost);
  SideBySideOptions o;
  o.rounds = 2;
  const Point wrong_on_constant = {8, 0};
  const std::vector<SideBySide> r = side_by_side(bench, kA, wrong_on_constant, o);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[2].a.verified);
  EXPECT_EQ(r[2].a.timing.samples, 20) << "A goes on alone";
  EXPECT_FALSE(r[2].b.verified);
  EXPECT_EQ(r[2].b.error, "output differs from the host reference");
  EXPECT_EQ(bench.calls[Distribution::constant], 1u + 3u) << "B once, then A's three rounds";
  for (int i : {0, 1, 3}) {
    EXPECT_TRUE(r[i].b.verified) << "runs after the failure too: " << to_string(r[i].dist);
    EXPECT_TRUE(r[i].b.error.empty());
  }
  EXPECT_DOUBLE_EQ(r[3].b.timing.median_ms, 0.62);
}

TEST(SideBySide, NoDistributionsMeansUniform) {
  FakeBench bench(cost);
  SideBySideOptions o = rounds(1);
  o.distributions.clear();
  const SideBySide r = one(side_by_side(bench, kA, kB, o));
  EXPECT_EQ(r.dist, Distribution::uniform);
  EXPECT_EQ(bench.calls[Distribution::uniform], 4u);
}

TEST(SideBySide, AWrongResultStopsOnlyItsSideAndKeepsItsError) {
  FakeBench bench(cost);
  const SideBySide r = one(side_by_side(bench, kA, Point{9, 0}, rounds(3)));
  EXPECT_EQ(bench.measured, (std::vector<Point>{{9, 0}, kA, kA, kA, kA})) << "B is not re-timed";
  EXPECT_EQ(r.rounds, 3);
  EXPECT_TRUE(r.a.verified);
  EXPECT_EQ(r.a.timing.samples, 30);
  EXPECT_FALSE(r.b.verified);
  EXPECT_EQ(r.b.timing.samples, 0);
  EXPECT_EQ(r.b.error, "output differs from the host reference");
}

TEST(SideBySide, StopsWhenBothSidesFailed) {
  FakeBench bench(cost);
  const SideBySide r = one(side_by_side(bench, Point{9, 0}, Point{9, 1}, rounds(5)));
  EXPECT_EQ(bench.measured.size(), 2u);  // both failed in the warm-up round
  EXPECT_EQ(r.rounds, 0);
  EXPECT_FALSE(r.a.verified || r.b.verified);
}

TEST(SideBySide, TheSameConfigurationTwiceIsTimedTwice) {
  FakeBench bench(cost);
  const SideBySide r = one(side_by_side(bench, kA, kA, rounds(2)));
  EXPECT_EQ(bench.measured.size(), 6u);  // warm-up, then two rounds
  EXPECT_DOUBLE_EQ(r.a.timing.median_ms, r.b.timing.median_ms);
  EXPECT_EQ(r.a.label, r.b.label);
}

TEST(SideBySide, ZeroRoundsMeansOne) {
  FakeBench bench(cost);
  EXPECT_EQ(one(side_by_side(bench, kA, kB, rounds(0))).rounds, 1);
}

// ---- on the GPU ----------------------------------------------------------------------------

namespace {

Problem u8_256_2_20() {
  Problem p;
  p.num_bins = 256;
  p.n = 1u << 20;
  return p;
}

}  // namespace

TEST(SideBySideGpu, Hist1DDefaultAgainstItselfIsVerifiedAndClose) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  const Problem p = u8_256_2_20();
  const std::string label = hist1d::default_for(p, d).label();
  KernelCache cache;
  const SideBySide r = one(side_by_side(d, p, label, label, cache, rounds(4)));
  EXPECT_EQ(r.rounds, 4);
  ASSERT_TRUE(r.a.verified) << r.a.error;
  ASSERT_TRUE(r.b.verified) << r.b.error;
  EXPECT_GE(r.a.timing.samples, 4 * 10);
  // One kernel timed twice in one process: what is left is the method's own noise.
  EXPECT_LT(std::fabs(r.b.timing.median_ms / r.a.timing.median_ms - 1), 0.10)
      << r.a.timing.median_ms << " vs " << r.b.timing.median_ms;
}

TEST(SideBySideGpu, MultiChannelRgbaTwoConfigurationsAreVerified) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  Problem p;
  p.family = multichannel::kFamily;
  p.channels = 4;
  p.active_channels = 3;
  p.num_bins = 256;
  p.n = 1024 * 1024;
  const MultiChannelConfig def = multichannel::default_for(p, d);
  KernelCache cache;
  const SideBySide r = one(side_by_side(d, p, def.label(), def.label(), cache, rounds(2)));
  EXPECT_TRUE(r.a.verified) << r.a.error;
  EXPECT_TRUE(r.b.verified) << r.b.error;
  EXPECT_GT(r.a.timing.median_ms, 0);
}

TEST(SideBySideGpu, Hist1DEveryDistributionsInputsAreDrawnAndVerified) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  const Problem p = u8_256_2_20();
  const std::string label = hist1d::default_for(p, d).label();
  KernelCache cache;
  SideBySideOptions o;  // the tuner's four distributions
  o.rounds = 1;
  const std::vector<SideBySide> r = side_by_side(d, p, label, label, cache, o);
  ASSERT_EQ(r.size(), 4u);
  for (const SideBySide& t : r) {
    EXPECT_TRUE(t.a.verified) << to_string(t.dist) << ": " << t.a.error;
    EXPECT_TRUE(t.b.verified) << to_string(t.dist) << ": " << t.b.error;
    EXPECT_GT(t.a.timing.median_ms, 0) << to_string(t.dist);
  }
  EXPECT_EQ(r[2].dist, Distribution::constant);
}

TEST(SideBySideGpu, AnInvalidLabelIsAnErrorOnEveryDistributionAndNothingIsTimed) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  const Problem p = u8_256_2_20();
  KernelCache cache;
  SideBySideOptions o;
  o.rounds = 2;
  const std::vector<SideBySide> all =
      side_by_side(d, p, hist1d::default_for(p, d).label(), "tpb7.nonsense", cache, o);
  ASSERT_EQ(all.size(), 4u);
  for (const SideBySide& r : all) {
    EXPECT_EQ(r.rounds, 0);
    EXPECT_FALSE(r.a.verified);
    EXPECT_FALSE(r.b.verified);
    EXPECT_NE(r.b.error.find("not a valid configuration"), std::string::npos) << r.b.error;
    EXPECT_TRUE(r.a.error.empty()) << "A is valid; it is only not timed alone";
  }
  EXPECT_EQ(all[3].dist, Distribution::runs);
}
