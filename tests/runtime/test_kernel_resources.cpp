// A kernel's registers and local memory read from the CUBIN NVRTC compiles (no GPU): within
// what its launch bounds allow, told apart from another kernel of the same CUBIN; bytes that
// are no CUBIN, or a kernel it does not hold, give nothing.
#include <gtest/gtest.h>

#include <cstring>

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
  // Its shared memory is all dynamic: its section holds only the 1 KB NVRTC gives every sm_90
  // kernel, the zero kernel's too (the count kernel's own arrays: Partitioned.TheWidest...).
  EXPECT_EQ(pass->shared_bytes, 1024);
  const auto zero = kernel_resources(cubin, "histtune_hist1d_zero");  // the counts' zeroing
  ASSERT_TRUE(zero);
  EXPECT_GT(zero->registers, 0);
  EXPECT_LT(zero->registers, pass->registers);
  EXPECT_EQ(zero->local_bytes, 0);
  EXPECT_EQ(zero->shared_bytes, 1024);
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

// A kernel's static shared memory is a section of that size with no bytes in the file (NOBITS):
// larger than the CUBIN's few kilobytes after it, it is still a CUBIN (the reader once took it
// for a cut one).
TEST(KernelResources, SharedMemoryLargerThanTheFileIsNoCut) {
  std::vector<char> cubin = partitioned_cubin();
  const auto field = [&](std::uint64_t at, auto v) {
    std::memcpy(&v, cubin.data() + at, sizeof(v));
    return v;
  };
  const std::uint64_t shoff = field(0x28, std::uint64_t{});
  const std::uint16_t entsize = field(0x3A, std::uint16_t{}), count = field(0x3C, std::uint16_t{});
  int grown = 0;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::uint64_t at = shoff + std::uint64_t{i} * entsize;
    if (field(at + 4, std::uint32_t{}) != 8) continue;  // SHT_NOBITS
    const std::uint64_t size = std::uint64_t{1} << 30;
    std::memcpy(cubin.data() + at + 32, &size, sizeof(size));
    ++grown;
  }
  ASSERT_GT(grown, 0) << "the partition pass's CUBIN holds a shared-memory section";
  EXPECT_TRUE(kernel_resources(cubin, hist1d::kKernel));
}
