// The public API on a GPU: refused arguments launch nothing; many threads and streams at once;
// CUDA graph capture once warmed up. Skips, with the reason, without a GPU.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"

using namespace histtune;

namespace {

// Device memory for one test, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    HT_CUDA(cudaMalloc(&ptr_, sizeof(T) * (count ? count : 1)));
  }
  ~DeviceBuffer() { (void)cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  // Landed on return (test::upload), like fill_bytes: the graph test's stream is non-blocking.
  void upload(const std::vector<T>& h) { test::upload(ptr_, h.data(), sizeof(T) * h.size()); }
  std::vector<T> download() const {
    std::vector<T> h(count_);
    HT_CUDA(cudaMemcpy(h.data(), ptr_, sizeof(T) * count_, cudaMemcpyDeviceToHost));
    return h;
  }
  // Done on return: cudaMemset runs on the legacy stream, which a non-blocking stream's call
  // does not wait for (without the synchronisation that call could run first).
  void fill_bytes(int byte) {
    HT_CUDA(cudaMemset(ptr_, byte, sizeof(T) * count_));
    HT_CUDA(cudaDeviceSynchronize());
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_;
};

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> h(n);
  for (auto& v : h) v = static_cast<std::uint8_t>(rng());
  return h;
}

Problem u8_direct(std::uint64_t n, std::uint32_t bins = 256) {
  Problem p;
  p.num_bins = bins;
  p.n = n;
  return p;
}

TEST(GpuApiArguments, RefusedCallsLaunchNothing) {
  HT_REQUIRE_GPU();
  const std::size_t n = 4096;
  DeviceBuffer<float> samples(n);
  DeviceBuffer<std::uint32_t> counts(64);
  counts.fill_bytes(0xAB);  // a refused call must leave this untouched
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Status> refused = {
      histogram_even(samples.get(), n, 64, 1.0f, 1.0f, counts.get()),
      histogram_even(samples.get(), n, 64, nan, 1.0f, counts.get()),
      histogram_even(samples.get(), n, 0, 0.0f, 1.0f, counts.get()),
      histogram_even(samples.get(), kMaxSamples + 1, 64, 0.0f, 1.0f, counts.get()),
      histogram_even(static_cast<const float*>(nullptr), n, 64, 0.0f, 1.0f, counts.get()),
  };
  for (const Status& s : refused) EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_EQ(histtune_histogram_even_f32(samples.get(), n, 64, nan, 1.0f, counts.get(), nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  for (std::uint32_t c : counts.download()) ASSERT_EQ(c, 0xABABABABu);
}

TEST(GpuApiArguments, StreamOfAnotherDeviceIsRefused) {
  HT_REQUIRE_GPU();
  if (device_count() < 2) GTEST_SKIP() << "needs two GPUs to make a stream of another device";
  HT_CUDA(cudaSetDevice(1));
  cudaStream_t foreign = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&foreign, cudaStreamNonBlocking));
  HT_CUDA(cudaSetDevice(0));
  DeviceBuffer<std::uint8_t> samples(1024);
  DeviceBuffer<std::uint32_t> counts(256);
  counts.fill_bytes(0xAB);
  Status s = histogram_direct(samples.get(), 1024, 256, counts.get(), foreign);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_NE(s.message().find("the stream belongs to device 1 but the current device is 0"),
            std::string::npos) << s.message();
  EXPECT_EQ(histtune_histogram_direct_u8(samples.get(), 1024, 256, counts.get(), foreign),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("belongs to device 1"), std::string::npos);
  HT_CUDA(cudaDeviceSynchronize());
  for (std::uint32_t c : counts.download()) ASSERT_EQ(c, 0xABABABABu);
  // The same stream is fine once its device is current.
  HT_CUDA(cudaSetDevice(1));
  DeviceBuffer<std::uint8_t> samples1(1024);
  DeviceBuffer<std::uint32_t> counts1(256);
  const auto h = random_bytes(1024, 5);
  samples1.upload(h);
  s = histogram_direct(samples1.get(), 1024, 256, counts1.get(), foreign);
  EXPECT_TRUE(s.ok()) << s.message();
  HT_CUDA(cudaStreamSynchronize(foreign));
  EXPECT_EQ(counts1.download(), reference_histogram(u8_direct(1024), h.data()));
  HT_CUDA(cudaStreamDestroy(foreign));
  HT_CUDA(cudaSetDevice(0));
}

