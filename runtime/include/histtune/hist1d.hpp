// The 1D privatized family (templates/hist1d.cuh): its one value struct, its search space and
// restrictions, its launch geometry and its prepared launch, and its traits (Hist1DFamily), which
// family.hpp's registry reaches it through. The table of parameters below is the single source of
// the configuration's label (the database key), its NVRTC defines and its JSON form.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/family.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_args.hpp"
#include "histtune/params.hpp"
#include "histtune/problem.hpp"
#include "histtune/two_phase.hpp"

namespace histtune {

// Where a block keeps its counters (Hist1DConfig::storage, HT_STORAGE).
enum class Storage : int {
  shared = 0,           // private copies in shared memory, updated by shared atomics
  thread_counters = 1,  // per-thread 16-bit counters, plain loads and stores
  global = 2,           // atomics straight on the output (L2)
  cluster = 3,          // one histogram over a thread-block cluster's shared memories (sm_90)
  packed = 4,           // copies of packed 16-bit counters, flushed at 2^15
  partitioned = 5,      // partition pass, then a count pass per partition (bins beyond chip)
};
// How a copy's bins lie in shared memory (Hist1DConfig::layout, HT_LAYOUT).
enum class Layout : int { rows = 0, lane_striped = 1 };
// What a thread merges before its atomic (Hist1DConfig::aggregate, HT_AGGREGATE).
enum class Aggregate : int { none = 0, thread_runs = 1, warp_match = 2 };

struct Hist1DConfig {
  // Threads per block {128, 256, 512, 1024}: more threads hide more latency but share one
  // block's private copies.
  int block_threads = 256;
  // Coarsening {1, 2, 4, 8}: vector loads each thread issues per tile before it counts them;
  // more loads in flight, more registers.
  int vectors_per_thread = 1;
  // Bytes per load {0, 4, 8, 16}; 0 loads one sample. Wider loads move small samples at full
  // bandwidth with fewer instructions. Only 0 or more than one sample's size.
  int vector_bytes = 0;
  // Private histograms per block {1, 2, 4, ..., 32}, at most one per warp: fewer collisions on
  // hot bins, more shared memory and a longer flush.
  int private_copies = 1;
  // Shared-memory layout {0, 1}: 0 one row per copy; 1 lane-striped (bin b of lane l at word
  // b * 32 + l): never a bank conflict, 32x the memory.
  Layout layout = Layout::rows;
  // Aggregation {0, 1, 2}: 1 merges a thread's equal neighbours before the atomic (pays off on
  // constant, skewed and image-like data, costs a compare per sample on uniform data); 2 (packed
  // counters only) merges the lanes of a warp that hold one bin (__match_any_sync).
  Aggregate aggregate = Aggregate::none;
  // Unroll depth of the tile loop {0, 2}; 0 leaves it to the compiler: instruction-level
  // parallelism vs. code size.
  int unroll = 0;
  // Padding words after each row {0, 1}: shifts copy c by c banks (layout 0 with copies > 1).
  int padding = 0;
  // Resident blocks per SM {1, 2, 4, 8, 16}; grid = blocks_per_sm x SMs, capped by the work.
  int blocks_per_sm = 8;
  // Counter storage {0, 1, 2, 3, 4}: 0 private copies updated by shared atomics; 1 per-thread
  // 16-bit counters updated by plain loads and stores (no atomic unit, bins x threads x 2 bytes);
  // 2 atomics straight on the output (L2), for bins that fit no shared memory; 3 one histogram
  // spread over the shared memories of a thread-block cluster (sm_90), for up to ~8 x 227 KB;
  // 4 copies of packed 16-bit counters updated by shared atomics, 2^15 moved to the output
  // whenever a counter reaches it: half the memory of 0, so 65536 bins fit one block;
  // 5 partitioned: a pass sorts each tile's bins by partition (2^12..2^15 bins, partition_bits)
  // into a workspace, then one block per partition counts them in shared memory (two kernels,
  // 2 bytes of workspace traffic each way per sample instead of an L2 atomic per sample). The
  // tunables shape the partition pass; aggregate 2 ranks a warp's equal partitions together.
  Storage storage = Storage::shared;
  // Samples whose counters load together {1, 2, 4} (storage 1): latency overlap vs. the compares
  // that merge equal words.
  int batch = 1;
  // One block does everything and stores the counts {0, 1}: no memset, no global atomics; for
  // small inputs, where launches dominate.
  int single_block = 0;
  // Blocks per cluster {1, 2, 4, 8}. Storage 3: blocks sharing one histogram (more bins on chip,
  // but more of each block's adds go to another SM). Storage 0 with single_block: one cluster of
  // blocks with their own copies, summed through distributed shared memory (small inputs read by
  // several SMs, still without memset or global atomics).
  int cluster = 1;
  // Software pipelining {0, 1, 2}: 1 issues the next tile's loads before counting the current
  // one, so a warp keeps bytes in flight while it counts (twice the load registers); 2 (storage
  // 5, sm_90) has the partition pass bring the next tile into shared memory by a bulk copy
  // (TMA): no registers, two tiles more of shared memory.
  int prefetch = 0;
  // Flush {0, 1}: 0 each block adds its non-zero bins to the zeroed output with global atomics;
  // 1 two-phase: each block stores its whole histogram as a row of a temporary buffer and a
  // second kernel sums the rows into the output (no zeroing, no atomics; grid x bins words of
  // temporary memory, bounded by two_phase::max_bytes). Shared-memory copies (storage 0, 1).
  int two_phase = 0;

