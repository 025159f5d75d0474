// Partitioned storage (hist1d storage 5) without a GPU: its partitions, its workspace and rounds,
// its count blocks, its restrictions, and NVRTC compiles of its three kernels for every 32-bit
// sample type and binning.
#include <gtest/gtest.h>

#include "fake_device.hpp"
#include "histtune/family.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_resources.hpp"
#include "histtune/two_phase.hpp"

using namespace histtune;

namespace {

const char* kPart = "tpb512.vpt4.vec16.pc1.lay0.agg2.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0";

Problem large(SampleType t, Binning b, std::uint32_t bins, std::uint64_t n) {
  Problem p = flat_problem(t, b, bins, n, 0, b == Binning::direct ? 0 : 100);
  return p;
}

Hist1DConfig part() {
  const auto c = Hist1DConfig::parse(kPart);
  EXPECT_TRUE(c);
  return *c;
}

}  // namespace

TEST(Partitioned, PartitionsAreAboutTheTargetWithinTheBitsRange) {
  struct Want {
    std::uint32_t bins;
    int bits;
    std::uint32_t parts;
  };
  for (const Want w : {Want{16384, 12, 4}, Want{524288, 12, 128}, Want{524289, 13, 65},
                       Want{1u << 20, 13, 128}, Want{(1u << 20) + 1, 14, 65},
                       Want{1u << 21, 14, 128}, Want{(1u << 21) + 1, 15, 65},
                       Want{1u << 22, 15, 128}, Want{1u << 25, 15, 1024}}) {
    const Problem p = large(SampleType::u32, Binning::direct, w.bins, 1u << 26);
    EXPECT_EQ(hist1d::partition_bits(p, 90), w.bits) << w.bins;
    EXPECT_EQ(hist1d::partitions(p, 90), w.parts) << w.bins;
  }
}

// A count block holds its partition's bins and a sink word in shared memory (and 5 KB of its
// own): 2^15 bins (128 KB) where a block may have 163-227 KB, 2^14 with 99 KB, 2^13 with 64 KB;
// an architecture not listed gets the portable width. Narrower partitions make more of them.
TEST(Partitioned, TheWidestPartitionIsWhatACountBlockHoldsOnTheArchitecture) {
  EXPECT_EQ(hist1d::count_pass_smem(15), 131076u);
  EXPECT_EQ(hist1d::count_pass_smem(14), 65540u);
  for (const int arch : {80, 87, 90, 100}) EXPECT_EQ(hist1d::partition_bits_max(arch), 15) << arch;
  for (const int arch : {86, 89, 120}) EXPECT_EQ(hist1d::partition_bits_max(arch), 14) << arch;
  EXPECT_EQ(hist1d::partition_bits_max(75), 13);  // 64 KB: 2^14 bins and the sink do not fit
  EXPECT_EQ(hist1d::partition_bits_max(61), hist1d::kPartitionBitsPortable);
  const Problem p = large(SampleType::u32, Binning::direct, 1u << 22, 1u << 26);
  EXPECT_EQ(hist1d::partitions(p, 90), 128u);
  EXPECT_EQ(hist1d::partitions(p, 86), 256u);
  EXPECT_EQ(hist1d::partitions(p, 75), 512u);
  // The compiled width follows the architecture the request is for.
  const auto bits_of = [&](int arch) {
    for (const auto& d : hist1d::request(part(), p, arch).defines)
      if (d.rfind("-DHT_PARTITION_BITS=", 0) == 0) return std::stoi(d.substr(20));
    return -1;
  };
  EXPECT_EQ(bits_of(90), 15);
  EXPECT_EQ(bits_of(86), 14);
  EXPECT_EQ(hist1d::count_request(part(), p, 86).label, "count.tile8192.bits14");
  // Both programs compile at the widest partitions (16-bit bins, the sink word 2^15), and the
  // count kernel's static shared memory is at most what the widths above add to its bins: all of
  // it on sm_90, 1 KB less on sm_75, where NVRTC adds nothing to a kernel's own.
  const auto static_smem = [](const CompileRequest& r, const char* kernel) {
    const auto res = kernel_resources(compile(r).cubin, kernel);
    return res ? res->shared_bytes : -1;  // -1: the kernel is not in the CUBIN
  };
  const int count_static = static_cast<int>(hist1d::kCountPassStaticSmem);
  EXPECT_GE(static_smem(hist1d::request(part(), p, 90), hist1d::kKernel), 0);
  EXPECT_EQ(static_smem(hist1d::count_request(part(), p, 90), hist1d::kCountKernel), count_static);
  // sm_75 has no warp OR instruction: the count pass takes the shuffles' path (ht_warp_or).
  EXPECT_EQ(static_smem(hist1d::count_request(part(), p, 75), hist1d::kCountKernel),
            count_static - 1024);
}

