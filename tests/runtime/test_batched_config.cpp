// The batched and segmented families without a GPU: labels, the space and its restrictions, the
// built-in default for short and long rows, the problem's key and checks, the argument checks
// made before any launch, and the host reference per row.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fake_device.hpp"
#include "histtune/batched.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/families.hpp"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem dense(SampleType t, std::uint32_t bins, std::uint64_t rows, std::uint64_t n,
              Binning b = Binning::direct) {
  Problem p = batched_problem(t, b, bins, rows, n);
  if (b == Binning::even) p.upper = bins;
  return p;
}

Problem segments(std::uint64_t rows, std::uint64_t n, std::uint32_t bins = 256) {
  return segmented_problem(SampleType::u32, Binning::direct, bins, rows, n);
}

// A device address that passes the alignment checks (never dereferenced here).
const void* kSamples = reinterpret_cast<const void*>(0x10000);
std::uint32_t* const kCounts = reinterpret_cast<std::uint32_t*>(0x20000);
const std::int64_t* const kOffsets = reinterpret_cast<const std::int64_t*>(0x30000);

}  // namespace

TEST(BatchedConfig, LabelsRoundTripForEveryPointAndNameTheirFamily) {
  std::set<std::string> labels;
  for (const BatchedConfig& c : batched::space()) {
    const auto back = BatchedConfig::parse(c.label());
    ASSERT_TRUE(back) << c.label();
    EXPECT_EQ(*back, c);
    const SegmentedConfig s{c};
    const auto seg = SegmentedConfig::parse(s.label());
    ASSERT_TRUE(seg) << s.label();
    EXPECT_EQ(*seg, s);
    EXPECT_FALSE(BatchedConfig::parse(s.label())) << s.label();
    EXPECT_FALSE(SegmentedConfig::parse(c.label())) << c.label();
    labels.insert(c.label());
  }
  // 4 x 4 x 4 x 6 x 10 x 5 x 2 x 2 points.
  EXPECT_EQ(batched::space().size(), 76800u);
  EXPECT_EQ(labels.size(), batched::space().size());
  EXPECT_EQ(BatchedConfig{}.label(), "rows.tpb256.vpt2.vec16.rpb1.bpr1.pc1.u0.lay0");
  EXPECT_EQ(SegmentedConfig{}.label(), "seg.tpb256.vpt2.vec16.rpb1.bpr1.pc1.u0.lay0");
  EXPECT_EQ(BatchedConfig{}.to_json(),
            "{\"block_threads\": 256, \"vectors_per_thread\": 2, \"vector_bytes\": 16, "
            "\"rows_per_block\": 1, \"blocks_per_row\": 1, \"private_copies\": 1, \"unroll\": 0, \"layout\": 0}");
  EXPECT_FALSE(BatchedConfig::parse("rows.tpb256.vpt2.vec16.rpb1.bpr1.pc1"));  // a field short
  // Labels stored before the layout was a parameter read as layout 0.
  const auto old = BatchedConfig::parse("rows.tpb128.vpt2.vec16.rpb1.bpr1.pc2.u0");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->layout, 0);
  EXPECT_EQ(old->private_copies, 2);
}

TEST(BatchedConfig, RegisteredFamiliesKeyProblemsByTheirRows) {
  const Problem p = dense(SampleType::u8, 256, 4096, 65536);
  EXPECT_EQ(family_of(p).name(), std::string("batched"));
  EXPECT_EQ(family_of(segments(10, 100)).name(), std::string("segmented"));
  EXPECT_TRUE(family_of(p).has_rows());
  EXPECT_FALSE(family(Family::hist1d).has_rows());
  const db::ProblemRow key = p.key();
  EXPECT_EQ(key.family, "batched");
  EXPECT_EQ(key.channels, 4096u);
  EXPECT_EQ(key.active_channels, 0u);
  EXPECT_EQ(key.n, 65536u);
  EXPECT_EQ(p.describe(), "batched u8 direct bins=256 n=2^16 rows=4096");
  EXPECT_EQ(p.total_samples(), 4096ull * 65536);
  EXPECT_EQ(segments(100, 1000).total_samples(), 1000u);
  // The stride is an argument of the call, the rows part of the key.
  Problem strided = p;
  strided.row_stride = 65536 + 3;
  EXPECT_EQ(shape_key(strided), shape_key(p));
  Problem more = p;
  more.rows = 4097;
  EXPECT_NE(shape_key(more), shape_key(p));
  EXPECT_EQ(as_one_stream(p).n, 4096ull * 65536);
  EXPECT_EQ(as_one_stream(p).rows, 1u);
}

