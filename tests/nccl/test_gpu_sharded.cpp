// histtune::nccl on two GPUs driven by one process (one comm each, ncclCommInitAll): the result
// equals the host histogram of the concatenated shards, exactly, for each combine, binning and
// form of the call; and refusals that need real comms. Skip, with the reason, without 2 GPUs.
#include "nccl_gpus.hpp"

namespace histtune::test {
namespace {

constexpr int kGpus = 2;

class NcclTwoGpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!no_two_gpus_reason().empty()) return;
    nccl::keep_nvls_off();
    const int devices[kGpus] = {0, 1};
    ASSERT_EQ(ncclCommInitAll(comms_, kGpus, devices), ncclSuccess);
  }
  static void TearDownTestSuite() {
    for (ncclComm_t& c : comms_)
      if (c) ncclCommDestroy(c), c = nullptr;
  }
  void SetUp() override {
    HT_REQUIRE_TWO_GPUS();
    ASSERT_NE(comms_[0], nullptr);
  }

  // Draws each GPU's shard of p (n[g] samples), uploads it with a 0xFF-filled output, runs
  // `call` and checks every GPU's counts against the concatenation's host histogram (for
  // reduce_scatter: each GPU's own slice; its other bins against its own shard's).
  template <class Call>
  void check(const Problem& p, const std::uint64_t (&n)[kGpus], nccl::Combine how,
             const Call& call) {
    std::vector<std::vector<std::uint8_t>> host;
    std::vector<std::unique_ptr<DeviceBytes>> samples, counts, levels;
    const auto lv = p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
    std::vector<nccl::Shard> shards;
    for (int g = 0; g < kGpus; ++g) {
      host.push_back(shard_samples(p, n[g], g));
      samples.push_back(upload(g, host.back()));
      counts.push_back(std::make_unique<DeviceBytes>(g, p.num_bins * sizeof(std::uint64_t)));
      HT_CUDA(cudaMemset(counts.back()->get(), 0xFF, p.num_bins * sizeof(std::uint64_t)));
      levels.push_back(upload(g, lv));
      shards.push_back(nccl::Shard{samples.back()->get(), n[g],
                                   counts.back()->get<std::uint64_t>(), comms_[g], nullptr,
                                   lv.empty() ? nullptr : levels.back()->get()});
    }
    HT_CUDA(cudaSetDevice(0));
    const Status s = call(shards);
    ASSERT_TRUE(s.ok()) << s.message();
    const auto want = reference_of(p, host, lv);
    for (int g = 0; g < kGpus; ++g) {
      const auto got = download(g, shards[g].d_counts, p.num_bins);
      if (how == nccl::Combine::all_reduce) {
        EXPECT_EQ(got, want) << p.describe() << " on GPU " << g;
        continue;
      }
      const auto own = reference_of(p, {host[g]}, lv);
      const nccl::BinSlice mine = nccl::bin_slice(p.num_bins, g, kGpus);
      for (std::uint32_t b = 0; b < p.num_bins; ++b) {
        const bool in = b >= mine.first && b < mine.first + mine.count;
        ASSERT_EQ(got[b], in ? want[b] : own[b])
            << p.describe() << " on GPU " << g << ", bin " << b << (in ? " (its slice)" : "");
      }
    }
  }

  static ncclComm_t comms_[kGpus];
};
ncclComm_t NcclTwoGpus::comms_[kGpus] = {};

// Odd sizes: misaligned tails, and one shard twice the other's.
constexpr std::uint64_t kSizes[kGpus] = {(std::uint64_t{1} << 20) + 3, (std::uint64_t{1} << 21) + 7};

TEST_F(NcclTwoGpus, AllReduceOfShardsIsTheHistogramOfTheirConcatenation) {
  for (const Problem& p : {flat_problem(SampleType::u8, Binning::direct, 256, 0),
                           flat_problem(SampleType::u16, Binning::even, 1000, 0, 0, 65536),
                           flat_problem(SampleType::f32, Binning::range, 33, 0, 0, 1),
                           flat_problem(SampleType::i64, Binning::even, 7, 0, -100, 100)}) {
    check(p, kSizes, nccl::Combine::all_reduce,
          [&](const std::vector<nccl::Shard>& s) { return nccl::histogram(p, s); });
  }
}

TEST_F(NcclTwoGpus, ReduceScatterGivesEachRankItsSliceEqualOrNot) {
  // 256 bins: NCCL's reduce-scatter; 255 and 1001: one reduce per slice.
  for (std::uint32_t bins : {256u, 255u, 1001u}) {
    const Problem p = flat_problem(SampleType::u16, Binning::direct, bins, 0);
    check(p, kSizes, nccl::Combine::reduce_scatter, [&](const std::vector<nccl::Shard>& s) {
      return nccl::histogram(p, s, nccl::Combine::reduce_scatter);
    });
  }
}

TEST_F(NcclTwoGpus, TypedPerRankCallsInTheCallersGroup) {
  const Problem p = flat_problem(SampleType::f32, Binning::even, 64, 0, 0.25, 0.75);
  for (nccl::Combine how : {nccl::Combine::all_reduce, nccl::Combine::reduce_scatter}) {
    check(p, kSizes, how, [&](const std::vector<nccl::Shard>& shards) {
      Status last;
      if (ncclGroupStart() != ncclSuccess) return Status(StatusCode::internal, "ncclGroupStart");
      for (int g = 0; g < kGpus && last.ok(); ++g) {
        HT_CUDA(cudaSetDevice(g));
        const nccl::Shard& s = shards[g];
        last = nccl::histogram_even(static_cast<const float*>(s.d_samples), s.n, 64, 0.25f,
                                    0.75f, s.d_counts, s.comm, s.stream, how);
      }
      if (ncclGroupEnd() != ncclSuccess) return Status(StatusCode::internal, "ncclGroupEnd");
      return last;
    });
  }
}

