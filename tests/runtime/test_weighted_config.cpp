// The weighted families without a GPU: labels, the space and its restrictions, the built-in
// default, the problem's key and checks, the argument checks made before any launch (null,
// misaligned weights, output alignment), the fixed-point scale, and the host reference of
// weighted sums in double.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/families.hpp"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem even256(WeightType w = WeightType::f32, bool det = false, std::uint64_t n = 1 << 20) {
  return weighted_problem(SampleType::f32, w, Binning::even, 256, n, det, 0, 100);
}

// Device addresses that pass the alignment checks (never dereferenced here).
const void* kSamples = reinterpret_cast<const void*>(0x10000);
std::uint32_t* const kBins = reinterpret_cast<std::uint32_t*>(0x20000);
const void* kWeights = reinterpret_cast<const void*>(0x40000);

}  // namespace

TEST(WeightedConfig, LabelsRoundTripForEveryPointAndNameTheirForm) {
  std::set<std::string> labels;
  for (const WeightedConfig& c : weighted::space()) {
    const auto back = WeightedConfig::parse(c.label());
    ASSERT_TRUE(back) << c.label();
    EXPECT_EQ(*back, c);
    const DeterministicConfig d{c};
    const auto det = DeterministicConfig::parse(d.label());
    ASSERT_TRUE(det) << d.label();
    EXPECT_EQ(*det, d);
    EXPECT_FALSE(WeightedConfig::parse(d.label())) << d.label();
    EXPECT_FALSE(DeterministicConfig::parse(c.label())) << c.label();
    labels.insert(c.label());
  }
  EXPECT_EQ(weighted::space().size(), 4u * 4 * 5 * 4);
  EXPECT_EQ(labels.size(), weighted::space().size());
  EXPECT_EQ(WeightedConfig{}.label(), "w.tpb256.ipt8.pc1.bps2");
  EXPECT_EQ(DeterministicConfig{}.label(), "wdet.tpb256.ipt8.pc1.bps2");
  EXPECT_EQ(WeightedConfig{}.to_json(),
            "{\"block_threads\": 256, \"items_per_thread\": 8, \"private_copies\": 1, "
            "\"blocks_per_sm\": 2}");
  // The NVRTC defines come from the same table.
  const CompileRequest req = weighted::request(WeightedConfig{}, even256(), 90);
  for (const char* def : {"-DHT_BLOCK_THREADS=256", "-DHT_ITEMS_PER_THREAD=8",
                          "-DHT_PRIVATE_COPIES=1", "-DHT_BLOCKS_PER_SM=2", "-DHT_WEIGHT_T=float",
                          "-DHT_ACC=0", "-DHT_HIST_STRIDE=257"})
    EXPECT_NE(std::find(req.defines.begin(), req.defines.end(), def), req.defines.end()) << def;
  const CompileRequest det = weighted::request(WeightedConfig{}, even256(WeightType::f64, true), 90);
  for (const char* def : {"-DHT_WEIGHT_T=double", "-DHT_ACC=3", "-DHT_OUT_DOUBLE=1"})
    EXPECT_NE(std::find(det.defines.begin(), det.defines.end(), def), det.defines.end()) << def;
}

