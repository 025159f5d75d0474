// On the GPU: 64-bit counts. Small n over several types and binnings against the host reference
// (n = 0 included, from a misaligned start, guard words after the counts, a refused call leaving
// them untouched); a call captured in a CUDA graph; u8 256 bins over 2^32 + 3 samples in one
// call (and from one byte in), and 8-byte samples past 2^34 bytes, both against counts of their
// periodic data worked out on the host; and the timing of the u8 call (issue 25's row, printed:
// median of 15, floor = bytes / 3063 GB/s). Skips, with the reason, without a GPU (or, for the
// large inputs, without the memory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using test::DeviceBytes;

namespace {

constexpr std::uint64_t k2To32 = std::uint64_t{1} << 32;
constexpr std::uint64_t kGuard = 16;
constexpr std::uint64_t kGuardValue = 0xA5A5A5A5A5A5A5A5ull;

// num_bins uint64 counts with kGuard guard words after them, all kGuardValue before the call.
struct GuardedCounts64 {
  std::uint32_t bins;
  DeviceBytes mem;
  explicit GuardedCounts64(std::uint32_t b) : bins(b), mem((b + kGuard) * sizeof(std::uint64_t)) {
    const std::vector<std::uint64_t> fill(b + kGuard, kGuardValue);
    HT_CUDA(cudaMemcpy(mem.ptr, fill.data(), fill.size() * 8, cudaMemcpyHostToDevice));
  }
  std::uint64_t* get() const { return static_cast<std::uint64_t*>(mem.ptr); }
  // The counts; guards_ok says whether every guard word kept its value.
  std::vector<std::uint64_t> read(bool& guards_ok) const {
    std::vector<std::uint64_t> h(bins + kGuard);
    HT_CUDA(cudaMemcpy(h.data(), mem.ptr, h.size() * 8, cudaMemcpyDeviceToHost));
    guards_ok = std::all_of(h.begin() + bins, h.end(), [](auto v) { return v == kGuardValue; });
    h.resize(bins);
    return h;
  }
};

std::vector<std::uint64_t> widened(const std::vector<std::uint32_t>& v) {
  return std::vector<std::uint64_t>(v.begin(), v.end());
}

// Shapes of several types and binnings (bounds double as the range levels' span).
std::vector<Problem> shapes() {
  return {flat_problem(SampleType::u8, Binning::direct, 256, 0),
          flat_problem(SampleType::u8, Binning::even, 64, 0, 0, 256),
          flat_problem(SampleType::u16, Binning::direct, 1024, 0),
          flat_problem(SampleType::u32, Binning::range, 1000, 0, 0, 1000000),
          flat_problem(SampleType::f32, Binning::even, 256, 0, 0, 100),
          flat_problem(SampleType::i8, Binning::even, 256, 0, -128, 128),
          flat_problem(SampleType::f16, Binning::even, 256, 0, -1, 1),
          flat_problem(SampleType::i64, Binning::direct, 4096, 0),
          flat_problem(SampleType::f64, Binning::range, 100, 0, -500, 500),
          flat_problem(SampleType::u32, Binning::direct, 65536, 0)};
}

// A device copy of `block` repeated over `count` elements: the block, then doubling copies on
// the device (each a whole number of blocks, so element i is block[i % block.size()]).
template <class T>
void fill_periodic(T* d, std::uint64_t count, const std::vector<T>& block) {
  const std::uint64_t first = std::min<std::uint64_t>(count, block.size());
  HT_CUDA(cudaMemcpy(d, block.data(), first * sizeof(T), cudaMemcpyHostToDevice));
  for (std::uint64_t len = first; len < count; len *= 2)
    HT_CUDA(cudaMemcpy(d + len, d, std::min(len, count - len) * sizeof(T),
                       cudaMemcpyDeviceToDevice));
}

// The counts of elements [0, m) of the periodic data, per bin (bin_of(v) >= bins: no bin).
template <class T, class BinOf>
std::vector<std::uint64_t> periodic_prefix(const std::vector<T>& block, std::uint64_t m,
                                           std::uint32_t bins, BinOf bin_of) {
  std::vector<std::uint64_t> whole(bins), part(bins);
  const std::uint64_t rest = m % block.size();
  for (std::uint64_t i = 0; i < block.size(); ++i)
    if (const std::uint64_t b = bin_of(block[i]); b < bins) {
      ++whole[b];
      if (i < rest) ++part[b];
    }
  for (std::uint32_t b = 0; b < bins; ++b) part[b] += whole[b] * (m / block.size());
  return part;
}

// Counts of elements [skip, skip + n) of the periodic data.
template <class T, class BinOf>
std::vector<std::uint64_t> periodic_counts(const std::vector<T>& block, std::uint64_t skip,
                                           std::uint64_t n, std::uint32_t bins, BinOf bin_of) {
  std::vector<std::uint64_t> out = periodic_prefix(block, skip + n, bins, bin_of);
  const std::vector<std::uint64_t> before = periodic_prefix(block, skip, bins, bin_of);
  for (std::uint32_t b = 0; b < bins; ++b) out[b] -= before[b];
  return out;
}

// A block of random values; its length is prime, so no chunk of 2^31 starts at its start again.
template <class T>
std::vector<T> random_block(std::size_t size, std::int64_t lo, std::int64_t hi) {
  std::mt19937_64 rng(test::fresh_seed());
  std::uniform_int_distribution<std::int64_t> pick(lo, hi);
  std::vector<T> block(size);
  for (T& v : block) v = static_cast<T>(pick(rng));
  return block;
}

// The median time of `call` over 15 timed calls after 3 warm-ups, in ms (CUDA events).
template <class Call>
double median_ms(Call call) {
  cudaEvent_t start, stop;
  HT_CUDA(cudaEventCreate(&start));
  HT_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) call();
  std::vector<double> ms;
  for (int i = 0; i < 15; ++i) {
    HT_CUDA(cudaEventRecord(start));
    call();
    HT_CUDA(cudaEventRecord(stop));
    HT_CUDA(cudaEventSynchronize(stop));
    float t = 0;
    HT_CUDA(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Skips unless the device has `bytes` free (and 1 GiB beside them).
bool has_free_memory(std::uint64_t bytes) {
  std::size_t free = 0, total = 0;
  HT_CUDA(cudaMemGetInfo(&free, &total));
  return free >= bytes + (std::uint64_t{1} << 30);
}

}  // namespace

// Through Dispatcher::run's 64-bit path (what every uint64 overload calls) on the default
// dispatcher: every shape at n = 0, 1, 4097 and 2^20 + 3 from one sample in, exact.
TEST(GpuCounts64, SmallNOverTypesAndBinningsIsExact) {
  HT_REQUIRE_GPU();
  int ran = 0;
  for (const Problem& s : shapes())
    for (const std::uint64_t n : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4097},
                                  (std::uint64_t{1} << 20) + 3}) {
      Problem p = s;
      p.n = n + 1;
      const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::mixed);
      const auto levels =
          p.binning == Binning::range ? tuner::make_levels(p) : std::vector<std::uint8_t>{};
      tuner::DeviceInputs in(p, host, 0, levels);
      p.n = n;
      p.d_levels = in.levels();
      const std::size_t bytes = sample_bytes(p.sample_type);
      GuardedCounts64 counts(p.num_bins);
      const Status st = default_dispatcher().run(
          p, static_cast<const std::uint8_t*>(in.samples(0)) + bytes, counts.get(), nullptr);
      ASSERT_TRUE(st.ok()) << p.describe() << ": " << st.message();
      HT_CUDA(cudaDeviceSynchronize());
      bool guards_ok = false;
      EXPECT_EQ(counts.read(guards_ok),
                widened(reference_histogram(p, host.data() + bytes,
                                            levels.empty() ? nullptr : levels.data())))
          << p.describe();
      EXPECT_TRUE(guards_ok) << p.describe() << ": a count was written past the bins";
      ++ran;
    }
  EXPECT_EQ(ran, 40);
}

