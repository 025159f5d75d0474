// The multi-channel family without a GPU: labels, restrictions, geometry, defaults, the prepared
// launch's arguments, and NVRTC compiles of a sample of its space for RGBA pixels and for
// [rows, 512] columns.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "pairwise.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem shape(SampleType t, std::uint32_t channels, std::uint32_t active, std::uint64_t rows,
              std::uint32_t bins = 256) {
  return multichannel_problem(t, channels, active, rows, bins);
}

}  // namespace

TEST(MultiChannelConfig, LabelRoundTripsForEveryPointOfTheSpace) {
  std::set<std::string> labels;
  for (const auto& c : multichannel::space()) {
    const auto back = MultiChannelConfig::parse(c.label());
    ASSERT_TRUE(back) << c.label();
    EXPECT_EQ(*back, c);
    labels.insert(c.label());
  }
  EXPECT_EQ(labels.size(), multichannel::space().size());
  EXPECT_EQ(MultiChannelConfig{}.label(), "mc.tpb256.vpt1.vec16.cpb0.pc1.pad1.bps4.u0.lay0.pf0.tp0");
  // Labels written before the layout existed mean layout 0.
  EXPECT_EQ(MultiChannelConfig::parse("mc.tpb256.vpt1.vec16.cpb0.pc1.pad1.bps4.u0"),
            MultiChannelConfig{});
  EXPECT_FALSE(MultiChannelConfig::parse("tpb256.vpt1.vec16.cpb0.pc1.pad1.bps4.u0"));  // no prefix
}

// The grid walked without building it (params::for_each, which the 1D tests use on its ~22 M
// points): the same configurations in the same order as space(), and a stop when asked.
TEST(MultiChannelConfig, ForEachWalksTheGridInSpaceOrderAndStopsWhenAsked) {
  const std::vector<MultiChannelConfig> all = multichannel::space();
  std::size_t i = 0, mismatches = 0;
  EXPECT_TRUE(params::for_each(multichannel::params(), [&](const MultiChannelConfig& c) {
    if (i >= all.size() || c != all[i]) ++mismatches;
    ++i;
    return true;
  }));
  EXPECT_EQ(i, all.size());
  EXPECT_EQ(mismatches, 0u);
  std::size_t seen = 0;
  EXPECT_FALSE(params::for_each(multichannel::params(),
                                [&](const MultiChannelConfig&) { return ++seen < 10; }));
  EXPECT_EQ(seen, 10u);
}

TEST(MultiChannelRestrictions, GroupsMustDivideTheChannelsAndKeepLoadsInside) {
  const Problem cols = shape(SampleType::u8, 512, 512, 1 << 20);
  MultiChannelConfig c;
  c.channels_per_block = 32;
  EXPECT_EQ(multichannel::check(c, cols, h100_like()).message(), "");
  const auto g = multichannel::geometry(c, cols, h100_like());
  EXPECT_EQ(g.grid.x, 16u);  // 512 / 32 channel groups
  EXPECT_EQ(g.smem_bytes, 32u * 257 * 4);
  c.channels_per_block = 8;  // 8 u8 channels: a 16-byte load would straddle two groups
  EXPECT_NE(multichannel::check(c, cols, h100_like()).message().find("straddle"), std::string::npos);
  const Problem rgb = shape(SampleType::u8, 3, 3, 1000);
  MultiChannelConfig g4;
  g4.channels_per_block = 4;  // does not divide 3
  EXPECT_NE(multichannel::check(g4, rgb, h100_like()).message().find("divide"), std::string::npos);
  MultiChannelConfig all;  // every channel in one block: a flat stream, any vector width
  EXPECT_EQ(multichannel::check(all, rgb, h100_like()).message(), "");
  MultiChannelConfig huge;  // 512 channels x 4 copies x 257 words: far beyond shared memory
  huge.private_copies = 4;
  EXPECT_NE(multichannel::check(huge, cols, h100_like()).message().find("shared memory"), std::string::npos);
  Problem one_d = cols;
  one_d.family = Family::hist1d;
  EXPECT_NE(multichannel::check(c, one_d, h100_like()).message().find("multichannel problems"), std::string::npos);
}

