#include <gtest/gtest.h>

#include "fake_device.hpp"

#include <algorithm>
#include <map>
#include <random>

#include "histtune/family.hpp"
#include "histtune/hist1d.hpp"

using namespace histtune;

namespace {
using histtune::test::h100_like;
Problem u8_256(std::uint64_t n) {
  Problem p;
  p.num_bins = 256;
  p.n = n;
  return p;
}
}  // namespace

// The grid has ~22 M points (enumerating it took 76 s of CI): every value of every parameter,
// each beside random values of the others, and 50,000 random points. Every label parses back to
// its configuration, and no two distinct configurations share a label.
TEST(Hist1DConfig, LabelRoundTripsOverTheSpace) {
  const auto& table = hist1d::params();
  std::mt19937_64 rng(7);
  auto random_config = [&] {
    Hist1DConfig c;
    for (const auto& prm : table) prm.set(c, prm.values[rng() % prm.values.size()]);
    return c;
  };
  std::map<std::string, Hist1DConfig> seen;
  auto check = [&](const Hist1DConfig& c) {
    const std::string l = c.label();
    const auto back = Hist1DConfig::parse(l);
    ASSERT_TRUE(back) << l;
    EXPECT_EQ(*back, c) << l;
    const auto [it, fresh] = seen.emplace(l, c);
    if (!fresh) {
      EXPECT_EQ(it->second, c) << "two configurations share the label " << l;
    }
  };
  for (const auto& prm : table)
    for (int v : prm.values)
      for (int k = 0; k < 20; ++k) {
        Hist1DConfig c = random_config();
        prm.set(c, v);
        check(c);
      }
  for (int i = 0; i < 50000; ++i) check(random_config());
  EXPECT_GT(seen.size(), 40000u);
}

TEST(Hist1DConfig, DefaultIsTheTextbookKernel) {
  EXPECT_EQ(hist1d::default_config().label(),
            "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0");
  // A label written before storage, batch, single_block, cluster, prefetch and two_phase existed
  // means their first values.
  auto legacy = Hist1DConfig::parse("tpb512.vpt1.vec0.pc1.lay0.agg0.u2.pad0.bps8");
  ASSERT_TRUE(legacy);
  EXPECT_EQ(legacy->label(), "tpb512.vpt1.vec0.pc1.lay0.agg0.u2.pad0.bps8.st0.b1.sb0.cl1.pf0.tp0");
}

// The zeroing kernel replaces the memset where the H100 measured it faster: many bins always;
// inputs small enough that the launches dominate only in a graph (an eager call pays its second
// launch on the host); never before sm_90 or on an empty input.
TEST(Hist1DConfig, ZeroingKernelWhereItPays) {
  using hist1d::Zeroing;
  const DeviceInfo h100 = h100_like();
  auto zeroing = [&](const Problem& p) { return hist1d::zeroing(p, h100); };
  EXPECT_EQ(zeroing(flat_problem(SampleType::u32, Binning::direct, 4096, 1u << 26)), Zeroing::kernel);
  EXPECT_EQ(zeroing(flat_problem(SampleType::u32, Binning::direct, 4096, 1u << 10)), Zeroing::kernel);
  EXPECT_EQ(zeroing(flat_problem(SampleType::i32, Binning::direct, 64, 1u << 16)), Zeroing::kernel_in_graphs);
  EXPECT_EQ(zeroing(u8_256(1u << 20)), Zeroing::kernel_in_graphs);  // 1 MiB
  EXPECT_EQ(zeroing(u8_256((1u << 20) + 1)), Zeroing::memset);
  EXPECT_EQ(zeroing(u8_256(1u << 24)), Zeroing::memset);
  EXPECT_EQ(zeroing(flat_problem(SampleType::u16, Binning::direct, 1024, 1u << 27)), Zeroing::memset);
  EXPECT_EQ(zeroing(u8_256(0)), Zeroing::memset);
  DeviceInfo a100 = h100;
  a100.cc_major = 8;
  EXPECT_EQ(hist1d::zeroing(flat_problem(SampleType::u32, Binning::direct, 4096, 1u << 26), a100),
            Zeroing::memset);
  EXPECT_EQ(hist1d::zeroing(u8_256(1u << 16), a100), Zeroing::memset);
}

