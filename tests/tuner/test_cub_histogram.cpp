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
