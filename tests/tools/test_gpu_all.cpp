// `histtune tune --gpu all`: the boards of a machine grouped by model, the queue that splits a
// plan between the boards of one model, the winners that serve a model, the pending problems of a
// model, and --gpu's parsing, with fake device lists; then the run itself on a machine with two
// GPUs (skipped elsewhere, with the reason).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "fake_device.hpp"
#include "gpu_models.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/tuner/tuner.hpp"
#include "options.hpp"
#include "pending.hpp"

using namespace histtune;
using namespace histtune::cli;
using histtune::test::run_cli;
using histtune::test::run_cli_split;
using histtune::test::ScratchDir;

namespace {

// An H100 SXM board at `ordinal` (another model with `memory_gib` or `name` changed).
DeviceInfo board(int ordinal, const std::string& name = "NVIDIA H100 80GB HBM3",
                 std::int64_t memory_gib = 80) {
  DeviceInfo d = test::fixture_gpu("GPU-" + std::to_string(ordinal));
  d.ordinal = ordinal;
  d.name = name;
  d.memory_bytes = memory_gib << 30;
  return d;
}

std::vector<int> ordinals(const ModelGroup& g) {
  std::vector<int> out;
  for (const DeviceInfo& d : g.devices) out.push_back(d.ordinal);
  return out;
}

Problem u8(std::uint64_t n) { return flat_problem(SampleType::u8, Binning::direct, 256, n); }

}  // namespace

// ---- grouping by model ----

TEST(GpuAllModels, BoardsOfOneModelShareAGroupOthersGetTheirOwn) {
  // Ordinals out of order: groups follow their first board's ordinal, boards by ordinal.
  const std::vector<DeviceInfo> devices = {board(3), board(1, "NVIDIA A100-SXM4-80GB"), board(0),
                                           board(2, "NVIDIA H100 80GB HBM3", 94), board(4)};
  const std::vector<ModelGroup> groups = group_by_model(devices);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(ordinals(groups[0]), (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(ordinals(groups[1]), (std::vector<int>{1})) << "another name";
  EXPECT_EQ(ordinals(groups[2]), (std::vector<int>{2})) << "another memory size";
  EXPECT_EQ(model_text(groups[0].devices[0]), "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 80.0 GiB)");
}

TEST(GpuAllModels, ComputeCapabilityAndSmsSeparateModelsTheDriverDoesNot) {
  DeviceInfo other_cc = board(1), fewer_sms = board(2), other_driver = board(3);
  other_cc.cc_minor = 1;
  fewer_sms.sm_count = 114;
  other_driver.driver_version = 12080;
  const auto groups = group_by_model({board(0), other_cc, fewer_sms, other_driver});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(ordinals(groups[0]), (std::vector<int>{0, 3}));
  EXPECT_TRUE(group_by_model({}).empty());
  EXPECT_EQ(group_by_model({board(7)}).size(), 1u);
}

// ---- the shared queue ----

TEST(GpuAllQueue, HandsOutEachProblemOnceInPlanOrderThenNothing) {
  PlanQueue q(3);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.taken(), 0u);
  EXPECT_EQ(q.next(), std::optional<std::size_t>(0));
  EXPECT_EQ(q.next(), std::optional<std::size_t>(1));
  EXPECT_EQ(q.next(), std::optional<std::size_t>(2));
  EXPECT_EQ(q.next(), std::nullopt);
  EXPECT_EQ(q.next(), std::nullopt);
  EXPECT_EQ(q.taken(), 3u) << "asking past the end takes nothing";
  PlanQueue empty(0);
  EXPECT_EQ(empty.next(), std::nullopt);
}

// The default plan starts its large-bin problems, then the other families from the plan's last
// to its first (each family in the plan's order), taking turns with the 1D problems in the plan's
// order: every problem once.
TEST(GpuAllQueue, StartOrderIsLargeBinsThenTheFamiliesFromTheLastTakingTurnsWith1D) {
  const std::vector<Problem> plan = tuner::default_plan();
  const std::vector<std::size_t> order = start_order(plan);
  ASSERT_EQ(order.size(), plan.size());
  EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), plan.size());
  const auto large = [](const Problem& p) { return p.num_bins >= (1u << 18); };
  const auto quick = [&](const Problem& p) { return p.family == Family::hist1d && !large(p); };
  const std::size_t quick_ones = static_cast<std::size_t>(std::count_if(plan.begin(), plan.end(), quick));
  const std::size_t turns = 2 * std::min(quick_ones, plan.size() - quick_ones);
  EXPECT_GE(turns, 30u);
  std::vector<std::size_t> slow, ones;  // the two turns, each in the order it was handed out
  for (std::size_t j = 0; j < order.size(); ++j) {
    (quick(plan[order[j]]) ? ones : slow).push_back(order[j]);
    if (j < turns) {
      EXPECT_EQ(quick(plan[order[j]]), j % 2 == 1) << "position " << j << ": turns alternate";
    }
  }
  const std::size_t large_ones = static_cast<std::size_t>(std::count_if(plan.begin(), plan.end(), large));
  EXPECT_GE(large_ones, 3u) << "the default plan has three problems of 2^20 bins or more";
  for (std::size_t k = 0; k < large_ones; ++k) EXPECT_TRUE(large(plan[slow[k]])) << k;
  EXPECT_EQ(plan[slow[large_ones]].family, Family::joint);
  for (std::size_t k = large_ones + 1; k < slow.size(); ++k) {
    const Problem &a = plan[slow[k - 1]], &b = plan[slow[k]];
    EXPECT_GE(static_cast<int>(a.family), static_cast<int>(b.family)) << k;
    if (a.family == b.family) {
      EXPECT_LT(slow[k - 1], slow[k]) << "the plan's order within a family";
    }
  }
  EXPECT_TRUE(std::is_sorted(ones.begin(), ones.end())) << "the 1D problems in the plan's order";
  EXPECT_EQ(plan[order.back()].family, Family::hist1d);
}

