// NVRTC compiles the multi-channel family's kernels (templates/multichannel.cuh) for the sample
// types of issue 25 without a GPU: i8, i16, f16, bf16, i64, u64 and f64 with every binning each
// takes (direct for the integers; even in 32 and 64 bits and in double; range in each way of
// reading the levels), over every layout (rows, lane-striped, channel-interleaved, global), one
// sample and 16-byte loads, two-phase flushes and the pitched variant; the built-in default on
// sm_80 too. 8-byte samples are two to a 16-byte vector, two words a sample.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_device.hpp"
#include "multichannel_type_cases.hpp"
#include "histtune/jit.hpp"
#include "histtune/multichannel.hpp"

using namespace histtune;

namespace {

std::string name_of(const Problem& p) {
  return std::string(to_string(p.sample_type)) + " " + to_string(p.binning) + " c" +
         std::to_string(p.channels) + "a" + std::to_string(p.active_channels) + " " +
         std::to_string(p.num_bins);
}

}  // namespace

TEST(MultiChannelTypesCompile, EveryNewTypeBinningAndLayoutCompiles) {
  const DeviceInfo d = test::h100_like();
  int compiled = 0, layouts[4] = {0, 0, 0, 0};
  for (const test::MultiChannelTypeCase& k : test::kMultiChannelTypeCases) {
    const Problem p = test::problem_of(k, 4096);
    ASSERT_EQ(validate(p), "") << name_of(p);
    std::vector<MultiChannelConfig> configs = {multichannel::default_for(p, d)};
    ASSERT_TRUE(multichannel::check(configs[0], p, d).holds()) << name_of(p);
    for (const char* label : test::kMultiChannelTypeLabels) {
      const auto c = MultiChannelConfig::parse(label);
      ASSERT_TRUE(c) << label;
      if (multichannel::check(*c, p, d).holds()) configs.push_back(*c);
    }
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const MultiChannelConfig& c = configs[i];
      CompiledKernel out;
      ASSERT_NO_THROW(out = compile(multichannel::request(c, p, 90))) << name_of(p) << " " << c.label();
      EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << name_of(p) << " " << c.label();
      ++compiled;
      ++layouts[static_cast<int>(c.layout)];
      if (i == 0) {
        // The default on sm_80, and its pitched variant (image rows of 7 pixels, padded).
        ASSERT_NO_THROW(compile(multichannel::request(c, p, 80))) << name_of(p) << " sm_80";
        Problem pitched = p;
        pitched.row_pixels = 7;
        pitched.n = 7 * 100;
        pitched.row_pitch_bytes = (7 * p.channels + 3) * sample_bytes(p.sample_type);
        ASSERT_EQ(validate(pitched), "") << name_of(p);
        ASSERT_NO_THROW(compile(multichannel::request(c, pitched, 90))) << name_of(p) << " pitched";
      }
    }
  }
  EXPECT_GE(compiled, 60);
  for (int l = 0; l < 4; ++l) EXPECT_GT(layouts[l], 0) << "layout " << l << " never compiled";
}
