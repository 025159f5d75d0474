// The batched-rows family (templates/batched.cuh): one histogram per row, of dense rows
// (family "batched": a [rows, n] tensor or a strided view of one) or of CSR segments (family
// "segmented"). Both forms share the value struct, its space and restrictions, the default and
// the launch; the kernel of a segmented problem is compiled with HT_SEGMENTED=1.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/family.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_args.hpp"
#include "histtune/params.hpp"
#include "histtune/problem.hpp"

namespace histtune {

struct BatchedConfig {
  // Threads per block {256, 128, 512, 1024}.
  int block_threads = 256;
  // Vector loads per thread per step {1, 2, 4, 8}: loads in flight vs. registers.
  int vectors_per_thread = 2;
  // Bytes per load {16, 0, 4, 8}; 0 loads one sample. Only more than one sample's size.
  int vector_bytes = 16;
  // Rows per block {1, 2, 4, 8, 16, 32}: the block's threads split into this many groups of whole
  // warps, one row each, each with its own histograms. Short rows: more rows per block keep
  // a block's loads in flight; long rows: one.
  int rows_per_block = 1;
  // Blocks per row {1, 2, 4, ..., 512}: a row split over this many blocks, which add their
  // non-zero bins to the zeroed output with global atomics; 1 stores every bin (no zeroing, no
  // atomics). For rows too long, or too few, to fill the GPU one block each.
  int blocks_per_row = 1;
  // Private copies of each row's histogram {1, 2, 4, 8, 0}, one per warp group of the row's
  // threads: hot bins. 0: no private copy, every count an atomic on the output (bins beyond
  // shared memory).
  int private_copies = 1;
  // Unroll depth of the vector loop {0, 2}; 0 leaves it to the compiler.
  int unroll = 0;
  // Shared-memory layout of a copy {0, 1}: 0 one word per bin; 1 lane-striped (bin b of lane l
  // at word b * 32 + l, hist1d's layout 1): no bank conflicts, 32x the memory.
  int layout = 0;

