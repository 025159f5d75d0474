// The public API's argument checks, with no GPU: every bad argument is refused with a message
// naming it, before any device call, so these run everywhere.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "gpu.hpp"
#include "histtune/histtune.hpp"

using namespace histtune;

namespace {

// Never dereferenced: every call below is refused before anything touches them.
const auto* kSamples8 = reinterpret_cast<const std::uint8_t*>(0x1000);
const auto* kSamples32 = reinterpret_cast<const std::uint32_t*>(0x1000);
const auto* kSamplesF = reinterpret_cast<const float*>(0x1000);
auto* const kCounts = reinterpret_cast<std::uint32_t*>(0x2000);

void expect_invalid(const Status& s, const std::string& says) {
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_NE(s.message().find(says), std::string::npos) << "message: " << s.message()
                                                       << "\nexpected to contain: " << says;
}

Problem even_f32(float lower, float upper, std::uint32_t bins = 16) {
  Problem p;
  p.sample_type = SampleType::f32;
  p.binning = Binning::even;
  p.num_bins = bins;
  p.n = 100;
  p.lower = lower;
  p.upper = upper;
  return p;
}

TEST(ApiArguments, NullPointers) {
  expect_invalid(histogram_direct(static_cast<const std::uint8_t*>(nullptr), 100, 256, kCounts),
                 "d_samples is null with n = 100");
  expect_invalid(histogram_direct(kSamples8, 100, 256, static_cast<std::uint32_t*>(nullptr)),
                 "d_counts is null");
  // n = 0 reads no sample, but the counts are still written (zeroed).
  expect_invalid(histogram_direct(static_cast<const std::uint8_t*>(nullptr), 0, 256,
                                  static_cast<std::uint32_t*>(nullptr)),
                 "d_counts is null");
}

TEST(ApiArguments, ZeroBins) {
  expect_invalid(histogram_direct(kSamples8, 100, 0, kCounts), "num_bins must be at least 1");
  expect_invalid(histogram_even(kSamplesF, 100, 0, 0.0f, 1.0f, kCounts), "num_bins");
}

TEST(ApiArguments, BoundsOutOfOrder) {
  expect_invalid(histogram_even(kSamples8, 10, 16, 5, 5, kCounts),
                 "lower < upper, got lower = 5, upper = 5");
  expect_invalid(histogram_even(kSamplesF, 10, 16, 2.0f, 1.0f, kCounts), "lower < upper");
}

TEST(ApiArguments, NanAndInfiniteBounds) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  expect_invalid(histogram_even(kSamplesF, 10, 16, nan, 1.0f, kCounts),
                 "bounds that are numbers, got lower = nan");
  expect_invalid(histogram_even(kSamplesF, 10, 16, 0.0f, nan, kCounts), "upper = nan");
  expect_invalid(histogram_even(kSamplesF, 10, 16, -inf, 1.0f, kCounts), "finite bounds");
  expect_invalid(histogram_even(kSamplesF, 10, 16, 0.0f, inf, kCounts), "finite bounds");
}

TEST(ApiArguments, FloatRangeThatFloatCannotScale) {
  // upper - lower overflows float: every sample would land in bin 0.
  expect_invalid(histogram_even(kSamplesF, 10, 16, -3e38f, 3e38f, kCounts), "overflows float");
  // num_bins / (upper - lower) overflows float: the bin of every sample would be infinite.
  expect_invalid(histogram_even(kSamplesF, 10, 1u << 20, 0.0f, 1e-45f, kCounts),
                 "too narrow for the bins");
  // Through the dispatcher, bounds that differ as doubles but not as floats.
  Problem p = even_f32(0, 0);
  p.lower = 1.0;
  p.upper = 1.0 + 1e-12;
  expect_invalid(default_dispatcher().run(p, kSamplesF, kCounts, nullptr),
                 "round to the same float");
}

TEST(ApiArguments, IntegerBoundsMustBeExactAndSpanAtMost2To32) {
  expect_invalid(histogram_even(kSamples32, 10, 16, 0, (std::int64_t{1} << 53) + 1, kCounts),
                 "within +-2^53");
  expect_invalid(histogram_even(kSamples32, 10, 16, 0, (std::int64_t{1} << 32) + 1, kCounts),
                 "upper - lower <= 2^32");
}

