// A kernel's registers and local memory read from the CUBIN NVRTC compiles (no GPU): within
// what its launch bounds allow, told apart from another kernel of the same CUBIN; bytes that
// are no CUBIN, or a kernel it does not hold, give nothing.
#include <gtest/gtest.h>

#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_resources.hpp"

using namespace histtune;

namespace {

// The partitioned default of f32 even 2^20 bins: 512 threads and two blocks an SM bound its
// registers to 65536 / 1024 = 64 a thread.
std::vector<char> partitioned_cubin() {
  const auto c = Hist1DConfig::parse("tpb512.vpt8.vec8.pc1.lay0.agg0.u0.pad0.bps2.st5.b1.sb0.cl1.pf0.tp0");
  EXPECT_TRUE(c);
  const Problem p = flat_problem(SampleType::f32, Binning::even, 1u << 20, 1u << 24, 0, 100);
  return compile_here(hist1d::request(*c, p, 90)).cubin;
}

}  // namespace

TEST(KernelResources, EachKernelOfACubinWithinItsLaunchBounds) {
  const std::vector<char> cubin = partitioned_cubin();
  const auto pass = kernel_resources(cubin, hist1d::kKernel);
  ASSERT_TRUE(pass);
  EXPECT_GT(pass->registers, 32);  // a tile's bins and ranks live in registers
  EXPECT_LE(pass->registers, 64);
  EXPECT_GE(pass->local_bytes, 0);
  const auto zero = kernel_resources(cubin, "histtune_hist1d_zero");  // the counts' zeroing
  ASSERT_TRUE(zero);
  EXPECT_GT(zero->registers, 0);
  EXPECT_LT(zero->registers, pass->registers);
  EXPECT_EQ(zero->local_bytes, 0);
}

TEST(KernelResources, NothingForAnotherKernelOrBytesThatAreNoCubin) {
  const std::vector<char> cubin = partitioned_cubin();
  EXPECT_FALSE(kernel_resources(cubin, "histtune_multichannel"));
  EXPECT_FALSE(kernel_resources(cubin, ""));
  EXPECT_FALSE(kernel_resources({}, hist1d::kKernel));
  EXPECT_FALSE(kernel_resources(std::vector<char>(100, 'x'), hist1d::kKernel));
  for (const std::size_t keep : {std::size_t{16}, std::size_t{64}, cubin.size() / 2}) {
    const std::vector<char> cut(cubin.begin(), cubin.begin() + keep);  // section table cut off
    EXPECT_FALSE(kernel_resources(cut, hist1d::kKernel)) << keep;
  }
}
