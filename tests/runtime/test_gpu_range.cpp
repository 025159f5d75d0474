// On the GPU: range binning through the public C++ and C APIs and the multi-channel family, bit
// exact against the host reference: every sample type, several distributions, odd sizes,
// misaligned starts, n = 0 and 1, levels that are staged in shared memory and levels that are not,
// the u8 table, unsorted levels (no fault), the levels' memory checks, and warm calls captured into
// a CUDA graph and replayed. The 1D family's every configuration runs range binning in
// test_gpu_hist1d.cpp (EveryConfiguration).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

// Device copy of bytes, freed on scope exit; `pad` extra bytes in front for misaligned starts.
// Landed on return (test::upload): the captured test's stream is non-blocking.
struct DeviceBytes {
  std::uint8_t* d = nullptr;
  DeviceBytes(const std::vector<std::uint8_t>& host, std::size_t pad = 0) {
    HT_CUDA(cudaMalloc(&d, host.size() + pad + 16));
    if (!host.empty()) test::upload(d + pad, host.data(), host.size());
  }
  ~DeviceBytes() { cudaFree(d); }
};

Problem range_problem(SampleType t, std::uint32_t bins, std::uint64_t n, double lower, double upper) {
  Problem p;
  p.sample_type = t;
  p.binning = Binning::range;
  p.num_bins = bins;
  p.n = n;
  p.lower = lower;
  p.upper = upper;
  return p;
}

// One call of the public API for p's type.
Status call_range(const Problem& p, const void* s, const void* lv, std::uint32_t* counts,
                  cudaStream_t stream) {
  switch (p.sample_type) {
    case SampleType::u8:
      return histogram_range(static_cast<const std::uint8_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint8_t*>(lv), counts, stream);
    case SampleType::u16:
      return histogram_range(static_cast<const std::uint16_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint16_t*>(lv), counts, stream);
    case SampleType::u32:
      return histogram_range(static_cast<const std::uint32_t*>(s), p.n, p.num_bins,
                             static_cast<const std::uint32_t*>(lv), counts, stream);
    case SampleType::i32:
      return histogram_range(static_cast<const std::int32_t*>(s), p.n, p.num_bins,
                             static_cast<const std::int32_t*>(lv), counts, stream);
    case SampleType::f32:
      return histogram_range(static_cast<const float*>(s), p.n, p.num_bins,
                             static_cast<const float*>(lv), counts, stream);
    default:  // issue 25's types: test_gpu_sample_types.cpp
      break;
  }
  return Status(StatusCode::internal, "type");
}

// The same through the C API.
histtune_status call_range_c(const Problem& p, const void* s, const void* lv, std::uint32_t* counts) {
  switch (p.sample_type) {
    case SampleType::u8:
      return histtune_histogram_range_u8(static_cast<const std::uint8_t*>(s), p.n, p.num_bins,
                                         static_cast<const std::uint8_t*>(lv), counts, nullptr);
    case SampleType::u16:
      return histtune_histogram_range_u16(static_cast<const std::uint16_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::uint16_t*>(lv), counts, nullptr);
    case SampleType::u32:
      return histtune_histogram_range_u32(static_cast<const std::uint32_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::uint32_t*>(lv), counts, nullptr);
    case SampleType::i32:
      return histtune_histogram_range_i32(static_cast<const std::int32_t*>(s), p.n, p.num_bins,
                                          static_cast<const std::int32_t*>(lv), counts, nullptr);
    case SampleType::f32:
      return histtune_histogram_range_f32(static_cast<const float*>(s), p.n, p.num_bins,
                                          static_cast<const float*>(lv), counts, nullptr);
    default:  // issue 25's types: test_gpu_sample_types.cpp
      break;
  }
  return HISTTUNE_INTERNAL;
}

