// The graded lookup against fixture databases, with no GPU: a device description stands in.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/jit.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

using namespace histtune;

namespace {

// What this build would record: rows stored with these are current.
const std::string& current_hash() { return templates::get(hist1d::kTemplate).hash; }

DeviceInfo device(const std::string& uuid, int major = 9, int minor = 0) {
  return test::fixture_gpu(uuid, major, minor);
}

// A board of the same architecture as the fixture's, of another model: it sees their rows at
// same_arch (a board of the fixture's own model sees an exact problem at same_model).
DeviceInfo new_model(const std::string& uuid) { return test::another_model(device(uuid)); }

Problem u8(std::uint64_t n, std::uint32_t bins = 256) {
  Problem p;
  p.num_bins = bins;
  p.n = n;
  return p;
}

class DispatcherLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("histtune_dispatch_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    path_ = (dir_ / "fixture.db").string();
    db::Database db(path_);
    auto h100 = device("GPU-h100").row();
    auto other = device("GPU-other-h100").row();
    db.set_winner(h100, u8(1 << 20).key(), "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.01, current_hash(), version());
    db.set_winner(h100, u8(1 << 28).key(), "tpb1024.vpt8.vec0.pc4.lay0.agg0.u2.pad1.bps2", 0.1, current_hash(), version());
    db.set_winner(other, u8(1 << 24).key(), "tpb128.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps16", 0.02, current_hash(), version());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(DispatcherLookup, ExactMatchWins) {
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_EQ(c.config.label(), "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4.st0.b1.sb0.cl1.pf0.tp0");
}

TEST_F(DispatcherLookup, NearestShapeInLogSpace) {
  Dispatcher disp(path_);
  // 2^26 is nearer 2^28 than 2^20 in log2 n.
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 26));
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);
  EXPECT_EQ(c.config.label(), "tpb1024.vpt8.vec0.pc4.lay0.agg0.u2.pad1.bps2.st0.b1.sb0.cl1.pf0.tp0");
  Choice d = disp.explain(device("GPU-h100"), u8(1 << 22));
  EXPECT_EQ(d.config.label(), "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4.st0.b1.sb0.cl1.pf0.tp0");
}

TEST_F(DispatcherLookup, SameArchitectureFromAnotherDevice) {
  Dispatcher disp(path_);
  Choice c = disp.explain(new_model("GPU-new-h100"), u8(1 << 24));
  EXPECT_EQ(c.level, LookupLevel::same_arch);
  EXPECT_NE(c.detail.find("GPU-other-h100"), std::string::npos) << c.detail;
}

// `histtune tune --gpu all` splits a plan between the boards of one model: a problem tuned on one
// serves the others, and the level says so.
TEST_F(DispatcherLookup, SameModelServesTheProblemTunedOnAnotherBoardOfTheModel) {
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-twin"), u8(1 << 24));
  EXPECT_EQ(c.level, LookupLevel::same_model);
  EXPECT_STREQ(to_string(c.level), "same_model");
  EXPECT_EQ(c.config.label(), "tpb128.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps16.st0.b1.sb0.cl1.pf0.tp0");
  EXPECT_EQ(c.detail.rfind("tpb128.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps16 tuned on Fixture GPU "
                           "(GPU-other-h100) for bins=256 n=16777216", 0), 0u) << c.detail;
  EXPECT_EQ(c.summary().rfind("same_model tpb128", 0), 0u) << c.summary();
  EXPECT_TRUE(tuned_for_model(c.level));
  EXPECT_FALSE(tuned_for_model(LookupLevel::nearest_shape));
  // Another shape of that board's is still only the same architecture's.
  EXPECT_EQ(disp.explain(device("GPU-twin"), u8(1 << 22)).level, LookupLevel::same_arch);
}

TEST_F(DispatcherLookup, SameModelRanksAboveTheNearestShapeOfThisBoard) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-other-h100").row(), u8(1 << 26).key(),
                  "tpb256.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps8", 0.05, current_hash(), version());
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 26));
  EXPECT_EQ(c.level, LookupLevel::same_model) << "not the nearest shape tuned here (2^28)";
  EXPECT_EQ(c.config.label(), "tpb256.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0");
  // Its own exact row still comes first.
  EXPECT_EQ(disp.explain(device("GPU-other-h100"), u8(1 << 26)).level, LookupLevel::exact);
}