TEST_F(NcclTwoGpus, AnEmptyShardCountsNothing) {
  const Problem p = flat_problem(SampleType::u8, Binning::direct, 256, 0);
  const std::uint64_t sizes[kGpus] = {0, 12345};
  check(p, sizes, nccl::Combine::all_reduce,
        [&](const std::vector<nccl::Shard>& s) { return nccl::histogram(p, s); });
}

TEST_F(NcclTwoGpus, RefusalsThatAskTheComms) {
  DeviceBytes samples(0, 4096), counts0(0, 256 * 8), counts1(1, 256 * 8);
  // The fill on GPU 0's stream, and done: with GPU 1 current (counts1 was made last) it went to
  // GPU 1's legacy stream, which the check below, synchronising GPU 0, did not wait for.
  HT_CUDA(cudaSetDevice(0));
  HT_CUDA(cudaMemset(counts0.get(), 0xFF, 256 * 8));
  HT_CUDA(cudaDeviceSynchronize());
  const Problem p = flat_problem(SampleType::u8, Binning::direct, 256, 0);
  const auto* x = samples.get<std::uint8_t>();
  auto refused = [](const Status& s, const std::string& words) {
    EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
    EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
  };
  // The comm of GPU 1 while GPU 0 is current.
  HT_CUDA(cudaSetDevice(0));
  refused(nccl::histogram_direct(x, 4096, 256, counts0.get<std::uint64_t>(), comms_[1]),
          "is of GPU 1 but GPU 0 is current");
  // A stream of GPU 1 with the comm of GPU 0.
  cudaStream_t s1;
  HT_CUDA(cudaSetDevice(1));
  HT_CUDA(cudaStreamCreate(&s1));
  HT_CUDA(cudaSetDevice(0));
  refused(nccl::histogram_direct(x, 4096, 256, counts0.get<std::uint64_t>(), comms_[0], s1),
          "the stream is of GPU 1");
  refused(nccl::histogram(p, {nccl::Shard{x, 4096, counts0.get<std::uint64_t>(), comms_[0], s1}}),
          "the stream is of GPU 1");
  // Two shards of one GPU would need two ranks there.
  refused(nccl::histogram(p, {nccl::Shard{x, 4096, counts0.get<std::uint64_t>(), comms_[0]},
                              nccl::Shard{x, 4096, counts1.get<std::uint64_t>(), comms_[1]},
                              nccl::Shard{x, 4096, counts1.get<std::uint64_t>(),
                                          reinterpret_cast<ncclComm_t>(comms_[1])}}),
          "has the comm of shard 1");
  HT_CUDA(cudaStreamDestroy(s1));
  // Shard 1's levels in pageable host memory: refused before shard 0 launches.
  const Problem range = flat_problem(SampleType::u8, Binning::range, 4, 0);
  DeviceBytes levels0(0, 5), samples1(1, 4096);
  const std::uint8_t host_levels[5] = {0, 10, 20, 30, 40};
  refused(nccl::histogram(range, {nccl::Shard{x, 4096, counts0.get<std::uint64_t>(), comms_[0],
                                              nullptr, levels0.get()},
                                  nccl::Shard{samples1.get(), 4096, counts1.get<std::uint64_t>(),
                                              comms_[1], nullptr, host_levels}}),
          "shard 1 of 2");
  // Nothing ran: the output still holds its fill.
  for (std::uint64_t c : download(0, counts0.get<std::uint64_t>(), 256))
    ASSERT_EQ(c, ~std::uint64_t{0});
  int current = -1;
  HT_CUDA(cudaGetDevice(&current));
  EXPECT_EQ(current, 0);
}

TEST_F(NcclTwoGpus, CombineCountsSumsCountsMadeElsewhere) {
  std::vector<std::unique_ptr<DeviceBytes>> counts;
  HT_NCCL(ncclGroupStart());
  for (int g = 0; g < kGpus; ++g) {
    HT_CUDA(cudaSetDevice(g));
    std::vector<std::uint64_t> mine(10);
    for (int b = 0; b < 10; ++b) mine[b] = std::uint64_t{1} << (33 + g) | b;
    counts.push_back(std::make_unique<DeviceBytes>(g, 80));
    HT_CUDA(cudaMemcpy(counts.back()->get(), mine.data(), 80, cudaMemcpyHostToDevice));
    const Status s = nccl::combine_counts(counts.back()->get<std::uint64_t>(), 10, comms_[g]);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  HT_NCCL(ncclGroupEnd());
  for (int g = 0; g < kGpus; ++g) {
    const auto got = download(g, counts[g]->get<std::uint64_t>(), 10);
    for (int b = 0; b < 10; ++b)
      EXPECT_EQ(got[b], (std::uint64_t{3} << 33) + 2 * b) << "GPU " << g << " bin " << b;
  }
}

}  // namespace
}  // namespace histtune::test
