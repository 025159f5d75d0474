#include "histtune/hist1d.hpp"

#include "histtune/two_phase.hpp"
#include "restrictions.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>

namespace histtune {
namespace hist1d {

const std::vector<Hist1DParam>& params() {
  // Values are listed simplest first: near-ties are broken in favour of earlier values.
  static const std::vector<Hist1DParam> table = {
      param<&Hist1DConfig::block_threads>("block_threads", "tpb", {256, 128, 512, 1024}, true),
      param<&Hist1DConfig::vectors_per_thread>("vectors_per_thread", "vpt", {1, 2, 4, 8}, true),
      param<&Hist1DConfig::vector_bytes>("vector_bytes", "vec", {0, 4, 8, 16}, true),
      param<&Hist1DConfig::private_copies>("private_copies", "pc", {1, 2, 4, 8, 16, 32}, true),
      param<&Hist1DConfig::layout>("layout", "lay", {0, 1}, true),
      param<&Hist1DConfig::aggregate>("aggregate", "agg", {0, 1, 2}, true),
      param<&Hist1DConfig::unroll>("unroll", "u", {0, 2}, true),
      param<&Hist1DConfig::padding>("padding", "pad", {0, 1}, false),
      param<&Hist1DConfig::blocks_per_sm>("blocks_per_sm", "bps", {8, 1, 2, 4, 16}, false),
      param<&Hist1DConfig::storage>("storage", "st", {0, 1, 2, 3, 4, 5}, true),
      param<&Hist1DConfig::batch>("batch", "b", {1, 2, 4}, true),
      param<&Hist1DConfig::single_block>("single_block", "sb", {0, 1}, true),
      param<&Hist1DConfig::cluster>("cluster", "cl", {1, 2, 4, 8}, true),
      param<&Hist1DConfig::prefetch>("prefetch", "pf", {0, 1, 2}, true),
      param<&Hist1DConfig::two_phase>("two_phase", "tp", {0, 1}, true),
  };
  return table;
}

Hist1DConfig default_config() { return Hist1DConfig{}; }

namespace {

// A built-in candidate: its label, the most bin-range slices it is taken with, the fewest
// samples and the narrowest sample type (bytes).
struct Candidate {
  const char* label;
  unsigned slices = 1;
  std::uint64_t min_n = 0;
  std::size_t min_sample_bytes = 1;
};

// Candidates in order, the first valid one wins; each was an H100 winner (or near one) for
// problems of its kind (docs/kernels.md has the measurements).
std::vector<Candidate> default_candidates(const Problem& p) {
  if (p.num_bins >= kLargeBinsFrom) {
    // Packed counters hold up to ~116K bins in one block (u32 65536 bins 2^26 on the H100:
    // 0.107 ms worst of uniform/skewed/constant against 0.53 ms for a cluster pair). Beyond,
    // 32-bit copies while a few slices hold them (i32 131072 bins 2^26: three slices, 0.131 ms
    // worst of four distributions), then partition-then-count on large inputs (on sm_90 its next
    // tile by bulk copy; elsewhere without prefetch: register prefetch ran 4-22% slower), then
    // atomics on the output (docs/kernels.md has the figures).
    // The first holds 16 samples of 4 bytes a thread and tile; narrower samples skip it: 32 u16
    // samples ran 4-9% slower than the next's 16 on u16 65536 bins 2^24 (H200, session 46).
    std::vector<Candidate> out = {
        {"tpb1024.vpt4.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1", 1, 0, 4},
        {"tpb1024.vpt2.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1"},
        {"tpb1024.vpt1.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1"},
        {"tpb1024.vpt4.vec16.pc1.lay0.agg0.u2.pad0.bps1.st0.b1.sb0.cl1.pf1", 4},
        {"tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf2", 1,
         kPartitionedFromSamples},
        {"tpb512.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf2", 1,
         kPartitionedFromSamples},  // 8-byte samples: the same bytes a thread (not timed)
        {"tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf0", 1,
         kPartitionedFromSamples},
        {"tpb512.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf0", 1,
         kPartitionedFromSamples},  // 8-byte samples: the same bytes a thread (not timed)
        {"tpb128.vpt8.vec16.pc1.lay0.agg1.u2.pad0.bps2.st2.b2.sb0.cl1.pf1"},
        {"tpb256.vpt1.vec16.pc1.lay0.agg1.u0.pad0.bps8.st2.b1.sb0.cl1"}};
    // Range binning of 4-byte samples partitions before it slices: every slice's blocks search
    // every sample (f32 131072 bins 2^24: 2.08 ms sliced, 0.69 partitioned on the worst case).
    if (values_partitioned(p))
      out.insert(out.begin() + 3, {"tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf0",
                                   1, kPartitionedFromSamples});
    return out;
  }
  if (p.n >= (std::uint64_t{1} << 22))
    return {{"tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1"},
            {"tpb1024.vpt4.vec16.pc2.lay0.agg0.u0.pad1.bps2.st0.b1.sb0.cl1"},
            {"tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1"},
            // A seed, never a default where an earlier candidate runs: 16-bit samples' best
            // shape, which a search from the others alone can miss (docs/tuning.md, session 46).
            {"tpb1024.vpt8.vec8.pc1.lay0.agg0.u2.pad0.bps1.st0.b1.sb0.cl1"}};
  if (p.n > (std::uint64_t{1} << 17)) {
    // The second for 8-byte samples, which vec8 loads one at a time: the same bytes per thread
    // in one 16-byte load (not timed; the tuner finds better where it has run).
    return {{"tpb1024.vpt2.vec8.pc1.lay0.agg0.u2.pad0.bps2.st0.b1.sb0.cl1"},
            {"tpb1024.vpt1.vec16.pc1.lay0.agg0.u2.pad0.bps2.st0.b1.sb0.cl1"}};
  }
  if (p.n > kSingleBlockDefaultMaxSamples)
    return {{"tpb512.vpt2.vec0.pc2.lay0.agg0.u2.pad1.bps1.st0.b1.sb0.cl1"}};
  return {{"tpb512.vpt2.vec16.pc2.lay0.agg0.u0.pad0.bps1.st0.b1.sb1.cl1"},
          {"tpb512.vpt2.vec0.pc2.lay0.agg0.u2.pad1.bps1.st0.b1.sb0.cl1"}};
}

}  // namespace

namespace {

// c on p and d as it is, or with fewer blocks per SM where the device has fewer threads or less
// shared memory an SM than the GPUs it was measured on; nullopt where neither runs.
std::optional<Hist1DConfig> fitted(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d) {
  return fewer_blocks_per_sm(c, [&](const Hist1DConfig& x) { return check(x, p, d); });
}

// The candidates of default_candidates(p) that may run p, in order, at most `want` of them
// (default_for needs the first alone: it stops there). `untuned`: the choice runs untimed, so
// slices need many samples per bin (with few, each slice's blocks flush about as many atomics as
// they count samples); a seed is timed, so it takes the slices its candidate allows: a sliced
// kernel can still win with few samples a bin, and a search without the seed may not reach it
// (docs/tuning.md, session 36).
std::vector<Hist1DConfig> usable_candidates(const Problem& p, const DeviceInfo& d,
                                            std::size_t want, bool untuned) {
  const unsigned most =
      untuned && p.n < kSliceSamplesPerBin * p.num_bins ? 1 : kMaxSlices;
  std::vector<Hist1DConfig> out;
  // The candidates as measured first; fitted to the device's SM only where none runs as it is,
  // so that the GPUs they were measured on keep their choice.
  const auto usable = [&](const Hist1DConfig& c, bool fit) -> std::optional<Hist1DConfig> {
    if (fit) return fitted(c, p, d);
    if (check(c, p, d).holds()) return c;
    return std::nullopt;
  };
  for (const bool fit : {false, true}) {
    if (fit && !out.empty()) break;
    for (const Candidate& k : default_candidates(p)) {
      if (out.size() == want) break;
      const auto parsed = Hist1DConfig::parse(k.label);
      if (!parsed || p.n < k.min_n || sample_bytes(p.sample_type) < k.min_sample_bytes) continue;
      const auto c = usable(*parsed, fit);
      if (c && geometry(*c, p, d).slices <= std::min(k.slices, most)) out.push_back(*c);
    }
  }
  return out;
}

}  // namespace

Hist1DConfig default_for(const Problem& p, const DeviceInfo& d) {
  const std::vector<Hist1DConfig> usable = usable_candidates(p, d, 1, true);
  if (!usable.empty()) return usable.front();
  return fitted(default_config(), p, d).value_or(default_config());  // else check() says why
}

std::vector<Hist1DConfig> default_alternatives(const Problem& p, const DeviceInfo& d) {
  const std::string chosen = default_for(p, d).label();
  std::vector<Hist1DConfig> out;
  for (Hist1DConfig& c : usable_candidates(p, d, SIZE_MAX, false))
    if (c.label() != chosen) out.push_back(std::move(c));
  return out;
}

std::vector<Hist1DConfig> space() { return params::space(params()); }

namespace {

// What one count block takes, its static arrays with its bins: what the device's limit bounds.
std::size_t count_block_smem(int bits, std::size_t level_bytes) {
  return count_pass_smem(bits, level_bytes) + kCountPassStaticSmem;
}

// Storage 5's rules: the partition pass keeps no copies, runs or single block, and its
// partitions and a round's workspace must fit.
Restriction check_partitioned(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d) {
  if (c.private_copies != 1 || c.layout != Layout::rows || c.aggregate == Aggregate::thread_runs ||
      c.single_block != 0 || c.two_phase != 0)
    return Restriction::rule(
        "partitioned storage (5) ranks samples per partition: no copies, layout, runs (aggregate "
        "1), single block or two-phase flush");
  if (p.num_bins < kLargeBinsFrom)
    return Restriction::rule("partitioned storage (5) is for " + std::to_string(kLargeBinsFrom) +
                             " bins or more");
  if (partitions(p, d.arch()) > kMaxPartitions)
    return Restriction::rule("partitioned storage (5) makes at most " +
                             std::to_string(kMaxPartitions) + " partitions of 2^" +
                             std::to_string(partition_bits_max(d.arch(), staged_level_bytes(p))) +
                             " bins, " +
                             std::to_string(p.num_bins) + " bins need " +
                             std::to_string(partitions(p, d.arch())));
  if (const std::size_t count =
          count_block_smem(partition_bits(p, d.arch()), staged_level_bytes(p));
      count > d.smem_per_block_optin)
    return Restriction::rule("partitioned storage (5): the count pass's " + std::to_string(count) +
                             " B of shared memory exceed the device's per-block limit " +
                             std::to_string(d.smem_per_block_optin) + " B");
  if (partition_chunk(c, p, d) == 0)
    return Restriction::rule("partitioned storage (5): one tile's workspace (" +
                             std::to_string(partition_workspace_bytes(c, p, tile_samples(c, p),
                                                                      d.arch())) +
                             " B) exceeds the temporary-memory limit (" +
                             std::to_string(two_phase::max_bytes(d)) + " B)");
  return {};
}

// The most samples one thread of a non-partitioned kernel counts (hist1d.cuh): its group's share
// of the whole tiles, then at most a tile's vectors more, the head's sample and the tail's.
std::uint64_t samples_a_thread_counts(const Hist1DConfig& c, const Problem& p,
                                      const LaunchGeometry& g) {
  const std::uint64_t tile = tile_samples(c, p), per_thread = tile / c.block_threads;
  const std::uint64_t groups = std::max<std::uint64_t>(1, g.grid / std::max(g.slices, 1u));
  return ((p.n / tile + groups - 1) / groups + 1) * per_thread + 2;
}

}  // namespace

Restriction check(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d) {
  if (Restriction r = params::check_values(params(), c); !r.holds()) return r;
  const int warps = c.block_threads / 32;
  if (c.private_copies > warps)
    return Restriction::rule("private_copies (" + std::to_string(c.private_copies) +
                             ") > warps per block (" + std::to_string(warps) + ")");
  if (c.padding > 0 && (c.private_copies == 1 || c.layout != Layout::rows))
    return Restriction::rule(
        "padding only separates the rows of several copies (needs pc > 1, layout 0)");
  if (c.vector_bytes != 0 &&
      static_cast<std::size_t>(c.vector_bytes) <= sample_bytes(p.sample_type))
    return Restriction::rule("vector_bytes " + std::to_string(c.vector_bytes) + " is one " +
                             to_string(p.sample_type) + " sample: that is vec0");
  const std::size_t per_load = c.vector_bytes ? c.vector_bytes / sample_bytes(p.sample_type) : 1;
  // Per-thread counters run few threads, each with more loads in flight: they may take 64.
  const std::size_t max_per_tile = c.storage == Storage::thread_counters ? 64 : 32;
  if (per_load * c.vectors_per_thread > max_per_tile)
    return Restriction::rule(
        "more than " + std::to_string(max_per_tile) + " samples per thread per tile (" +
        std::to_string(per_load * c.vectors_per_thread) + "): registers and code size");
  if (c.storage == Storage::thread_counters &&
      (c.private_copies != 1 || c.layout != Layout::rows || c.aggregate != Aggregate::none))
    return Restriction::rule(
        "per-thread counters (storage 1) never contend: no copies, layout or aggregation");
  if (c.aggregate == Aggregate::warp_match && c.storage != Storage::packed &&
      c.storage != Storage::partitioned)
    return Restriction::rule(
        "warp aggregation (aggregate 2) is for packed counters (storage 4), whose variable "
        "adds the hardware does not merge, and the partition pass's ranks (storage 5)");
  if (c.prefetch == 2 && (c.storage != Storage::partitioned || d.cc_major < 9))
    return Restriction::rule(
        "prefetch 2 (the next tile by a bulk copy into shared memory) is for partitioned storage "
        "(5) on sm_90 or newer");
  if (c.storage == Storage::partitioned)
    if (Restriction r = check_partitioned(c, p, d); !r.holds()) return r;
  if (c.storage == Storage::packed) {
    if (c.layout != Layout::rows || c.single_block != 0)
      return Restriction::rule(
          "packed counters (storage 4) keep rows of words (layout 0) and add their carries to "
          "the output (no single block)");
    if (p.num_bins < kPackedBinsFrom)
      return Restriction::rule("packed counters (storage 4) are for " +
                               std::to_string(kPackedBinsFrom) +
                               " bins or more: below, 32-bit copies already fit several per block");
  }
  if (c.storage == Storage::global || c.storage == Storage::cluster) {
    if (c.private_copies != 1 || c.layout != Layout::rows || c.single_block != 0)
      return Restriction::rule(
          "global and cluster storage (2, 3) keep one shared histogram: no copies, layout or "
          "single block");
    if (p.num_bins < kLargeBinsFrom)
      return Restriction::rule("global and cluster storage (2, 3) are for " +
                               std::to_string(kLargeBinsFrom) + " bins or more");
  }
  if (c.storage == Storage::cluster && c.cluster == 1)
    return Restriction::rule("cluster storage (3) spreads its histogram over cluster > 1 blocks");
  if (c.cluster > 1 && c.storage != Storage::cluster &&
      !(c.storage == Storage::shared && c.single_block == 1))
    return Restriction::rule(
        "cluster > 1 with cluster storage (3), or one cluster of private copies (storage 0, "
        "single_block 1)");
  if (c.cluster > 1 && d.cc_major < 9)
    return Restriction::rule("thread-block clusters need sm_90 or newer");
  if ((c.storage == Storage::shared || c.storage == Storage::packed ||
       c.storage == Storage::partitioned) &&
      c.batch != 1)
    return Restriction::rule("batch only groups the loads of per-thread counters (storage 1)");
  if (c.batch > 1 && per_load * c.vectors_per_thread % c.batch != 0)
    return Restriction::rule("batch " + std::to_string(c.batch) + " does not divide the " +
                             std::to_string(per_load * c.vectors_per_thread) +
                             " samples of a tile");
  if (c.single_block == 1 && p.n > kSingleBlockMaxSamples)
    return Restriction::rule("single_block is for small inputs (n <= 2^22)");
  if (c.single_block == 1 && c.blocks_per_sm != 1)
    return Restriction::rule("single_block launches one block: blocks_per_sm 1");
  if (c.layout == Layout::lane_striped && c.private_copies > 4)
    return Restriction::rule(
        "lane-striped layout already has 32 sub-copies: private_copies at most 4");
  const bool block_histogram =
      c.storage == Storage::shared || c.storage == Storage::thread_counters;
  if (c.two_phase == 1 && (!block_histogram || c.single_block == 1))
    return Restriction::rule(
        "two-phase flush (two_phase 1) stores a block's shared-memory histogram (storage 0 "
        "or 1, not a single block)");
  const LaunchGeometry g = geometry(c, p, d);
  if (c.storage == Storage::packed && c.aggregate == Aggregate::thread_runs)
    if (const std::uint64_t most = samples_a_thread_counts(c, p, g); most > 0xFFFF)
      return Restriction::rule(
          "packed counters (storage 4) merging runs (aggregate 1): a thread would count up to " +
          std::to_string(most) + " samples, and a run of them must fit a 16-bit counter");
  if (c.two_phase == 1) {
    const std::uint64_t partials = std::uint64_t{g.grid} * p.num_bins * sizeof(std::uint32_t);
    if (Restriction r = check_partials(partials, "blocks x bins", d); !r.holds()) return r;
  }
  return check_residency(c.block_threads, c.blocks_per_sm, g.smem_bytes, d);
}

namespace {

// Prefetch 2's shared memory in the partition pass: two mbarriers (16 bytes) and two whole
// tiles, the one being ranked and the next, arriving by bulk copy (hist1d.cuh).
std::size_t bulk_prefetch_bytes(const Hist1DConfig& c, const Problem& p) {
  if (c.storage != Storage::partitioned || c.prefetch != 2) return 0;
  return 16 + 2 * tile_samples(c, p) * sample_bytes(p.sample_type);
}

// The counters' shared memory for `bins` bins (a slice's or all), and their row stride.
std::size_t counter_bytes(const Hist1DConfig& c, const Problem& p, int arch, std::uint32_t bins,
                          unsigned& row_stride) {
  const unsigned sink = has_sink(c, p) ? 1u : 0u;
  row_stride = bins + sink + static_cast<unsigned>(c.padding);
  const std::size_t word = sizeof(std::uint32_t);
  switch (c.storage) {
    case Storage::global:
      return 0;
    case Storage::partitioned: {  // the partition pass (hist1d.cuh, HtPartSmem): counts and
                                  // 16-bit starts per partition, padded to whole scan rows of
                                  // 128, four words of groups, the stages (two from sm_90, whose
                                  // tiles leave by bulk copy) and prefetch 2's tiles
      const std::size_t padded = (partitions(p, arch) + 127) / 128 * 128;
      const std::size_t stages = partition_bulk_out(arch) ? 2 : 1;  // and as many counts
      return (stages * padded + padded / 2 + 4) * word +
             stages * partition_tile_bytes(c, p, arch) +
             bulk_prefetch_bytes(c, p);
    }
    case Storage::cluster:
      return (static_cast<std::size_t>(bins) + c.cluster - 1) / c.cluster * word;
    case Storage::packed:  // copies of 16-bit counters two per word, rows padded like storage 0's
      row_stride = (bins + 1) / 2 + static_cast<unsigned>(c.padding);
      return static_cast<std::size_t>(c.private_copies) * row_stride * word;
    case Storage::thread_counters: {  // 16-bit counters two per word per thread, then the block's
      const std::size_t thread_words = (static_cast<std::size_t>(bins) + 1) / 2;
      return (thread_words * c.block_threads + bins) * word;
    }
    case Storage::shared:
      break;
  }
  const std::size_t copy_words =
      c.layout == Layout::rows ? row_stride : (static_cast<std::size_t>(bins) + sink) * 32;
  return static_cast<std::size_t>(c.private_copies) * copy_words * word;
}

// What one block may take so that check_residency() accepts blocks_per_sm of them.
std::size_t smem_budget(const Hist1DConfig& c, const DeviceInfo& d) {
  std::size_t budget = d.smem_per_block_optin;
  if (c.blocks_per_sm > 1 && d.smem_per_sm > 0)
    budget = std::min(budget, d.smem_per_sm / static_cast<std::size_t>(c.blocks_per_sm) - 1024);
  return budget;
}

// Range binning's shared memory after the counters: with partitioned storage of 4-byte samples
// the partitions' first levels, their grid's cells and its scan's scratch (ht_common.cuh's
// ht_range_setup with HT_RANGE_SHIFT), else range_smem_bytes.
std::size_t range_bytes(const Hist1DConfig& c, const Problem& p, int arch) {
  if (c.storage != Storage::partitioned || !values_partitioned(p)) return range_smem_bytes(p);
  return (partitions(p, arch) + kRangeGridCells + 32) * sizeof(std::uint32_t);
}

}  // namespace

LaunchGeometry geometry(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d) {
  LaunchGeometry g;
  g.block = static_cast<unsigned>(c.block_threads);
  // Range binning keeps its levels (or the u8 table) after the counters; 0 for other binnings.
  const std::size_t range = range_bytes(c, p, d.arch());
  g.smem_bytes = counter_bytes(c, p, d.arch(), counted_bins(c, p), g.row_stride) + range;
  // Bins beyond a block: the fewest slices whose copies fit (else kMaxSlices, which
  // check_residency() then refuses).
  if (sliced(c, p)) {
    const std::size_t budget = smem_budget(c, d);
    while (g.smem_bytes > budget && g.slices < kMaxSlices) {
      ++g.slices;
      const std::uint32_t width = (p.num_bins + g.slices - 1) / g.slices;
      g.smem_bytes = counter_bytes(c, p, d.arch(), width, g.row_stride) + range;
    }
  }
  const std::uint64_t tile = tile_samples(c, p);
  const std::uint64_t tiles = (p.n + tile - 1) / tile;
  const std::uint64_t resident = static_cast<std::uint64_t>(c.blocks_per_sm) * std::max(d.sm_count, 1);
  // Each slice's blocks: one group per resident set of `slices` blocks, at most one per tile.
  const std::uint64_t groups = std::max<std::uint64_t>(1, std::min(tiles, resident / g.slices));
  g.grid = static_cast<unsigned>(groups * g.slices);
  if (c.single_block) g.grid = 1;
  // A cluster launch needs a whole number of clusters.
  if (c.cluster > 1)
    g.grid = std::max<unsigned>(c.cluster, g.grid / static_cast<unsigned>(c.cluster) * c.cluster);
  return g;
}

Restriction serves(const Hist1DConfig& c, const Problem& tuned, const Problem& p,
                   const DeviceInfo& d) {
  if (Restriction r = check(c, p, d); !r.holds()) return r;
  const unsigned was = geometry(c, tuned, d).slices, now = geometry(c, p, d).slices;
  if (now > was)
    return Restriction::rule("timed on " + std::to_string(tuned.num_bins) + " bins in " +
                             std::to_string(was) + " slice(s), it would run " +
                             std::to_string(p.num_bins) + " bins in " + std::to_string(now) +
                             " (each slice reads the input again)");
  // Partitioned: its count pass runs a block per partition, so with fewer partitions than it was
  // timed with fewer SMs count (half as many took 1.5x the default's time: docs/kernels.md).
  if (c.storage == Storage::partitioned) {
    const std::uint32_t timed = partitions(tuned, d.arch()), here = partitions(p, d.arch());
    if (here < timed)
      return Restriction::rule("timed on " + std::to_string(timed) + " partitions, it would count " +
                               std::to_string(p.num_bins) + " bins in " + std::to_string(here));
  }
  // One block counts every sample on one SM: a winner timed on 2^12 samples took 6.5 us a call in
  // a graph on 2^16, the default 3.5.
  if (c.single_block && p.n > 2 * tuned.n)
    return Restriction::rule("one block, timed on " + std::to_string(tuned.n) +
                             " samples, would count " + std::to_string(p.n));
  return {};
}

bool sliced(const Hist1DConfig& c, const Problem& p) {
  return (c.storage == Storage::shared || c.storage == Storage::packed) && c.two_phase == 0 &&
         c.single_block == 0 && p.num_bins >= kLargeBinsFrom;
}

bool has_sink(const Hist1DConfig& c, const Problem& p) {
  return c.storage == Storage::shared && needs_sink(p) && !sliced(c, p) && !byte_decoded(c, p);
}

Zeroing zeroing(const Problem& p, const DeviceInfo& d) {
  if (d.cc_major < 9 || p.n == 0) return Zeroing::memset;
  if (p.num_bins >= kZeroKernelFromBins) return Zeroing::kernel;
  if (p.n * sample_bytes(p.sample_type) <= kZeroKernelUpToBytes) return Zeroing::kernel_in_graphs;
  return Zeroing::memset;
}

bool byte_decoded(const Hist1DConfig& c, const Problem& p) {
  const bool binned = p.binning == Binning::even || p.binning == Binning::range;
  const bool adds = (c.storage == Storage::shared || c.storage == Storage::thread_counters) &&
                    c.single_block == 0 && c.two_phase == 0;
  // u8 with 256 bins has a bin for every byte already; i8's bins always take arithmetic (its
  // values are signed), so up to 256 of them decode.
  const std::uint32_t most = p.sample_type == SampleType::i8 ? kByteValues : kByteValues - 1;
  const bool bytes = p.sample_type == SampleType::u8 || p.sample_type == SampleType::i8;
  return bytes && binned && p.num_bins <= most && adds;
}

std::uint32_t counted_bins(const Hist1DConfig& c, const Problem& p) {
  return byte_decoded(c, p) ? kByteValues : p.num_bins;
}

static std::uint32_t partitions_of(std::uint32_t bins, int bits) {
  return static_cast<std::uint32_t>((std::uint64_t{bins} + (1u << bits) - 1) >> bits);
}

bool values_partitioned(const Problem& p) {
  return p.binning == Binning::range && sample_bytes(p.sample_type) == 4;
}

std::size_t staged_level_bytes(const Problem& p) {
  return values_partitioned(p) ? sample_bytes(p.sample_type) : 0;
}

std::size_t partition_slot_bytes(const Problem& p) {
  return values_partitioned(p) ? sample_bytes(p.sample_type) : sizeof(std::uint16_t);
}

std::size_t count_pass_smem(int bits, std::size_t level_bytes) {
  const std::size_t bins = std::size_t{1} << bits;
  if (level_bytes == 0) return (bins + 1) * sizeof(std::uint32_t);
  // The levels start on an 8-byte boundary after the bins and the sink, a word of padding
  // after every 32, then a word for each cell of the levels' grid (hist1d.cuh).
  return (bins + 2) * sizeof(std::uint32_t) + (bins + bins / 32 + 1) * level_bytes +
         bins * sizeof(std::uint32_t);
}

int partition_bits_max(int arch, std::size_t level_bytes) {
  const std::size_t smem = arch_smem_per_block_optin(arch);
  if (smem == 0) return kPartitionBitsPortable;
  int bits = kPartitionBitsMax;
  while (bits > kPartitionBitsMin && count_block_smem(bits, level_bytes) > smem) --bits;
  return bits;
}

bool partition_bulk_out(int arch) { return arch >= 90; }

int partition_bits(const Problem& p, int arch) {
  const int most = partition_bits_max(arch, staged_level_bytes(p));
  int bits = kPartitionBitsMin;
  while (bits < most && partitions_of(p.num_bins, bits) > kTargetPartitions) ++bits;
  return bits;
}

std::uint32_t partitions(const Problem& p, int arch) {
  return partitions_of(p.num_bins, partition_bits(p, arch));
}

// Both of storage 5's programs are compiled for the problem's partition width.
static std::string partition_bits_define(const Problem& p, int arch) {
  return "-DHT_PARTITION_BITS=" + std::to_string(partition_bits(p, arch));
}

std::uint64_t tile_samples(const Hist1DConfig& c, const Problem& p) {
  const std::size_t per_load = c.vector_bytes ? c.vector_bytes / sample_bytes(p.sample_type) : 1;
  return static_cast<std::uint64_t>(c.block_threads) * c.vectors_per_thread * per_load;
}

std::uint64_t partition_tile_slots(const Hist1DConfig& c, const Problem& p, int arch) {
  return tile_samples(c, p) + 16 / partition_slot_bytes(p) * partitions(p, arch);
}

std::uint64_t partition_tile_bytes(const Hist1DConfig& c, const Problem& p, int arch) {
  return partition_tile_slots(c, p, arch) * partition_slot_bytes(p);
}

std::uint64_t partition_workspace_bytes(const Hist1DConfig& c, const Problem& p, std::uint64_t n,
                                        int arch) {
  const std::uint64_t tile = tile_samples(c, p), stride = n / tile + 2;  // hist1d.cuh
  const std::uint64_t parts = partitions(p, arch), table_words = (parts * stride + 3) / 4 * 4;
  return (table_words + parts) * sizeof(std::uint32_t) +
         stride * partition_tile_bytes(c, p, arch);
}

std::uint32_t partition_target(std::uint64_t n, const Problem& p, const DeviceInfo& d) {
  const std::uint64_t spread =
      std::max<std::uint64_t>(partitions(p, d.arch()), std::max(d.sm_count, 1));
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, 2 * n / spread));
}

