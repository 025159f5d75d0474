// On the GPU: partitioned storage (hist1d storage 5: the partition pass, then the count pass),
// bins from the large-bin boundary to 2^22 (just past 2^21: the first partitions of 2^15 bins on
// sm_90), odd sizes and a misaligned start, every distribution, every binning, prefetch 2 (bulk
// copies, sm_90) on aligned and misaligned starts, inputs that take several rounds of the
// workspace, and blocks whose tiles switch between spread and one-bin data, exact against the
// host reference; range binning of 4-byte samples carries the samples (HT_PART_VALUES), of the
// other types 16-bit bins. Counts start as 0xFF bytes: the first round must store every bin.
// On sm_90 a call's partition pass waits for the kernel before it (the previous call's count
// pass, which wrote its samples).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "gpu_graph.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using histtune::test::run_all_distributions;

namespace {

const char* kPart = "tpb512.vpt4.vec16.pc1.lay0.agg2.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0";
const char* kPartScalar = "tpb128.vpt1.vec0.pc1.lay0.agg0.u2.pad0.bps4.st5.b1.sb0.cl1.pf0.tp0";
const char* kPartWide = "tpb1024.vpt2.vec8.pc1.lay0.agg0.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0";
// Prefetch 2 (sm_90): each next tile by a bulk copy; an input whose body is not 16-byte aligned
// (odd sizes start misaligned) takes the loads of prefetch 0.
const char* kPartBulk = "tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf2.tp0";
const char* kPartBulkScalar = "tpb128.vpt1.vec0.pc1.lay0.agg2.u2.pad0.bps4.st5.b1.sb0.cl1.pf2.tp0";
// Range binning's slots are samples (4 bytes here, not 2): two blocks an SM fit half the tile.
const char* kPartBulkHalf = "tpb512.vpt4.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf2.tp0";

struct PartCase {
  const char* label;
  Problem shape;  // n is set per size
};

Problem shape(SampleType t, Binning b, std::uint32_t bins, double lower, double upper) {
  return flat_problem(t, b, bins, 0, lower, upper);
}

// The labels a test runs on d: prefetch 2's too where the device has bulk copies.
std::vector<const char*> labels_for(const DeviceInfo& d, std::vector<const char*> labels,
                                    std::vector<const char*> bulk) {
  if (d.cc_major >= 9) labels.insert(labels.end(), bulk.begin(), bulk.end());
  return labels;
}


template <class T>
T next_up(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::nextafter(x, INFINITY);
  else return static_cast<T>(x + 1);
}
template <class T>
T next_down(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::nextafter(x, -INFINITY);
  else return static_cast<T>(x - 1);
}

// Levels that crowd and thin out: a quarter the closest values the type has from `first` (many
// levels in one cell of the count pass's grid), a quarter growing by 2e-5 of their size, then a
// gap to `gap_to` and steps of `step`.
template <class T>
std::vector<T> uneven_levels(std::uint32_t bins, double first, double gap_to, double step) {
  std::vector<T> lv(std::size_t{bins} + 1);
  double x = first;
  for (std::uint32_t i = 0; i <= bins; ++i) {
    if (i > bins / 4 && i <= bins / 2) x += std::max(1.0, std::abs(x)) * 2e-5;
    if (i == bins / 2 + 1) x = gap_to;
    if (i > bins / 2 + 1) x += step;
    T v = static_cast<T>(x);
    if (i > 0 && !(v > lv[i - 1])) v = next_up(lv[i - 1]);
    lv[i] = v;
    x = static_cast<double>(v);
  }
  return lv;
}

// Samples on and beside the levels: levels themselves, their neighbours a unit or an ulp away,
// values between two levels, values outside (and NaN), and an eighth on one level (a hot
// partition, counted by several blocks).
template <class T>
std::vector<T> samples_around(const std::vector<T>& lv, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(n);
  const std::size_t bins = lv.size() - 1;
  for (T& s : out) {
    const std::size_t b = rng() % bins;
    switch (rng() % 8) {
      case 0: case 1: s = lv[b + rng() % 2]; break;
      case 2: s = next_up(lv[b]); break;
      case 3: s = b > 0 ? next_down(lv[b]) : lv[b]; break;
      case 4: case 5:
        s = static_cast<T>(static_cast<double>(lv[b]) +
                           (static_cast<double>(lv[b + 1]) - lv[b]) * (rng() % 1000) / 1000.0);
        break;
      case 6:
        if constexpr (std::is_floating_point_v<T>) s = rng() % 2 ? NAN : next_up(lv[bins]);
        else s = rng() % 2 && lv[0] > std::numeric_limits<T>::min() ? next_down(lv[0]) : lv[bins];
        break;
      default: s = lv[bins / 3];
    }
  }
  return out;
}

}  // namespace

