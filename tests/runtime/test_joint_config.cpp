// The joint family without a GPU: labels, the space and its restrictions, the built-in default
// around the shared-memory boundary, the problem's key, its checks (dimensions, the bins'
// product, each dimension's bounds) and the argument checks made before any launch (null and
// misaligned arrays and edges), and the host reference against a direct count.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "fake_device.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/families.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem pairs(SampleType t, std::uint32_t bx, std::uint32_t by, std::uint64_t n = 1 << 20,
              double lower = 0, double upper = 1) {
  const std::uint32_t bins[] = {bx, by};
  return joint_problem(t, Binning::even, 2, bins, n, lower, upper);
}

// Device addresses that pass the alignment checks (never dereferenced here).
const void* kSamples = reinterpret_cast<const void*>(0x10000);
std::uint32_t* const kCounts = reinterpret_cast<std::uint32_t*>(0x20000);

}  // namespace

TEST(JointConfig, LabelsRoundTripForEveryPoint) {
  std::set<std::string> labels;
  for (const JointConfig& c : joint::space()) {
    const auto back = JointConfig::parse(c.label());
    ASSERT_TRUE(back) << c.label();
    EXPECT_EQ(*back, c);
    labels.insert(c.label());
  }
  EXPECT_EQ(joint::space().size(), 4u * 4 * 4 * 2 * 4 * 2);
  EXPECT_EQ(labels.size(), joint::space().size());
  EXPECT_EQ(JointConfig{}.label(), "j.tpb256.ipt8.pc1.cb32.bps2.tv0");
  // Labels stored before tuple_vectors existed read as tuple_vectors 0.
  EXPECT_EQ(JointConfig::parse("j.tpb256.ipt8.pc1.cb32.bps2"), JointConfig{});
  EXPECT_FALSE(JointConfig::parse("w.tpb256.ipt8.pc1.bps2"));
  const CompileRequest req = joint::request(JointConfig{}, pairs(SampleType::f32, 64, 64), 90);
  for (const char* def : {"-DHT_BLOCK_THREADS=256", "-DHT_ITEMS_PER_THREAD=8",
                          "-DHT_PRIVATE_COPIES=1", "-DHT_COUNTER_BITS=32", "-DHT_BLOCKS_PER_SM=2",
                          "-DHT_TUPLE_VECTORS=0", "-DHT_JOINT_DIMS=2", "-DHT_HIST_STRIDE=4097"})
    EXPECT_NE(std::find(req.defines.begin(), req.defines.end(), def), req.defines.end()) << def;
}

// The launch bounds' blocks compile as the least count with the same register cap: 128 threads x
// 2 blocks as 1 (255 registers either way), 256 x 2 as itself (128 registers).
TEST(JointConfig, LaunchBoundsThatCapNothingAskForOneProgram) {
  const Problem p = pairs(SampleType::f32, 64, 64);
  const auto with_bps = [&](int threads, int bps) {
    JointConfig c;
    c.block_threads = threads;
    c.blocks_per_sm = bps;
    return joint::request(c, p, 90).defines;
  };
  EXPECT_EQ(with_bps(128, 2), with_bps(128, 1));
  EXPECT_NE(with_bps(256, 2), with_bps(256, 1));
  EXPECT_NE(with_bps(128, 4), with_bps(128, 1));
}