TEST(Hist1DConfig, TwoPhaseStoresSharedCopiesWithinTheTemporaryMemoryLimit) {
  Problem p;
  p.sample_type = SampleType::u32;
  p.num_bins = 4096;
  p.n = 1u << 26;
  DeviceInfo d = h100_like();
  auto c = *Hist1DConfig::parse("tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf0.tp1");
  EXPECT_EQ(hist1d::check(c, p, d).message(), "");
  const auto defs = c.defines();
  EXPECT_NE(std::find(defs.begin(), defs.end(), "-DHT_TWO_PHASE=1"), defs.end());
  Hist1DConfig single = c;
  single.single_block = 1;
  single.blocks_per_sm = 1;
  p.n = 1u << 20;
  EXPECT_NE(hist1d::check(single, p, d).message().find("two-phase"), std::string::npos);
  p.num_bins = 65536;
  p.n = 1u << 26;
  auto packed = *Hist1DConfig::parse("tpb1024.vpt4.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1.tp1");
  EXPECT_NE(hist1d::check(packed, p, d).message().find("two-phase"), std::string::npos) << "carries add";
  // 264 blocks x 4096 bins x 4 B = 4.3 MB: over the limit of a device with 128 MiB.
  p.num_bins = 4096;
  d.memory_bytes = std::int64_t{128} << 20;
  EXPECT_NE(hist1d::check(c, p, d).message().find("temporary memory limit (2097152 B)"), std::string::npos)
      << hist1d::check(c, p, d).message();
}

TEST(Hist1DConfig, ParseRejectsMalformedLabels) {
  for (const char* bad : {"", "tpb256", "tpb256.ipt1.pc1.u1.pad0", "tpb256.vpt1.vec0.pc1.lay0.agg0.u1.pad0.bps8.x1",
                          "ipt1.tpb256.pc1.u1.pad0.bps8", "tpbX.ipt1.pc1.u1.pad0.bps8",
                          "tpb-1.ipt1.pc1.u1.pad0.bps8", "tpb99999999.vpt1.vec0.pc1.lay0.agg0.u1.pad0.bps8"})
    EXPECT_FALSE(Hist1DConfig::parse(bad)) << bad;
}

TEST(Hist1DConfig, DefinesComeFromCompileTimeParametersOnly) {
  Hist1DConfig c;
  c.block_threads = 512;
  c.padding = 1;
  c.blocks_per_sm = 4;
  auto d = c.defines();
  EXPECT_EQ(d.size(), 13u);
  EXPECT_EQ(d[0], "-DHT_BLOCK_THREADS=512");
  for (const auto& s : d) {
    EXPECT_EQ(s.find("PADDING"), std::string::npos);
    EXPECT_EQ(s.find("BLOCKS_PER_SM"), std::string::npos);
  }
}

// Batch groups the loads of per-thread counters (storage 1) alone: global storage's programs of
// every batch are one program, one compile.
TEST(Hist1DConfig, BatchIsCompiledInOnlyWherePerThreadCountersUseIt) {
  const Problem p = flat_problem(SampleType::i32, Binning::direct, 1u << 20, 1u << 26);
  const auto with = [&](Storage st, int batch) {
    Hist1DConfig c;
    c.storage = st;
    c.batch = batch;
    return hist1d::defines(c, p, 90);
  };
  EXPECT_EQ(with(Storage::global, 2), with(Storage::global, 1));
  EXPECT_EQ(with(Storage::global, 4), with(Storage::global, 1));
  EXPECT_NE(with(Storage::thread_counters, 2), with(Storage::thread_counters, 1));
  const auto batch2 = with(Storage::thread_counters, 2);
  EXPECT_NE(std::find(batch2.begin(), batch2.end(), "-DHT_BATCH=2"), batch2.end());
}

TEST(Hist1DRestrictions, CopiesCannotExceedWarps) {
  Hist1DConfig c;
  c.block_threads = 128;
  c.private_copies = 8;
  EXPECT_NE(hist1d::check(c, u8_256(1 << 20), h100_like()).message().find("warps"), std::string::npos);
  c.private_copies = 4;
  EXPECT_EQ(hist1d::check(c, u8_256(1 << 20), h100_like()).message(), "");
}

