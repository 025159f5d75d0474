// The CLI's problem specs, --distributions lists and joined lists, without running the binary.
#include <gtest/gtest.h>

#include "common.hpp"
#include "histtune/db/database.hpp"
#include "histtune/status.hpp"

using namespace histtune;

TEST(ProblemSpec, RangeTakesTheLevelsSpanOrADefault) {
  const Problem p = cli::parse_problem("f32:range:1024:2^24:0:100");
  EXPECT_EQ(p.binning, Binning::range);
  EXPECT_EQ(p.num_bins, 1024u);
  EXPECT_EQ(p.n, 1ull << 24);
  EXPECT_EQ(p.lower, 0);
  EXPECT_EQ(p.upper, 100);
  const Problem d = cli::parse_problem("u16:range:1000:5000");
  EXPECT_EQ(d.lower, 0);
  EXPECT_EQ(d.upper, 4000);
  db::ProblemRow key = d.key();
  EXPECT_EQ(cli::problem_spec(key), "u16:range:1000:5000");
  const Problem back = cli::problem_of(key);
  EXPECT_EQ(back.binning, Binning::range);
  EXPECT_EQ(back.upper, 4000);
}

TEST(ProblemSpec, RangeSpansTheTypeCannotHoldAreUsageErrors) {
  try {
    cli::parse_problem("u8:range:300:100");
    FAIL() << "u8 has at most 255 range bins";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at most 255 bins"), std::string::npos) << e.what();
  }
  try {
    cli::parse_problem("u8:range:100:100:0:50");
    FAIL() << "50 values cannot hold 100 bins";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("num_bins"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cli::parse_problem("u8:ranged:100:100"), Error);
}

// tune and stability read --distributions alike.
TEST(Distributions, NamesInTheirOrderRepeatsDroppedNoneIsTheTunersFour) {
  using tuner::Distribution;
  EXPECT_EQ(cli::parse_distributions({"constant", "uniform", "constant"}),
            (std::vector<Distribution>{Distribution::constant, Distribution::uniform}));
  const std::vector<Distribution> four = {Distribution::uniform, Distribution::skewed,
                                          Distribution::constant, Distribution::runs};
  EXPECT_EQ(cli::parse_distributions({}), four);
  EXPECT_EQ(cli::distribution_list(four), "uniform,skewed,constant,runs");
  EXPECT_EQ(cli::distribution_list(four, ", "), "uniform, skewed, constant, runs");
  for (const char* bad : {"mixed", "gaussian", ""}) {
    try {
      cli::parse_distributions({"uniform", bad});
      FAIL() << "'" << bad << "' is not a distribution a winner is chosen on";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(std::string("--distributions: '") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Join, CommaSeparatedEmptyForNoneAndAnEmptyItemKeepsItsSeparator) {
  EXPECT_EQ(cli::join(std::vector<std::string>{}), "");
  EXPECT_EQ(cli::join(std::vector<std::string>{"a"}), "a");
  EXPECT_EQ(cli::join(std::vector<std::string>{"a", "b", "c"}), "a, b, c");
  // The hand-written joins it replaced ("s.empty() ? ..." before each item) wrote "a" here.
  EXPECT_EQ(cli::join(std::vector<std::string>{"", "a"}), ", a");
  EXPECT_EQ(cli::join(std::vector<int>{0, 1}, [](int i) { return "GPU " + std::to_string(i); }),
            "GPU 0, GPU 1");
}