TEST(Partitioned, LabelRoundTripsAndDefinesItsPartitionBits) {
  const Hist1DConfig c = part();
  EXPECT_EQ(c.storage, Storage::partitioned);
  EXPECT_EQ(c.label(), kPart);
  const auto defs =
      hist1d::defines(c, large(SampleType::i32, Binning::direct, 1u << 20, 1u << 26), 90);
  EXPECT_NE(std::find(defs.begin(), defs.end(), "-DHT_PARTITION_BITS=13"), defs.end());
  EXPECT_NE(std::find(defs.begin(), defs.end(), "-DHT_MIN_BLOCKS=1"), defs.end());
  EXPECT_NE(std::find(defs.begin(), defs.end(), "-DHT_SINK=0"), defs.end());
  const auto shared = hist1d::defines(hist1d::default_config(),
                                      large(SampleType::i32, Binning::direct, 256, 1u << 26), 90);
  for (const auto& d : shared) EXPECT_EQ(d.find("HT_PARTITION_BITS"), std::string::npos) << d;
}

// The partition pass's launch bounds: blocks_per_sm, at most what fits 2048 threads, and 1 where
// the register cap is the hardware's anyway (128 threads x 2 blocks).
TEST(Partitioned, MinBlocksAreTheLeastThatCompileTheSame) {
  const Problem p = large(SampleType::i32, Binning::direct, 1u << 20, 1u << 26);
  const auto min_blocks = [&](int threads, int bps) {
    Hist1DConfig c = part();
    c.block_threads = threads;
    c.blocks_per_sm = bps;
    for (const auto& d : hist1d::defines(c, p, 90))
      if (d.rfind("-DHT_MIN_BLOCKS=", 0) == 0) return std::stoi(d.substr(16));
    return -1;
  };
  EXPECT_EQ(min_blocks(128, 2), 1);
  EXPECT_EQ(min_blocks(128, 4), 4);
  EXPECT_EQ(min_blocks(512, 2), 2);
  EXPECT_EQ(min_blocks(1024, 4), 2);
}

TEST(Partitioned, RestrictionsNameWhatTheyRefuse) {
  const DeviceInfo d = test::h100_like();
  const Problem p = large(SampleType::f32, Binning::even, 1u << 20, 1u << 24);
  EXPECT_EQ(hist1d::check(part(), p, d).message(), "");
  auto refused = [&](Hist1DConfig c, const Problem& q, const char* words) {
    const std::string m = hist1d::check(c, q, d).message();
    EXPECT_NE(m.find(words), std::string::npos) << c.label() << ": " << m;
  };
  Hist1DConfig c = part();
  c.private_copies = 2;
  refused(c, p, "partitioned storage (5)");
  c = part();
  c.aggregate = Aggregate::thread_runs;
  refused(c, p, "runs (aggregate 1)");
  c = part();
  c.batch = 2;
  refused(c, p, "batch");
  refused(part(), large(SampleType::u32, Binning::direct, 16383, 1u << 24), "16384 bins or more");
  refused(part(), large(SampleType::u32, Binning::direct, (1u << 25) + 1, 1u << 24),
          "at most 1024 partitions of 2^15 bins");
  // 2^24 + 1 bins make 513 partitions of 2^15 on sm_90, 1025 of 2^14 on sm_86 (99 KB a block).
  const Problem wide = large(SampleType::u32, Binning::direct, (1u << 24) + 1, 1u << 24);
  EXPECT_EQ(hist1d::check(part(), wide, d).message(), "");
  DeviceInfo sm86 = d;
  sm86.cc_major = 8;
  sm86.cc_minor = 6;
  sm86.smem_per_block_optin = 99 * 1024;
  const std::string narrow = hist1d::check(part(), wide, sm86).message();
  EXPECT_NE(narrow.find("at most 1024 partitions of 2^14 bins"), std::string::npos) << narrow;
  // A part with less shared memory than its architecture's listed limit: no count pass to run.
  DeviceInfo small = d;
  small.smem_per_block_optin = 100 * 1024;
  const std::string m_small =
      hist1d::check(part(), large(SampleType::f32, Binning::even, 1u << 22, 1u << 24), small)
          .message();
  EXPECT_NE(m_small.find("count pass's 136340 B of shared memory exceed the device's per-block "
                         "limit 102400 B"),
            std::string::npos)
      << m_small;
  DeviceInfo tiny = d;
  tiny.memory_bytes = 64 * 1024;  // 1 KiB of temporary memory: not one tile's workspace
  const std::string m = hist1d::check(part(), p, tiny).message();
  EXPECT_NE(m.find("temporary-memory limit (1024 B)"), std::string::npos) << m;
}