TEST(BatchedConfig, BadShapesAreRefusedBeforeAnythingLaunches) {
  EXPECT_EQ(validate(dense(SampleType::u8, 256, 4, 100)), "");
  EXPECT_EQ(validate(dense(SampleType::u8, 256, 0, 0)), "") << "no rows, no samples: nothing to do";
  EXPECT_NE(validate(dense(SampleType::u8, 256, 0, 5)).find("rows = 0 with n = 5"),
            std::string::npos);
  Problem overlap = dense(SampleType::u16, 256, 4, 100);
  overlap.row_stride = 99;
  EXPECT_NE(validate(overlap).find("row_stride = 99 is less than n = 100"), std::string::npos);
  overlap.row_stride = 100;
  EXPECT_EQ(validate(overlap), "");
  overlap.row_stride = 101;  // misaligned row starts are fine
  EXPECT_EQ(validate(overlap), "");
  Problem huge = dense(SampleType::f32, 64, 3, 1000);
  huge.row_stride = std::uint64_t{1} << 62;
  EXPECT_NE(validate(huge).find("overflows a 63-bit byte offset"), std::string::npos);
  Problem channels = dense(SampleType::u8, 256, 4, 100);
  channels.channels = 2;
  EXPECT_NE(validate(channels), "");
  EXPECT_EQ(validate(segments(0, 100)), "") << "no segments over samples: nothing to count";
  Problem strided_segments = segments(4, 100);
  strided_segments.row_stride = 7;
  EXPECT_NE(validate(strided_segments), "");
  EXPECT_NE(validate(dense(SampleType::f32, 64, 4, 100)), "") << "direct binning of floats";
}

TEST(BatchedConfig, NullAndMisalignedPointersAreRefused) {
  const Problem p = dense(SampleType::u16, 256, 4, 100);
  EXPECT_EQ(check_arguments(p, kSamples, kCounts), "");
  EXPECT_NE(check_arguments(p, nullptr, kCounts).find("d_samples is null"), std::string::npos);
  EXPECT_NE(check_arguments(p, kSamples, nullptr).find("d_counts is null"), std::string::npos);
  EXPECT_NE(check_arguments(p, reinterpret_cast<const void*>(0x10001), kCounts)
                .find("not aligned to its 2-byte u16 samples"),
            std::string::npos);
  EXPECT_NE(check_arguments(p, kSamples, reinterpret_cast<std::uint32_t*>(0x20002))
                .find("not aligned to its 4-byte counters"),
            std::string::npos);
  Problem s = segments(4, 100);
  EXPECT_NE(check_arguments(s, kSamples, kCounts).find("d_offsets is null with 4 segments"),
            std::string::npos);
  s.d_offsets = reinterpret_cast<const std::int64_t*>(0x30004);
  EXPECT_NE(check_arguments(s, kSamples, kCounts).find("not aligned to its 8-byte offsets"),
            std::string::npos);
  s.d_offsets = kOffsets;
  EXPECT_EQ(check_arguments(s, kSamples, kCounts), "");
  EXPECT_EQ(check_arguments(segments(0, 0), nullptr, kCounts), "") << "no segments read no offsets";
}

TEST(BatchedConfig, PublicCallsRefuseBadInputWithoutTouchingTheOutput) {
  // Refused by the argument checks, before the device is asked for: no GPU needed.
  std::uint32_t counts[4] = {7, 7, 7, 7};
  const auto* samples = reinterpret_cast<const std::uint8_t*>(0x10000);
  Status s = histogram_batched_direct(samples, 2, 100, 50, 2, counts);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("row_stride = 50 is less than n = 100"), std::string::npos);
  s = histogram_batched_direct(samples, 0, 100, 0, 2, counts);
  EXPECT_NE(s.message().find("rows = 0 with n = 100"), std::string::npos);
  s = histogram_segmented_direct(samples, 100, 2, nullptr, 2, counts);
  EXPECT_NE(s.message().find("d_offsets is null"), std::string::npos);
  s = histogram_batched_even(reinterpret_cast<const float*>(0x10002), 2, 10, 0, 2, 0.0f, 1.0f,
                             counts);
  EXPECT_NE(s.message().find("not aligned"), std::string::npos);
  s = histogram_segmented_even(samples, 100, 2, kOffsets, 2, 0, std::int64_t{1} << 60, counts);
  EXPECT_NE(s.message().find("within +-2^53"), std::string::npos);
  for (std::uint32_t c : counts) EXPECT_EQ(c, 7u);
}