TEST(ApiArguments, TooManySamplesForTheCounters) {
  expect_invalid(histogram_direct(kSamples8, kMaxSamples + 1, 256, kCounts),
                 "exceeds 2^32 - 1");
  expect_invalid(histogram_even(kSamplesF, std::uint64_t{1} << 40, 16, 0.0f, 1.0f, kCounts),
                 "exceeds 2^32 - 1");
}

TEST(ApiArguments, MisalignedPointers) {
  expect_invalid(histogram_direct(reinterpret_cast<const std::uint32_t*>(0x1002), 10, 16, kCounts),
                 "is not aligned to its 4-byte u32 samples");
  expect_invalid(histogram_direct(kSamples8, 10, 16, reinterpret_cast<std::uint32_t*>(0x2001)),
                 "is not aligned to its 4-byte counters");
  // u8 samples may start anywhere.
  EXPECT_EQ(check_arguments(Problem{}, reinterpret_cast<const void*>(0x1003), kCounts), "");
}

TEST(ApiArguments, DirectBinningOfFloatIsRefused) {
  Problem p = even_f32(0, 1);
  p.binning = Binning::direct;
  expect_invalid(default_dispatcher().run(p, kSamplesF, kCounts, nullptr), "integer samples");
}

TEST(ApiArguments, RangeLevelsAreCheckedBeforeAnyLaunch) {
  const auto* levelsF = reinterpret_cast<const float*>(0x3000);
  expect_invalid(histogram_range(kSamplesF, 100, 16, static_cast<const float*>(nullptr), kCounts),
                 "d_levels is null with n = 100");
  expect_invalid(histogram_range(kSamplesF, 100, 0, levelsF, kCounts), "num_bins must be at least 1");
  expect_invalid(histogram_range(kSamples8, 10, 256, kSamples8, kCounts), "at most 255 bins");
  expect_invalid(histogram_range(kSamples32, 10, 16, reinterpret_cast<const std::uint32_t*>(0x3002),
                                 kCounts),
                 "d_levels = 0x3002 is not aligned to its 4-byte u32 levels");
  expect_invalid(histogram_range(kSamplesF, 10, 16, levelsF, static_cast<std::uint32_t*>(nullptr)),
                 "d_counts is null");
  expect_invalid(histogram_range(kSamplesF, kMaxSamples + 1, 16, levelsF, kCounts),
                 "exceeds 2^32 - 1");
  // n = 0 reads no level: null levels are fine there (the call only zeroes the counts).
  Problem p;
  p.binning = Binning::range;
  p.sample_type = SampleType::i32;
  p.num_bins = 8;
  EXPECT_EQ(check_arguments(p, nullptr, kCounts), "");
  EXPECT_EQ(check_levels(p, 0), "") << "n = 0 asks nothing of the levels";
  p.binning = Binning::even;
  p.upper = 8;
  p.n = 5;
  EXPECT_EQ(check_levels(p, 0), "") << "other binnings have no levels";
}

TEST(ApiArguments, ValidArgumentsReachTheDevice) {
  // Without a GPU a valid call gets as far as asking for the device, and says there is none.
  if (test::no_gpu_reason().empty()) GTEST_SKIP() << "this checks the no-GPU answer; a GPU is present";
  Status s = histogram_direct(kSamples8, 100, 256, kCounts);
  EXPECT_EQ(s.code(), StatusCode::no_device) << s.message();
  EXPECT_NE(s.message().find("cudaGetDevice"), std::string::npos) << s.message();
  // The call and the error, not the build machine's paths.
  EXPECT_EQ(s.message().find(".cpp"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find(" failed at "), std::string::npos) << s.message();
}

// Without a driver the runtime says cudaErrorInsufficientDriver ("driver version is
// insufficient"), which would send a user to upgrade a driver that is not installed.
TEST(ApiArguments, NoDriverIsSaidPlainly) {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver != 0)
    GTEST_SKIP() << "this checks the answer without an NVIDIA driver; one is installed";
  const std::string why = test::no_gpu_reason();
  EXPECT_EQ(why.rfind("no CUDA device: no NVIDIA driver found", 0), 0u) << why;
  EXPECT_EQ(why.find("insufficient"), std::string::npos) << why;
}

}  // namespace