TEST(Hist1DRestrictions, SharedMemoryMustFitTheDeviceLimit) {
  Hist1DConfig c;
  c.block_threads = 1024;
  c.blocks_per_sm = 2;
  c.private_copies = 32;
  Problem p = u8_256(1 << 20);
  p.sample_type = SampleType::u32;
  p.num_bins = 4096;  // 32 x 4096 x 4 B = 512 KiB
  EXPECT_NE(hist1d::check(c, p, h100_like()).message().find("shared memory"), std::string::npos);
  c.private_copies = 8;  // 128 KiB fits one block per SM
  c.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(c, p, h100_like()).message(), "");
}

TEST(Hist1DRestrictions, ThreadsPerSmAndPaddingRules) {
  Hist1DConfig c;
  c.block_threads = 1024;
  c.blocks_per_sm = 4;
  EXPECT_NE(hist1d::check(c, u8_256(1 << 20), h100_like()).message().find("threads per SM"), std::string::npos);
  Hist1DConfig d;
  d.padding = 1;  // with a single copy
  EXPECT_NE(hist1d::check(d, u8_256(1 << 20), h100_like()).message().find("padding"), std::string::npos);
  Hist1DConfig e;
  e.unroll = 1;  // not a value of the family (0 lets the compiler choose)
  EXPECT_NE(hist1d::check(e, u8_256(1 << 20), h100_like()).message().find("unroll"), std::string::npos);
}

TEST(Hist1DGeometry, GridIsCappedByTheWorkAndSizedPerSm) {
  Hist1DConfig c;  // 256 threads x 1 sample, 8 blocks/SM
  auto small = hist1d::geometry(c, u8_256(1000), h100_like());
  EXPECT_EQ(small.grid, 4u);  // ceil(1000 / 256)
  Hist1DConfig wide = c;
  wide.vector_bytes = 16;  // 16 u8 samples per load, 2 loads per thread: 8192 per tile
  wide.vectors_per_thread = 2;
  EXPECT_EQ(hist1d::geometry(wide, u8_256(100000), h100_like()).grid, 13u);
  auto big = hist1d::geometry(c, u8_256(1u << 28), h100_like());
  EXPECT_EQ(big.grid, 8u * 132);
  auto empty = hist1d::geometry(c, u8_256(0), h100_like());
  EXPECT_EQ(empty.grid, 1u);
  c.private_copies = 4;
  c.padding = 1;
  auto padded = hist1d::geometry(c, u8_256(1 << 20), h100_like());
  EXPECT_EQ(padded.row_stride, 257u);
  EXPECT_EQ(padded.smem_bytes, 4u * 257 * 4);
  c.padding = 0;
  c.layout = Layout::lane_striped;  // lane-striped: 32 words per bin per copy
  EXPECT_EQ(hist1d::geometry(c, u8_256(1 << 20), h100_like()).smem_bytes, 4u * 256 * 32 * 4);
}

TEST(Hist1DRestrictions, VectorWidthAndLaneStripedRules) {
  Hist1DConfig c;
  Problem u32 = u8_256(1 << 20);
  u32.sample_type = SampleType::u32;
  c.vector_bytes = 4;  // one u32 sample: the same kernel as vec0
  EXPECT_NE(hist1d::check(c, u32, h100_like()).message().find("vec0"), std::string::npos);
  c.vector_bytes = 16;
  EXPECT_EQ(hist1d::check(c, u32, h100_like()).message(), "");
  Hist1DConfig lane;
  lane.layout = Layout::lane_striped;
  lane.private_copies = 8;
  EXPECT_NE(hist1d::check(lane, u8_256(1 << 20), h100_like()).message().find("at most 4"), std::string::npos);
  lane.private_copies = 2;
  lane.padding = 1;
  EXPECT_NE(hist1d::check(lane, u8_256(1 << 20), h100_like()).message().find("padding"), std::string::npos);
  Hist1DConfig crowded;  // 4 copies lane-striped: 128 KiB, so 8 blocks cannot share an SM
  crowded.layout = Layout::lane_striped;
  crowded.private_copies = 4;
  EXPECT_NE(hist1d::check(crowded, u8_256(1 << 20), h100_like()).message().find("per SM"), std::string::npos);
  crowded.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(crowded, u8_256(1 << 20), h100_like()).message(), "");
}