TEST(GpuApiArguments, StreamOfTheCurrentDeviceIsAccepted) {
  HT_REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t n = 100000;
  const auto h = random_bytes(n, 1);
  DeviceBuffer<std::uint8_t> samples(n);
  samples.upload(h);
  DeviceBuffer<std::uint32_t> counts(256);
  for (cudaStream_t s : {stream, cudaStream_t{nullptr}, cudaStreamPerThread, cudaStreamLegacy}) {
    counts.fill_bytes(0xAB);
    Status st = histogram_direct(samples.get(), n, 256, counts.get(), s);
    ASSERT_TRUE(st.ok()) << st.message();
    HT_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(counts.download(), reference_histogram(u8_direct(n), h.data()));
  }
  HT_CUDA(cudaStreamDestroy(stream));
}

TEST(GpuApiWarmPath, SameShapeWithOtherBoundsIsExactEachTime) {
  // The bounds are not part of the memoised (device, problem) key: each call passes its own.
  HT_REQUIRE_GPU();
  const std::size_t n = 1 << 18;
  std::mt19937 rng(11);
  std::vector<float> h(n);
  for (auto& v : h) v = static_cast<float>(rng() % 100000) / 1000.0f;  // [0, 100)
  DeviceBuffer<float> samples(n);
  samples.upload(h);
  DeviceBuffer<std::uint32_t> counts(64);
  for (auto [lower, upper] : {std::pair{0.0f, 100.0f}, {25.0f, 50.0f}, {-10.0f, 10.0f}, {0.0f, 100.0f}}) {
    Status s = histogram_even(samples.get(), n, 64, lower, upper, counts.get());
    ASSERT_TRUE(s.ok()) << s.message();
    Problem p;
    p.sample_type = SampleType::f32;
    p.binning = Binning::even;
    p.num_bins = 64;
    p.n = n;
    p.lower = lower;
    p.upper = upper;
    EXPECT_EQ(counts.download(), reference_histogram(p, h.data())) << p.describe();
  }
  DeviceBuffer<std::uint32_t> ints(n);
  std::vector<std::uint32_t> hi(n);
  for (auto& v : hi) v = static_cast<std::uint32_t>(rng() % 5000);
  ints.upload(hi);
  for (auto [lower, upper] : {std::pair{std::int64_t{0}, std::int64_t{5000}}, {1000, 1064}, {0, 7}}) {
    Status s = histogram_even(ints.get(), n, 64, lower, upper, counts.get());
    ASSERT_TRUE(s.ok()) << s.message();
    Problem p;
    p.sample_type = SampleType::u32;
    p.binning = Binning::even;
    p.num_bins = 64;
    p.n = n;
    p.lower = static_cast<double>(lower);
    p.upper = static_cast<double>(upper);
    EXPECT_EQ(counts.download(), reference_histogram(p, hi.data())) << p.describe();
  }
}

// ---- several threads and streams at once ----

// One thread's share: its own stream and buffers, several problems (so that first calls race to
// resolve and compile), every result checked bit-exact. `disp` null: the free functions.
void hammer(Dispatcher* disp, int thread, std::atomic<int>& wrong, std::string& error) {
  try {
    cudaStream_t stream = nullptr;
    HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const std::size_t max_n = 1 << 20;
    DeviceBuffer<std::uint8_t> samples(max_n);
    DeviceBuffer<std::uint32_t> counts(4096);
    const auto h = random_bytes(max_n, 100u + static_cast<unsigned>(thread));
    samples.upload(h);
    for (int round = 0; round < 5; ++round) {
      for (std::uint64_t n : {std::uint64_t{1000}, std::uint64_t{1} << 16, std::uint64_t{max_n}}) {
        for (std::uint32_t bins : {256u, 100u}) {
          Problem p = u8_direct(n, bins);
          Status s;
          if (bins == 100) {  // even bins over [0, 250)
            p.binning = Binning::even;
            p.lower = 0;
            p.upper = 250;
          }
          if (disp) {
            s = disp->run(p, samples.get(), counts.get(), stream);
          } else if (bins == 100) {
            s = histogram_even(samples.get(), n, bins, 0, 250, counts.get(), stream);
          } else {
            s = histogram_direct(samples.get(), n, bins, counts.get(), stream);
          }
          if (!s.ok()) throw Error(s.code(), s.message());
          HT_CUDA(cudaStreamSynchronize(stream));
          std::vector<std::uint32_t> got(bins);
          HT_CUDA(cudaMemcpy(got.data(), counts.get(), sizeof(std::uint32_t) * bins,
                             cudaMemcpyDeviceToHost));
          if (got != reference_histogram(p, h.data())) ++wrong;
        }
      }
    }
    HT_CUDA(cudaStreamDestroy(stream));
  } catch (const std::exception& e) {
    error = e.what();
  }
}

