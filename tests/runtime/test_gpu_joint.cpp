// On the GPU: the joint family against the host reference (reference_joint), bit for bit. Every
// dimension count and sample type it takes, odd sizes, values out of range, NaN and infinite,
// the three ways of counting (32-bit and 16-bit private copies, atomics on the output) in several
// configurations, bins just above each shared-memory boundary, 16-bit counters that wrap many
// times on hot bins, misaligned interleaved tuples, 16-byte loads of 2, 4 or 8 tuples from every
// tuple-aligned start, and the public calls (interleaved, separate,
// edges) with their refusals leaving the output untouched. Skipped without a GPU; run with
// --gtest_filter='GpuJoint*'.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/families.hpp"
#include "histtune/half.hpp"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"

using namespace histtune;
using histtune::test::DeviceBytes;
using histtune::test::GuardedCounts;

namespace {

struct Case {
  const char* name;
  SampleType type;
  Binning binning;
  std::uint32_t dims;
  std::uint32_t bins[kMaxJointDims];
  double lower, upper;  // every dimension's even bounds; edges span them too
};

const Case kCases[] = {
    {"f32_64x64", SampleType::f32, Binning::even, 2, {64, 64}, 0, 1},
    {"u8_256x256", SampleType::u8, Binning::even, 2, {256, 256}, 0, 256},
    {"u8_10x7", SampleType::u8, Binning::even, 2, {10, 7}, 3, 250},
    {"u16_100x37", SampleType::u16, Binning::even, 2, {100, 37}, 0, 65535},
    {"i32_16x16x16", SampleType::i32, Binning::even, 3, {16, 16, 16}, -1000, 1000},
    {"f32_32x32x32", SampleType::f32, Binning::even, 3, {32, 32, 32}, -1, 1},
    {"f32_8x8x8x8", SampleType::f32, Binning::even, 4, {8, 8, 8, 8}, 0, 1},
    {"f32_1000", SampleType::f32, Binning::even, 1, {1000}, 0, 1},
    {"f64_64x48", SampleType::f64, Binning::even, 2, {64, 48}, -2, 2},
    {"f16_32x32", SampleType::f16, Binning::even, 2, {32, 32}, -1, 1},
    {"i8_256x3", SampleType::i8, Binning::even, 2, {256, 3}, -128, 128},
    {"u8_edges_100x5", SampleType::u8, Binning::range, 2, {100, 5}, 0, 256},
    {"f32_edges_20x30x2", SampleType::f32, Binning::range, 3, {20, 30, 2}, 0, 1},
    {"f64_edges_300", SampleType::f64, Binning::range, 1, {300}, -1, 1},
    {"i8_256x256_unit", SampleType::i8, Binning::even, 2, {256, 256}, -128, 128},  // bin = offset
    {"u16_16x16_unit", SampleType::u16, Binning::even, 2, {16, 16}, 100, 116},
};
const std::uint64_t kSizes[] = {1, 4097, (std::uint64_t{1} << 20) + 3};

// Host values of type t as bytes; f16 as its bits (half.hpp).
void put(SampleType t, double v, std::uint8_t* at) {
  switch (t) {
    case SampleType::u8: *at = static_cast<std::uint8_t>(v); return;
    case SampleType::i8: { const auto x = static_cast<std::int8_t>(v); std::memcpy(at, &x, 1); return; }
    case SampleType::u16: { const auto x = static_cast<std::uint16_t>(v); std::memcpy(at, &x, 2); return; }
    case SampleType::i32: { const auto x = static_cast<std::int32_t>(v); std::memcpy(at, &x, 4); return; }
    case SampleType::f32: { const auto x = static_cast<float>(v); std::memcpy(at, &x, 4); return; }
    case SampleType::f64: std::memcpy(at, &v, 8); return;
    case SampleType::f16: {
      const std::uint16_t x = float_to_f16(static_cast<float>(v));
      std::memcpy(at, &x, 2);
      return;
    }
    default: FAIL() << "no test values for " << to_string(t);
  }
}

// n tuples of p, interleaved: uniform over a span 10% wider than [lower, upper) (clamped to the
// type), with a NaN and an infinity every 997 values for the floats.
std::vector<std::uint8_t> tuples_of(const Problem& p, double lower, double upper, std::uint64_t seed) {
  const std::size_t sb = sample_bytes(p.sample_type);
  std::vector<std::uint8_t> out(p.n * p.channels * sb);
  std::mt19937_64 rng(seed);
  const double pad = (upper - lower) * 0.05;
  double lo = lower - pad, hi = upper + pad;
  if (!is_float(p.sample_type)) {
    const double span = std::ldexp(1.0, 8 * static_cast<int>(sb));
    const bool is_signed = p.sample_type == SampleType::i8 || p.sample_type == SampleType::i32;
    lo = std::max(lo, is_signed ? -span / 2 : 0.0);
    hi = std::min(hi, is_signed ? span / 2 - 1 : span - 1);
  }
  std::uniform_real_distribution<double> u(lo, hi);
  for (std::uint64_t i = 0; i < p.n * p.channels; ++i) {
    double v = is_float(p.sample_type) ? u(rng) : std::floor(u(rng));
    if (is_float(p.sample_type) && i % 997 == 5) v = NAN;
    if (is_float(p.sample_type) && i % 997 == 11) v = INFINITY;
    put(p.sample_type, v, out.data() + i * sb);
  }
  return out;
}

// bins + 1 strictly ascending edges over [lower, upper] of the sample type, as bytes.
std::vector<std::uint8_t> edges_of(SampleType t, std::uint32_t bins, double lower, double upper) {
  const std::size_t sb = sample_bytes(t);
  std::vector<std::uint8_t> out((bins + 1) * sb);
  for (std::uint32_t i = 0; i <= bins; ++i) {
    const double f = std::pow(static_cast<double>(i) / bins, 1.3);
    // Integers: a non-decreasing floor plus i, strictly ascending up to upper - 1.
    const double v = is_float(t) ? lower + (upper - lower) * f
                                 : lower + std::floor((upper - 1 - lower - bins) * f) + i;
    put(t, v, out.data() + i * sb);
  }
  return out;
}

struct Inputs {
  Problem p;
  std::vector<std::uint8_t> tuples;
  std::vector<std::vector<std::uint8_t>> edges;
  std::unique_ptr<DeviceBytes> d_tuples;
  std::vector<std::unique_ptr<DeviceBytes>> d_edges;
  std::vector<const void*> host_edges;
};

std::unique_ptr<DeviceBytes> upload(const std::vector<std::uint8_t>& host, std::size_t offset = 0) {
  auto d = std::make_unique<DeviceBytes>(host.size() + offset);
  if (!host.empty())
    HT_CUDA(cudaMemcpy(static_cast<char*>(d->ptr) + offset, host.data(), host.size(),
                       cudaMemcpyHostToDevice));
  return d;
}

Inputs inputs_of(const Case& k, std::uint64_t n, std::uint64_t seed = 3) {
  Inputs in;
  in.p = joint_problem(k.type, k.binning, k.dims, k.bins, n, k.lower, k.upper);
  in.tuples = tuples_of(in.p, k.lower, k.upper, seed);
  in.d_tuples = upload(in.tuples);
  for (std::uint32_t d = 0; k.binning == Binning::range && d < k.dims; ++d) {
    in.edges.push_back(edges_of(k.type, k.bins[d], k.lower, k.upper));
    in.d_edges.push_back(upload(in.edges.back()));
    in.p.joint.d_levels[d] = in.d_edges.back()->ptr;
  }
  for (const auto& e : in.edges) in.host_edges.push_back(e.data());
  return in;
}

std::vector<std::uint32_t> expected(const Inputs& in) {
  return reference_joint(in.p, in.tuples.data(), nullptr,
                         in.host_edges.empty() ? nullptr : in.host_edges.data());
}

// Runs configuration c (prepared as the runtime prepares it) on d_samples into guarded counts.
std::vector<std::uint32_t> run_config(KernelCache& cache, const DeviceInfo& d, const Problem& p,
                                      const ParamValues& c, const void* d_samples) {
  const KernelFamily& f = family_of(p);
  const auto launch =
      f.prepare(cache, cache.get(f.request(c, p, d.arch()), f.kernel_name()), c, p, d);
  GuardedCounts counts(p.num_bins);
  (*launch)(p, d_samples, counts.get(), nullptr);
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  std::vector<std::uint32_t> h = counts.read(guards_ok);
  EXPECT_TRUE(guards_ok) << p.describe() << " " << f.label(c) << ": written past the bins";
  return h;
}

// The default and the configurations below that hold for p (every way of counting that fits).
std::vector<ParamValues> configs_of(const Problem& p, const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  std::vector<ParamValues> out = {f.fallback(p, d)};
  for (const char* label : {"j.tpb128.ipt2.pc2.cb32.bps4", "j.tpb512.ipt16.pc4.cb16.bps1",
                            "j.tpb1024.ipt4.pc1.cb16.bps1", "j.tpb256.ipt8.pc0.cb32.bps2",
                            "j.tpb1024.ipt4.pc0.cb32.bps2", "j.tpb512.ipt4.pc1.cb16.bps1.tv1",
                            "j.tpb128.ipt2.pc2.cb32.bps4.tv1", "j.tpb1024.ipt4.pc0.cb32.bps1.tv1"}) {
    const auto v = f.parse(label);
    if (v && f.check(*v, p, d).holds() && *v != out.front()) out.push_back(*v);
  }
  return out;
}

}  // namespace