TEST_F(DispatcherLookup, StaleSameModelRowIsSkippedToTheNearestShape) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-other-h100").row(), u8(1 << 26).key(),
                  "tpb256.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps8", 0.05, "old-template", version());
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 26));
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);
  EXPECT_NE(c.detail.find("skipped stale tpb256.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps8 tuned on "
                          "Fixture GPU (GPU-other-h100)"),
            std::string::npos) << c.detail;
}

TEST_F(DispatcherLookup, OtherArchitectureOrTypeFallsBackToDefault) {
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-a100", 8, 0), u8(1 << 24));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_EQ(c.config, hist1d::default_for(u8(1 << 24), device("GPU-a100", 8, 0)));
  Problem u16 = u8(1 << 20);
  u16.sample_type = SampleType::u16;
  EXPECT_EQ(disp.explain(device("GPU-h100"), u16).level, LookupLevel::builtin_default);
}

TEST_F(DispatcherLookup, InvalidStoredConfigurationIsSkippedNotLaunched) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), u8(1 << 16).key(), "garbage-label", 0.001, current_hash(), version());
    // Valid label, but 32 copies need 32 warps: a 256-thread block has 8.
    db.set_winner(device("GPU-h100").row(), u8(1 << 12).key(), "tpb256.vpt1.vec0.pc32.lay0.agg0.u0.pad1.bps8",
                  0.001, current_hash(), version());
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 16));
  EXPECT_NE(c.config.label(), "garbage-label");
  EXPECT_EQ(hist1d::check(c.config, u8(1 << 16), device("GPU-h100")).message(), "");
  EXPECT_NE(c.detail.find("garbage-label"), std::string::npos) << c.detail;
  Choice d = disp.explain(device("GPU-h100"), u8(1 << 12));
  EXPECT_NE(d.config.private_copies, 32);
  EXPECT_EQ(hist1d::check(d.config, u8(1 << 12), device("GPU-h100")).message(), "");
}

TEST_F(DispatcherLookup, NearestSkipsConfigurationsThatDoNotFitTheBins) {
  {
    db::Database db(path_);
    Problem big = u8(1 << 20, 4096);
    big.sample_type = SampleType::u32;
    db.set_winner(device("GPU-h100").row(), big.key(), "tpb1024.vpt1.vec0.pc8.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf0.tp1", 0.1, current_hash(), version());
  }
  Dispatcher disp(path_);
  // Two-phase: 8 copies x 16 Ki bins x 4 B = 512 KiB in one block (a two-phase block stores all
  // its bins, so it cannot slice them): does not fit.
  Problem huge = u8(1 << 20, 16384);
  huge.sample_type = SampleType::u32;
  Choice c = disp.explain(device("GPU-h100"), huge);
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_NE(c.detail.find("shared memory"), std::string::npos) << c.detail;
}

// A winner of a few bins is not stretched over bins it would have to slice: each slice reads the
// input again (a 256-bin winner ran 2^20 bins in 19 slices at 3.2 ms on an H100, against the
// default's 0.80). Where it needs no more slices than it was timed with, it serves.
TEST_F(DispatcherLookup, NearestSkipsWinnersThatWouldSliceMoreThanTheyWereTimed) {
  Problem small = u8(1 << 16, 256);
  small.sample_type = SampleType::i32;
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), small.key(),
                  "tpb512.vpt4.vec0.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1.pf0.tp0", 0.0044,
                  current_hash(), version());
  }
  Dispatcher disp(path_);
  Problem vocab = u8(1 << 26, 1u << 20);
  vocab.sample_type = SampleType::i32;
  const Choice c = disp.explain(device("GPU-h100"), vocab);
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_NE(c.detail.find("it would run 1048576 bins in 19 (each slice reads the input again)"),
            std::string::npos)
      << c.detail;
  Problem more = u8(1 << 26, 4096);
  more.sample_type = SampleType::i32;
  EXPECT_EQ(disp.explain(device("GPU-h100"), more).level, LookupLevel::nearest_shape);
}

// ---- stale results: recorded under another toolchain than the current one ----

