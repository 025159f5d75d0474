// The multi-channel family's shapes whose histograms do not fit one block together (issue 27):
// groups of 1 and 2 channels, a built-in default that is valid whenever one channel's histogram
// fits in a block's shared memory, and a clear refusal when not even one does. No GPU.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "fake_device.hpp"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem shape(SampleType t, std::uint32_t channels, std::uint32_t active, std::uint64_t rows,
              std::uint32_t bins, Binning b = Binning::direct) {
  Problem p = multichannel_problem(t, channels, active, rows, bins, b);
  if (b == Binning::even) p.upper = bins;
  return p;
}

MultiChannelConfig config(const char* label) {
  const auto c = MultiChannelConfig::parse(label);
  EXPECT_TRUE(c) << label;
  return c.value_or(MultiChannelConfig{});
}

// The most direct u16 bins one channel's histogram (and its sink word) holds on `d`.
std::uint32_t most_bins(const DeviceInfo& d) {
  return static_cast<std::uint32_t>(d.smem_per_block_optin / sizeof(std::uint32_t) - 1);
}

// Active counts to try for `channels`: every one for few channels, a few for many.
std::vector<std::uint32_t> actives(std::uint32_t channels) {
  if (channels <= 8 || channels == 17) {
    std::vector<std::uint32_t> all;
    for (std::uint32_t a = 1; a <= channels; ++a) all.push_back(a);
    return all;
  }
  return {1, channels / 2 + 1, channels - 1, channels};
}

}  // namespace

TEST(MultiChannelSmallGroups, GroupsOfOneAndTwoKeepLoadsInsideTheGroup) {
  const Problem p17 = shape(SampleType::u16, 17, 17, 1 << 20, 4096);
  const MultiChannelConfig one = config("mc.tpb1024.vpt2.vec0.cpb1.pc1.pad1.bps1.u0");
  EXPECT_EQ(one.channels_per_block, 1);
  EXPECT_EQ(one.label(), "mc.tpb1024.vpt2.vec0.cpb1.pc1.pad1.bps1.u0.lay0.pf0.tp0");
  EXPECT_EQ(multichannel::check(one, p17, h100_like()).message(), "");
  const MultiChannelGeometry g = multichannel::geometry(one, p17, h100_like());
  EXPECT_EQ(g.grid.x, 17u);
  EXPECT_EQ(g.smem_bytes, (4096u + 1 + 1) * 4);
  MultiChannelConfig wide = one;
  wide.vector_bytes = 4;  // two u16 samples: would straddle two groups of one channel
  EXPECT_NE(multichannel::check(wide, p17, h100_like()).message().find("straddle"), std::string::npos);
  const Problem p4 = shape(SampleType::u16, 4, 4, 1 << 22, 16384);
  MultiChannelConfig two = config("mc.tpb1024.vpt2.vec4.cpb2.pc1.pad1.bps1.u0");
  EXPECT_EQ(multichannel::check(two, p4, h100_like()).message(), "");  // two u16 samples: one group
  two.vector_bytes = 8;
  EXPECT_NE(multichannel::check(two, p4, h100_like()).message().find("straddle"), std::string::npos);
  const Problem u8 = shape(SampleType::u8, 4, 4, 1 << 20, 256);
  two.vector_bytes = 4;  // four u8 samples
  EXPECT_NE(multichannel::check(two, u8, h100_like()).message().find("straddle"), std::string::npos);
  const Problem single = shape(SampleType::u16, 1, 1, 1 << 20, 4096);
  EXPECT_NE(multichannel::check(one, single, h100_like()).message().find("fewer"), std::string::npos);
}

// Issue 27's refused shapes, and the group the default gives each.
TEST(MultiChannelDefaults, HistogramsBeyondOneBlockGetSmallerGroups) {
  const DeviceInfo d = h100_like();
  const Problem p17 = shape(SampleType::u16, 17, 17, 1 << 20, 4096);
  EXPECT_EQ(multichannel::default_for(p17, d).channels_per_block, 1);
  const Problem p4 = shape(SampleType::u16, 4, 4, 1 << 22, 16384);
  EXPECT_EQ(multichannel::default_for(p4, d).channels_per_block, 2);
  for (std::uint32_t active = 3; active <= 6; ++active) {
    const Problem p8 = shape(SampleType::u16, 8, active, 1 << 22, 8192);
    const MultiChannelConfig c = multichannel::default_for(p8, d);
    EXPECT_EQ(c.channels_per_block, 4) << p8.describe();
    EXPECT_EQ(multichannel::check(c, p8, d).message(), "") << p8.describe() << " " << c.label();
  }
}