// The public overloads (C++ and C) reach the same path; a refused call writes nothing.
TEST(GpuCounts64, PublicCallsAndARefusedOne) {
  HT_REQUIRE_GPU();
  const Problem p = flat_problem(SampleType::f32, Binning::even, 64, 100003, 0, 1);
  const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::uniform);
  DeviceBytes d(host.size());
  HT_CUDA(cudaMemcpy(d.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
  const auto expected = widened(reference_histogram(p, host.data()));
  const auto* samples = static_cast<const float*>(d.ptr);
  for (int c_api = 0; c_api < 2; ++c_api) {
    GuardedCounts64 counts(64);
    if (c_api)
      ASSERT_EQ(histtune_histogram_even_counts64_f32(samples, p.n, 64, 0.0f, 1.0f, counts.get(),
                                                     nullptr),
                HISTTUNE_OK)
          << histtune_last_error();
    else
      ASSERT_TRUE(histogram_even(samples, p.n, 64, 0.0f, 1.0f, counts.get()).ok());
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), expected) << (c_api ? "C API" : "C++ API");
    EXPECT_TRUE(guards_ok);
  }
  GuardedCounts64 untouched(64);
  EXPECT_EQ(histogram_even(reinterpret_cast<const float*>(static_cast<char*>(d.ptr) + 2), p.n, 64,
                           0.0f, 1.0f, untouched.get())
                .code(),
            StatusCode::invalid_argument);
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  EXPECT_EQ(untouched.read(guards_ok), std::vector<std::uint64_t>(64, kGuardValue));
}