std::vector<std::uint32_t> read(const std::uint32_t* d, std::size_t count) {
  std::vector<std::uint32_t> h(count);
  HT_CUDA(cudaMemcpy(h.data(), d, 4 * count, cudaMemcpyDeviceToHost));
  return h;
}

struct Shape {
  SampleType type;
  std::uint32_t bins;
  double lower, upper;
};

// Staged levels (f32 1000, u16 3000, i32 64), global levels (f32 6000, u32 70000, u16 20000), the
// u8 table (u8 255 over every value, u8 7).
const Shape kShapes[] = {{SampleType::u8, 255, 0, 255},        {SampleType::u8, 7, 3, 200},
                         {SampleType::u16, 3000, 0, 65535},    {SampleType::u16, 20000, 100, 65000},
                         {SampleType::u32, 70000, 0, 4294967295.0}, {SampleType::i32, 64, -70000, 70000},
                         {SampleType::f32, 1000, -1.5, 2.25},  {SampleType::f32, 6000, 0, 100}};

TEST(GpuRange, PublicApiMatchesTheReferenceForEveryTypeSizeAndAlignment) {
  HT_REQUIRE_GPU();
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * 70000));
  cudaStream_t stream;
  HT_CUDA(cudaStreamCreate(&stream));
  for (const Shape& sh : kShapes) {
    for (const auto& [n, dist] : {std::pair{0ull, tuner::Distribution::mixed},
                                  std::pair{1ull, tuner::Distribution::mixed},
                                  std::pair{4099ull, tuner::Distribution::skewed},
                                  std::pair{(1ull << 20) + 5, tuner::Distribution::mixed},
                                  std::pair{100003ull, tuner::Distribution::runs},
                                  std::pair{65537ull, tuner::Distribution::constant}}) {
      const Problem p = range_problem(sh.type, sh.bins, n, sh.lower, sh.upper);
      const auto levels = tuner::make_levels(p);
      const auto host = tuner::make_samples(p, fresh_seed(), dist);
      const auto expect = reference_histogram(p, host.data(), levels.data());
      const DeviceBytes lv(levels);
      const std::size_t sb = sample_bytes(p.sample_type);
      for (std::size_t shift : {0, 1, 3}) {  // samples starting 0, 1 and 3 samples past 16 bytes
        const DeviceBytes s(host, 16 + shift * sb);
        ASSERT_EQ(cudaMemset(d_counts, 0xFF, 4 * p.num_bins), cudaSuccess);
        const Status st = call_range(p, s.d + 16 + shift * sb, lv.d, d_counts, stream);
        ASSERT_TRUE(st.ok()) << st.message();
        HT_CUDA(cudaStreamSynchronize(stream));
        EXPECT_EQ(read(d_counts, p.num_bins), expect)
            << p.describe() << " " << tuner::to_string(dist) << " shift " << shift << " "
            << last_choice().summary();
      }
      // The C API, and n = 0 with no levels at all (the counts are only zeroed).
      ASSERT_EQ(call_range_c(p, nullptr, nullptr, d_counts) == HISTTUNE_OK, n == 0)
          << histtune_last_error();
      if (n > 0) {
        const DeviceBytes s(host);
        ASSERT_EQ(call_range_c(p, s.d, lv.d, d_counts), HISTTUNE_OK) << histtune_last_error();
        EXPECT_EQ(read(d_counts, p.num_bins), expect) << "C API " << p.describe();
      } else {
        EXPECT_EQ(read(d_counts, p.num_bins), std::vector<std::uint32_t>(p.num_bins, 0));
      }
    }
  }
  HT_CUDA(cudaStreamDestroy(stream));
  HT_CUDA(cudaFree(d_counts));
}

