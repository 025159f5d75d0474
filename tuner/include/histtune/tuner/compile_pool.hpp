// Compiles a list of NVRTC requests on worker threads, in list order, so that the thread that
// measures on the GPU finds each kernel ready (or nearly) when it reaches it.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <thread>
#include <vector>

#include "histtune/jit.hpp"

namespace histtune::tuner {

class CompilePool {
 public:
  // threads <= 0: one per hardware thread. `how` produces one CUBIN (default: NVRTC; the
  // tuner passes KernelCache::compiled, which consults the persistent store first).
  using CompileFn = std::function<CompiledKernel(const CompileRequest&)>;
  CompilePool(std::vector<CompileRequest> reqs, int threads, CompileFn how = {});
  ~CompilePool();  // finishes the compiles in progress, abandons the rest
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Blocks until request i is compiled; rethrows its compile error.
  const CompiledKernel& get(std::size_t i) const { return futures_[i].get(); }
  std::size_t size() const { return reqs_.size(); }

 private:
  void work();
  std::vector<CompileRequest> reqs_;
  CompileFn how_;
  std::vector<std::promise<CompiledKernel>> promises_;
  std::vector<std::shared_future<CompiledKernel>> futures_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

}  // namespace histtune::tuner
