// Tests of the store of compiled kernels.
#include "histtune/db/database.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

using histtune::db::Database;
using histtune::db::DbError;

TEST(DatabaseCubin, PutGetReplaceAndMissing) {
  Database db(":memory:");
  EXPECT_FALSE(db.get_cubin("nope").has_value());
  std::vector<char> image(100'000);
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<char>(i * 7);
  db.put_cubin("k1", 90, "12.8", "h", "tpb256", image);
  EXPECT_EQ(db.get_cubin("k1"), image);
  db.put_cubin("k1", 90, "12.8", "h", "tpb256", {'x'});
  EXPECT_EQ(db.get_cubin("k1"), std::vector<char>{'x'});
  db.put_cubin("empty", 90, "12.8", "h", "tpb256", {});
  EXPECT_EQ(db.get_cubin("empty"), std::vector<char>{});
  EXPECT_THROW(db.put_cubin("", 90, "12.8", "h", "tpb256", {'x'}), DbError);
}
