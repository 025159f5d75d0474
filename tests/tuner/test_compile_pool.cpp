// CompilePool and CompileSlots without NVRTC: the compile function records when each request
// runs, so the order, the bound on compiles at once and the shutdown are checked on CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "histtune/tuner/compile_pool.hpp"

using namespace histtune;
using namespace histtune::tuner;

namespace {

CompileRequest request(const std::string& label) {
  CompileRequest r;
  r.label = label;
  return r;
}

// A gate the compile function waits at until opened.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(m);
      open = true;
    }
    cv.notify_all();
  }
};

// The labels in the order their compiles started.
struct Log {
  std::mutex m;
  std::vector<std::string> started;
  void add(const std::string& s) {
    std::lock_guard<std::mutex> lock(m);
    started.push_back(s);
  }
};

}  // namespace

TEST(CompilePool, ComputesEveryRequestAndRethrowsItsError) {
  CompilePool pool(2, [](const CompileRequest& r) {
    if (r.label == "bad") throw std::runtime_error("nvrtcCompileProgram(bad) failed");
    CompiledKernel k;
    k.log = "built " + r.label;
    return k;
  });
  const std::size_t a = pool.add(request("a")), bad = pool.add(request("bad"));
  EXPECT_EQ(pool.get(a).log, "built a");
  EXPECT_THROW(pool.get(bad), std::runtime_error);
  EXPECT_EQ(pool.size(), 2u);
}

// A freed slot goes to the other pool waiting, not back to the one with the longer queue: a
// problem that queued one kernel does not wait behind another problem's whole search.
TEST(CompileSlots, AFreedSlotGoesToTheNextPoolInTurn) {
  CompileSlots slots(1);
  Gate first_done;
  Log log;
  std::atomic<bool> first_started = false;
  const auto compile = [&](const CompileRequest& r) {
    log.add(r.label);
    if (r.label == "a0") {
      first_started = true;
      first_done.wait();
    }
    return CompiledKernel{};
  };
  CompilePool a(0, compile, &slots), b(0, compile, &slots);
  std::vector<std::size_t> queued;
  for (int i = 0; i < 4; ++i) queued.push_back(a.add(request("a" + std::to_string(i))));
  while (!first_started) std::this_thread::yield();
  const std::size_t mine = b.add(request("b0"));
  // b's worker waits for the slot a0 holds.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  first_done.release();
  b.get(mine);
  for (std::size_t i : queued) a.get(i);
  ASSERT_EQ(log.started.size(), 5u);
  EXPECT_EQ(log.started[0], "a0");
  EXPECT_EQ(log.started[1], "b0") << "b's turn came before a's other three";
}

// Turns are fair in time: a freed slot goes to the lane served the fewest seconds. a has been
// served 150 ms, b nothing: both of b's waiters come before a's (round robin by compiles would
// have served a's second). The three wait before the slot is freed, so the order is the slots'
// choice, not which thread wakes first.
TEST(CompileSlots, AFreedSlotGoesToTheLaneServedTheFewestSeconds) {
  CompileSlots slots(1);
  const std::atomic<bool> stop = false;
  const std::size_t a = slots.new_lane(), b = slots.new_lane();
  ASSERT_TRUE(slots.acquire(a, stop));  // a holds the only slot
  Log log;
  const auto waiter = [&](std::size_t lane, std::string name) {
    return std::thread([&slots, &stop, &log, lane, name] {
      if (!slots.acquire(lane, stop)) return;
      log.add(name);
      slots.release(lane, 0.001);
    });
  };
  std::thread a1 = waiter(a, "a1"), b1 = waiter(b, "b1"), b2 = waiter(b, "b2");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // all three wait
  slots.release(a, 0.150);
  a1.join();
  b1.join();
  b2.join();
  ASSERT_EQ(log.started.size(), 3u);
  EXPECT_EQ(log.started[2], "a1") << "b's two waiters, served less, come first";
  EXPECT_DOUBLE_EQ(slots.served(a), 0.151);
}

// A new lane starts level with the least served lane: served from zero it would take every slot
// until it had caught up with lanes that compiled for minutes.
TEST(CompileSlots, ANewLaneStartsLevelWithTheLeastServed) {
  CompileSlots slots(2);
  const std::atomic<bool> stop = false;
  const std::size_t a = slots.new_lane(), b = slots.new_lane();
  ASSERT_TRUE(slots.acquire(a, stop));
  slots.release(a, 3.0);
  ASSERT_TRUE(slots.acquire(b, stop));
  slots.release(b, 2.0);
  EXPECT_DOUBLE_EQ(slots.served(a), 3.0);
  const std::size_t c = slots.new_lane();
  EXPECT_DOUBLE_EQ(slots.served(c), 2.0) << "level with b, the least served";
  slots.retire_lane(a);
  slots.retire_lane(b);
  EXPECT_DOUBLE_EQ(slots.served(slots.new_lane()), 2.0);
}

// One pool alone uses every slot; pools together never exceed them.
TEST(CompileSlots, BoundCompilesAtOnceAcrossPoolsAndGiveThemAllToOnePoolAlone) {
  constexpr unsigned kSlots = 3;
  CompileSlots slots(kSlots);
  std::atomic<int> now = 0, most = 0;
  const auto compile = [&](const CompileRequest&) {
    const int n = ++now;
    for (int seen = most; n > seen && !most.compare_exchange_weak(seen, n);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --now;
    return CompiledKernel{};
  };
  {
    CompilePool alone(1, compile, &slots);  // `threads` is ignored: a worker per slot
    std::vector<std::size_t> ids;
    for (int i = 0; i < 9; ++i) ids.push_back(alone.add(request("k" + std::to_string(i))));
    for (std::size_t i : ids) alone.get(i);
  }
  EXPECT_EQ(most.load(), static_cast<int>(kSlots));
  most = 0;
  std::vector<std::unique_ptr<CompilePool>> pools;
  std::vector<std::vector<std::size_t>> ids(4);
  for (int p = 0; p < 4; ++p) {
    pools.push_back(std::make_unique<CompilePool>(0, compile, &slots));
    for (int i = 0; i < 5; ++i) ids[p].push_back(pools[p]->add(request("k")));
  }
  for (int p = 0; p < 4; ++p)
    for (std::size_t i : ids[p]) pools[p]->get(i);
  EXPECT_LE(most.load(), static_cast<int>(kSlots));
  EXPECT_GE(most.load(), 2);
}

// A pool destroyed while its workers wait for slots another pool holds returns at once: its
// waiting requests are abandoned, the other pool's compile finishes.
TEST(CompileSlots, APoolStoppedWhileWaitingForASlotLeavesPromptly) {
  CompileSlots slots(1);
  Gate hold;
  std::atomic<bool> holding = false;
  CompilePool holder(0, [&](const CompileRequest&) {
    holding = true;
    hold.wait();
    return CompiledKernel{};
  }, &slots);
  const std::size_t held = holder.add(request("held"));
  while (!holding) std::this_thread::yield();
  std::atomic<int> ran = 0;
  const auto t0 = std::chrono::steady_clock::now();
  {
    CompilePool waiting(0, [&](const CompileRequest&) {
      ++ran;
      return CompiledKernel{};
    }, &slots);
    for (int i = 0; i < 3; ++i) waiting.add(request("w"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(ran.load(), 0);
  hold.release();
  holder.get(held);
}
