// What the joint family is tuned and benchmarked on (workload.hpp): issue 26's joint targets,
// f32 pairs into 64 x 64 bins and u8 pairs into 256 x 256 (a joint image histogram for mutual
// information) over 2^26 pairs, and f32 triples into 32^3 bins over 2^24.
#include "histtune/joint.hpp"

namespace histtune::joint {
namespace {

// Each dimension's bounds are [0, bins), as the 1D plan's: the tuner draws the values over them.
Problem even(SampleType t, std::uint32_t dims, std::uint32_t bins, int log2_n) {
  const std::uint32_t each[kMaxJointDims] = {bins, bins, bins, bins};
  return joint_problem(t, Binning::even, dims, each, std::uint64_t{1} << log2_n, 0, bins);
}

BenchRow target(std::string id, Problem p, std::string goal, double floor_pct) {
  return row_without_cub(
      std::move(id), std::move(p), std::move(goal), floor_pct,
      "no CUB peer: CUB has no joint histogram (the Python bench compares cupy.histogramdd)");
}

}  // namespace

std::vector<Problem> plan_problems() {
  return {even(SampleType::f32, 2, 64, 26), even(SampleType::u8, 2, 256, 26),
          even(SampleType::f32, 3, 32, 24)};
}

std::vector<BenchRow> bench_rows() {
  return {target("joint-f32-64x64-2^26", even(SampleType::f32, 2, 64, 26), ">= 60% of floor", 60),
          target("joint-u8-256x256-2^26", even(SampleType::u8, 2, 256, 26), ">= 50% of floor", 50),
          target("joint-f32-32^3-2^24", even(SampleType::f32, 3, 32, 24), ">= 40% of floor", 40)};
}

}  // namespace histtune::joint
