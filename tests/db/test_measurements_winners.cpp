// Tests of measurements and winners: round trips, all-or-none batches, the robust winner and its
// lookups (like, same architecture), channels in the key, and per-distribution winners.
#include "db/db_test_support.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DbError;
using histtune::db::DeviceRow;
using histtune::db::MeasurementRow;
using histtune::db::ProblemRow;
using histtune::db::WinnerRow;
using namespace histtune::db::test;

namespace {

std::vector<std::string> labels_of(const std::vector<WinnerRow>& ws) {
  std::vector<std::string> out;
  for (const WinnerRow& w : ws) out.push_back(w.config_label);
  return out;
}

}  // namespace

// --- measurements --------------------------------------------------------------------------------

TEST(DatabaseRoundTrip, MeasurementsComeBackFastestFirstWithAllFields) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1'000'000);
  MeasurementRow slow = make_measurement("tpb128.ipt4", 0.9);
  slow.verified = false;
  slow.samples = 17;
  db.record_measurements(make_device("GPU-a"), p,
                         {slow, make_measurement("tpb256.ipt8", 0.3),
                          make_measurement("tpb512.ipt2", 0.6)});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].config_label, "tpb256.ipt8");
  EXPECT_EQ(ms[1].config_label, "tpb512.ipt2");
  EXPECT_EQ(ms[2].config_label, "tpb128.ipt4");
  EXPECT_EQ(ms[2].params_json, slow.params_json);
  EXPECT_DOUBLE_EQ(ms[2].median_ms, 0.9);
  EXPECT_DOUBLE_EQ(ms[2].min_ms, slow.min_ms);
  EXPECT_DOUBLE_EQ(ms[2].max_ms, slow.max_ms);
  EXPECT_EQ(ms[2].samples, 17);
  EXPECT_FALSE(ms[2].verified);
  EXPECT_TRUE(ms[0].verified);
  EXPECT_EQ(ms[2].template_hash, "abc123");
  // Another problem or device sees none of them.
  EXPECT_TRUE(db.measurements("GPU-a", make_problem(256, 1'000'001)).empty());
  EXPECT_TRUE(db.measurements("GPU-b", p).empty());
}

TEST(DatabaseRoundTrip, RecordingTwiceKeepsBothBatches) {
  Database db(":memory:");
  const ProblemRow p = make_problem(64, 4096);
  db.record_measurements(make_device("GPU-a"), p, {make_measurement("x", 1.0)});
  db.record_measurements(make_device("GPU-a"), p, {make_measurement("x", 0.8)});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_DOUBLE_EQ(ms[0].median_ms, 0.8);
}

// --- all or none ---------------------------------------------------------------------------------

TEST(DatabaseTransactions, BatchWithEmptyLabelStoresNothingNotEvenTheDevice) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000);
  const std::vector<MeasurementRow> rows = {make_measurement("good-1", 1.0),
                                            make_measurement("good-2", 2.0),
                                            make_measurement("", 3.0)};
  try {
    db.record_measurements(make_device("GPU-new"), p, rows);
    FAIL() << "a row with an empty label should fail the batch";
  } catch (const DbError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("record_measurements"), std::string::npos) << msg;
    EXPECT_NE(msg.find(":memory:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("CHECK constraint failed"), std::string::npos) << msg;  // SQLite's text
  }
  EXPECT_FALSE(db.device("GPU-new").has_value());
  EXPECT_TRUE(db.measurements("GPU-new", p).empty());
  // The configurations of the good rows were rolled back too: the next id is the first one.
  EXPECT_EQ(db.upsert_config("shared", "good-1", "{}"), 1);
}

TEST_F(TempDirTest, BatchWithNaNTimeLeavesEarlierDataAsItWas) {
  const fs::path path = dir_ / "h.db";
  const ProblemRow p = make_problem(256, 1000);
  {
    Database db(path.string());
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("first", 1.0)});
    MeasurementRow nan_row = make_measurement("bad", 2.0);
    nan_row.median_ms = std::nan("");  // SQLite stores NaN as NULL, refused by NOT NULL
    EXPECT_THROW(db.record_measurements(make_device("GPU-a"), p,
                                        {make_measurement("second", 0.5), nan_row}),
                 DbError);
    // The same connection stays usable after the rollback.
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("third", 3.0)});
  }
  Database db(path.string());
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].config_label, "first");
  EXPECT_EQ(ms[1].config_label, "third");
}

