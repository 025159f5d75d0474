// On the GPU: bin-range slices (hist1d.cuh's HT_SLICED kernels), bins just above each
// shared-memory boundary and far beyond it, odd sizes, every distribution, every binning, exact
// against the host reference. Each case asserts the slice count its geometry chose, so the test
// cannot pass on an unsliced launch.
#include <gtest/gtest.h>

#include "fake_device.hpp"
#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/dispatcher.hpp"

using namespace histtune;

namespace {

struct SliceCase {
  const char* label;
  Problem shape;  // n is set per size
  unsigned slices;  // what the H100's geometry chooses (227 KiB a block)
};

Problem shape(SampleType t, Binning b, std::uint32_t bins, double lower, double upper) {
  return flat_problem(t, b, bins, 0, lower, upper);
}

// One private 32-bit copy holds 58,112 bins in 227 KiB, one packed copy 116,224.
const char* kShared = "tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1.pf1.tp0";
const char* kShared2 = "tpb512.vpt1.vec0.pc2.lay0.agg1.u0.pad1.bps1.st0.b1.sb0.cl1.pf0.tp0";
const char* kPacked = "tpb1024.vpt4.vec16.pc1.lay0.agg1.u0.pad0.bps1.st4.b1.sb0.cl1.pf1.tp0";
const char* kPacked2 = "tpb256.vpt1.vec16.pc1.lay0.agg2.u0.pad0.bps2.st4.b1.sb0.cl1.pf0.tp0";

}  // namespace

TEST(Slices, ExactJustAboveEachBoundaryAndFarBeyond) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  if (d.smem_per_block_optin != 227 * 1024) GTEST_SKIP() << "slice counts assume 227 KiB blocks";
  KernelCache cache;
  const SliceCase cases[] = {
      {kShared, shape(SampleType::u32, Binning::direct, 58112, 0, 0), 1},
      {kShared, shape(SampleType::u32, Binning::direct, 58113, 0, 0), 2},
      {kShared, shape(SampleType::i32, Binning::direct, 131072, 0, 0), 3},
      {kShared2, shape(SampleType::u16, Binning::direct, 65536, 0, 0), 3},
      // Negative 16-bit samples wrap to huge offsets from every slice's start: counted nowhere.
      {kShared2, shape(SampleType::i16, Binning::direct, 40000, 0, 0), 2},
      {kPacked, shape(SampleType::u32, Binning::direct, 116224, 0, 0), 1},
      {kPacked, shape(SampleType::u32, Binning::direct, 116225, 0, 0), 2},
      {kPacked, shape(SampleType::i32, Binning::direct, 1u << 20, 0, 0), 10},
      {kPacked2, shape(SampleType::i32, Binning::direct, 131072, 0, 0), 3},
      {kPacked, shape(SampleType::f32, Binning::even, 1u << 20, -1, 1), 10},
      {kShared, shape(SampleType::u32, Binning::even, 100003, 0, 4294967296.0), 2},
      {kPacked, shape(SampleType::f32, Binning::range, 200000, 0, 100), 2},
  };
  int ran = 0;
  for (const SliceCase& k : cases) {
    const auto c = Hist1DConfig::parse(k.label);
    ASSERT_TRUE(c) << k.label;
    for (const std::uint64_t n : test::kLargeBinSizes) {
      Problem p = k.shape;
      p.n = n;
      ASSERT_EQ(hist1d::check(*c, p, d).message(), "") << k.label << " " << p.describe();
      ASSERT_EQ(hist1d::geometry(*c, p, d).slices, k.slices) << k.label << " " << p.describe();
      ran += test::run_all_distributions(cache, *c, p, d, 0);
    }
  }
  EXPECT_EQ(ran, 12 * 4 * 5);
}

// Beyond kMaxSlices a sliced storage is refused (global storage is the path), with the limit.
TEST(Slices, BeyondTheMostSlicesTheSharedMemoryLimitRefuses) {
  const DeviceInfo d = test::h100_like();
  const auto c = Hist1DConfig::parse(kPacked);
  ASSERT_TRUE(c);
  Problem p = shape(SampleType::f32, Binning::even, 1u << 22, 0, 1);
  p.n = 1u << 26;
  EXPECT_EQ(hist1d::geometry(*c, p, d).slices, hist1d::kMaxSlices);
  EXPECT_NE(hist1d::check(*c, p, d).message().find("shared memory"), std::string::npos);
  p.num_bins = 1u << 21;  // 2 Mi bins packed: 19 slices of 110,377 bins
  EXPECT_EQ(hist1d::geometry(*c, p, d).slices, 19u);
  EXPECT_EQ(hist1d::check(*c, p, d).message(), "");
}
