// tune_with: the phases of tuner.hpp in order, each a method of Tuning (tuning.hpp). The GPU
// benches and tune() are in gpu_bench.cpp, the storage side in storage.cpp, the default plan in
// plan.cpp.
#include "histtune/tuner/tuner.hpp"

#include "tuning.hpp"

namespace histtune::tuner {

TuneResult tune_with(const Problem& p, const SearchSpace& space, Bench& bench,
                     const TuneOptions& opt) {
  Tuning tuning(p, space, bench, opt);
  tuning.search();
  tuning.polish();
  tuning.factorial();
  tuning.per_distribution();
  tuning.second_search();
  tuning.worst_case();
  return tuning.decide();
}

}  // namespace histtune::tuner