TEST_F(DispatcherLookup, CurrentRowsAreNotFlagged) {
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_FALSE(c.unverified);
  EXPECT_EQ(c.stale, "");
  EXPECT_EQ(c.summary(), "exact " + c.config.label());
}

TEST_F(DispatcherLookup, OtherTemplateHashIsSkippedAsStale) {
  {
    db::Database db(path_);  // the exact row now comes from another kernel source
    db.set_winner(device("GPU-h100").row(), u8(1 << 20).key(),
                  "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps4", 0.01, "0123456789abcdef", version());
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 20));
  // Skipped; the next level answers: the nearest current row on this device (2^28).
  EXPECT_EQ(c.level, LookupLevel::nearest_shape);
  EXPECT_EQ(c.config.label(), "tpb1024.vpt8.vec0.pc4.lay0.agg0.u2.pad1.bps2.st0.b1.sb0.cl1.pf0.tp0");
  EXPECT_FALSE(c.unverified);
  EXPECT_NE(c.detail.find("skipped stale tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps4"),
            std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("kernel source changed"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("0123456789abcdef"), std::string::npos) << c.detail;
  EXPECT_EQ(c.detail.find("skipped"), c.detail.rfind("skipped")) << "named once: " << c.detail;
}

TEST_F(DispatcherLookup, EveryRowOfAnotherTemplateMeansTheDefault) {
  const auto p = std::filesystem::path(path_).parent_path() / "old.db";
  {
    db::Database db(p.string());
    db.set_winner(device("GPU-h100").row(), u8(1 << 20).key(),
                  "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.01, "", version());
  }
  Dispatcher disp(p.string());
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_EQ(c.config, hist1d::default_for(u8(1 << 20), device("GPU-h100")));
  EXPECT_NE(c.detail.find("template unrecorded"), std::string::npos) << c.detail;
}

TEST_F(DispatcherLookup, OtherHisttuneVersionIsUsedButUnverified) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), u8(1 << 20).key(),
                  "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.01, current_hash(), "0.0.1");
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_TRUE(c.unverified);
  EXPECT_EQ(c.stale, std::string("histtune 0.0.1 -> ") + version());
  EXPECT_NE(c.summary().find("(unverified: histtune 0.0.1"), std::string::npos) << c.summary();
  EXPECT_NE(c.detail.find("unverified: recorded under histtune 0.0.1"), std::string::npos)
      << c.detail;
}

TEST_F(DispatcherLookup, OtherDriverAndNvrtcAreUsedButUnverified) {
  const auto p = std::filesystem::path(path_).parent_path() / "old_toolchain.db";
  {
    db::Database db(p.string());
    db::DeviceRow row = device("GPU-h100").row();
    row.driver_version = 12080;
    row.nvrtc_version = "11.0";
    db.set_winner(row, u8(1 << 20).key(), "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4", 0.01,
                  current_hash(), version());
  }
  Dispatcher disp(p.string());
  DeviceInfo now = device("GPU-h100");
  now.driver_version = 13000;
  Choice c = disp.explain(now, u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_TRUE(c.unverified);
  EXPECT_EQ(c.stale, "driver 12.8 -> 13.0; NVRTC 11.0 -> " + nvrtc_version());
  // A description without a driver (0) is not compared on it.
  DeviceInfo described = device("GPU-h100");
  EXPECT_EQ(disp.explain(described, u8(1 << 20)).stale, "NVRTC 11.0 -> " + nvrtc_version());
}

TEST_F(DispatcherLookup, StrictSkipsUnverifiedRowsToTheNextLevel) {
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), u8(1 << 20).key(),
                  "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps4", 0.01, current_hash(), "");
  }
  Dispatcher lenient(DispatcherOptions{path_, false});
  EXPECT_FALSE(lenient.strict());
  Choice c = lenient.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::exact);
  EXPECT_TRUE(c.unverified);
  EXPECT_EQ(c.stale, std::string("histtune unrecorded -> ") + version());

  Dispatcher strict(DispatcherOptions{path_, true});
  Choice s = strict.explain(device("GPU-h100"), u8(1 << 20));
  EXPECT_EQ(s.level, LookupLevel::nearest_shape);  // the current 2^28 row
  EXPECT_FALSE(s.unverified);
  EXPECT_NE(s.detail.find("skipped unverified tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps4"),
            std::string::npos) << s.detail;
  EXPECT_NE(s.detail.find("(strict): histtune unrecorded"), std::string::npos) << s.detail;

  ::setenv("HISTTUNE_STRICT", "1", 1);
  Dispatcher from_env(path_);
  ::unsetenv("HISTTUNE_STRICT");
  EXPECT_TRUE(from_env.strict());
  EXPECT_EQ(from_env.explain(device("GPU-h100"), u8(1 << 20)).level, LookupLevel::nearest_shape);
}