TEST(Hist1DRestrictions, PerThreadCountersAndSingleBlockRules) {
  Hist1DConfig c;
  c.storage = Storage::thread_counters;
  c.vector_bytes = 16;
  c.vectors_per_thread = 2;  // 32 samples per tile
  c.batch = 4;
  c.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(c, u8_256(1 << 20), h100_like()).message(), "");
  // 128 pairs of 16-bit counters x 256 threads + 256 block bins.
  EXPECT_EQ(hist1d::geometry(c, u8_256(1 << 20), h100_like()).smem_bytes, (128u * 256 + 256) * 4);
  Hist1DConfig copies = c;
  copies.private_copies = 2;
  EXPECT_NE(hist1d::check(copies, u8_256(1 << 20), h100_like()).message().find("never contend"), std::string::npos);
  Hist1DConfig odd = c;
  odd.vectors_per_thread = 1;
  odd.vector_bytes = 0;  // one sample per tile: batch 4 cannot group it
  EXPECT_NE(hist1d::check(odd, u8_256(1 << 20), h100_like()).message().find("does not divide"), std::string::npos);
  Hist1DConfig atomics;
  atomics.batch = 2;
  EXPECT_NE(hist1d::check(atomics, u8_256(1 << 20), h100_like()).message().find("storage 1"), std::string::npos);
  Hist1DConfig big = c;
  big.block_threads = 512;  // 256 KiB of counters
  EXPECT_NE(hist1d::check(big, u8_256(1 << 20), h100_like()).message().find("shared memory"), std::string::npos);

  Hist1DConfig one;
  one.single_block = 1;
  one.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(one, u8_256(1 << 16), h100_like()).message(), "");
  EXPECT_EQ(hist1d::geometry(one, u8_256(1 << 20), h100_like()).grid, 1u);
  EXPECT_NE(hist1d::check(one, u8_256(1 << 24), h100_like()).message().find("small inputs"), std::string::npos);
  one.blocks_per_sm = 8;
  EXPECT_NE(hist1d::check(one, u8_256(1 << 16), h100_like()).message().find("blocks_per_sm 1"), std::string::npos);
}

TEST(Hist1DRestrictions, GlobalAndClusterStorageAreForLargeBinCounts) {
  Problem big = u8_256(1 << 20);
  big.sample_type = SampleType::u32;
  big.num_bins = 65536;  // 256 KiB: more than one block's shared memory, so two slices
  Hist1DConfig shared;
  shared.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(shared, big, h100_like()).message(), "");
  EXPECT_EQ(hist1d::geometry(shared, big, h100_like()).slices, 2u);
  shared.two_phase = 1;  // a two-phase block stores all bins: not sliced, so too large
  EXPECT_NE(hist1d::check(shared, big, h100_like()).message().find("shared memory"), std::string::npos);
  Hist1DConfig global;
  global.storage = Storage::global;
  global.aggregate = Aggregate::thread_runs;
  EXPECT_EQ(hist1d::check(global, big, h100_like()).message(), "");
  EXPECT_EQ(hist1d::geometry(global, big, h100_like()).smem_bytes, 0u);
  EXPECT_NE(hist1d::check(global, u8_256(1 << 20), h100_like()).message().find("16384 bins or more"),
            std::string::npos);
  Hist1DConfig cl;
  cl.storage = Storage::cluster;
  cl.cluster = 2;
  cl.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(cl, big, h100_like()).message(), "");
  const LaunchGeometry g = hist1d::geometry(cl, big, h100_like());
  EXPECT_EQ(g.smem_bytes, 32768u * 4);  // half of the bins in each block of the pair
  EXPECT_EQ(g.grid % 2, 0u);
  cl.cluster = 8;
  EXPECT_EQ(hist1d::geometry(cl, big, h100_like()).grid, 128u);  // 132 SMs: whole clusters of 8
  cl.cluster = 1;
  EXPECT_NE(hist1d::check(cl, big, h100_like()).message().find("cluster"), std::string::npos);
  Hist1DConfig stray;
  stray.cluster = 4;  // without cluster storage
  EXPECT_NE(hist1d::check(stray, u8_256(1 << 20), h100_like()).message().find("cluster"), std::string::npos);
  // One cluster of private copies: a single block's launch over four blocks.
  Hist1DConfig one;
  one.cluster = 4;
  one.single_block = 1;
  one.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(one, u8_256(1 << 16), h100_like()).message(), "");
  EXPECT_EQ(hist1d::geometry(one, u8_256(1 << 16), h100_like()).grid, 4u);
  one.storage = Storage::thread_counters;  // storage 0 only
  EXPECT_NE(hist1d::check(one, u8_256(1 << 16), h100_like()).message().find("one cluster"), std::string::npos);
  DeviceInfo a100 = h100_like();
  a100.cc_major = 8;
  Hist1DConfig cl2;
  cl2.storage = Storage::cluster;
  cl2.cluster = 2;
  cl2.blocks_per_sm = 1;
  EXPECT_NE(hist1d::check(cl2, big, a100).message().find("sm_90"), std::string::npos);
}