// The partition pass's shared memory (hist1d.cuh, HtPartSmem): counts and 16-bit starts padded
// to whole scan rows of 128 partitions (a scan lane loads four counts at once), four words of
// groups, then the stages, each a tile and 8 slots a partition: from sm_90 two stages and two
// copies of the counts (a tile's bulk copy out reads one stage while the next tile fills the
// other, and that tile ranks into the other counts), one of each below.
TEST(Partitioned, SharedMemoryIsWholeScanRowsThenTheStages) {
  const DeviceInfo d = test::h100_like();
  DeviceInfo sm80 = d;
  sm80.cc_major = 8;
  sm80.cc_minor = 0;
  const std::size_t tile = 512 * 4 * 4;  // tpb512 x vpt4 x four 4-byte samples a 16-byte load
  const Problem p128 = large(SampleType::u32, Binning::direct, 1u << 22, 1u << 26);
  ASSERT_EQ(hist1d::partitions(p128, 90), 128u);
  EXPECT_EQ(hist1d::geometry(part(), p128, d).smem_bytes,
            (2 * 128 + 64 + 4) * 4 + 2 * (tile + 8 * 128) * 2);
  ASSERT_EQ(hist1d::partitions(p128, 80), 128u);
  EXPECT_EQ(hist1d::geometry(part(), p128, sm80).smem_bytes,
            (128 + 64 + 4) * 4 + (tile + 8 * 128) * 2);
  // The same rule compiles the kernel: two stages and counts with HT_BULK_OUT=1.
  const auto has = [](const std::vector<std::string>& d, const char* w) {
    return std::find(d.begin(), d.end(), w) != d.end();
  };
  EXPECT_TRUE(has(hist1d::defines(part(), p128, 90), "-DHT_BULK_OUT=1"));
  EXPECT_TRUE(has(hist1d::defines(part(), p128, 80), "-DHT_BULK_OUT=0"));
  const Problem p129 = large(SampleType::u32, Binning::direct, (1u << 22) + 1, 1u << 26);
  ASSERT_EQ(hist1d::partitions(p129, 90), 129u);
  EXPECT_EQ(hist1d::geometry(part(), p129, d).smem_bytes,
            (2 * 256 + 128 + 4) * 4 + 2 * (tile + 8 * 129) * 2);
}

// Prefetch 2 (the partition pass's next tile by bulk copy) is storage 5's on sm_90 or newer;
// its two tiles and two mbarriers come on top of the pass's shared memory, and it compiles as
// HT_PREFETCH=2.
TEST(Partitioned, BulkPrefetchIsThePartitionPassesOnSm90WithTwoTilesOfSharedMemory) {
  const DeviceInfo d = test::h100_like();
  const Problem p = large(SampleType::f32, Binning::even, 1u << 20, 1u << 24);
  Hist1DConfig bulk = part();
  bulk.prefetch = 2;
  EXPECT_EQ(hist1d::check(bulk, p, d).message(), "");
  const std::size_t tile = 512 * 4 * 16;  // tpb512 x vpt4 x 16-byte loads
  EXPECT_EQ(hist1d::geometry(bulk, p, d).smem_bytes,
            hist1d::geometry(part(), p, d).smem_bytes + 16 + 2 * tile);
  const auto defs = hist1d::defines(bulk, p, 90);
  EXPECT_NE(std::find(defs.begin(), defs.end(), "-DHT_PREFETCH=2"), defs.end());
  DeviceInfo sm86 = d;
  sm86.cc_major = 8;
  sm86.cc_minor = 6;
  const std::string old_arch = hist1d::check(bulk, p, sm86).message();
  EXPECT_NE(old_arch.find("prefetch 2"), std::string::npos) << old_arch;
  EXPECT_NE(old_arch.find("sm_90"), std::string::npos) << old_arch;
  Hist1DConfig shared = hist1d::default_config();
  shared.prefetch = 2;
  const std::string other = hist1d::check(shared, p, d).message();
  EXPECT_NE(other.find("partitioned storage (5)"), std::string::npos) << other;
  // Two tiles of 1024 threads x 8 x 16 bytes (256 KB) fit no block: refused, not launched.
  bulk.block_threads = 1024;
  bulk.vectors_per_thread = 8;
  bulk.blocks_per_sm = 1;
  EXPECT_FALSE(hist1d::check(bulk, p, d).holds());
}