TEST(Partitioned, ExactFromTheLargeBinBoundaryToFourMillionBins) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const PartCase cases[] = {
      {kPart, shape(SampleType::u32, Binning::direct, 16384, 0, 0)},
      {kPartScalar, shape(SampleType::u32, Binning::direct, 16385, 0, 0)},
      {kPart, shape(SampleType::i32, Binning::direct, 1u << 20, 0, 0)},
      {kPartWide, shape(SampleType::i32, Binning::direct, (1u << 20) + 7, 0, 0)},
      {kPart, shape(SampleType::f32, Binning::even, 1u << 20, 0, 100)},
      {kPartScalar, shape(SampleType::f32, Binning::even, 1u << 22, -1, 1)},
      {kPartWide, shape(SampleType::u32, Binning::direct, (1u << 21) + 1, 0, 0)},  // 2^15-bin parts
      {kPartWide, shape(SampleType::u32, Binning::even, 100003, 0, 4294967296.0)},
      {kPart, shape(SampleType::f32, Binning::range, 200000, 0, 100)},
      // Range binning's slots are the samples (two, four or eight a chunk); the padding's sink
      // is NaN or the type's largest value, here also the last level (u32, never counted).
      {kPart, shape(SampleType::f64, Binning::range, 70001, -1, 1)},
      {kPartScalar, shape(SampleType::f16, Binning::range, 20000, -1, 1)},
      {kPart, shape(SampleType::i64, Binning::range, 100000, -1e9, 1e9)},
      {kPartWide, shape(SampleType::u32, Binning::range, 1u << 20, 0, 4294967295.0)},
  };
  // Prefetch 2's bulk copies need a 16-byte aligned body: a start 3 samples in gives 8-byte
  // loads an aligned body after a head; 0 and 3 take the bulk path, odd sizes' 1 does not.
  const PartCase bulk[] = {
      {kPartBulk, shape(SampleType::i32, Binning::direct, (1u << 20) + 7, 0, 0)},
      {kPartBulkHalf, shape(SampleType::f32, Binning::range, 200000, 0, 100)},
      {kPartBulkHalf, shape(SampleType::bf16, Binning::range, 16384, -100, 100)},
      {kPartBulkScalar, shape(SampleType::u32, Binning::direct, 16385, 0, 0)},
      {kPartBulkScalar, shape(SampleType::f32, Binning::even, 1u << 22, -1, 1)},
  };
  int ran = 0, want = 0;
  for (const PartCase& k : cases) {
    const auto c = Hist1DConfig::parse(k.label);
    ASSERT_TRUE(c) << k.label;
    for (const std::uint64_t n : test::kLargeBinSizes) {
      Problem p = k.shape;
      p.n = n;
      ASSERT_EQ(hist1d::check(*c, p, d).message(), "") << k.label << " " << p.describe();
      ran += run_all_distributions(cache, *c, p, d, n % 2);  // odd sizes start misaligned
      want += 5;
    }
  }
  for (const PartCase& k : bulk) {
    if (d.cc_major < 9) break;
    const auto c = Hist1DConfig::parse(k.label);
    ASSERT_TRUE(c) << k.label;
    for (const std::uint64_t n : test::kLargeBinSizes)
      for (const std::uint64_t skip : {0u, 1u, 3u}) {
        Problem p = k.shape;
        p.n = n;
        ASSERT_EQ(hist1d::check(*c, p, d).message(), "") << k.label << " " << p.describe();
        ran += run_all_distributions(cache, *c, p, d, skip);
        want += 5;
      }
  }
  EXPECT_EQ(ran, want);
  EXPECT_GE(want, 13 * 4 * 5);
}