TEST(WeightedConfig, RegisteredFamiliesKeyProblemsByTheirWeights) {
  const Problem p = even256();
  EXPECT_EQ(family_of(p).name(), std::string("weighted"));
  EXPECT_EQ(family_of(even256(WeightType::f32, true)).name(), std::string("weighted_det"));
  EXPECT_TRUE(family_of(p).has_weights());
  EXPECT_FALSE(family(Family::hist1d).has_weights());
  EXPECT_EQ(family_of(p).spec_prefix(), std::string("w"));
  EXPECT_EQ(family_of(even256(WeightType::f32, true)).spec_prefix(), std::string("wdet"));
  EXPECT_EQ(family_of(p).baseline(), Baseline::none);
  const db::ProblemRow key = p.key();
  EXPECT_EQ(key.family, "weighted");
  EXPECT_EQ(key.channels, 1u) << "f32 weights' code";
  EXPECT_EQ(even256(WeightType::i64).key().channels, 4u);
  EXPECT_EQ(key.active_channels, 0u);
  EXPECT_EQ(p.describe(), "weighted f32 even bins=256 n=2^20 weights=f32 [0, 100)");
  // The weights' type is part of the shape; their pointer and bound are arguments.
  Problem other = p;
  other.d_weights = kWeights;
  other.weight_bound = 3;
  EXPECT_EQ(shape_key(other), shape_key(p));
  EXPECT_NE(shape_key(even256(WeightType::f64)), shape_key(p));
  EXPECT_EQ(as_one_stream(p).weight_type, WeightType::none);
  EXPECT_EQ(bin_bytes(p), 4u);
  EXPECT_EQ(bin_bytes(even256(WeightType::f64)), 8u);
  EXPECT_EQ(bin_bytes(even256(WeightType::i32)), 8u);
  EXPECT_EQ(family_of(p).counters(p), 256u);
  EXPECT_EQ(family_of(even256(WeightType::f64)).counters(even256(WeightType::f64)), 512u)
      << "32-bit words of output";
  for (WeightType w : {WeightType::f32, WeightType::f64, WeightType::i32, WeightType::i64})
    EXPECT_EQ(parse_weight_type(to_string(w)), w);
  EXPECT_FALSE(parse_weight_type("none"));
}

TEST(WeightedConfig, BadProblemsAreRefusedBeforeAnythingLaunches) {
  EXPECT_EQ(validate(even256()), "");
  Problem none = even256();
  none.weight_type = WeightType::none;
  EXPECT_NE(validate(none).find("need a weight type"), std::string::npos);
  EXPECT_NE(validate(even256(WeightType::i32, true)).find("f32 or f64 weights"), std::string::npos);
  Problem weighted_1d = flat_problem(SampleType::u8, Binning::direct, 256, 100);
  weighted_1d.weight_type = WeightType::f32;
  EXPECT_NE(validate(weighted_1d).find("take no weights"), std::string::npos);
  Problem bad_bound = even256(WeightType::f32, true);
  bad_bound.weight_bound = -1;
  EXPECT_NE(validate(bad_bound).find("weight bound"), std::string::npos);
  bad_bound.weight_bound = std::numeric_limits<double>::infinity();
  EXPECT_NE(validate(bad_bound).find("weight bound"), std::string::npos);
  Problem floats_direct = even256();
  floats_direct.binning = Binning::direct;
  EXPECT_NE(validate(floats_direct), "") << "direct binning of floats";
}

TEST(WeightedConfig, NullAndMisalignedWeightsAreRefused) {
  Problem p = even256(WeightType::f64);
  EXPECT_NE(check_arguments(p, kSamples, kBins).find("d_weights is null with n = 1048576"),
            std::string::npos);
  p.d_weights = reinterpret_cast<const void*>(0x40004);
  EXPECT_NE(check_arguments(p, kSamples, kBins).find("not aligned to its 8-byte f64 weights"),
            std::string::npos);
  p.d_weights = kWeights;
  EXPECT_EQ(check_arguments(p, kSamples, kBins), "");
  EXPECT_NE(check_arguments(p, kSamples, reinterpret_cast<std::uint32_t*>(0x20004))
                .find("not aligned to its 8-byte bins"),
            std::string::npos);
  Problem empty = even256(WeightType::f32, false, 0);
  EXPECT_EQ(check_arguments(empty, nullptr, kBins), "") << "no samples read no weights";
}

