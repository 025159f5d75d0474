// 64-bit counts without a GPU: how a call is cut into chunks (a pure function), and the argument
// checks of the uint64 overloads (C++ and C), each refused before any device call with the
// output untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "histtune/counts64.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"

using namespace histtune;

namespace {

constexpr std::uint64_t k2To32 = std::uint64_t{1} << 32;

// Never dereferenced: every call below is refused before anything touches them.
const auto* kSamples8 = reinterpret_cast<const std::uint8_t*>(0x1000);
const auto* kSamplesF = reinterpret_cast<const float*>(0x1000);
auto* const kCounts64 = reinterpret_cast<std::uint64_t*>(0x2000);

void expect_invalid(const Status& s, const std::string& says) {
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_NE(s.message().find(says), std::string::npos) << "message: " << s.message()
                                                       << "\nexpected to contain: " << says;
}

// Every chunk of n in order: they tile [0, n) with no gap or overlap.
std::vector<SampleChunk> chunks_of(std::uint64_t n, std::uint64_t chunk = kCount64Chunk) {
  std::vector<SampleChunk> out;
  for (std::uint64_t i = 0; i < count64_chunks(n, chunk); ++i)
    out.push_back(count64_chunk(n, i, chunk));
  return out;
}

}  // namespace

TEST(Counts64Chunks, CutAtTwoToThe31) {
  constexpr std::uint64_t c = kCount64Chunk;
  static_assert(c == std::uint64_t{1} << 31);
  static_assert(count64_chunks(k2To32 + 3) == 3);
  EXPECT_EQ(chunks_of(0), (std::vector<SampleChunk>{{0, 0}}));  // one empty chunk: zeroed counts
  EXPECT_EQ(chunks_of(1), (std::vector<SampleChunk>{{0, 1}}));
  EXPECT_EQ(chunks_of(c), (std::vector<SampleChunk>{{0, c}}));
  EXPECT_EQ(chunks_of(c + 1), (std::vector<SampleChunk>{{0, c}, {c, 1}}));
  EXPECT_EQ(chunks_of(k2To32 - 1), (std::vector<SampleChunk>{{0, c}, {c, c - 1}}));
  EXPECT_EQ(chunks_of(k2To32 + 3), (std::vector<SampleChunk>{{0, c}, {c, c}, {2 * c, 3}}));
  EXPECT_EQ(count64_chunks(kMaxSamples64), kMaxSamples64 / c);
  EXPECT_EQ(count64_chunk(kMaxSamples64, kMaxSamples64 / c - 1),
            (SampleChunk{kMaxSamples64 - c, c}));
}

TEST(Counts64Chunks, TileEveryNWithChunksOfAtMostTheBound) {
  for (const std::uint64_t chunk : {std::uint64_t{16}, std::uint64_t{4096}})
    for (std::uint64_t n = 0; n < 5 * chunk; n += n < 3 * chunk ? 1 : 7) {
      std::uint64_t next = 0;
      for (const SampleChunk& s : chunks_of(n, chunk)) {
        EXPECT_EQ(s.first, next) << "n " << n << " chunk " << chunk;
        EXPECT_LE(s.n, chunk);
        EXPECT_TRUE(s.n > 0 || n == 0);
        next = s.first + s.n;
      }
      EXPECT_EQ(next, n);
    }
}

// A chunk starts a whole number of 16-byte vectors after d_samples, for every sample size, and
// its byte offset (64-bit) passes 2^32 for samples of more than one byte.
TEST(Counts64Chunks, StartOnWholeVectorsWithSixtyFourBitByteOffsets) {
  for (const SampleType t : kSampleTypes) {
    const std::uint64_t bytes = sample_bytes(t);
    EXPECT_EQ(kCount64Chunk * bytes % 16, 0u) << to_string(t);
    EXPECT_LE(kCount64Chunk, kMaxSamples) << "a chunk must fit the 32-bit counts' limit";
    const std::uint64_t offset = count64_chunk(k2To32 + 3, 2).first * bytes;
    EXPECT_EQ(offset, k2To32 * bytes) << to_string(t);
  }
  // 8-byte samples: chunk 1 already starts 2^34 bytes in.
  EXPECT_EQ(count64_chunk(k2To32, 1).first * sample_bytes(SampleType::f64), std::uint64_t{1} << 34);
}