TEST(Hist1DRestrictions, PackedCountersHoldTwoBinsPerWordForAnyTile) {
  Problem big = u8_256(1 << 26);
  big.sample_type = SampleType::u32;
  big.num_bins = 65536;
  Hist1DConfig packed;
  packed.storage = Storage::packed;
  packed.block_threads = 1024;
  packed.vector_bytes = 16;
  packed.vectors_per_thread = 4;
  packed.blocks_per_sm = 1;
  EXPECT_EQ(hist1d::check(packed, big, h100_like()).message(), "");
  LaunchGeometry g = hist1d::geometry(packed, big, h100_like());
  EXPECT_EQ(g.row_stride, 32768u);
  EXPECT_EQ(g.smem_bytes, 32768u * 4);  // 65536 bins in 128 KiB: one block holds them all
  packed.vectors_per_thread = 8;  // a counter carries when it must, whatever a tile holds
  EXPECT_EQ(hist1d::check(packed, big, h100_like()).message(), "");
  packed.vectors_per_thread = 4;
  packed.layout = Layout::lane_striped;
  EXPECT_NE(hist1d::check(packed, big, h100_like()).message().find("layout 0"), std::string::npos);
  packed.layout = Layout::rows;
  packed.aggregate = Aggregate::warp_match;  // warp aggregation: packed counters only
  EXPECT_EQ(hist1d::check(packed, big, h100_like()).message(), "");
  Hist1DConfig warp_agg_st0;
  warp_agg_st0.aggregate = Aggregate::warp_match;
  EXPECT_NE(hist1d::check(warp_agg_st0, u8_256(1 << 20), h100_like()).message().find("storage 4"),
            std::string::npos);
  packed.aggregate = Aggregate::none;
  packed.batch = 2;
  EXPECT_NE(hist1d::check(packed, big, h100_like()).message().find("batch"), std::string::npos);
  packed.batch = 1;
  // Odd bin counts round up to whole words; padding separates copies as in storage 0.
  Problem odd = big;
  odd.num_bins = 4097;
  packed.private_copies = 4;
  packed.padding = 1;
  EXPECT_EQ(hist1d::check(packed, odd, h100_like()).message(), "");
  g = hist1d::geometry(packed, odd, h100_like());
  EXPECT_EQ(g.row_stride, 2049u + 1u);
  EXPECT_EQ(g.smem_bytes, 4u * 2050u * 4u);
  packed.vectors_per_thread = 1;
  EXPECT_NE(hist1d::check(packed, u8_256(1 << 20), h100_like()).message().find("2048 bins or more"),
            std::string::npos);
}

// The built-in candidates were measured on GPUs of 2048 threads an SM; where none runs as it is
// (1536 threads on sm_86, 89 and 120; 1024 on sm_75), the first runs with fewer blocks per SM,
// and a GPU of 2048 keeps its choice.
TEST(Hist1DDefaults, AnSmOfFewerThreadsRunsTheFirstCandidateWithFewerBlocks) {
  const Problem p = u8_256(1 << 24);
  const Hist1DConfig h100 = hist1d::default_for(p, h100_like());
  ASSERT_EQ(h100.block_threads * h100.blocks_per_sm, 2048);
  for (const auto& [major, minor] :
       std::vector<std::pair<int, int>>{{8, 6}, {8, 9}, {12, 0}, {7, 5}}) {
    const DeviceInfo d = *describe_arch(major, minor);
    const Hist1DConfig c = hist1d::default_for(p, d);
    EXPECT_EQ(hist1d::check(c, p, d).message(), "") << d.name;
    Hist1DConfig expected = h100;  // 1,024 threads: one block an SM
    expected.blocks_per_sm = 1;
    EXPECT_EQ(c.label(), expected.label()) << d.name;
    EXPECT_FALSE(hist1d::default_alternatives(p, d).empty()) << d.name << ": the search's seeds";
  }
  EXPECT_EQ(hist1d::default_for(p, *describe_arch(10, 0)).label(), h100.label());
}

