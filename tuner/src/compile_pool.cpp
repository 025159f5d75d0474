#include "histtune/tuner/compile_pool.hpp"

#include <algorithm>

namespace histtune::tuner {
namespace {
unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }
}  // namespace

CompileSlots::CompileSlots(unsigned count)
    : count_(count > 0 ? count : hardware_threads()), free_(count_) {}

std::size_t CompileSlots::new_lane() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++lanes_;
}

std::size_t CompileSlots::next_lane() const {
  const auto after = waiting_.upper_bound(last_);
  return after != waiting_.end() ? after->first : waiting_.begin()->first;
}

bool CompileSlots::acquire(std::size_t lane, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  ++waiting_[lane];
  freed_.wait(lock, [&] { return stop || (free_ > 0 && next_lane() == lane); });
  if (--waiting_[lane] == 0) waiting_.erase(lane);
  if (stop) {
    freed_.notify_all();  // the turn may have been this lane's
    return false;
  }
  --free_;
  last_ = lane;
  freed_.notify_all();  // another slot may be free for the next lane
  return true;
}

void CompileSlots::release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++free_;
  }
  freed_.notify_all();
}

void CompileSlots::wake() {
  { std::lock_guard<std::mutex> lock(mutex_); }  // a waiter checks its flag under the mutex
  freed_.notify_all();
}

CompilePool::CompilePool(int threads, CompileFn how, CompileSlots* slots)
    : how_(how ? std::move(how) : CompileFn(compile)), slots_(slots) {
  unsigned n = threads > 0 ? static_cast<unsigned>(threads) : hardware_threads();
  if (slots_) {
    n = slots_->count();
    lane_ = slots_->new_lane();
  }
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
  if (slots_) slots_->wake();
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
  // Stopping while waiting for a slot abandons the job: only the pool's destructor stops it.
  if (slots_ && !slots_->acquire(lane_, stop_)) return;
  try {
    job.promise.set_value(how_(job.req));
  } catch (...) {
    job.promise.set_exception(std::current_exception());
  }
  if (slots_) slots_->release();
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