TEST(JointConfig, UnitBinsAreCompiledInWhereEveryDimensionsBinIsOneValueWide) {
  // The define's value: 1 one value a bin, 2 and every value of the type in a bin, else 0.
  const auto unit = [](const Problem& p) {
    const auto defs = joint::request(JointConfig{}, p, 90).defines;
    int found = -1, how_many = 0;
    for (int v : {0, 1, 2})
      if (std::find(defs.begin(), defs.end(), "-DHT_JOINT_UNIT_BINS=" + std::to_string(v)) != defs.end()) {
        found = v;
        ++how_many;
      }
    EXPECT_EQ(how_many, 1) << p.describe();
    return found;
  };
  EXPECT_EQ(unit(pairs(SampleType::u8, 256, 256, 1 << 20, 0, 256)), 2);
  EXPECT_EQ(unit(pairs(SampleType::i8, 256, 256, 1 << 20, -128, 128)), 2);
  EXPECT_EQ(unit(pairs(SampleType::u8, 16, 16, 1 << 20, 10, 26)), 1);
  EXPECT_EQ(unit(pairs(SampleType::u16, 256, 256, 1 << 20, 0, 256)), 1);
  EXPECT_EQ(unit(pairs(SampleType::u8, 128, 256, 1 << 20, 0, 256)), 0);  // one dimension 2 wide
  EXPECT_EQ(unit(pairs(SampleType::u8, 10, 7, 1 << 20, 3, 250)), 0);
  EXPECT_EQ(unit(pairs(SampleType::f32, 64, 64)), 0);
}

TEST(JointConfig, KeyHoldsTheDimensionsAndTheProductAndDescribesTheSplit) {
  const Problem p = pairs(SampleType::u8, 256, 256, 1 << 26, 0, 256);
  EXPECT_EQ(p.num_bins, 65536u);
  EXPECT_EQ(p.total_samples(), 2u << 26);
  EXPECT_EQ(p.input_bytes(), 2u << 26);
  EXPECT_EQ(p.key().family, "joint");
  EXPECT_EQ(p.key().channels, 2u);
  EXPECT_EQ(p.describe(), "joint u8 even bins=65536 n=2^26 dims=2 (256x256)");
  // A key's bins split back into as many per dimension where the product is a power.
  Problem back = p;
  back.joint = JointBins{};
  split_joint_bins(back);
  EXPECT_EQ(back.joint.bins[0], 256u);
  EXPECT_EQ(back.joint.bins[1], 256u);
  const std::uint32_t odd[] = {3, 5, 7};
  Problem q = joint_problem(SampleType::f32, Binning::even, 3, odd, 10, 0, 1);
  split_joint_bins(q);
  EXPECT_EQ(q.joint.bins[0], 105u);
  EXPECT_EQ(q.joint.bins[1], 1u);
  EXPECT_EQ(validate(q), "");
}