TEST(BatchedConfig, RestrictionsSayNo) {
  const DeviceInfo d = h100_like();
  const Problem p = dense(SampleType::u8, 256, 4096, 65536);
  BatchedConfig c;
  EXPECT_TRUE(batched::check(c, p, d).holds());
  c.rows_per_block = 16;  // 16 rows of 256 threads: half a warp each
  EXPECT_NE(batched::check(c, p, d).message().find("whole warps"), std::string::npos);
  c = BatchedConfig{};
  c.private_copies = 8;  // 8 warps, one row: 8 copies hold
  EXPECT_TRUE(batched::check(c, p, d).holds());
  c.rows_per_block = 2;
  EXPECT_NE(batched::check(c, p, d).message().find("private_copies"), std::string::npos);
  c = BatchedConfig{};
  c.vector_bytes = 4;
  EXPECT_TRUE(batched::check(c, dense(SampleType::u8, 256, 4, 64), d).holds());
  EXPECT_FALSE(batched::check(c, dense(SampleType::f32, 256, 4, 64, Binning::even), d).holds());
  c = BatchedConfig{};
  c.private_copies = 0;
  EXPECT_NE(batched::check(c, p, d).message().find("16384 bins"), std::string::npos);
  EXPECT_TRUE(batched::check(c, dense(SampleType::u32, 1 << 20, 4, 1 << 20), d).holds());
  c = BatchedConfig{};
  c.blocks_per_row = 512;  // 512 blocks of 256 threads x 32 samples: more than a row's 65536
  EXPECT_NE(batched::check(c, p, d).message().find("blocks_per_row"), std::string::npos);
  c.blocks_per_row = 8;
  EXPECT_TRUE(batched::check(c, p, d).holds());
  c = BatchedConfig{};
  c.layout = 1;  // 256 bins x 32 lanes: 32 KiB a copy
  EXPECT_TRUE(batched::check(c, p, d).holds());
  c.private_copies = 0;
  EXPECT_NE(batched::check(c, dense(SampleType::u32, 1 << 20, 4, 1 << 20), d).message().find("layout 1"),
            std::string::npos);
  c.private_copies = 1;  // 4096 bins x 32 lanes: 512 KiB
  EXPECT_FALSE(batched::check(c, dense(SampleType::u16, 4096, 4, 1 << 16), d).holds());
  // 65536 bins in one copy (256 KiB) do not fit a block.
  EXPECT_FALSE(batched::check(BatchedConfig{}, dense(SampleType::u16, 65536, 4, 1 << 16), d).holds());
}

TEST(BatchedConfig, SpaceHoldsValidPointsForTheTargetsAndSkipsTheRest) {
  const DeviceInfo d = h100_like();
  const Problem targets[] = {dense(SampleType::u8, 256, 4096, 65536),
                             dense(SampleType::f32, 64, 65536, 1024, Binning::even),
                             segments(100000, 102400000)};
  for (const Problem& p : targets) {
    std::size_t valid = 0;
    for (const BatchedConfig& c : batched::space()) valid += batched::check(c, p, d).holds();
    EXPECT_GT(valid, 1000u) << p.describe();
    EXPECT_LT(valid, batched::space().size()) << p.describe();
  }
}