TEST_F(DispatcherLookup, StaleRowsOfAnotherDeviceAreJudgedTheSameWay) {
  {
    db::Database db(path_);  // the only same-arch candidate for 2^24 comes from an old build
    db.set_winner(device("GPU-other-h100").row(), u8(1 << 24).key(),
                  "tpb128.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps16", 0.02, current_hash(), "0.0.9");
  }
  Dispatcher disp(path_);
  Choice c = disp.explain(new_model("GPU-new-h100"), u8(1 << 24));
  EXPECT_EQ(c.level, LookupLevel::same_arch);
  EXPECT_TRUE(c.unverified);
  // Strict: the old row is skipped and the next same-arch candidate (GPU-h100's) answers.
  Dispatcher strict(DispatcherOptions{path_, true});
  Choice s = strict.explain(new_model("GPU-new-h100"), u8(1 << 24));
  EXPECT_EQ(s.level, LookupLevel::same_arch);
  EXPECT_FALSE(s.unverified);
  EXPECT_EQ(s.detail.rfind("tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4 tuned on Fixture GPU (GPU-h100)", 0), 0u)
      << s.detail;
  EXPECT_NE(s.detail.find("skipped unverified tpb128.vpt2.vec0.pc1.lay0.agg0.u0.pad0.bps16 tuned on "
                          "Fixture GPU (GPU-other-h100)"),
            std::string::npos) << s.detail;
}

// judge_row is the lookup's rule for one row, as tools count rows by it.
TEST(Dispatcher, JudgeRowSaysUsedUnverifiedOrStaleAndWhy) {
  db::WinnerRow w;
  w.template_hash = current_hash();
  w.histtune_version = version();
  w.device.nvrtc_version = nvrtc_version();
  w.device.driver_version = 12080;
  const Toolchain now = current_toolchain(device("GPU-x"), Family::hist1d);  // driver 0
  EXPECT_EQ(judge_row(w, now).use, RowUse::used);
  EXPECT_EQ(judge_row(w, now).why, "");
  Toolchain with_driver = now;
  with_driver.driver_version = 13000;
  EXPECT_EQ(judge_row(w, with_driver).use, RowUse::unverified);
  EXPECT_EQ(judge_row(w, with_driver).why, "driver 12.8 -> 13.0");
  w.template_hash = "0123456789abcdef";
  const RowStanding stale = judge_row(w, with_driver);
  EXPECT_EQ(stale.use, RowUse::stale);
  EXPECT_EQ(stale.why, "the kernel source changed since (template 0123456789abcdef, now " +
                           current_hash() + ")");
}

// A read-only dispatcher (histtune explain) answers as the other does and leaves the file as it
// was: no -wal or -shm beside it, no compiled kernels stored.
TEST_F(DispatcherLookup, ReadOnlyDispatcherAnswersAlikeAndWritesNothing) {
  std::ifstream before_file(path_, std::ios::binary);
  const std::string before((std::istreambuf_iterator<char>(before_file)), {});
  DispatcherOptions o;
  o.db_path = path_;
  o.read_only = true;
  {
    const Dispatcher disp(o);
    EXPECT_TRUE(disp.has_database());
    EXPECT_EQ(disp.lookup(device("GPU-h100"), u8(1 << 20)).summary(),
              Dispatcher(path_).lookup(device("GPU-h100"), u8(1 << 20)).summary());
  }
  std::ifstream after_file(path_, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(after_file)), {});
  EXPECT_EQ(before, after);
  EXPECT_FALSE(std::filesystem::exists(path_ + "-wal"));
  EXPECT_FALSE(std::filesystem::exists(path_ + "-shm"));
}

