// NVRTC compiles the family's configurations for sm_80 and sm_90 without a GPU. The space, after
// the restrictions for an H100 (sm_90) or an A100 (sm_80) with 256 bins, has about 9,000-23,000
// distinct kernels per (sample type, binning); at ~0.1-0.2 s a compile CI compiles a
// pairwise-covering sample of them (tests/pairwise.hpp: every two values of two compile-time
// parameters that some valid kernel combines, 25-44 kernels a case), where every-n-th sampling
// (every 59th to 929th) took up to 335 compiles a case and reached every value but not every
// pair. The GPU tests compile and run every 13th (HT_GPU_STRIDE=1: all).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/status.hpp"
#include "histtune/two_phase.hpp"
#include "pairwise.hpp"

using namespace histtune;

namespace {

struct Case {
  SampleType type;
  Binning binning;
  int arch;
  std::uint32_t bins = 256;
  double upper = 0;  // even binning over [0, upper); 0: [0, bins), which even_narrow() takes
};

std::string name_of(const Case& c) {
  return std::string(to_string(c.type)) + "_" + to_string(c.binning) + "_" +
         std::to_string(c.bins) + "bins" + (c.upper != 0 ? "_wide" : "") + "_sm" +
         std::to_string(c.arch);
}

DeviceInfo device_for(int arch) {
  DeviceInfo d;
  d.cc_major = arch / 10;
  d.sm_count = arch == 90 ? 132 : 108;
  d.smem_per_block_optin = arch == 90 ? 227 * 1024 : 163 * 1024;
  d.smem_per_sm = arch == 90 ? 228 * 1024 : 164 * 1024;
  d.max_threads_per_sm = 2048;
  return d;
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(c); }

// Distinct compile-time variants of the valid space, in enumeration order.
std::vector<Hist1DConfig> compile_variants(const Problem& p, int arch) {
  std::map<std::string, Hist1DConfig> seen;
  std::vector<Hist1DConfig> out;
  const DeviceInfo d = device_for(arch);
  params::for_each(hist1d::params(), [&](const Hist1DConfig& c) {
    if (hist1d::check(c, p, d).holds()) {
      std::string key;
      for (const auto& def : c.defines()) key += def;
      if (seen.emplace(key, c).second) out.push_back(c);
    }
    return true;
  });
  return out;
}

// A toy family of three compile-time parameters (2, 3 and 2 values) and one launch argument.
struct Toy {
  int a = 0, b = 0, c = 0, launch = 0;
};
const std::vector<Param<Toy>>& toy_params() {
  static const std::vector<Param<Toy>> t = {param<&Toy::a>("a", "a", {0, 1}, true),
                                           param<&Toy::b>("b", "b", {0, 1, 2}, true),
                                           param<&Toy::c>("c", "c", {0, 1}, true),
                                           param<&Toy::launch>("launch", "l", {0, 1}, false)};
  return t;
}

class CompileSpace : public ::testing::TestWithParam<Case> {};

TEST_P(CompileSpace, EveryVariantCompilesToACubin) {
  const Case k = GetParam();
  Problem p;
  p.sample_type = k.type;
  p.binning = k.binning;
  p.num_bins = k.bins;
  p.lower = 0;
  p.upper = k.upper != 0 ? k.upper : k.bins;
  const auto variants = compile_variants(p, k.arch);
  ASSERT_GT(variants.size(), k.bins > 256 ? 50u : 500u);
  ASSERT_LT(variants.size(), 24000u) << "the space grew: update the note above";
  int compiled = 0;
  for (std::size_t i : test::pairwise_cover(hist1d::params(), variants)) {
    const auto& c = variants[i];
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(hist1d_request(c, p, k.arch))) << c.label();
    EXPECT_GT(out.cubin.size(), 1000u) << c.label();
    // A CUBIN is an ELF image.
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << c.label();
    ++compiled;
  }
  EXPECT_GE(compiled, 15);
}