TEST(MultiChannelRestrictions, LayoutsTradeMemoryForBanks) {
  const Problem cols = shape(SampleType::u8, 512, 512, 1 << 20);
  MultiChannelConfig c;
  c.channels_per_block = 64;
  c.padding = 0;
  c.blocks_per_sm = 2;
  c.layout = ChannelLayout::channel_interleaved;  // channel-interleaved: as much memory as rows, without the padding
  EXPECT_EQ(multichannel::check(c, cols, h100_like()).message(), "");
  EXPECT_EQ(multichannel::geometry(c, cols, h100_like()).smem_bytes, 64u * 256 * 4);
  c.channels_per_block = 16;  // fewer than one channel per bank
  EXPECT_NE(multichannel::check(c, cols, h100_like()).message().find("groups of 32"), std::string::npos);
  c.channels_per_block = 64;
  c.padding = 1;
  EXPECT_NE(multichannel::check(c, cols, h100_like()).message().find("padding"), std::string::npos);
  // Lane-striped pixels: 32 lane copies of the 3 active channels only (RGBA, 3 of 4).
  const Problem rgba = shape(SampleType::u8, 4, 3, 1 << 20);
  MultiChannelConfig px;
  px.layout = ChannelLayout::lane_striped;
  px.padding = 0;
  px.block_threads = 1024;
  px.blocks_per_sm = 1;
  EXPECT_EQ(multichannel::check(px, rgba, h100_like()).message(), "");
  EXPECT_EQ(multichannel::geometry(px, rgba, h100_like()).smem_bytes, 3u * 256 * 32 * 4);
  px.private_copies = 4;  // 384 KiB
  EXPECT_NE(multichannel::check(px, rgba, h100_like()).message().find("shared memory"), std::string::npos);
}

TEST(MultiChannelRestrictions, OnlyGroupsWithAnActiveChannelAreLaunched) {
  MultiChannelConfig c;
  c.channels_per_block = 16;
  c.vector_bytes = 16;
  const Problem p = shape(SampleType::u8, 64, 20, 5000);
  ASSERT_EQ(multichannel::check(c, p, h100_like()).message(), "");
  EXPECT_EQ(multichannel::geometry(c, p, h100_like()).grid.x, 2u);  // channels 0-15, 16-31
}

TEST(MultiChannelDefaults, EveryShapeGetsAValidConfiguration) {
  for (const SampleType t : {SampleType::u8, SampleType::u16})
    for (const auto& [c, a] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
             {1, 1}, {3, 3}, {4, 3}, {4, 4}, {7, 2}, {64, 40}, {512, 512}, {4096, 1}})
      for (const std::uint64_t rows : {0ull, 1ull, 999ull, 1ull << 20}) {
        const Problem p = shape(t, c, a, rows);
        const MultiChannelConfig cfg = multichannel::default_for(p, h100_like());
        EXPECT_EQ(multichannel::check(cfg, p, h100_like()).message(), "") << p.describe() << " " << cfg.label();
      }
}

TEST(MultiChannelProblem, ValidationAndReference) {
  Problem p = shape(SampleType::u8, 4, 3, 2, 4);
  EXPECT_EQ(validate(p), "");
  p.active_channels = 5;
  EXPECT_NE(validate(p), "");
  p.active_channels = 0;
  EXPECT_NE(validate(p), "");
  Problem flat;
  flat.channels = 2;
  EXPECT_NE(validate(flat), "") << "channels belong to the multichannel family";
  // Two RGBA pixels, histograms of R, G and B with 4 bins; alpha is not counted.
  const std::uint8_t px[] = {0, 1, 2, 3, 1, 1, 9, 0};
  Problem rgba = shape(SampleType::u8, 4, 3, 2, 4);
  const std::vector<std::uint32_t> want = {1, 1, 0, 0,  0, 2, 0, 0,  0, 0, 1, 0};
  EXPECT_EQ(reference_histogram(rgba, px), want);
}

namespace {

struct McCase {
  SampleType type;
  Binning binning;
  std::uint32_t channels, active, bins;
};

std::string mc_name(const McCase& c) {
  return std::string(to_string(c.type)) + "_" + to_string(c.binning) + "_c" +
         std::to_string(c.channels) + "a" + std::to_string(c.active) + "_" +
         std::to_string(c.bins);
}

class MultiChannelCompile : public ::testing::TestWithParam<McCase> {};

}  // namespace