TEST(WeightedConfig, PublicCallsRefuseBadInputWithoutTouchingTheOutput) {
  // Refused by the argument checks, before the device is asked for: no GPU needed.
  float bins[4] = {7, 7, 7, 7};
  double dbins[4] = {7, 7, 7, 7};
  const auto* samples = static_cast<const float*>(kSamples);
  const float* no_weights = nullptr;
  Status s = histogram_even(samples, no_weights, 100, 4, 0.0f, 1.0f, bins);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("d_weights is null"), std::string::npos);
  s = histogram_even(samples, reinterpret_cast<const float*>(0x40002), 100, 4, 0.0f, 1.0f, bins);
  EXPECT_NE(s.message().find("not aligned to its 4-byte f32 weights"), std::string::npos);
  s = histogram_even(samples, static_cast<const double*>(kWeights), 100, 4, 1.0f, 0.0f, dbins);
  EXPECT_NE(s.message().find("lower < upper"), std::string::npos);
  s = histogram_direct(reinterpret_cast<const std::uint8_t*>(0x10000),
                       static_cast<const std::int32_t*>(kWeights), 100, 0,
                       reinterpret_cast<std::int64_t*>(dbins),
                       nullptr, WeightedOptions{true, 0});
  EXPECT_NE(s.message().find("num_bins must be at least 1"), std::string::npos);
  s = histogram_direct(reinterpret_cast<const std::uint8_t*>(0x10000),
                       static_cast<const std::int32_t*>(kWeights), 100, 4,
                       reinterpret_cast<std::int64_t*>(dbins), nullptr, WeightedOptions{true, 0});
  EXPECT_NE(s.message().find("f32 or f64 weights"), std::string::npos);
  s = histogram_even(samples, static_cast<const float*>(kWeights), 100, 4, 0.0f, 1.0f, bins,
                     nullptr, WeightedOptions{true, -2});
  EXPECT_NE(s.message().find("weight bound"), std::string::npos);
  for (float b : bins) EXPECT_EQ(b, 7.0f);
  for (double b : dbins) EXPECT_EQ(b, 7.0);
}

TEST(WeightedConfig, RestrictionsSayNo) {
  const DeviceInfo d = h100_like();
  const Problem p = even256();
  WeightedConfig c;
  EXPECT_TRUE(weighted::check(c, p, d).holds());
  c.private_copies = 16;
  EXPECT_FALSE(weighted::check(c, p, d).holds()) << "not one of the values";
  c = {};
  c.block_threads = 128;
  c.private_copies = 8;
  EXPECT_NE(weighted::check(c, p, d).message().find("private_copies > warps"), std::string::npos);
  c = {};
  c.private_copies = 0;
  EXPECT_NE(weighted::check(c, p, d).message().find("atomics on the output"), std::string::npos);
  c = {};
  c.block_threads = 1024;
  c.blocks_per_sm = 4;
  EXPECT_FALSE(weighted::check(c, p, d).holds()) << "4 x 1024 threads per SM";
  // 2^16 double bins: one copy is 512 KiB, beyond shared memory; atomics on the output hold.
  const Problem wide = weighted_problem(SampleType::u32, WeightType::f64, Binning::direct, 65536,
                                        1 << 24);
  EXPECT_FALSE(weighted::check(WeightedConfig{}, wide, d).holds());
  const WeightedConfig fallback = weighted::default_for(wide, d);
  EXPECT_EQ(fallback.private_copies, 0);
  EXPECT_TRUE(weighted::check(fallback, wide, d).holds());
  Problem unweighted = flat_problem(SampleType::u8, Binning::direct, 256, 100);
  EXPECT_FALSE(weighted::check(WeightedConfig{}, unweighted, d).holds());
}

TEST(WeightedConfig, DefaultHoldsForEveryPlanProblemAndTheSpaceHasPoints) {
  const DeviceInfo d = h100_like();
  for (Family f : {Family::weighted, Family::weighted_det})
    for (const Problem& p : family(f).plan_problems()) {
      EXPECT_EQ(validate(p), "") << p.describe();
      EXPECT_TRUE(weighted::check(weighted::default_for(p, d), p, d).holds()) << p.describe();
      int valid = 0;
      for (const WeightedConfig& c : weighted::space()) valid += weighted::check(c, p, d).holds();
      EXPECT_GT(valid, 100) << p.describe();
    }
  const Problem p = even256();
  const WeightedGeometry g = weighted::geometry(WeightedConfig{}, p, d);
  EXPECT_EQ(g.grid.x, 132u * 2);
  EXPECT_EQ(g.grid.y, 1u) << "one row";
  EXPECT_EQ(g.smem_bytes, 257u * 4);
  const Problem tiny = even256(WeightType::f64, false, 1000);
  EXPECT_EQ(weighted::geometry(WeightedConfig{}, tiny, d).grid.x, 1u) << "no more blocks than tiles";
  EXPECT_EQ(weighted::geometry(WeightedConfig{}, even256(WeightType::f32, true), d).smem_bytes,
            257u * 8) << "fixed point: 8-byte accumulators";
}