// A pending plan is handed out as listed (most-called first); any other in start_order's order.
TEST(GpuAllQueue, APendingPlanKeepsItsOrderAndTheDefaultPlanStartsLongestFirst) {
  const std::vector<Problem> plan = tuner::default_plan();
  auto drain = [](PlanQueue& q) {
    std::vector<std::size_t> out;
    while (const auto i = q.next()) out.push_back(*i);
    return out;
  };
  std::vector<std::size_t> listed(plan.size());
  for (std::size_t i = 0; i < listed.size(); ++i) listed[i] = i;
  EXPECT_EQ(drain(*plan_queue(plan, /*pending=*/true)), listed);
  EXPECT_EQ(drain(*plan_queue(plan, /*pending=*/false)), start_order(plan));
}

// Two boards: one takes 1 ms a problem, the other 4 ms. Each problem is tuned exactly once, and
// the faster board tunes more of them: the queue is dynamic, not a fixed half each.
TEST(GpuAllQueue, AFasterBoardTakesMoreProblemsAndNoneIsTakenTwice) {
  constexpr std::size_t kProblems = 60;
  PlanQueue q(kProblems);
  std::vector<std::atomic<int>> tuned(kProblems);
  std::atomic<std::size_t> by_fast{0}, by_slow{0};
  auto board_thread = [&](std::chrono::milliseconds per, std::atomic<std::size_t>& count) {
    while (const auto i = q.next()) {
      tuned[*i].fetch_add(1);
      count.fetch_add(1);
      std::this_thread::sleep_for(per);
    }
  };
  std::thread fast(board_thread, std::chrono::milliseconds(1), std::ref(by_fast));
  std::thread slow(board_thread, std::chrono::milliseconds(4), std::ref(by_slow));
  fast.join();
  slow.join();
  for (std::size_t i = 0; i < kProblems; ++i) EXPECT_EQ(tuned[i].load(), 1) << "problem " << i;
  EXPECT_EQ(by_fast + by_slow, kProblems);
  EXPECT_GT(by_fast.load(), by_slow.load()) << by_fast << " vs " << by_slow;
  EXPECT_EQ(q.taken(), kProblems);
}

TEST(GpuAllQueue, ManyBoardsAtOnceShareEveryIndexExactlyOnce) {
  constexpr std::size_t kProblems = 5000;
  PlanQueue q(kProblems);
  std::vector<std::vector<std::size_t>> got(8);
  std::vector<std::thread> boards;
  for (auto& mine : got)
    boards.emplace_back([&q, &mine] {
      while (const auto i = q.next()) mine.push_back(*i);
    });
  for (auto& t : boards) t.join();
  std::set<std::size_t> all;
  std::size_t total = 0;
  for (const auto& mine : got) {
    total += mine.size();
    all.insert(mine.begin(), mine.end());
    for (std::size_t k = 1; k < mine.size(); ++k) EXPECT_LT(mine[k - 1], mine[k]);
  }
  EXPECT_EQ(total, kProblems);
  EXPECT_EQ(all.size(), kProblems);
}