// A round's workspace fits the temporary-memory limit, so long inputs run in several rounds of
// whole tiles; the layout's size is the kernel's (table rounded to 16 bytes, 2 bytes a sample).
TEST(Partitioned, RoundsAreWholeTilesWithinTheWorkspaceLimit) {
  DeviceInfo d = test::h100_like();
  d.memory_bytes = std::uint64_t{80} << 30;
  const Hist1DConfig c = part();
  const Problem p = large(SampleType::i32, Binning::direct, 1u << 20, std::uint64_t{1} << 28);
  const std::uint64_t tile = hist1d::tile_samples(c, p);
  EXPECT_EQ(tile, 512u * 16u);
  const std::uint64_t round = hist1d::partition_chunk(c, p, d);
  EXPECT_EQ(round % tile, 0u);
  EXPECT_LT(round, p.n);  // 2^28 samples take more than 256 MiB of workspace: several rounds
  EXPECT_LE(hist1d::partition_workspace_bytes(c, p, round, 90), two_phase::max_bytes(d));
  EXPECT_GT(hist1d::partition_workspace_bytes(c, p, round + tile, 90), two_phase::max_bytes(d));
  const std::uint64_t stride = (std::uint64_t{1} << 26) / tile + 2;
  EXPECT_EQ(hist1d::partition_workspace_bytes(c, p, std::uint64_t{1} << 26, 90),
            (128 * stride + 3) / 4 * 16 + stride * (tile + 8 * 128) * 2 + 128 * 4);
}

// The three kernels of storage 5 compile for every sample type that reaches 16384 bins and every
// binning, on sm_80 and sm_90, with and without vector loads, aggregation and prefetch.
// Uniform data gives each partition one count block; fewer partitions than SMs share the SMs.
TEST(Partitioned, TargetGivesAnAveragePartitionOneCountBlock) {
  const DeviceInfo d = test::h100_like();
  const Problem mega = large(SampleType::i32, Binning::direct, 1u << 20, 1u << 26);  // 128
  EXPECT_EQ(hist1d::partition_target(1u << 26, mega, d), (2u << 26) / 132);
  const Problem sixteen_m = large(SampleType::f32, Binning::even, 1u << 24, 1u << 26);  // 512
  EXPECT_EQ(hist1d::partition_target(1u << 26, sixteen_m, d), (2u << 26) / 512);
  EXPECT_EQ(hist1d::partition_target(3, sixteen_m, d), 1u);
}

TEST(Partitioned, KernelsCompileForEveryTypeAndBinning) {
  const char* labels[] = {kPart, "tpb128.vpt1.vec0.pc1.lay0.agg0.u2.pad0.bps4.st5.b1.sb0.cl1.pf0.tp0",
                          "tpb1024.vpt2.vec8.pc1.lay0.agg0.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0",
                          // prefetch 2's bulk copies: sm_90 only (the sm_80 pass is kPart's)
                          "tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf2.tp0"};
  int compiled = 0;
  for (const SampleType t : {SampleType::u32, SampleType::i32, SampleType::f32})
    for (const Binning b : {Binning::direct, Binning::even, Binning::range})
      for (const char* label : labels)
        for (const int arch : {80, 90}) {
          if (t == SampleType::f32 && b == Binning::direct) continue;
          if (arch == 80 && label != kPart) continue;  // CI time: one configuration on sm_80
          const auto c = Hist1DConfig::parse(label);
          ASSERT_TRUE(c);
          const Problem p = large(t, b, 1u << 20, 1u << 24);
          const CompiledKernel k = compile(hist1d::request(*c, p, arch));
          const std::string image(k.cubin.begin(), k.cubin.end());
          EXPECT_NE(image.find(hist1d::kKernel), std::string::npos) << label << " sm_" << arch;
          for (const char* kernel : {hist1d::kCountKernel, hist1d::kSizesKernel})
            EXPECT_EQ(image.find(kernel), std::string::npos)
                << kernel << " is the count program's, not " << label << "'s";
          ++compiled;
        }
  EXPECT_EQ(compiled, 8 * (4 + 1));
}

