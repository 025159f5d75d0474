// The weighted family (templates/weighted.cuh): each sample adds its weight to its bin. Two forms
// share the value struct, its space, restrictions, default and launch: "weighted" (fast: float
// and double sums in whatever order the atomics land) and "weighted_det" (deterministic: 64-bit
// fixed point, the same bits on every run and configuration; docs/api.md gives its scale and
// error bound). Both take the samples of 1D calls, of batched rows (dense or CSR segments, one
// histogram a row) and of pixels of interleaved channels (one weight a pixel, a histogram a
// channel): WeightedForm, one kernel whose grid's y walks the rows.
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
#include "histtune/params.hpp"
#include "histtune/problem.hpp"

namespace histtune {

struct WeightedConfig {
  // Threads per block {256, 128, 512, 1024}.
  int block_threads = 256;
  // Samples (and weights) a thread loads before it adds any {8, 4, 16, 2}: loads in flight vs.
  // registers.
  int items_per_thread = 8;
  // Private histograms in shared memory per block {1, 2, 4, 8, 0}, one per group of warps: fewer
  // collisions on hot bins vs. shared memory and a longer flush. 0: none, every weight an atomic
  // on the output (bins beyond shared memory, or many bins and few samples).
  int private_copies = 1;
  // Resident blocks per SM the grid is sized for {2, 1, 4, 8} (also the kernel's launch bounds,
  // which cap its registers): more blocks hide latency; fewer flush fewer histograms.
  int blocks_per_sm = 2;

  bool operator==(const WeightedConfig& o) const;
  bool operator!=(const WeightedConfig& o) const { return !(*this == o); }
  // "w.tpb256.ipt8.pc1.bps2"
  std::string label() const;
  static std::optional<WeightedConfig> parse(const std::string& label);
  std::string to_json() const;
};

// The same tunables for the deterministic form, labelled "wdet.tpb256...".
struct DeterministicConfig : WeightedConfig {
  std::string label() const;
  static std::optional<DeterministicConfig> parse(const std::string& label);
};

// The shapes of a weighted problem, derived from its Problem fields (form()):
//   flat      n samples, one histogram (rows 1, channels 1);
//   rows      `rows` dense rows of n samples, row r at r x row_stride (0: n), a histogram each;
//   segments  n samples cut by rows + 1 CSR offsets (Problem::segments), a histogram a segment;
//   channels  n pixels of `channels` interleaved samples, the first active_channels counted, a
//             histogram each; pixel i's weight d_weights[i] adds to the bin of each of its
//             samples (one weight a pixel, as an image's pixel weights or a mask).
enum class WeightedForm { flat = 0, rows = 1, segments = 2, channels = 3 };

// A weighted problem's key columns (Problem::key): channels = the weights' code (1 .. 4)
// + 8 x form + 32 x (the rows or segments, or the channels); active_channels = the active
// channels (channels form), else 0. A flat problem's are those of before (code, 0); the stored
// rule active_channels <= channels holds (the database and its JSON check it). Hence weighted rows
// and segments are at most kMaxWeightedRows.
constexpr std::uint64_t kMaxWeightedRows = (0xFFFFFFFFull >> 5) - 1;
struct KeyColumns {
  std::uint32_t channels = 0;
  std::uint32_t active_channels = 0;
};

struct WeightedGeometry {
  dim3 grid;  // x: blocks a row; y: rows at once (a block walks rows y, y + grid.y, ...)
  unsigned int block = 0;
  std::size_t smem_bytes = 0;
  unsigned int hist_stride = 0;  // accumulators per channel of a copy (bins and the sink)
};

namespace weighted {

WeightedForm form(const Problem& p);
KeyColumns key_columns(const Problem& p);
// The inverse of key_columns: p's weight type, form (rows, segments, channels) from the key.
void set_key_columns(Problem& p, std::uint32_t channels, std::uint32_t active_channels);
// " rows=4096", " segments=100000", " channels=3/4" or "" (flat): for describe() and the CLI.
std::string shape_text(const Problem& p);
// Its rows or segments, or 1: the histograms of one channel a call writes.
std::uint64_t histograms(const Problem& p);

constexpr const char* kTemplate = "weighted.cuh";
constexpr const char* kKernel = "histtune_weighted";
constexpr const char* kMaxAbsKernel = "histtune_weighted_maxabs";
constexpr const char* kFinishKernel = "histtune_weighted_finish";
constexpr const char* kLabelPrefix = "w.";
constexpr const char* kDeterministicLabelPrefix = "wdet.";

template <class C>
const std::vector<Param<C>>& params();
std::vector<WeightedConfig> space();
// Bytes of one accumulator: 4 for f32 weights in the fast form, else 8.
std::size_t acc_bytes(const Problem& p);
Restriction check(const WeightedConfig& c, const Problem& p, const DeviceInfo& d);
WeightedGeometry geometry(const WeightedConfig& c, const Problem& p, const DeviceInfo& d);
// The built-in choice: one private copy a block (two for a few hot bins), atomics on the output
// when the copy does not fit shared memory.
WeightedConfig default_for(const Problem& p, const DeviceInfo& d);
std::string validate(const Problem& p);
CompileRequest request(const WeightedConfig& c, const Problem& p, int arch);
// The deterministic form's exponent s (sums are of rint(w x 2^s)) for a bound B on |w| (the
// caller's, or the largest finite |w|) and n weights: 62 - e - ceil(log2 n), 2^(e-1) <= B < 2^e
// (e = 0 for B = 0). What the kernel computes; the tests bound the error with it.
int fixed_shift(double bound, std::uint64_t n);
// Where the tuner puts a weighted problem's weights: this many bytes after its samples, in one
// buffer (the total samples' bytes rounded up to 256).
std::uint64_t weights_offset(const Problem& p);
std::vector<Problem> plan_problems(Family f);
std::vector<BenchRow> bench_rows(Family f);

}  // namespace weighted

// The launch of the weighted kernels built for (c, p) on `d`, prepared once per shape. Calling it
// zeroes the output (the fast form) and launches; the deterministic form takes its fixed-point
// sums from the device's workspace pool (two_phase.hpp) for the call, measures the bound when the
// call gives none, and converts the sums into the output. Legal under stream capture.
class WeightedLaunch {
 public:
  WeightedLaunch() = default;
  WeightedLaunch(KernelCache& cache, const Kernel& k, const WeightedConfig& c, const Problem& p,
                 const DeviceInfo& d);
  // d_out: the problem's bins (bin_bytes(p) each; histograms x active channels x bins, row
  // after row), passed as the dispatcher's counts pointer.
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_out,
                  cudaStream_t stream) const;
  const Kernel& kernel() const { return kernel_; }
  const WeightedGeometry& geometry() const { return geometry_; }

