#include "histtune/tuner/compile_pool.hpp"

#include <algorithm>

namespace histtune::tuner {

CompilePool::CompilePool(std::vector<CompileRequest> reqs, int threads, CompileFn how)
    : reqs_(std::move(reqs)), how_(how ? std::move(how) : CompileFn(compile)) {
  promises_.resize(reqs_.size());
  for (auto& p : promises_) futures_.push_back(p.get_future().share());
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n = std::min<std::size_t>(threads > 0 ? threads : hw, reqs_.size());
  for (std::size_t t = 0; t < n; ++t) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  stop_ = true;
  for (auto& w : workers_) w.join();
}

void CompilePool::work() {
  for (std::size_t i = next_++; i < reqs_.size() && !stop_; i = next_++) {
    try {
      promises_[i].set_value(how_(reqs_[i]));
    } catch (...) {
      promises_[i].set_exception(std::current_exception());
    }
  }
}

}  // namespace histtune::tuner
