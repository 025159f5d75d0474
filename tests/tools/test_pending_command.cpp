// `histtune show --pending` and `histtune tune --pending`: what programs called untuned, from the
// database and its side file, most-called first; tuning them makes them `exact` (GPU).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_runner.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/problem.hpp"

using namespace histtune;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;

namespace {

db::PendingRow pending(const std::string& uuid, const Problem& p, std::uint64_t calls,
                       const std::string& level) {
  db::PendingRow r;
  r.device_uuid = uuid;
  r.device_name = "Fixture GPU";
  r.problem = p.key();
  if (p.binning == Binning::even) {
    r.lower = p.lower;
    r.upper = p.upper;
  }
  r.level = level;
  r.calls = calls;
  return r;
}

}  // namespace

TEST(CliPending, ShowListsTheDatabaseAndSideFileMostCalledFirst) {
  ScratchDir dir("histtune_cli_pending");
  const std::string db_path = dir / "h.db";
  const Problem a = flat_problem(SampleType::u8, Binning::direct, 256, 1 << 22);
  const Problem b = flat_problem(SampleType::f32, Binning::even, 1024, 1 << 20, -4, 4);
  const Problem rows = batched_problem(SampleType::u8, Binning::direct, 256, 4096, 65536);
  {
    db::Database database(db_path);
    database.add_pending({pending("GPU-a", a, 5, "nearest_shape"), pending("GPU-a", b, 40, "default")});
  }
  db::append_pending_file(db::pending_file_path(db_path),
                          {pending("GPU-a", a, 3, "nearest_shape"), pending("GPU-b", rows, 1, "same_arch")});

  const auto text = run_cli("show --pending --db " + db_path);
  ASSERT_EQ(text.rc, 0) << text.out;
  const auto at = [&](const std::string& s) { return text.out.find(s); };
  ASSERT_NE(at("f32:even:1024:2^20:-4:4"), std::string::npos) << text.out;
  ASSERT_NE(at("u8:direct:256:2^22"), std::string::npos) << text.out;
  ASSERT_NE(at("bat:4096:u8:direct:256:2^16"), std::string::npos) << text.out;
  EXPECT_LT(at("f32:even"), at("u8:direct:256:2^22"));  // 40 calls, then 5 + 3
  EXPECT_LT(at("u8:direct:256:2^22"), at("bat:4096"));
  EXPECT_NE(at("3 pending problems"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" 8  nearest_shape"), std::string::npos) << text.out;

  const auto json = run_cli_split("show --pending --json --db " + db_path);
  ASSERT_EQ(json.rc, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["command"], "show");
  ASSERT_EQ(doc["pending"].size(), 3u);
  EXPECT_EQ(doc["pending"][0]["calls"], 40);
  EXPECT_EQ(doc["pending"][0]["level"], "default");
  EXPECT_EQ(doc["pending"][0]["lower"], -4.0);
  EXPECT_EQ(doc["pending"][1]["calls"], 8);
  EXPECT_EQ(doc["pending"][2]["device"], "GPU-b");
  EXPECT_EQ(doc["pending"][2]["problem"]["family"], "batched");
}

TEST(CliPending, ShowWithNothingRecordedSaysSoWithoutADatabase) {
  ScratchDir dir("histtune_cli_pending_none");
  const auto r = run_cli("show --pending --db " + (dir / "none.db"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("nothing pending"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
  EXPECT_EQ(run_cli("show --pending --problem u8:direct:256:2^20 --db " + (dir / "none.db")).rc, 2);
  EXPECT_EQ(run_cli("tune --pending --problem u8:direct:256:2^20 --db " + (dir / "none.db")).rc, 2);
}

// On a GPU: a program's calls record two shapes, `tune --pending` tunes them (a small budget, one
// distribution) and a new dispatcher then resolves both `exact`, with nothing left pending.
TEST(CliPending, TunePendingMakesTheRecordedShapesExact) {
  HT_REQUIRE_GPU();
  ScratchDir dir("histtune_cli_tune_pending");
  const std::string db_path = dir / "h.db";
  const DeviceInfo d = query_device(0);
  const Problem a = flat_problem(SampleType::u8, Binning::direct, 256, 1 << 16);
  const Problem b = flat_problem(SampleType::f32, Binning::even, 64, 1 << 14, -1, 1);
  {
    DispatcherOptions o;
    o.db_path = db_path;
    o.record = true;
    Dispatcher disp(o);
    for (const Problem& p : {a, b, a}) disp.first_call_choice(d, p);
  }
  ASSERT_EQ(db::read_pending_file(db::pending_file_path(db_path)).size(), 2u);
  const auto r = run_cli("tune --pending --budget 6 --distributions uniform --finalists 2 --db " +
                         db_path);
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("2 pending problems on GPU 0 (3 calls recorded)"), std::string::npos)
      << r.out;
  // Most-called first is the plan's order; with problems tuned at once, lines come as each ends.
  EXPECT_NE(r.out.find("[1/2] hist1d u8 direct bins=256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2/2] hist1d f32 even bins=64"), std::string::npos) << r.out;
  Dispatcher after(db_path);
  EXPECT_EQ(after.lookup(d, a).level, LookupLevel::exact);
  EXPECT_EQ(after.lookup(d, b).level, LookupLevel::exact);
  EXPECT_TRUE(db::Database(db_path).pending().empty());
  EXPECT_NE(run_cli("show --pending --db " + db_path).out.find("nothing pending"),
            std::string::npos);
}