// The cover holds every pair of compile-time values that some configuration combines, and no
// pair that none does; the launch argument is no part of it.
TEST(PairwiseCover, EveryOccurringPairOfCompileTimeValuesIsCovered) {
  std::vector<Toy> all;
  params::for_each(toy_params(), [&](const Toy& t) {
    if (!(t.a == 1 && t.b == 2)) all.push_back(t);  // a pair that never occurs
    return true;
  });
  const auto cover = test::pairwise_cover(toy_params(), all);
  std::set<std::string> want, got;
  auto pairs = [](const Toy& t) {
    return std::vector<std::string>{"a" + std::to_string(t.a) + "b" + std::to_string(t.b),
                                    "a" + std::to_string(t.a) + "c" + std::to_string(t.c),
                                    "b" + std::to_string(t.b) + "c" + std::to_string(t.c)};
  };
  for (const Toy& t : all)
    for (const auto& s : pairs(t)) want.insert(s);
  for (std::size_t i : cover)
    for (const auto& s : pairs(all[i])) got.insert(s);
  EXPECT_EQ(got, want);
  EXPECT_EQ(want.count("a1b2"), 0u);
  // a x b has 5 occurring pairs, each configuration covers one: at least 5, and greedy needs
  // no more than the 6 of b x (a, c)'s combinations here.
  EXPECT_GE(cover.size(), 5u);
  EXPECT_LE(cover.size(), 6u);
  // The launch argument splits no kernel: no two chosen differ only in it.
  std::set<std::string> kernels;
  for (std::size_t i : cover) {
    const Toy& t = all[i];
    EXPECT_TRUE(kernels.insert(std::to_string(t.a) + std::to_string(t.b) + std::to_string(t.c)).second);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hist1D, CompileSpace,
    ::testing::Values(Case{SampleType::u8, Binning::direct, 90},
                      Case{SampleType::u8, Binning::direct, 80},
                      Case{SampleType::u8, Binning::even, 90},
                      Case{SampleType::u16, Binning::direct, 80},
                      Case{SampleType::u16, Binning::even, 90},
                      Case{SampleType::u32, Binning::direct, 90},
                      Case{SampleType::u32, Binning::even, 80},
                      Case{SampleType::i32, Binning::direct, 80},
                      Case{SampleType::i32, Binning::even, 90},
                      // Integer even binning in 64 bits (the cases above are 32-bit: HT_EVEN_NARROW).
                      Case{SampleType::u8, Binning::even, 90, 64, 4294967296.0},
                      Case{SampleType::f32, Binning::even, 90},
                      Case{SampleType::f32, Binning::even, 80},
                      // Past shared memory: global (storage 2), cluster (3), packed (4) and
                      // partitioned (5) kernels.
                      Case{SampleType::u32, Binning::direct, 90, 65536},
                      Case{SampleType::f32, Binning::even, 90, 1u << 20}),
    [](const auto& info) { return name_of(info.param); });

// Range binning: a few variants per way of reading the levels (u8 table, levels staged in
// shared memory, global search; the last also with global and cluster storage), evenly spread over
// the valid space. Few on purpose: the other binnings' cases above cover the space itself.
struct RangeCase {
  SampleType type;
  std::uint32_t bins;
  int arch;
  int mode;  // the HT_RANGE_MODE these bins give
};

class RangeCompile : public ::testing::TestWithParam<RangeCase> {};

TEST_P(RangeCompile, SampledVariantsCompileToACubin) {
  const RangeCase k = GetParam();
  Problem p;
  p.sample_type = k.type;
  p.binning = Binning::range;
  p.num_bins = k.bins;
  ASSERT_EQ(range_mode(p), k.mode);
  const auto variants = compile_variants(p, k.arch);
  ASSERT_GT(variants.size(), 20u);
  constexpr std::size_t kCompiles = 5;
  for (std::size_t j = 0; j < kCompiles; ++j) {
    const auto& c = variants[j * (variants.size() - 1) / (kCompiles - 1)];
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(hist1d_request(c, p, k.arch))) << c.label();
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << c.label();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hist1D, RangeCompile,
    ::testing::Values(RangeCase{SampleType::u8, 200, 90, 2}, RangeCase{SampleType::u16, 1000, 80, 1},
                      RangeCase{SampleType::i32, 64, 90, 1}, RangeCase{SampleType::u32, 5000, 90, 0},
                      RangeCase{SampleType::f32, 1000, 90, 1},
                      RangeCase{SampleType::f32, 1u << 20, 90, 3}),
    [](const auto& info) {
      const RangeCase& c = info.param;
      return std::string(to_string(c.type)) + "_range_" + std::to_string(c.bins) + "bins_sm" +
             std::to_string(c.arch) + "_mode" + std::to_string(c.mode);
    });

TEST(Compile, NvrtcFailureCarriesLabelOptionsAndLog) {
  CompileRequest req{hist1d::kTemplate, {"-DHT_BLOCK_THREADS=256"}, 90, "broken-config"};
  try {
    compile(req);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(e.code(), StatusCode::compile_error);
    EXPECT_NE(m.find("nvrtcCompileProgram"), std::string::npos) << m;
    EXPECT_NE(m.find("broken-config"), std::string::npos) << m;
    EXPECT_NE(m.find("-DHT_BLOCK_THREADS=256"), std::string::npos) << m;
    EXPECT_NE(m.find("HT_SAMPLE_T must be defined"), std::string::npos) << "log missing: " << m;
  }
}

// sm_10 never existed; NVRTC 13 dropped sm_70 (V100), which describe_arch still lists.
TEST(Compile, UnsupportedArchitectureIsAClearError) {
  Problem p;
  const std::vector<int> archs = nvrtc_archs();
  ASSERT_FALSE(archs.empty());
  const std::string served = "sm_" + std::to_string(archs.front()) + " to sm_" +
                             std::to_string(archs.back());
  for (const int arch : {10, 70}) {
    if (std::find(archs.begin(), archs.end(), arch) != archs.end()) continue;
    CompileRequest req = hist1d_request(hist1d::default_config(), p, arch);
    try {
      compile(req);
      FAIL() << "expected a compile error for sm_" << arch;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(e.code(), StatusCode::compile_error);
      EXPECT_NE(m.find("cannot compile for sm_" + std::to_string(arch) + " ("), std::string::npos) << m;
      EXPECT_NE(m.find(served), std::string::npos) << m;
    }
  }
}

TEST(Compile, NvrtcSupportsTheArchitecturesWeShipFor) {
  auto archs = nvrtc_archs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 80), archs.end());
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

