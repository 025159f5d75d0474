// The default plan of `histtune --gpu auto`: every family's plan_problems(), in family order,
// and the budgets a plan's problems tune with.
#include "histtune/family.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

std::vector<Problem> default_plan() {
  // Problems of one sample type and binning share their kernels (the bin count and n are launch
  // arguments), so each group after its first problem mostly reuses compiled kernels; every
  // winner starts the searches of the next ones, its own group's first (tuning_starts).
  std::vector<Problem> plan;
  for (const KernelFamily* f : families())
    for (Problem& p : f->plan_problems()) plan.push_back(std::move(p));
  return plan;
}

bool default_partitions(const Problem& p, const DeviceInfo& d) {
  return p.family == Family::hist1d && hist1d::validate(p).empty() &&
         hist1d::default_for(p, d).storage == Storage::partitioned;
}

std::size_t plan_search_budget(const Problem& p, const DeviceInfo& d) {
  return default_partitions(p, d) ? kPartitionedPlanBudget : kPlanBudget;
}

void plan_phase_budgets(TuneOptions& opt, const Problem& p, const DeviceInfo& d) {
  if (!default_partitions(p, d)) return;
  for (std::size_t* b : {&opt.polish_budget, &opt.distribution_budget, &opt.second_search_budget,
                         &opt.worst_case_budget})
    *b /= kPartitionedShare;
}

}  // namespace histtune::tuner
