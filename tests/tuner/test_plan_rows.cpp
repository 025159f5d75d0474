// The default plan's problems and the bench matrix's rows, pinned: each family declares its own
// (plan_problems() and bench_rows() in its traits) and the tuner concatenates them in family
// order; the lists below are those of before that move, so a family that loses, reorders or
// changes a row fails here. Rows added since, for issue 27: u8 even 10 and 64 bins at 2^24 and
// 2^26, i32 MoE counts and i32 over 128K and 1M bins in the plan; in the bench, MoE counts in a
// graph, i32 over 128K and 1M bins, u8 even 10 and 64 bins, and the [1048576, 512] target of
// 0.190 ms; for issue 25, the batched and segmented families' targets in both, and the new sample
// types' rows in both; for issue 26, the weighted families' (fast and deterministic, f32 and f64
// weights) in the plan and their two targets in the bench; and the joint family's three problems
// (f32 64 x 64 and u8 256 x 256 pairs, f32 32^3 triples) in both. i8's plan problem has since
// taken its bench row's 2^28 samples (its 2^26 winner ran that row slower than the default).
#include <gtest/gtest.h>

#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "histtune/family.hpp"
#include "histtune/tuner/bench.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {
namespace {

std::string bound(double x) {
  std::ostringstream s;
  s << std::setprecision(17) << x;
  return s.str();
}

// One line per problem: its description, bounds and template.
std::vector<std::string> plan_lines() {
  std::vector<std::string> out;
  for (const Problem& p : default_plan())
    out.push_back(p.describe() + " | " + bound(p.lower) + " " + bound(p.upper) + " | " +
                  family_of(p).template_name());
  return out;
}

std::string optional_text(const std::optional<double>& x) { return x ? bound(*x) : "-"; }

std::vector<std::string> bench_lines() {
  std::vector<std::string> out;
  for (const BenchRow& r : bench_matrix())
    out.push_back(r.id + " | " + r.problem.describe() + " | " + to_string(r.dist) + " | " +
                  r.target + " | " + optional_text(r.min_floor_pct) + " " +
                  optional_text(r.max_us) + " " + optional_text(r.min_cub_speedup) + " | " +
                  r.unsupported + " | " + r.skip_cub +
                  (r.graph_calls ? " | graph of " + std::to_string(r.graph_calls) : ""));
  return out;
}

TEST(DefaultPlan, HoldsTheProblemsOfBeforeInTheirOrder) {
  // describe() | lower upper | template: the 1D family's rows, then the multi-channel ones.
  const std::vector<std::string> expected = {
      "hist1d u8 direct bins=256 n=2^16 | 0 0 | hist1d.cuh",
      "hist1d u8 direct bins=256 n=2^20 | 0 0 | hist1d.cuh",
      "hist1d u8 direct bins=256 n=2^24 | 0 0 | hist1d.cuh",
      "hist1d u8 direct bins=256 n=2^28 | 0 0 | hist1d.cuh",
      "hist1d u8 direct bins=64 n=2^24 | 0 0 | hist1d.cuh",
      "hist1d u8 even bins=64 n=2^24 [0, 256) | 0 256 | hist1d.cuh",
      "hist1d u8 even bins=64 n=2^26 [0, 256) | 0 256 | hist1d.cuh",
      "hist1d u8 even bins=10 n=2^24 [0, 256) | 0 256 | hist1d.cuh",
      "hist1d u8 even bins=10 n=2^26 [0, 256) | 0 256 | hist1d.cuh",
      "hist1d u16 direct bins=1024 n=2^20 | 0 0 | hist1d.cuh",
      "hist1d u16 direct bins=1024 n=2^24 | 0 0 | hist1d.cuh",
      "hist1d u16 direct bins=4096 n=2^24 | 0 0 | hist1d.cuh",
      "hist1d u16 direct bins=65536 n=2^24 | 0 0 | hist1d.cuh",
      "hist1d u16 even bins=256 n=2^26 [0, 65536) | 0 65536 | hist1d.cuh",
      "hist1d u32 direct bins=256 n=2^20 | 0 0 | hist1d.cuh",
      "hist1d u32 direct bins=256 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d u32 direct bins=4096 n=2^22 | 0 0 | hist1d.cuh",
      "hist1d u32 direct bins=4096 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d u32 direct bins=65536 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d u32 even bins=1024 n=2^24 [0, 1.04858e+06) | 0 1048576 | hist1d.cuh",
      "hist1d i32 direct bins=4096 n=2^22 | 0 0 | hist1d.cuh",
      "hist1d i32 even bins=256 n=2^24 [-1000, 1000) | -1000 1000 | hist1d.cuh",
      "hist1d i32 even bins=65536 n=2^26 [-1.04858e+06, 1.04858e+06) | -1048576 1048576 | hist1d.cuh",
      "hist1d i32 direct bins=64 n=2^12 | 0 0 | hist1d.cuh",
      "hist1d i32 direct bins=256 n=2^12 | 0 0 | hist1d.cuh",
      "hist1d i32 direct bins=256 n=2^16 | 0 0 | hist1d.cuh",
      "hist1d i32 direct bins=131072 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d i32 direct bins=1048576 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d f32 even bins=64 n=2^24 [0, 1) | 0 1 | hist1d.cuh",
      "hist1d f32 even bins=256 n=2^16 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=256 n=2^20 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=256 n=2^24 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=256 n=2^28 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=1024 n=2^26 [0, 1) | 0 1 | hist1d.cuh",
      "hist1d f32 even bins=4096 n=2^24 [-1, 1) | -1 1 | hist1d.cuh",
      "hist1d f32 even bins=65536 n=2^24 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=65536 n=2^20 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=1048576 n=2^24 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 even bins=4194304 n=2^26 [0, 100) | 0 100 | hist1d.cuh",
      "hist1d f32 range bins=1024 n=2^24 | 0 100 | hist1d.cuh",
      "hist1d i64 direct bins=256 n=2^26 | 0 0 | hist1d.cuh",
      "hist1d f16 even bins=256 n=2^26 [0, 1) | 0 1 | hist1d.cuh",
      "hist1d bf16 even bins=256 n=2^26 [0, 1) | 0 1 | hist1d.cuh",
      "hist1d i8 even bins=256 n=2^28 [-128, 128) | -128 128 | hist1d.cuh",
      "hist1d i16 even bins=256 n=2^26 [-32768, 32768) | -32768 32768 | hist1d.cuh",
      "multichannel u8 direct bins=256 n=33177600 channels=3/4 | 0 0 | multichannel.cuh",
      "multichannel u8 direct bins=256 n=2^20 channels=512/512 | 0 0 | multichannel.cuh",
      "multichannel u16 direct bins=4096 n=8294400 channels=4/4 | 0 0 | multichannel.cuh",
      "batched u8 direct bins=256 n=2^16 rows=4096 | 0 0 | batched.cuh",
      "batched f32 even bins=64 n=2^10 rows=65536 [-4, 4) | -4 4 | batched.cuh",
      "segmented u32 direct bins=256 n=102400000 rows=100000 | 0 0 | batched.cuh",
      "weighted f32 even bins=256 n=2^26 weights=f32 [0, 100) | 0 100 | weighted.cuh",
      "weighted f32 even bins=256 n=2^24 weights=f64 [0, 100) | 0 100 | weighted.cuh",
      "weighted f32 even bins=64 n=2^10 weights=f32 rows=65536 [-4, 4) | -4 4 | weighted.cuh",
      "weighted u8 direct bins=256 n=2^24 weights=f32 channels=3/4 | 0 0 | weighted.cuh",
      "weighted_det f32 even bins=256 n=2^26 weights=f32 [0, 100) | 0 100 | weighted.cuh",
      "weighted_det f32 even bins=256 n=2^24 weights=f64 [0, 100) | 0 100 | weighted.cuh",
      "weighted_det f32 even bins=64 n=2^10 weights=f32 rows=65536 [-4, 4) | -4 4 | weighted.cuh",
      "weighted_det u8 direct bins=256 n=2^24 weights=f32 channels=3/4 | 0 0 | weighted.cuh",
      "joint f32 even bins=4096 n=2^26 dims=2 (64x64) | 0 64 | joint.cuh",
      "joint u8 even bins=65536 n=2^26 dims=2 (256x256) | 0 256 | joint.cuh",
      "joint f32 even bins=32768 n=2^24 dims=3 (32x32x32) | 0 32 | joint.cuh",
  };
  EXPECT_EQ(plan_lines(), expected);
}

TEST(BenchMatrix, HoldsTheRowsOfBeforeInTheirOrder) {
  // id | problem | distribution | target | min % of floor, max us, min x CUB | unsupported |
  // why CUB is skipped
  const std::vector<std::string> expected = {
      "u8-256-2^28-uniform | hist1d u8 direct bins=256 n=2^28 | uniform | >= 85% of floor | 85 - - |  | ",
      "u8-256-2^28-skewed | hist1d u8 direct bins=256 n=2^28 | skewed | >= 92% of floor | 92 - - |  | ",
      "u8-256-2^28-constant | hist1d u8 direct bins=256 n=2^28 | constant | >= 92% of floor | 92 - - |  | ",
      "u8-256-2^28-runs | hist1d u8 direct bins=256 n=2^28 | runs | >= 92% of floor | 92 - - |  | ",
      "u8-256-2^30-uniform | hist1d u8 direct bins=256 n=2^30 | uniform | >= 85% of floor | 85 - - |  | ",
      "u8-256-2^30-skewed | hist1d u8 direct bins=256 n=2^30 | skewed | never slower than CUB | - - - |  | ",
      "u8-256-2^30-constant | hist1d u8 direct bins=256 n=2^30 | constant | never slower than CUB | - - - |  | ",
      "u8-256-2^30-runs | hist1d u8 direct bins=256 n=2^30 | runs | never slower than CUB | - - - |  | ",
      "u8-256-2^16-uniform | hist1d u8 direct bins=256 n=2^16 | uniform | <= 5 us per call | - 5 - |  | ",
      "u8-256-2^20-uniform | hist1d u8 direct bins=256 n=2^20 | uniform | <= 6 us per call | - 6 - |  | ",
      "u8-256-2^24-uniform | hist1d u8 direct bins=256 n=2^24 | uniform | <= 10 us per call | - 10 - |  | ",
      "u32-256-2^26-uniform | hist1d u32 direct bins=256 n=2^26 | uniform | >= 85% of floor | 85 - - |  | ",
      "u32-256-2^26-skewed | hist1d u32 direct bins=256 n=2^26 | skewed | >= 85% of floor | 85 - - |  | ",
      "u32-256-2^26-constant | hist1d u32 direct bins=256 n=2^26 | constant | >= 85% of floor | 85 - - |  | ",
      "u32-4096-2^26-uniform | hist1d u32 direct bins=4096 n=2^26 | uniform | >= 85% of floor | 85 - - |  | ",
      "u32-4096-2^26-skewed | hist1d u32 direct bins=4096 n=2^26 | skewed | >= 85% of floor | 85 - - |  | ",
      "u32-4096-2^26-constant | hist1d u32 direct bins=4096 n=2^26 | constant | >= 85% of floor | 85 - - |  | ",
      "u16-1024-2^27-uniform | hist1d u16 direct bins=1024 n=2^27 | uniform | >= 85% of floor | 85 - - |  | ",
      "u32-65536-2^26-uniform | hist1d u32 direct bins=65536 n=2^26 | uniform | >= 50% of floor | 50 - - |  | ",
      "u32-65536-2^26-skewed | hist1d u32 direct bins=65536 n=2^26 | skewed | >= 50% of floor | 50 - - |  | ",
      "u32-65536-2^26-constant | hist1d u32 direct bins=65536 n=2^26 | constant | >= 50% of floor | 50 - - |  | ",
      "moe-i32-64-2^12-graph | hist1d i32 direct bins=64 n=2^12 | uniform | <= 3 us per call in a graph | - 3 - |  |  | graph of 100",
      "moe-i32-64-2^16-graph | hist1d i32 direct bins=64 n=2^16 | uniform | <= 3 us per call in a graph | - 3 - |  |  | graph of 100",
      "moe-i32-256-2^12-graph | hist1d i32 direct bins=256 n=2^12 | uniform | <= 3 us per call in a graph | - 3 - |  |  | graph of 100",
      "moe-i32-256-2^16-graph | hist1d i32 direct bins=256 n=2^16 | uniform | <= 3 us per call in a graph | - 3 - |  |  | graph of 100",
      "i32-131072-2^26-uniform | hist1d i32 direct bins=131072 n=2^26 | uniform | >= 50% of floor | 50 - - |  | ",
      "i32-1048576-2^26-uniform | hist1d i32 direct bins=1048576 n=2^26 | uniform | >= 25% of floor | 25 - - |  | ",
      "f32-n/16-2^24-uniform | hist1d f32 even bins=1048576 n=2^24 [0, 100) | uniform | >= 30% of floor, >= 5x CUB | 30 - 5 |  | ",
      "f32-n/16-2^26-uniform | hist1d f32 even bins=4194304 n=2^26 [0, 100) | uniform | >= 25% of floor (CUB fails) | 25 - - |  | not run: CUB faults with an illegal memory access at 4M bins",
      "u8-even-10-2^24-uniform | hist1d u8 even bins=10 n=2^24 [0, 256) | uniform | >= 1.2x CUB | - - 1.2 |  | ",
      "u8-even-10-2^26-uniform | hist1d u8 even bins=10 n=2^26 [0, 256) | uniform | >= 1.2x CUB | - - 1.2 |  | ",
      "u8-even-64-2^24-uniform | hist1d u8 even bins=64 n=2^24 [0, 256) | uniform | >= 1.2x CUB | - - 1.2 |  | ",
      "u8-even-64-2^26-uniform | hist1d u8 even bins=64 n=2^26 [0, 256) | uniform | >= 1.2x CUB | - - 1.2 |  | ",
      "i64-256-2^26-uniform | hist1d i64 direct bins=256 n=2^26 | uniform | >= 85% of floor | 85 - - |  | ",
      "f16-even-256-2^28-uniform | hist1d f16 even bins=256 n=2^28 [0, 1) | uniform | >= 85% of floor, faster than CUB | 85 - 1 |  | ",
      "bf16-even-256-2^28-uniform | hist1d bf16 even bins=256 n=2^28 [0, 1) | uniform | >= 85% of floor, faster than CUB | 85 - 1 |  | ",
      "i8-even-256-2^28-uniform | hist1d i8 even bins=256 n=2^28 [-128, 128) | uniform | >= 85% of floor | 85 - - |  | not run: CUB counts every sample in bin 0 over the whole range (NVIDIA/cccl#10975)",
      "i16-even-256-2^28-uniform | hist1d i16 even bins=256 n=2^28 [-32768, 32768) | uniform | >= 85% of floor | 85 - - |  | not run: CUB counts every sample in bin 0 over the whole range (NVIDIA/cccl#10975)",
      "rgba-u8-7680x4320-3of4 | multichannel u8 direct bins=256 n=33177600 channels=3/4 | uniform | >= 85% of floor | 85 - - |  | ",
      "multichannel-1048576x512-u8-256 | multichannel u8 direct bins=256 n=2^20 channels=512/512 | uniform | <= 0.190 ms | - 190 - |  | ",
      "multichannel-u16-1048576x17-4096 | multichannel u16 direct bins=4096 n=2^20 channels=17/17 | uniform | runs, exact | - - - |  | ",
      "multichannel-u16-4194304x4-16384 | multichannel u16 direct bins=16384 n=2^22 channels=4/4 | uniform | >= 1.5x faster than CUB | - - 1.5 |  | ",
      "batched-u8-256-4096x65536 | batched u8 direct bins=256 n=2^16 rows=4096 | uniform | >= 80% of floor | 80 - - |  | no CUB peer: CUB has no histogram per row",
      "batched-f32-even64-65536x1024 | batched f32 even bins=64 n=2^10 rows=65536 [-4, 4) | uniform | >= 50% of floor | 50 - - |  | no CUB peer: CUB has no histogram per row",
      "segmented-u32-256-1e5x1024 | segmented u32 direct bins=256 n=102400000 rows=100000 | uniform | >= 50% of floor | 50 - - |  | no CUB peer: CUB has no histogram per row",
      "weighted-f32-f32-even256-2^26 | weighted f32 even bins=256 n=2^26 weights=f32 [0, 100) | uniform | >= 70% of floor (samples + weights) | 70 - - |  | no CUB peer: CUB has no weighted histogram",
      "weighted-rows-f32-f32-even64-65536x1024 | weighted f32 even bins=64 n=2^10 weights=f32 rows=65536 [-4, 4) | uniform | >= 50% of floor (samples + weights), as the unweighted rows | 50 - - |  | no CUB peer: CUB has no weighted histogram",
      "weighted-det-f32-f32-even256-2^26 | weighted_det f32 even bins=256 n=2^26 weights=f32 [0, 100) | uniform | within 1.5x of the fast mode; identical across runs and configurations | - - - |  | no CUB peer: CUB has no weighted histogram",
      "joint-f32-64x64-2^26 | joint f32 even bins=4096 n=2^26 dims=2 (64x64) | uniform | >= 60% of floor | 60 - - |  | no CUB peer: CUB has no joint histogram (the Python bench compares cupy.histogramdd)",
      "joint-u8-256x256-2^26 | joint u8 even bins=65536 n=2^26 dims=2 (256x256) | uniform | >= 50% of floor | 50 - - |  | no CUB peer: CUB has no joint histogram (the Python bench compares cupy.histogramdd)",
      "joint-f32-32^3-2^24 | joint f32 even bins=32768 n=2^24 dims=3 (32x32x32) | uniform | >= 40% of floor | 40 - - |  | no CUB peer: CUB has no joint histogram (the Python bench compares cupy.histogramdd)",
  };
  EXPECT_EQ(bench_lines(), expected);
}

}  // namespace
}  // namespace histtune::tuner
