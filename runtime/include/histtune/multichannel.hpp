// The multi-channel family (templates/multichannel.cuh): rows of interleaved channels, one
// histogram per active channel ([1048576, 512] u8 columns, RGBA pixels). Its value struct, its
// space and restrictions, its launch geometry and its prepared launch.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
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

// How a block's channel histograms lie in shared memory (MultiChannelConfig::layout, HT_LAYOUT).
enum class ChannelLayout : int { rows = 0, lane_striped = 1, channel_interleaved = 2, global = 3 };

struct MultiChannelConfig {
  // Threads per block {256, 128, 512, 1024}.
  int block_threads = 256;
  // Vector loads per thread per step {1, 2, 4, 8}: loads in flight vs. registers.
  int vectors_per_thread = 1;
  // Bytes per load {0, 4, 8, 16}; 0 loads one sample. Only more than one sample's size, and
  // (with several channel groups) dividing the group's bytes.
  int vector_bytes = 16;
  // Channels per block {0, 4, 8, 16, 32, 64, 128, 1, 2}; 0: every channel in one block (the
  // input is one flat stream). Fewer channels: smaller histograms, more blocks side by side; 1
  // and 2 for many bins (a group of 1 loads one sample at a time).
  int channels_per_block = 0;
  // Private copies of the block's histograms {1, 2, 4, 8}, one per warp group: hot bins.
  int private_copies = 1;
  // Padding words after each channel's histogram {0, 1}: spreads channels over banks.
  int padding = 1;
  // Resident blocks per SM {4, 1, 2, 8}: the grid's size.
  int blocks_per_sm = 4;
  // Unroll depth of the row loop {0, 2}; 0 leaves it to the compiler.
  int unroll = 0;
  // Shared-memory layout {0, 1, 2, 3}: 0 one row of bins per channel (padded); 1 lane-striped (bin
  // b of lane l at word b * 32 + l: never a bank conflict, 32x the memory, for few channels);
  // 2 channel-interleaved (bin b of channel c at word b * 32 + c % 32, lanes take their
  // samples in rotated order so a warp's 32 adds hit 32 channels mod 32: no conflict, for 32
  // channels per block or more); 3 global (no private copy, every count an atomic on the output:
  // for channel histograms of 16384 bins or more, which need not fit shared memory).
  ChannelLayout layout = ChannelLayout::rows;
  // Software pipelining {0, 1} of the packed input's whole tiles: the next tile's loads are
  // issued before this tile is counted.
  int prefetch = 0;
  // Flush {0, 1}: 0 each block adds its non-zero bins to the zeroed output with global atomics;
  // 1 two-phase: the blocks of grid row y store their channels' histograms as row y of a
  // temporary buffer (grid y x active channels x bins words, bounded by two_phase::max_bytes)
  // and a second kernel sums the rows into the output: no zeroing, no atomics.
  int two_phase = 0;

  bool operator==(const MultiChannelConfig& o) const;
  bool operator!=(const MultiChannelConfig& o) const { return !(*this == o); }
  // "mc.tpb256.vpt1.vec16.cpb0.pc1.pad1.bps4.u0.lay0.pf0"
  std::string label() const;
  static std::optional<MultiChannelConfig> parse(const std::string& label);
  std::string to_json() const;
};

struct MultiChannelGeometry {
  dim3 grid;
  unsigned int block = 0;
  std::size_t smem_bytes = 0;
  unsigned int row_stride = 0;  // words per channel histogram (bins + padding)
  unsigned int channels_per_block = 0;
};

