// Holds a stream until the host has queued a sample's calls, so that the events around them time
// the GPU, not the host: without it the GPU runs each call as soon as it is queued, and calls
// shorter than the host takes to queue one (a memset and a launch: about 4-5 us on the H100's
// host) are timed at the host's pace, and any pause of the host thread lands inside a sample
// (H100: one kernel timed 4.4 and 5.3 us in one process, 16.6 and 19.9 us in another).
// A one-thread kernel spins on a flag in mapped host memory until release() sets it, or until a
// timeout, so that a host that never releases (or blocks on the held stream) cannot hang.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace histtune::tuner {

class StreamHold {
 public:
  // `slots` holds can be pending at once (one per sample of a batch); a hold waits at most
  // timeout_ms for its release.
  StreamHold(std::size_t slots, double timeout_ms);
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Clears every slot. Only while no hold is queued (the stream is idle); after it nothing is
  // held, so the stream of the last hold may be destroyed.
  void reset();
  // Queues on `stream` a kernel that waits until release(slot). Holds go on one stream.
  void hold(cudaStream_t stream, std::size_t slot);
  void release(std::size_t slot);
  // Holds that ended by the timeout since reset(): the samples behind them may include host time.
  // Read only once the stream is idle.
  int timeouts() const;
  std::size_t slots() const { return slots_; }
  double timeout_ms() const { return static_cast<double>(timeout_ns_) / 1e6; }

 private:
  std::size_t slots_;
  unsigned long long timeout_ns_;
  volatile int* flags_ = nullptr;  // mapped host memory: 1 = released
  volatile int* late_ = nullptr;   // 1 = that hold timed out
  volatile int* device_flags_ = nullptr;  // the same memory, as the device sees it
  bool held_ = false;
  cudaStream_t stream_ = nullptr;  // of the last hold: synchronized before the memory is freed
};

}  // namespace histtune::tuner