TEST(GpuJoint, EveryCaseSizeAndConfigurationMatchesTheReference) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : kCases)
    for (std::uint64_t n : kSizes) {
      const Inputs in = inputs_of(k, n);
      ASSERT_EQ(validate(in.p), "") << k.name;
      const std::vector<std::uint32_t> ref = expected(in);
      for (const ParamValues& c : configs_of(in.p, d))
        ASSERT_EQ(run_config(cache, d, in.p, c, in.d_tuples->ptr), ref)
            << k.name << " n=" << n << " " << family_of(in.p).label(c);
    }
}

TEST(GpuJoint, BinsJustAboveEachSharedMemoryBoundaryRun) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  const std::uint32_t words = static_cast<std::uint32_t>(d.smem_per_block_optin / 4);
  // The last 32-bit copy that fits (its bins and sink), one bin more (16-bit counters), the
  // last 16-bit one and one bin more (atomics on the output).
  for (std::uint32_t total : {words - 1, words, 2 * words, 2 * words + 1}) {
    const Case k{"f32_boundary", SampleType::f32, Binning::even, 2, {total, 1}, 0, 1};
    const Inputs in = inputs_of(k, (std::uint64_t{1} << 20) + 3);
    const ParamValues def = family_of(in.p).fallback(in.p, d);
    EXPECT_EQ(run_config(cache, d, in.p, def, in.d_tuples->ptr), expected(in))
        << total << " bins " << family_of(in.p).label(def);
  }
}