// The sizes and count passes are a program of their own per tile size and partition bits, which
// every configuration of those shares (whatever its sample type, binning or other parameters),
// and which has both kernels and nothing else.
TEST(Partitioned, CountPassesAreOneProgramPerTileAndPartitionBits) {
  const auto a = Hist1DConfig::parse(kPart), b = Hist1DConfig::parse(
      "tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0");
  ASSERT_TRUE(a && b);
  ASSERT_EQ(hist1d::tile_samples(*a, large(SampleType::i32, Binning::direct, 1u << 20, 1u << 24)),
            hist1d::tile_samples(*b, large(SampleType::u32, Binning::even, 1u << 20, 1u << 24)));
  const CompileRequest ra = hist1d::count_request(
      *a, large(SampleType::i32, Binning::direct, 1u << 20, 1u << 24), 90);
  const CompileRequest rb = hist1d::count_request(
      *b, large(SampleType::u32, Binning::even, 1u << 20, 1u << 26), 90);
  EXPECT_EQ(cache_key(ra), cache_key(rb)) << "same tile and bits: one program";
  EXPECT_NE(cache_key(ra), cache_key(hist1d::count_request(
                               *a, large(SampleType::i32, Binning::direct, 1u << 22, 1u << 24), 90)))
      << "other partition bits";
  EXPECT_NE(cache_key(ra), cache_key(hist1d::count_request(
                               *a, large(SampleType::u16, Binning::direct, 1u << 20, 1u << 24), 90)))
      << "u16 samples: twice the samples per tile";
  EXPECT_NE(cache_key(ra), cache_key(hist1d::request(
                               *a, large(SampleType::i32, Binning::direct, 1u << 20, 1u << 24), 90)));
  const CompiledKernel k = compile(ra);
  const std::string image(k.cubin.begin(), k.cubin.end());
  for (const char* kernel : {hist1d::kCountKernel, hist1d::kSizesKernel})
    EXPECT_NE(image.find(kernel), std::string::npos) << kernel;
  EXPECT_EQ(image.find(hist1d::kKernel + std::string("(")), std::string::npos);
  const KernelFamily& f = family(Family::hist1d);
  const Problem p = large(SampleType::i32, Binning::direct, 1u << 20, 1u << 24);
  const std::vector<CompileRequest> also = f.also_compiled(f.parse(kPart).value(), p, 90);
  ASSERT_EQ(also.size(), 1u);
  EXPECT_EQ(cache_key(also[0]), cache_key(ra));
  EXPECT_TRUE(f.also_compiled(f.fallback(large(SampleType::u8, Binning::direct, 256, 1u << 24),
                                         test::h100_like()),
                              p, 90)
                  .empty())
      << "other storages load one program";
}