TEST(Compile, CacheKeySeparatesArchDefinesAndTemplate) {
  Problem p;
  auto a = hist1d_request(hist1d::default_config(), p, 90);
  auto b = hist1d_request(hist1d::default_config(), p, 80);
  Hist1DConfig c2;
  c2.vectors_per_thread = 4;
  auto c = hist1d_request(c2, p, 90);
  Hist1DConfig launch_only;
  launch_only.blocks_per_sm = 2;  // a launch argument: same kernel
  auto d = hist1d_request(launch_only, p, 90);
  EXPECT_NE(cache_key(a), cache_key(b));
  EXPECT_NE(cache_key(a), cache_key(c));
  EXPECT_EQ(cache_key(a), cache_key(d));
  EXPECT_NE(cache_key(a).find(nvrtc_version()), std::string::npos);
}

}  // namespace

namespace {

TEST(CubinStore, SecondCacheLoadsFromTheStoreInsteadOfCompiling) {
  db::Database store(":memory:");
  Problem p;
  const CompileRequest req = hist1d_request(hist1d::default_config(), p, 90);
  KernelCache first;
  first.set_store(&store);
  const CompiledKernel a = first.compiled(req);
  EXPECT_EQ(first.compiles(), 1u);
  EXPECT_EQ(first.store_hits(), 0u);
  ASSERT_TRUE(store.get_cubin(cache_key(req)));

  KernelCache second;  // a new process, in effect
  second.set_store(&store);
  const CompiledKernel b = second.compiled(req);
  EXPECT_EQ(second.compiles(), 0u);
  EXPECT_EQ(second.store_hits(), 1u);
  EXPECT_EQ(a.cubin, b.cubin);

  Hist1DConfig other;
  other.vectors_per_thread = 2;  // another kernel: not in the store yet
  second.compiled(hist1d_request(other, p, 90));
  EXPECT_EQ(second.compiles(), 1u);
}

TEST(CubinStore, WithoutAStoreEveryCacheCompiles) {
  Problem p;
  const CompileRequest req = hist1d_request(hist1d::default_config(), p, 80);
  KernelCache a, b;
  a.compiled(req);
  b.compiled(req);
  EXPECT_EQ(a.compiles() + b.compiles(), 2u);
}

// `threads` threads released at once, each asking `cache` for `req`: how many threw.
int ask_at_once(KernelCache& cache, const CompileRequest& req, int threads,
                std::vector<CompiledKernel>& got) {
  std::atomic<bool> go{false};
  std::atomic<int> failed{0};
  std::mutex m;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      while (!go) std::this_thread::yield();
      try {
        CompiledKernel k = cache.compiled(req);
        std::lock_guard<std::mutex> lock(m);
        got.push_back(std::move(k));
      } catch (const Error&) {
        ++failed;
      }
    });
  go = true;
  for (auto& t : pool) t.join();
  return failed;
}

