// On the GPU: a held stream times what the GPU does, not how fast the host queues it.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "gpu.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/tuner/stream_hold.hpp"
#include "histtune/tuner/timing.hpp"

using namespace histtune;

namespace {

// A stream and a small buffer to memset: a GPU operation of a microsecond or two.
struct Scratch {
  cudaStream_t stream = nullptr;
  void* buffer = nullptr;
  Scratch() {
    HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    HT_CUDA(cudaMalloc(&buffer, 4096));
  }
  ~Scratch() {
    cudaFree(buffer);
    cudaStreamDestroy(stream);
  }
};

// A call whose host side is slower than its GPU side: a sleep, then a 4 KiB memset.
tuner::Timing time_slow_host(Scratch& s, tuner::TimingOptions o, std::chrono::microseconds sleep) {
  return tuner::time_calls(
      [&](cudaStream_t st, int) {
        std::this_thread::sleep_for(sleep);
        HT_CUDA(cudaMemsetAsync(s.buffer, 0, 4096, st));
      },
      s.stream, o);
}

}  // namespace

TEST(StreamHoldGpu, TheStreamWaitsForTheRelease) {
  HT_REQUIRE_GPU();
  Scratch s;
  tuner::StreamHold hold(2, 5000);
  hold.hold(s.stream, 0);
  HT_CUDA(cudaMemsetAsync(s.buffer, 0, 4096, s.stream));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(cudaStreamQuery(s.stream), cudaErrorNotReady);  // still held
  hold.release(0);
  HT_CUDA(cudaStreamSynchronize(s.stream));
  EXPECT_EQ(hold.timeouts(), 0);
}

TEST(StreamHoldGpu, AHoldNeverReleasedEndsByItsTimeout) {
  HT_REQUIRE_GPU();
  Scratch s;
  tuner::StreamHold hold(1, 5);
  hold.hold(s.stream, 0);
  HT_CUDA(cudaStreamSynchronize(s.stream));  // returns after about 5 ms, unreleased
  EXPECT_EQ(hold.timeouts(), 1);
  hold.reset();
  EXPECT_EQ(hold.timeouts(), 0);
}

TEST(TimingGpu, HeldSamplesTimeTheGpuNotTheHost) {
  HT_REQUIRE_GPU();
  Scratch s;
  tuner::TimingOptions o;
  o.max_samples = 20;
  const auto sleep = std::chrono::microseconds(40);
  const tuner::Timing held = time_slow_host(s, o, sleep);
  o.hold = false;
  const tuner::Timing unheld = time_slow_host(s, o, sleep);
  // The memset takes a few microseconds on the GPU; queued one per 40+ us, unheld samples
  // stretch to the host's pace.
  EXPECT_LT(held.median_ms, 0.015) << "per-call median, held";
  EXPECT_GT(unheld.median_ms, 0.035) << "per-call median, not held";
  EXPECT_GT(held.calls_per_sample, 1);
  EXPECT_EQ(held.hold_timeouts, 0);
}

TEST(TimingGpu, AHostSlowerThanTheTimeoutIsCountedNotHung) {
  HT_REQUIRE_GPU();
  Scratch s;
  tuner::TimingOptions o;
  o.warmup = 0;
  o.min_samples = 3;
  o.max_samples = 3;
  o.min_sample_ms = 0;  // one call per sample
  o.hold_timeout_ms = 1;
  const tuner::Timing t = time_slow_host(s, o, std::chrono::milliseconds(5));
  EXPECT_EQ(t.samples, 3);
  EXPECT_GT(t.hold_timeouts, 0);
}

// The warm-up is three calls or a quarter of a millisecond of them, whichever comes first, the
// call that sizes a sample included when it is no sample: a call of four 1 GiB memsets (about
// 1.4 ms on an H100, 0.9 ms on an H200) warms once, a 4 KiB memset three times.
TEST(TimingGpu, ALongCallWarmsOnceAndAShortOneThreeTimes) {
  HT_REQUIRE_GPU();
  Scratch s;
  void* big = nullptr;
  const std::size_t big_bytes = std::size_t{1} << 30;
  HT_CUDA(cudaMalloc(&big, big_bytes));
  tuner::TimingOptions o;
  o.min_samples = o.max_samples = 5;
  int calls = 0;
  const auto time = [&](void* buffer, std::size_t bytes, int memsets) {
    calls = 0;
    return tuner::time_calls(
        [&](cudaStream_t st, int) {
          ++calls;
          for (int m = 0; m < memsets; ++m) HT_CUDA(cudaMemsetAsync(buffer, 0, bytes, st));
        },
        s.stream, o);
  };
  const tuner::Timing long_call = time(big, big_bytes, 4);
  const int long_calls = calls;
  const tuner::Timing short_call = time(s.buffer, 4096, 1);
  const int short_calls = calls;
  cudaFree(big);
  ASSERT_GE(long_call.median_ms, o.warmup_ms) << "the long call is not long on this GPU";
  EXPECT_EQ(long_call.calls_per_sample, 1);
  EXPECT_EQ(long_calls, 1 + 5) << "one warm-up, then 5 samples (the sizing call the first)";
  EXPECT_GT(short_call.calls_per_sample, 1);
  EXPECT_EQ(short_calls, 3 + 5 * short_call.calls_per_sample)
      << "a warm-up, the sizing call and one more, then 5 samples";
}

// Racing judges a short call on a sample of calls, not on its first call alone: a lone short call
// carries the GPU's start after the hold (in H200 plan h0 a 2.8 us kernel timed alone took
// 5.7 us, so nearly every candidate of a 2^12-sample problem was raced out on that one call).
// A call plainly over the bound still stops after that one sample.
TEST(TimingGpu, AShortCallIsRacedOnASampleOfCallsNotOnItsFirstCall) {
  HT_REQUIRE_GPU();
  Scratch s;
  tuner::TimingOptions o;
  o.max_samples = 20;
  const auto memset = [&](cudaStream_t st, int) {
    HT_CUDA(cudaMemsetAsync(s.buffer, 0, 4096, st));
  };
  const tuner::Timing alone = tuner::time_calls(memset, s.stream, o);
  ASSERT_GT(alone.calls_per_sample, 1) << "a 4 KiB memset is a short call";
  o.give_up_above_ms = 1.1 * alone.median_ms;  // the same call is inside the race
  const tuner::Timing inside = tuner::time_calls(memset, s.stream, o);
  EXPECT_GE(inside.samples, 3) << "median " << inside.median_ms << " ms, bound "
                               << o.give_up_above_ms << " ms";
  o.give_up_above_ms = alone.median_ms / 4;  // far over
  const tuner::Timing over = tuner::time_calls(memset, s.stream, o);
  EXPECT_EQ(over.samples, 1);
  EXPECT_GT(over.median_ms, 1.5 * o.give_up_above_ms);
}
