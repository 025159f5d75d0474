// The graded lookup of multi-channel problems against fixture databases, with no GPU: the same
// levels and stale-row rules as the 1D lookup (test_dispatcher.cpp), keyed by channels too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

using namespace histtune;

namespace {

const std::string& mc_hash() { return templates::get(multichannel::kTemplate).hash; }

DeviceInfo device(const std::string& uuid, int major = 9, int minor = 0) {
  return test::fixture_gpu(uuid, major, minor);
}

// RGBA-like u8 rows: `channels` interleaved, the first `active` counted.
Problem pixels(std::uint64_t rows, std::uint32_t channels = 4, std::uint32_t active = 3,
               std::uint32_t bins = 256) {
  return multichannel_problem(SampleType::u8, channels, active, rows, bins);
}

// Valid for 4-channel u8 rows of 256 bins on the fixture device.
constexpr const char* kSmall = "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0.tp0";
constexpr const char* kLarge = "mc.tpb1024.vpt2.vec16.cpb0.pc4.pad1.bps2.u0.lay0.pf0.tp0";
constexpr const char* kOther = "mc.tpb512.vpt2.vec16.cpb0.pc2.pad1.bps4.u0.lay0.pf0.tp0";

class MultiChannelLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("histtune_mc_dispatch_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "fixture.db").string();
    db::Database db(path_);
    const auto h100 = device("GPU-h100").row();
    db.set_winner(h100, pixels(1 << 20).key(), kSmall, 0.01, mc_hash(), version());
    db.set_winner(h100, pixels(1 << 25).key(), kLarge, 0.1, mc_hash(), version());
    db.set_winner(device("GPU-other-h100").row(), pixels(1 << 22).key(), kOther, 0.05, mc_hash(),
                  version());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(MultiChannelLookup, ExactMatchWins) {
  Dispatcher disp(path_);
  const MultiChannelChoice c = disp.explain_multichannel(device("GPU-h100"), pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_EQ(c.config.label(), kSmall);
  EXPECT_FALSE(c.unverified);
  EXPECT_EQ(c.summary(), std::string("exact ") + kSmall);
  EXPECT_NE(c.detail.find("channels=3/4"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, NearestRowsInLogSpace) {
  Dispatcher disp(path_);
  // 2^24 rows are nearer 2^25 than 2^20; 2^21 nearer 2^20.
  const MultiChannelChoice c = disp.explain_multichannel(device("GPU-h100"), pixels(1 << 24));
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);
  EXPECT_EQ(c.config.label(), kLarge);
  EXPECT_EQ(disp.explain_multichannel(device("GPU-h100"), pixels(1 << 21)).config.label(), kSmall);
  // 7680x4320 pixels (about 2^24.98) take the 2^25 winner.
  EXPECT_EQ(disp.explain_multichannel(device("GPU-h100"), pixels(7680ull * 4320)).config.label(),
            kLarge);
}

TEST_F(MultiChannelLookup, OtherChannelsAreNotCandidates) {
  // 4 of 4 channels, and 3 of 3, are other kernels: only the default answers them.
  Dispatcher disp(path_);
  for (const Problem& p : {pixels(1 << 20, 4, 4), pixels(1 << 20, 3, 3)}) {
    const MultiChannelChoice c = disp.explain_multichannel(device("GPU-h100"), p);
    EXPECT_EQ(c.level, LookupLevel::builtin_default) << p.describe();
    EXPECT_EQ(c.config, multichannel::default_for(p, device("GPU-h100"))) << p.describe();
  }
}

TEST_F(MultiChannelLookup, SameArchitectureFromAnotherDevice) {
  Dispatcher disp(path_);
  // Another model of the architecture: the board of the fixture's own model would answer
  // `same_model` (test_dispatcher.cpp).
  const MultiChannelChoice c =
      disp.explain_multichannel(test::another_model(device("GPU-new-h100")), pixels(1 << 22));
  EXPECT_EQ(c.level, LookupLevel::same_arch);
  EXPECT_EQ(c.config.label(), kOther);
  EXPECT_NE(c.detail.find("GPU-other-h100"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, OtherArchitectureFallsBackToDefault) {
  Dispatcher disp(path_);
  const DeviceInfo a100 = device("GPU-a100", 8, 0);
  const MultiChannelChoice c = disp.explain_multichannel(a100, pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_EQ(c.config, multichannel::default_for(pixels(1 << 20), a100));
  EXPECT_NE(c.detail.find("nothing usable tuned"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, FamiliesDoNotAnswerEachOther) {
  {
    db::Database db(path_);  // a 1D winner with the same type, binning, bins and n
    Problem flat;
    flat.n = 1 << 20;
    db.set_winner(device("GPU-h100").row(), flat.key(),
                  "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.01,
                  templates::get(hist1d::kTemplate).hash, version());
  }
  Dispatcher disp(path_);
  EXPECT_EQ(disp.explain_multichannel(device("GPU-h100"), pixels(1 << 20)).config.label(), kSmall);
  Problem flat;
  flat.n = 1 << 20;
  const Choice c = disp.explain(device("GPU-h100"), flat);
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_EQ(c.detail.find("mc."), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, NoDatabaseMeansTheDefault) {
  Dispatcher disp((dir_ / "absent.db").string());
  EXPECT_FALSE(disp.has_database());
  const MultiChannelChoice c = disp.explain_multichannel(device("GPU-h100"), pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_NE(c.detail.find("no tuning database"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, OtherTemplateHashIsSkippedAsStale) {
  {
    db::Database db(path_);  // the exact row now comes from another kernel source: the 1D one's
    db.set_winner(device("GPU-h100").row(), pixels(1 << 20).key(), kOther, 0.01,
                  templates::get(hist1d::kTemplate).hash, version());
  }
  Dispatcher disp(path_);
  const MultiChannelChoice c = disp.explain_multichannel(device("GPU-h100"), pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);  // the current 2^25 row
  EXPECT_EQ(c.config.label(), kLarge);
  EXPECT_NE(c.detail.find(std::string("skipped stale ") + kOther), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("kernel source changed"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, CorruptOrInvalidConfigurationMeansTheDefaultWithAWarning) {
  const auto p = dir_ / "corrupt.db";
  {
    db::Database db(p.string());
    db.set_winner(device("GPU-h100").row(), pixels(1 << 20).key(), "mc.garbage", 0.001, mc_hash(),
                  version());
    // Parses, but 8 copies need 8 warps: a 128-thread block has 4.
    db.set_winner(device("GPU-h100").row(), pixels(1 << 16).key(),
                  "mc.tpb128.vpt1.vec16.cpb0.pc8.pad1.bps4.u0.lay0.pf0", 0.001, mc_hash(), version());
    // A 1D label stored under the multi-channel key.
    db.set_winner(device("GPU-h100").row(), pixels(1 << 12).key(),
                  "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.001, mc_hash(), version());
  }
  Dispatcher disp(p.string());
  const DeviceInfo d = device("GPU-h100");
  const MultiChannelChoice c = disp.explain_multichannel(d, pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_EQ(c.config, multichannel::default_for(pixels(1 << 20), d));
  EXPECT_EQ(multichannel::check(c.config, pixels(1 << 20), d).message(), "");
  EXPECT_NE(c.detail.find("skipped mc.garbage: unparsable label"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("private_copies > warps per block"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("skipped tpb512"), std::string::npos) << c.detail;
}

TEST_F(MultiChannelLookup, OtherHisttuneVersionIsUsedButUnverifiedAndStrictSkipsIt) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), pixels(1 << 20).key(), kOther, 0.01, mc_hash(),
                  "0.0.1");
  }
  Dispatcher lenient(DispatcherOptions{path_, false});
  const MultiChannelChoice c = lenient.explain_multichannel(device("GPU-h100"), pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_EQ(c.config.label(), kOther);
  EXPECT_TRUE(c.unverified);
  EXPECT_EQ(c.stale, std::string("histtune 0.0.1 -> ") + version());
  EXPECT_NE(c.summary().find("(unverified: histtune 0.0.1"), std::string::npos) << c.summary();

  Dispatcher strict(DispatcherOptions{path_, true});
  const MultiChannelChoice s = strict.explain_multichannel(device("GPU-h100"), pixels(1 << 20));
  EXPECT_EQ(s.level, LookupLevel::nearest_shape);
  EXPECT_EQ(s.config.label(), kLarge);
  EXPECT_FALSE(s.unverified);
  EXPECT_NE(s.detail.find(std::string("skipped unverified ") + kOther), std::string::npos)
      << s.detail;
}

TEST_F(MultiChannelLookup, OtherDriverAndNvrtcAreUsedButUnverified) {
  const auto p = dir_ / "old_toolchain.db";
  {
    db::Database db(p.string());
    db::DeviceRow row = device("GPU-h100").row();
    row.driver_version = 12080;
    row.nvrtc_version = "11.0";
    db.set_winner(row, pixels(1 << 20).key(), kSmall, 0.01, mc_hash(), version());
  }
  Dispatcher disp(p.string());
  DeviceInfo now = device("GPU-h100");
  now.driver_version = 13000;
  const MultiChannelChoice c = disp.explain_multichannel(now, pixels(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_TRUE(c.unverified);
  EXPECT_EQ(c.stale, "driver 12.8 -> 13.0; NVRTC 11.0 -> " + nvrtc_version());
}

// A row tuned for fewer bins, on this device or another of its architecture, whose histograms
// no longer fit at the bins asked: skipped, said so, and the default (which fits) runs instead.
TEST_F(MultiChannelLookup, StoredRowsThatDoNotFitTheBinsAreSkipped) {
  const auto p = dir_ / "bins.db";
  const Problem small = multichannel_problem(SampleType::u16, 17, 17, 1 << 20, 256);
  const Problem large = multichannel_problem(SampleType::u16, 17, 17, 1 << 20, 4096);
  constexpr const char* kWhole = "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0.tp0";
  const DeviceInfo d = device("GPU-h100");
  ASSERT_EQ(multichannel::check(*MultiChannelConfig::parse(kWhole), small, d).message(), "");
  {
    db::Database db(p.string());
    db.set_winner(d.row(), small.key(), kWhole, 0.01, mc_hash(), version());
  }
  Dispatcher disp(p.string());
  for (const DeviceInfo& now : {d, device("GPU-new-h100")}) {
    const MultiChannelChoice c = disp.explain_multichannel(now, large);
    EXPECT_EQ(c.level, LookupLevel::builtin_default) << now.uuid;
    EXPECT_EQ(c.config, multichannel::default_for(large, now)) << now.uuid;
    EXPECT_EQ(multichannel::check(c.config, large, now).message(), "") << c.config.label();
    EXPECT_NE(c.detail.find(std::string("skipped ") + kWhole + ": shared memory"),
              std::string::npos)
        << c.detail;
  }
  // A row tuned for 2048 bins in groups of one fits 4096 too: the nearest shape answers.
  constexpr const char* kOne = "mc.tpb1024.vpt2.vec0.cpb1.pc1.pad1.bps1.u0.lay0.pf0.tp0";
  {
    db::Database db(p.string());
    db.set_winner(d.row(), multichannel_problem(SampleType::u16, 17, 17, 1 << 20, 2048).key(), kOne,
                  0.01, mc_hash(), version());
  }
  Dispatcher again(p.string());
  const MultiChannelChoice c = again.explain_multichannel(d, large);
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);
  EXPECT_EQ(c.config.label(), kOne);
}

TEST(MultiChannelToolchain, TemplateHashIsTheFamilysOwn) {
  const DeviceInfo d = device("GPU-h100");
  EXPECT_EQ(current_toolchain(d, multichannel::kFamily).template_hash, mc_hash());
  EXPECT_EQ(current_toolchain(d).template_hash, templates::get(hist1d::kTemplate).hash);
  EXPECT_NE(mc_hash(), templates::get(hist1d::kTemplate).hash);
}

}  // namespace
