#include "histtune/multichannel.hpp"

#include <algorithm>

#include "histtune/detail/cuda_check.hpp"
#include "restrictions.hpp"

namespace histtune {
namespace multichannel {

const std::vector<Param<MultiChannelConfig>>& params() {
  using C = MultiChannelConfig;
  static const std::vector<Param<C>> table = {
      param<&C::block_threads>("block_threads", "tpb", {256, 128, 512, 1024}, true),
      param<&C::vectors_per_thread>("vectors_per_thread", "vpt", {1, 2, 4, 8}, true),
      param<&C::vector_bytes>("vector_bytes", "vec", {16, 0, 4, 8}, true),
      // A launch-time field of the label: request() compiles the owned count (never 0), HT_CPB.
      // 1 and 2 (last: rarely the best) let histograms of many bins fit, one or two to a block.
      param<&C::channels_per_block>("channels_per_block", "cpb", {0, 4, 8, 16, 32, 64, 128, 1, 2},
                                    false),
      param<&C::private_copies>("private_copies", "pc", {1, 2, 4, 8}, true),
      param<&C::padding>("padding", "pad", {1, 0}, false),
      param<&C::blocks_per_sm>("blocks_per_sm", "bps", {4, 1, 2, 8}, false),
      param<&C::unroll>("unroll", "u", {0, 2}, true),
      param<&C::layout>("layout", "lay", {0, 1, 2, 3}, true),
      param<&C::prefetch>("prefetch", "pf", {0, 1}, true),
      param<&C::two_phase>("two_phase", "tp", {0, 1}, true),
  };
  return table;
}

std::vector<MultiChannelConfig> space() { return params::space(params()); }

namespace {
unsigned int row_stride(const MultiChannelConfig& c, const Problem& p) {
  if (c.layout == ChannelLayout::global) return p.num_bins;  // the output's rows
  // A sink word after the bins takes samples in no bin (multichannel.cuh).
  const unsigned sink = needs_sink(p) ? 1u : 0u;
  return p.num_bins + sink + static_cast<unsigned>(c.padding);
}

unsigned int owned_channels(const MultiChannelConfig& c, const Problem& p) {
  return c.channels_per_block == 0 ? p.channels : static_cast<unsigned>(c.channels_per_block);
}

// The least shared memory any configuration takes: one channel's row (bins and sink, no padding)
// in one copy, and range binning's levels or table.
std::size_t one_channel_bytes(const Problem& p) {
  MultiChannelConfig bare;
  bare.padding = 0;
  return std::size_t{row_stride(bare, p)} * sizeof(std::uint32_t) + range_smem_bytes(p);
}

// A two-phase call's partials: a row of every active channel's bins per grid row.
std::uint64_t two_phase_bytes(const MultiChannelGeometry& g, const Problem& p) {
  return std::uint64_t{g.grid.y} * p.active_channels * p.num_bins * sizeof(std::uint32_t);
}
}  // namespace

Restriction check(const MultiChannelConfig& c, const Problem& p, const DeviceInfo& d) {
  if (Restriction r = params::check_values(params(), c); !r.holds()) return r;
  if (p.family != kFamily)
    return Restriction::rule("the multichannel family runs multichannel problems only");
  if (c.layout == ChannelLayout::global) {
    if (c.private_copies != 1 || c.padding != 0 || c.two_phase != 0)
      return Restriction::rule(
          "the global layout (3) keeps no private copy: no copies, padding or two-phase flush");
    if (p.num_bins < kGlobalBinsFrom)
      return Restriction::rule("the global layout (3) is for " +
                               std::to_string(kGlobalBinsFrom) + " bins or more");
  } else if (const std::size_t least = one_channel_bytes(p);
             d.smem_per_block_optin > 0 && least > d.smem_per_block_optin) {
    return Restriction::rule(
        "one channel's histogram of " + std::to_string(p.num_bins) + " bins needs " +
        std::to_string(least) + " B of shared memory, more than the device's per-block limit " +
        std::to_string(d.smem_per_block_optin) + " B: the global layout (3) takes it");
  }
  const std::size_t sb = sample_bytes(p.sample_type);
  const unsigned int cpb = owned_channels(c, p);
  if (c.channels_per_block != 0 && (c.channels_per_block >= static_cast<int>(p.channels) ||
                                    p.channels % c.channels_per_block != 0))
    return Restriction::rule(
        "channels_per_block must divide the channels and be fewer (0: all of them)");
  if (c.vector_bytes != 0 && static_cast<std::size_t>(c.vector_bytes) <= sb)
    return Restriction::rule("vector_bytes " + std::to_string(c.vector_bytes) +
                             " is one sample: that is vec0");
  const std::size_t per_load = c.vector_bytes ? c.vector_bytes / sb : 1;
  if (c.channels_per_block != 0 && (cpb % per_load != 0 || p.channels % per_load != 0))
    return Restriction::rule(
        "a load of " + std::to_string(per_load) +
        " samples must not straddle channel groups (channels and channels_per_block multiples "
        "of it)");
  if (c.private_copies > c.block_threads / 32)
    return Restriction::rule("private_copies > warps per block");
  if (c.layout != ChannelLayout::rows && c.padding != 0)
    return Restriction::rule(
        "padding separates the rows of layout 0; layouts 1 and 2 place bins by lane or channel");
  if (c.layout == ChannelLayout::channel_interleaved && cpb % 32 != 0)
    return Restriction::rule("channel-interleaved layout (2) needs the block's channels (" +
                             std::to_string(cpb) + ") in whole groups of 32, one per bank");
  const MultiChannelGeometry g = geometry(c, p, d);
  if (c.two_phase == 1) {
    const std::uint64_t partials = two_phase_bytes(g, p);
    if (Restriction r = check_partials(partials, "grid rows x active channels x bins", d);
        !r.holds())
      return r;
  }
  return check_residency(c.block_threads, c.blocks_per_sm, g.smem_bytes, d);
}

std::string validate(const Problem& p) {
  if (p.channels < 1 || p.channels > 4096) return "channels must be 1 .. 4096";
  if (p.active_channels < 1 || p.active_channels > p.channels)
    return "active_channels must be 1 .. channels";
  if (static_cast<double>(p.num_bins) * p.active_channels > 4294967295.0)
    return "num_bins x active_channels counters exceed 2^32";
  return validate_pitch(p);
}

MultiChannelGeometry geometry(const MultiChannelConfig& c, const Problem& p, const DeviceInfo& d) {
  MultiChannelGeometry g;
  g.channels_per_block = owned_channels(c, p);
  g.block = static_cast<unsigned>(c.block_threads);
  g.row_stride = row_stride(c, p);
  // Layout 1 keeps 32 lane copies of each histogram, and only of the active channels when the
  // block owns every channel (multichannel.cuh).
  const bool lanes_striped = c.layout == ChannelLayout::lane_striped;
  const std::size_t hists = lanes_striped && g.channels_per_block == p.channels
                                ? p.active_channels
                                : g.channels_per_block;
  const std::size_t lanes = lanes_striped ? 32 : 1;
  const std::size_t private_words =
      c.layout == ChannelLayout::global ? 0 : c.private_copies * hists * g.row_stride * lanes;
  // Range binning's levels or u8 table, after the histograms.
  g.smem_bytes = private_words * sizeof(std::uint32_t) + range_smem_bytes(p);
  // Only groups holding an active channel are launched.
  const unsigned int groups = (p.active_channels + g.channels_per_block - 1) / g.channels_per_block;
  const std::size_t per_load = c.vector_bytes ? c.vector_bytes / sample_bytes(p.sample_type) : 1;
  const std::uint64_t per_block_step = static_cast<std::uint64_t>(c.block_threads) *
                                       c.vectors_per_thread * per_load;
  const std::uint64_t work = p.n * g.channels_per_block;  // samples per group
  const std::uint64_t steps = std::max<std::uint64_t>(1, (work + per_block_step - 1) / per_block_step);
  const std::uint64_t resident = static_cast<std::uint64_t>(c.blocks_per_sm) * std::max(d.sm_count, 1);
  const std::uint64_t per_group = std::max<std::uint64_t>(1, resident / groups);
  g.grid = dim3(groups, static_cast<unsigned>(std::min<std::uint64_t>({steps, per_group, 65535})));
  return g;
}

namespace {
// When no tuned candidate fits (histograms too large for their channels to share a block): the
// largest channel group whose histograms fit one block, as many blocks per SM as fit beside each
// other (1024 threads an SM), the widest load the group allows. Found whenever one channel's
// histogram fits (check()'s one_channel_bytes), since cpb1 with one-sample loads always passes
// the other restrictions; else the global layout.
std::optional<MultiChannelConfig> fitted(const Problem& p, const DeviceInfo& d) {
  if (one_channel_bytes(p) > d.smem_per_block_optin) {
    for (const int vec : {16, 8, 4, 0}) {
      MultiChannelConfig c;
      c.block_threads = 256;
      c.vectors_per_thread = 2;
      c.vector_bytes = vec;
      c.padding = 0;
      c.blocks_per_sm = 8;
      c.layout = ChannelLayout::global;
      if (auto fit = fewer_blocks_per_sm(c, [&](const auto& x) { return check(x, p, d); }))
        return fit;
    }
  }
  for (const int cpb : {0, 128, 64, 32, 16, 8, 4, 2, 1})
    for (const int pad : {1, 0})
      for (const int bps : {4, 2, 1})
        for (const int vec : {16, 8, 4, 0}) {
          MultiChannelConfig c;
          c.block_threads = 1024 / bps;
          c.vectors_per_thread = 2;
          c.vector_bytes = vec;
          c.channels_per_block = cpb;
          c.padding = pad;
          c.blocks_per_sm = bps;
          if (check(c, p, d).holds()) return c;
        }
  return std::nullopt;
}
}  // namespace

MultiChannelConfig default_for(const Problem& p, const DeviceInfo& d) {
  // H100 bests of a probe (git show 450c83b:docs/results/h100/session2/probe-multichannel.log):
  // pixels with the whole pixel in one block and 4 copies; many channels in groups of 64. Session
  // 6: groups of 32 channels, channel-interleaved and prefetching, 0.240 against 0.273 ms for
  // groups of 64 on [1048576, 512] (probe-mc-1Mx512-*.log); with the L2 256-byte fetch of row
  // tiles, 64 channels in 2 copies: 0.2087 ms (probe-mc-l2-256B-hint.log; both in git show
  // 450c83b:docs/results/h100/session6/). Session 7: five of six cold plans chose groups of 32 in
  // one copy, one block per SM: 0.2013 against 0.2087 ms for that default in one bench
  // (git show 450c83b:docs/results/h100/session7/bench-m.log). Lane-striped, prefetching pixels
  // came out 3-5% ahead of 4 row copies (RGBA 3 of 4 on the H100: 0.0505-0.0512 against
  // 0.0529-0.0535 ms, git show 450c83b:docs/results/h100/session4/probe-multichannel-layouts.log).
  // Groups of 64 channels with eight-byte loads come before groups of 32: faster on many
  // channels on the H200 (docs/kernels.md, session 47).
  const char* candidates[] = {"mc.tpb1024.vpt2.vec16.cpb0.pc1.pad0.bps2.u0.lay1.pf1",
                              "mc.tpb1024.vpt2.vec16.cpb0.pc4.pad1.bps2.u0",
                              "mc.tpb1024.vpt4.vec8.cpb64.pc1.pad0.bps1.u0.lay2.pf1",
                              "mc.tpb1024.vpt2.vec16.cpb32.pc1.pad0.bps1.u0.lay2.pf1",
                              "mc.tpb1024.vpt2.vec16.cpb64.pc2.pad0.bps1.u0.lay2.pf1",
                              "mc.tpb1024.vpt2.vec16.cpb64.pc1.pad1.bps2.u0",
                              "mc.tpb512.vpt2.vec16.cpb32.pc1.pad1.bps4.u0",
                              "mc.tpb256.vpt2.vec16.cpb32.pc1.pad1.bps4.u0",
                              "mc.tpb256.vpt2.vec16.cpb16.pc1.pad1.bps4.u0",
                              "mc.tpb256.vpt1.vec0.cpb4.pc1.pad1.bps4.u0",
                              "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps1.u0"};
  for (const char* label : candidates) {
    const auto c = MultiChannelConfig::parse(label);
    if (c && check(*c, p, d).holds()) return *c;
  }
  if (auto c = fitted(p, d)) return *c;
  return MultiChannelConfig{};  // nothing fits: check() says why (one channel is too large)
}

CompileRequest request(const MultiChannelConfig& c, const Problem& p, int arch) {
  std::vector<std::string> defs = params::defines(params(), c);
  defs.push_back("-DHT_CPB=" + std::to_string(owned_channels(c, p)));
  defs.push_back("-DHT_CHANNELS=" + std::to_string(p.channels));
  defs.push_back("-DHT_ACTIVE=" + std::to_string(p.active_channels));
  // A compile-time stride folds each sample's channel offset into its atomic's address.
  defs.push_back("-DHT_ROW_STRIDE=" + std::to_string(row_stride(c, p)));
  for (auto& s : sample_defines(p)) defs.push_back(std::move(s));
  if (p.pitched()) defs.push_back("-DHT_PITCHED=1");
  return CompileRequest{kTemplate, defs, arch, c.label()};
}

void launch(KernelCache& cache, const Kernel& k, const MultiChannelConfig& c, const Problem& p,
            const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
            cudaStream_t stream) {
  MultiChannelLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream);
}

}  // namespace multichannel