TEST(MultiChannelDefaults, EveryShapeWhoseChannelFitsGetsAValidConfiguration) {
  const DeviceInfo d = h100_like();
  std::vector<std::uint32_t> channel_counts;
  for (std::uint32_t c = 1; c <= 17; ++c) channel_counts.push_back(c);
  for (const std::uint32_t c : {32u, 64u, 512u}) channel_counts.push_back(c);
  const std::vector<std::uint32_t> u8_bins = {1, 2, 100, 256};
  const std::vector<std::uint32_t> u16_bins = {256, 4096, 8192, 16384, 32768, 50000, most_bins(d)};
  int shapes = 0, invalid = 0;
  for (const SampleType t : {SampleType::u8, SampleType::u16})
    for (const std::uint32_t channels : channel_counts)
      for (const std::uint32_t active : actives(channels))
        for (const std::uint32_t bins : t == SampleType::u8 ? u8_bins : u16_bins)
          for (const Binning b : {Binning::direct, Binning::even}) {
            const Problem p = shape(t, channels, active, 1 << 20, bins, b);
            const MultiChannelConfig c = multichannel::default_for(p, d);
            const std::string why = multichannel::check(c, p, d).message();
            ++shapes;
            if (!why.empty() && ++invalid <= 10)
              ADD_FAILURE() << p.describe() << ": " << c.label() << ": " << why;
          }
  EXPECT_EQ(invalid, 0) << "of " << shapes << " shapes";
}

TEST(MultiChannelDefaults, RangeBinningCountsItsLevelsInTheFit) {
  const DeviceInfo d = h100_like();
  for (const std::uint32_t bins : {4096u, 16384u, 30000u}) {
    const Problem p = shape(SampleType::u16, 17, 17, 1 << 20, bins, Binning::range);
    const MultiChannelConfig c = multichannel::default_for(p, d);
    EXPECT_EQ(multichannel::check(c, p, d).message(), "") << p.describe() << " " << c.label();
  }
}

// One u16 channel of more bins than a block holds: the default is the global layout, and every
// private layout is refused, saying why and what takes it.
TEST(MultiChannelDefaults, OneChannelBeyondSharedMemoryRunsOnTheGlobalLayout) {
  const DeviceInfo d = h100_like();
  for (const std::uint32_t channels : {1u, 4u, 17u}) {
    const Problem p = shape(SampleType::u16, channels, 1, 1 << 20, most_bins(d) + 1);
    const MultiChannelConfig c = multichannel::default_for(p, d);
    EXPECT_EQ(c.layout, ChannelLayout::global) << c.label();
    EXPECT_EQ(multichannel::check(c, p, d).message(), "") << c.label();
    EXPECT_EQ(multichannel::geometry(c, p, d).smem_bytes, 0u);
    MultiChannelConfig rows = c;
    rows.layout = ChannelLayout::rows;
    const std::string why = multichannel::check(rows, p, d).message();
    EXPECT_NE(why.find("one channel's histogram of " + std::to_string(most_bins(d) + 1) + " bins"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("per-block limit 232448 B"), std::string::npos) << why;
    EXPECT_NE(why.find("the global layout (3) takes it"), std::string::npos) << why;
    if (channels != 17) continue;
    for (const auto& x : multichannel::space()) {
      if (x.layout != ChannelLayout::global) {
        ASSERT_NE(multichannel::check(x, p, d).message(), "");
      }
    }
  }
  // Below 16384 bins private copies fit: the global layout is not searched there.
  const Problem small = shape(SampleType::u16, 4, 4, 1 << 20, 4096);
  MultiChannelConfig global;
  global.layout = ChannelLayout::global;
  global.padding = 0;
  EXPECT_NE(multichannel::check(global, small, d).message().find("16384 bins or more"),
            std::string::npos);
}

// The same on GPUs of fewer threads an SM (1,536 on sm_86, 1,024 on sm_75): the global layout's
// 256 threads x 8 blocks runs with fewer blocks, so the call is not refused.
TEST(MultiChannelDefaults, TheGlobalLayoutFitsAnSmOfFewerThreads) {
  for (const auto& [major, minor, blocks] : {std::tuple{8, 6, 4}, std::tuple{7, 5, 4},
                                             std::tuple{9, 0, 8}}) {
    const DeviceInfo d = *describe_arch(major, minor);
    const Problem p = shape(SampleType::u16, 4, 1, 1 << 20, most_bins(d) + 1);
    const MultiChannelConfig c = multichannel::default_for(p, d);
    EXPECT_EQ(c.layout, ChannelLayout::global) << d.name << " " << c.label();
    EXPECT_EQ(c.blocks_per_sm, blocks) << d.name << " " << c.label();
    EXPECT_EQ(multichannel::check(c, p, d).message(), "") << d.name << " " << c.label();
  }
}

// The kernels the default gives issue 27's shapes (groups of 1, 2 and 4 u16 channels), packed
// and pitched, compile for sm_90 with the template as it is.
TEST(MultiChannelSmallGroups, TheFittedDefaultsCompileToACubin) {
  const DeviceInfo d = h100_like();
  for (Problem p : {shape(SampleType::u16, 17, 17, 1 << 20, 4096),
                    shape(SampleType::u16, 4, 4, 1 << 22, 16384),
                    shape(SampleType::u16, 8, 5, 1 << 20, 8192)}) {
    for (const std::uint64_t pitch : {0ull, 2ull * p.channels * 1024 + 64}) {
      p.row_pixels = pitch ? 1024 : 0;
      p.row_pitch_bytes = pitch;
      const MultiChannelConfig c = multichannel::default_for(p, d);
      ASSERT_EQ(multichannel::check(c, p, d).message(), "") << p.describe();
      const CompileRequest req = multichannel::request(c, p, 90);
      CompiledKernel out;
      ASSERT_NO_THROW(out = compile(req)) << req.label << " " << p.describe();
      EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << req.label;
    }
  }
}
