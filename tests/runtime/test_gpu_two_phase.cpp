// On the GPU: the two-phase flush (two_phase 1) of both families. The output is filled with
// 0xFFFFFFFF before every call, so a count the reduction does not store shows; every block's row
// of the partials must be stored, zeros too, for the sums to be exact.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "gpu.hpp"
#include "gpu_graph.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

Problem flat(SampleType t, Binning b, std::uint32_t bins, double lower, double upper,
             std::uint64_t n) {
  return flat_problem(t, b, bins, n, lower, upper);
}

Problem channels(std::uint32_t c, std::uint32_t a, std::uint64_t rows) {
  return multichannel_problem(SampleType::u8, c, a, rows);
}

std::vector<std::uint8_t> samples_for(const Problem& p, tuner::Distribution d) {
  Problem f = flat(p.sample_type, p.binning, p.num_bins, p.lower, p.upper, p.total_samples());
  return tuner::make_samples(f, fresh_seed(), d);
}

void poison(std::uint32_t* d_counts, std::size_t words, cudaStream_t s = nullptr) {
  HT_CUDA(cudaMemsetAsync(d_counts, 0xFF, words * sizeof(std::uint32_t), s));
}

}  // namespace

TEST(TwoPhase, Hist1DEveryBlockStoresItsRowAndTheSumsAreExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const char* labels[] = {
      "tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf1.tp1",  // lane-striped
      "tpb256.vpt1.vec0.pc4.lay0.agg1.u0.pad1.bps8.st0.b1.sb0.cl1.pf0.tp1",    // copies, runs
      "tpb128.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1.pf0.tp1"};  // thread counters
  const Problem shapes[] = {flat(SampleType::u8, Binning::direct, 256, 0, 0, 1),
                            flat(SampleType::u8, Binning::direct, 256, 0, 0, 65537),
                            flat(SampleType::u8, Binning::direct, 256, 0, 0, (1u << 22) + 3),
                            flat(SampleType::u32, Binning::direct, 4096, 0, 0, (1u << 20) + 5),
                            flat(SampleType::f32, Binning::even, 1000, 0, 100, 100003),
                            flat(SampleType::u8, Binning::direct, 256, 0, 0, 0)};
  int ran = 0;
  for (const char* label : labels) {
    const auto c = Hist1DConfig::parse(label);
    ASSERT_TRUE(c) << label;
    for (const Problem& p : shapes) {
      if (!hist1d::check(*c, p, d).holds()) continue;  // per-thread counters: few bins only
      const Kernel k = cache.get(hist1d_request(*c, p, d.arch()), hist1d::kKernel);
      for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::constant}) {
        const auto host = samples_for(p, dist);
        tuner::DeviceInputs in(p, host, 0);
        const Hist1DLaunch launch(cache, k, *c, p, d);
        EXPECT_EQ(launch.two_phase(), p.n > 0) << label;
        poison(in.counts(), p.num_bins);
        launch(p, in.samples(0), in.counts(), nullptr);
        HT_CUDA(cudaDeviceSynchronize());
        EXPECT_EQ(in.read_counts(p.num_bins), reference_histogram(p, host.data()))
            << label << " " << p.describe() << " " << tuner::to_string(dist);
        ++ran;
      }
    }
  }
  EXPECT_GE(ran, 20);
}

TEST(TwoPhase, MultiChannelRowsOfEveryGridRowSumExactly) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const std::pair<const char*, Problem> cases[] = {
      {"mc.tpb1024.vpt2.vec16.cpb0.pc1.pad0.bps2.u0.lay1.pf1.tp1", channels(4, 3, 1000003)},
      {"mc.tpb1024.vpt2.vec16.cpb0.pc1.pad0.bps1.u0.lay1.pf1.tp1", channels(4, 4, 1)},
      {"mc.tpb1024.vpt2.vec16.cpb32.pc1.pad0.bps2.u0.lay2.pf1.tp1", channels(64, 64, 70001)},
      {"mc.tpb256.vpt2.vec16.cpb16.pc1.pad1.bps4.u0.lay0.pf0.tp1", channels(64, 40, 4097)},
      {"mc.tpb256.vpt2.vec16.cpb16.pc1.pad1.bps4.u0.lay0.pf0.tp1", channels(64, 40, 0)}};
  for (const auto& [label, p] : cases) {
    const auto c = MultiChannelConfig::parse(label);
    ASSERT_TRUE(c) << label;
    ASSERT_EQ(multichannel::check(*c, p, d).message(), "") << label << " " << p.describe();
    const Kernel k = cache.get(multichannel::request(*c, p, d.arch()), multichannel::kKernel);
    const MultiChannelLaunch launch(cache, k, *c, p, d);
    EXPECT_TRUE(launch.two_phase());
    const std::size_t words = std::size_t{p.num_bins} * p.active_channels;
    for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::runs}) {
      const auto host = samples_for(p, dist);
      tuner::DeviceInputs in(p, host, 0);
      std::uint32_t* counts = nullptr;  // the inputs' counts hold one channel's bins
      HT_CUDA(cudaMalloc(&counts, words * sizeof(std::uint32_t)));
      poison(counts, words);
      launch(p, in.samples(0), counts, nullptr);
      std::vector<std::uint32_t> got(words);
      HT_CUDA(cudaMemcpy(got.data(), counts, words * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      HT_CUDA(cudaFree(counts));
      EXPECT_EQ(got, reference_histogram(p, host.data()))
          << label << " " << p.describe() << " " << tuner::to_string(dist);
    }
  }
}

// The partials come from a stream-ordered pool: a captured call replays, and calls on two
// streams at once each get their own buffer.
TEST(TwoPhase, GraphReplayAndTwoStreamsAtOnce) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const auto c = Hist1DConfig::parse("tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf1.tp1");
  ASSERT_TRUE(c);
  const Problem p = flat(SampleType::u8, Binning::direct, 256, 0, 0, (1u << 24) + 7);
  const Kernel k = cache.get(hist1d_request(*c, p, d.arch()), hist1d::kKernel);
  const Hist1DLaunch launch(cache, k, *c, p, d);
  const auto a = samples_for(p, tuner::Distribution::uniform);
  const auto b = samples_for(p, tuner::Distribution::skewed);
  tuner::DeviceInputs in_a(p, a, 0), in_b(p, b, 0);
  cudaStream_t s1 = nullptr, s2 = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  HT_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  {
    const test::CapturedGraph graph(s1, [&] { launch(p, in_a.samples(0), in_a.counts(), s1); });
    for (int replay = 0; replay < 3; ++replay) {
      poison(in_a.counts(), p.num_bins, s1);
      graph.launch(s1);
      HT_CUDA(cudaStreamSynchronize(s1));
      EXPECT_EQ(in_a.read_counts(p.num_bins), reference_histogram(p, a.data()))
          << "replay " << replay;
    }
  }

  for (int round = 0; round < 5; ++round) {
    poison(in_a.counts(), p.num_bins, s1);
    poison(in_b.counts(), p.num_bins, s2);
    launch(p, in_a.samples(0), in_a.counts(), s1);
    launch(p, in_b.samples(0), in_b.counts(), s2);
    HT_CUDA(cudaStreamSynchronize(s1));
    HT_CUDA(cudaStreamSynchronize(s2));
    EXPECT_EQ(in_a.read_counts(p.num_bins), reference_histogram(p, a.data())) << round;
    EXPECT_EQ(in_b.read_counts(p.num_bins), reference_histogram(p, b.data())) << round;
  }
  HT_CUDA(cudaStreamDestroy(s1));
  HT_CUDA(cudaStreamDestroy(s2));
}
