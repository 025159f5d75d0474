// Multi-channel tuning on CPU: tune_with over the family's real space and restrictions with a fake
// bench that labels points as the GPU bench does, stored, looked up by the dispatcher, resumed;
// the default plan's multi-channel rows; starts and labels of the family.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "fake_bench.hpp"
#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/tuner/tuner.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;

namespace {

// The fake bench with the family's labels, JSON and template hash: what it stores is what the
// GPU bench would store, so the dispatcher can read it back.
class MultiChannelFakeBench : public FakeBench {
 public:
  using FakeBench::FakeBench;
  std::string label(const Point& p) const override { return multichannel_config_of(p).label(); }
  std::string params_json(const Point& p) const override {
    return multichannel_config_of(p).to_json();
  }
  std::string template_hash() const override {
    return templates::get(multichannel::kTemplate).hash;
  }
};

Problem rgba(std::uint64_t rows) {
  Problem p;
  p.family = multichannel::kFamily;
  p.num_bins = 256;
  p.n = rows;
  p.channels = 4;
  p.active_channels = 3;
  return p;
}

// Fastest at 512 threads, 2 vectors per thread, 16-byte loads, 2 copies; every field counts.
std::optional<double> landscape(const Point& pt, Distribution dist) {
  const MultiChannelConfig c = multichannel_config_of(pt);
  double t = 1.0 + 0.05 * std::fabs(std::log2(c.block_threads / 512.0)) +
             0.03 * std::fabs(std::log2(c.vectors_per_thread / 2.0)) +
             (c.vector_bytes == 16 ? 0.0 : 0.1) + 0.02 * std::fabs(std::log2(c.private_copies / 2.0)) +
             0.01 * c.unroll + 0.01 * (c.padding == 0) + 0.02 * std::fabs(std::log2(c.blocks_per_sm / 2.0));
  if (dist == Distribution::constant) t *= 1.0 + 0.2 / c.private_copies;  // hot bins want copies
  return t;
}

TuneOptions options() {
  TuneOptions o;
  o.strategy = "annealing";
  o.budget.max_evaluations = 60;
  o.finalists = 4;
  o.distribution_budget = 6;
  o.remeasure_rounds = 2;
  return o;
}

struct TempDb {
  TempDb() {
    dir = std::filesystem::temp_directory_path() /
          ("histtune_mc_tune_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    path = (dir / "tune.db").string();
  }
  ~TempDb() { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
  std::string path;
};

TEST(MultiChannelSpace, PointsAndLabelsRoundTrip) {
  const DeviceInfo d = histtune::test::h100_like();
  const Problem p = rgba(1 << 20);
  const SearchSpace s = multichannel_search_space(p, d);
  EXPECT_EQ(s.sizes.size(), multichannel::params().size());
  std::size_t invalid = 0;
  const auto valid = valid_points(s, &invalid);
  EXPECT_GT(valid.size(), 100u);
  EXPECT_GT(invalid, 0u) << "cpb4+ cannot split 4 channels; copies > warps";
  for (const Point& pt : {valid.front(), valid[valid.size() / 2], valid.back()}) {
    const MultiChannelConfig c = multichannel_config_of(pt);
    EXPECT_EQ(multichannel::check(c, p, d).message(), "") << c.label();
    EXPECT_EQ(multichannel_point_of(c), pt) << c.label();
    EXPECT_EQ(point_of_label(c.label(), p, d), pt) << c.label();
  }
  // search_space() picks the family's.
  EXPECT_EQ(search_space(p, d).sizes, s.sizes);
  // The default is on the grid and valid.
  EXPECT_TRUE(point_of_label(multichannel::default_for(p, d).label(), p, d).has_value());
  // A 1D label is not a multi-channel point, nor an invalid one.
  EXPECT_FALSE(point_of_label("tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad1.bps4", p, d));
  EXPECT_FALSE(point_of_label("mc.tpb128.vpt1.vec16.cpb0.pc8.pad1.bps4.u0.lay0.pf0", p, d));
  EXPECT_EQ(template_hash_of(p), templates::get(multichannel::kTemplate).hash);
  EXPECT_EQ(template_hash_of(Problem{}), templates::get(hist1d::kTemplate).hash);
}

TEST(MultiChannelTuning, SearchStoreLookUpAndResume) {
  TempDb tmp;
  const DeviceInfo d = histtune::test::h100_like();
  const Problem p = rgba(1 << 22);
  const SearchSpace space = multichannel_search_space(p, d);

  MultiChannelFakeBench bench(landscape);
  TuneOptions first = options();
  const TuneResult r = tune_with(p, space, bench, first);
  ASSERT_FALSE(r.winner.empty());
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.strategy, "annealing");
  EXPECT_EQ(r.search_evaluations, 60u);
  const auto winner = MultiChannelConfig::parse(r.winner);
  ASSERT_TRUE(winner) << r.winner;
  EXPECT_EQ(multichannel::check(*winner, p, d).message(), "") << r.winner;
  EXPECT_EQ(r.template_hash, templates::get(multichannel::kTemplate).hash);
  for (const auto& m : r.measurements) {
    EXPECT_EQ(m.config_label.rfind("mc.", 0), 0u) << m.config_label;
    EXPECT_TRUE(m.verified);
  }
  {
    db::Database database(tmp.path);
    store(database, d, r);
    const auto w = database.winner(d.uuid, p.key());
    ASSERT_TRUE(w);
    EXPECT_EQ(w->config_label, r.winner);
    EXPECT_EQ(w->problem.family, "multichannel");
    EXPECT_EQ(w->problem.channels, 4u);
    EXPECT_EQ(w->problem.active_channels, 3u);
    EXPECT_EQ(database.distribution_winners(d.uuid, p.key()).size(), r.by_distribution.size());
    EXPECT_EQ(r.by_distribution.size(), 4u);
  }

  // The runtime's lookup finds it: exactly here, nearest for another frame size.
  Dispatcher disp(tmp.path);
  const MultiChannelChoice exact = disp.explain_multichannel(d, p);
  EXPECT_EQ(exact.level, LookupLevel::exact);
  EXPECT_EQ(exact.config.label(), r.winner);
  EXPECT_FALSE(exact.unverified) << exact.stale;
  const MultiChannelChoice near = disp.explain_multichannel(d, rgba(7680ull * 4320));
  EXPECT_EQ(near.level, LookupLevel::nearest_shape);
  EXPECT_EQ(near.config.label(), r.winner);

  // Resume: everything measured is reused, nothing is timed again, the same winner comes out.
  db::Database database(tmp.path);
  TuneOptions again = options();
  resume_from(database, d.row(), p, template_hash_of(p), again);
  EXPECT_EQ(again.known.size(), r.measurements.size());
  MultiChannelFakeBench bench2(landscape);
  const TuneResult r2 = tune_with(p, space, bench2, again);
  EXPECT_EQ(r2.reused, r.measurements.size());
  EXPECT_TRUE(r2.measurements.empty()) << r2.measurements.size() << " measured again";
  EXPECT_EQ(r2.winner, r.winner);
  // Stored under the 1D template hash, nothing is reused: another kernel.
  TuneOptions other = options();
  resume_from(database, d.row(), p, templates::get(hist1d::kTemplate).hash, other);
  EXPECT_TRUE(other.known.empty());
}

TEST(MultiChannelTuning, WinnersOfSimilarProblemsStartTheSearch) {
  TempDb tmp;
  const DeviceInfo d = histtune::test::h100_like();
  db::Database database(tmp.path);
  const std::string hash = templates::get(multichannel::kTemplate).hash;
  const std::string label = "mc.tpb512.vpt2.vec16.cpb0.pc2.pad1.bps2.u0.lay0.pf0.tp0";
  database.set_winner(d.row(), rgba(1 << 20).key(), label, 0.1, hash);
  Problem four = rgba(1 << 20);
  four.active_channels = 4;
  database.set_winner(d.row(), four.key(), "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0", 0.1, hash);
  const auto starts = tuning_starts(database, d, rgba(1 << 24));
  ASSERT_EQ(starts.size(), 1u) << "only the winner of the same channels";
  EXPECT_EQ(multichannel_config_of(starts[0]).label(), label);
  // A 1D problem of the same type and bins gets none of them.
  Problem flat;
  flat.n = 1 << 24;
  EXPECT_TRUE(tuning_starts(database, d, flat).empty());
}

TEST(DefaultPlan, HoldsTheMultiChannelRowsAllTunableOnAnH100) {
  const auto plan = default_plan();
  const DeviceInfo d = histtune::test::h100_like();
  std::set<std::string> seen;
  for (const Problem& p : plan) {
    if (p.family != multichannel::kFamily) continue;
    EXPECT_EQ(validate(p), "") << p.describe();
    seen.insert(p.describe());
    std::size_t valid = 0;
    for (const auto& c : multichannel::space()) valid += multichannel::check(c, p, d).holds();
    EXPECT_GT(valid, 20u) << p.describe();
    EXPECT_EQ(multichannel::check(multichannel::default_for(p, d), p, d).message(), "") << p.describe();
  }
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_TRUE(seen.count("multichannel u8 direct bins=256 n=33177600 channels=3/4"));
  EXPECT_TRUE(seen.count("multichannel u8 direct bins=256 n=2^20 channels=512/512"));
  bool u16_rgba = false;
  for (const Problem& p : plan)
    u16_rgba |= p.family == multichannel::kFamily && p.sample_type == SampleType::u16 &&
                p.channels == 4;
  EXPECT_TRUE(u16_rgba);
  // 45 1D, 3 multi-channel, 3 batched and segmented, 8 weighted (fast and deterministic: 1D
  // f32 and f64, rows, pixels of channels), 3 joint
  EXPECT_EQ(plan.size(), 62u);
}

}  // namespace
