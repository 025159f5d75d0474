// Tests of pruning results of another template or build: by device, by family, and the problems
// and configurations nothing refers to any more.
#include "db/db_test_support.hpp"

#include <gtest/gtest.h>

using histtune::db::Database;
using histtune::db::DeviceRow;
using histtune::db::ProblemRow;
using histtune::db::PruneOptions;
using namespace histtune::db::test;

TEST(DatabasePrune, DeletesStaleRowsAndKeepsFreshOnes) {
  Database db(":memory:");
  const ProblemRow fresh = make_problem(256, 1 << 20);
  const ProblemRow stale = make_problem(64, 4096);
  const DeviceRow a = make_device("GPU-a");
  const DeviceRow b = make_device("GPU-b");
  db.record_measurements(a, fresh, {make_measurement("new", 0.5, "h2", "0.2.0"),
                                    make_measurement("old", 0.6, "h1", "0.2.0")});
  db.set_winner(a, fresh, "new", 0.5, "h2", "0.2.0");
  db.record_measurements(a, stale, {make_measurement("old2", 0.1, "h1", "0.1.0")});
  db.set_winner(a, stale, "old2", 0.1, "h1", "0.1.0");
  db.record_measurements(b, stale, {make_measurement("oldb", 0.1, "h1", "0.1.0")});

  PruneOptions only_a;
  only_a.keep_template_hash = "h2";
  only_a.device_uuid = "GPU-a";
  // a: measurements "old", "old2", winner of stale; configuration "old" (still "old2" for b? no:
  // "old2" is only a's) -> configs "old", "old2" go. Problem `stale` stays: b still measures it.
  EXPECT_EQ(db.prune(only_a), 2u + 1u + 2u);
  EXPECT_EQ(db.measurements("GPU-a", fresh).size(), 1u);
  EXPECT_EQ(db.measurements("GPU-a", fresh)[0].config_label, "new");
  EXPECT_TRUE(db.winner("GPU-a", fresh).has_value());
  EXPECT_FALSE(db.winner("GPU-a", stale).has_value());
  EXPECT_EQ(db.measurements("GPU-b", stale).size(), 1u);

  PruneOptions by_version;
  by_version.keep_histtune_version = "0.2.0";
  // b's measurement, then problem `stale` and configuration "oldb".
  EXPECT_EQ(db.prune(by_version), 3u);
  EXPECT_TRUE(db.measurements("GPU-b", stale).empty());
  EXPECT_EQ(db.measurements("GPU-a", fresh).size(), 1u);
  EXPECT_EQ(db.prune(PruneOptions{}), 0u);
}

// prune --dry-run: the counts of the real prune, per table, and nothing deleted.
TEST(DatabasePrune, DryRunCountsPerTableAndDeletesNothing) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1 << 20);
  const DeviceRow a = make_device("GPU-a");
  db.record_measurements(a, p, {make_measurement("old", 0.6, "h1", "0.2.0"),
                                make_measurement("old2", 0.7, "h1", "0.2.0")});
  db.set_winners(a, p, chosen("old", 0.6, "any", "h1"), {chosen("old", 0.6, "constant", "h1")});
  PruneOptions keep;
  keep.keep_template_hash = "h2";
  keep.dry_run = true;
  const histtune::db::PruneSummary would = db.prune_summary(keep);
  EXPECT_EQ(would.measurements, 2u);
  EXPECT_EQ(would.winners, 1u);
  EXPECT_EQ(would.distribution_winners, 1u);
  EXPECT_EQ(would.problems, 1u);
  EXPECT_EQ(would.configurations, 2u);
  EXPECT_EQ(db.measurements("GPU-a", p).size(), 2u) << "nothing deleted";
  EXPECT_TRUE(db.winner("GPU-a", p));
  keep.dry_run = false;
  const histtune::db::PruneSummary did = db.prune_summary(keep);
  EXPECT_EQ(did.total(), would.total());
  EXPECT_EQ(did.total(), 7u);
  EXPECT_TRUE(db.measurements("GPU-a", p).empty());
}

TEST(DatabasePruneV3, StalePerDistributionWinnersGoWithTheirTemplate) {
  Database db(":memory:");
  const ProblemRow p = problem(256, 1 << 24);
  db.set_winners(make_device("GPU-a"), p, chosen("new", 1.0, "any", "h3"),
                 {chosen("old", 1.0, "constant", "h2"), chosen("new", 1.0, "runs", "h3")});
  PruneOptions keep;
  keep.keep_template_hash = "h3";
  EXPECT_EQ(db.prune(keep), 2u) << "the stale row and the configuration only it referred to";
  const auto per = db.distribution_winners("GPU-a", p);
  ASSERT_EQ(per.size(), 1u);
  EXPECT_EQ(per[0].distribution, "runs");
}

TEST(DatabasePruneV3, FamilyLimitsPruningToThatFamilysProblems) {
  // Each family's kernel has its own template hash: pruning one family by its hash must leave
  // the other family's rows alone.
  Database db(":memory:");
  const ProblemRow flat = problem(256, 1 << 24);
  ProblemRow pixels = problem(256, 1 << 20, 4, 3);
  pixels.family = "multichannel";
  db.set_winner(make_device("GPU-a"), flat, "tpb256", 1.0, "h1d");
  db.set_winner(make_device("GPU-a"), pixels, "mc.tpb256", 1.0, "hmc");
  db.record_measurements(make_device("GPU-a"), pixels,
                         {measurement("mc.tpb256", 1.0, "uniform", "hmc")});
  PruneOptions hist1d;
  hist1d.keep_template_hash = "h1d";
  hist1d.family = "hist1d";
  EXPECT_EQ(db.prune(hist1d), 0u);
  EXPECT_TRUE(db.winner("GPU-a", pixels));
  PruneOptions mc;
  mc.keep_template_hash = "hmc";
  mc.family = "multichannel";
  EXPECT_EQ(db.prune(mc), 0u);
  EXPECT_TRUE(db.winner("GPU-a", flat));
  mc.keep_template_hash = "hmc-new";  // the multi-channel kernel changed
  EXPECT_GT(db.prune(mc), 0u);
  EXPECT_FALSE(db.winner("GPU-a", pixels));
  EXPECT_TRUE(db.measurements("GPU-a", pixels).empty());
  EXPECT_TRUE(db.winner("GPU-a", flat)) << "the 1D winner stays";
}