TEST(JointConfig, BadProblemsAreRefusedBeforeAnythingLaunches) {
  Problem p = pairs(SampleType::f32, 64, 64);
  EXPECT_EQ(validate(p), "");
  p.channels = p.active_channels = 0;
  EXPECT_NE(validate(p).find("1 to 4 dimensions"), std::string::npos) << validate(p);
  p.channels = p.active_channels = 5;
  EXPECT_NE(validate(p).find("1 to 4 dimensions"), std::string::npos);
  // Products beyond 2^31 - 1, and beyond 2^32 (which 32 bits would wrap), are refused.
  const std::uint32_t big[] = {65536, 32768};
  EXPECT_NE(validate(joint_problem(SampleType::f32, Binning::even, 2, big, 10, 0, 1))
                .find("exceed 2^31 - 1"),
            std::string::npos);
  const std::uint32_t huge[] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  EXPECT_NE(validate(joint_problem(SampleType::f32, Binning::even, 4, huge, 10, 0, 1))
                .find("exceed 2^31 - 1"),
            std::string::npos);
  const std::uint32_t zero[] = {64, 0};
  EXPECT_NE(validate(joint_problem(SampleType::f32, Binning::even, 2, zero, 10, 0, 1))
                .find("dimension 1 has no bins"),
            std::string::npos);
  Problem stale = pairs(SampleType::f32, 64, 64);
  stale.joint.bins[1] = 32;
  EXPECT_NE(validate(stale).find("not the product"), std::string::npos);
  // Each dimension's bounds as a 1D problem's, named by their dimension.
  Problem bounds = pairs(SampleType::f32, 64, 64);
  bounds.joint.lower[1] = 2;
  EXPECT_NE(validate(bounds).find("dimension 1: even binning needs lower < upper"),
            std::string::npos)
      << validate(bounds);
  bounds.joint.lower[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(validate(bounds).find("dimension 1: even binning needs bounds that are numbers"),
            std::string::npos);
  Problem direct = pairs(SampleType::u8, 16, 16);
  direct.binning = Binning::direct;
  EXPECT_NE(validate(direct).find("not direct"), std::string::npos);
  EXPECT_NE(validate(pairs(SampleType::i64, 4, 4)).find("not i64"), std::string::npos);
  EXPECT_NE(validate(pairs(SampleType::f32, 4, 4, kMaxSamples + 1)).find("exceeds 2^32 - 1"),
            std::string::npos);
}

TEST(JointConfig, NullAndMisalignedArraysAndEdgesAreRefused) {
  Problem p = pairs(SampleType::f32, 8, 8);
  EXPECT_EQ(check_arguments(p, kSamples, kCounts), "");
  EXPECT_NE(check_arguments(p, nullptr, kCounts).find("d_samples is null"), std::string::npos);
  EXPECT_NE(check_arguments(p, reinterpret_cast<const void*>(0x10002), kCounts).find("not aligned"),
            std::string::npos);
  EXPECT_NE(check_arguments(p, kSamples, nullptr).find("d_counts is null"), std::string::npos);
  Problem separate = p;
  separate.joint.d_columns[0] = kSamples;
  EXPECT_NE(check_arguments(separate, kSamples, kCounts).find("d_columns[1] is null"),
            std::string::npos);
  separate.joint.d_columns[1] = reinterpret_cast<const void*>(0x30001);
  EXPECT_NE(check_arguments(separate, kSamples, kCounts).find("d_columns[1] = "), std::string::npos);
  Problem edges = p;
  edges.binning = Binning::range;
  edges.joint.d_levels[0] = reinterpret_cast<const void*>(0x40000);
  EXPECT_NE(check_arguments(edges, kSamples, kCounts).find("d_edges[1] is null"),
            std::string::npos);
  edges.joint.d_levels[1] = reinterpret_cast<const void*>(0x40002);
  EXPECT_NE(check_arguments(edges, kSamples, kCounts).find("d_edges[1] = "), std::string::npos);
  edges.joint.d_levels[1] = reinterpret_cast<const void*>(0x40100);
  EXPECT_EQ(check_arguments(edges, kSamples, kCounts), "");
  const Problem empty = pairs(SampleType::f32, 8, 8, 0);
  EXPECT_EQ(check_arguments(empty, nullptr, kCounts), "") << "no tuples read nothing";
}

TEST(JointConfig, PublicCallsRefuseBadInputWithoutTouchingTheOutput) {
  // Refused before the device is asked for: no GPU needed.
  std::uint32_t counts[16];
  std::fill(std::begin(counts), std::end(counts), 7u);
  const auto* x = static_cast<const float*>(kSamples);
  const auto* y = reinterpret_cast<const float*>(0x30000);
  Status s = histogram2d(x, y, 100, 4, 4, {1, 0}, {0, 1}, counts);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("dimension 0: even binning needs lower < upper"), std::string::npos)
      << s.message();
  s = histogram2d(x, static_cast<const float*>(nullptr), 100, 4, 4, {0, 1}, {0, 1}, counts);
  EXPECT_NE(s.message().find("d_columns[1] is null"), std::string::npos) << s.message();
  s = histogram2d(x, 100, 65536, 65536, {0, 1}, {0, 1}, counts);
  EXPECT_NE(s.message().find("exceed 2^31 - 1"), std::string::npos) << s.message();
  const std::uint32_t bins[] = {4, 4, 4, 4, 4};
  const JointBounds bounds[] = {{0, 1}, {0, 1}, {0, 1}, {0, 1}, {0, 1}};
  s = histogramdd(x, 100, 0, bins, bounds, counts);
  EXPECT_NE(s.message().find("1 to 4 dimensions"), std::string::npos) << s.message();
  s = histogramdd(x, 100, 5, bins, bounds, counts);
  EXPECT_NE(s.message().find("1 to 4 dimensions"), std::string::npos);
  s = histogramdd(static_cast<const float*>(nullptr), 100, 2, bins, bounds, counts);
  EXPECT_NE(s.message().find("d_samples is null"), std::string::npos) << s.message();
  s = histogramdd(x, 100, 2, bins, bounds, reinterpret_cast<std::uint32_t*>(0x20002));
  EXPECT_NE(s.message().find("d_counts"), std::string::npos) << s.message();
  const float* no_edges[] = {x, nullptr};
  s = histogramdd_edges(x, 100, 2, bins, no_edges, counts);
  EXPECT_NE(s.message().find("d_edges[1] is null"), std::string::npos) << s.message();
  const std::uint32_t nan_bins[] = {4, 4};
  const JointBounds nan_bounds[] = {{0, 1}, {0, std::nan("")}};
  s = histogramdd(x, 100, 2, nan_bins, nan_bounds, counts);
  EXPECT_NE(s.message().find("dimension 1"), std::string::npos) << s.message();
  for (std::uint32_t c : counts) EXPECT_EQ(c, 7u);
}

