// histtune::nccl's argument checks that need no GPU (they run in CI): every refusal is
// invalid_argument, says what is wrong, and comes before any NCCL or CUDA call. And bin_slice.
#include <gtest/gtest.h>

#include "histtune/nccl.hpp"

namespace histtune::nccl {
namespace {

// Stand-ins: addresses that are never dereferenced, because every call below is refused first.
const auto* const kSamples = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{1} << 20);
auto* const kCounts = reinterpret_cast<std::uint64_t*>(std::uintptr_t{1} << 24);
// Two distinct non-null comms, refused before NCCL would be asked about them.
ncclComm_t fake_comm(int i) { return reinterpret_cast<ncclComm_t>(std::uintptr_t{1} << (30 + i)); }

void expect_refused(const Status& s, const std::string& words) {
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_NE(s.message().find(words), std::string::npos) << s.message();
  EXPECT_EQ(s.message().rfind("histtune", 0), 0u) << s.message();
}

Problem u8_direct() { return flat_problem(SampleType::u8, Binning::direct, 256, 0); }

TEST(NcclArguments, TypedCallsRefuseANullComm) {
  expect_refused(histogram_direct(kSamples, 100, 256, kCounts, nullptr), "comm is null");
  expect_refused(histogram_even(kSamples, 100, 16, 0, 256, kCounts, nullptr), "comm is null");
  const auto* f = reinterpret_cast<const float*>(kSamples);
  expect_refused(histogram_even(f, 100, 16, 0.0f, 1.0f, kCounts, nullptr), "comm is null");
  expect_refused(histogram_range(kSamples, 100, 4, kSamples, kCounts, nullptr), "comm is null");
}

TEST(NcclArguments, TypedCallsRefuseNullCountsAndUnknownCombine) {
  expect_refused(histogram_direct(kSamples, 100, 256, nullptr, fake_comm(0)), "d_counts is null");
  expect_refused(histogram_direct(kSamples, 100, 256, kCounts, fake_comm(0), nullptr,
                                  static_cast<Combine>(7)),
                 "unknown Combine value 7");
}

TEST(NcclArguments, ShardsAreCheckedBeforeAnything) {
  expect_refused(histogram(u8_direct(), {}), "no shards");
  expect_refused(histogram(u8_direct(), {Shard{kSamples, 100, kCounts, nullptr}}),
                 "shard 0 of 1: comm is null");
  expect_refused(histogram(u8_direct(), {Shard{kSamples, 100, kCounts, fake_comm(0)},
                                         Shard{kSamples, 100, kCounts, fake_comm(0)}}),
                 "shard 1 of 2 has the comm of shard 0");
  expect_refused(histogram(u8_direct(), {Shard{kSamples, 100, kCounts, fake_comm(0)}},
                           static_cast<Combine>(-1)),
                 "unknown Combine value -1");
}

TEST(NcclArguments, EachShardsProblemIsCheckedAsTheLocalCallWould) {
  // The second shard is the bad one: nothing of the first may have run either.
  const Shard good{kSamples, 100, kCounts, fake_comm(0)};
  expect_refused(histogram(u8_direct(), {good, Shard{nullptr, 100, kCounts, fake_comm(1)}}),
                 "shard 1 of 2");
  expect_refused(histogram(u8_direct(), {good, Shard{kSamples, 100, nullptr, fake_comm(1)}}),
                 "shard 1 of 2");
  const Shard misaligned{kSamples, 100, reinterpret_cast<std::uint64_t*>(std::uintptr_t{1} << 24 | 4),
                         fake_comm(1)};
  expect_refused(histogram(u8_direct(), {good, misaligned}), "shard 1 of 2");
  expect_refused(histogram(flat_problem(SampleType::u8, Binning::direct, 0, 0), {good}),
                 "shard 0 of 1");
  // Range binning needs levels: the shard's, else the problem's.
  expect_refused(histogram(flat_problem(SampleType::u8, Binning::range, 4, 0), {good}),
                 "shard 0 of 1");
  // Only 1D problems are sharded.
  Problem rows = u8_direct();
  rows.family = Family::batched;
  expect_refused(histogram(rows, {good}), "shard 0 of 1");
}

TEST(NcclArguments, CombineCountsRefusesNoBinsAndNullPointers) {
  expect_refused(combine_counts(kCounts, 0, fake_comm(0)), "num_bins is 0");
  expect_refused(combine_counts(kCounts, 8, nullptr), "comm is null");
  expect_refused(combine_counts(nullptr, 8, fake_comm(0)), "d_counts is null");
}

TEST(NcclArguments, BinSlicesCoverEveryBinOnceInRankOrder) {
  for (std::uint32_t bins : {1u, 2u, 7u, 255u, 256u, 1000003u, 0xFFFFFFFFu}) {
    for (int ranks : {1, 2, 3, 8, 13}) {
      std::uint32_t next = 0, smallest = 0xFFFFFFFFu, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const BinSlice s = bin_slice(bins, r, ranks);
        EXPECT_EQ(s.first, next) << bins << " bins, rank " << r << " of " << ranks;
        next = s.first + s.count;
        smallest = std::min(smallest, s.count);
        largest = std::max(largest, s.count);
      }
      EXPECT_EQ(next, bins) << bins << " bins over " << ranks << " ranks";
      EXPECT_LE(largest - smallest, 1u) << bins << " bins over " << ranks << " ranks";
    }
  }
  EXPECT_EQ(bin_slice(256, 1, 2), (BinSlice{128, 128}));
  EXPECT_EQ(bin_slice(255, 0, 2), (BinSlice{0, 127}));
  EXPECT_EQ(bin_slice(255, 1, 2), (BinSlice{127, 128}));
  EXPECT_EQ(bin_slice(1, 0, 2), (BinSlice{0, 0}));  // fewer bins than ranks: empty slices
  for (auto [rank, ranks] : {std::pair{2, 2}, std::pair{-1, 2}, std::pair{0, 0}}) {
    try {
      (void)bin_slice(8, rank, ranks);
      ADD_FAILURE() << "rank " << rank << " of " << ranks << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), StatusCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("needs 0 <= rank < ranks"), std::string::npos);
    }
  }
}

TEST(NcclArguments, KeepNvlsOffSetsZeroUnlessSet) {
  const char* before = std::getenv("NCCL_NVLS_ENABLE");
  const std::string saved = before ? before : "";
  unsetenv("NCCL_NVLS_ENABLE");
  EXPECT_STREQ(keep_nvls_off(), "0");
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  EXPECT_STREQ(keep_nvls_off(), "1");  // the caller's choice stands
  if (before)
    setenv("NCCL_NVLS_ENABLE", saved.c_str(), 1);
  else
    unsetenv("NCCL_NVLS_ENABLE");
}

}  // namespace
}  // namespace histtune::nccl