// --- winners -------------------------------------------------------------------------------------

TEST(DatabaseRoundTrip, WinnerCarriesFullDeviceAndProblem) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a", 9, 0);
  const ProblemRow p = make_problem(1024, 123456789, "global", "f32", "even");
  db.set_winner(d, p, "tpb256.ipt4", 0.25, "hash-1");
  const auto w = db.winner("GPU-a", p);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->device.uuid, "GPU-a");
  EXPECT_EQ(w->device.name, d.name);
  EXPECT_EQ(w->device.sm_count, d.sm_count);
  EXPECT_EQ(w->device.memory_bytes, d.memory_bytes);
  EXPECT_EQ(w->problem, p);
  EXPECT_EQ(w->config_label, "tpb256.ipt4");
  EXPECT_DOUBLE_EQ(w->median_ms, 0.25);
  EXPECT_EQ(w->template_hash, "hash-1");
  EXPECT_FALSE(db.winner("GPU-a", make_problem(1024, 123456788, "global", "f32", "even")));
  EXPECT_FALSE(db.winner("GPU-b", p));
}

TEST(DatabaseWinners, SetWinnerReplacesThePreviousOne) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  const ProblemRow p = make_problem(256, 1000);
  db.set_winner(d, p, "old", 1.0, "h1");
  db.set_winner(d, p, "new", 0.5, "h2");
  const auto ws = db.winners("GPU-a");
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].config_label, "new");
  EXPECT_DOUBLE_EQ(ws[0].median_ms, 0.5);
  EXPECT_EQ(ws[0].template_hash, "h2");
}

TEST_F(TempDirTest, SetWinnerKeepsParamsOfAKnownConfigAndWritesEmptyObjectForANewOne) {
  const fs::path path = dir_ / "h.db";
  const ProblemRow p = make_problem(256, 1000);
  {
    Database db(path.string());
    db.record_measurements(make_device("GPU-a"), p, {make_measurement("known", 1.0)});
    db.set_winner(make_device("GPU-a"), p, "known", 1.0, "h");
    db.set_winner(make_device("GPU-a"), make_problem(256, 2000), "unseen", 1.0, "h");
    EXPECT_EQ(db.measurements("GPU-a", p).at(0).params_json, "{\"label\":\"known\"}");
  }
  SQLite::Database raw(path.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(raw, "SELECT params_json FROM configurations WHERE label = :label");
  q.bind(":label", "unseen");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getString(), "{}");
}

TEST(DatabaseWinners, WinnersOfADeviceAreOrderedByFamilyTypeBinningBinsN) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  // Stored out of order on purpose; labels spell the expected position.
  db.set_winner(d, make_problem(256, 2000, "shared", "u8", "even"), "5", 1, "h");
  db.set_winner(d, make_problem(16, 5000, "global", "u8", "even"), "1", 1, "h");
  db.set_winner(d, make_problem(256, 1000, "shared", "u8", "even"), "4", 1, "h");
  db.set_winner(d, make_problem(16, 1000, "shared", "u8", "direct"), "3", 1, "h");
  db.set_winner(d, make_problem(64, 1000, "shared", "u8", "even"), "4a", 1, "h");
  db.set_winner(d, make_problem(16, 1000, "shared", "f32", "even"), "2", 1, "h");
  db.set_winner(make_device("GPU-b"), make_problem(16, 1, "aaa", "u8", "even"), "other", 1, "h");
  EXPECT_EQ(labels_of(db.winners("GPU-a")),
            (std::vector<std::string>{"1", "2", "3", "4a", "4", "5"}));
  EXPECT_TRUE(db.winners("GPU-none").empty());
}

TEST(DatabaseWinners, WinnersLikeKeepsSameDeviceFamilySampleTypeAndBinning) {
  Database db(":memory:");
  const DeviceRow a = make_device("GPU-a");
  const DeviceRow b = make_device("GPU-b");
  db.set_winner(a, make_problem(256, 1000, "shared", "u8", "even"), "match-1", 1, "h");
  db.set_winner(a, make_problem(64, 9999, "shared", "u8", "even"), "match-0", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "global", "u8", "even"), "other-family", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "shared", "u16", "even"), "other-type", 1, "h");
  db.set_winner(a, make_problem(256, 1000, "shared", "u8", "direct"), "other-binning", 1, "h");
  db.set_winner(b, make_problem(256, 1000, "shared", "u8", "even"), "other-device", 1, "h");
  const auto ws = db.winners_like("GPU-a", make_problem(128, 5, "shared", "u8", "even"));
  EXPECT_EQ(labels_of(ws), (std::vector<std::string>{"match-0", "match-1"}));
}

