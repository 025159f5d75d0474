// The CUB baseline's refusals, without a GPU: the sample types and bins where CUB's own bugs give
// wrong counts or write out of bounds (issue 25) are refused with the issue's number, the rest
// are left to run (and to be checked against the reference by `compare`).
#include <gtest/gtest.h>

#include "histtune/tuner/baselines.hpp"

using namespace histtune;

TEST(CubRefusal, RefusesCubsWrongCasesWithTheirIssue) {
  using tuner::cub_refusal;
  // Negative int8 samples dropped (cccl 10977): wherever a bin starts below 0.
  EXPECT_NE(cub_refusal(flat_problem(SampleType::i8, Binning::even, 256, 1 << 20, -128, 128))
                .find("10977"),
            std::string::npos);
  Problem range_i8 = flat_problem(SampleType::i8, Binning::range, 100, 1 << 20, -100, 100);
  EXPECT_NE(cub_refusal(range_i8).find("10977"), std::string::npos);
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::i8, Binning::even, 64, 1 << 20, 0, 128)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::i8, Binning::direct, 256, 1 << 20)), "");
  // Bin indices through the sample type (cccl 10976).
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::bf16, Binning::even, 256, 1 << 20, 0, 1)), "");
  EXPECT_NE(cub_refusal(flat_problem(SampleType::bf16, Binning::even, 257, 1 << 20, 0, 1)).find("10976"),
            std::string::npos);
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::f16, Binning::range, 2048, 1 << 20)), "");
  EXPECT_NE(cub_refusal(flat_problem(SampleType::f16, Binning::range, 2049, 1 << 20)).find("10976"),
            std::string::npos);
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::i16, Binning::direct, 32768, 1 << 20)), "");
  EXPECT_NE(cub_refusal(flat_problem(SampleType::i16, Binning::even, 65536, 1 << 20, -32768, 32768))
                .find("10976"),
            std::string::npos);
  // The old types are untouched.
  for (const SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::i32})
    EXPECT_EQ(cub_refusal(flat_problem(t, Binning::direct, 65536, 1 << 20)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::f32, Binning::even, 1 << 20, 1 << 20, -1, 1)), "");
}

// The 64-bit integers: CUB bins them in 64-bit arithmetic, refusing (cudaErrorInvalidValue)
// where range x bins may overflow it and overflowing int64's range from 2^63 on; f64 and the
// narrower ranges are left to run.
TEST(CubRefusal, RefusesTheI64AndU64RangesItsArithmeticCannotHold) {
  using tuner::cub_refusal;
  const Problem whole_i64 = flat_problem(SampleType::i64, Binning::even, 256, 1 << 20, -0x1p63, 0x1p63);
  EXPECT_NE(cub_refusal(whole_i64).find("cudaErrorInvalidValue"), std::string::npos);
  const Problem whole_u64 = flat_problem(SampleType::u64, Binning::even, 2, 1 << 20, 0, 0x1p64);
  EXPECT_NE(cub_refusal(whole_u64).find("cudaErrorInvalidValue"), std::string::npos);
  // One bin over most of i64: range x 1 fits 64 bits, but not int64.
  const Problem one_bin = flat_problem(SampleType::i64, Binning::even, 1, 1 << 20, -0x1p63, 0x1p63);
  EXPECT_NE(cub_refusal(one_bin).find("int64"), std::string::npos);
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::u64, Binning::even, 1, 1 << 20, 0, 0x1p64)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::i64, Binning::even, 256, 1 << 20, -1000, 1000)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::i64, Binning::direct, 65536, 1 << 20)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::u64, Binning::range, 1000, 1 << 20)), "");
  EXPECT_EQ(cub_refusal(flat_problem(SampleType::f64, Binning::even, 4096, 1 << 20, -1, 1)), "");
}