// ---- the winners that serve a model ----

TEST(GpuAllWinners, AWinnerOfAnotherBoardOfTheModelServesThisOne) {
  db::Database database(":memory:");
  const std::string hash = tuner::template_hash_of(u8(1 << 20));
  database.set_winner(board(1).row(), u8(1 << 20).key(), "on-1", 0.1, hash);
  database.set_winner(board(2, "NVIDIA A100-SXM4-80GB").row(), u8(1 << 22).key(), "a100", 0.1,
                      hash);
  database.set_winner(board(1).row(), u8(1 << 24).key(), "old", 0.1, "another-template");
  const auto w = model_winner(database, board(0), u8(1 << 20));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->config_label, "on-1");
  EXPECT_EQ(w->device.uuid, "GPU-1");
  EXPECT_FALSE(model_winner(database, board(0), u8(1 << 22))) << "another model's";
  EXPECT_FALSE(model_winner(database, board(0), u8(1 << 24))) << "another kernel template's";
  // Its own winner first.
  database.set_winner(board(0).row(), u8(1 << 20).key(), "on-0", 0.2, hash);
  EXPECT_EQ(model_winner(database, board(0), u8(1 << 20))->config_label, "on-0");
}

TEST(GpuAllWinners, StartRowsAreThisBoardsThenTheOtherBoardsOfItsModel) {
  db::Database database(":memory:");
  database.set_winner(board(1).row(), u8(1 << 20).key(), "on-1", 0.1, "h");
  database.set_winner(board(0).row(), u8(1 << 24).key(), "on-0", 0.1, "h");
  database.set_winner(board(2, "NVIDIA A100-SXM4-80GB").row(), u8(1 << 22).key(), "a100", 0.1,
                      "h");
  std::vector<std::string> labels;
  for (const auto& w : model_start_rows(database, board(0))) labels.push_back(w.config_label);
  EXPECT_EQ(labels, (std::vector<std::string>{"on-0", "on-1"}));
  // One board alone: exactly the rows the tuner reads for it.
  EXPECT_EQ(model_start_rows(database, board(2, "NVIDIA A100-SXM4-80GB")).size(),
            tuner::start_rows(database, "GPU-2").size());
}

// ---- pending problems of a model ----

TEST(GpuAllPending, TheBoardsOfAModelAddTheirCallsAndAreClearedTogether) {
  ScratchDir dir("histtune_gpu_all_pending");
  db::Database database(dir / "h.db");
  const auto row = [](const DeviceInfo& d, const Problem& p, std::uint64_t calls) {
    db::PendingRow r;
    r.device_uuid = d.uuid;
    r.device_name = d.name;
    r.problem = p.key();
    r.level = "nearest_shape";
    r.calls = calls;
    return r;
  };
  const DeviceInfo a100 = board(2, "NVIDIA A100-SXM4-80GB");
  database.add_pending({row(board(0), u8(1 << 20), 3), row(board(1), u8(1 << 20), 4),
                        row(board(1), u8(1 << 22), 5), row(a100, u8(1 << 24), 9)});
  std::FILE* sink = std::tmpfile();
  const std::vector<Problem> plan = pending_plan(database, {board(0), board(1)}, sink, false);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].key(), u8(1 << 20).key()) << "3 + 4 calls before 5";
  EXPECT_EQ(plan[1].key(), u8(1 << 22).key());
  EXPECT_EQ(pending_plan(database, {board(0)}, sink, true).size(), 1u);
  std::fclose(sink);
  // Tuned on board 1: board 0's row goes too, for it is served at same_model.
  database.set_winner(board(1).row(), u8(1 << 20).key(), "w", 0.1,
                      tuner::template_hash_of(u8(1 << 20)));
  clear_tuned(database, {board(0), board(1)}, plan);
  const auto left = database.pending();
  ASSERT_EQ(left.size(), 2u);
  for (const auto& r : left) EXPECT_FALSE(r.problem == u8(1 << 20).key()) << r.device_uuid;
}

// ---- --gpu ----