TEST(Hist1DDefaults, EveryShapeGetsAValidConfiguration) {
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::f32}) {
    for (const std::uint32_t bins : {1u, 256u, 4096u, 16383u, 65536u, 1u << 20, 1u << 22}) {
      for (const std::uint64_t n : {0ull, 1000ull, 1ull << 20, 1ull << 28}) {
        Problem p = u8_256(n);
        p.sample_type = t;
        p.num_bins = bins;
        if (t == SampleType::f32) {
          p.binning = Binning::even;
          p.upper = 100;
        }
        const Hist1DConfig c = hist1d::default_for(p, h100_like());
        EXPECT_EQ(hist1d::check(c, p, h100_like()).message(), "") << p.describe() << " " << c.label();
      }
    }
  }
  // Large inputs get 16-byte loads; 65536 bins get packed counters, more get 32-bit copies in a
  // few slices while there are many samples per bin, then partitioning on large inputs, and
  // global atomics on small ones.
  EXPECT_EQ(hist1d::default_for(u8_256(1 << 28), h100_like()).vector_bytes, 16);
  Problem big = u8_256(1 << 26);
  big.sample_type = SampleType::u32;
  big.num_bins = 65536;
  EXPECT_EQ(hist1d::default_for(big, h100_like()).storage, Storage::packed);  // packed: one block holds them
  EXPECT_EQ(hist1d::geometry(hist1d::default_for(big, h100_like()), big, h100_like()).slices, 1u);
  big.num_bins = 131072;  // 512 KB of 32-bit copies: three slices
  EXPECT_EQ(hist1d::default_for(big, h100_like()).storage, Storage::shared);
  EXPECT_EQ(hist1d::geometry(hist1d::default_for(big, h100_like()), big, h100_like()).slices, 3u);
  big.num_bins = 1u << 20;  // ten packed slices: slow on constant data; partition, then count
  EXPECT_EQ(hist1d::default_for(big, h100_like()).storage, Storage::partitioned);
  big.n = big.num_bins * 16ull;  // n/16 bins: slices would flush about as many atomics as samples
  EXPECT_EQ(hist1d::default_for(big, h100_like()).storage, Storage::partitioned);
  big.n = 1u << 20;  // a small input: two more launches and a store of every bin cost more
  EXPECT_EQ(hist1d::default_for(big, h100_like()).storage, Storage::global);
  // Up to 2^12 samples (MoE routing counts) one block zeroes, counts and stores: no memset node.
  Problem moe = u8_256(1 << 12);
  moe.sample_type = SampleType::i32;
  moe.num_bins = 64;
  EXPECT_EQ(hist1d::default_for(moe, h100_like()).single_block, 1);
  moe.n = (1 << 12) + 1;
  EXPECT_EQ(hist1d::default_for(moe, h100_like()).single_block, 0);
}

// The search's seeds: the built-in candidates after the default that may run the problem, valid,
// never the default itself; u32 65536 bins 2^26 gets 32-bit copies in slices among them (the
// neighbour of the winner three H100 plans of four missed). The family's seeds() are these.
TEST(Hist1DDefaults, AlternativesAreTheOtherValidCandidatesAfterTheDefault) {
  Problem big = u8_256(1 << 26);
  big.sample_type = SampleType::u32;
  big.num_bins = 65536;
  const Hist1DConfig chosen = hist1d::default_for(big, h100_like());
  const std::vector<Hist1DConfig> alt = hist1d::default_alternatives(big, h100_like());
  ASSERT_FALSE(alt.empty());
  bool sliced = false;
  for (const Hist1DConfig& c : alt) {
    EXPECT_EQ(hist1d::check(c, big, h100_like()).message(), "") << c.label();
    EXPECT_NE(c.label(), chosen.label());
    sliced |= c.storage == Storage::shared &&
              hist1d::geometry(c, big, h100_like()).slices > 1;
  }
  EXPECT_TRUE(sliced);
  const KernelFamily& f = family(Family::hist1d);
  const std::vector<ParamValues> seeds = f.seeds(big, h100_like());
  ASSERT_EQ(seeds.size(), alt.size());
  EXPECT_EQ(f.label(seeds.front()), alt.front().label());
  EXPECT_TRUE(hist1d::default_alternatives(u8_256(1000), h100_like()).empty() ||
              hist1d::default_alternatives(u8_256(1000), h100_like()).front().label() !=
                  hist1d::default_for(u8_256(1000), h100_like()).label());
  EXPECT_TRUE(family(Family::joint).seeds(big, h100_like()).empty()) << "no seeds() in its traits";
}

