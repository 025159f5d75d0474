// Tests of pending problems (schema v5): calls added up per (device, problem), most-called first,
// removed when a winner is stored; the side file's lines, their sums and a partial last line; and
// moving a side file into the table.
#include "db/db_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

using histtune::db::Database;
using histtune::db::PendingRow;
using histtune::db::ProblemRow;
using namespace histtune::db::test;

namespace {

PendingRow pending_row(const std::string& uuid, const ProblemRow& p, std::uint64_t calls,
                       const std::string& level = "nearest_shape") {
  PendingRow r;
  r.device_uuid = uuid;
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.problem = p;
  r.level = level;
  r.calls = calls;
  return r;
}

}  // namespace

TEST(DatabasePending, CallsAddUpPerDeviceAndProblemMostCalledFirst) {
  Database db(":memory:");
  const ProblemRow a = problem(256, 1 << 22), b = problem(64, 1 << 12), rgba = problem(256, 1 << 20, 4, 3);
  PendingRow even = pending_row("GPU-a", b, 1, "default");
  even.problem.binning = "even";
  even.lower = -1.5;
  even.upper = 1e6;
  db.add_pending({pending_row("GPU-a", a, 1), even, pending_row("GPU-b", rgba, 2, "same_arch")});
  PendingRow later = even;
  later.lower = 0;  // the first call's bounds stay
  later.upper = 1;
  later.calls = 9;
  later.level = "nearest_shape";
  db.add_pending({pending_row("GPU-a", a, 4), later});

  const auto all = db.pending();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].problem, even.problem);
  EXPECT_EQ(all[0].calls, 10u);
  EXPECT_EQ(all[0].level, "nearest_shape");  // the latest
  EXPECT_DOUBLE_EQ(*all[0].lower, -1.5);
  EXPECT_DOUBLE_EQ(*all[0].upper, 1e6);
  EXPECT_EQ(all[1].problem, a);
  EXPECT_EQ(all[1].calls, 5u);
  EXPECT_FALSE(all[1].lower || all[1].upper);
  EXPECT_EQ(all[2].device_uuid, "GPU-b");
  EXPECT_EQ(all[2].problem, rgba);
  EXPECT_FALSE(all[2].first_seen.empty());
  EXPECT_LE(all[2].first_seen, all[2].last_seen);
  ASSERT_EQ(db.pending(std::string("GPU-b")).size(), 1u);
  EXPECT_TRUE(db.pending(std::string("GPU-none")).empty());
}

TEST(DatabasePending, AStoredWinnerOrClearRemovesTheRowOfThatDeviceOnly) {
  Database db(":memory:");
  const ProblemRow a = problem(256, 1 << 22), b = problem(64, 1 << 12);
  db.add_pending({pending_row("GPU-a", a, 3), pending_row("GPU-b", a, 2), pending_row("GPU-a", b, 1)});
  db.set_winner(make_device("GPU-a"), a, "tpb256", 0.1, "h");
  auto left = db.pending();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0].device_uuid, "GPU-b");
  db.set_winners(make_device("GPU-b"), a, chosen("tpb128", 0.2, "any"), {chosen("x", 0.1, "constant")});
  ASSERT_EQ(db.pending().size(), 1u);
  EXPECT_FALSE(db.clear_pending("GPU-b", b));
  EXPECT_TRUE(db.clear_pending("GPU-a", b));
  EXPECT_TRUE(db.pending().empty());
}

TEST(DatabasePending, RefusesABadRowWholeInOneTransaction) {
  Database db(":memory:");
  PendingRow bad = pending_row("", problem(256, 1024), 1);  // no device
  EXPECT_THROW(db.add_pending({pending_row("GPU-a", problem(64, 64), 1), bad}),
               histtune::db::DbError);
  EXPECT_TRUE(db.pending().empty());
}

TEST_F(TempDirTest, PendingSideFileSumsLinesAndSkipsAPartialOne) {
  const std::string side = histtune::db::pending_file_path((dir_ / "h.db").string());
  EXPECT_EQ(side, (dir_ / "h.db.pending").string());
  EXPECT_TRUE(histtune::db::read_pending_file(side).empty());  // no file yet
  const ProblemRow a = problem(256, 1 << 22), rows = [] {
    ProblemRow r{"batched", "u8", "direct", 256, 65536};
    r.channels = 4096;  // the row count
    return r;
  }();
  PendingRow named = pending_row("GPU-a", rows, 1);
  named.device_name = "odd\tname";
  PendingRow even = pending_row("GPU-a", a, 1, "default");
  even.lower = 0.1;
  even.upper = 0.30000000000000004;
  histtune::db::append_pending_file(side, {named, even});
  histtune::db::append_pending_file(side, {pending_row("GPU-a", a, 6)});
  { std::ofstream(side, std::ios::app) << "1\tGPU-a\tx\thist1d\tu8\tdirect\t256\t4194304\t1\t0\t\t\tdef"; }

  const auto got = histtune::db::read_pending_file(side);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].problem, a);
  EXPECT_EQ(got[0].calls, 7u);
  EXPECT_EQ(got[0].level, "nearest_shape");  // the latest line's
  EXPECT_DOUBLE_EQ(*got[0].lower, 0.1);
  EXPECT_EQ(*got[0].upper, 0.30000000000000004);  // written to read back bit-exact
  EXPECT_EQ(got[1].problem, rows);
  EXPECT_EQ(got[1].device_name, "odd name");
}

TEST_F(TempDirTest, TakingASideFileMovesItsRowsIntoTheTableAndRemovesIt) {
  const std::string path = (dir_ / "h.db").string();
  const std::string side = histtune::db::pending_file_path(path);
  const ProblemRow a = problem(256, 1 << 22);
  histtune::db::append_pending_file(side, {pending_row("GPU-a", a, 2), pending_row("GPU-a", a, 3)});
  Database db(path);
  db.add_pending({pending_row("GPU-a", a, 10)});
  EXPECT_EQ(db.take_pending_file(side), 1u);
  EXPECT_FALSE(fs::exists(side));
  ASSERT_EQ(db.pending().size(), 1u);
  EXPECT_EQ(db.pending()[0].calls, 15u);
  EXPECT_EQ(db.take_pending_file(side), 0u);  // nothing left
}

TEST_F(TempDirTest, AppendingWhereNoFileCanBeWrittenThrowsNamingTheFile) {
  const std::string side = (dir_ / "missing-folder" / "h.db.pending").string();
  try {
    histtune::db::append_pending_file(side, {pending_row("GPU-a", problem(256, 64), 1)});
    FAIL() << "expected DbError";
  } catch (const histtune::db::DbError& e) {
    EXPECT_NE(std::string(e.what()).find(side), std::string::npos) << e.what();
  }
}