TEST(GpuJoint, SixteenBitCountersWrapExactlyOnHotBins) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  // u8 pairs into 256 x 256 bins, all in bins 0 and 1 (the two halves of one counter word) or
  // all in bin 0: each half wraps dozens of times in one block.
  const Case k{"u8_256x256_hot", SampleType::u8, Binning::even, 2, {256, 256}, 0, 256};
  for (const int pattern : {0, 1, 2}) {
    Inputs in = inputs_of(k, (std::uint64_t{1} << 22) + 5);
    for (std::uint64_t i = 0; i < in.p.n; ++i) {
      in.tuples[2 * i] = 0;
      in.tuples[2 * i + 1] = pattern == 0 ? 0 : pattern == 1 ? i % 2 : (i % 3 == 0 ? 255 : 1);
    }
    in.d_tuples = upload(in.tuples);
    const std::vector<std::uint32_t> ref = expected(in);
    for (const char* label : {"j.tpb1024.ipt4.pc1.cb16.bps1", "j.tpb256.ipt16.pc1.cb16.bps1",
                              "j.tpb1024.ipt4.pc1.cb16.bps1.tv1"}) {
      const auto c = family_of(in.p).parse(label);
      ASSERT_TRUE(c && family_of(in.p).check(*c, in.p, d).holds()) << label;
      EXPECT_EQ(run_config(cache, d, in.p, *c, in.d_tuples->ptr), ref) << label << " pattern " << pattern;
    }
  }
}

