// Recording what programs call, with no GPU: a device description stands in for the device of
// each first call (Dispatcher::first_call_choice is what run() does once per shape). A program
// calls shapes, the database then lists the ones below `exact` as pending with their calls; a
// database that refuses writes leaves the calls working and records to the side file, or
// nowhere; online tuning goes through the hook the tuner registers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fake_device.hpp"
#include "histtune/call_recorder.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

using namespace histtune;

namespace {

const std::string& current_hash() { return templates::get(hist1d::kTemplate).hash; }

DeviceInfo gpu(const std::string& uuid = "GPU-h100") { return test::fixture_gpu(uuid); }

Problem u8(std::uint64_t n, std::uint32_t bins = 256) {
  return flat_problem(SampleType::u8, Binning::direct, bins, n);
}

class Recording : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("histtune_record_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "h.db").string();
    side_ = db::pending_file_path(path_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A database with one winner on GPU-h100: u8 256 bins at 2^20.
  void tuned_at_2_20() {
    db::Database db(path_);
    db.set_winner(gpu().row(), u8(1 << 20).key(), "tpb512.vpt4.vec0.pc2.lay0.agg0.u0.pad1.bps4",
                  0.01, current_hash(), version());
  }
  DispatcherOptions recording() const {
    DispatcherOptions o;
    o.db_path = path_;
    o.record = true;
    return o;
  }
  std::filesystem::path dir_;
  std::string path_, side_;
};

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) old_ = v;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty()) ::unsetenv(name_); else ::setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

}  // namespace

TEST_F(Recording, AProgramsUntunedShapesArePendingWithTheirCallsMostCalledFirst) {
  tuned_at_2_20();
  Problem u16 = u8(1 << 12);
  u16.sample_type = SampleType::u16;
  {
    Dispatcher disp(recording());
    EXPECT_EQ(disp.records_to(), "database");
    // Three processes' first calls of 2^24 (nearest shape), one of u16 (default), one exact.
    for (int i = 0; i < 3; ++i)
      EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::nearest_shape);
    EXPECT_EQ(disp.first_call_choice(gpu(), u16).level, LookupLevel::builtin_default);
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 20)).level, LookupLevel::exact);
    // Recorded at the first call, before the dispatcher goes: a crash loses at most counts.
    EXPECT_EQ(db::Database(path_).pending().size(), 2u);
  }
  const auto rows = db::Database(path_).pending();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].problem, u8(1 << 24).key());
  EXPECT_EQ(rows[0].calls, 3u);
  EXPECT_EQ(rows[0].level, "nearest_shape");
  EXPECT_EQ(rows[0].device_uuid, "GPU-h100");
  EXPECT_EQ(rows[1].problem, u16.key());
  EXPECT_EQ(rows[1].level, "default");
  EXPECT_FALSE(std::filesystem::exists(side_));
}

// A winner of another board of this model is as good as one tuned here (`same_model`): the call
// is not pending, so `histtune tune --pending` does not tune it again for every board.
TEST_F(Recording, AProblemTunedOnAnotherBoardOfTheModelIsNotPending) {
  tuned_at_2_20();
  {
    Dispatcher disp(recording());
    EXPECT_EQ(disp.first_call_choice(gpu("GPU-twin"), u8(1 << 20)).level,
              LookupLevel::same_model);
    EXPECT_EQ(disp.first_call_choice(gpu("GPU-twin"), u8(1 << 24)).level,
              LookupLevel::same_arch);
  }
  const auto rows = db::Database(path_).pending();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].problem, u8(1 << 24).key());
  EXPECT_EQ(rows[0].device_uuid, "GPU-twin");
}

TEST_F(Recording, LaterCallsAddToTheCounterAndAreWrittenAtTheNextFlush) {
  db::Database database(path_);
  Problem even = flat_problem(SampleType::f32, Binning::even, 64, 1 << 16, -1, 1);
  {
    CallRecorder rec(&database, side_);
    std::atomic<std::uint64_t>* calls = rec.first_call(gpu(), even, LookupLevel::same_arch);
    ASSERT_NE(calls, nullptr);
    EXPECT_EQ(database.pending().at(0).calls, 1u);
    calls->fetch_add(9, std::memory_order_relaxed);  // nine warm calls
    rec.flush();
    EXPECT_EQ(database.pending().at(0).calls, 10u);
    rec.flush();  // nothing new: nothing added
    EXPECT_EQ(database.pending().at(0).calls, 10u);
    calls->fetch_add(5, std::memory_order_relaxed);
    EXPECT_EQ(rec.first_call(gpu(), u8(0), LookupLevel::builtin_default), nullptr)
        << "a call without samples is not worth tuning";
  }  // the destructor flushes the five
  const auto rows = database.pending();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 15u);
  EXPECT_DOUBLE_EQ(*rows[0].lower, -1);
  EXPECT_DOUBLE_EQ(*rows[0].upper, 1);
  EXPECT_EQ(rows[0].level, "same_arch");
}