  bool operator==(const Hist1DConfig& o) const;
  bool operator!=(const Hist1DConfig& o) const { return !(*this == o); }
  // "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0"
  std::string label() const;
  static std::optional<Hist1DConfig> parse(const std::string& label);
  std::string to_json() const;
  // NVRTC -D options for the compile-time parameters (launch-time ones are not compiled in).
  std::vector<std::string> defines() const;
};

using Hist1DParam = Param<Hist1DConfig>;

struct LaunchGeometry {
  unsigned int grid = 0;
  unsigned int block = 0;
  std::size_t smem_bytes = 0;
  unsigned int row_stride = 0;  // words per private copy (a slice's bins + padding)
  unsigned int slices = 1;      // bin-range slices (hist1d.cuh's HT_SLICED kernels)
};

namespace hist1d {

constexpr Family kFamily = Family::hist1d;
constexpr const char* kTemplate = "hist1d.cuh";
constexpr const char* kKernel = "histtune_hist1d";
// Beyond this one block is slower than any grid: single_block is not searched there.
constexpr std::uint64_t kSingleBlockMaxSamples = std::uint64_t{1} << 22;
// Up to this many samples the built-in default is one block: no zeroing node, one launch (i32 64
// and 256 bins over 2^12 samples on the H100: 1.6 us a call in a graph against 3.3 us).
constexpr std::uint64_t kSingleBlockDefaultMaxSamples = std::uint64_t{1} << 12;
// Global (2) and cluster (3) storage are searched only past this many bins: below, one block's
// shared memory holds the histogram and wins.
constexpr std::uint32_t kLargeBinsFrom = 16384;
// At most this many bin-range slices: each reads the input once more (from L2); beyond, global
// storage is the path.
constexpr unsigned int kMaxSlices = 32;
// The built-in default slices private copies from this many samples per bin; below, global
// storage (each block's slice would flush about as many atomics as it counts samples).
constexpr std::uint64_t kSliceSamplesPerBin = 64;
// Packed 16-bit copies (storage 4) from this many bins: below, 32-bit copies fit several per
// block already and the carry check is pure cost.
constexpr std::uint32_t kPackedBinsFrom = 2048;
// The values of a u8 sample: what a byte-decoding kernel counts (byte_decoded).
constexpr std::uint32_t kByteValues = 256;
// Partitioned storage (5): partitions of 2^12 to 2^15 bins, about kTargetPartitions of them (one
// count block each: enough to fill an H100's SMs, few enough that a tile's group per partition
// stays near a 128-byte line), at most kMaxPartitions (the partition pass's shared counters).
// The widest partition whose bins a count block holds in the architecture's shared memory
// (2^15, 128 KB: sm_80, sm_87, sm_90, sm_100; 2^14 where a block has 99 KB; 2^13 on sm_75;
// kPartitionBitsPortable for an architecture describe_arch does not list); the workspace's
// 16-bit bins and sink stop at 2^15.
constexpr int kPartitionBitsMin = 12;
constexpr int kPartitionBitsMax = 15;
constexpr int kPartitionBitsPortable = 14;
constexpr std::uint32_t kTargetPartitions = 128;
constexpr std::uint32_t kMaxPartitions = 1024;
// The cells of the grid over the partitions' first levels through which the partition pass of
// range binning of 4-byte samples finds a sample's partition (ht_common.cuh's HtGrid).
constexpr std::uint32_t kRangeGridCells = 1024;
// The count kernel's static shared memory (hist1d.cuh): its warps' sums, its partition and
// group (padded to 16 bytes), a window of 32 group bases a warp, and the 1 KB NVRTC gives every
// kernel from sm_90 on. A test reads it from the compiled kernels.
constexpr std::size_t kCountPassStaticSmem = (32 + 4 + 1024) * sizeof(std::uint32_t) + 1024;
constexpr const char* kZeroKernel = "histtune_hist1d_zero";
constexpr const char* kCountKernel = "histtune_hist1d_count";
constexpr const char* kSizesKernel = "histtune_hist1d_sizes";
// The built-in default partitions from this many samples; below, its two launches and the
// count pass's store of every bin cost more than the atomics they save.
constexpr std::uint64_t kPartitionedFromSamples = std::uint64_t{1} << 22;
constexpr unsigned kCountThreads = 1024;  // hist1d.cuh's kCountThreads

const std::vector<Hist1DParam>& params();
// The built-in configuration, used when nothing is tuned: the seeds' textbook shared-memory
// kernel (one private copy, 8 blocks/SM x 256 threads, one sample load per thread per iteration).
Hist1DConfig default_config();
// The built-in choice for `p` on `d` when nothing is tuned: a short per-shape heuristic (large
// inputs, small inputs, bins beyond shared memory) that falls back to default_config().
Hist1DConfig default_for(const Problem& p, const DeviceInfo& d);
// The built-in candidates for p other than default_for's choice that may also run p (each an
// H100 winner of a problem of p's kind), slices as many as each candidate takes whatever the
// samples per bin: the tuner starts its search from them too.
std::vector<Hist1DConfig> default_alternatives(const Problem& p, const DeviceInfo& d);
// Every point of the declared space (restrictions not yet applied).
std::vector<Hist1DConfig> space();
// Holds when `c` may run `p` on `d`; otherwise the restriction that says no.
Restriction check(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d);
LaunchGeometry geometry(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d);
// Holds when `c`, tuned for `tuned`, may serve `p` on `d`: check(), and no more bin-range slices
// than it was timed with (each reads the input again: a 256-bin winner would run 2^20 bins in
// 19 slices, 3.2 ms against the default's 0.80 on an H100).
Restriction serves(const Hist1DConfig& c, const Problem& tuned, const Problem& p,
                   const DeviceInfo& d);
// Whether the kernel may slice the bin range (HT_SLICED): private copies in shared memory
// (storage 0 or 4) over kLargeBinsFrom bins or more, flushed by atomics from a grid of blocks.
// The geometry then picks the fewest slices whose copies fit a block (LaunchGeometry::slices).
bool sliced(const Hist1DConfig& c, const Problem& p);
// Whether the kernel keeps a sink bin (word num_bins of every copy, never flushed) for samples in
// no bin: storage 0 unless every value is a bin. The one rule behind the kernel's HT_SINK and
// the geometry's row stride. Never in a sliced kernel, where most samples are in no bin of a
// block's slice and would all contend for the sink.
bool has_sink(const Hist1DConfig& c, const Problem& p);
// Whether the kernel decodes bytes (HT_BYTE_DECODE): its counters count the 256 values of u8
// samples, with no binning arithmetic and no sink per sample and hot bins spread over their byte
// values, and the flush adds each value's count to its bin (values in no bin are dropped). For
// u8 even or range binning with fewer than 256 bins, counters in shared memory (storage 0 or 1)
// that a grid of blocks adds to the zeroed output: a single block and a two-phase block store a
// bin's total, where several byte values must add into one bin. Packed counters (storage 4) are
// for kPackedBinsFrom bins or more, and their carries add to the counter's own bin: never.
bool byte_decoded(const Hist1DConfig& c, const Problem& p);
// How a call that adds to zeroed counts zeroes them: cudaMemsetAsync, or histtune_hist1d_zero,
// which the histogram kernel overlaps as its programmatic dependent (sm_90). The kernel for
// kZeroKernelFromBins bins or more (a memset that is a kernel of its own); for inputs up to
// kZeroKernelUpToBytes (launch-bound calls) only in a stream being captured: a graph replay pays
// the GPU's time alone, which the overlap cuts, while an eager call also pays a second launch's
// host time (about 2 us on the H100), more than the overlap saves. Elsewhere a small memset cost
// less (the H100 figures in docs/kernels.md, "The zeroing, overlapped").
enum class Zeroing { memset, kernel, kernel_in_graphs };
Zeroing zeroing(const Problem& p, const DeviceInfo& d);
constexpr std::uint32_t kZeroKernelFromBins = 4096;
constexpr std::uint64_t kZeroKernelUpToBytes = std::uint64_t{1} << 20;
// The bins a block's counters hold: the 256 byte values when byte_decoded, else p.num_bins. The
// geometry sizes the counters by it; the output stays p.num_bins words.
std::uint32_t counted_bins(const Hist1DConfig& c, const Problem& p);
// Range binning of 4-byte samples (u32, i32, f32): the partitioned passes carry the samples
// themselves (hist1d.cuh, HT_PART_VALUES): the partition pass searches only the partitions'
// first levels, the count pass each sample's bin among its partition's levels, staged in shared
// memory, both from a grid of cells over them (ht_common.cuh's HtGrid; 8-byte samples lost on
// three distributions of four; docs/kernels.md). The bytes of a level the count pass stages (0
// where the workspace holds 16-bit bins), and of a workspace slot (a sample, or a 16-bit bin).
bool values_partitioned(const Problem& p);
std::size_t staged_level_bytes(const Problem& p);
std::size_t partition_slot_bytes(const Problem& p);
// Partitioned storage on architecture `arch` (90 for sm_90): the count pass's dynamic shared
// memory for partitions of 2^bits bins (the bins and a sink word, then the partition's levels
// of level_bytes each and a 4-byte grid cell a bin; a block also takes kCountPassStaticSmem),
// the widest partitions whose count pass fits the architecture's shared memory per block, log2
// of the bins per partition (HT_PARTITION_BITS: the smallest from kPartitionBitsMin to that
// width that makes at most kTargetPartitions partitions), and the partitions it makes.
std::size_t count_pass_smem(int bits, std::size_t level_bytes = 0);
int partition_bits_max(int arch, std::size_t level_bytes = 0);
// Whether the partition pass on `arch` sends its tiles out by bulk copy from two stages (sm_90
// and newer: HT_BULK_OUT), which doubles its stages and counts in shared memory.
bool partition_bulk_out(int arch);
int partition_bits(const Problem& p, int arch);
std::uint32_t partitions(const Problem& p, int arch);
// Samples per tile of the partition pass: block_threads x samples per thread per tile.
std::uint64_t tile_samples(const Hist1DConfig& c, const Problem& p);
// A tile's slots in the workspace: its samples plus up to a chunk's of padding per partition (each
// partition's group is padded to whole 16-byte chunks for the count pass's loads), and their
// bytes (partition_slot_bytes each), which a stage of the partition pass takes too.
std::uint64_t partition_tile_slots(const Hist1DConfig& c, const Problem& p, int arch);
std::uint64_t partition_tile_bytes(const Hist1DConfig& c, const Problem& p, int arch);
// The partition pass's workspace for a chunk of n samples (hist1d.cuh's layout: the table, then
// each tile's slots, then the partitions' sizes).
std::uint64_t partition_workspace_bytes(const Hist1DConfig& c, const Problem& p, std::uint64_t n,
                                        int arch);
// Samples per count block in a round of n samples: twice the average partition's, or of an SM's
// share when there are fewer partitions than SMs. A partition gets ceil(size / target) blocks, so
// uniform data gives one block a partition (its bins stored, no atomics) and a hot partition of
// skewed or constant data is shared by many.
std::uint32_t partition_target(std::uint64_t n, const Problem& p, const DeviceInfo& d);
// The most samples one partition-then-count round takes, a whole number of tiles whose workspace
// fits two_phase::max_bytes(d); longer inputs run in rounds (the later rounds add to the counts).
std::uint64_t partition_chunk(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d);
// All -D options for one kernel on architecture `arch`: the configuration's, the problem's sample
// type and binning, HT_SINK, HT_SLICED, HT_BYTE_DECODE and (storage 5) HT_PARTITION_BITS.
std::vector<std::string> defines(const Hist1DConfig& c, const Problem& p, int arch);
// The compile request for (c, p) on architecture `arch`.
CompileRequest request(const Hist1DConfig& c, const Problem& p, int arch);
// Partitioned storage's sizes and count passes (kSizesKernel, kCountKernel): hist1d.cuh with
// HT_COUNT_PASSES, a program of its own that depends only on the tile size and the partition bits
// (and for values_partitioned on the sample type), so that every configuration of those loads one
// (request()'s program leaves them out).
CompileRequest count_request(const Hist1DConfig& c, const Problem& p, int arch);
// The family's checks of a problem: one channel, no row pitch.
std::string validate(const Problem& p);
// Its problems in the default plan and its rows of the bench matrix (hist1d_workload.cpp).
std::vector<Problem> plan_problems();
std::vector<BenchRow> bench_rows();

}  // namespace hist1d

using Hist1DArgs = KernelArgs;  // kernel_args.hpp: both families take the same list

// The launch of the 1D kernel `k` built for (c, p) on `d`, prepared once per problem shape:
// geometry computed, the kernel's shared-memory limit raised (a CUDA attribute call: not legal
// during capture, hence here). Calling it with a problem of that shape (same sample type,
// binning, bins and n; the even bounds may differ) zeroes the counts when the kernel adds to them
// and launches (a two-phase configuration: its partials' buffer, the kernel, the reduction, the
// buffer freed, all stream-ordered); all legal under stream capture.
class Hist1DLaunch {
 public:
  Hist1DLaunch() = default;
  Hist1DLaunch(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
               const DeviceInfo& d);
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                  cudaStream_t stream) const;
  // The kernel's arguments for one call, for a bare cudaLaunchKernel (the overhead benchmark).
  Hist1DArgs args(const Problem& p, const void* d_samples, std::uint32_t* d_counts) const;
  const Kernel& kernel() const { return kernel_; }
  const LaunchGeometry& geometry() const { return geometry_; }
  bool zeroes_counts() const { return zero_counts_; }
  // Whether a call on a stream (being captured or not) zeroes with histtune_hist1d_zero,
  // overlapped by the kernel (hist1d::zeroing), rather than cudaMemsetAsync.
  bool zeroes_with_kernel(bool capturing) const {
    return zero_kernel_.handle != nullptr && (capturing || !zero_in_graphs_only_);
  }
  // Two-phase: a call is more than one kernel (args() alone does not make one).
  bool two_phase() const { return two_phase_; }
  // Partitioned storage: a call is rounds of three kernels (args() is the partition pass's).
  bool partitioned() const { return round_ > 0; }