  bool operator==(const BatchedConfig& o) const;
  bool operator!=(const BatchedConfig& o) const { return !(*this == o); }
  // "rows.tpb256.vpt2.vec16.rpb1.bpr1.pc1.u0.lay0"
  std::string label() const;
  static std::optional<BatchedConfig> parse(const std::string& label);
  std::string to_json() const;
};

// The same tunables for segmented rows, labelled "seg.tpb256...": a label names its family.
struct SegmentedConfig : BatchedConfig {
  std::string label() const;
  static std::optional<SegmentedConfig> parse(const std::string& label);
};

struct BatchedGeometry {
  unsigned int grid = 0;
  unsigned int block = 0;
  std::size_t smem_bytes = 0;
  unsigned int hist_stride = 0;  // bins per private copy (the bins and the sink)
};

namespace batched {

constexpr const char* kTemplate = "batched.cuh";
constexpr const char* kKernel = "histtune_batched";
constexpr const char* kLabelPrefix = "rows.";
constexpr const char* kSegmentedLabelPrefix = "seg.";
// Blocks per launch at most; more units (row groups x blocks per row) loop in the blocks.
constexpr unsigned int kMaxGrid = 1u << 30;

// The parameter table, of the dense form's struct or (the same parameters) the segmented one's.
template <class C>
const std::vector<Param<C>>& params();
std::vector<BatchedConfig> space();
// Samples in a row: n (batched), or the mean segment's (segmented), at least 1.
std::uint64_t mean_row(const Problem& p);
// Holds when `c` may run `p` on `d`; otherwise the restriction that says no.
Restriction check(const BatchedConfig& c, const Problem& p, const DeviceInfo& d);
BatchedGeometry geometry(const BatchedConfig& c, const Problem& p);
// The built-in choice: whole warps per row for short rows (several rows a block), a block per
// row for long ones, rows split over blocks when the rows alone cannot fill the GPU, and atomics
// on the output when one row's histogram does not fit shared memory.
BatchedConfig default_for(const Problem& p, const DeviceInfo& d);
std::string validate(const Problem& p);
CompileRequest request(const BatchedConfig& c, const Problem& p, int arch);
// Its problems in the default plan and its rows of the bench matrix (batched_workload.cpp).
std::vector<Problem> plan_problems(Family f);
std::vector<BenchRow> bench_rows(Family f);

}  // namespace batched

// The kernel's arguments, in histtune_batched's parameter order.
struct BatchedArgs {
  const void* samples = nullptr;
  unsigned long long n = 0;
  unsigned long long rows = 0;
  unsigned long long row_stride = 0;  // samples; dense rows only
  const void* offsets = nullptr;      // segmented rows only
  unsigned long long offsets_base = 0;  // segmented: Problem::offsets_base
  unsigned int blocks_per_row = 1;
  unsigned int num_bins = 0;
  BinningArgs binning;
  unsigned int* counts = nullptr;
  const void* levels = nullptr;
  std::array<void*, 16> pointers() {
    BinningArgs& b = binning;
    return {&samples,   &n,         &rows,      &row_stride, &offsets,   &offsets_base,
            &blocks_per_row, &num_bins, &b.lower_i, &b.range_i, &b.recip_i,  &b.lower_f,
            &b.upper_f, &b.scale_f, &counts,    &levels};
  }
};

// The launch of the batched kernel `k` built for (c, p) on `d`, prepared once per shape (the
// shared-memory limit raised). Calling it with a problem of that shape (the stride, offsets,
// bounds and levels may differ) zeroes the output when blocks add to it, and launches; both
// legal under stream capture.
class BatchedLaunch {
 public:
  BatchedLaunch() = default;
  BatchedLaunch(KernelCache& cache, const Kernel& k, const BatchedConfig& c, const Problem& p,
                const DeviceInfo& d);
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                  cudaStream_t stream) const;
  BatchedArgs args(const Problem& p, const void* d_samples, std::uint32_t* d_counts) const;
  const Kernel& kernel() const { return kernel_; }
  const BatchedGeometry& geometry() const { return geometry_; }

 private:
  Kernel kernel_;
  BatchedGeometry geometry_;
  unsigned int blocks_per_row_ = 1;
  bool zero_counts_ = false;
};

// The traits of the dense (Family::batched) and segmented (Family::segmented) forms, for
// family.hpp's FamilyModel: one struct, one template, one space; the form picks the kernel.
template <Family F>
struct RowsFamily {
  using Config = std::conditional_t<F == Family::batched, BatchedConfig, SegmentedConfig>;
  using Launch = BatchedLaunch;
  static constexpr Family kId = F;
  static constexpr const char* kName = F == Family::batched ? "batched" : "segmented";
  static constexpr const char* kTemplate = batched::kTemplate;
  static constexpr const char* kKernel = batched::kKernel;
  static constexpr const char* kSpecPrefix = F == Family::batched ? "bat" : "seg";
  static constexpr bool kChannels = false;
  static constexpr bool kRows = true;
  static constexpr bool kWeights = false;
  static constexpr bool kDims = false;
  static constexpr Baseline kBaseline = Baseline::none;
  static const std::vector<Param<Config>>& params() { return batched::params<Config>(); }
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static Restriction check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return batched::check(c, p, d);
  }
  static Restriction serves(const Config& c, const Problem& /*tuned*/, const Problem& p,
                            const DeviceInfo& d) {
    return batched::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) {
    return Config{batched::default_for(p, d)};
  }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return batched::request(c, p, arch);
  }
  static std::string validate(const Problem& p) { return batched::validate(p); }
  static std::uint64_t counters(const Problem& p) { return std::uint64_t{p.num_bins} * p.rows; }
  static std::vector<Problem> plan_problems() { return batched::plan_problems(F); }
  static std::vector<BenchRow> bench_rows() { return batched::bench_rows(F); }
};
using BatchedFamily = RowsFamily<Family::batched>;
using SegmentedFamily = RowsFamily<Family::segmented>;

}  // namespace histtune