std::uint64_t partition_chunk(const Hist1DConfig& c, const Problem& p, const DeviceInfo& d) {
  const std::uint64_t tile = tile_samples(c, p), limit = two_phase::max_bytes(d);
  // Per tile: its slots and a table word per partition; plus the two extra tiles, the alignment
  // and the sizes.
  const std::uint64_t per_tile =
      partition_tile_bytes(c, p, d.arch()) + partitions(p, d.arch()) * 4ull;
  const std::uint64_t fixed = 2 * per_tile + 16 + partitions(p, d.arch()) * 4ull;
  return limit > fixed ? (limit - fixed) / per_tile * tile : 0;
}

std::vector<std::string> defines(const Hist1DConfig& c, const Problem& p, int arch) {
  std::vector<std::string> out = c.defines();
  // Only per-thread counters batch their loads: the other storages' programs are the same for
  // every batch (global and cluster storage accept any, as their stored labels do).
  if (c.storage != Storage::thread_counters) params::set_define(out, "HT_BATCH", 1);
  if (c.storage == Storage::partitioned) {
    out.push_back(partition_bits_define(p, arch));
    // The partition pass is bound by its barriers and registers: blocks_per_sm becomes the
    // blocks the compiler must fit on an SM (launch bounds), so that they really are resident
    // together and one block's scan overlaps another's loads.
    const int threads = std::max(c.block_threads, 1);  // a fuzzed label may say 0
    const int resident =
        launch_bounds_blocks(threads, std::max(1, std::min(c.blocks_per_sm, 2048 / threads)));
    out.push_back("-DHT_MIN_BLOCKS=" + std::to_string(resident));
    out.push_back(std::string("-DHT_BULK_OUT=") + (partition_bulk_out(arch) ? "1" : "0"));
    if (values_partitioned(p)) {  // the partitions' first levels are the range index
      out.push_back("-DHT_PART_VALUES=1");
      out.push_back("-DHT_RANGE_SHIFT=" + std::to_string(partition_bits(p, arch)));
      out.push_back("-DHT_RANGE_GRID_CELLS=" + std::to_string(kRangeGridCells));
    }
  }
  for (auto& d : sample_defines(p)) out.push_back(std::move(d));
  out.push_back(std::string("-DHT_SINK=") + (has_sink(c, p) ? "1" : "0"));
  out.push_back(std::string("-DHT_SLICED=") + (sliced(c, p) ? "1" : "0"));
  out.push_back(std::string("-DHT_BYTE_DECODE=") + (byte_decoded(c, p) ? "1" : "0"));
  return out;
}