// Range binning of 4-byte samples carries the samples through the workspace (HT_PART_VALUES):
// 4-byte slots, the count pass's levels after its bins (so narrower partitions where a block
// holds both), the partitions' first levels as the partition pass's range index, and a count
// program per sample type; 8-byte samples and the other binnings keep 16-bit bins. Its built-in
// default partitions where the others slice.
TEST(Partitioned, RangeBinningOfFourByteSamplesCarriesTheSamples) {
  const Problem f32r = large(SampleType::f32, Binning::range, 1u << 20, 1u << 24);
  const Problem f64r = large(SampleType::f64, Binning::range, 1u << 20, 1u << 24);
  EXPECT_TRUE(hist1d::values_partitioned(f32r));
  EXPECT_TRUE(
      hist1d::values_partitioned(large(SampleType::u32, Binning::range, 1u << 20, 1u << 24)));
  EXPECT_FALSE(hist1d::values_partitioned(f64r));
  EXPECT_FALSE(
      hist1d::values_partitioned(large(SampleType::f32, Binning::even, 1u << 20, 1u << 24)));
  EXPECT_EQ(hist1d::partition_slot_bytes(f32r), 4u);
  EXPECT_EQ(hist1d::partition_slot_bytes(f64r), 2u);
  EXPECT_EQ(hist1d::staged_level_bytes(f32r), 4u);
  EXPECT_EQ(hist1d::staged_level_bytes(f64r), 0u);
  // The bins and the sink, the levels padded, the grid's cells.
  EXPECT_EQ(hist1d::count_pass_smem(13, 4), (8192u + 2) * 4 + (8192u + 256 + 1) * 4 + 8192u * 4);
  EXPECT_EQ(hist1d::partition_bits_max(90, 4), 14);  // 2^15 bins: 388 KB
  EXPECT_EQ(hist1d::partition_bits_max(80, 4), 13);  // 2^14 bins: 196 KB of 163
  EXPECT_EQ(hist1d::partition_bits_max(75, 4), 12);
  const std::uint64_t tile = 512 * 4 * 4;
  EXPECT_EQ(hist1d::partition_tile_slots(part(), f32r, 90), tile + 4 * 128);  // chunks of four
  EXPECT_EQ(hist1d::partition_tile_slots(part(), f64r, 90), 512 * 4 * 2 + 8 * 128);
  const auto has = [](const std::vector<std::string>& d, const std::string& w) {
    return std::find(d.begin(), d.end(), w) != d.end();
  };
  const auto defs = hist1d::defines(part(), f32r, 90);
  EXPECT_TRUE(has(defs, "-DHT_PART_VALUES=1"));
  EXPECT_TRUE(has(defs, "-DHT_RANGE_SHIFT=13"));
  EXPECT_FALSE(has(hist1d::defines(part(), f64r, 90), "-DHT_PART_VALUES=1"));
  for (const int arch : {75, 90}) {
    const CompileRequest r = hist1d::count_request(part(), f32r, arch);
    EXPECT_TRUE(has(r.defines, "-DHT_SAMPLE_T=float")) << arch;
    EXPECT_NE(r.label.find(".values"), std::string::npos) << r.label;
    const CompiledKernel k = compile(r);
    const std::string image(k.cubin.begin(), k.cubin.end());
    EXPECT_NE(image.find(hist1d::kCountKernel), std::string::npos) << arch;
  }
  EXPECT_NE(cache_key(hist1d::count_request(part(), f32r, 90)),
            cache_key(hist1d::count_request(
                part(), large(SampleType::u32, Binning::range, 1u << 20, 1u << 24), 90)));
  const DeviceInfo d = test::h100_like();
  const Problem sliced = large(SampleType::f32, Binning::range, 131072, 1u << 24);
  EXPECT_EQ(hist1d::default_for(sliced, d).storage, Storage::partitioned);
  EXPECT_NE(hist1d::default_for(large(SampleType::f32, Binning::even, 131072, 1u << 24), d).storage,
            Storage::partitioned);
}

// A partitioned winner serves shapes with as many partitions or more, not fewer, where its count
// pass would run on fewer SMs than it was timed with.
TEST(Partitioned, ServesNoShapeWithFewerPartitions) {
  const DeviceInfo d = test::h100_like();
  const Problem tuned = large(SampleType::i32, Binning::direct, 1u << 20, 1u << 26);  // 128
  EXPECT_EQ(hist1d::serves(part(), tuned, large(SampleType::i32, Binning::direct, 1u << 22,
                                                1u << 26), d).message(), "");
  EXPECT_EQ(hist1d::serves(part(), tuned, large(SampleType::i32, Binning::direct, 1u << 19,
                                                1u << 26), d).message(), "");  // 128 at 2^12
  const std::string m = hist1d::serves(part(), tuned, large(SampleType::i32, Binning::direct,
                                                            131072, 1u << 26), d).message();
  EXPECT_NE(m.find("timed on 128 partitions, it would count 131072 bins in 32"),
            std::string::npos) << m;
  // Half as many: 262144 bins (64 partitions of 2^12) to 131072 (32).
  const Problem half = large(SampleType::i32, Binning::direct, 262144, 1u << 26);
  const std::string h = hist1d::serves(part(), half, large(SampleType::i32, Binning::direct,
                                                           131072, 1u << 26), d).message();
  EXPECT_NE(h.find("timed on 64 partitions, it would count 131072 bins in 32"),
            std::string::npos) << h;
  EXPECT_EQ(hist1d::serves(part(), half, large(SampleType::i32, Binning::direct, 262145,
                                               1u << 26), d).message(), "");  // 65
}