TEST(GpuRange, HostLevelsAreRefusedAndPinnedMappedOnesAreRead) {
  HT_REQUIRE_GPU();
  const Problem p = range_problem(SampleType::f32, 100, 10000, 0, 100);
  const auto levels = tuner::make_levels(p);
  const auto host = tuner::make_samples(p, fresh_seed(), tuner::Distribution::mixed);
  const DeviceBytes s(host);
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * p.num_bins));
  const Status pageable = call_range(p, s.d, levels.data(), d_counts, nullptr);
  EXPECT_EQ(pageable.code(), StatusCode::invalid_argument);
  EXPECT_NE(pageable.message().find("host memory the GPU cannot read"), std::string::npos)
      << pageable.message();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused call leaves no CUDA error behind";
  void* pinned = nullptr;
  HT_CUDA(cudaHostAlloc(&pinned, levels.size(), cudaHostAllocMapped));
  std::memcpy(pinned, levels.data(), levels.size());
  const Status mapped = call_range(p, s.d, pinned, d_counts, nullptr);
  ASSERT_TRUE(mapped.ok()) << mapped.message();
  EXPECT_EQ(read(d_counts, p.num_bins), reference_histogram(p, host.data(), levels.data()));
  HT_CUDA(cudaFreeHost(pinned));
  HT_CUDA(cudaFree(d_counts));
}