TEST(GpuApiThreads, ManyThreadsAndStreamsGetExactResults) {
  HT_REQUIRE_GPU();
  Dispatcher shared(std::string("/nonexistent/histtune-threads.db"));  // built-in defaults
  constexpr int kThreads = 8;
  std::atomic<int> wrong{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  // Half the threads share one Dispatcher, half go through the free functions.
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(hammer, t % 2 ? &shared : nullptr, t, std::ref(wrong),
                         std::ref(errors[static_cast<std::size_t>(t)]));
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[static_cast<std::size_t>(t)], "") << "thread " << t;
  EXPECT_EQ(wrong.load(), 0);
  // Every (problem) was resolved once, and each distinct kernel compiled at most once per racing
  // first call: the cache holds one entry per configuration.
  EXPECT_LE(shared.cache().size(), 6u);
}

// ---- CUDA graph capture, once warmed up ----

// The problems captured together: a grid that adds to zeroed counts (memset node + kernel), a
// small one, and even bins.
struct Captured {
  Problem p;
  std::size_t offset;  // into the shared sample buffer
};

std::vector<Captured> captured_problems() {
  Problem big = u8_direct(1 << 20);
  Problem small = u8_direct(3000);
  Problem even = u8_direct((1 << 18) + 7, 100);
  even.binning = Binning::even;
  even.lower = 10;
  even.upper = 240;
  return {{big, 0}, {small, 1 << 20}, {even, (1 << 20) + 4096}};
}

Status call(const Captured& c, const std::uint8_t* samples, std::uint32_t* counts,
            cudaStream_t stream) {
  if (c.p.binning == Binning::even)
    return histogram_even(samples + c.offset, c.p.n, c.p.num_bins, 10, 240, counts, stream);
  return histogram_direct(samples + c.offset, c.p.n, c.p.num_bins, counts, stream);
}

TEST(GpuApiGraph, CapturedCallsReplayBitExact) {
  HT_REQUIRE_GPU();
  const auto problems = captured_problems();
  const std::size_t total = (1 << 20) + 4096 + (1 << 18) + 7;
  DeviceBuffer<std::uint8_t> samples(total);
  std::vector<std::unique_ptr<DeviceBuffer<std::uint32_t>>> counts;
  for (const auto& c : problems)
    counts.push_back(std::make_unique<DeviceBuffer<std::uint32_t>>(c.p.num_bins));
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  auto h = random_bytes(total, 7);
  samples.upload(h);
  for (std::size_t i = 0; i < problems.size(); ++i) {  // warm-up, outside capture
    Status s = call(problems[i], samples.get(), counts[i]->get(), stream);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  HT_CUDA(cudaStreamSynchronize(stream));
  for (auto& c : counts) c->fill_bytes(0xAB);

  cudaGraph_t graph = nullptr;
  HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (std::size_t i = 0; i < problems.size(); ++i) {
    Status s = call(problems[i], samples.get(), counts[i]->get(), stream);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  HT_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_NE(graph, nullptr);
  std::size_t nodes = 0;
  HT_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_GE(nodes, problems.size());
  HT_CUDA(cudaDeviceSynchronize());
  for (auto& c : counts)  // captured, not run
    for (std::uint32_t v : c->download()) ASSERT_EQ(v, 0xABABABABu);

  cudaGraphExec_t exec = nullptr;
  HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    // New samples before each replay: the graph reads them when it runs. Replaying twice on the
    // same counts also shows they are zeroed by the graph, not added to.
    h = random_bytes(total, 8 + static_cast<unsigned>(replay));
    samples.upload(h);
    HT_CUDA(cudaGraphLaunch(exec, stream));
    HT_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < problems.size(); ++i)
      EXPECT_EQ(counts[i]->download(), reference_histogram(problems[i].p, h.data() + problems[i].offset))
          << problems[i].p.describe() << " replay " << replay;
  }
  HT_CUDA(cudaGraphExecDestroy(exec));
  HT_CUDA(cudaGraphDestroy(graph));
  HT_CUDA(cudaStreamDestroy(stream));
}