TEST(DatabaseWinners, WinnersSameArchKeepsOtherDevicesOfSameComputeCapability) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000, "shared", "u8", "even");
  db.set_winner(make_device("GPU-self", 9, 0), p, "self", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), p, "twin", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), make_problem(32, 7, "shared", "u8", "even"),
                "twin-small", 1, "h");
  db.set_winner(make_device("GPU-twin", 9, 0), make_problem(256, 1000, "shared", "u8", "direct"),
                "twin-direct", 1, "h");
  db.set_winner(make_device("GPU-minor", 9, 1), p, "other-minor", 1, "h");
  db.set_winner(make_device("GPU-major", 8, 0), p, "other-major", 1, "h");
  const auto ws = db.winners_same_arch(9, 0, "GPU-self", p);
  EXPECT_EQ(labels_of(ws), (std::vector<std::string>{"twin-small", "twin"}));
  for (const WinnerRow& w : ws) {
    EXPECT_EQ(w.device.uuid, "GPU-twin");
    EXPECT_EQ(w.device.cc_major, 9);
    EXPECT_EQ(w.device.cc_minor, 0);
  }
  EXPECT_TRUE(db.winners_same_arch(7, 5, "GPU-self", p).empty());
}

// `histtune tune --gpu all` stores each problem under the board that tuned it; the others of its
// model read it through winners_same_model. The SQL and same_model() must agree.
TEST(DatabaseWinners, WinnersSameModelKeepsExactProblemOnOtherBoardsOfTheModel) {
  Database db(":memory:");
  const ProblemRow p = make_problem(256, 1000, "shared", "u8", "even");
  const DeviceRow self = make_device("GPU-self");
  DeviceRow smaller = make_device("GPU-40gb");
  smaller.memory_bytes = 42'000'000'000LL;
  DeviceRow fewer_sms = make_device("GPU-114sm");
  fewer_sms.sm_count = 114;
  DeviceRow renamed = make_device("GPU-pcie");
  renamed.name = "NVIDIA H100 PCIe";
  DeviceRow other_driver = make_device("GPU-twin-b");
  other_driver.driver_version = 12080;
  db.set_winner(self, p, "self", 1, "h");
  db.set_winner(make_device("GPU-twin-a"), p, "twin-a", 1, "h");
  db.set_winner(other_driver, p, "twin-b", 1, "h");
  db.set_winner(make_device("GPU-twin-a"), make_problem(256, 2000, "shared", "u8", "even"),
                "twin-other-n", 1, "h");
  for (const DeviceRow& d : {smaller, fewer_sms, renamed, make_device("GPU-sm91", 9, 1)})
    db.set_winner(d, p, "not-" + d.uuid, 1, "h");
  const auto ws = db.winners_same_model(self, p);
  EXPECT_EQ(labels_of(ws), (std::vector<std::string>{"twin-a", "twin-b"}))
      << "exactly this problem, same name, cc, SMs and memory; the driver may differ";
  for (const WinnerRow& w : db.winners_same_arch(9, 0, "GPU-self", p))
    EXPECT_EQ(same_model(w.device, self),
              w.device.uuid == "GPU-twin-a" || w.device.uuid == "GPU-twin-b")
        << w.device.uuid;
  EXPECT_TRUE(db.winners_same_model(make_device("GPU-twin-a"), make_problem(1, 1)).empty());
}

// --- channels ------------------------------------------------------------------------------------

