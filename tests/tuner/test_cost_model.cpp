// The search's cost model (tuner/cost_model.hpp) against landscapes whose costs are known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "histtune/tuner/cost_model.hpp"

using namespace histtune::tuner;

namespace {

// exp(sum of one term per value): the model's own form.
double additive(const Point& p) {
  static const double terms[3][5] = {
      {0.0, 0.4, -0.2, 1.1, 0.3}, {0.5, -0.3, 0.0, 0, 0}, {0.2, 0.0, 0.9, -0.4, 0.6}};
  return std::exp(0.1 + terms[0][p[0]] + terms[1][p[1]] + terms[2][p[2]]);
}

}  // namespace

TEST(CostModel, PredictsPointsItNeverSawOnAnAdditiveLandscape) {
  CostModel m({5, 3, 5});
  std::mt19937_64 rng(3);
  std::set<Point> taught;
  while (m.points() < 40) {
    const Point p = {int(rng() % 5), int(rng() % 3), int(rng() % 5)};
    if (taught.insert(p).second) m.add(p, additive(p));
  }
  int predicted = 0;
  for (int a = 0; a < 5; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 5; ++c) {
        const Point p = {a, b, c};
        if (taught.count(p)) continue;
        const std::optional<double> y = m.predict(p);
        ASSERT_TRUE(y.has_value()) << a << b << c;
        EXPECT_NEAR(*y / additive(p), 1.0, 0.01) << a << b << c;
        ++predicted;
      }
  EXPECT_GT(predicted, 20);
}

TEST(CostModel, SaysNothingBeforeEnoughPointsOrForAValueTimedOnce) {
  CostModel m({4, 4});
  for (int i = 0; i + 1 < int(CostModel::kMinPoints); ++i) m.add({i % 3, (i / 3) % 3}, 1.0 + i);
  EXPECT_FALSE(m.predict({0, 0}).has_value()) << "one point short of kMinPoints";
  m.add({0, 0}, 2.0);
  m.add({1, 1}, 0.0);        // not a cost: ignored
  m.add({1, 1}, INFINITY);   // ignored
  m.add({5, 1}, 1.0);        // outside the grid: ignored
  EXPECT_EQ(m.points(), CostModel::kMinPoints);
  EXPECT_TRUE(m.predict({0, 0}).has_value());
  EXPECT_FALSE(m.predict({3, 0}).has_value()) << "value 3 of the first parameter never timed";
  m.add({3, 0}, 4.0);
  EXPECT_FALSE(m.predict({3, 0}).has_value()) << "timed once";
  m.add({3, 1}, 4.0);
  EXPECT_TRUE(m.predict({3, 0}).has_value());
  EXPECT_FALSE(m.predict({0}).has_value()) << "a point of another grid";
}