TEST(GpuAllOptions, GpuTakesAllOnlyWhereTheCommandOffersIt) {
  EXPECT_EQ(check_gpu("all", true), "");
  EXPECT_EQ(check_gpu("auto", true), "");
  EXPECT_EQ(check_gpu("1", true), "");
  EXPECT_EQ(check_gpu("auto", false), "");
  EXPECT_NE(check_gpu("all", false).find("for `histtune tune` only"), std::string::npos);
  EXPECT_NE(check_gpu("every", true).find("or 'all', not 'every'"), std::string::npos);
  EXPECT_EQ(check_gpu("every", false).find("'all'"), std::string::npos);
}

TEST(GpuAllOptions, CommandsOfOneGpuRefuseAllAndTuneSaysWhatItCannotCombine) {
  ScratchDir dir("histtune_gpu_all_cli");
  const std::string db = " --db " + (dir / "h.db");
  for (const char* args : {"compare --gpu all", "bench --gpu all", "info --gpu all",
                           "explain --gpu all --problem u8:direct:256:2^20"}) {
    const auto r = run_cli_split(std::string(args) + db);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("for `histtune tune` only"), std::string::npos) << args << "\n" << r.err;
  }
  const auto r = run_cli_split("tune --gpu all --compare-strategies" + db);
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("--compare-strategies runs on one GPU"), std::string::npos) << r.err;
  const auto help = run_cli("tune --help");
  EXPECT_NE(help.out.find("auto|N|all"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("5  tune --gpu all: a GPU failed"), std::string::npos) << help.out;
  EXPECT_NE(run_cli("--help").out.find("auto|N|all"), std::string::npos);
}

TEST(GpuAllOptions, WithoutAGpuAllSaysSoInOneLine) {
  if (histtune::test::no_gpu_reason().empty()) GTEST_SKIP() << "this machine has a GPU";
  ScratchDir dir("histtune_gpu_all_nogpu");
  for (const char* args : {"--gpu all", "tune --gpu all --pending"}) {
    const auto r = run_cli_split(std::string(args) + " --db " + (dir / "h.db"));
    EXPECT_EQ(r.rc, 3) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  }
}

// ---- on two GPUs ----

// Two problems on every GPU at once: with two boards of one model each tunes one (or one both,
// where the other was slower to start), every problem has one winner, and each board resolves
// both exact or same_model. The exit code is 0 and each line names its GPU.
TEST(GpuAllRun, TwoBoardsOfOneModelSplitThePlanAndServeEachOther) {
  HT_REQUIRE_GPU();
  if (device_count() < 2) GTEST_SKIP() << "needs 2 GPUs; this machine has " << device_count();
  const DeviceInfo d0 = query_device(0), d1 = query_device(1);
  if (!db::same_model(d0.row(), d1.row()))
    GTEST_SKIP() << "needs two GPUs of one model: " << model_text(d0) << ", " << model_text(d1);
  ScratchDir dir("histtune_gpu_all_run");
  const std::string db_path = dir / "h.db";
  const auto r = run_cli_split(
      "tune --gpu all --problem u8:direct:256:2^16 --problem f32:even:64:2^14:-1:1 --budget 6 "
      "--distributions uniform --finalists 2 --json --db " + db_path);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("[GPU 0] "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[GPU 1] "), std::string::npos) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["gpus"].size(), 2u);
  std::size_t results = 0;
  for (const auto& g : doc["gpus"]) results += g["results"].size();
  EXPECT_EQ(results, 2u) << "each problem once, on one board";
  Dispatcher after(db_path);
  for (const Problem& p : {u8(1 << 16), flat_problem(SampleType::f32, Binning::even, 64, 1 << 14,
                                                      -1, 1)}) {
    const LookupLevel l0 = after.lookup(d0, p).level, l1 = after.lookup(d1, p).level;
    EXPECT_TRUE(tuned_for_model(l0) && tuned_for_model(l1)) << p.describe();
    EXPECT_NE(l0, l1) << p.describe() << ": exact on the board that tuned it, same_model on the other";
  }
  // Run again: nothing is tuned twice.
  const auto again = run_cli("tune --gpu all --problem u8:direct:256:2^16 --budget 6 --db " + db_path);
  ASSERT_EQ(again.rc, 0) << again.out;
  EXPECT_NE(again.out.find("already tuned"), std::string::npos) << again.out;
}