// explain --arch: the limits of an architecture, no UUID.
TEST(Dispatcher, DescribedArchitecturesCarryTheirLimits) {
  const std::optional<DeviceInfo> h100 = describe_arch(9, 0);
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->smem_per_block_optin, 227u * 1024);
  EXPECT_EQ(h100->sm_count, 132);
  EXPECT_EQ(h100->uuid, "");
  EXPECT_EQ(h100->arch(), 90);
  EXPECT_EQ(describe_arch(8, 6)->max_threads_per_sm, 1536);
  EXPECT_FALSE(describe_arch(4, 2));
  // The same table's shared memory alone, as the partitioned path asks it per call.
  EXPECT_EQ(arch_smem_per_block_optin(90), h100->smem_per_block_optin);
  EXPECT_EQ(arch_smem_per_block_optin(86), describe_arch(8, 6)->smem_per_block_optin);
  EXPECT_EQ(arch_smem_per_block_optin(42), 0u);
}

TEST(Dispatcher, NoDatabaseFileMeansDefaultsAndNoFileCreated) {
  const auto path = std::filesystem::temp_directory_path() / "histtune_absent" / "none.db";
  std::filesystem::remove_all(path.parent_path());
  Dispatcher disp(path.string());
  EXPECT_FALSE(disp.has_database());
  Choice c = disp.explain(device("GPU-x"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_NE(c.detail.find("no tuning database"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
}

// ---- where the database is: explicit path, then $HISTTUNE_DB, then the default path ----

// Sets (or unsets, with nullptr) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1); else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1); else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class DatabaseLocation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("histtune_location_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A database at `path` whose only winner, for u8 2^20 on GPU-loc, has `tpb` threads: which
  // file answered is read back from the configuration.
  static void make_db(const std::filesystem::path& path, int tpb) {
    std::filesystem::create_directories(path.parent_path());
    db::Database db(path.string());
    db.set_winner(device("GPU-loc").row(), u8(1 << 20).key(),
                  "tpb" + std::to_string(tpb) + ".vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps1", 0.01,
                  current_hash(), version());
  }
  static int answered_by(const Dispatcher& disp) {
    const Choice c = disp.explain(device("GPU-loc"), u8(1 << 20));
    return c.level == LookupLevel::exact ? c.config.block_threads : 0;
  }
  std::filesystem::path dir_;
};

TEST_F(DatabaseLocation, ExplicitPathBeatsTheEnvironment) {
  make_db(dir_ / "explicit.db", 128);
  make_db(dir_ / "env.db", 256);
  ScopedEnv env("HISTTUNE_DB", (dir_ / "env.db").c_str());
  Dispatcher disp((dir_ / "explicit.db").string());
  EXPECT_EQ(disp.db_path(), (dir_ / "explicit.db").string());
  EXPECT_EQ(answered_by(disp), 128);
}

TEST_F(DatabaseLocation, EnvironmentBeatsTheDefaultPath) {
  make_db(dir_ / "env.db", 256);
  make_db(dir_ / "xdg" / "histtune" / "histtune.db", 512);
  ScopedEnv env("HISTTUNE_DB", (dir_ / "env.db").c_str());
  ScopedEnv xdg("XDG_DATA_HOME", (dir_ / "xdg").c_str());
  Dispatcher disp;
  EXPECT_EQ(disp.db_path(), (dir_ / "env.db").string());
  EXPECT_EQ(answered_by(disp), 256);
}

TEST_F(DatabaseLocation, DefaultPathIsUnderXdgDataHomeThenHome) {
  make_db(dir_ / "xdg" / "histtune" / "histtune.db", 512);
  make_db(dir_ / "home" / ".local" / "share" / "histtune" / "histtune.db", 1024);
  ScopedEnv env("HISTTUNE_DB", "");  // empty counts as unset
  ScopedEnv home("HOME", (dir_ / "home").c_str());
  {
    ScopedEnv xdg("XDG_DATA_HOME", (dir_ / "xdg").c_str());
    Dispatcher disp;
    EXPECT_EQ(disp.db_path(), (dir_ / "xdg" / "histtune" / "histtune.db").string());
    EXPECT_EQ(answered_by(disp), 512);
  }
  ScopedEnv no_xdg("XDG_DATA_HOME", nullptr);
  Dispatcher disp;
  EXPECT_EQ(disp.db_path(), (dir_ / "home" / ".local" / "share" / "histtune" / "histtune.db").string());
  EXPECT_EQ(answered_by(disp), 1024);
}

TEST_F(DatabaseLocation, NoDatabaseAnywhereMeansBuiltInDefaults) {
  ScopedEnv env("HISTTUNE_DB", nullptr);
  ScopedEnv xdg("XDG_DATA_HOME", nullptr);
  ScopedEnv home("HOME", dir_.c_str());
  Dispatcher disp;
  EXPECT_FALSE(disp.has_database());
  const Choice c = disp.explain(device("GPU-loc"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_EQ(c.config, hist1d::default_for(u8(1 << 20), device("GPU-loc")));
  EXPECT_NE(c.detail.find("no tuning database at " + disp.db_path()), std::string::npos) << c.detail;
  EXPECT_TRUE(std::filesystem::is_empty(dir_));  // the library creates nothing
}

TEST_F(DatabaseLocation, UnusableDatabaseIsIgnoredWithTheReason) {
  const auto path = dir_ / "garbage.db";
  { std::ofstream(path) << "this is not an SQLite database, it is a text file\n"; }
  const auto before = std::filesystem::file_size(path);
  Dispatcher disp(path.string());
  EXPECT_FALSE(disp.has_database());
  const Choice c = disp.explain(device("GPU-loc"), u8(1 << 20));
  EXPECT_EQ(c.level, LookupLevel::builtin_default);
  EXPECT_NE(c.detail.find("tuning database unusable, ignored: "), std::string::npos) << c.detail;
  EXPECT_EQ(std::filesystem::file_size(path), before);
}

// ---- thread safety ----

TEST_F(DispatcherLookup, ConcurrentExplainGivesTheSingleThreadedAnswers) {
  // Answers at every level, skipped rows included, computed once on one thread...
  {
    db::Database db(path_);
    db.set_winner(device("GPU-h100").row(), u8(1 << 16).key(), "garbage-label", 0.001,
                  current_hash(), version());
    db.set_winner(device("GPU-h100").row(), u8(1 << 18).key(),
                  "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8", 0.001, current_hash(), "0.0.1");
  }
  Dispatcher disp(path_);
  std::vector<std::pair<DeviceInfo, Problem>> queries;
  for (const DeviceInfo& d : {device("GPU-h100"), new_model("GPU-new-h100"), device("GPU-twin")})
    for (std::uint64_t n : {1ull << 12, 1ull << 16, 1ull << 18, 1ull << 20, 1ull << 24, 1ull << 28})
      for (std::uint32_t bins : {64u, 256u, 4096u}) queries.emplace_back(d, u8(n, bins));
  queries.emplace_back(device("GPU-a100", 8, 0), u8(1 << 20));
  std::vector<Choice> expected;
  for (const auto& [d, p] : queries) expected.push_back(disp.explain(d, p));
  std::set<LookupLevel> levels;
  for (const Choice& c : expected) levels.insert(c.level);
  EXPECT_EQ(levels.size(), 5u) << "the queries should reach every level";

  // ... then asked again from 8 threads at once, each in its own order.
  constexpr int kThreads = 8;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) {
        for (std::size_t k = 0; k < queries.size(); ++k) {
          const std::size_t i = (k * 7 + static_cast<std::size_t>(t + round)) % queries.size();
          const Choice c = disp.explain(queries[i].first, queries[i].second);
          if (c.config != expected[i].config || c.level != expected[i].level ||
              c.detail != expected[i].detail || c.unverified != expected[i].unverified)
            ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Dispatcher, InvalidArgumentsAreRejectedBeforeAnyDeviceWork) {
  Dispatcher disp(std::string("/nonexistent/histtune.db"));
  Problem p = u8(100);
  std::uint32_t* counts = reinterpret_cast<std::uint32_t*>(0x1000);
  Status s = disp.run(p, nullptr, counts, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("d_samples is null"), std::string::npos) << s.message();
  p.num_bins = 0;
  s = disp.run(p, counts, counts, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  p.num_bins = 16;
  p.n = kMaxSamples + 1;
  s = disp.run(p, counts, counts, nullptr);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("2^32"), std::string::npos) << s.message();
}

}  // namespace