// Range binning of 4-byte samples through the count pass's grid: levels crowded into one cell
// (consecutive values), growing, and past a gap, and samples on, beside and between them; the
// last partition short. Exact against the host reference.
TEST(Partitioned, RangeBinningOfUnevenLevelsIsExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const std::uint32_t bins = (1u << 20) + 5;
  int ran = 0;
  auto run = [&](SampleType t, const auto& levels) {
    Problem p = shape(t, Binning::range, bins, static_cast<double>(levels.front()),
                      static_cast<double>(levels.back()));
    for (const char* label : labels_for(d, {kPart, kPartScalar}, {kPartBulkHalf})) {
      const auto c = Hist1DConfig::parse(label);
      ASSERT_TRUE(c);
      for (const std::uint64_t n : {std::uint64_t{4097}, (std::uint64_t{1} << 22) + 3}) {
        p.n = n;
        ASSERT_EQ(hist1d::check(*c, p, d).message(), "") << label << " " << p.describe();
        ASSERT_TRUE(hist1d::values_partitioned(p));
        const std::uint64_t seed = test::fresh_seed();
        const auto samples = tuner::bytes_of(samples_around(levels, n, seed));
        test::expect_config_exact(cache, *c, p, d, samples, 0,
                                  "uneven levels, seed " + std::to_string(seed),
                                  tuner::bytes_of(levels));
        ++ran;
      }
    }
  };
  run(SampleType::f32, uneven_levels<float>(bins, 1.0, 1e6, 0.25));
  run(SampleType::u32, uneven_levels<std::uint32_t>(bins, 5, 3e9, 1000));
  run(SampleType::i32, uneven_levels<std::int32_t>(bins, -2147483648.0, 1e6, 1000));
  EXPECT_GE(ran, 3 * 2 * 2);
}

// Each tile holds either samples spread over every partition or samples of one bin, drawn per
// tile, so a block's partition pass switches between plain ranks (after a tile without a hot
// partition) and the uniform-warp test (after one with) both ways. Two SMs assumed: every block
// takes a dozen tiles of a small input (small enough for racecheck).
TEST(Partitioned, TilesSwitchingBetweenSpreadAndOneBinStayExact) {
  HT_REQUIRE_GPU();
  DeviceInfo d = query_device(current_device());
  d.sm_count = 2;
  KernelCache cache;
  // Range binning's partition pass places the samples themselves (its levels over [0, 2^21)).
  for (const Binning b : {Binning::direct, Binning::range}) {
    const char* bulk = b == Binning::range ? kPartBulkHalf : kPartBulk;
    for (const char* label : labels_for(d, {kPartScalar, kPartWide}, {bulk})) {
      const auto c = Hist1DConfig::parse(label);
      ASSERT_TRUE(c);
      Problem p = shape(SampleType::i32, b, 1u << 20, 0, b == Binning::range ? 1u << 21 : 0);
      const std::uint64_t tile = hist1d::tile_samples(*c, p);
      p.n = 12 * tile * 2 * c->blocks_per_sm + 5;  // and a last tile of 5
      ASSERT_EQ(hist1d::check(*c, p, d).message(), "") << label;
      const std::uint64_t seed = test::fresh_seed();
      std::mt19937_64 rng(seed);
      std::vector<std::int32_t> samples(p.n);
      for (std::uint64_t first = 0; first < p.n; first += tile) {
        const bool one_bin = rng() % 2 == 0;
        const auto bin = static_cast<std::int32_t>(rng() % p.num_bins);
        for (std::uint64_t i = first; i < std::min(p.n, first + tile); ++i)
          samples[i] = one_bin ? bin : static_cast<std::int32_t>(rng() % p.num_bins);
      }
      std::vector<std::uint8_t> host(p.n * sizeof(std::int32_t));
      std::memcpy(host.data(), samples.data(), host.size());
      test::expect_config_exact(cache, *c, p, d, host, 0,
                                "tiles of spread or one-bin data, seed " + std::to_string(seed));
    }
  }
}

// A device with little memory gives a small workspace: the input runs in many rounds, the later
// ones adding to the counts the first stored.
TEST(Partitioned, ManyRoundsAddUpExactly) {
  HT_REQUIRE_GPU();
  DeviceInfo d = query_device(current_device());
  d.memory_bytes = std::uint64_t{64} << 21;  // 2 MiB of workspace
  KernelCache cache;
  int ran = 0, want = 0;
  // Prefetch 2 starts aligned: its bulk path through every round.
  for (const Problem& shaped : {shape(SampleType::i32, Binning::direct, 1u << 20, 0, 0),
                                shape(SampleType::f32, Binning::range, 200000, 0, 100)}) {
    const char* bulk = shaped.binning == Binning::range ? kPartBulkHalf : kPartBulk;
    const auto labels = labels_for(d, {kPart, kPartScalar}, {bulk, kPartBulkScalar});
    for (const char* label : labels) {
      const auto c = Hist1DConfig::parse(label);
      ASSERT_TRUE(c);
      Problem p = shaped;
      p.n = (std::uint64_t{1} << 23) + 5;
      ASSERT_EQ(hist1d::check(*c, p, d).message(), "");
      ASSERT_GT(p.n / hist1d::partition_chunk(*c, p, d), 4u) << label;
      ran += run_all_distributions(cache, *c, p, d, c->prefetch == 2 ? 0 : 1);
      want += 5;
    }
  }
  EXPECT_EQ(ran, want);
}