// Packed counters' first default holds 16 four-byte samples a thread and tile; for 16-bit
// samples the same loads hold 32, which ran 4-9% slower than the 16 of the next (H200, u16 65536
// bins 2^24): samples under 4 bytes start at the next candidate.
TEST(Hist1DDefaults, PackedDefaultsHoldSixteenSamplesAThreadAndTile) {
  for (const SampleType t : {SampleType::u16, SampleType::u32}) {
    Problem p = u8_256(1 << 24);
    p.sample_type = t;
    p.num_bins = 65536;
    const Hist1DConfig c = hist1d::default_for(p, h100_like());
    EXPECT_EQ(c.storage, Storage::packed) << p.describe();
    EXPECT_EQ(c.vectors_per_thread * c.vector_bytes / sample_bytes(t), 16u) << c.label();
  }
}

// A merged run (aggregate 1) is added to one 16-bit packed counter at once, so packed counters
// merge runs only where no thread counts 2^16 samples. A launch counts at most 2^32 - 1 samples
// (longer calls go in chunks): on 132 SMs a thread's share stays near 32,000, on 16 SMs it
// would reach 262,000, and the default there is another kernel, exact at any length.
TEST(Hist1DDefaults, PackedCountersMergeRunsOnlyWhereAThreadCountsUnder65536Samples) {
  const Hist1DConfig packed =
      *Hist1DConfig::parse("tpb1024.vpt4.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1");
  Problem p = u8_256(0xFFFFFFFFull);
  p.sample_type = SampleType::u32;
  p.num_bins = 65536;
  EXPECT_TRUE(hist1d::check(packed, p, h100_like()).holds());
  EXPECT_EQ(hist1d::default_for(p, h100_like()).label(), packed.label());
  DeviceInfo small = h100_like();
  small.sm_count = 16;
  const Restriction r = hist1d::check(packed, p, small);
  EXPECT_FALSE(r.holds());
  EXPECT_NE(r.message().find("16-bit counter"), std::string::npos) << r.message();
  Hist1DConfig single = packed;
  single.aggregate = Aggregate::none;  // one add a sample: any length
  EXPECT_TRUE(hist1d::check(single, p, small).holds()) << hist1d::check(single, p, small).message();
  const Hist1DConfig fallback = hist1d::default_for(p, small);
  EXPECT_TRUE(fallback.storage != Storage::packed || fallback.aggregate != Aggregate::thread_runs)
      << fallback.label();
}

// With few samples a bin the untuned choice takes no slices, but the search's three seeds still
// hold a sliced kernel: f32 65536 bins over 2^20 samples (16 a bin), where a cold H200 plan whose
// search never timed one stored packed copies 28% behind the sliced winner of another plan.
TEST(Hist1DDefaults, TheSeedsHoldASlicedKernelWhereTheUntunedChoiceTakesNone) {
  const Problem few = flat_problem(SampleType::f32, Binning::even, 65536, 1 << 20, 0, 100);
  ASSERT_LT(few.n, hist1d::kSliceSamplesPerBin * few.num_bins);
  const Hist1DConfig chosen = hist1d::default_for(few, h100_like());
  EXPECT_EQ(hist1d::geometry(chosen, few, h100_like()).slices, 1u) << chosen.label();
  const std::vector<ParamValues> seeds = family(Family::hist1d).seeds(few, h100_like());
  bool sliced = false;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, seeds.size()); ++i) {
    const auto c = Hist1DConfig::parse(family(Family::hist1d).label(seeds[i]));
    ASSERT_TRUE(c.has_value());
    EXPECT_NE(c->label(), chosen.label());
    sliced |= c->storage == Storage::shared && hist1d::geometry(*c, few, h100_like()).slices > 1;
  }
  EXPECT_TRUE(sliced) << "no sliced kernel among the first three seeds";
}