// After one call outside it, a call with 64-bit counts may be captured (its temporary buffer is
// a stream-ordered allocation the graph records) and replayed; a capture of a shape never called
// is refused and leaves the capture valid.
TEST(GpuCounts64, CapturedInAGraphAfterOneCall) {
  HT_REQUIRE_GPU();
  const Problem p = flat_problem(SampleType::u16, Binning::direct, 1024, 100003);
  const auto host = tuner::make_samples(p, test::fresh_seed(), tuner::Distribution::skewed);
  DeviceBytes d(host.size());
  test::upload(d.ptr, host.data(), host.size());  // landed before the non-blocking stream reads it
  const auto* samples = static_cast<const std::uint16_t*>(d.ptr);
  const auto expected = widened(reference_histogram(p, host.data()));
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GuardedCounts64 counts(1024);
  ASSERT_TRUE(histogram_direct(samples, p.n, 1024, counts.get(), stream).ok());
  HT_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph = nullptr;
  HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status st = histogram_direct(samples, p.n, 1024, counts.get(), stream);
  EXPECT_TRUE(st.ok()) << st.message();
  const Status fresh = histogram_direct(samples, p.n - 1, 1024, counts.get(), stream);
  EXPECT_EQ(fresh.code(), StatusCode::invalid_argument) << fresh.message();
  const cudaError_t end = cudaStreamEndCapture(stream, &graph);
  ASSERT_EQ(end, cudaSuccess) << cudaGetErrorName(end);
  cudaGraphExec_t exec = nullptr;
  HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    HT_CUDA(cudaMemsetAsync(counts.get(), 0xAB, 1024 * 8, stream));
    HT_CUDA(cudaGraphLaunch(exec, stream));
    HT_CUDA(cudaStreamSynchronize(stream));
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), expected) << "replay " << replay;
    EXPECT_TRUE(guards_ok);
  }
  HT_CUDA(cudaGraphExecDestroy(exec));
  HT_CUDA(cudaGraphDestroy(graph));
  HT_CUDA(cudaStreamDestroy(stream));
}