// Captured in a graph, the passes keep their order: the three passes start as programmatic
// dependents (sm_90) and wait for the kernel before them, over several rounds, and
// every replay stores the counts again. Alone in its process (ctest runs each test so), the
// capture makes the process's first workspace allocation, before the workspace pool exists.
TEST(Partitioned, AGraphOfManyRoundsReplaysExactly) {
  HT_REQUIRE_GPU();
  DeviceInfo d = query_device(current_device());
  d.memory_bytes = std::uint64_t{64} << 21;  // 2 MiB of workspace: several rounds
  KernelCache cache;
  for (const char* label : labels_for(d, {kPart}, {kPartBulk})) {
    const auto c = Hist1DConfig::parse(label);
    ASSERT_TRUE(c);
    Problem p = shape(SampleType::f32, Binning::even, 1u << 20, 0, 100);
    p.n = (std::uint64_t{1} << 22) + 3;
    ASSERT_GT(p.n / hist1d::partition_chunk(*c, p, d), 2u);
    const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::skewed);
    tuner::DeviceInputs in(p, host, 0);
    const Kernel k = cache.get(hist1d::request(*c, p, d.arch()), hist1d::kKernel);
    const Hist1DLaunch launch(cache, k, *c, p, d);
    cudaStream_t s = nullptr;
    HT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    {
      const test::CapturedGraph graph(s, [&] { launch(p, in.samples(0), in.counts(), s); });
      const auto want = reference_histogram(p, host.data());
      for (int replay = 0; replay < 3; ++replay) {
        HT_CUDA(cudaMemsetAsync(in.counts(), 0xFF, p.num_bins * sizeof(std::uint32_t), s));
        graph.launch(s);
        HT_CUDA(cudaStreamSynchronize(s));
        EXPECT_EQ(in.read_counts(p.num_bins), want) << label << " replay " << replay;
      }
    }
    HT_CUDA(cudaStreamDestroy(s));
  }
}

// On sm_90 the partition pass starts as a programmatic dependent of the kernel before it and
// waits for that kernel before reading anything: here the kernel before it is the previous
// call's count pass, which writes this call's samples (the first histogram's counts, over words
// set to 0xFFFFFFFF, which direct binning drops). The second histogram is one hot partition.
TEST(Partitioned, ReadsSamplesTheKernelBeforeItWrote) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  for (const char* label : labels_for(d, {kPart}, {kPartBulk})) {
    const auto c = Hist1DConfig::parse(label);
    ASSERT_TRUE(c);
    Problem first = shape(SampleType::u32, Binning::direct, 1u << 20, 0, 0);
    first.n = (std::uint64_t{1} << 23) + 3;
    Problem second = shape(SampleType::u32, Binning::direct, 1u << 16, 0, 0);
    second.n = first.num_bins;
    ASSERT_EQ(hist1d::check(*c, first, d).message(), "") << label;
    ASSERT_EQ(hist1d::check(*c, second, d).message(), "") << label;
    const std::uint64_t seed = test::fresh_seed();
    const auto host = tuner::make_samples(first, seed, tuner::Distribution::uniform);
    const auto counts = tuner::bytes_of(reference_histogram(first, host.data()));
    const auto want = reference_histogram(second, counts.data());
    tuner::DeviceInputs in(first, host, 0), out(second, counts, 0);
    const Kernel k1 = cache.get(hist1d::request(*c, first, d.arch()), hist1d::kKernel);
    const Kernel k2 = cache.get(hist1d::request(*c, second, d.arch()), hist1d::kKernel);
    const Hist1DLaunch launch1(cache, k1, *c, first, d), launch2(cache, k2, *c, second, d);
    cudaStream_t s = nullptr;
    HT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int rep = 0; rep < 3; ++rep) {
      HT_CUDA(cudaMemsetAsync(in.counts(), 0xFF, first.num_bins * sizeof(std::uint32_t), s));
      launch1(first, in.samples(0), in.counts(), s);
      launch2(second, in.counts(), out.counts(), s);
      HT_CUDA(cudaStreamSynchronize(s));
      EXPECT_EQ(out.read_counts(second.num_bins), want)
          << label << " rep " << rep << ", seed " << seed;
    }
    HT_CUDA(cudaStreamDestroy(s));
  }
}
