// On the GPU: every configuration of the 1D family, for every sample type and binning, bit-exact
// against the host reference on fresh random inputs of odd sizes; and the public API.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <random>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "sampled_kernels.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

struct Case {
  SampleType type;
  Binning binning;
  std::uint32_t bins;
  double lower, upper;
};

std::string name_of(const Case& c) {
  return std::string(to_string(c.type)) + "_" + to_string(c.binning) + "_" + std::to_string(c.bins);
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(c); }

Problem problem_of(const Case& c, std::uint64_t n) {
  Problem p;
  p.sample_type = c.type;
  p.binning = c.binning;
  p.num_bins = c.bins;
  p.lower = c.lower;
  p.upper = c.upper;
  p.n = n;
  return p;
}


class EveryConfiguration : public ::testing::TestWithParam<Case> {};

TEST_P(EveryConfiguration, BitExactOnOddSizes) {
  HT_REQUIRE_GPU();
  const Case k = GetParam();
  const DeviceInfo d = query_device(current_device());
  // Odd sizes, each with a distribution: the rejection paths (mixed), contention (constant,
  // skewed) and runs of equal neighbours that aggregation merges.
  const std::pair<std::uint64_t, tuner::Distribution> sizes[] = {
      {1, tuner::Distribution::mixed},          {31, tuner::Distribution::constant},
      {4097, tuner::Distribution::runs},        {(1u << 20) + 3, tuner::Distribution::mixed},
      {65537, tuner::Distribution::skewed}};

  // Configurations valid for the largest size (restrictions do not depend on n up to 2^22), one
  // compile per distinct kernel. Compiles dominate (the space has up to ~6,900 kernels per case), so
  // the test runs every configuration of every HT_GPU_STRIDE-th kernel (default 13, coprime with
  // every parameter's value count so every value is reached; 1 runs them all).
  const auto sample = test::sample_kernels<Hist1DFamily>(
      hist1d::space(), problem_of(k, 1u << 20), problem_of(k, 1), d, test::gpu_stride(13));
  const auto& [configs, req_of, reqs] = sample;
  tuner::CompilePool pool(reqs, 0);
  KernelCache cache;

  for (const auto& [n, dist] : sizes) {
    Problem p = problem_of(k, n);
    const std::uint64_t seed = test::fresh_seed();
    const auto host = tuner::make_samples(p, seed, dist);
    // Range binning: the tuner's uneven levels, on the device beside the samples.
    const auto levels =
        p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
    const auto expect = reference_histogram(p, host.data(), levels.empty() ? nullptr : levels.data());
    tuner::DeviceInputs in(p, host, 0, levels);
    p.d_levels = in.levels();
    int wrong = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      Kernel kern = cache.load(reqs[req_of[i]], pool.get(req_of[i]), hist1d::kKernel);
      launch_hist1d(cache, kern, configs[i], p, d, in.samples(0), in.counts(), nullptr);
      HT_CUDA(cudaDeviceSynchronize());
      if (in.read_counts(p.num_bins) != expect && ++wrong <= 5)
        ADD_FAILURE() << configs[i].label() << " wrong for " << p.describe() << " "
                      << tuner::to_string(dist) << " seed " << seed;
    }
    EXPECT_EQ(wrong, 0) << p.describe();
  }
  RecordProperty("configurations", static_cast<int>(configs.size()));
  RecordProperty("kernels", static_cast<int>(reqs.size()));
}