TEST(Counts64Arguments, NullAndMisalignedCounts) {
  expect_invalid(histogram_direct(kSamples8, 100, 256, static_cast<std::uint64_t*>(nullptr)),
                 "d_counts is null");
  expect_invalid(histogram_direct(kSamples8, 100, 256, reinterpret_cast<std::uint64_t*>(0x2004)),
                 "d_counts = 0x2004 is not aligned to its 8-byte counters");
  expect_invalid(histogram_even(kSamplesF, 100, 16, 0.0f, 1.0f,
                                reinterpret_cast<std::uint64_t*>(0x2001)),
                 "not aligned to its 8-byte counters");
}

TEST(Counts64Arguments, NullAndMisalignedSamplesAndLevels) {
  expect_invalid(histogram_direct(static_cast<const std::uint8_t*>(nullptr), k2To32 + 3, 256,
                                  kCounts64),
                 "d_samples is null with n = 4294967299");
  expect_invalid(histogram_direct(reinterpret_cast<const std::uint32_t*>(0x1002), 100, 256,
                                  kCounts64),
                 "d_samples = 0x1002 is not aligned to its 4-byte u32 samples");
  expect_invalid(histogram_range(kSamplesF, k2To32 + 3, 16, static_cast<const float*>(nullptr),
                                 kCounts64),
                 "d_levels is null with n = 4294967299");
}

TEST(Counts64Arguments, TheProblemIsCheckedAsItsChunks) {
  expect_invalid(histogram_direct(kSamples8, k2To32 + 3, 0, kCounts64),
                 "num_bins must be at least 1");
  expect_invalid(histogram_even(kSamples8, k2To32 + 3, 16, 5, 5, kCounts64), "lower < upper");
  expect_invalid(histogram_even(kSamplesF, 10, 16, 2.0f, 1.0f, kCounts64), "lower < upper");
  expect_invalid(histogram_range(kSamples8, 10, 256, kSamples8, kCounts64), "at most 255 bins");
}

TEST(Counts64Arguments, NBeyondTwoToThe60) {
  expect_invalid(histogram_direct(kSamples8, kMaxSamples64 + 1, 256, kCounts64), "exceeds 2^60");
}

// The 32-bit counts keep their limit, and the message names the 64-bit calls.
TEST(Counts64Arguments, ThirtyTwoBitCountsKeepTheirLimit) {
  auto* counts32 = reinterpret_cast<std::uint32_t*>(0x2000);
  const Status s = histogram_direct(kSamples8, k2To32, 256, counts32);
  expect_invalid(s, "exceeds 2^32 - 1");
  expect_invalid(s, "uint64_t* d_counts");
}

// Every family but the weighted ones (whose bins are of the weights' type).
TEST(Counts64Arguments, EveryFamilyButTheWeightedOnes) {
  const Problem mc = multichannel_problem(SampleType::u8, 4, 3, k2To32 + 3);
  EXPECT_EQ(check_arguments64(mc, kSamples8, kCounts64), "");
  const Problem rows = batched_problem(SampleType::u8, Binning::direct, 256, 4, k2To32 + 3);
  EXPECT_EQ(check_arguments64(rows, kSamples8, kCounts64), "");
  Problem segments = segmented_problem(SampleType::f64, Binning::even, 16, 4, k2To32 + 3);
  segments.upper = 1;
  segments.d_offsets = reinterpret_cast<const std::int64_t*>(0x3000);
  EXPECT_EQ(check_arguments64(segments, kSamples8, kCounts64), "");
  const Problem w = weighted_problem(SampleType::u8, WeightType::f32, Binning::direct, 256, 100);
  EXPECT_NE(check_arguments64(w, kSamples8, kCounts64).find("not the weighted family's"),
            std::string::npos)
      << check_arguments64(w, kSamples8, kCounts64);
  EXPECT_EQ(check_arguments64(flat_problem(SampleType::u8, Binning::direct, 256, k2To32 + 3),
                            kSamples8, kCounts64),
            "");
}

