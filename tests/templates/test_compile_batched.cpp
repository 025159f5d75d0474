// NVRTC compiles the batched family's kernels (templates/batched.cuh) without a GPU: dense and
// segmented rows, every sample type (8-byte ones included) with every binning it takes (integer even binning in 32 and
// 64 bits, range binning in each way of reading the levels), over the built-in default (sm_90
// and sm_80) and a few configurations (sm_90: one-sample loads, several rows a block with
// copies, unrolled; two of the six a case, in turn, so each meets a third of the cases), and
// atomics on the output.
#include <gtest/gtest.h>

#include <string>

#include "fake_device.hpp"
#include "histtune/batched.hpp"
#include "histtune/jit.hpp"

using namespace histtune;

namespace {

struct Case {
  SampleType type;
  Binning binning;
  std::uint32_t bins;
  double lower, upper;
};

const Case kCases[] = {
    {SampleType::u8, Binning::direct, 256, 0, 0},      // every value a bin: no sink
    {SampleType::u8, Binning::even, 64, 0, 256},       // 32-bit even
    {SampleType::u8, Binning::range, 100, 0, 0},       // byte table
    {SampleType::u16, Binning::direct, 1000, 0, 0},
    {SampleType::u16, Binning::range, 5000, 0, 0},     // levels in global memory
    {SampleType::u32, Binning::direct, 256, 0, 0},
    {SampleType::u32, Binning::even, 100, 0, 4294967296.0},  // 64-bit even
    {SampleType::i32, Binning::even, 256, -1000, 1000},
    {SampleType::i32, Binning::range, 256, 0, 0},      // levels staged in shared memory
    {SampleType::f32, Binning::even, 64, -4, 4},
    {SampleType::f32, Binning::range, 1024, 0, 0},
    {SampleType::i8, Binning::direct, 128, 0, 0},
    {SampleType::i8, Binning::even, 256, -128, 128},
    {SampleType::i16, Binning::range, 300, 0, 0},
    {SampleType::f16, Binning::even, 256, -1, 1},
    {SampleType::bf16, Binning::range, 500, 0, 0},
    {SampleType::i64, Binning::direct, 256, 0, 0},     // 8-byte samples, two words each
    {SampleType::i64, Binning::even, 1000, -0x1p63, 0x1p63},  // 128-bit products
    {SampleType::u64, Binning::even, 64, 0, 1000},     // 32-bit even
    {SampleType::u64, Binning::range, 5000, 0, 0},     // levels in global memory
    {SampleType::f64, Binning::even, 256, -1, 1},      // in double
    {SampleType::f64, Binning::range, 1000, 0, 0},     // levels staged at 8 bytes
};

const char* const kLabels[] = {
    "rows.tpb128.vpt1.vec0.rpb1.bpr1.pc1.u0",
    "rows.tpb512.vpt4.vec8.rpb4.bpr2.pc4.u2",
    "rows.tpb1024.vpt8.vec16.rpb32.bpr1.pc1.u0",
    "rows.tpb256.vpt2.vec4.rpb2.bpr1.pc2.u0",
    "rows.tpb1024.vpt2.vec16.rpb1.bpr1.pc2.u2.lay1",
    "rows.tpb256.vpt4.vec16.rpb4.bpr1.pc1.u0.lay1",
};

Problem problem_of(const Case& k, Family f) {
  Problem p = f == Family::batched ? batched_problem(k.type, k.binning, k.bins, 64, 4096)
                                   : segmented_problem(k.type, k.binning, k.bins, 64, 64 * 4096);
  p.lower = k.lower;
  p.upper = k.upper;
  bounds_from_doubles(p);  // i64 and u64: the exact bounds
  return p;
}

std::string name_of(const Problem& p) {
  return std::string(to_string(p.family)) + " " + to_string(p.sample_type) + " " +
         to_string(p.binning) + " " + std::to_string(p.num_bins);
}

}  // namespace

TEST(BatchedCompile, EveryTypeAndBinningCompilesForSm90AndSm80) {
  const DeviceInfo d = test::h100_like();
  int compiled = 0;
  std::size_t turn = 0;
  for (const Family f : {Family::batched, Family::segmented})
    for (const Case& k : kCases) {
      const Problem p = problem_of(k, f);
      ASSERT_EQ(validate(p), "") << name_of(p);
      std::vector<BatchedConfig> configs = {batched::default_for(p, d)};
      // Two labels that hold, from this case's turn on.
      constexpr std::size_t kLabelCount = sizeof(kLabels) / sizeof(kLabels[0]);
      for (std::size_t j = 0; j < kLabelCount && configs.size() < 3; ++j) {
        const char* label = kLabels[(turn + j) % kLabelCount];
        const auto c = BatchedConfig::parse(label);
        ASSERT_TRUE(c) << label;
        if (batched::check(*c, p, d).holds()) configs.push_back(*c);
      }
      turn += 2;
      ASSERT_GE(configs.size(), 2u) << name_of(p) << ": too few configurations hold";
      for (std::size_t i = 0; i < configs.size(); ++i)
        for (const int arch : {90, 80}) {
          if (arch == 80 && i > 0) continue;  // sm_80: the default only
          const BatchedConfig& c = configs[i];
          CompiledKernel out;
          ASSERT_NO_THROW(out = compile(batched::request(c, p, arch)))
              << name_of(p) << " " << c.label() << " sm_" << arch;
          EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << name_of(p) << " " << c.label();
          ++compiled;
        }
    }
  EXPECT_GE(compiled, 3 * 44);  // 44 cases, each the default twice and at least one label
}

// Bins beyond shared memory: atomics on the output (private_copies 0), the one kernel without
// private histograms.
TEST(BatchedCompile, AtomicsOnTheOutputCompile) {
  const DeviceInfo d = test::h100_like();
  const Problem p = batched_problem(SampleType::u32, Binning::direct, 1 << 20, 16, 1 << 20);
  const BatchedConfig c = batched::default_for(p, d);
  ASSERT_EQ(c.private_copies, 0);
  for (const int arch : {90, 80}) EXPECT_NO_THROW(compile(batched::request(c, p, arch)));
}
