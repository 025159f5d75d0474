// What the 1D family is tuned and benchmarked on (workload.hpp): its problems of the default
// plan and its rows of the bench matrix.
#include "histtune/hist1d.hpp"

namespace histtune::hist1d {

std::vector<Problem> plan_problems() {
  // Sample types x bin counts x sizes x binning: 45 problems, one range-binned.
  struct Row {
    SampleType type;
    Binning binning;
    std::uint32_t bins;  // 0: n / 16
    int log2_n;
    double lower, upper;  // even binning; range binning: the levels' span
  };
  const Row rows[] = {
      // u8: the classic 256-bin image histogram over four decades of size, fewer bins.
      {SampleType::u8, Binning::direct, 256, 16, 0, 0},
      {SampleType::u8, Binning::direct, 256, 20, 0, 0},
      {SampleType::u8, Binning::direct, 256, 24, 0, 0},
      {SampleType::u8, Binning::direct, 256, 28, 0, 0},
      {SampleType::u8, Binning::direct, 64, 24, 0, 0},
      {SampleType::u8, Binning::even, 64, 24, 0, 256},
      {SampleType::u8, Binning::even, 64, 26, 0, 256},
      {SampleType::u8, Binning::even, 10, 24, 0, 256},
      {SampleType::u8, Binning::even, 10, 26, 0, 256},
      // u16: 10-bit and 12-bit sensor data, all 65536 values, coarse even bins.
      {SampleType::u16, Binning::direct, 1024, 20, 0, 0},
      {SampleType::u16, Binning::direct, 1024, 24, 0, 0},
      {SampleType::u16, Binning::direct, 4096, 24, 0, 0},
      {SampleType::u16, Binning::direct, 65536, 24, 0, 0},
      {SampleType::u16, Binning::even, 256, 26, 0, 65536},
      // u32 keys: small to beyond-shared-memory bin counts.
      {SampleType::u32, Binning::direct, 256, 20, 0, 0},
      {SampleType::u32, Binning::direct, 256, 26, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 26, 0, 0},
      {SampleType::u32, Binning::direct, 65536, 26, 0, 0},
      {SampleType::u32, Binning::even, 1024, 24, 0, 1 << 20},
      // i32: signed ranges.
      {SampleType::i32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::i32, Binning::even, 256, 24, -1000, 1000},
      {SampleType::i32, Binning::even, 65536, 26, -(1 << 20), 1 << 20},
      // i32 MoE routing counts (tokens per expert: 64 and 256 experts, tuned exactly so that a
      // call of 2^12 tokens takes its single-block winner), and token ids over vocabularies
      // beyond shared memory (bin-range slices, partitioning).
      {SampleType::i32, Binning::direct, 64, 12, 0, 0},
      {SampleType::i32, Binning::direct, 256, 12, 0, 0},
      {SampleType::i32, Binning::direct, 256, 16, 0, 0},
      {SampleType::i32, Binning::direct, 131072, 26, 0, 0},
      {SampleType::i32, Binning::direct, 1 << 20, 26, 0, 0},
      // f32: the float path over sizes and bin counts up to one bin per 16 samples.
      {SampleType::f32, Binning::even, 64, 24, 0, 1},
      {SampleType::f32, Binning::even, 256, 16, 0, 100},
      {SampleType::f32, Binning::even, 256, 20, 0, 100},
      {SampleType::f32, Binning::even, 256, 24, 0, 100},
      {SampleType::f32, Binning::even, 256, 28, 0, 100},
      {SampleType::f32, Binning::even, 1024, 26, 0, 1},
      {SampleType::f32, Binning::even, 4096, 24, -1, 1},
      {SampleType::f32, Binning::even, 65536, 24, 0, 100},
      {SampleType::f32, Binning::even, 0, 20, 0, 100},
      {SampleType::f32, Binning::even, 0, 24, 0, 100},
      {SampleType::f32, Binning::even, 0, 26, 0, 100},
      // Caller-given levels: make_levels' quadratic spacing over [0, 100], staged in shared memory.
      {SampleType::f32, Binning::range, 1024, 24, 0, 100},
      // Issue 25's types: int64 token ids, half activations, i8 and i16 over their whole range
      // (the bench's rows take 2^28 samples; the nearest shape serves them, but for i8, whose
      // 2^26 winner was slower there than the built-in default: docs/results.md, session 49).
      {SampleType::i64, Binning::direct, 256, 26, 0, 0},
      {SampleType::f16, Binning::even, 256, 26, 0, 1},
      {SampleType::bf16, Binning::even, 256, 26, 0, 1},
      {SampleType::i8, Binning::even, 256, 28, -128, 128},
      {SampleType::i16, Binning::even, 256, 26, -32768, 32768},
  };
  std::vector<Problem> plan;
  for (const Row& row : rows) {
    const std::uint64_t n = std::uint64_t{1} << row.log2_n;
    const bool bounded = row.binning != Binning::direct;
    plan.push_back(flat_problem(row.type, row.binning,
                                row.bins ? row.bins : static_cast<std::uint32_t>(n / 16), n,
                                bounded ? row.lower : 0, bounded ? row.upper : 0));
  }
  return plan;
}

namespace {

std::string pow2(std::uint64_t n) {
  int e = 0;
  while ((1ull << e) < n) ++e;
  return "2^" + std::to_string(e);
}

// A direct-binned row, named "u8-256-2^28-uniform".
BenchRow row(SampleType t, std::uint32_t bins, std::uint64_t n, Distribution dist,
             std::string target) {
  BenchRow r;
  r.problem = flat_problem(t, Binning::direct, bins, n);
  r.dist = dist;
  r.id = std::string(to_string(t)) + "-" + std::to_string(bins) + "-" + pow2(n) + "-" +
         to_string(dist);
  r.target = std::move(target);
  return r;
}

// Issue 25's sample types: int64 ids, f16 and bf16 activations, i8 and i16 over every value.
void type_rows(std::vector<BenchRow>& m) {
  auto i64 = row(SampleType::i64, 256, 1ull << 26, Distribution::uniform, ">= 85% of floor");
  i64.min_floor_pct = 85;
  m.push_back(i64);
  struct Even {
    SampleType type;
    double lower, upper;
  };
  for (const Even e : {Even{SampleType::f16, 0, 1}, Even{SampleType::bf16, 0, 1},
                       Even{SampleType::i8, -128, 128}, Even{SampleType::i16, -32768, 32768}}) {
    const bool halfs = is_half(e.type);
    BenchRow r = row(e.type, 256, 1ull << 28, Distribution::uniform,
                     halfs ? ">= 85% of floor, faster than CUB" : ">= 85% of floor");
    r.problem.binning = Binning::even;
    r.problem.lower = e.lower;
    r.problem.upper = e.upper;
    r.id = std::string(to_string(e.type)) + "-even-256-2^28-uniform";
    r.min_floor_pct = 85;
    if (halfs) r.min_cub_speedup = 1;
    else r.skip_cub = "not run: CUB counts every sample in bin 0 over the whole range (NVIDIA/cccl#10975)";
    m.push_back(r);
  }
}

}  // namespace

std::vector<BenchRow> bench_rows() {
  using D = Distribution;
  std::vector<BenchRow> m;
  for (int e : {28, 30}) {
    auto u = row(SampleType::u8, 256, 1ull << e, D::uniform, ">= 85% of floor");
    u.min_floor_pct = 85;
    m.push_back(u);
    for (D d : {D::skewed, D::constant, D::runs}) {
      auto r = row(SampleType::u8, 256, 1ull << e, d,
                   e == 28 ? ">= 92% of floor" : "never slower than CUB");
      if (e == 28) r.min_floor_pct = 92;
      m.push_back(r);
    }
  }
  const double us[] = {5, 6, 10};
  for (int i = 0; i < 3; ++i) {
    auto r = row(SampleType::u8, 256, 1ull << (16 + 4 * i), D::uniform,
                 "<= " + std::to_string(static_cast<int>(us[i])) + " us per call");
    r.max_us = us[i];
    m.push_back(r);
  }
  for (std::uint32_t bins : {256u, 4096u})
    for (D d : {D::uniform, D::skewed, D::constant}) {
      auto r = row(SampleType::u32, bins, 1ull << 26, d, ">= 85% of floor");
      r.min_floor_pct = 85;
      m.push_back(r);
    }
  auto u16 = row(SampleType::u16, 1024, 1ull << 27, D::uniform, ">= 85% of floor");
  u16.min_floor_pct = 85;
  m.push_back(u16);
  for (D d : {D::uniform, D::skewed, D::constant}) {
    auto r = row(SampleType::u32, 65536, 1ull << 26, d, ">= 50% of floor");
    r.min_floor_pct = 50;
    m.push_back(r);
  }
  // MoE routing counts (tokens per expert), in the CUDA graph a training step replays.
  for (const std::uint32_t experts : {64u, 256u})
    for (int e : {12, 16}) {
      auto r = row(SampleType::i32, experts, 1ull << e, D::uniform, "<= 3 us per call in a graph");
      r.id = "moe-i32-" + std::to_string(experts) + "-" + pow2(1ull << e) + "-graph";
      r.max_us = 3;
      r.graph_calls = 100;
      m.push_back(r);
    }
  // Bins beyond shared memory: token ids over a 128K and a 1M vocabulary.
  for (const auto& [bins, pct] : {std::pair{131072u, 50.0}, std::pair{1u << 20, 25.0}}) {
    auto r = row(SampleType::i32, bins, 1ull << 26, D::uniform,
                 ">= " + std::to_string(static_cast<int>(pct)) + "% of floor");
    r.min_floor_pct = pct;
    m.push_back(r);
  }
  for (int e : {24, 26}) {
    BenchRow r = row(SampleType::f32, static_cast<std::uint32_t>((1ull << e) / 16), 1ull << e,
                     D::uniform, e == 24 ? ">= 30% of floor, >= 5x CUB" : ">= 25% of floor (CUB fails)");
    r.problem.binning = Binning::even;
    r.problem.lower = 0;
    r.problem.upper = 100;
    r.id = "f32-n/16-" + pow2(1ull << e) + "-uniform";
    r.min_floor_pct = e == 24 ? 30 : 25;
    if (e == 24) r.min_cub_speedup = 5;
    // CUB 3.x faults (illegal address) on 4M bins on the H100 (seen by this project; docs/results.md); a fault would end
    // every later row of this process.
    if (e == 26) r.skip_cub = "not run: CUB faults with an illegal memory access at 4M bins";
    m.push_back(r);
  }
  // Few even bins over bytes, where CUB counts the 256 byte values and maps them at its merge.
  for (const std::uint32_t bins : {10u, 64u})
    for (int e : {24, 26}) {
      BenchRow r = row(SampleType::u8, bins, 1ull << e, D::uniform, ">= 1.2x CUB");
      r.problem.binning = Binning::even;
      r.problem.lower = 0;
      r.problem.upper = 256;
      r.id = "u8-even-" + std::to_string(bins) + "-" + pow2(1ull << e) + "-uniform";
      r.min_cub_speedup = 1.2;
      m.push_back(r);
    }
  type_rows(m);
  return m;
}

}  // namespace histtune::hist1d