 private:
  // programmatic: launched as a programmatic dependent of the kernel before it (after
  // histtune_hist1d_zero, or a partition pass), which it waits for in the kernel.
  void launch_kernel(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                     cudaStream_t stream, bool programmatic = false) const;
  void zero(const Problem& p, std::uint32_t* d_counts, cudaStream_t stream) const;
  // Storage 5: per chunk of the input, the partition pass into a workspace and the count pass.
  void launch_partitioned(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                          cudaStream_t stream) const;
  Kernel kernel_;
  LaunchGeometry geometry_;
  int cluster_ = 1;
  bool zero_counts_ = true;
  // sm_90: the counts are zeroed by zero_kernel_, which the histogram kernel overlaps (PDL);
  // with zero_in_graphs_only_, only on a stream being captured.
  Kernel zero_kernel_;
  bool zero_in_graphs_only_ = false;
  bool two_phase_ = false;
  two_phase::Reducer reducer_;
  // Storage 5 (round_ > 0): its sizes and count passes, the count block's counters, samples per
  // round, a round's workspace, the partitions, and the device (its pool and SMs).
  Kernel sizes_kernel_;
  Kernel count_kernel_;
  std::size_t count_smem_ = 0;
  std::uint64_t round_ = 0;
  std::uint64_t workspace_bytes_ = 0;
  std::uint32_t partitions_ = 0;
  DeviceInfo device_;
};