TEST(GpuJoint, MisalignedInterleavedTuplesLoadValueByValue) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : {kCases[0], kCases[2]}) {
    const Inputs in = inputs_of(k, 4097);
    const std::size_t sb = sample_bytes(k.type);
    const auto shifted = upload(in.tuples, sb);  // one value in: aligned to the values only
    const void* at = static_cast<const char*>(shifted->ptr) + sb;
    for (const ParamValues& c : configs_of(in.p, d))
      EXPECT_EQ(run_config(cache, d, in.p, c, at), expected(in)) << k.name;
  }
}

TEST(GpuJoint, VectorLoadsCountFromEveryTupleAlignedStart) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  // u8 pairs (8 a vector), u16 pairs (4), f32 pairs (2): starts 0 .. 7 tuples past a 16-byte
  // boundary, sizes below one vector, around one tile and odd, so the head, the vectors and the
  // tail each get tuples or none.
  for (const Case& k : {kCases[1], kCases[3], kCases[0]}) {
    const std::size_t tuple = sample_bytes(k.type) * k.dims;
    for (const std::uint64_t n : {std::uint64_t{3}, std::uint64_t{4099}, (std::uint64_t{1} << 18) + 7}) {
      const Inputs in = inputs_of(k, n, n);
      const std::vector<std::uint32_t> ref = expected(in);
      for (std::size_t start = 0; start < 16 / tuple; ++start) {
        const auto shifted = upload(in.tuples, start * tuple);
        const void* at = static_cast<const char*>(shifted->ptr) + start * tuple;
        for (const char* label : {"j.tpb256.ipt4.pc1.cb32.bps2.tv1", "j.tpb1024.ipt4.pc1.cb16.bps1.tv1"}) {
          const auto c = family_of(in.p).parse(label);
          if (!c || !family_of(in.p).check(*c, in.p, d).holds()) continue;
          EXPECT_EQ(run_config(cache, d, in.p, *c, at), ref)
              << k.name << " n=" << n << " start " << start << " " << label;
        }
      }
    }
  }
}

