#include "histtune/tuner/compile_pool.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace histtune::tuner {
namespace {
unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }
}  // namespace

CompileSlots::CompileSlots(unsigned count)
    : count_(count > 0 ? count : hardware_threads()), free_(count_) {}

std::size_t CompileSlots::new_lane() {
  std::lock_guard<std::mutex> lock(mutex_);
  double level = lanes_.empty() ? 0 : std::numeric_limits<double>::infinity();
  for (const auto& [id, l] : lanes_) level = std::min(level, l.served);
  lanes_.try_emplace(++made_).first->second.served = level;
  return made_;
}

void CompileSlots::retire_lane(std::size_t lane) {
  std::lock_guard<std::mutex> lock(mutex_);
  lanes_.erase(lane);
}

double CompileSlots::served(std::size_t lane) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lanes_.at(lane).served;
}

std::size_t CompileSlots::next_lane() const {
  // The least served lane with a waiter; on a tie, the first after last_, else the first.
  std::size_t best = 0;
  bool best_after = false;
  double least = 0;
  for (const auto& [id, l] : lanes_) {
    if (l.waiting == 0) continue;
    const bool after = id > last_;
    if (best == 0 || l.served < least || (l.served == least && after && !best_after)) {
      best = id;
      least = l.served;
      best_after = after;
    }
  }
  return best;
}

void CompileSlots::pass_turn() {
  if (free_ == 0) return;
  if (const std::size_t next = next_lane(); next != 0) lanes_.at(next).turn.notify_one();
}

bool CompileSlots::acquire(std::size_t lane, const std::atomic<bool>& stop) {
  std::unique_lock<std::mutex> lock(mutex_);
  Lane& mine = lanes_.at(lane);
  ++mine.waiting;
  mine.turn.wait(lock, [&] { return stop || (free_ > 0 && next_lane() == lane); });
  --mine.waiting;
  if (!stop) {
    --free_;
    last_ = lane;
  }
  pass_turn();  // a slot still free goes on to the next lane (or, stopped, the turn was ours)
  return !stop;
}

void CompileSlots::release(std::size_t lane, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++free_;
  if (const auto it = lanes_.find(lane); it != lanes_.end()) it->second.served += seconds;
  pass_turn();
}

void CompileSlots::wake() {
  std::lock_guard<std::mutex> lock(mutex_);  // a waiter checks its flag under the mutex
  for (auto& [id, l] : lanes_) l.turn.notify_all();
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
  if (slots_) slots_->retire_lane(lane_);
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
  const auto t0 = std::chrono::steady_clock::now();
  try {
    job.promise.set_value(how_(job.req));
  } catch (...) {
    job.promise.set_exception(std::current_exception());
  }
  if (slots_)
    slots_->release(lane_, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
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