TEST(GpuRange, UnsortedLevelsGiveSomeCountsAndNeverAFault) {
  HT_REQUIRE_GPU();
  // Reversed and random levels, staged, indexed (a last window of fewer levels, and bins beyond
  // shared memory) and as the u8 table: the kernel's search stays inside [0, num_bins) whatever
  // it reads (compute-sanitizer would name a stray access).
  for (const Shape& sh : {Shape{SampleType::f32, 500, 0, 100}, Shape{SampleType::f32, 9000, 0, 100},
                          Shape{SampleType::f32, 1000001, 0, 100}, Shape{SampleType::u8, 100, 0, 255}}) {
    Problem p = range_problem(sh.type, sh.bins, 200001, sh.lower, sh.upper);
    auto levels = tuner::make_levels(p);
    const std::size_t sb = sample_bytes(p.sample_type);
    std::vector<std::uint8_t> shuffled = levels;
    std::mt19937 rng(7);
    for (std::size_t i = shuffled.size() / sb - 1; i > 0; --i) {
      const std::size_t j = rng() % (i + 1);
      std::swap_ranges(shuffled.begin() + i * sb, shuffled.begin() + (i + 1) * sb,
                       shuffled.begin() + j * sb);
    }
    const auto host = tuner::make_samples(p, fresh_seed(), tuner::Distribution::uniform);
    const DeviceBytes s(host), lv(shuffled);
    std::uint32_t* d_counts = nullptr;
    HT_CUDA(cudaMalloc(&d_counts, 4 * p.num_bins));
    ASSERT_TRUE(call_range(p, s.d, lv.d, d_counts, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << p.describe();
    std::uint64_t total = 0;
    for (auto c : read(d_counts, p.num_bins)) total += c;
    EXPECT_LE(total, p.n) << p.describe();
    HT_CUDA(cudaFree(d_counts));
  }
}

struct Mc {
  SampleType type;
  std::uint32_t channels, active, bins;
  double upper;
};

Problem mc_range_problem(const Mc& m, std::uint64_t rows) {
  Problem p;
  p.family = multichannel::kFamily;
  p.sample_type = m.type;
  p.binning = Binning::range;
  p.channels = m.channels;
  p.active_channels = m.active;
  p.num_bins = m.bins;
  p.n = rows;
  p.upper = m.upper;
  return p;
}

// Every 97th configuration valid for each of `rows`, with the index of its kernel in `reqs`: the
// kernels are compiled at once on every core (one after another they took 165-290 s of the GPU
// suite), then each size loads them.
struct SampledRange {
  std::vector<std::vector<std::pair<MultiChannelConfig, std::size_t>>> by_rows;
  std::vector<CompileRequest> reqs;
};

SampledRange sample_every_97th(const Mc& m, const std::vector<std::uint64_t>& rows,
                               const DeviceInfo& d) {
  SampledRange out;
  std::map<std::string, std::size_t> index;  // cache key -> reqs index
  for (const std::uint64_t r : rows) {
    const Problem p = mc_range_problem(m, r);
    auto& picked = out.by_rows.emplace_back();
    int i = 0;
    for (const auto& c : multichannel::space()) {
      if (!multichannel::check(c, p, d).holds() || i++ % 97 != 0) continue;
      const CompileRequest req = multichannel::request(c, p, d.arch());
      const auto [it, fresh] = index.emplace(cache_key(req), out.reqs.size());
      if (fresh) out.reqs.push_back(req);
      picked.emplace_back(c, it->second);
    }
  }
  return out;
}

TEST(GpuRange, MultiChannelEverySampledConfigurationAndThePublicApi) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  const std::vector<std::uint64_t> all_rows = {0, 1, 1001, 77777};
  for (const Mc& m : {Mc{SampleType::u8, 4, 3, 255, 255}, Mc{SampleType::u8, 64, 64, 20, 255},
                      Mc{SampleType::u16, 3, 3, 3000, 65535}, Mc{SampleType::u16, 4, 4, 9000, 40000}}) {
    const SampledRange sample = sample_every_97th(m, all_rows, d);
    tuner::CompilePool pool(sample.reqs, 0);
    for (std::size_t r = 0; r < all_rows.size(); ++r) {
      const std::uint64_t rows = all_rows[r];
      Problem p = mc_range_problem(m, rows);
      Problem flat = p;  // the levels and the samples as one stream over the same bins
      flat.family = Family::hist1d;
      flat.channels = flat.active_channels = 1;
      flat.n = p.total_samples();
      const auto levels = tuner::make_levels(flat);
      const auto host = tuner::make_samples(flat, fresh_seed(), tuner::Distribution::mixed);
      const auto expect = reference_histogram(p, host.data(), levels.data());
      const std::size_t sb = sample_bytes(p.sample_type);
      // Aligned, and one sample in (misaligned for vector loads).
      const DeviceBytes lv(levels), aligned(host), s(host, sb);
      p.d_levels = lv.d;
      std::uint32_t* d_counts = nullptr;
      HT_CUDA(cudaMalloc(&d_counts, 4 * std::max<std::size_t>(expect.size(), 1)));
      for (const auto& [c, req] : sample.by_rows[r]) {
        const Kernel k = cache.load(sample.reqs[req], pool.get(req), multichannel::kKernel);
        for (const std::uint8_t* start : {aligned.d, s.d + sb}) {
          multichannel::launch(cache, k, c, p, d, start, d_counts, nullptr);
          HT_CUDA(cudaDeviceSynchronize());
          EXPECT_EQ(read(d_counts, expect.size()), expect)
              << c.label() << " rows " << rows << (start == aligned.d ? "" : " misaligned");
        }
      }
      const Status st =
          m.type == SampleType::u8
              ? histogram_multichannel_range(reinterpret_cast<const std::uint8_t*>(s.d + sb), rows,
                                             m.channels, m.active, m.bins,
                                             reinterpret_cast<const std::uint8_t*>(lv.d), d_counts)
              : histogram_multichannel_range(reinterpret_cast<const std::uint16_t*>(s.d + sb), rows,
                                             m.channels, m.active, m.bins,
                                             reinterpret_cast<const std::uint16_t*>(lv.d), d_counts);
      ASSERT_TRUE(st.ok()) << st.message();
      EXPECT_EQ(read(d_counts, expect.size()), expect) << "public API rows " << rows;
      const histtune_status cs =
          m.type == SampleType::u8
              ? histtune_histogram_multichannel_range_u8(
                    reinterpret_cast<const std::uint8_t*>(s.d + sb), rows, m.channels, m.active,
                    m.bins, reinterpret_cast<const std::uint8_t*>(lv.d), d_counts, nullptr)
              : histtune_histogram_multichannel_range_u16(
                    reinterpret_cast<const std::uint16_t*>(s.d + sb), rows, m.channels, m.active,
                    m.bins, reinterpret_cast<const std::uint16_t*>(lv.d), d_counts, nullptr);
      ASSERT_EQ(cs, HISTTUNE_OK) << histtune_last_error();
      EXPECT_EQ(read(d_counts, expect.size()), expect) << "C API rows " << rows;
      HT_CUDA(cudaFree(d_counts));
    }
  }
}

// ---- CUDA graph capture ------------------------------------------------------------------------

// One public-API range call for p (1D or multi-channel) on `stream`.
using RangeCall = std::function<Status(const Problem& p, const void* d_samples,
                                       const void* d_levels, std::uint32_t* d_counts,
                                       cudaStream_t stream)>;

Status call_multichannel_range(const Problem& p, const void* s, const void* lv,
                               std::uint32_t* counts, cudaStream_t stream) {
  if (p.sample_type == SampleType::u8)
    return histogram_multichannel_range(static_cast<const std::uint8_t*>(s), p.n, p.channels,
                                        p.active_channels, p.num_bins,
                                        static_cast<const std::uint8_t*>(lv), counts, stream);
  return histogram_multichannel_range(static_cast<const std::uint16_t*>(s), p.n, p.channels,
                                      p.active_channels, p.num_bins,
                                      static_cast<const std::uint16_t*>(lv), counts, stream);
}

// The samples and levels of p drawn as one stream over the same bins (what make_samples and
// make_levels take): p itself for 1D.
Problem flat(Problem p) {
  p.n = p.total_samples();
  p.family = Family::hist1d;
  p.channels = p.active_channels = 1;
  return p;
}

std::string mode_name(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local";
}

// A captured range call: the problem, and the span of the levels written into the same buffer
// before the second replay (the key has no bounds: the same prepared launch serves both).
struct CapturedRange {
  Problem p;
  double lower2, upper2;
};

// Warms each call up outside capture (checked against the reference), captures one call of each
// on a non-blocking stream in `mode`, then replays the graph twice: the counts poisoned before
// each replay (the graph zeroes them, or its kernel stores them), and new samples and levels of
// another span written into the same buffers before the second (the graph reads them when it
// runs). Every replay is compared bit-exact with the host reference.
void capture_and_replay(const std::vector<CapturedRange>& cases, cudaStreamCaptureMode mode,
                        const RangeCall& call) {
  struct Buffers {
    std::vector<std::uint8_t> samples, levels;
    std::vector<std::uint32_t> expect;
  };
  auto draw = [](const Problem& p, std::uint64_t seed) {
    Buffers b;
    b.samples = tuner::make_samples(flat(p), seed, tuner::Distribution::mixed);
    b.levels = tuner::make_levels(flat(p));
    b.expect = reference_histogram(p, b.samples.data(), b.levels.data());
    return b;
  };
  auto upload = [](std::uint8_t* d, const std::vector<std::uint8_t>& h) {
    HT_CUDA(cudaMemcpy(d, h.data(), h.size(), cudaMemcpyHostToDevice));
  };
  const std::string how = mode_name(mode) + " capture";
  std::vector<Buffers> first, second;
  std::vector<std::unique_ptr<DeviceBytes>> samples, levels, counts;
  for (const CapturedRange& c : cases) {
    Problem p2 = c.p;
    p2.lower = c.lower2;
    p2.upper = c.upper2;
    first.push_back(draw(c.p, fresh_seed()));
    second.push_back(draw(p2, fresh_seed()));
    ASSERT_NE(first.back().levels, second.back().levels) << c.p.describe();
    samples.push_back(std::make_unique<DeviceBytes>(first.back().samples));
    levels.push_back(std::make_unique<DeviceBytes>(first.back().levels));
    counts.push_back(std::make_unique<DeviceBytes>(
        std::vector<std::uint8_t>(4 * first.back().expect.size())));
  }
  auto counts_of = [&](std::size_t i) { return reinterpret_cast<std::uint32_t*>(counts[i]->d); };
  auto poison = [&](cudaStream_t stream) {
    for (std::size_t i = 0; i < cases.size(); ++i)
      HT_CUDA(cudaMemsetAsync(counts[i]->d, 0xAB, 4 * first[i].expect.size(), stream));
  };
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (std::size_t i = 0; i < cases.size(); ++i) {  // warm-up, outside capture
    const Status st = call(cases[i].p, samples[i]->d, levels[i]->d, counts_of(i), stream);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  HT_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < cases.size(); ++i)
    ASSERT_EQ(read(counts_of(i), first[i].expect.size()), first[i].expect)
        << "warm-up " << cases[i].p.describe();
  poison(stream);
  HT_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph = nullptr;
  HT_CUDA(cudaStreamBeginCapture(stream, mode));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Status st = call(cases[i].p, samples[i]->d, levels[i]->d, counts_of(i), stream);
    EXPECT_TRUE(st.ok()) << how << ": " << st.message();
  }
  // check_levels asks cudaPointerGetAttributes about d_levels on every call: the capture must
  // still be active after it.
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HT_CUDA(cudaStreamIsCapturing(stream, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusActive) << how << " invalidated by a call";
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(end, cudaSuccess) << how << ": " << cudaGetErrorName(end) << ": "
                              << cudaGetErrorString(end);
  ASSERT_NE(graph, nullptr);
  std::size_t nodes = 0;
  HT_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_GE(nodes, cases.size());
  HT_CUDA(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < cases.size(); ++i)  // captured, not run
    for (std::uint32_t v : read(counts_of(i), first[i].expect.size()))
      ASSERT_EQ(v, 0xABABABABu) << how << " ran " << cases[i].p.describe();

  cudaGraphExec_t exec = nullptr;
  HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    const std::vector<Buffers>& now = replay == 0 ? first : second;
    if (replay == 1) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        upload(samples[i]->d, now[i].samples);
        upload(levels[i]->d, now[i].levels);
      }
      HT_CUDA(cudaDeviceSynchronize());  // the copies ran on the legacy stream
    }
    poison(stream);
    HT_CUDA(cudaGraphLaunch(exec, stream));
    HT_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < cases.size(); ++i)
      EXPECT_EQ(read(counts_of(i), now[i].expect.size()), now[i].expect)
          << how << " replay " << replay << " " << cases[i].p.describe();
  }
  HT_CUDA(cudaGraphExecDestroy(exec));
  HT_CUDA(cudaGraphDestroy(graph));
  HT_CUDA(cudaStreamDestroy(stream));
}

