// Byte decoding (hist1d::byte_decoded, hist1d.cuh's HT_BYTE_DECODE): which problems and
// configurations decode, the define that says so, and the counters sized for the 256 byte values.
#include <gtest/gtest.h>

#include "fake_device.hpp"

#include <algorithm>
#include <string>

#include "histtune/hist1d.hpp"

using namespace histtune;

namespace {
using histtune::test::h100_like;

Problem u8_even(std::uint32_t bins, double lower = 0, double upper = 256) {
  return flat_problem(SampleType::u8, Binning::even, bins, 1u << 24, lower, upper);
}

Hist1DConfig config(const char* label) {
  const auto c = Hist1DConfig::parse(label);
  EXPECT_TRUE(c) << label;
  return c.value_or(Hist1DConfig{});
}

bool has_define(const Hist1DConfig& c, const Problem& p, const std::string& def) {
  const auto defs = hist1d::defines(c, p, 90);
  return std::find(defs.begin(), defs.end(), def) != defs.end();
}

const char* kLaneStriped = "tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0";
const char* kCopies = "tpb256.vpt1.vec0.pc4.lay0.agg1.u0.pad1.bps8.st0.b1.sb0.cl1.pf0.tp0";
const char* kThreadCounters = "tpb128.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1.pf0.tp0";

}  // namespace

TEST(ByteDecode, U8EvenOrRangeBelow256BinsAddedByAGridOfBlocksDecodes) {
  for (const char* label : {kLaneStriped, kCopies, kThreadCounters}) {
    const Hist1DConfig c = config(label);
    for (const std::uint32_t bins : {1u, 10u, 64u, 255u}) {
      EXPECT_TRUE(hist1d::byte_decoded(c, u8_even(bins))) << label << " " << bins;
      EXPECT_TRUE(hist1d::byte_decoded(c, u8_even(bins, -1000, 1000))) << label << " " << bins;
    }
    Problem range = u8_even(100);
    range.binning = Binning::range;
    EXPECT_TRUE(hist1d::byte_decoded(c, range)) << label;
    EXPECT_EQ(hist1d::counted_bins(c, range), 256u) << label;
    // i8: its signed values always take arithmetic, so 256 bins decode too.
    for (const std::uint32_t bins : {1u, 100u, 256u}) {
      Problem i8 = u8_even(bins, -128, 127);
      i8.sample_type = SampleType::i8;
      EXPECT_TRUE(hist1d::byte_decoded(c, i8)) << label << " " << bins;
      i8.binning = Binning::range;
      EXPECT_TRUE(hist1d::byte_decoded(c, i8)) << label << " " << bins;
    }
  }
}

TEST(ByteDecode, OtherProblemsAndConfigurationsDoNot) {
  const Hist1DConfig c = config(kCopies);
  EXPECT_FALSE(hist1d::byte_decoded(c, u8_even(256))) << "every byte value has its bin already";
  Problem direct = u8_even(100);
  direct.binning = Binning::direct;  // the value is the bin: no arithmetic to save
  EXPECT_FALSE(hist1d::byte_decoded(c, direct));
  Problem u16 = u8_even(10);
  u16.sample_type = SampleType::u16;  // 65536 values
  EXPECT_FALSE(hist1d::byte_decoded(c, u16));
  EXPECT_EQ(hist1d::counted_bins(c, u16), 10u);
  // A single block and a two-phase block store bin totals; several byte values add into one bin.
  Hist1DConfig single = c;
  single.single_block = 1;
  EXPECT_FALSE(hist1d::byte_decoded(single, u8_even(10)));
  Hist1DConfig two_phase = c;
  two_phase.two_phase = 1;
  EXPECT_FALSE(hist1d::byte_decoded(two_phase, u8_even(10)));
  // Global, cluster and packed storage keep no byte counters (and are for many bins).
  for (const Storage s : {Storage::global, Storage::cluster, Storage::packed}) {
    Hist1DConfig other = c;
    other.storage = s;
    EXPECT_FALSE(hist1d::byte_decoded(other, u8_even(10))) << static_cast<int>(s);
  }
}