TEST(Hist1DLookup, ASingleBlockWinnerServesAtMostTwiceItsSamples) {
  Problem tuned = u8_256(1 << 12), bigger = u8_256(1 << 13), far = u8_256(1 << 16);
  const Hist1DConfig one =
      *Hist1DConfig::parse("tpb512.vpt2.vec16.pc2.lay0.agg0.u0.pad0.bps1.st0.b1.sb1.cl1");
  EXPECT_EQ(hist1d::serves(one, tuned, bigger, h100_like()).message(), "");
  EXPECT_NE(hist1d::serves(one, tuned, far, h100_like()).message().find("one block"),
            std::string::npos);
  Hist1DConfig grid = one;
  grid.single_block = 0;
  EXPECT_EQ(hist1d::serves(grid, tuned, far, h100_like()).message(), "");
}

TEST(Hist1DRange, SharedMemoryAddsTheLevelsOrTheTableAfterTheCounters) {
  const Problem even = flat_problem(SampleType::f32, Binning::even, 1024, 1 << 20, 0, 100);
  Problem range = even;
  range.binning = Binning::range;
  for (const char* label : {"tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8.st0.b1.sb0.cl1",
                            "tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1",
                            "tpb256.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1"}) {
    const Hist1DConfig c = *Hist1DConfig::parse(label);
    EXPECT_EQ(hist1d::geometry(c, range, h100_like()).smem_bytes,
              hist1d::geometry(c, even, h100_like()).smem_bytes + 1025 * 4)
        << label;
  }
  // The table of u8 samples; beyond the staging limit, the index of every 2^shift-th level.
  Problem u8 = u8_256(1 << 20);
  u8.binning = Binning::range;
  u8.num_bins = 255;
  const Hist1DConfig c;
  // The counters of the 256 byte values it decodes (hist1d::byte_decoded), then the table.
  EXPECT_EQ(hist1d::geometry(c, u8, h100_like()).smem_bytes, (255 + 1) * 4 + 256u);
  range.num_bins = 1u << 20;
  Hist1DConfig global = *Hist1DConfig::parse("tpb256.vpt1.vec16.pc1.lay0.agg1.u0.pad0.bps8.st2.b1.sb0.cl1");
  EXPECT_EQ(hist1d::geometry(global, range, h100_like()).smem_bytes, kRangeIndexMaxBytes);
  EXPECT_EQ(hist1d::check(global, range, h100_like()).message(), "");
}

TEST(Hist1DRange, TheLevelsCountAgainstTheSharedMemoryLimit) {
  // 16 copies of 3500 bins fit 227 KB (232,448 B) alone, and with their staged levels do not.
  Problem p = u8_256(1 << 20);
  p.sample_type = SampleType::f32;
  p.binning = Binning::even;
  p.upper = 1;
  p.num_bins = 3500;
  Hist1DConfig c = *Hist1DConfig::parse("tpb1024.vpt1.vec0.pc16.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1");
  ASSERT_EQ(hist1d::check(c, p, h100_like()).message(), "");  // 16 x 3500 x 4 = 224,000 B
  p.binning = Binning::range;                        // + 3501 x 4 = 238,004 B
  EXPECT_NE(hist1d::check(c, p, h100_like()).message().find("shared memory"), std::string::npos);
  // Defaults stay valid for range problems of every type and size.
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::i32,
                             SampleType::f32})
    for (const std::uint32_t bins : {1u, 200u, 4095u, 16384u, 65535u, 1u << 20})
      for (const std::uint64_t n : {1000ull, 1ull << 26}) {
        Problem r = u8_256(n);
        r.sample_type = t;
        r.binning = Binning::range;
        r.num_bins = bins;
        if (!validate(r).empty()) continue;
        const Hist1DConfig d = hist1d::default_for(r, h100_like());
        EXPECT_EQ(hist1d::check(d, r, h100_like()).message(), "") << r.describe() << " " << d.label();
      }
}