INSTANTIATE_TEST_SUITE_P(
    Hist1D, EveryConfiguration,
    ::testing::Values(Case{SampleType::u8, Binning::direct, 256, 0, 0},
                      Case{SampleType::u8, Binning::even, 100, 10, 250},
                      Case{SampleType::u16, Binning::direct, 1024, 0, 0},
                      Case{SampleType::u16, Binning::even, 1000, 0, 65536},
                      Case{SampleType::u32, Binning::direct, 4096, 0, 0},
                      Case{SampleType::u32, Binning::even, 777, 0, 4294967296.0},
                      Case{SampleType::i32, Binning::direct, 3000, 0, 0},
                      Case{SampleType::i32, Binning::even, 64, -1000, 1000},
                      Case{SampleType::f32, Binning::even, 1000, 0, 100},
                      // Integer even binning in 64 bits: u32 777 above and u8 over 2^32; u16
                      // and i16 where one multiply-high would not be exact take the 64-bit
                      // reciprocal (histtune::even_narrow 2); the rest is one multiply-high.
                      Case{SampleType::u8, Binning::even, 7, -2147483648.0, 2147483648.0},
                      Case{SampleType::u16, Binning::even, 4, 0, 65535},
                      Case{SampleType::i16, Binning::even, 256, -32768, 32767},
                      // The last 999 i32 values: INT_MIN's 32-bit offset wraps to just past them.
                      Case{SampleType::i32, Binning::even, 100, 2147482648.0, 2147483647.0},
                      // Beyond shared memory: global and cluster storage.
                      Case{SampleType::u32, Binning::direct, 65536, 0, 0},
                      Case{SampleType::f32, Binning::even, 1u << 20, 0, 100},
                      // Range binning: the u8 table, levels staged in shared memory (u16, i32,
                      // f32), levels searched in global memory (u32, f32), and past shared memory.
                      Case{SampleType::u8, Binning::range, 200, 0, 255},
                      Case{SampleType::u16, Binning::range, 1000, 0, 60000},
                      Case{SampleType::u32, Binning::range, 5000, 0, 4294967295.0},
                      Case{SampleType::i32, Binning::range, 64, -1000, 1000},
                      Case{SampleType::f32, Binning::range, 1000, 0, 100},
                      Case{SampleType::f32, Binning::range, 65536, -1, 1}),
    [](const auto& info) { return name_of(info.param); });

template <class T>
T* upload(const std::vector<std::uint8_t>& host) {
  T* d = nullptr;
  HT_CUDA(cudaMalloc(&d, std::max<std::size_t>(host.size(), 1)));
  HT_CUDA(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice));
  return d;
}

TEST(PublicApi, EveryOverloadMatchesTheReferenceOnAStream) {
  HT_REQUIRE_GPU();
  cudaStream_t stream;
  HT_CUDA(cudaStreamCreate(&stream));
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4096 * sizeof(std::uint32_t)));
  auto check = [&](const Problem& p, auto call) {
    const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::mixed);
    void* d = upload<std::uint8_t>(host);
    Status s = call(d);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<std::uint32_t> got(p.num_bins);
    HT_CUDA(cudaMemcpyAsync(got.data(), d_counts, 4 * p.num_bins, cudaMemcpyDeviceToHost, stream));
    HT_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(got, reference_histogram(p, host.data())) << p.describe();
    HT_CUDA(cudaFree(d));
  };
  for (std::uint64_t n : {0ull, 1ull, 100003ull}) {
    Problem p;
    p.n = n;
    p.num_bins = 256;
    check(p, [&](void* d) {
      return histogram_direct(static_cast<const std::uint8_t*>(d), n, 256, d_counts, stream);
    });
    p.sample_type = SampleType::u16;
    p.num_bins = 2000;
    check(p, [&](void* d) {
      return histogram_direct(static_cast<const std::uint16_t*>(d), n, 2000, d_counts, stream);
    });
    p.sample_type = SampleType::u32;
    p.num_bins = 4096;
    check(p, [&](void* d) {
      return histogram_direct(static_cast<const std::uint32_t*>(d), n, 4096, d_counts, stream);
    });
    p.sample_type = SampleType::i32;
    p.binning = Binning::even;
    p.num_bins = 300;
    p.lower = -70000;
    p.upper = 70000;
    check(p, [&](void* d) {
      return histogram_even(static_cast<const std::int32_t*>(d), n, 300, -70000, 70000, d_counts,
                            stream);
    });
    p.sample_type = SampleType::f32;
    p.num_bins = 1000;
    p.lower = -1.5;
    p.upper = 2.25;
    check(p, [&](void* d) {
      return histogram_even(static_cast<const float*>(d), n, 1000, -1.5f, 2.25f, d_counts, stream);
    });
    p.sample_type = SampleType::u8;
    p.num_bins = 7;
    p.lower = 3;
    p.upper = 200;
    check(p, [&](void* d) {
      return histogram_even(static_cast<const std::uint8_t*>(d), n, 7, 3, 200, d_counts, stream);
    });
  }
  Choice used = last_choice();
  EXPECT_EQ(hist1d::check(used.config, Problem{}, query_device(current_device())).message(), "");
  HT_CUDA(cudaFree(d_counts));
  HT_CUDA(cudaStreamDestroy(stream));
}