// Issue 25: u8 256 bins over 2^32 + 3 samples in one call, whole and from one byte in; u8 even
// 64 bins (byte decoding) over the same. Three chunks: 2^31, 2^31, 3 (or 4).
TEST(GpuCounts64, U8PastTwoTo32InOneCall) {
  HT_REQUIRE_GPU();
  const std::uint64_t n = k2To32 + 3;
  if (!has_free_memory(n + 16)) GTEST_SKIP() << "needs " << n + 16 << " bytes of GPU memory";
  const auto block = random_block<std::uint8_t>(1000003, 0, 255);
  DeviceBytes d(n + 16);
  fill_periodic(static_cast<std::uint8_t*>(d.ptr), n + 16, block);
  for (const std::uint64_t skip : {0u, 1u}) {
    const auto* samples = static_cast<const std::uint8_t*>(d.ptr) + skip;
    GuardedCounts64 direct(256), even(64);
    ASSERT_TRUE(histogram_direct(samples, n, 256, direct.get()).ok());
    const Choice used = last_choice();
    ASSERT_TRUE(histogram_even(samples, n, 64, 0, 256, even.get()).ok());
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(direct.read(guards_ok),
              periodic_counts(block, skip, n, 256, [](std::uint8_t v) { return v; }))
        << "skip " << skip;
    EXPECT_TRUE(guards_ok);
    EXPECT_EQ(even.read(guards_ok),
              periodic_counts(block, skip, n, 64, [](std::uint8_t v) { return v / 4u; }))
        << "skip " << skip;
    EXPECT_TRUE(guards_ok);
    // The configuration is the one a 2^31-sample call looks up.
    const Problem chunk = flat_problem(SampleType::u8, Binning::direct, 256, kCount64Chunk);
    EXPECT_EQ(used.config.label(),
              default_dispatcher().explain(query_device(current_device()), chunk).config.label());
  }
}

// 8-byte samples: 2^31 + 5 i64 samples (17.2 GB), the second chunk 2^34 bytes in.
TEST(GpuCounts64, EightByteSamplesPastTwoTo34Bytes) {
  HT_REQUIRE_GPU();
  const std::uint64_t n = kCount64Chunk + 5, bytes = n * sizeof(std::int64_t);
  if (!has_free_memory(bytes)) GTEST_SKIP() << "needs " << bytes << " bytes of GPU memory";
  const auto block = random_block<std::int64_t>(100003, -8, 300);
  DeviceBytes d(bytes);
  fill_periodic(static_cast<std::int64_t*>(d.ptr), n, block);
  GuardedCounts64 counts(256);
  ASSERT_TRUE(histogram_direct(static_cast<const std::int64_t*>(d.ptr), n, 256, counts.get()).ok());
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  EXPECT_EQ(counts.read(guards_ok), periodic_counts(block, 0, n, 256, [](std::int64_t v) {
              return v < 0 ? std::uint64_t{256} : static_cast<std::uint64_t>(v);
            }));
  EXPECT_TRUE(guards_ok);
}