// Multi-channel calls are cut along their rows (whole image rows when pitched), batched ones
// along every row's samples (the whole call's row stride kept), segmented ones along their
// samples (the offsets counted from the chunk's first).
TEST(Counts64Chunks, EachFamilyIsCutAlongItsRows) {
  constexpr std::uint64_t c = kCount64Chunk;
  const Problem mc = multichannel_problem(SampleType::u16, 4, 3, 2 * c + 5);
  EXPECT_EQ(count64_cut(mc).extent, 2 * c + 5);
  EXPECT_EQ(count64_chunk_problem(mc, 2).n, 5u);
  EXPECT_EQ(count64_chunk_bytes(mc, 2), 2 * c * 4 * 2);  // rows x channels x 2 bytes
  Problem img = mc;
  img.row_pixels = 1000;
  img.n = 3000000;
  img.row_pitch_bytes = 1000 * 4 * 2 + 6;
  const std::uint64_t per = c / 1000 * 1000;  // whole image rows
  EXPECT_EQ(count64_cut(img).chunk, per);
  EXPECT_EQ(count64_chunk_problem(img, 0).n, std::min<std::uint64_t>(per, 3000000));
  Problem big = img;
  big.n = 5000 * c / 1000 * 1000;  // several chunks of whole image rows
  EXPECT_EQ(count64_chunk_bytes(big, 1), per / 1000 * img.row_pitch_bytes);
  EXPECT_EQ(validate(count64_chunk_problem(big, 1)), "");
  const Problem rows = batched_problem(SampleType::i64, Binning::direct, 256, 3, c + 7);
  EXPECT_EQ(count64_chunk_problem(rows, 0).row_stride, c + 7);  // packed rows keep their stride
  EXPECT_EQ(count64_chunk_problem(rows, 1).n, 7u);
  EXPECT_EQ(count64_chunk_bytes(rows, 1), c * 8);
  Problem seg = segmented_problem(SampleType::u8, Binning::direct, 256, 10, 2 * c + 1);
  EXPECT_EQ(count64_chunk_problem(seg, 0).offsets_base, 0u);
  EXPECT_EQ(count64_chunk_problem(seg, 2).offsets_base, 2 * c);
  EXPECT_EQ(count64_chunk_problem(seg, 2).n, 1u);
  EXPECT_EQ(count64_chunk_bytes(seg, 2), 2 * c);
}

// Bad input of the families' uint64 overloads: refused before anything runs, with what failed.
TEST(Counts64Arguments, TheFamiliesRefuseBadInput) {
  expect_invalid(histogram_multichannel_direct(kSamples8, 100, 4, 3, 256,
                                               static_cast<std::uint64_t*>(nullptr)),
                 "d_counts is null");
  expect_invalid(histogram_multichannel_direct(kSamples8, 100, 4, 3, 256,
                                               reinterpret_cast<std::uint64_t*>(0x2004)),
                 "8-byte counters");
  expect_invalid(histogram_multichannel_direct(kSamples8, kMaxSamples64 / 4 + 1, 4, 3, 256,
                                               kCounts64),
                 "rows = ");
  expect_invalid(histogram_multichannel_direct(kSamples8, 1000, 3, 3999, 4, 3, 256, kCounts64),
                 "row_pitch_bytes");
  expect_invalid(histogram_batched_direct(kSamples8, 4, k2To32 + 3, k2To32, 256, kCounts64),
                 "row_stride");
  expect_invalid(histogram_batched_direct(kSamples8, 0, 10, 0, 256, kCounts64), "rows = 0");
  expect_invalid(histogram_batched_even(reinterpret_cast<const std::int64_t*>(0x1004), 2, 10, 0,
                                        16, std::int64_t{0}, std::int64_t{16}, kCounts64),
                 "not aligned");
  expect_invalid(histogram_segmented_direct(kSamples8, k2To32 + 3, 4, nullptr, 256, kCounts64),
                 "d_offsets is null");
  expect_invalid(histogram_segmented_range(reinterpret_cast<const std::int8_t*>(0x1000), 10, 4,
                                           reinterpret_cast<const std::int64_t*>(0x3000), 256,
                                           reinterpret_cast<const std::int8_t*>(0x1000),
                                           kCounts64),
                 "at most 255 bins");
  expect_invalid(histogram_batched_even(reinterpret_cast<const double*>(0x1000), 2, 10, 0, 16,
                                        0.0, std::nan(""), kCounts64),
                 "numbers");
  // 32-bit counts keep their limit, and say where more are taken.
  expect_invalid(histogram_batched_direct(kSamples8, 1, k2To32, 0, 256,
                                          reinterpret_cast<std::uint32_t*>(0x2000)),
                 "uint64_t* d_counts");
  expect_invalid(histogram_multichannel_direct(kSamples8, k2To32, 4, 3, 256,
                                               reinterpret_cast<std::uint32_t*>(0x2000)),
                 "exceeds 2^32 - 1");
}