// One shape called with bounds that take one multiply-high, then with bounds where that would be
// wrong (histtune::even_narrow 2), then the first again: each call gets the kernel its own bounds
// need, not the one resolved first for the shape.
TEST(PublicApi, OneShapeCalledWithOtherBoundsGetsTheArithmeticTheyNeed) {
  HT_REQUIRE_GPU();
  constexpr std::uint64_t n = 65536;  // every u16 value once: 49151 among them
  std::vector<std::uint8_t> host(n * 2);
  for (std::uint64_t v = 0; v < n; ++v) {
    host[2 * v] = static_cast<std::uint8_t>(v);
    host[2 * v + 1] = static_cast<std::uint8_t>(v >> 8);
  }
  auto* d = upload<std::uint16_t>(host);
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * sizeof(std::uint32_t)));
  for (const double upper : {256.0, 65535.0, 256.0}) {
    const Problem p = flat_problem(SampleType::u16, Binning::even, 4, n, 0, upper);
    EXPECT_EQ(even_narrow(p), upper == 256.0 ? 1 : 2);
    const Status s = histogram_even(d, n, 4, 0, static_cast<std::int64_t>(upper), d_counts);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<std::uint32_t> got(4);
    HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, reference_histogram(p, host.data())) << p.describe();
  }
  HT_CUDA(cudaFree(d_counts));
  HT_CUDA(cudaFree(d));
}

// Bins far beyond shared memory go through global or cluster storage, still exact.
TEST(PublicApi, BinsBeyondSharedMemoryAreCountedExactly) {
  HT_REQUIRE_GPU();
  for (const std::uint32_t bins : {65536u, 1u << 24}) {
    Problem p;
    p.sample_type = SampleType::u32;
    p.num_bins = bins;
    p.n = (1u << 20) + 7;
    const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::mixed);
    auto* d = upload<std::uint32_t>(host);
    std::uint32_t* d_counts = nullptr;
    HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * bins));
    const Status s = histogram_direct(d, p.n, bins, d_counts, nullptr);
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<std::uint32_t> got(bins);
    HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * bins, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, reference_histogram(p, host.data())) << p.describe();
    EXPECT_GE(last_choice().config.storage, Storage::global) << last_choice().config.label();
    HT_CUDA(cudaFree(d));
    HT_CUDA(cudaFree(d_counts));
  }
}

}  // namespace

// The 16-bit thread counters are flushed before they can overflow; real inputs need that only
// past ~2^30 samples, so this also compiles the flush to run after every tile.
TEST(PerThreadCounters, FlushesKeepEveryCountExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  Hist1DConfig c;
  c.storage = Storage::thread_counters;
  c.block_threads = 128;
  c.vector_bytes = 16;
  c.vectors_per_thread = 2;
  c.batch = 4;
  c.blocks_per_sm = 1;
  KernelCache cache;
  for (const bool every_tile : {true, false}) {
    for (const auto dist : {tuner::Distribution::constant, tuner::Distribution::runs,
                            tuner::Distribution::uniform}) {
      for (const int single : {0, 1}) {
        Hist1DConfig cfg = c;
        cfg.single_block = single;
        // Single block: 128 threads x 32768 samples each, all on one counter for constant data
        // (half of the 16-bit range); the every-tile variant runs the flush thousands of times.
        const Problem p = problem_of(Case{SampleType::u8, Binning::direct, 256, 0, 0},
                                     (1u << 22) - 3);
        ASSERT_EQ(hist1d::check(cfg, p, d).message(), "") << cfg.label();
        CompileRequest req = hist1d_request(cfg, p, d.arch());
        if (every_tile) req.defines.push_back("-DHT_TEST_FLUSH_TILES=1");
        const Kernel k = cache.get(req, hist1d::kKernel);
        const auto host = tuner::make_samples(p, test::fresh_seed(), dist);
        tuner::DeviceInputs in(p, host, 0);
        launch_hist1d(cache, k, cfg, p, d, in.samples(0), in.counts(), nullptr);
        HT_CUDA(cudaDeviceSynchronize());
        EXPECT_EQ(in.read_counts(p.num_bins), reference_histogram(p, host.data()))
            << cfg.label() << (every_tile ? " flushing every tile " : " ") << tuner::to_string(dist);
      }
    }
  }
}