TEST(GpuApiGraph, FirstCallDuringCaptureIsRefusedAndTheCaptureSurvives) {
  HT_REQUIRE_GPU();
  Dispatcher fresh(std::string("/nonexistent/histtune-capture.db"));  // nothing resolved yet
  DeviceBuffer<std::uint8_t> samples(5000);
  DeviceBuffer<std::uint32_t> counts(256);
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  Status s = fresh.run(u8_direct(5000), samples.get(), counts.get(), stream);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  EXPECT_NE(s.message().find("during stream capture"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("make one call outside the capture first"), std::string::npos);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HT_CUDA(cudaStreamIsCapturing(stream, &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);  // not invalidated
  HT_CUDA(cudaStreamEndCapture(stream, &graph));
  HT_CUDA(cudaGraphDestroy(graph));
  // The per-thread default stream too is asked whether it captures.
  HT_CUDA(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal));
  s = fresh.run(u8_direct(5000), samples.get(), counts.get(), cudaStreamPerThread);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
  HT_CUDA(cudaStreamEndCapture(cudaStreamPerThread, &graph));
  HT_CUDA(cudaGraphDestroy(graph));
  // Warmed up, the same call captures.
  ASSERT_TRUE(fresh.run(u8_direct(5000), samples.get(), counts.get(), stream).ok());
  HT_CUDA(cudaStreamSynchronize(stream));
  HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  s = fresh.run(u8_direct(5000), samples.get(), counts.get(), stream);
  EXPECT_TRUE(s.ok()) << s.message();
  HT_CUDA(cudaStreamEndCapture(stream, &graph));
  HT_CUDA(cudaGraphDestroy(graph));
  HT_CUDA(cudaStreamDestroy(stream));
}

TEST(GpuApiGraph, WarmCallsOnAnotherStreamDuringAGlobalCaptureLeaveItValid) {
  // The device check of a non-capturing stream (cudaStreamGetDevice) runs while another stream
  // of this thread captures in global mode, where unsafe calls would invalidate that capture.
  HT_REQUIRE_GPU();
  const std::size_t n = 1 << 16;
  const auto h = random_bytes(n, 3);
  DeviceBuffer<std::uint8_t> samples(n);
  samples.upload(h);
  DeviceBuffer<std::uint32_t> counts(256), captured_counts(256);
  cudaStream_t capturing = nullptr, other = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&capturing, cudaStreamNonBlocking));
  HT_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  ASSERT_TRUE(histogram_direct(samples.get(), n, 256, counts.get(), other).ok());  // warm-up
  HT_CUDA(cudaDeviceSynchronize());

  cudaGraph_t graph = nullptr;
  HT_CUDA(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal));
  Status in_capture = histogram_direct(samples.get(), n, 256, captured_counts.get(), capturing);
  Status beside = histogram_direct(samples.get(), n, 256, counts.get(), other);
  cudaError_t end = cudaStreamEndCapture(capturing, &graph);
  EXPECT_TRUE(in_capture.ok()) << in_capture.message();
  EXPECT_TRUE(beside.ok()) << beside.message();
  ASSERT_EQ(end, cudaSuccess) << cudaGetErrorName(end) << ": " << cudaGetErrorString(end);
  cudaGraphExec_t exec = nullptr;
  HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  HT_CUDA(cudaGraphLaunch(exec, capturing));
  HT_CUDA(cudaDeviceSynchronize());
  const auto expected = reference_histogram(u8_direct(n), h.data());
  EXPECT_EQ(counts.download(), expected);
  EXPECT_EQ(captured_counts.download(), expected);
  HT_CUDA(cudaGraphExecDestroy(exec));
  HT_CUDA(cudaGraphDestroy(graph));
  HT_CUDA(cudaStreamDestroy(capturing));
  HT_CUDA(cudaStreamDestroy(other));
}

}  // namespace
