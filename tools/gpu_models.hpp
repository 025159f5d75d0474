// The GPUs of a machine by model, for `histtune tune --gpu all`: the boards of one model share a
// plan through one queue (each takes the next problem when it is free, so a faster board tunes
// more), a winner tuned on one serves them all (lookup level `same_model`), and boards of
// different models each tune the whole plan.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/problem.hpp"

namespace histtune::cli {

// The boards of one model (db::same_model), by ordinal.
struct ModelGroup {
  std::vector<DeviceInfo> devices;
};

// The devices grouped by model, the groups in the order of their first board's ordinal; every
// device in exactly one group.
std::vector<ModelGroup> group_by_model(const std::vector<DeviceInfo>& devices);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 79.2 GiB)": a model for people.
std::string model_text(const DeviceInfo& d);

// The problems of a plan, handed out one at a time to the boards of a model: next() is the index
// of the next problem not yet taken, or nullopt when every one is; finish_one() counts one done
// (the ETA's). Safe from any thread; each index is handed out once.
class PlanQueue {
 public:
  explicit PlanQueue(std::size_t size);  // the plan's order
  explicit PlanQueue(std::vector<std::size_t> order) : order_(std::move(order)), size_(order_.size()) {}
  PlanQueue(const PlanQueue&) = delete;
  PlanQueue& operator=(const PlanQueue&) = delete;

  std::optional<std::size_t> next();
  std::size_t size() const { return size_; }
  // How many were handed out (at most size()).
  std::size_t taken() const;
  void finish_one() { finished_.fetch_add(1, std::memory_order_relaxed); }
  std::size_t finished() const { return finished_.load(std::memory_order_relaxed); }

 private:
  std::vector<std::size_t> order_;  // the problems' indices, in the order they are handed out
  const std::size_t size_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::size_t> finished_{0};
};

// The order problems of `plan` start in: the longest first, so that the plan does not wait for
// them at its end (bins beyond shared memory, whose searches span the partitioned kernels, the
// slowest to compile; then the other families from the plan's last to its first, each in the
// plan's order), taking turns with the 1D problems in the plan's order. Why the turns: with the
// long ones alone at the start, they held all 16 cores of an H100 host for a minute while the
// GPU, with little to time, was 2-40% busy (docs/tuning.md, "A cold plan").
std::vector<std::size_t> start_order(const std::vector<Problem>& plan);

// The queue a plan is tuned from (tune_plan, and each model's share of tune_all): a pending plan
// (tune --pending) in its own order, most-called first; any other in start_order's.
std::unique_ptr<PlanQueue> plan_queue(const std::vector<Problem>& plan, bool pending);

// The stored winner that serves p on d's model with the current kernel template: d's own, else
// that of another board of its model (the first by UUID); nullopt when there is none.
std::optional<db::WinnerRow> model_winner(const db::Database& database, const DeviceInfo& d,
                                          const Problem& p);

// The winners (each robust winner followed by its per-distribution ones) of every board of d's
// model the database holds, d's own first: the starts of d's searches (tuner::tuning_starts), so
// that a problem tuned on the other board of the model starts this board's searches too.
std::vector<db::WinnerRow> model_start_rows(const db::Database& database, const DeviceInfo& d);

}  // namespace histtune::cli