// Packed 16-bit counters: the add that wraps one moves 2^16 to the output (and a low counter's
// carry back out of its high neighbour). Real inputs wrap only hot bins, so this also starts every
// counter 16 below 2^16, which makes every block carry thousands of times, on many counters at
// once, low and high halves, a low carry wrapping its high neighbour among them.
TEST(PackedCounters, CarriesKeepEveryCountExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  struct Shape {
    SampleType type;
    std::uint32_t bins;
    std::uint64_t n;
  };
  for (const Shape s : {Shape{SampleType::u32, 65536, (1u << 22) - 3},
                        Shape{SampleType::u16, 4096, (1u << 21) + 5},
                        Shape{SampleType::u16, 65536, 1u << 20}}) {
    const Problem p = problem_of(Case{s.type, Binning::direct, s.bins, 0, 0}, s.n);
    for (const Aggregate agg :
         {Aggregate::none, Aggregate::thread_runs, Aggregate::warp_match}) {
      Hist1DConfig c;
      c.storage = Storage::packed;
      c.block_threads = 512;
      c.vector_bytes = 16;
      c.vectors_per_thread = 2;
      c.aggregate = agg;
      c.private_copies = s.bins <= 4096 ? 4 : 1;
      c.padding = c.private_copies > 1 ? 1 : 0;
      c.blocks_per_sm = 1;
      ASSERT_EQ(hist1d::check(c, p, d).message(), "") << c.label();
      for (const int start : {0, 0xFFF0}) {
        CompileRequest req = hist1d_request(c, p, d.arch());
        if (start) req.defines.push_back("-DHT_TEST_COUNTER_START=" + std::to_string(start));
        const Kernel k = cache.get(req, hist1d::kKernel);
        for (const auto dist : {tuner::Distribution::constant, tuner::Distribution::skewed,
                                tuner::Distribution::runs, tuner::Distribution::uniform}) {
          const auto host = tuner::make_samples(p, test::fresh_seed(), dist);
          tuner::DeviceInputs in(p, host, 0);
          launch_hist1d(cache, k, c, p, d, in.samples(0), in.counts(), nullptr);
          HT_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(in.read_counts(p.num_bins), reference_histogram(p, host.data()))
              << p.describe() << " " << c.label() << " counters from " << start << " "
              << tuner::to_string(dist);
        }
      }
    }
  }
}

// One cluster of private copies (single_block with cluster > 1): every block of the cluster
// counts its share, then each sums its bins over all blocks' copies through distributed shared
// memory and stores them. Every shape, size (1, 4097, 2^20 + 3), start and distribution exact.
TEST(SingleCluster, EveryBlocksCopiesAreSummedOnceIntoStoredCounts) {
  HT_REQUIRE_GPU();
  const char* const labels[] = {
      "tpb512.vpt2.vec16.pc2.lay0.agg0.u0.pad0.bps1.st0.b1.sb1.cl2.pf0.tp0",
      "tpb256.vpt4.vec8.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb1.cl4.pf0.tp0",
      "tpb1024.vpt1.vec16.pc1.lay1.agg0.u0.pad0.bps1.st0.b1.sb1.cl8.pf0.tp0",
      "tpb128.vpt1.vec0.pc1.lay0.agg1.u0.pad1.bps1.st0.b1.sb1.cl8.pf1.tp0",
  };
  const std::vector<Problem> shapes = {
      flat_problem(SampleType::i32, Binning::direct, 64, 0),
      flat_problem(SampleType::i32, Binning::direct, 256, 0),
      flat_problem(SampleType::u8, Binning::direct, 256, 0),
      flat_problem(SampleType::f32, Binning::even, 1000, 0, 0, 100),
      flat_problem(SampleType::u16, Binning::range, 300, 0, 0, 60000)};
  const DeviceInfo d = query_device(current_device());
  for (const Problem& s : shapes) {
    int hold = 0;
    for (const char* label : labels) hold += hist1d::check(*Hist1DConfig::parse(label), s, d).holds();
    EXPECT_GE(hold, 3) << s.describe() << ": the cluster labels must run it";
  }
  // Per shape, size and start: the default and at least three cluster labels, five distributions.
  EXPECT_GE(test::run_shapes(shapes, labels), 5 * 5 * 4 * 5);
}