// The problems a plan tunes at once ask for the same kernels: a compile in flight is shared, not
// repeated (a compile takes ~0.1 s: four threads released together overlap it).
TEST(CubinStore, ThreadsAskingForOneKernelAtOnceShareItsCompile) {
  Problem p;
  const CompileRequest req = hist1d_request(hist1d::default_config(), p, 90);
  KernelCache cache;
  std::vector<CompiledKernel> got;
  EXPECT_EQ(ask_at_once(cache, req, 4, got), 0);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(cache.compiles() + cache.shared_compiles(), 4u);
  EXPECT_GE(cache.shared_compiles(), 1u);
  for (const CompiledKernel& k : got) EXPECT_EQ(k.cubin, got.front().cubin);
  // Done: nothing is in flight, so (without a store) the next request compiles again.
  const std::size_t before = cache.compiles();
  cache.compiled(req);
  EXPECT_EQ(cache.compiles(), before + 1);
}

TEST(CubinStore, ACompileErrorReachesEveryThreadThatWaitedForIt) {
  const CompileRequest req{hist1d::kTemplate, {"-DHT_BLOCK_THREADS=256"}, 90, "broken-config"};
  KernelCache cache;
  std::vector<CompiledKernel> got;
  EXPECT_EQ(ask_at_once(cache, req, 3, got), 3);
  EXPECT_THROW(cache.compiled(req), Error);  // tried again, not remembered
}

}  // namespace

// The two-phase flush's second kernel (templates/reduce.cuh) takes no defines: one per arch.
TEST(Compile, TheTwoPhaseReductionCompilesForEveryShippedArchitecture) {
  for (const int arch : {80, 90}) {
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(two_phase::request(arch))) << arch;
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << arch;
  }
}

// Byte-decoding kernels (hist1d::byte_decoded): a few of each decoding storage, even binning in
// 32 and 64 bits and range binning's u8 table, on both architectures.
TEST(ByteDecodeCompile, DecodedVariantsCompileToACubin) {
  struct Variant {
    const char* label;
    Binning binning;
    double upper;  // even binning over [0, upper); range: levels over [0, upper]
    int arch;
  };
  const Variant variants[] = {
      {"tpb1024.vpt2.vec16.pc1.lay1.agg0.u2.pad0.bps2.st0.b1.sb0.cl1.pf0.tp0", Binning::even, 256, 90},
      {"tpb256.vpt1.vec0.pc4.lay0.agg1.u0.pad1.bps8.st0.b1.sb0.cl1.pf0.tp0", Binning::even, 4294967296.0, 80},
      {"tpb512.vpt2.vec8.pc1.lay0.agg1.u2.pad0.bps2.st0.b1.sb0.cl1.pf1.tp0", Binning::range, 255, 90},
      {"tpb128.vpt2.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b2.sb0.cl1.pf0.tp0", Binning::even, 256, 90},
      {"tpb256.vpt1.vec16.pc1.lay0.agg0.u0.pad0.bps1.st1.b4.sb0.cl1.pf1.tp0", Binning::range, 200, 80},
  };
  for (const Variant& v : variants) {
    const auto c = Hist1DConfig::parse(v.label);
    ASSERT_TRUE(c) << v.label;
    const Problem p = flat_problem(SampleType::u8, v.binning, 10, 1u << 24, 0, v.upper);
    ASSERT_TRUE(hist1d::byte_decoded(*c, p)) << v.label;
    ASSERT_EQ(hist1d::check(*c, p, device_for(v.arch)).message(), "") << v.label;
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(hist1d_request(*c, p, v.arch))) << v.label;
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << v.label;
  }
}