// The u8 table (100 bins), staged levels (u16 3000, i32 64) and levels in global memory (f32 6000).
std::vector<CapturedRange> captured_1d() {
  return {{range_problem(SampleType::u8, 100, (1ull << 20) + 5, 0, 255), 10, 250},
          {range_problem(SampleType::u16, 3000, 100003, 0, 65535), 500, 60000},
          {range_problem(SampleType::i32, 64, 4099, -70000, 70000), -10, 10000},
          {range_problem(SampleType::f32, 6000, 65537, 0, 100), -50, 50}};
}

// RGBA-like u8 (the table), u16 with staged levels, u16 with levels in global memory.
std::vector<CapturedRange> captured_multichannel() {
  auto mc = [](SampleType t, std::uint32_t channels, std::uint32_t active, std::uint32_t bins,
               std::uint64_t rows, double upper) {
    Problem p = range_problem(t, bins, rows, 0, upper);
    p.family = multichannel::kFamily;
    p.channels = channels;
    p.active_channels = active;
    return p;
  };
  return {{mc(SampleType::u8, 4, 3, 100, 77777, 255), 10, 250},
          {mc(SampleType::u16, 3, 3, 3000, 50001, 65535), 500, 60000},
          {mc(SampleType::u16, 4, 4, 9000, 1001, 40000), 100, 60000}};
}

