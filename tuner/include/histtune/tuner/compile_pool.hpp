// Compiles NVRTC requests on worker threads, in the order they are added, so that the thread that
// measures on the GPU finds each kernel ready (or nearly) when it reaches it. Requests may be
// added while the pool works (a guided search announces its next points as it goes); a request
// asked for before a worker took it is compiled by the asking thread at once, so it never waits
// behind speculative work.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "histtune/jit.hpp"

namespace histtune::tuner {

class CompilePool {
 public:
  // threads <= 0: one per hardware thread. `how` produces one CUBIN (default: NVRTC; the
  // tuner passes KernelCache::compiled, which consults the persistent store first).
  using CompileFn = std::function<CompiledKernel(const CompileRequest&)>;
  explicit CompilePool(int threads, CompileFn how = {});
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
  void run(Job& job);

  CompileFn how_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;            // references stay valid as jobs are added
  std::deque<std::size_t> pending_;  // indices not taken yet, in order
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace histtune::tuner