TEST(WeightedConfig, FixedPointScaleKeepsEverySumBelow2To62) {
  // s = 62 - e - ceil(log2 n) with bound < 2^e.
  EXPECT_EQ(weighted::fixed_shift(1.0, 1 << 26), 62 - 1 - 26);
  EXPECT_EQ(weighted::fixed_shift(0.75, 1 << 26), 62 - 0 - 26);
  EXPECT_EQ(weighted::fixed_shift(4.0, (1 << 26) + 1), 62 - 3 - 27);
  EXPECT_EQ(weighted::fixed_shift(0.0, 1), 62);
  for (double bound : {1e-30, 0.3, 1.0, 3.9, 1e10, 1e300})
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 32}) {
      const int s = weighted::fixed_shift(bound, n);
      // n weights of |w| <= bound, each rounded up by at most one unit: below 2^62 + n.
      EXPECT_LE(std::log2(static_cast<double>(n)) + std::log2(bound) + s, 62.0)
          << bound << " " << n;
      EXPECT_GT(std::log2(static_cast<double>(n)) + std::log2(bound) + s, 60.0 - 1e-9)
          << "no more than two bits given away: " << bound << " " << n;
    }
}

TEST(WeightedReference, SumsEachBinsWeightsInDouble) {
  const float samples[] = {0.5f, 1.5f, 1.7f, 3.0f, -1.0f, 2.2f, NAN};
  const float weights[] = {1.0f, 0.25f, 0.5f, -2.0f, 100.0f, 3.0f, 5.0f};
  Problem p = weighted_problem(SampleType::f32, WeightType::f32, Binning::even, 4, 7, false, 0, 4);
  const std::vector<double> sums = reference_weighted(p, samples, weights);
  EXPECT_EQ(sums, (std::vector<double>{1.0, 0.75, 3.0, -2.0}));
  const std::vector<std::uint32_t> words = weighted_words(p, sums);
  ASSERT_EQ(words.size(), 4u);
  float f;
  std::memcpy(&f, &words[1], 4);
  EXPECT_EQ(f, 0.75f);
  // A NaN weight makes its bin NaN; a NaN weight of a sample in no bin changes nothing.
  const float nan_weights[] = {NAN, 0.25f, 0.5f, -2.0f, NAN, 3.0f, 5.0f};
  const std::vector<double> nan_sums = reference_weighted(p, samples, nan_weights);
  EXPECT_TRUE(std::isnan(nan_sums[0]));
  EXPECT_EQ(nan_sums[1], 0.75);
  // Integer weights into int64 bins: two words each.
  const std::uint8_t bytes[] = {0, 1, 1, 3, 200};
  const std::int64_t iw[] = {-5, std::int64_t{1} << 40, 1, 7, 9};
  Problem q = weighted_problem(SampleType::u8, WeightType::i64, Binning::direct, 4, 5);
  const std::vector<double> isums = reference_weighted(q, bytes, iw);
  EXPECT_EQ(isums, (std::vector<double>{-5.0, std::ldexp(1.0, 40) + 1, 0.0, 7.0}));
  const std::vector<std::uint32_t> iwords = weighted_words(q, isums);
  ASSERT_EQ(iwords.size(), 8u);
  std::int64_t first;
  std::memcpy(&first, &iwords[0], 8);
  EXPECT_EQ(first, -5);
}
