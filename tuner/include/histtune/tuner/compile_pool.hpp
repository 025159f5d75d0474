// Compiles NVRTC requests on worker threads, in the order they are added, so that the thread that
// measures on the GPU finds each kernel ready (or nearly) when it reaches it. Requests may be
// added while the pool works (a guided search announces its next points as it goes); a request
// asked for before a worker took it is compiled by the asking thread at once (in its pool's turn
// for a slot, where slots are shared), so it never waits behind speculative work.
//
// Pools of problems tuned at once may share one CompileSlots: then every pool has a worker per
// slot and the slots bound how many compile at once, served in turns between the pools that
// wait, so a problem tuned alone (the last of a plan) compiles on every core.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "histtune/jit.hpp"

namespace histtune::tuner {

// A fair counting semaphore: at most `count` compiles at once; a freed slot goes to the lane
// (pool) that has a compile waiting and has been served the fewest seconds of compiling, the
// lane after the last one served on a tie. Fair in time, not in compiles: a lane of 0.9 s
// partitioned kernels no longer gets six times the cores of a lane of 0.15 s ones, which on a
// 16-core host held every core for the plan's first minute while the GPU, with few kernels to
// time, was mostly idle (docs/tuning.md, "A cold plan"). A new lane starts level with the least
// served lane, not at zero, so that it shares the cores rather than taking them all. Each lane
// waits on its own condition, and a freed slot wakes one waiter of the lane whose turn it is:
// waking every waiter of every pool (up to 16 a pool, 8 pools) cost about 65 context switches a
// compile.
class CompileSlots {
 public:
  explicit CompileSlots(unsigned count);  // 0: one per hardware thread
  CompileSlots(const CompileSlots&) = delete;
  CompileSlots& operator=(const CompileSlots&) = delete;

  // Blocks until `lane` is given a slot (true), or until `stop` is set and wake() called (false).
  bool acquire(std::size_t lane, const std::atomic<bool>& stop);
  // Frees the slot `lane` held, charging it `seconds` of compiling.
  void release(std::size_t lane, double seconds);
  void wake();  // after setting a waiter's stop flag
  unsigned count() const { return count_; }
  std::size_t new_lane();
  void retire_lane(std::size_t lane);  // once nothing of it waits (its pool's workers joined)
  double served(std::size_t lane) const;  // the seconds `lane` has been charged (from its start level)

 private:
  struct Lane {
    unsigned waiting = 0;  // compiles waiting for a slot
    double served = 0;     // seconds of compiling charged, from the level it started at
    std::condition_variable turn;
  };
  // The lane whose turn it is (0: none waits); requires mutex_.
  std::size_t next_lane() const;
  // Wakes a waiter of the lane whose turn it is, where a slot is free; requires mutex_.
  void pass_turn();

  const unsigned count_;
  mutable std::mutex mutex_;
  unsigned free_;
  std::map<std::size_t, Lane> lanes_;  // by id, from 1
  std::size_t last_ = 0;               // the lane served last
  std::size_t made_ = 0;               // lanes made
};

class CompilePool {
 public:
  // threads <= 0: one per hardware thread. `how` produces one CUBIN (default: NVRTC; the
  // tuner passes KernelCache::compiled, which consults the persistent store first).
  using CompileFn = std::function<CompiledKernel(const CompileRequest&)>;
  // With `slots`, `threads` is ignored: a worker per slot, the slots shared with other pools.
  explicit CompilePool(int threads, CompileFn how = {}, CompileSlots* slots = nullptr);
  // A pool that starts on `reqs` at once (request i is index i).
  CompilePool(std::vector<CompileRequest> reqs, int threads, CompileFn how = {});
  ~CompilePool();  // finishes the compiles in progress, abandons the rest
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Queues a request behind the others; returns its index.
  std::size_t add(const CompileRequest& req);
  // Blocks until request i is compiled (compiling it here if no worker has started it);
  // rethrows its compile error.
  const CompiledKernel& get(std::size_t i);
  std::size_t size() const;

 private:
  struct Job {
    CompileRequest req;
    std::promise<CompiledKernel> promise;
    std::shared_future<CompiledKernel> future;
    bool taken = false;
  };
  void work();
  void run(Job& job);  // in a slot, where the pool shares them

  CompileFn how_;
  CompileSlots* slots_;
  std::size_t lane_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;            // references stay valid as jobs are added
  std::deque<std::size_t> pending_;  // indices not taken yet, in order
  std::atomic<bool> stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace histtune::tuner
