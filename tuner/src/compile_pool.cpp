#include "histtune/tuner/compile_pool.hpp"

#include <algorithm>

namespace histtune::tuner {

CompilePool::CompilePool(int threads, CompileFn how)
    : how_(how ? std::move(how) : CompileFn(compile)) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = threads > 0 ? static_cast<unsigned>(threads) : hw;
  for (unsigned t = 0; t < n; ++t) workers_.emplace_back([this] { work(); });
}

CompilePool::CompilePool(std::vector<CompileRequest> reqs, int threads, CompileFn how)
    : CompilePool(threads, std::move(how)) {
  for (auto& r : reqs) add(r);
}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

std::size_t CompilePool::add(const CompileRequest& req) {
  std::size_t i;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    i = jobs_.size();
    Job& job = jobs_.emplace_back();
    job.req = req;
    job.future = job.promise.get_future().share();
    pending_.push_back(i);
  }
  wake_.notify_one();
  return i;
}

std::size_t CompilePool::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size();
}

void CompilePool::run(Job& job) {
  try {
    job.promise.set_value(how_(job.req));
  } catch (...) {
    job.promise.set_exception(std::current_exception());
  }
}

const CompiledKernel& CompilePool::get(std::size_t i) {
  Job* job = nullptr;
  bool mine = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job = &jobs_.at(i);
    if (!job->taken) {  // nobody started it: jump the queue, compile it on this thread
      job->taken = mine = true;
      pending_.erase(std::find(pending_.begin(), pending_.end(), i));
    }
  }
  if (mine) run(*job);
  return job->future.get();
}

void CompilePool::work() {
  while (true) {
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || !pending_.empty(); });
      if (stop_) return;
      job = &jobs_[pending_.front()];
      pending_.pop_front();
      job->taken = true;
    }
    run(*job);
  }
}

}  // namespace histtune::tuner