TEST(ByteDecode, TheDefinesSayWhetherItDecodesAndADecodedKernelHasNoSink) {
  const Hist1DConfig c = config(kCopies);
  EXPECT_TRUE(has_define(c, u8_even(10), "-DHT_BYTE_DECODE=1"));
  EXPECT_TRUE(has_define(c, u8_even(10), "-DHT_SINK=0")) << "every byte value is counted";
  Hist1DConfig two_phase = c;
  two_phase.two_phase = 1;
  EXPECT_TRUE(has_define(two_phase, u8_even(10), "-DHT_BYTE_DECODE=0"));
  EXPECT_TRUE(has_define(two_phase, u8_even(10), "-DHT_SINK=1"));
  Problem direct = u8_even(256);
  direct.binning = Binning::direct;
  EXPECT_TRUE(has_define(c, direct, "-DHT_BYTE_DECODE=0"));
}

TEST(ByteDecode, CountersAreSizedForTheByteValues) {
  // Decoded: the counters of u8 direct binning over 256 bins (which needs no sink either).
  Problem direct = u8_even(256);
  direct.binning = Binning::direct;
  for (const char* label : {kLaneStriped, kCopies, kThreadCounters}) {
    const Hist1DConfig c = config(label);
    for (const std::uint32_t bins : {1u, 10u, 255u}) {
      const LaunchGeometry g = hist1d::geometry(c, u8_even(bins), h100_like());
      const LaunchGeometry d = hist1d::geometry(c, direct, h100_like());
      EXPECT_EQ(g.smem_bytes, d.smem_bytes) << label << " " << bins;
      EXPECT_EQ(g.row_stride, d.row_stride) << label << " " << bins;
    }
  }
  const LaunchGeometry copies = hist1d::geometry(config(kCopies), u8_even(10), h100_like());
  EXPECT_EQ(copies.row_stride, 257u);  // 256 values + the padding, no sink
  EXPECT_EQ(copies.smem_bytes, 4u * 257 * 4);
  EXPECT_EQ(hist1d::geometry(config(kLaneStriped), u8_even(10), h100_like()).smem_bytes,
            256u * 32 * 4);
  // 128 words of 16-bit counter pairs per thread, then the block's 256 totals.
  EXPECT_EQ(hist1d::geometry(config(kThreadCounters), u8_even(10), h100_like()).smem_bytes,
            (128u * 128 + 256) * 4);
  Problem range = u8_even(100);
  range.binning = Binning::range;  // + the 256-byte table of u8 range binning
  EXPECT_EQ(hist1d::geometry(config(kCopies), range, h100_like()).smem_bytes, 4u * 257 * 4 + 256);
}

TEST(ByteDecode, RestrictionsSeeTheCountedBins) {
  // Per-thread counters of 512 threads: 10 bins take 11 KiB, 256 byte values 257 KiB.
  Hist1DConfig c = config(kThreadCounters);
  c.block_threads = 512;
  Problem u16 = u8_even(10);
  u16.sample_type = SampleType::u16;
  EXPECT_EQ(hist1d::check(c, u16, h100_like()).message(), "");
  EXPECT_NE(hist1d::check(c, u8_even(10), h100_like()).message().find("shared memory"),
            std::string::npos);
  c.block_threads = 256;  // 129 KiB: one block per SM
  EXPECT_EQ(hist1d::check(c, u8_even(10), h100_like()).message(), "");
  // The built-in choice for u8 with few bins stays valid.
  for (const std::uint32_t bins : {1u, 10u, 64u, 255u})
    for (const std::uint64_t n : {1000ull, 1ull << 20, 1ull << 26}) {
      Problem p = u8_even(bins);
      p.n = n;
      const Hist1DConfig d = hist1d::default_for(p, h100_like());
      EXPECT_EQ(hist1d::check(d, p, h100_like()).message(), "") << p.describe() << " " << d.label();
    }
}