// Adding configurations zero the counts with a kernel that the histogram kernel overlaps as its
// programmatic dependent (sm_90; shapes where hist1d::zeroing says so; small inputs only in a
// graph), else with a memset: the counts start as 0xFFFFFFFF, and calls on one stream and
// replays of a captured graph on the same counts must each give exactly one histogram (the
// zeroing completes before any add, and no call adds to the last call's counts). The graph holds
// the zeroing the launch said it would use: two kernel nodes a call, or a memset and a kernel.
TEST(ZeroingKernel, EveryAddingStorageIsExactOnAStreamAndInGraphReplays) {
  HT_REQUIRE_GPU();
  struct Shape {
    const char* label;
    Problem p;
  };
  const Shape shapes[] = {
      {"tpb512.vpt2.vec16.pc2.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf1.tp0",
       flat_problem(SampleType::i32, Binning::direct, 64, (1u << 16) + 5)},
      {"tpb256.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1.pf0.tp0",
       flat_problem(SampleType::u8, Binning::direct, 256, (1u << 18) + 3)},
      {"tpb256.vpt1.vec16.pc1.lay0.agg1.u0.pad0.bps8.st2.b1.sb0.cl1.pf0.tp0",
       flat_problem(SampleType::i32, Binning::direct, 1u << 20, (1u << 20) + 1)},
      {"tpb512.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st3.b1.sb0.cl2.pf0.tp0",
       flat_problem(SampleType::i32, Binning::direct, 65536, 1u << 20)},
      {"tpb1024.vpt4.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1.tp0",
       flat_problem(SampleType::u32, Binning::direct, 65536, (1u << 21) + 7)},
      {"tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0",  // sliced
       flat_problem(SampleType::i32, Binning::direct, 131072, 1u << 20)},
      {"tpb512.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0",  // byte decoding
       flat_problem(SampleType::u8, Binning::even, 10, (1u << 18) + 9, 0, 256)},
  };
  // HISTTUNE_PDL=0 or off keeps the memset (hist1d_launch.cpp); any other value, or none, allows
  // the zeroing kernel.
  const char* pdl = std::getenv("HISTTUNE_PDL");
  const bool pdl_on = !pdl || (std::strcmp(pdl, "0") != 0 && std::strcmp(pdl, "off") != 0);
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  cudaStream_t stream;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const Shape& s : shapes) {
    const Hist1DConfig c = *Hist1DConfig::parse(s.label);
    ASSERT_EQ(hist1d::check(c, s.p, d).message(), "") << s.label;
    const auto host = tuner::make_samples(s.p, test::fresh_seed(), tuner::Distribution::skewed);
    const auto expect = reference_histogram(s.p, host.data());
    tuner::DeviceInputs in(s.p, host, 0);
    const Kernel k = cache.get(hist1d::request(c, s.p, d.arch()), hist1d::kKernel);
    const Hist1DLaunch launch(cache, k, c, s.p, d);
    ASSERT_TRUE(launch.zeroes_counts()) << s.label;
    const bool kernel_zeroes = d.cc_major >= 9 && pdl_on;
    EXPECT_EQ(launch.zeroes_with_kernel(false),
              kernel_zeroes && hist1d::zeroing(s.p, d) == hist1d::Zeroing::kernel)
        << s.label;
    EXPECT_EQ(launch.zeroes_with_kernel(true), kernel_zeroes) << s.label;
    HT_CUDA(cudaMemset(in.counts(), 0xFF, s.p.num_bins * sizeof(std::uint32_t)));
    HT_CUDA(cudaDeviceSynchronize());  // the legacy stream's memset, before the stream's calls
    for (int call = 0; call < 2; ++call) {
      launch(s.p, in.samples(0), in.counts(), stream);
      HT_CUDA(cudaStreamSynchronize(stream));
      EXPECT_EQ(in.read_counts(s.p.num_bins), expect) << s.label << " stream call " << call;
    }
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int call = 0; call < 3; ++call) launch(s.p, in.samples(0), in.counts(), stream);
    HT_CUDA(cudaStreamEndCapture(stream, &graph));
    std::size_t nodes = 0;
    HT_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
    std::vector<cudaGraphNode_t> all(nodes);
    HT_CUDA(cudaGraphGetNodes(graph, all.data(), &nodes));
    int kernels = 0, memsets = 0;
    for (cudaGraphNode_t n : all) {
      cudaGraphNodeType type;
      HT_CUDA(cudaGraphNodeGetType(n, &type));
      kernels += type == cudaGraphNodeTypeKernel;
      memsets += type == cudaGraphNodeTypeMemset;
    }
    EXPECT_EQ(kernels, kernel_zeroes ? 6 : 3) << s.label;
    EXPECT_EQ(memsets, kernel_zeroes ? 0 : 3) << s.label;
    HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    HT_CUDA(cudaMemset(in.counts(), 0xFF, s.p.num_bins * sizeof(std::uint32_t)));
    for (int replay = 0; replay < 2; ++replay) {
      HT_CUDA(cudaGraphLaunch(exec, stream));
      HT_CUDA(cudaStreamSynchronize(stream));
      EXPECT_EQ(in.read_counts(s.p.num_bins), expect) << s.label << " graph replay " << replay;
    }
    HT_CUDA(cudaGraphExecDestroy(exec));
    HT_CUDA(cudaGraphDestroy(graph));
  }
  HT_CUDA(cudaStreamDestroy(stream));
}