CompileRequest request(const Hist1DConfig& c, const Problem& p, int arch) {
  return CompileRequest{kTemplate, defines(c, p, arch), arch, c.label()};
}

CompileRequest count_request(const Hist1DConfig& c, const Problem& p, int arch) {
  const std::string tile = std::to_string(tile_samples(c, p));
  std::vector<std::string> count_defines{"-DHT_COUNT_PASSES=1", "-DHT_TILE=" + tile,
                                         partition_bits_define(p, arch)};
  std::string label = "count.tile" + tile + ".bits" + std::to_string(partition_bits(p, arch));
  if (values_partitioned(p)) {  // the samples' type and range binning (ht_common.cuh)
    count_defines.push_back("-DHT_PART_VALUES=1");
    count_defines.push_back("-DHT_VECTOR_BYTES=0");
    for (auto& d : sample_defines(p)) count_defines.push_back(std::move(d));
    label += ".values";
  }
  return CompileRequest{kTemplate, std::move(count_defines), arch, std::move(label)};
}

std::string validate(const Problem& p) {
  if (p.channels != 1 || p.active_channels != 1)
    return "channels apply to the multichannel family only";
  if (p.row_pixels != 0 || p.row_pitch_bytes != 0)
    return "a row pitch (row_pixels = " + std::to_string(p.row_pixels) + ", row_pitch_bytes = " +
           std::to_string(p.row_pitch_bytes) + ") applies to the multichannel family only";
  return {};
}

}  // namespace hist1d

bool Hist1DConfig::operator==(const Hist1DConfig& o) const {
  return params::equal(hist1d::params(), *this, o);
}

std::string Hist1DConfig::label() const { return params::label(hist1d::params(), *this); }

std::optional<Hist1DConfig> Hist1DConfig::parse(const std::string& label) {
  // tpb .. bps: the fields of the first labels (histtune 0.1).
  return params::parse(hist1d::params(), label, 9);
}

std::string Hist1DConfig::to_json() const { return params::json(hist1d::params(), *this); }

std::vector<std::string> Hist1DConfig::defines() const {
  return params::defines(hist1d::params(), *this);
}

}  // namespace histtune
