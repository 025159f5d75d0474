// NVRTC compiles the joint family's kernel (templates/joint.cuh) without a GPU: 1 to 4
// dimensions over the sample types it takes, even bins (32- and 64-bit integer arithmetic, float,
// double) and edges, the built-in default (sm_90 and sm_80) and a few configurations (sm_90):
// 32- and 16-bit private counters and atomics on the output.
#include <gtest/gtest.h>

#include <string>

#include "fake_device.hpp"
#include "histtune/jit.hpp"
#include "histtune/joint.hpp"

using namespace histtune;

namespace {

struct Case {
  SampleType type;
  Binning binning;
  std::uint32_t dims;
  std::uint32_t bins;  // in each dimension
  double lower, upper;
};

const Case kCases[] = {
    {SampleType::u8, Binning::even, 2, 256, 0, 256},    // 65536 joint bins: 16-bit counters
    {SampleType::u8, Binning::even, 2, 64, 0, 256},     // u8 pairs: 2-byte tuples
    {SampleType::u16, Binning::even, 2, 100, 0, 65535},  // 64-bit offsets in one dimension
    {SampleType::i32, Binning::even, 3, 16, -1000, 1000},
    {SampleType::f32, Binning::even, 2, 64, 0, 1},      // 8-byte tuples
    {SampleType::f32, Binning::even, 3, 32, 0, 1},
    {SampleType::f32, Binning::even, 4, 8, -1, 1},      // 16-byte tuples
    {SampleType::f32, Binning::even, 1, 1000, 0, 1},
    {SampleType::f64, Binning::even, 2, 64, 0, 1},
    {SampleType::f16, Binning::even, 2, 32, -1, 1},
    {SampleType::i8, Binning::even, 2, 256, -128, 128},
    {SampleType::u8, Binning::range, 2, 100, 0, 0},
    {SampleType::f32, Binning::range, 3, 20, 0, 0},
    {SampleType::f64, Binning::range, 2, 30, 0, 0},
};

const char* const kLabels[] = {"j.tpb128.ipt2.pc1.cb32.bps1", "j.tpb512.ipt16.pc4.cb16.bps2",
                               "j.tpb1024.ipt4.pc0.cb32.bps1", "j.tpb256.ipt8.pc2.cb16.bps4",
                               "j.tpb256.ipt8.pc1.cb32.bps2.tv1", "j.tpb1024.ipt4.pc0.cb32.bps1.tv1"};

Problem problem_of(const Case& k) {
  const std::uint32_t bins[] = {k.bins, k.bins, k.bins, k.bins};
  return joint_problem(k.type, k.binning, k.dims, bins, 1 << 20, k.lower, k.upper);
}

std::string name_of(const Problem& p) { return p.describe(); }

}  // namespace

TEST(JointCompile, EveryDimensionTypeAndBinningCompilesForSm90AndSm80) {
  const DeviceInfo d = test::h100_like();
  int compiled = 0;
  for (const Case& k : kCases) {
    const Problem p = problem_of(k);
    ASSERT_EQ(validate(p), "") << name_of(p);
    std::vector<JointConfig> configs = {joint::default_for(p, d)};
    if (&k == &kCases[0] || &k == &kCases[4])
      for (const char* label : kLabels)
        if (const auto c = JointConfig::parse(label); c && joint::check(*c, p, d).holds())
          configs.push_back(*c);
    for (std::size_t i = 0; i < configs.size(); ++i)
      for (const int arch : {90, 80}) {
        if (arch == 80 && i > 0) continue;  // sm_80: the default only
        CompiledKernel out;
        EXPECT_NO_THROW(out = compile(joint::request(configs[i], p, arch)))
            << name_of(p) << " " << configs[i].label() << " sm_" << arch;
        EXPECT_FALSE(out.cubin.empty()) << name_of(p) << " " << configs[i].label();
        ++compiled;
      }
  }
  EXPECT_GE(compiled, 2 * static_cast<int>(std::size(kCases)) + 4);
}

TEST(JointCompile, TheDefaultOfUint8PairsInto256x256BinsCountsIn16Bits) {
  const DeviceInfo d = test::h100_like();
  const Problem p = problem_of(kCases[0]);
  const JointConfig c = joint::default_for(p, d);
  EXPECT_EQ(c.counter_bits, 16) << c.label();
  EXPECT_EQ(c.private_copies, 1) << c.label();
  EXPECT_LE(joint::geometry(c, p, d).smem_bytes, d.smem_per_block_optin);
}