// A refused call writes nothing: host counters (which a launch could not even reach) keep their
// values.
TEST(Counts64Arguments, ARefusedCallLeavesTheCountsUntouched) {
  std::vector<std::uint64_t> counts(256, 0x5A5A5A5A5A5A5A5Aull);
  expect_invalid(histogram_direct(kSamples8, 100, 0, counts.data()), "num_bins");
  expect_invalid(histogram_direct(reinterpret_cast<const std::uint16_t*>(0x1001), 100, 256,
                                  counts.data()),
                 "not aligned");
  for (const std::uint64_t c : counts) EXPECT_EQ(c, 0x5A5A5A5A5A5A5A5Aull);
}

TEST(Counts64CApi, TheFamiliesRefuseWithTheSameMessages) {
  EXPECT_EQ(histtune_histogram_multichannel_even_counts64_i64(
                reinterpret_cast<const std::int64_t*>(0x1000), 100, 4, 3, 16, 5, 5, kCounts64,
                nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("lower < upper"), std::string::npos)
      << histtune_last_error();
  EXPECT_EQ(histtune_histogram_batched_direct_counts64_u64(
                reinterpret_cast<const std::uint64_t*>(0x1000), 2, 10, 0, 16, nullptr, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_counts is null"), std::string::npos);
  EXPECT_EQ(histtune_histogram_segmented_range_counts64_f16(
                reinterpret_cast<const std::uint16_t*>(0x1000), 10, 2,
                reinterpret_cast<const std::int64_t*>(0x3000), 4, nullptr, kCounts64, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_levels is null"), std::string::npos);
}

TEST(Counts64CApi, RefusesWithTheSameMessages) {
  EXPECT_EQ(histtune_histogram_direct_counts64_u8(kSamples8, 100, 256, nullptr, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_counts is null"), std::string::npos);
  EXPECT_EQ(histtune_histogram_even_counts64_f32(kSamplesF, 100, 16, 0.0f, 1.0f,
                                                 reinterpret_cast<std::uint64_t*>(0x2004),
                                                 nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("8-byte counters"), std::string::npos);
  EXPECT_EQ(histtune_histogram_range_counts64_u8(kSamples8, 10, 256, kSamples8, kCounts64,
                                                 nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("at most 255 bins"), std::string::npos);
  EXPECT_EQ(histtune_histogram_even_counts64_u64(
                reinterpret_cast<const std::uint64_t*>(0x1000), 10, 16, 5, 5, kCounts64, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
}

// The add kernel compiles with NVRTC (no GPU needed) for the architectures the kernels target.
TEST(Counts64Kernel, CompilesForSm80AndSm90) {
  for (const int arch : {80, 90}) {
    const CompiledKernel k = compile(counts64::request(arch));
    EXPECT_FALSE(k.cubin.empty()) << "sm_" << arch << ": " << k.log;
  }
}