TEST(GpuRangeGraph, Hist1DGlobalCaptureReplaysBitExact) {
  HT_REQUIRE_GPU();
  capture_and_replay(captured_1d(), cudaStreamCaptureModeGlobal, call_range);
}

TEST(GpuRangeGraph, Hist1DThreadLocalCaptureReplaysBitExact) {
  HT_REQUIRE_GPU();
  capture_and_replay(captured_1d(), cudaStreamCaptureModeThreadLocal, call_range);
}

TEST(GpuRangeGraph, MultiChannelGlobalCaptureReplaysBitExact) {
  HT_REQUIRE_GPU();
  capture_and_replay(captured_multichannel(), cudaStreamCaptureModeGlobal,
                     call_multichannel_range);
}

TEST(GpuRangeGraph, MultiChannelThreadLocalCaptureReplaysBitExact) {
  HT_REQUIRE_GPU();
  capture_and_replay(captured_multichannel(), cudaStreamCaptureModeThreadLocal,
                     call_multichannel_range);
}

TEST(GpuRangeGraph, HostLevelsRefusedDuringGlobalCaptureLeaveItValid) {
  // The refusal path of check_levels (cudaPointerGetAttributes on pageable memory, then the
  // error cleared) runs inside the capture: the capture must survive it and hold the good calls.
  HT_REQUIRE_GPU();
  for (const bool is_mc : {false, true}) {
    const RangeCall call = is_mc ? RangeCall(call_multichannel_range) : RangeCall(call_range);
    Problem p = range_problem(SampleType::u16, 500, 20011, 0, 65535);
    if (is_mc) {
      p.family = multichannel::kFamily;
      p.channels = 4;
      p.active_channels = 2;
    }
    const auto levels = tuner::make_levels(flat(p));
    const auto host = tuner::make_samples(flat(p), fresh_seed(), tuner::Distribution::mixed);
    const auto expect = reference_histogram(p, host.data(), levels.data());
    const DeviceBytes s(host), lv(levels), counts(std::vector<std::uint8_t>(4 * expect.size()));
    auto* d_counts = reinterpret_cast<std::uint32_t*>(counts.d);
    cudaStream_t stream = nullptr;
    HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ASSERT_TRUE(call(p, s.d, lv.d, d_counts, stream).ok());  // warm-up
    HT_CUDA(cudaStreamSynchronize(stream));

    cudaGraph_t graph = nullptr;
    HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const Status refused = call(p, s.d, levels.data(), d_counts, stream);
    const Status good = call(p, s.d, lv.d, d_counts, stream);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t asked = cudaStreamIsCapturing(stream, &status);
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    EXPECT_EQ(refused.code(), StatusCode::invalid_argument) << refused.message();
    EXPECT_NE(refused.message().find("host memory the GPU cannot read"), std::string::npos)
        << refused.message();
    EXPECT_TRUE(good.ok()) << good.message();
    EXPECT_EQ(asked, cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusActive) << (is_mc ? "multi-channel" : "1D");
    ASSERT_EQ(end, cudaSuccess) << cudaGetErrorName(end) << ": " << cudaGetErrorString(end);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused call leaves no CUDA error behind";
    HT_CUDA(cudaMemset(d_counts, 0xAB, 4 * expect.size()));
    HT_CUDA(cudaDeviceSynchronize());
    cudaGraphExec_t exec = nullptr;
    HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    HT_CUDA(cudaGraphLaunch(exec, stream));
    HT_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(read(d_counts, expect.size()), expect) << (is_mc ? "multi-channel" : "1D");
    HT_CUDA(cudaGraphExecDestroy(exec));
    HT_CUDA(cudaGraphDestroy(graph));
    HT_CUDA(cudaStreamDestroy(stream));
  }
}

}  // namespace