TEST(DatabaseChannels, ChannelsAndActiveChannelsArePartOfTheKeyAndOfNearestLookups) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  const ProblemRow flat = problem(256, 1 << 20);
  const ProblemRow rgba = problem(256, 1 << 20, 4, 4);
  const ProblemRow rgb_of_rgba = problem(256, 1 << 20, 4, 3);
  db.set_winner(d, flat, "flat", 0.1, "h3", "0.3.0");
  db.set_winner(d, rgba, "rgba", 0.2, "h3", "0.3.0");
  db.set_winner(d, rgb_of_rgba, "rgb", 0.3, "h3", "0.3.0");
  EXPECT_EQ(db.winner("GPU-a", flat)->config_label, "flat");
  EXPECT_EQ(db.winner("GPU-a", rgba)->config_label, "rgba");
  EXPECT_EQ(db.winner("GPU-a", rgb_of_rgba)->config_label, "rgb");
  EXPECT_EQ(db.winner("GPU-a", rgb_of_rgba)->problem.active_channels, 3u);
  EXPECT_EQ(db.winners("GPU-a").size(), 3u);

  const auto like = db.winners_like("GPU-a", problem(256, 1 << 24, 4, 3));
  ASSERT_EQ(like.size(), 1u) << "only equal channels / active channels are near";
  EXPECT_EQ(like[0].config_label, "rgb");
  ASSERT_EQ(db.winners_like("GPU-a", problem(64, 1 << 10)).size(), 1u);
  DeviceRow other = make_device("GPU-b");
  db.set_winner(other, problem(256, 4096, 4, 4), "b-rgba", 0.2, "h3", "0.3.0");
  const auto arch = db.winners_same_arch(9, 0, "GPU-a", problem(1, 1, 4, 4));
  ASSERT_EQ(arch.size(), 1u);
  EXPECT_EQ(arch[0].config_label, "b-rgba");
  EXPECT_TRUE(db.winners_same_arch(9, 0, "GPU-a", problem(1, 1)).empty());
}

// --- distributions -------------------------------------------------------------------------------

TEST(DatabaseDistributions, MeasurementsKeepTheirDistributionAndWinnersAreKeptPerDistribution) {
  Database db(":memory:");
  const DeviceRow d = make_device("GPU-a");
  const ProblemRow p = problem(256, 1 << 24);
  db.record_measurements(d, p, {measurement("a", 1.0, "uniform"), measurement("a", 3.0, "constant"),
                                measurement("b", 1.2, "constant")});
  const auto ms = db.measurements("GPU-a", p);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0].distribution, "uniform");
  EXPECT_EQ(ms[1].distribution, "constant");
  EXPECT_EQ(ms[1].config_label, "b");

  EXPECT_FALSE(db.winner_for("GPU-a", p, "constant")) << "nothing stored yet";
  db.set_winners(d, p, chosen("b", 1.1, histtune::db::kAnyDistribution),
                 {chosen("a", 1.0, "uniform"), chosen("b", 1.2, "constant")});
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "b") << "the robust winner is the winner";
  const auto per = db.distribution_winners("GPU-a", p);
  ASSERT_EQ(per.size(), 2u);
  EXPECT_EQ(per[0].distribution, "constant");
  EXPECT_EQ(per[0].config_label, "b");
  EXPECT_EQ(per[1].distribution, "uniform");
  EXPECT_EQ(db.winner_for("GPU-a", p, "uniform")->config_label, "a");
  EXPECT_EQ(db.winner_for("GPU-a", p, "uniform")->distribution, "uniform");
  // The device-wide call: every problem's, ordered like winners() then by distribution.
  const ProblemRow small = problem(64, 1 << 10);
  db.set_winners(d, small, chosen("c", 0.1, histtune::db::kAnyDistribution),
                 {chosen("c", 0.1, "skewed")});
  db.set_winners(make_device("GPU-b"), p, chosen("a", 1.0, histtune::db::kAnyDistribution),
                 {chosen("a", 1.0, "runs")});
  const auto all = db.distribution_winners("GPU-a");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].problem, small);
  EXPECT_EQ(all[0].distribution, "skewed");
  EXPECT_EQ(all[1].problem, p);
  EXPECT_EQ(all[1].distribution, "constant");
  EXPECT_EQ(all[2].distribution, "uniform");
  const auto fallback = db.winner_for("GPU-a", p, "runs");
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->config_label, "b");
  EXPECT_EQ(fallback->distribution, histtune::db::kAnyDistribution);

  // Setting them again replaces all of them, in one transaction.
  db.set_winners(d, p, chosen("a", 1.0, "any"), {chosen("a", 1.0, "runs")});
  EXPECT_EQ(db.distribution_winners("GPU-a", p).size(), 1u);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "a");
  // "any" is not a distribution; a refused call changes nothing.
  EXPECT_THROW(db.set_winners(d, p, chosen("b", 1.0, "any"), {chosen("b", 1.0, "any")}), DbError);
  EXPECT_EQ(db.winner("GPU-a", p)->config_label, "a");
  EXPECT_EQ(db.distribution_winners("GPU-a", p).size(), 1u);
}