TEST_F(Recording, OffByOptionOrEnvironmentAndNeverForReadOnlyDispatchers) {
  tuned_at_2_20();
  DispatcherOptions off = recording();
  off.record = false;
  Dispatcher(off).first_call_choice(gpu(), u8(1 << 24));
  {
    ScopedEnv env("HISTTUNE_RECORD", "0");
    DispatcherOptions by_env = recording();
    by_env.record.reset();
    Dispatcher disp(by_env);
    EXPECT_EQ(disp.records_to(), "");
    disp.first_call_choice(gpu(), u8(1 << 24));
  }
  DispatcherOptions ro = recording();
  ro.read_only = true;
  Dispatcher(ro).first_call_choice(gpu(), u8(1 << 24));
  EXPECT_TRUE(db::Database(path_).pending().empty());
  EXPECT_FALSE(std::filesystem::exists(side_));
}

TEST_F(Recording, WithoutADatabaseTheSideFileTakesThemAndNoDatabaseIsCreated) {
  {
    Dispatcher disp(recording());
    EXPECT_FALSE(disp.has_database());
    EXPECT_EQ(disp.records_to(), side_);
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::builtin_default);
  }
  EXPECT_FALSE(std::filesystem::exists(path_));
  const auto rows = db::read_pending_file(side_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].problem, u8(1 << 24).key());
  // `histtune tune --pending` moves them into the database it opens.
  db::Database database(path_);
  EXPECT_EQ(database.take_pending_file(side_), 1u);
  EXPECT_EQ(database.pending().at(0).calls, 1u);
}

TEST_F(Recording, ADatabaseThatRefusesWritesSendsThemToTheSideFile) {
  tuned_at_2_20();
  db::Database read_only(path_, db::Database::OpenMode::kReadOnly);
  {
    CallRecorder rec(&read_only, side_);
    ASSERT_NE(rec.first_call(gpu(), u8(1 << 24), LookupLevel::nearest_shape), nullptr);
    EXPECT_EQ(rec.destination(), side_);
    rec.first_call(gpu(), u8(1 << 24), LookupLevel::nearest_shape);
  }
  EXPECT_TRUE(db::Database(path_).pending().empty());
  const auto rows = db::read_pending_file(side_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].calls, 2u);
}

TEST_F(Recording, AnUnusableDatabaseLeavesTheCallsWorkingAndRecordsBesideIt) {
  { std::ofstream(path_) << "not a database"; }
  Dispatcher disp(recording());
  EXPECT_FALSE(disp.has_database());
  EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::builtin_default);
  disp.flush_records();
  EXPECT_EQ(db::read_pending_file(side_).size(), 1u);
}

TEST_F(Recording, WhereNothingCanBeWrittenTheCallsStillWork) {
  // The database's "folder" is a file: neither the database nor the side file can exist.
  const std::string blocked = (dir_ / "file").string();
  { std::ofstream(blocked) << "x"; }
  DispatcherOptions o = recording();
  o.db_path = blocked + "/h.db";
  Dispatcher disp(o);
  EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::builtin_default);
  EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 26)).level, LookupLevel::builtin_default);
  EXPECT_EQ(disp.records_to(), "");
}

TEST_F(Recording, ALockedDatabaseSendsThemToTheSideFileAfterTheBusyTimeout) {
  tuned_at_2_20();
  SQLite::Database other(path_, SQLite::OPEN_READWRITE);
  SQLite::Transaction holds_the_write_lock(other, SQLite::TransactionBehavior::IMMEDIATE);
  Dispatcher disp(recording());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::nearest_shape);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  EXPECT_EQ(disp.records_to(), side_);
  EXPECT_EQ(db::read_pending_file(side_).size(), 1u);
}

// ---- online tuning, through the hook the tuner registers (here a stand-in) ----

TEST_F(Recording, OnlineTuningStoresAWinnerAndTheFirstCallResolvesExact) {
  int tuned = 0;
  set_online_tuner([&tuned](const DeviceInfo& d, const Problem& p, db::Database& database,
                            KernelCache&, std::size_t budget) {
    EXPECT_EQ(budget, 7u);
    ++tuned;
    const std::string label = hist1d::default_for(p, d).label();
    database.set_winner(d.row(), p.key(), label, 0.5, current_hash(), version());
    return "winner " + label;
  });
  DispatcherOptions o = recording();
  o.tune = true;
  o.tune_budget = 7;
  {
    Dispatcher disp(o);  // online tuning creates the missing database
    EXPECT_TRUE(disp.has_database());
    EXPECT_TRUE(disp.tunes_online());
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::exact);
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::exact);
  }
  set_online_tuner(nullptr);
  EXPECT_EQ(tuned, 1);
  EXPECT_TRUE(db::Database(path_).pending().empty()) << "tuned: nothing pending";
}

TEST_F(Recording, OnlineTuningThatFailsOrIsNotRegisteredRunsTheLookupsChoiceAndRecords) {
  tuned_at_2_20();
  DispatcherOptions o = recording();
  o.tune = true;
  {
    ASSERT_FALSE(has_online_tuner());
    Dispatcher disp(o);
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::nearest_shape);
  }
  set_online_tuner([](const DeviceInfo&, const Problem&, db::Database&, KernelCache&,
                      std::size_t) -> std::string { throw std::runtime_error("no GPU here"); });
  {
    Dispatcher disp(o);
    EXPECT_EQ(disp.first_call_choice(gpu(), u8(1 << 24)).level, LookupLevel::nearest_shape);
  }
  set_online_tuner(nullptr);
  EXPECT_EQ(db::Database(path_).pending().at(0).calls, 2u);
}
