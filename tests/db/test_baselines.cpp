// Tests of the baselines `compare` stores beside the winner.
#include "db/db_test_support.hpp"
#include "histtune/db/database.hpp"

#include <gtest/gtest.h>

namespace {

histtune::db::DeviceRow baseline_device() {
  histtune::db::DeviceRow d;
  d.uuid = "GPU-baseline";
  d.name = "Baseline GPU";
  d.cc_major = 9;
  return d;
}

}  // namespace

TEST(DatabaseBaseline, SetReplaceReadAndListDevices) {
  histtune::db::Database db(":memory:");
  histtune::db::ProblemRow p{"hist1d", "u8", "direct", 256, 1u << 20};
  EXPECT_FALSE(db.baseline("GPU-baseline", p));
  histtune::db::BaselineRow b;
  b.cub_ms = 0.13;
  b.floor_ms = 0.087;
  db.set_baseline(baseline_device(), p, b);
  auto got = db.baseline("GPU-baseline", p);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(*got->cub_ms, 0.13);
  EXPECT_DOUBLE_EQ(*got->floor_ms, 0.087);
  EXPECT_FALSE(got->default_ms) << "not measured stays NULL";
  EXPECT_FALSE(got->measured_at.empty());
  b.cub_ms.reset();
  b.default_ms = 0.4;
  db.set_baseline(baseline_device(), p, b);
  got = db.baseline("GPU-baseline", p);
  EXPECT_FALSE(got->cub_ms);
  EXPECT_DOUBLE_EQ(*got->default_ms, 0.4);
  auto devices = db.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].uuid, "GPU-baseline");
  // A problem that only a baseline references survives a prune.
  histtune::db::PruneOptions keep;
  keep.keep_template_hash = "h";
  EXPECT_NO_THROW(db.prune(keep));
  EXPECT_TRUE(db.baseline("GPU-baseline", p));
}

TEST(DatabaseBaseline, NegativeTimesAreRefused) {
  histtune::db::Database db(":memory:");
  histtune::db::BaselineRow b;
  b.cub_ms = -1;
  EXPECT_THROW(db.set_baseline(baseline_device(), {"hist1d", "u8", "direct", 256, 16}, b),
               histtune::db::DbError);
}

TEST(DatabaseBaseline, SpreadsAreStoredAndReadBack) {
  histtune::db::Database db(":memory:");
  histtune::db::ProblemRow p{"hist1d", "u8", "direct", 256, 1u << 20};
  histtune::db::BaselineRow b = histtune::db::test::baseline_with_spreads();
  db.set_baseline(baseline_device(), p, b);
  auto got = db.baseline("GPU-baseline", p);
  ASSERT_TRUE(got);
  EXPECT_DOUBLE_EQ(*got->default_min_ms, 0.38);
  EXPECT_DOUBLE_EQ(*got->default_max_ms, 0.47);
  EXPECT_DOUBLE_EQ(*got->cub_min_ms, 0.2);
  EXPECT_DOUBLE_EQ(*got->cub_max_ms, 0.31);
  EXPECT_DOUBLE_EQ(*db.baselines("GPU-baseline").at(0).cub_max_ms, 0.31);
  // A replacing row without spreads clears them: they belong to the medians beside them.
  b.cub_min_ms.reset();
  b.cub_max_ms.reset();
  db.set_baseline(baseline_device(), p, b);
  got = db.baseline("GPU-baseline", p);
  EXPECT_FALSE(got->cub_min_ms || got->cub_max_ms);
  EXPECT_DOUBLE_EQ(*got->default_max_ms, 0.47);
}