// Issue 25's row "u8 256 bins, 2^32 + 3 samples, 64-bit counts" (target >= 90% of the floor),
// timed here since `histtune bench` times kernels, not the chunked call: the median of 15 calls
// after 3 warm-ups (CUDA events), beside the 32-bit call over 2^32 - 1 samples; the floor is
// bytes / 3063 GB/s (the H100's read floor of docs/results.md). Prints one line per call.
TEST(GpuCounts64, U8PastTwoTo32Timing) {
  HT_REQUIRE_GPU();
  const std::uint64_t n = k2To32 + 3;
  if (!has_free_memory(n)) GTEST_SKIP() << "needs " << n << " bytes of GPU memory";
  DeviceBytes d(n);
  fill_periodic(static_cast<std::uint8_t*>(d.ptr), n, random_block<std::uint8_t>(1000003, 0, 255));
  const auto* samples = static_cast<const std::uint8_t*>(d.ptr);
  GuardedCounts64 counts64(256);
  test::GuardedCounts counts32(256);
  const double ms64 = median_ms([&] { (void)histogram_direct(samples, n, 256, counts64.get()); });
  const double ms32 =
      median_ms([&] { (void)histogram_direct(samples, k2To32 - 1, 256, counts32.get()); });
  const auto line = [](const char* what, std::uint64_t samples_n, double ms) {
    const double floor_ms = static_cast<double>(samples_n) / 3063e9 * 1e3;
    std::printf("[counts64] %-44s %.4f ms, %.0f GB/s, %.1f%% of the floor (%.4f ms)\n", what, ms,
                static_cast<double>(samples_n) / (ms * 1e6), 100.0 * floor_ms / ms, floor_ms);
  };
  line("u8 256 bins, 2^32 + 3 samples, 64-bit counts", n, ms64);
  line("u8 256 bins, 2^32 - 1 samples, 32-bit counts", k2To32 - 1, ms32);
  std::printf("[counts64] configuration %s (%s)\n", last_choice().config.label().c_str(),
              to_string(last_choice().level));
  bool guards_ok = false;
  (void)counts64.read(guards_ok);
  EXPECT_TRUE(guards_ok);
}

// ---- 64-bit counts of the multi-channel, batched and segmented families ----------------------

