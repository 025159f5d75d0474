// The restrictions' typed results (restriction.hpp): which restriction refused a configuration,
// the numbers it compared, and the words of message() that logs and errors carry.
#include <gtest/gtest.h>

#include "fake_device.hpp"
#include "histtune/families.hpp"

namespace histtune {
namespace {

using test::h100_like;

Problem u8_256(std::uint64_t n) { return flat_problem(SampleType::u8, Binning::direct, 256, n); }

TEST(Restriction, HoldsWithAnEmptyMessage) {
  const Restriction r = hist1d::check(Hist1DConfig{}, u8_256(1 << 20), h100_like());
  EXPECT_TRUE(r.holds());
  EXPECT_EQ(r.kind, RestrictionKind::none);
  EXPECT_EQ(r.message(), "");
}

TEST(Restriction, ThreadsPerSmNamesBothNumbers) {
  Hist1DConfig c;
  c.block_threads = 1024;
  c.blocks_per_sm = 4;
  const Restriction r = hist1d::check(c, u8_256(1 << 20), h100_like());
  EXPECT_EQ(r.kind, RestrictionKind::threads_per_sm);
  EXPECT_EQ(r.value, 4096);
  EXPECT_EQ(r.limit, 2048);
  EXPECT_EQ(r.message(), "blocks_per_sm x block_threads (4096) > threads per SM (2048)");
}

TEST(Restriction, SharedMemoryPerBlockAndPerSm) {
  Hist1DConfig big;  // 32 lane-striped copies of 4097 words: far beyond a block's 227 KiB
  big.block_threads = 1024;
  big.blocks_per_sm = 1;
  big.layout = Layout::lane_striped;
  big.private_copies = 4;
  const Problem p = flat_problem(SampleType::u16, Binning::direct, 4096, 1 << 20);
  const Restriction block = hist1d::check(big, p, h100_like());
  EXPECT_EQ(block.kind, RestrictionKind::smem_per_block);
  EXPECT_GT(block.value, block.limit);
  EXPECT_EQ(block.limit, 227 * 1024);
  EXPECT_EQ(block.message(), "shared memory " + std::to_string(block.value) +
                                 " B > the device's per-block limit 232448 B");

  Hist1DConfig crowded;  // 8 blocks of 4 copies of 4097 words: 8 x (65552 + 1024) B per SM
  crowded.private_copies = 4;
  crowded.padding = 1;
  const Restriction sm = hist1d::check(crowded, p, h100_like());
  EXPECT_EQ(sm.kind, RestrictionKind::smem_per_sm);
  EXPECT_EQ(sm.limit, 228 * 1024);
  EXPECT_GT(sm.value, sm.limit);
  EXPECT_EQ(sm.message(), "blocks_per_sm x shared memory per block (" + std::to_string(sm.value) +
                              " B) > shared memory per SM (233472 B)");
}

TEST(Restriction, PartialsNameTheirShape) {
  const Problem p = flat_problem(SampleType::u32, Binning::direct, 4096, 1u << 26);
  DeviceInfo d = h100_like();
  d.memory_bytes = std::int64_t{128} << 20;
  const auto c =
      *Hist1DConfig::parse("tpb1024.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps2.st0.b1.sb0.cl1.pf0.tp1");
  const Restriction r = hist1d::check(c, p, d);
  EXPECT_EQ(r.kind, RestrictionKind::partials);
  EXPECT_EQ(r.text, "blocks x bins");
  EXPECT_EQ(r.limit, 2097152);
  EXPECT_EQ(r.value, 264 * 4096 * 4);
  EXPECT_EQ(r.message(),
            "two-phase partials (4325376 B: blocks x bins) > the temporary memory limit (2097152 B)");
}

TEST(Restriction, ParameterValuesAndFamilyRules) {
  Hist1DConfig c;
  c.unroll = 1;
  const Restriction value = hist1d::check(c, u8_256(1 << 20), h100_like());
  EXPECT_EQ(value.kind, RestrictionKind::parameter_value);
  EXPECT_EQ(value.text, "unroll");
  EXPECT_EQ(value.value, 1);
  EXPECT_EQ(value.message(), "unroll = 1 is not one of the family's values");

  MultiChannelConfig m;
  m.private_copies = 16;  // not a multichannel value
  const Restriction other = multichannel::check(m, u8_256(1 << 20), h100_like());
  EXPECT_EQ(other.kind, RestrictionKind::parameter_value);
  EXPECT_EQ(other.message(), "private_copies = 16 is not one of the family's values");

  const Restriction rule = multichannel::check(MultiChannelConfig{}, u8_256(1 << 20), h100_like());
  EXPECT_EQ(rule.kind, RestrictionKind::family_rule);
  EXPECT_EQ(rule.message(), "the multichannel family runs multichannel problems only");
  EXPECT_EQ(rule.message(), rule.text);
}

TEST(Restriction, TheRegistryReturnsTheFamilysResult) {
  Hist1DConfig c;
  c.block_threads = 1024;
  c.blocks_per_sm = 4;
  const KernelFamily& f = family(Family::hist1d);
  const Restriction r = f.check(FamilyModel<Hist1DFamily>::values(c), u8_256(1 << 20), h100_like());
  EXPECT_EQ(r.kind, RestrictionKind::threads_per_sm);
  EXPECT_EQ(r.message(), hist1d::check(c, u8_256(1 << 20), h100_like()).message());
}

}  // namespace
}  // namespace histtune
