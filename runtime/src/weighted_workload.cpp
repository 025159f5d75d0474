// What the weighted families are tuned and benchmarked on (workload.hpp): issue 26's weighted
// targets, f32 samples with f32 weights into 256 even bins over 2^26 samples, fast and
// deterministic, and an f64 problem of each; weighted rows (gradient histograms: [65536, 1024]
// f32 values with f32 weights into 64 even bins a row, as the batched family's activations) and
// RGBA pixels with a weight each (3 of 4 u8 channels counted, 2^24 pixels).
#include "histtune/weighted.hpp"

namespace histtune::weighted {
namespace {

Problem even(WeightType w, Family f, int log2_n) {
  return weighted_problem(SampleType::f32, w, Binning::even, 256, std::uint64_t{1} << log2_n,
                          f == Family::weighted_det, 0, 100);
}

Problem gradient_rows(Family f) {
  Problem p = weighted_problem(SampleType::f32, WeightType::f32, Binning::even, 64, 1024,
                               f == Family::weighted_det, -4, 4);
  p.rows = 65536;
  return p;
}

Problem weighted_pixels(Family f) {
  Problem p = weighted_problem(SampleType::u8, WeightType::f32, Binning::direct, 256,
                               std::uint64_t{1} << 24, f == Family::weighted_det);
  p.channels = 4;
  p.active_channels = 3;
  return p;
}

BenchRow target(std::string id, Problem p, std::string goal, std::optional<double> floor_pct) {
  return row_without_cub(std::move(id), std::move(p), std::move(goal), floor_pct,
                         "no CUB peer: CUB has no weighted histogram");
}

}  // namespace

std::vector<Problem> plan_problems(Family f) {
  return {even(WeightType::f32, f, 26), even(WeightType::f64, f, 24), gradient_rows(f),
          weighted_pixels(f)};
}

std::vector<BenchRow> bench_rows(Family f) {
  if (f == Family::weighted_det) {
    // The caller gives the bound (the tuner's weights are within 4): no pass over the weights
    // to measure it, which would read them a second time.
    Problem p = even(WeightType::f32, f, 26);
    p.weight_bound = 4;
    return {target("weighted-det-f32-f32-even256-2^26", p,
                   "within 1.5x of the fast mode; identical across runs and configurations",
                   std::nullopt)};
  }
  return {target("weighted-f32-f32-even256-2^26", even(WeightType::f32, f, 26),
                 ">= 70% of floor (samples + weights)", 70),
          target("weighted-rows-f32-f32-even64-65536x1024", gradient_rows(f),
                 ">= 50% of floor (samples + weights), as the unweighted rows", 50)};
}

}  // namespace histtune::weighted