namespace {

// p's samples, `total` of them, drawn as one stream.
template <class T>
std::vector<T> samples_of(const Problem& p, std::uint64_t total) {
  Problem flat = as_one_stream(p);
  flat.n = total;
  const auto bytes = tuner::make_samples(flat, test::fresh_seed(), tuner::Distribution::mixed);
  std::vector<T> out(total);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// The counts of `channels` interleaved channels of the periodic data (element k is
// block[k % size]) over `rows` rows: per active channel, bins of bin_of.
template <class T, class BinOf>
std::vector<std::uint64_t> periodic_channel_counts(const std::vector<T>& block, std::uint64_t rows,
                                                   std::uint32_t channels, std::uint32_t active,
                                                   std::uint32_t bins, BinOf bin_of) {
  // Row i's channel c is element i x channels + c: over channels x size rows the pairs repeat.
  const std::uint64_t period = block.size(), total = rows * channels;
  std::vector<std::uint64_t> whole(std::uint64_t{active} * bins), part(whole.size());
  const std::uint64_t cycle = period * channels, rest = total % cycle;
  for (std::uint64_t k = 0; k < cycle; ++k) {
    const std::uint64_t c = k % channels, b = bin_of(block[k % period]);
    if (c >= active || b >= bins) continue;
    ++whole[c * bins + b];
    if (k < rest) ++part[c * bins + b];
  }
  for (std::size_t i = 0; i < part.size(); ++i) part[i] += whole[i] * (total / cycle);
  return part;
}

}  // namespace

// Small calls of each family through their public uint64 overloads, exact against the reference
// (32-bit counts widened): multi-channel packed and pitched, strided rows, wild segments.
TEST(GpuCounts64Families, SmallCallsOfEveryFamilyAreExact) {
  HT_REQUIRE_GPU();
  {  // i16 even over [-32768, 32768), 4 channels of which 3 counted, packed
    Problem p = multichannel_problem(SampleType::i16, 4, 3, 10007, 100, Binning::even);
    p.lower = -32768;
    p.upper = 32768;
    const auto host = samples_of<std::int16_t>(p, p.total_samples());
    DeviceBytes d(host.size() * 2);
    HT_CUDA(cudaMemcpy(d.ptr, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
    GuardedCounts64 counts(3 * 100);
    ASSERT_TRUE(histogram_multichannel_even(static_cast<const std::int16_t*>(d.ptr), p.n, 4, 3,
                                            100, -32768, 32768, counts.get())
                    .ok());
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), widened(reference_histogram(p, host.data())));
    EXPECT_TRUE(guards_ok);
  }
  {  // u8 direct, a pitched image of 37 rows of 61 RGBA pixels, 3 bytes of padding a row, C API
    Problem p = multichannel_problem(SampleType::u8, 4, 3, 37 * 61, 256);
    p.row_pixels = 61;
    p.row_pitch_bytes = 61 * 4 + 3;
    const auto host = samples_of<std::uint8_t>(p, 37 * p.row_pitch_bytes);
    DeviceBytes d(host.size());
    HT_CUDA(cudaMemcpy(d.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
    GuardedCounts64 counts(3 * 256);
    ASSERT_EQ(histtune_histogram_multichannel_direct_pitched_counts64_u8(
                  static_cast<const std::uint8_t*>(d.ptr), 61, 37, p.row_pitch_bytes, 4, 3, 256,
                  counts.get(), nullptr),
              HISTTUNE_OK)
        << histtune_last_error();
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), widened(reference_histogram(p, host.data())));
    EXPECT_TRUE(guards_ok);
  }
  {  // f64 even rows, 1003 samples apart; and f32 segments with empty, wild and unordered ones
    Problem p = batched_problem(SampleType::f64, Binning::even, 64, 9, 1000, 1003);
    p.lower = -4;
    p.upper = 4;
    const auto host = samples_of<double>(p, 8 * 1003 + 1000);
    DeviceBytes d(host.size() * 8);
    HT_CUDA(cudaMemcpy(d.ptr, host.data(), host.size() * 8, cudaMemcpyHostToDevice));
    GuardedCounts64 counts(9 * 64);
    ASSERT_TRUE(histogram_batched_even(static_cast<const double*>(d.ptr), 9, 1000, 1003, 64,
                                       -4.0, 4.0, counts.get())
                    .ok());
    HT_CUDA(cudaDeviceSynchronize());
    bool guards_ok = false;
    EXPECT_EQ(counts.read(guards_ok), widened(reference_histogram(p, host.data())));
    EXPECT_TRUE(guards_ok);
    Problem q = segmented_problem(SampleType::f32, Binning::even, 16, 5, 5000);
    q.lower = 0;
    q.upper = 1;
    const auto f = samples_of<float>(q, 5000);
    const std::vector<std::int64_t> offsets = {-5, 100, 100, 6000, 2000, 4999};
    DeviceBytes df(f.size() * 4), d_offsets(offsets.size() * 8);
    HT_CUDA(cudaMemcpy(df.ptr, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
    HT_CUDA(cudaMemcpy(d_offsets.ptr, offsets.data(), offsets.size() * 8, cudaMemcpyHostToDevice));
    GuardedCounts64 seg(5 * 16);
    ASSERT_EQ(histtune_histogram_segmented_even_counts64_f32(
                  static_cast<const float*>(df.ptr), 5000, 5,
                  static_cast<const std::int64_t*>(d_offsets.ptr), 16, 0.0f, 1.0f, seg.get(),
                  nullptr),
              HISTTUNE_OK)
        << histtune_last_error();
    HT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(seg.read(guards_ok), widened(reference_histogram(q, f.data(), nullptr, offsets.data())));
    EXPECT_TRUE(guards_ok);
  }
}

// Refused calls of each family write nothing.
TEST(GpuCounts64Families, RefusedCallsLeaveTheCountsUntouched) {
  HT_REQUIRE_GPU();
  DeviceBytes d(4096);
  const auto* u8 = static_cast<const std::uint8_t*>(d.ptr);
  GuardedCounts64 counts(4 * 16);
  const std::vector<std::uint64_t> untouched(4 * 16, kGuardValue);
  EXPECT_EQ(histogram_multichannel_direct(u8, 100, 4, 5, 16, counts.get()).code(),
            StatusCode::invalid_argument);  // active > channels
  EXPECT_EQ(histogram_batched_direct(u8, 4, 100, 99, 16, counts.get()).code(),
            StatusCode::invalid_argument);  // row_stride < n
  EXPECT_EQ(histogram_segmented_direct(u8, 400, 4, nullptr, 16, counts.get()).code(),
            StatusCode::invalid_argument);  // no offsets
  EXPECT_EQ(histogram_batched_range(reinterpret_cast<const std::uint16_t*>(u8 + 1), 4, 100, 0, 16,
                                    reinterpret_cast<const std::uint16_t*>(u8), counts.get())
                .code(),
            StatusCode::invalid_argument);  // misaligned samples
  EXPECT_EQ(histogram_multichannel_range(reinterpret_cast<const std::int8_t*>(u8), 100, 4, 4, 256,
                                         reinterpret_cast<const std::int8_t*>(u8), counts.get())
                .code(),
            StatusCode::invalid_argument);  // i8 has at most 255 range bins
  EXPECT_EQ(histogram_segmented_even(reinterpret_cast<const double*>(u8), 10, 2,
                                     reinterpret_cast<const std::int64_t*>(u8), 4, 0.0, INFINITY,
                                     counts.get())
                .code(),
            StatusCode::invalid_argument);  // infinite bounds
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  EXPECT_EQ(counts.read(guards_ok), untouched);
}

// Past 2^32 per counter, in one call each (8.6 GB of u8 apiece; skipped without the memory):
// 2 channels of 2^32 + 3 rows; 2 rows of 2^32 + 3 samples 5 apart; a segment of 2^32 + 3
// samples between two short ones. Against counts of their periodic data worked out on the host.
TEST(GpuCounts64Families, PastTwoTo32ACounterInOneCall) {
  HT_REQUIRE_GPU();
  const std::uint64_t n = k2To32 + 3, total = 2 * n + 5;
  if (!has_free_memory(total)) GTEST_SKIP() << "needs " << total << " bytes of GPU memory";
  const auto block = random_block<std::uint8_t>(1000003, 0, 255);
  DeviceBytes d(total);
  fill_periodic(static_cast<std::uint8_t*>(d.ptr), total, block);
  const auto* samples = static_cast<const std::uint8_t*>(d.ptr);
  const auto same = [](std::uint8_t v) { return v; };
  bool guards_ok = false;
  {
    GuardedCounts64 counts(2 * 256);
    ASSERT_TRUE(histogram_multichannel_direct(samples, n, 2, 2, 256, counts.get()).ok());
    HT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(counts.read(guards_ok), periodic_channel_counts(block, n, 2, 2, 256, same));
    EXPECT_TRUE(guards_ok);
  }
  {
    GuardedCounts64 counts(2 * 64);
    ASSERT_TRUE(histogram_batched_even(samples, 2, n, n + 5, 64, 0, 256, counts.get()).ok());
    HT_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint64_t> expect;
    for (const std::uint64_t first : {std::uint64_t{0}, n + 5}) {
      const auto row = periodic_counts(block, first, n, 64, [](std::uint8_t v) { return v / 4u; });
      expect.insert(expect.end(), row.begin(), row.end());
    }
    EXPECT_EQ(counts.read(guards_ok), expect);
    EXPECT_TRUE(guards_ok);
  }
  {
    const std::vector<std::int64_t> offsets = {0, 7, static_cast<std::int64_t>(n + 7),
                                               static_cast<std::int64_t>(total)};
    DeviceBytes d_offsets(offsets.size() * 8);
    HT_CUDA(cudaMemcpy(d_offsets.ptr, offsets.data(), offsets.size() * 8, cudaMemcpyHostToDevice));
    GuardedCounts64 counts(3 * 256);
    ASSERT_TRUE(histogram_segmented_direct(samples, total, 3,
                                           static_cast<const std::int64_t*>(d_offsets.ptr), 256,
                                           counts.get())
                    .ok());
    HT_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint64_t> expect;
    for (std::size_t r = 0; r < 3; ++r) {
      const auto seg = periodic_counts(block, offsets[r], offsets[r + 1] - offsets[r], 256, same);
      expect.insert(expect.end(), seg.begin(), seg.end());
    }
    EXPECT_EQ(counts.read(guards_ok), expect);
    EXPECT_TRUE(guards_ok);
  }
}
