#include "gpu_models.hpp"

#include <algorithm>
#include <iterator>

#include "common.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::cli {

std::vector<ModelGroup> group_by_model(const std::vector<DeviceInfo>& devices) {
  std::vector<DeviceInfo> sorted = devices;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const DeviceInfo& a, const DeviceInfo& b) { return a.ordinal < b.ordinal; });
  std::vector<ModelGroup> groups;
  for (const DeviceInfo& d : sorted) {
    const db::DeviceRow row = d.row();
    auto it = std::find_if(groups.begin(), groups.end(), [&](const ModelGroup& g) {
      return db::same_model(g.devices.front().row(), row);
    });
    if (it == groups.end())
      groups.push_back({{d}});
    else
      it->devices.push_back(d);
  }
  return groups;
}

std::string model_text(const DeviceInfo& d) {
  return printf_text("%s (sm_%d, %d SMs, %.1f GiB)", d.name.c_str(), d.arch(), d.sm_count,
                     static_cast<double>(d.memory_bytes) / (1024.0 * 1024 * 1024));
}

PlanQueue::PlanQueue(std::size_t size) : order_(size), size_(size) {
  for (std::size_t i = 0; i < size; ++i) order_[i] = i;
}

std::optional<std::size_t> PlanQueue::next() {
  // fetch_add may run past size_ when boards ask after the end; those indices are never used.
  const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
  if (i >= size_) return std::nullopt;
  return order_[i];
}

std::size_t PlanQueue::taken() const {
  return std::min(next_.load(std::memory_order_relaxed), size_);
}

std::optional<db::WinnerRow> model_winner(const db::Database& database, const DeviceInfo& d,
                                          const Problem& p) {
  const std::string hash = tuner::template_hash_of(p);
  if (auto own = database.winner(d.uuid, p.key()); own && own->template_hash == hash) return own;
  for (db::WinnerRow& w : database.winners_same_model(d.row(), p.key()))
    if (w.template_hash == hash) return std::move(w);
  return std::nullopt;
}

std::vector<db::WinnerRow> model_start_rows(const db::Database& database, const DeviceInfo& d) {
  std::vector<std::string> boards{d.uuid};
  for (const db::DeviceRow& other : database.devices())
    if (other.uuid != d.uuid && db::same_model(other, d.row())) boards.push_back(other.uuid);
  std::vector<db::WinnerRow> rows;
  for (const std::string& uuid : boards) {
    std::vector<db::WinnerRow> of = tuner::start_rows(database, uuid);
    rows.insert(rows.end(), std::make_move_iterator(of.begin()), std::make_move_iterator(of.end()));
  }
  return rows;
}

namespace {
bool slow_to_compile(const Problem& p) { return p.num_bins >= (1u << 18); }
}  // namespace

std::vector<std::size_t> start_order(const std::vector<Problem>& plan) {
  std::vector<std::size_t> slow, quick;  // slow: the ones that hold the cores longest
  for (std::size_t i = 0; i < plan.size(); ++i)
    (slow_to_compile(plan[i]) || plan[i].family != Family::hist1d ? slow : quick).push_back(i);
  std::stable_sort(slow.begin(), slow.end(), [&](std::size_t a, std::size_t b) {
    const Problem &p = plan[a], &q = plan[b];
    if (slow_to_compile(p) != slow_to_compile(q)) return slow_to_compile(p);
    return p.family > q.family;
  });
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < std::max(slow.size(), quick.size()); ++k) {
    if (k < slow.size()) order.push_back(slow[k]);
    if (k < quick.size()) order.push_back(quick[k]);
  }
  return order;
}

std::unique_ptr<PlanQueue> plan_queue(const std::vector<Problem>& plan, bool pending) {
  return pending ? std::make_unique<PlanQueue>(plan.size()) : std::make_unique<PlanQueue>(start_order(plan));
}

}  // namespace histtune::cli
