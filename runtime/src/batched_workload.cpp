// What the batched-rows families are tuned and benchmarked on (workload.hpp): issue 25's
// batched targets, dense ([4096, 65536] u8, [65536, 1024] f32) and segmented (10^5 segments).
#include "histtune/batched.hpp"

namespace histtune::batched {
namespace {

// 10^5 segments of a mean of 1024 samples (the tuner draws their lengths, tuner/inputs.hpp).
constexpr std::uint64_t kSegments = 100000;

Problem tokens() { return batched_problem(SampleType::u8, Binning::direct, 256, 4096, 65536); }

Problem activations() {
  Problem p = batched_problem(SampleType::f32, Binning::even, 64, 65536, 1024);
  p.lower = -4;
  p.upper = 4;
  return p;
}

Problem segments() {
  return segmented_problem(SampleType::u32, Binning::direct, 256, kSegments, kSegments * 1024);
}

BenchRow target(std::string id, Problem p, double floor_pct) {
  return row_without_cub(std::move(id), std::move(p),
                         ">= " + std::to_string(static_cast<int>(floor_pct)) + "% of floor",
                         floor_pct, "no CUB peer: CUB has no histogram per row");
}

}  // namespace

std::vector<Problem> plan_problems(Family f) {
  if (f == Family::segmented) return {segments()};
  return {tokens(), activations()};
}

std::vector<BenchRow> bench_rows(Family f) {
  if (f == Family::segmented) return {target("segmented-u32-256-1e5x1024", segments(), 50)};
  return {target("batched-u8-256-4096x65536", tokens(), 80),
          target("batched-f32-even64-65536x1024", activations(), 50)};
}

}  // namespace histtune::batched