TEST(GpuJoint, PublicCallsMatchTheReferenceAndRefusalsLeaveTheOutputUntouched) {
  HT_REQUIRE_GPU();
  const Case& k = kCases[0];  // f32 pairs, 64 x 64 over [0, 1)
  const std::uint64_t n = 100003;
  const Inputs in = inputs_of(k, n);
  const std::vector<std::uint32_t> ref = expected(in);
  std::vector<float> host(n * 2), x(n), y(n);
  std::memcpy(host.data(), in.tuples.data(), in.tuples.size());
  for (std::uint64_t i = 0; i < n; ++i) {
    x[i] = host[2 * i];
    y[i] = host[2 * i + 1];
  }
  const auto d_x = upload(std::vector<std::uint8_t>(reinterpret_cast<std::uint8_t*>(x.data()),
                                                    reinterpret_cast<std::uint8_t*>(x.data() + n)));
  const auto d_y = upload(std::vector<std::uint8_t>(reinterpret_cast<std::uint8_t*>(y.data()),
                                                    reinterpret_cast<std::uint8_t*>(y.data() + n)));
  const auto* pairs = static_cast<const float*>(in.d_tuples->ptr);
  const auto* dx = static_cast<const float*>(d_x->ptr);
  const auto* dy = static_cast<const float*>(d_y->ptr);
  const std::uint32_t bins[] = {64, 64};
  const JointBounds bounds[] = {{0, 1}, {0, 1}};
  const float* columns[] = {dx, dy};
  auto check = [&](const char* what, auto call) {
    GuardedCounts counts(4096);
    const Status s = call(counts.get());
    ASSERT_TRUE(s.ok()) << what << ": " << s.message();
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), ref) << what;
    EXPECT_TRUE(guards_ok) << what;
  };
  check("histogram2d x, y", [&](std::uint32_t* o) { return histogram2d(dx, dy, n, 64, 64, {0, 1}, {0, 1}, o); });
  check("histogram2d pairs", [&](std::uint32_t* o) { return histogram2d(pairs, n, 64, 64, {0, 1}, {0, 1}, o); });
  check("histogramdd", [&](std::uint32_t* o) { return histogramdd(pairs, n, 2, bins, bounds, o); });
  check("histogramdd columns", [&](std::uint32_t* o) { return histogramdd(columns, n, 2, bins, bounds, o); });
  EXPECT_EQ(last_joint_choice().family, &family(Family::joint));
  // Refused: the output keeps its guard words.
  GuardedCounts counts(4096);
  const JointBounds reversed[] = {{1, 0}, {0, 1}};
  EXPECT_FALSE(histogramdd(pairs, n, 2, bins, reversed, counts.get()).ok());
  EXPECT_FALSE(histogram2d(pairs, n, 65536, 65536, {0, 1}, {0, 1}, counts.get()).ok());
  EXPECT_FALSE(histogramdd(pairs, n, 0, bins, bounds, counts.get()).ok());
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  for (std::uint32_t c : counts.read(guards_ok)) ASSERT_EQ(c, 0xFFFFFFFFu);
}

TEST(GpuJoint, EdgesInTheInterleavedAndSeparateFormsMatchTheReference) {
  HT_REQUIRE_GPU();
  const Case& k = kCases[12];  // f32 triples, 20 x 30 x 2 edges
  const std::uint64_t n = 65539;
  const Inputs in = inputs_of(k, n);
  const std::vector<std::uint32_t> ref = expected(in);
  std::vector<std::vector<std::uint8_t>> cols(3, std::vector<std::uint8_t>(n * 4));
  for (std::uint64_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) std::memcpy(cols[d].data() + 4 * i, in.tuples.data() + 4 * (3 * i + d), 4);
  std::vector<std::unique_ptr<DeviceBytes>> d_cols;
  for (const auto& c : cols) d_cols.push_back(upload(c));
  const float* columns[] = {static_cast<const float*>(d_cols[0]->ptr),
                            static_cast<const float*>(d_cols[1]->ptr),
                            static_cast<const float*>(d_cols[2]->ptr)};
  const float* edges[] = {static_cast<const float*>(in.d_edges[0]->ptr),
                          static_cast<const float*>(in.d_edges[1]->ptr),
                          static_cast<const float*>(in.d_edges[2]->ptr)};
  for (const bool separate : {false, true}) {
    GuardedCounts counts(in.p.num_bins);
    const Status s =
        separate ? histogramdd_edges(columns, n, 3, k.bins, edges, counts.get())
                 : histogramdd_edges(static_cast<const float*>(in.d_tuples->ptr), n, 3, k.bins,
                                     edges, counts.get());
    ASSERT_TRUE(s.ok()) << s.message();
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), ref) << (separate ? "separate" : "interleaved");
    EXPECT_TRUE(guards_ok);
  }
}
