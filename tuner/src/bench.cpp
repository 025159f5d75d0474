#include "histtune/tuner/bench.hpp"

#include "histtune/family.hpp"

namespace histtune::tuner {

std::vector<BenchRow> bench_matrix() {
  std::vector<BenchRow> m;
  for (const KernelFamily* f : families())
    for (BenchRow& r : f->bench_rows()) m.push_back(std::move(r));
  return m;
}

}  // namespace histtune::tuner