 private:
  void launch_hist(const Problem& p, const void* d_samples, void* d_acc,
                   const unsigned long long* d_max, unsigned int* d_marks,
                   cudaStream_t stream) const;
  void run_deterministic(const Problem& p, const void* d_samples, void* d_out,
                         cudaStream_t stream) const;

  Kernel kernel_, maxabs_, finish_;
  WeightedGeometry geometry_;
  int device_ = -1;
  unsigned int aux_grid_ = 1;  // blocks of the bound and finish kernels
};

// The traits of the fast (Family::weighted) and deterministic (Family::weighted_det) forms.
template <Family F>
struct WeightedFamilyOf {
  using Config = std::conditional_t<F == Family::weighted, WeightedConfig, DeterministicConfig>;
  using Launch = WeightedLaunch;
  static constexpr Family kId = F;
  static constexpr const char* kName = F == Family::weighted ? "weighted" : "weighted_det";
  static constexpr const char* kTemplate = weighted::kTemplate;
  static constexpr const char* kKernel = weighted::kKernel;
  static constexpr const char* kSpecPrefix = F == Family::weighted ? "w" : "wdet";
  static constexpr bool kChannels = false;
  static constexpr bool kRows = false;
  static constexpr bool kWeights = true;
  static constexpr bool kDims = false;
  static constexpr Baseline kBaseline = Baseline::none;
  static const std::vector<Param<Config>>& params() { return weighted::params<Config>(); }
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static Restriction check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return weighted::check(c, p, d);
  }
  static Restriction serves(const Config& c, const Problem& /*tuned*/, const Problem& p,
                            const DeviceInfo& d) {
    return weighted::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) {
    return Config{weighted::default_for(p, d)};
  }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return weighted::request(c, p, arch);
  }
  static std::string validate(const Problem& p) { return weighted::validate(p); }
  // 32-bit words of output: what the dispatcher zeroes and the tuner reads back.
  static std::uint64_t counters(const Problem& p) {
    return weighted::histograms(p) * p.active_channels * p.num_bins * bin_bytes(p) / 4;
  }
  static std::vector<Problem> plan_problems() { return weighted::plan_problems(F); }
  static std::vector<BenchRow> bench_rows() { return weighted::bench_rows(F); }
};
using WeightedFamily = WeightedFamilyOf<Family::weighted>;
using DeterministicWeightedFamily = WeightedFamilyOf<Family::weighted_det>;

}  // namespace histtune