// Distinct kernels of the valid space (compile keys), a pairwise-covering sample of them compiled
// for sm_90 (tests/pairwise.hpp; every-n-th sampling, every 29th to 97th, compiled more and
// covered fewer pairs).
TEST_P(MultiChannelCompile, SampledVariantsCompileToACubin) {
  const McCase k = GetParam();
  Problem p = shape(k.type, k.channels, k.active, 1 << 20, k.bins);
  p.binning = k.binning;
  p.upper = k.bins;
  std::set<std::string> keys;
  std::vector<MultiChannelConfig> kernels;  // the first configuration of each kernel
  for (const auto& c : multichannel::space())
    if (multichannel::check(c, p, h100_like()).holds() &&
        keys.insert(cache_key(multichannel::request(c, p, 90))).second)
      kernels.push_back(c);
  ASSERT_GT(kernels.size(), 20u);
  int compiled = 0;
  for (std::size_t i : test::pairwise_cover(multichannel::params(), kernels)) {
    const CompileRequest req = multichannel::request(kernels[i], p, 90);
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(req)) << req.label;
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << req.label;
    ++compiled;
  }
  EXPECT_GE(compiled, 10);
  RecordProperty("kernels", static_cast<int>(kernels.size()));
  RecordProperty("compiled", compiled);
}

INSTANTIATE_TEST_SUITE_P(
    MultiChannel, MultiChannelCompile,
    ::testing::Values(McCase{SampleType::u8, Binning::direct, 4, 3, 256},
                      McCase{SampleType::u8, Binning::direct, 512, 512, 256},
                      McCase{SampleType::u16, Binning::even, 3, 3, 1000},
                      // Range binning: the u8 table, and u16 levels staged in shared memory.
                      McCase{SampleType::u8, Binning::range, 4, 3, 200},
                      McCase{SampleType::u16, Binning::range, 3, 3, 3000}),
    [](const auto& info) { return mc_name(info.param); });

TEST(MultiChannelRange, TheLevelsAreSharedMemoryAfterTheHistograms) {
  Problem even = shape(SampleType::u16, 4, 4, 1 << 20, 1000);
  even.binning = Binning::even;
  even.upper = 1000;
  Problem range = even;
  range.binning = Binning::range;
  const MultiChannelConfig c;
  EXPECT_EQ(multichannel::geometry(c, range, h100_like()).smem_bytes,
            multichannel::geometry(c, even, h100_like()).smem_bytes + 1001 * 2 + 2);
  Problem u8 = shape(SampleType::u8, 4, 3, 1 << 20, 100);
  u8.binning = Binning::range;
  Problem u8_even = u8;
  u8_even.binning = Binning::even;
  u8_even.upper = 100;
  EXPECT_EQ(multichannel::geometry(c, u8, h100_like()).smem_bytes,
            multichannel::geometry(c, u8_even, h100_like()).smem_bytes + 256);
  EXPECT_EQ(multichannel::check(multichannel::default_for(u8, h100_like()), u8, h100_like()).message(), "");
}

