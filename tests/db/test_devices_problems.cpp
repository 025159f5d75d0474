// Tests of devices, problems and configurations: round trips of every field, the problem key's
// range, and upserts that keep ids.
#include "db/db_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::DeviceRow;
using histtune::db::ProblemRow;
using namespace histtune::db::test;

// --- round trips ---------------------------------------------------------------------------------

TEST(DatabaseRoundTrip, DeviceKeepsEveryField) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-1234", 8, 9);
  db.upsert_device(d);
  const auto got = db.device("GPU-1234");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->uuid, d.uuid);
  EXPECT_EQ(got->name, d.name);
  EXPECT_EQ(got->cc_major, 8);
  EXPECT_EQ(got->cc_minor, 9);
  EXPECT_EQ(got->sm_count, d.sm_count);
  EXPECT_EQ(got->memory_bytes, d.memory_bytes);
  EXPECT_EQ(got->l2_bytes, d.l2_bytes);
  EXPECT_EQ(got->driver_version, d.driver_version);
  EXPECT_EQ(got->runtime_version, d.runtime_version);
  EXPECT_FALSE(db.device("GPU-unknown").has_value());
}

TEST(DatabaseRoundTrip, LargeSampleCountsSurvive) {
  Database db(":memory:");
  for (std::uint64_t n : {std::uint64_t{0}, std::uint64_t{4294967295u}, std::uint64_t{1} << 40}) {
    const ProblemRow p = make_problem(4294967295u, n);
    db.set_winner(make_device("GPU-a"), p, "cfg", 1.0, "h");
    const auto w = db.winner("GPU-a", p);
    ASSERT_TRUE(w.has_value()) << n;
    EXPECT_EQ(w->problem.n, n);
    EXPECT_EQ(w->problem.num_bins, 4294967295u);
  }
}

TEST(DatabaseRoundTrip, SampleCountAboveInt64IsRefused) {
  Database db(":memory:");
  const ProblemRow p = make_problem(16, std::numeric_limits<std::uint64_t>::max());
  EXPECT_THROW(db.upsert_problem(p), DbError);
}

// --- upserts -------------------------------------------------------------------------------------

TEST(DatabaseUpsert, SameDeviceUuidKeepsIdAndUpdatesFields) {
  Database db(":memory:");
  DeviceRow d = make_device("GPU-a");
  const auto id1 = db.upsert_device(d);
  d.driver_version = 13010;
  d.name = "renamed";
  const auto id2 = db.upsert_device(d);
  EXPECT_EQ(id1, id2);
  EXPECT_NE(db.upsert_device(make_device("GPU-b")), id1);
  const auto got = db.device("GPU-a");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->driver_version, 13010);
  EXPECT_EQ(got->name, "renamed");
}

TEST(DatabaseUpsert, SameProblemKeepsIdAndAnyKeyFieldMakesANewOne) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000, "shared", "u8", "even");
  const auto id = db.upsert_problem(p);
  EXPECT_EQ(db.upsert_problem(p), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1001, "shared", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(257, 1000, "shared", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "global", "u8", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "shared", "u16", "even")), id);
  EXPECT_NE(db.upsert_problem(make_problem(256, 1000, "shared", "u8", "direct")), id);
  EXPECT_EQ(db.upsert_problem(p), id);
}

TEST(DatabaseUpsert, SameConfigFamilyAndLabelKeepsId) {
  Database db(":memory:");
  const auto id = db.upsert_config("shared", "tpb256", "{\"tpb\":256}");
  EXPECT_EQ(db.upsert_config("shared", "tpb256", "{\"tpb\":256}"), id);
  EXPECT_NE(db.upsert_config("global", "tpb256", "{\"tpb\":256}"), id);
  EXPECT_NE(db.upsert_config("shared", "tpb512", "{\"tpb\":512}"), id);
}

TEST(DatabaseUpsert, EmptyConfigLabelIsRefusedWithOperationInMessage) {
  Database db(":memory:");
  try {
    db.upsert_config("shared", "", "{}");
    FAIL() << "an empty label should be refused";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("upsert_config"), std::string::npos) << e.what();
  }
}