TEST(JointConfig, TheCCallRefusesBadCodesAndArgumentsWithoutTouchingTheOutput) {
  std::uint32_t counts[16];
  std::fill(std::begin(counts), std::end(counts), 7u);
  const std::uint32_t bins[] = {4, 4};
  const double lower[] = {0, 0}, upper[] = {1, 1};
  EXPECT_EQ(histtune_histogramdd(12, kSamples, nullptr, 100, 2, 1, bins, lower, upper, nullptr,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("unknown sample type code 12"),
            std::string::npos);
  EXPECT_EQ(histtune_histogramdd(4, kSamples, nullptr, 100, 2, 0, bins, lower, upper, nullptr,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("neither even (1) nor range (2)"),
            std::string::npos);
  EXPECT_EQ(histtune_histogramdd(4, kSamples, nullptr, 100, 2, 1, bins, nullptr, upper, nullptr,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_EQ(histtune_histogramdd(4, kSamples, nullptr, 100, 9, 1, bins, lower, upper, nullptr,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("1 to 4 dimensions"), std::string::npos);
  const double reversed[] = {1, 0};
  EXPECT_EQ(histtune_histogramdd(4, kSamples, nullptr, 100, 2, 1, bins, reversed, upper, nullptr,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("dimension 0"), std::string::npos);
  const void* no_edges[] = {kSamples, nullptr};
  EXPECT_EQ(histtune_histogramdd(4, kSamples, nullptr, 100, 2, 2, bins, nullptr, nullptr, no_edges,
                                 counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_edges[1] is null"), std::string::npos);
  for (std::uint32_t c : counts) EXPECT_EQ(c, 7u);
}

TEST(JointConfig, RestrictionsAndTheDefaultAroundTheSharedMemoryBoundary) {
  const DeviceInfo d = h100_like();
  const Problem small = pairs(SampleType::f32, 64, 64);
  JointConfig c;
  EXPECT_TRUE(joint::check(c, small, d).holds());
  c.private_copies = 0;
  EXPECT_FALSE(joint::check(c, small, d).holds()) << "atomics on the output below 16384 bins";
  c.private_copies = 16;
  EXPECT_FALSE(joint::check(c, small, d).holds()) << "not one of the values";
  c = JointConfig{};
  c.block_threads = 128;
  c.private_copies = 4;
  EXPECT_TRUE(joint::check(c, small, d).holds());
  c.block_threads = 64;
  EXPECT_FALSE(joint::check(c, small, d).holds());
  c = JointConfig{};
  c.private_copies = 0;
  c.counter_bits = 16;
  EXPECT_FALSE(joint::check(c, pairs(SampleType::u8, 256, 256), d).holds());
  // 16-byte loads take 8, 4 or 2 tuples of 2, 4 or 8 bytes; the default uses them there.
  c = JointConfig{};
  c.tuple_vectors = 1;
  EXPECT_TRUE(joint::check(c, small, d).holds());
  const std::uint32_t three[] = {8, 8, 8}, four[] = {8, 8, 8, 8};
  for (const Problem& p : {joint_problem(SampleType::f32, Binning::even, 3, three, 1 << 20, 0, 1),
                           joint_problem(SampleType::f32, Binning::even, 4, four, 1 << 20, 0, 1),
                           joint_problem(SampleType::f64, Binning::even, 2, three, 1 << 20, 0, 1)}) {
    EXPECT_FALSE(joint::check(c, p, d).holds()) << p.describe();
    EXPECT_EQ(joint::default_for(p, d).tuple_vectors, 0) << p.describe();
  }
  EXPECT_EQ(joint::default_for(pairs(SampleType::u8, 256, 256), d).tuple_vectors, 1);
  EXPECT_EQ(joint::default_for(small, d).tuple_vectors, 1);
  // The default on either side of the boundary of one 32-bit copy (the bins and a sink) and of
  // one 16-bit copy: bins just above it still run.
  const std::uint32_t words32 = static_cast<std::uint32_t>(d.smem_per_block_optin / 4);
  for (std::uint32_t total : {words32 - 2, words32 - 1, words32, 2 * words32 - 1, 2 * words32,
                              2 * words32 + 1, 4 * words32}) {
    const Problem p = pairs(SampleType::f32, total, 1);
    const JointConfig def = joint::default_for(p, d);
    EXPECT_EQ(joint::check(def, p, d).message(), "") << total << " bins: " << def.label();
    const std::size_t smem = joint::geometry(def, p, d).smem_bytes;
    EXPECT_LE(smem, d.smem_per_block_optin) << total << " bins: " << def.label();
    const int bits = total <= words32 - 1 ? 32 : total <= 2 * words32 ? 16 : 0;
    if (bits != 0) {
      EXPECT_EQ(def.counter_bits, bits) << total;
    } else {
      EXPECT_EQ(def.private_copies, 0) << total;
    }
  }
  for (const Problem& p : joint::plan_problems())
    EXPECT_EQ(joint::check(joint::default_for(p, d), p, d).message(), "") << p.describe();
}

TEST(JointReference, CountsEachTupleOnceWhereEveryDimensionHasABin) {
  // Pairs over [0, 4) x [0, 2) with 4 x 2 bins: out of range, NaN and infinity in either value
  // leave the pair uncounted; upper is in no bin (half-open, as the 1D even binning).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float xy[] = {0, 0, 3.5f, 1.5f, 1, 1, 1, 1, 4, 0, 0, 2, nan, 0, 0, inf, -0.5f, 0, 2, 0.5f};
  std::uint32_t bins[] = {4, 2};
  Problem p = joint_problem(SampleType::f32, Binning::even, 2, bins, 10, 0, 4);
  p.joint.upper[1] = 2;
  ASSERT_EQ(validate(p), "");
  const std::vector<std::uint32_t> h = reference_histogram(p, xy);
  const std::vector<std::uint32_t> expect = {1, 0, 0, 2, 1, 0, 0, 1};  // [x][y], row-major
  EXPECT_EQ(h, expect);
  // The separate form reads the same values from one array per dimension.
  const float x[] = {0, 3.5f, 1, 1, 4, 0, nan, 0, -0.5f, 2};
  const float y[] = {0, 1.5f, 1, 1, 0, 2, 0, inf, 0, 0.5f};
  const void* columns[] = {x, y};
  EXPECT_EQ(reference_joint(p, nullptr, columns), expect);
  // Edges: dimension 0 in [0, 1), [1, 3), [3, 4); dimension 1 in [0, 2).
  const float e0[] = {0, 1, 3, 4}, e1[] = {0, 2};
  const void* edges[] = {e0, e1};
  bins[0] = 3;
  bins[1] = 1;
  Problem r = joint_problem(SampleType::f32, Binning::range, 2, bins, 10);
  EXPECT_EQ(reference_joint(r, xy, nullptr, edges), (std::vector<std::uint32_t>{1, 3, 1}));
}