namespace multichannel {

// The global layout (3) from this many bins per channel: below, private copies fit and win.
constexpr std::uint32_t kGlobalBinsFrom = 16384;

constexpr Family kFamily = Family::multichannel;
constexpr const char* kTemplate = "multichannel.cuh";
constexpr const char* kKernel = "histtune_multichannel";
constexpr const char* kLabelPrefix = "mc.";

const std::vector<Param<MultiChannelConfig>>& params();
std::vector<MultiChannelConfig> space();
// Holds when `c` may run `p` on `d`; otherwise the restriction that says no.
Restriction check(const MultiChannelConfig& c, const Problem& p, const DeviceInfo& d);
MultiChannelGeometry geometry(const MultiChannelConfig& c, const Problem& p, const DeviceInfo& d);
// The built-in choice when nothing is tuned: the first valid of a short list of H100 bests, else
// the largest channel group whose histograms fit a block; valid whenever one channel's histogram
// fits in one block's shared memory (else check() says it is not supported yet).
MultiChannelConfig default_for(const Problem& p, const DeviceInfo& d);
// The family's checks of a problem: channels and active channels, the counters, the row pitch.
std::string validate(const Problem& p);
// A pitched problem (Problem::pitched) compiles the kernel's pitched variant (HT_PITCHED=1): the
// same configuration and key, another kernel; packed problems' requests are those of before.
CompileRequest request(const MultiChannelConfig& c, const Problem& p, int arch);
// Its problems in the default plan and its rows of the bench matrix (multichannel_workload.cpp).
std::vector<Problem> plan_problems();
std::vector<BenchRow> bench_rows();
// MultiChannelLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream): prepares and launches
// in one call (no lookup), for one-off launches (the GPU tests). The tuner, `compare` and the
// public API each prepare a MultiChannelLaunch once per shape and call it.
void launch(KernelCache& cache, const Kernel& k, const MultiChannelConfig& c, const Problem& p,
            const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
            cudaStream_t stream);

}  // namespace multichannel

using MultiChannelArgs = KernelArgs;  // kernel_args.hpp: both families take the same list

// The launch of the multi-channel kernel `k` built for (c, p) on `d`, prepared once per problem
// shape: geometry computed, the kernel's shared-memory limit raised (a CUDA attribute call: not
// legal during capture, hence here). Calling it with a problem of that shape (same sample type,
// binning, bins, rows, channels and active channels, packed or pitched as prepared; the even
// bounds, the levels and the pitch may differ) zeroes the active channels' counts and launches;
// both are legal under stream capture. A pitched call of a packed launch, or the reverse, throws
// (the kernel is the other variant).
class MultiChannelLaunch {
 public:
  MultiChannelLaunch() = default;
  MultiChannelLaunch(KernelCache& cache, const Kernel& k, const MultiChannelConfig& c,
                     const Problem& p, const DeviceInfo& d);
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                  cudaStream_t stream) const;
  // The kernel's arguments for one call, for a bare cudaLaunchKernel (the overhead benchmark).
  MultiChannelArgs args(const Problem& p, const void* d_samples, std::uint32_t* d_counts) const;
  const Kernel& kernel() const { return kernel_; }
  const MultiChannelGeometry& geometry() const { return geometry_; }
  // Two-phase: a call is more than one kernel (args() alone does not make one).
  bool two_phase() const { return two_phase_; }

 private:
  Kernel kernel_;
  MultiChannelGeometry geometry_;
  bool pitched_ = false;  // built for pitched problems (HT_PITCHED)
  bool two_phase_ = false;
  two_phase::Reducer reducer_;
};

// The family's traits, for family.hpp's FamilyModel (the registry) and typed callers.
struct MultiChannelFamily {
  using Config = MultiChannelConfig;
  using Launch = MultiChannelLaunch;
  static constexpr Family kId = Family::multichannel;
  static constexpr const char* kName = "multichannel";
  static constexpr const char* kTemplate = multichannel::kTemplate;
  static constexpr const char* kKernel = multichannel::kKernel;
  static constexpr const char* kSpecPrefix = "mc";
  static constexpr bool kChannels = true;
  static constexpr bool kRows = false;
  static constexpr bool kWeights = false;
  static constexpr bool kDims = false;
  static constexpr Baseline kBaseline = Baseline::cub_multi_histogram;
  static const std::vector<Param<Config>>& params() { return multichannel::params(); }
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static Restriction check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return multichannel::check(c, p, d);
  }
  static Restriction serves(const Config& c, const Problem& /*tuned*/, const Problem& p,
                            const DeviceInfo& d) {
    return multichannel::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) {
    return multichannel::default_for(p, d);
  }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return multichannel::request(c, p, arch);
  }
  static std::string validate(const Problem& p) { return multichannel::validate(p); }
  static std::uint64_t counters(const Problem& p) {
    return std::uint64_t{p.num_bins} * p.active_channels;
  }
  static std::vector<Problem> plan_problems() { return multichannel::plan_problems(); }
  static std::vector<BenchRow> bench_rows() { return multichannel::bench_rows(); }
};

}  // namespace histtune