// Hist1DLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream): prepares and launches in one
// call (no lookup), for one-off launches (the GPU tests). The tuner, `compare` and the dispatcher
// each prepare a Hist1DLaunch once per shape and call it, so what is timed is what users get.
void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream);

// Earlier name of hist1d::request.
inline CompileRequest hist1d_request(const Hist1DConfig& c, const Problem& p, int arch) {
  return hist1d::request(c, p, arch);
}

// The family's traits, for family.hpp's FamilyModel (the registry) and typed callers.
struct Hist1DFamily {
  using Config = Hist1DConfig;
  using Launch = Hist1DLaunch;
  static constexpr Family kId = Family::hist1d;
  static constexpr const char* kName = "hist1d";
  static constexpr const char* kTemplate = hist1d::kTemplate;
  static constexpr const char* kKernel = hist1d::kKernel;
  static constexpr const char* kSpecPrefix = "";
  static constexpr bool kChannels = false;
  static constexpr bool kRows = false;
  static constexpr bool kWeights = false;
  static constexpr bool kDims = false;
  static constexpr Baseline kBaseline = Baseline::cub_histogram;
  static const std::vector<Param<Config>>& params() { return hist1d::params(); }
  static Restriction check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return hist1d::check(c, p, d);
  }
  static Restriction serves(const Config& c, const Problem& tuned, const Problem& p,
                            const DeviceInfo& d) {
    return hist1d::serves(c, tuned, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) { return hist1d::default_for(p, d); }
  static std::vector<Config> seeds(const Problem& p, const DeviceInfo& d) {
    return hist1d::default_alternatives(p, d);
  }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return hist1d::request(c, p, arch);
  }
  static std::vector<CompileRequest> also_compiled(const Config& c, const Problem& p, int arch) {
    if (c.storage != Storage::partitioned) return {};
    return {hist1d::count_request(c, p, arch)};
  }
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static std::string validate(const Problem& p) { return hist1d::validate(p); }
  static std::uint64_t counters(const Problem& p) { return p.num_bins; }
  static std::vector<Problem> plan_problems() { return hist1d::plan_problems(); }
  static std::vector<BenchRow> bench_rows() { return hist1d::bench_rows(); }
};

}  // namespace histtune
