// NVRTC compiles the weighted families' kernels (templates/weighted.cuh) without a GPU: every
// weight type in the fast form and f32/f64 in the deterministic one, over every sample type with
// a binning it takes (direct, even in 32 and 64 bits, range in each way of reading the levels),
// the built-in default (sm_90 and sm_80) and a few configurations (sm_90), and atomics on the
// output.
#include <gtest/gtest.h>

#include <string>

#include "fake_device.hpp"
#include "histtune/jit.hpp"
#include "histtune/weighted.hpp"

using namespace histtune;

namespace {

struct Case {
  SampleType type;
  Binning binning;
  std::uint32_t bins;
  double lower, upper;
};

const Case kCases[] = {
    {SampleType::u8, Binning::direct, 256, 0, 0},
    {SampleType::u8, Binning::range, 100, 0, 0},       // byte table
    {SampleType::u16, Binning::range, 5000, 0, 0},     // levels in global memory
    {SampleType::u32, Binning::even, 100, 0, 4294967296.0},  // 64-bit even
    {SampleType::i32, Binning::even, 256, -1000, 1000},
    {SampleType::i32, Binning::range, 256, 0, 0},      // levels staged in shared memory
    {SampleType::f32, Binning::even, 256, 0, 100},
    {SampleType::f16, Binning::even, 256, -1, 1},
    {SampleType::i64, Binning::even, 64, -1000, 1000},
    {SampleType::f64, Binning::range, 300, 0, 0},
};

const char* const kLabels[] = {"w.tpb128.ipt2.pc1.bps1", "w.tpb512.ipt16.pc4.bps2",
                               "w.tpb1024.ipt4.pc8.bps1"};

struct Form {
  WeightType w;
  bool deterministic;
};
const Form kForms[] = {{WeightType::f32, false}, {WeightType::f64, false},
                       {WeightType::i32, false}, {WeightType::i64, false},
                       {WeightType::f32, true},  {WeightType::f64, true}};

std::string name_of(const Problem& p) {
  return std::string(to_string(p.family)) + " " + to_string(p.sample_type) + " " +
         to_string(p.binning) + " " + std::to_string(p.num_bins) + " weights " +
         to_string(p.weight_type);
}

CompiledKernel compiled_or_fail(const WeightedConfig& c, const Problem& p, int arch) {
  CompiledKernel out;
  EXPECT_NO_THROW(out = compile(weighted::request(c, p, arch)))
      << name_of(p) << " " << c.label() << " sm_" << arch;
  return out;
}

}  // namespace

TEST(WeightedCompile, EveryFormTypeAndBinningCompilesForSm90AndSm80) {
  const DeviceInfo d = test::h100_like();
  int compiled = 0;
  for (const Form& form : kForms)
    for (const Case& k : kCases) {
      const Problem p = weighted_problem(k.type, form.w, k.binning, k.bins, 1 << 20,
                                         form.deterministic, k.lower, k.upper);
      ASSERT_EQ(validate(p), "") << name_of(p);
      std::vector<WeightedConfig> configs = {weighted::default_for(p, d)};
      // The configurations on the first case of each form only: the form is what they vary.
      if (&k == &kCases[6])
        for (const char* label : kLabels)
          if (const auto c = WeightedConfig::parse(label); c && weighted::check(*c, p, d).holds())
            configs.push_back(*c);
      for (std::size_t i = 0; i < configs.size(); ++i)
        for (const int arch : {90, 80}) {
          if (arch == 80 && i > 0) continue;  // sm_80: the default only
          const CompiledKernel out = compiled_or_fail(configs[i], p, arch);
          ASSERT_GT(out.cubin.size(), 4u) << name_of(p);
          EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << name_of(p);
          ++compiled;
        }
    }
  EXPECT_GE(compiled, 6 * 10 * 2 + 6 * 3);
}

// Bins beyond shared memory: atomics on the output (private_copies 0), fast and deterministic.
TEST(WeightedCompile, AtomicsOnTheOutputCompile) {
  const DeviceInfo d = test::h100_like();
  for (const bool det : {false, true}) {
    const Problem p = weighted_problem(SampleType::u32, WeightType::f64, Binning::direct, 1 << 20,
                                       1 << 20, det);
    const WeightedConfig c = weighted::default_for(p, d);
    ASSERT_EQ(c.private_copies, 0) << name_of(p);
    ASSERT_TRUE(weighted::check(c, p, d).holds()) << weighted::check(c, p, d).message();
    const CompiledKernel out = compiled_or_fail(c, p, 90);
    EXPECT_GT(out.cubin.size(), 4u);
  }
}

// The segmented kernel (HT_SEGMENTED=1) of both modes, and the default of dense rows and of
// pixels of channels (the same kernel as 1D: rows and channels are launch arguments).
TEST(WeightedCompile, SegmentsRowsAndChannelsCompile) {
  const DeviceInfo d = test::h100_like();
  for (const bool det : {false, true}) {
    Problem seg = weighted_problem(SampleType::u32, WeightType::f32, Binning::direct, 256,
                                   1 << 20, det);
    seg.rows = 1000;
    seg.segments = true;
    Problem rows = weighted_problem(SampleType::f32, WeightType::f64, Binning::even, 64, 1024,
                                    det, -4, 4);
    rows.rows = 65536;
    Problem pix = weighted_problem(SampleType::u8, WeightType::f32, Binning::range, 100, 1 << 20,
                                   det);
    pix.channels = 4;
    pix.active_channels = 3;
    for (const Problem& p : {seg, rows, pix}) {
      ASSERT_EQ(validate(p), "") << p.describe();
      const WeightedConfig c = weighted::default_for(p, d);
      ASSERT_TRUE(weighted::check(c, p, d).holds()) << p.describe();
      const CompiledKernel out = compiled_or_fail(c, p, 90);
      EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << p.describe();
    }
  }
}

// ptxas caps a thread's registers at 255 whatever the launch bounds say: 128 threads x 2 blocks
// compile the code of 1 block, so both configurations ask for one program; 256 x 2 caps at 128
// registers, another program.
TEST(WeightedCompile, LaunchBoundsThatCapNothingAskForOneProgram) {
  const Problem p = weighted_problem(SampleType::f32, WeightType::f32, Binning::even, 256,
                                     1 << 20, true, 0, 100);
  const auto with_bps = [&](int threads, int bps) {
    WeightedConfig c;
    c.block_threads = threads;
    c.blocks_per_sm = bps;
    return weighted::request(c, p, 90);
  };
  EXPECT_EQ(with_bps(128, 2).defines, with_bps(128, 1).defines);
  EXPECT_NE(with_bps(256, 2).defines, with_bps(256, 1).defines);
  CompileRequest as_written = with_bps(128, 1);  // the bound as the label says it
  params::set_define(as_written.defines, "HT_BLOCKS_PER_SM", 2);
  ASSERT_NE(as_written.defines, with_bps(128, 1).defines);
  EXPECT_EQ(compile(as_written).cubin, compile(with_bps(128, 1)).cubin);
}
