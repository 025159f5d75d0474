// NVRTC compiles the 1D family's kernels for the sample types of issue 25 (i8, i16, f16, bf16 on
// sm_90; i64, u64, f64 on sm_90 and sm_80) without a GPU: every binning each type takes, integer even binning in 32 and 64 bits,
// range binning in each way of reading the levels, over a handful of configurations (sample-sized
// loads, 16-byte loads, packed storage, and the built-in default for the shape). Few on purpose:
// the kernels' text is shared with the old types, whose spaces test_compile.cpp samples.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "fake_device.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"

using namespace histtune;

namespace {

struct TypeCase {
  const char* name;
  Problem problem;
  int narrow;  // even_narrow(): integer even binning in 32-bit arithmetic (its mode, 0 if not)
  int range_mode = -1;
};

Problem shape(SampleType t, Binning b, std::uint32_t bins, double lower = 0, double upper = 0) {
  return flat_problem(t, b, bins, std::uint64_t{1} << 24, lower, upper);
}

const char* const kLabels[] = {
    "tpb512.vpt1.vec0.pc2.lay0.agg1.u0.pad1.bps1.st0.b1.sb0.cl1.pf0.tp0",
    "tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st0.b1.sb0.cl1.pf1.tp0",
    "tpb256.vpt1.vec16.pc1.lay0.agg2.u0.pad0.bps2.st4.b1.sb0.cl1.pf0.tp0",
};

// Compiles each case for sm_90 with its built-in default and the `labels` that hold for it (at
// least `least` configurations a case), and with `also_sm80` its default for sm_80 too; checks
// the case's arithmetic and range mode first. Adds the sm_90 kernels compiled to `compiled`.
void compile_cases(const std::vector<TypeCase>& cases, const std::vector<const char*>& labels,
                   std::size_t least, bool also_sm80, int& compiled) {
  const DeviceInfo d = test::h100_like();
  for (const TypeCase& k : cases) {
    const Problem& p = k.problem;
    ASSERT_EQ(validate(p), "") << k.name;
    EXPECT_EQ(even_narrow(p), k.narrow) << k.name;
    if (k.range_mode >= 0) {
      EXPECT_EQ(range_mode(p), k.range_mode) << k.name;
    }
    std::vector<Hist1DConfig> configs = {hist1d::default_for(p, d)};
    for (const char* label : labels) {
      const auto c = Hist1DConfig::parse(label);
      ASSERT_TRUE(c) << label;
      if (hist1d::check(*c, p, d).holds()) configs.push_back(*c);
    }
    ASSERT_GE(configs.size(), least) << k.name << ": too few configurations hold";
    for (const Hist1DConfig& c : configs) {
      CompiledKernel out;
      ASSERT_NO_THROW(out = compile(hist1d_request(c, p, 90))) << k.name << " " << c.label();
      EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << k.name << " " << c.label();
      ++compiled;
    }
    if (also_sm80) {
      ASSERT_NO_THROW(compile(hist1d_request(configs.front(), p, 80))) << k.name << " sm_80";
    }
  }
}

}  // namespace

TEST(SampleTypeCompile, EveryNewTypeAndBinningCompilesForSm90) {
  const std::vector<TypeCase> cases = {
      {"i8_direct_256", shape(SampleType::i8, Binning::direct, 256), false},
      {"i8_even_full_range_256", shape(SampleType::i8, Binning::even, 256, -128, 128), true},
      {"i8_range_table_255", shape(SampleType::i8, Binning::range, 255), false, 2},
      {"i16_direct_1024", shape(SampleType::i16, Binning::direct, 1024), false},
      {"i16_even_reciprocal_100", shape(SampleType::i16, Binning::even, 100, -32768, 32767), 2},
      {"i16_even_64bit_7", shape(SampleType::i16, Binning::even, 7, -2147483648.0, 2147483648.0), 0},
      {"i16_range_1000", shape(SampleType::i16, Binning::range, 1000), false, 1},
      {"f16_even_256", shape(SampleType::f16, Binning::even, 256, -1, 1), false},
      {"f16_range_staged_2048", shape(SampleType::f16, Binning::range, 2048), false, 1},
      {"bf16_even_300", shape(SampleType::bf16, Binning::even, 300, 0, 300), false},
      {"bf16_range_global_10000", shape(SampleType::bf16, Binning::range, 10000), false, 0},
  };
  const std::vector<const char*> labels(std::begin(kLabels), std::end(kLabels));
  int compiled = 0;
  compile_cases(cases, labels, 3, false, compiled);
  EXPECT_GE(compiled, 30);
}

// The 64-bit types (i64, u64, f64): two samples to a 16-byte vector, direct bins compared in 64
// bits, even binning in 32-bit arithmetic, with 128-bit products and in double, range levels
// staged at an 8-byte boundary and searched in global memory; on sm_90 over the configurations
// above and every storage large bins admit, and the defaults on sm_80 (no clusters there).
TEST(SampleTypeCompile, SixtyFourBitTypesCompileForSm90AndSm80) {
  const Problem wide_i64 = shape(SampleType::i64, Binning::even, 1000, -0x1p63, 0x1p63);
  const std::vector<TypeCase> cases = {
      {"i64_direct_256", shape(SampleType::i64, Binning::direct, 256), false},
      {"i64_direct_131072", shape(SampleType::i64, Binning::direct, 131072), false},
      {"i64_even_narrow_256", shape(SampleType::i64, Binning::even, 256, -1000, 1000), true},
      {"i64_even_whole_range_1000", wide_i64, false},
      {"i64_range_staged_1000", shape(SampleType::i64, Binning::range, 1000), false, 1},
      {"u64_even_whole_range_7", shape(SampleType::u64, Binning::even, 7, 0, 0x1p64), false},
      {"u64_range_global_10000", shape(SampleType::u64, Binning::range, 10000), false, 0},
      {"f64_even_256", shape(SampleType::f64, Binning::even, 256, -1, 1), false},
      {"f64_range_staged_2047", shape(SampleType::f64, Binning::range, 2047), false, 1},
  };
  std::vector<const char*> labels(std::begin(kLabels), std::end(kLabels));
  labels.insert(labels.end(), {
      "tpb128.vpt8.vec16.pc1.lay0.agg1.u2.pad0.bps2.st2.b1.sb0.cl1.pf1.tp0",
      "tpb512.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps1.st5.b1.sb0.cl1.pf1.tp0",
      "tpb128.vpt4.vec16.pc1.lay0.agg0.u0.pad0.bps4.st1.b2.sb0.cl1.pf1.tp0",
  });
  int compiled = 0;
  compile_cases(cases, labels, 1, true, compiled);
  EXPECT_GE(compiled, 20);
}