TEST(BatchedConfig, DefaultFitsShortAndLongRows) {
  const DeviceInfo d = h100_like();
  // Short rows: several rows a block, each row whole warps, one block per row group.
  const Problem short_rows = dense(SampleType::f32, 64, 65536, 1024, Binning::even);
  const BatchedConfig s = batched::default_for(short_rows, d);
  EXPECT_TRUE(batched::check(s, short_rows, d).holds()) << s.label();
  EXPECT_GT(s.rows_per_block, 1) << s.label();
  EXPECT_EQ(s.blocks_per_row, 1) << s.label();
  // Long rows, many of them: a block a row.
  const Problem long_rows = dense(SampleType::u8, 256, 4096, 65536);
  const BatchedConfig l = batched::default_for(long_rows, d);
  EXPECT_TRUE(batched::check(l, long_rows, d).holds()) << l.label();
  EXPECT_EQ(l.rows_per_block, 1) << l.label();
  EXPECT_EQ(l.blocks_per_row, 1) << l.label();
  EXPECT_EQ(l.layout, 1) << l.label();  // 256 bins x 32 lanes fit: lane-striped
  EXPECT_EQ(s.layout, 0) << s.label();  // several rows a block keep one word a bin
  // One long row: split over blocks to fill the GPU.
  const Problem one_row = dense(SampleType::u8, 256, 1, std::uint64_t{1} << 26);
  const BatchedConfig o = batched::default_for(one_row, d);
  EXPECT_TRUE(batched::check(o, one_row, d).holds()) << o.label();
  EXPECT_GE(o.blocks_per_row, 128) << o.label();
  // Bins beyond shared memory: atomics on the output.
  const Problem wide = dense(SampleType::u32, 1 << 20, 8, 1 << 20);
  const BatchedConfig w = batched::default_for(wide, d);
  EXPECT_TRUE(batched::check(w, wide, d).holds()) << w.label();
  EXPECT_EQ(w.private_copies, 0) << w.label();
  // Odd shapes: the default always holds.
  for (const Problem& p :
       {dense(SampleType::u8, 256, 1, 1), dense(SampleType::i16, 3, 7, 333),
        dense(SampleType::f16, 1000, 3, 100000, Binning::even), segments(1, 1), segments(3, 0),
        dense(SampleType::u8, 256, 0, 0), segments(100000, 102400000)})
    EXPECT_TRUE(batched::check(batched::default_for(p, d), p, d).holds()) << p.describe();
}

TEST(BatchedConfig, GeometryCoversEveryRowGroupAndPart) {
  const Problem p = dense(SampleType::u8, 256, 1000, 4096);
  BatchedConfig c;
  c.rows_per_block = 4;
  c.blocks_per_row = 2;
  const BatchedGeometry g = batched::geometry(c, p);
  EXPECT_EQ(g.grid, 250u * 2);
  EXPECT_EQ(g.block, 256u);
  EXPECT_EQ(g.hist_stride, 256u) << "u8 direct 256: every value a bin, no sink";
  EXPECT_EQ(g.smem_bytes, 4u * 256 * 4);
  const Problem sink = dense(SampleType::u16, 100, 10, 4096);
  EXPECT_EQ(batched::geometry(BatchedConfig{}, sink).hist_stride, 101u);
  const auto req = batched::request(SegmentedConfig{}, segments(4, 100), 90);
  EXPECT_NE(std::find(req.defines.begin(), req.defines.end(), "-DHT_SEGMENTED=1"),
            req.defines.end());
}

TEST(BatchedReference, RowsAreCountedOneByOneWithTheirStride) {
  // Two rows of 3 u8 samples, 5 apart; the samples between rows are never read.
  const std::uint8_t host[] = {0, 1, 1, 9, 9, 2, 2, 2, 9, 9};
  Problem p = dense(SampleType::u8, 3, 2, 3);
  p.row_stride = 5;
  EXPECT_EQ(reference_histogram(p, host), (std::vector<std::uint32_t>{1, 2, 0, 0, 0, 3}));
  p.row_stride = 0;  // packed: row 1 is {9, 9, 2}
  EXPECT_EQ(reference_histogram(p, host), (std::vector<std::uint32_t>{1, 2, 0, 0, 0, 1}));
  Problem e = dense(SampleType::u8, 2, 2, 3, Binning::even);  // [0, 2)
  EXPECT_EQ(reference_histogram(e, host), (std::vector<std::uint32_t>{1, 2, 0, 0}));
}

TEST(BatchedReference, SegmentsAreClampedAsTheKernelReadsThem) {
  const std::uint32_t host[] = {0, 1, 2, 3, 0, 0};
  Problem p = segmented_problem(SampleType::u32, Binning::direct, 4, 4, 6);
  // [0, 2), empty [2, 2), [2, 6), and an end before its begin: empty.
  const std::int64_t ok[] = {0, 2, 2, 6, 3};
  EXPECT_EQ(reference_histogram(p, host, nullptr, ok),
            (std::vector<std::uint32_t>{1, 1, 0, 0, 0, 0, 0, 0, 2, 0, 1, 1, 0, 0, 0, 0}));
  // Offsets below 0 and beyond n are clamped to [0, n].
  const std::int64_t wild[] = {-5, 1, 100, 100, 4};
  p.rows = 4;
  EXPECT_EQ(reference_histogram(p, host, nullptr, wild),
            (std::vector<std::uint32_t>{1, 0, 0, 0, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_THROW(reference_histogram(p, host), std::invalid_argument);
}