TEST(MultiChannelLaunch, PreparedOnceThenEachCallBringsItsBoundsAndLevels) {
  // The public API prepares one launch per shape (the key has no bounds or levels): the geometry
  // is the shape's, the scalar arguments the call's. Under 48 KiB of shared memory preparing
  // needs no GPU (no attribute to raise), and args() never does.
  Problem prepared = shape(SampleType::u16, 4, 3, 100003, 100);
  prepared.binning = Binning::even;
  prepared.upper = 1000;
  const MultiChannelConfig c;
  KernelCache cache;
  const MultiChannelLaunch launch(cache, Kernel{}, c, prepared, h100_like());
  const MultiChannelGeometry g = multichannel::geometry(c, prepared, h100_like());
  ASSERT_LE(g.smem_bytes, 48u * 1024);
  EXPECT_EQ(launch.geometry().grid.x, g.grid.x);
  EXPECT_EQ(launch.geometry().grid.y, g.grid.y);
  EXPECT_EQ(launch.geometry().block, g.block);
  EXPECT_EQ(launch.geometry().smem_bytes, g.smem_bytes);

  Problem call = prepared;
  call.lower = -5;
  call.upper = 5000;
  const std::uint16_t levels[101] = {};
  call.d_levels = levels;
  const auto* samples = reinterpret_cast<const void*>(0x1000);
  auto* counts = reinterpret_cast<std::uint32_t*>(0x2000);
  const MultiChannelArgs a = launch.args(call, samples, counts);
  EXPECT_EQ(a.samples, samples);
  EXPECT_EQ(a.counts, counts);
  EXPECT_EQ(a.levels, static_cast<const void*>(levels));
  EXPECT_EQ(a.n, 100003u);  // rows
  EXPECT_EQ(a.num_bins, 100u);
  EXPECT_EQ(a.row_stride, g.row_stride);
  EXPECT_EQ(a.binning.lower_i, -5);
  EXPECT_EQ(a.binning.range_i, 5005u);
  EXPECT_EQ(a.binning.recip_i, ~0ull / 5005u);
  EXPECT_EQ(a.binning.lower_f, -5.0f);
  EXPECT_EQ(a.binning.upper_f, 5000.0f);
  EXPECT_EQ(a.binning.scale_f, 100.0f / (5000.0f - -5.0f));
}

TEST(MultiChannelRangeApiArguments, RefusedBeforeAnythingRuns) {
  std::uint32_t counts[8];
  const auto* samples = reinterpret_cast<const std::uint8_t*>(0x1000);
  const Status null_levels = histogram_multichannel_range(samples, 10, 4, 3, 2, nullptr, counts);
  EXPECT_EQ(null_levels.code(), StatusCode::invalid_argument);
  EXPECT_NE(null_levels.message().find("d_levels is null"), std::string::npos)
      << null_levels.message();
  const Status too_many = histogram_multichannel_range(samples, 10, 4, 3, 256, samples, counts);
  EXPECT_EQ(too_many.code(), StatusCode::invalid_argument);
  EXPECT_NE(too_many.message().find("255"), std::string::npos) << too_many.message();
  const auto* samples16 = reinterpret_cast<const std::uint16_t*>(0x1000);
  const Status misaligned = histogram_multichannel_range(
      samples16, 10, 4, 3, 2, reinterpret_cast<const std::uint16_t*>(0x1001), counts);
  EXPECT_EQ(misaligned.code(), StatusCode::invalid_argument);
  EXPECT_NE(misaligned.message().find("not aligned"), std::string::npos) << misaligned.message();
}

TEST(MultiChannelProblem, DatabaseKeyCarriesTheChannels) {
  const Problem rgba = shape(SampleType::u8, 4, 3, 1000);
  EXPECT_EQ(rgba.key().family, "multichannel");
  EXPECT_EQ(rgba.key().channels, 4u);
  EXPECT_EQ(rgba.key().active_channels, 3u);
  Problem rgb = rgba;
  rgb.active_channels = 4;
  EXPECT_FALSE(rgb.key() == rgba.key());
  Problem flat;  // 1D keys are the ones written before channels existed
  flat.n = 1000;
  EXPECT_EQ(flat.key().channels, 1u);
  EXPECT_EQ(flat.key().active_channels, 0u);
}

// Refused before any device call, so this holds without a GPU too.
TEST(MultiChannelApiArguments, BadShapesAreRefusedBeforeAnythingRuns) {
  std::uint32_t counts[8];
  const std::uint8_t* none = nullptr;
  const Status more_active = histogram_multichannel_direct(none, 0, 4, 5, 2, counts);
  EXPECT_EQ(more_active.code(), StatusCode::invalid_argument);
  EXPECT_NE(more_active.message().find("active_channels"), std::string::npos) << more_active.message();
  const Status null_rows = histogram_multichannel_direct(none, 10, 4, 3, 2, counts);
  EXPECT_EQ(null_rows.code(), StatusCode::invalid_argument) << null_rows.message();
  const Status no_bins = histogram_multichannel_direct(none, 0, 4, 3, 0, counts);
  EXPECT_EQ(no_bins.code(), StatusCode::invalid_argument) << no_bins.message();
  const Status bounds = histogram_multichannel_even(none, 0, 3, 3, 4, 10, 10, counts);
  EXPECT_EQ(bounds.code(), StatusCode::invalid_argument) << bounds.message();
}