// ---- the prepared launch ---------------------------------------------------------------------

MultiChannelLaunch::MultiChannelLaunch(KernelCache& cache, const Kernel& k,
                                       const MultiChannelConfig& c, const Problem& p,
                                       const DeviceInfo& d)
    : kernel_(k),
      geometry_(multichannel::geometry(c, p, d)),
      pitched_(p.pitched()),
      two_phase_(c.two_phase == 1) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
  if (two_phase_) reducer_ = two_phase::Reducer(cache, d);
}

MultiChannelArgs MultiChannelLaunch::args(const Problem& p, const void* d_samples,
                                          std::uint32_t* d_counts) const {
  return KernelArgs::of(p, d_samples, d_counts, geometry_.row_stride);
}

void MultiChannelLaunch::operator()(const Problem& p, const void* d_samples,
                                    std::uint32_t* d_counts, cudaStream_t stream) const {
  if (p.pitched() != pitched_)
    throw Error(StatusCode::invalid_argument,
                "histtune: " + p.describe() + ": a launch prepared for " +
                    (pitched_ ? "pitched" : "packed") + " rows called with " +
                    (p.pitched() ? "pitched" : "packed") + " ones (the kernel is the other variant)");
  const std::uint64_t width = std::uint64_t{p.num_bins} * p.active_channels;
  auto launch = [&](std::uint32_t* counts) {
    MultiChannelArgs a = args(p, d_samples, counts);
    auto ptrs = a.pointers();
    HT_CUDA(cudaLaunchKernel(kernel_.func(), geometry_.grid, dim3(geometry_.block), ptrs.data(),
                             geometry_.smem_bytes, stream));
  };
  if (two_phase_ && p.n > 0) {  // the blocks store every count: no zeroing
    reducer_(geometry_.grid.y, width, d_counts, stream, launch);
    return;
  }
  HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * width, stream));
  if (p.n == 0) return;
  launch(d_counts);
}

bool MultiChannelConfig::operator==(const MultiChannelConfig& o) const {
  return params::equal(multichannel::params(), *this, o);
}

std::string MultiChannelConfig::label() const {
  return params::label(multichannel::params(), *this, multichannel::kLabelPrefix);
}

std::optional<MultiChannelConfig> MultiChannelConfig::parse(const std::string& label) {
  // tpb .. u: the fields before layout and prefetch existed (histtune 0.3).
  return params::parse(multichannel::params(), label, 8, multichannel::kLabelPrefix);
}

std::string MultiChannelConfig::to_json() const {
  return params::json(multichannel::params(), *this);
}

}  // namespace histtune
