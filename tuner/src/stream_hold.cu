#include "histtune/detail/cuda_check.hpp"
#include "histtune/tuner/stream_hold.hpp"

namespace histtune::tuner {
namespace {

__device__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void wait_for_release(const volatile int* flag, volatile int* late,
                                 unsigned long long timeout_ns) {
  const unsigned long long start = now_ns();
  while (*flag == 0) {
    if (now_ns() - start > timeout_ns) {
      *late = 1;
      return;
    }
    __nanosleep(500);  // a poll per half microsecond is plenty; spare the bus
  }
}

}  // namespace

StreamHold::StreamHold(std::size_t slots, double timeout_ms)
    : slots_(slots > 0 ? slots : 1),
      timeout_ns_(static_cast<unsigned long long>((timeout_ms > 0 ? timeout_ms : 1.0) * 1e6)) {
  void* p = nullptr;
  HT_CUDA(cudaHostAlloc(&p, 2 * slots_ * sizeof(int), cudaHostAllocMapped));
  flags_ = static_cast<volatile int*>(p);
  late_ = flags_ + slots_;
  void* d = nullptr;
  const cudaError_t e = cudaHostGetDevicePointer(&d, p, 0);
  if (e != cudaSuccess) {
    cudaFreeHost(p);
    HT_CUDA(e);
  }
  device_flags_ = static_cast<volatile int*>(d);
  reset();
}

StreamHold::~StreamHold() {
  // Never leave a held kernel reading freed memory: a hold still queued is released first.
  for (std::size_t i = 0; i < slots_; ++i) flags_[i] = 1;
  if (held_) cudaStreamSynchronize(stream_);
  cudaFreeHost(const_cast<int*>(flags_));
}

void StreamHold::reset() {
  for (std::size_t i = 0; i < 2 * slots_; ++i) flags_[i] = 0;
  held_ = false;
}

void StreamHold::hold(cudaStream_t stream, std::size_t slot) {
  const volatile int* flag = device_flags_ + slot % slots_;
  volatile int* late = device_flags_ + slots_ + slot % slots_;
  wait_for_release<<<1, 1, 0, stream>>>(flag, late, timeout_ns_);
  HT_CUDA(cudaGetLastError());
  held_ = true;
  stream_ = stream;
}

void StreamHold::release(std::size_t slot) {
  // A full barrier: the calls queued before are in the stream before the GPU can see the flag.
  __sync_synchronize();
  flags_[slot % slots_] = 1;
}

int StreamHold::timeouts() const {
  int n = 0;
  for (std::size_t i = 0; i < slots_; ++i) n += late_[i] != 0;
  return n;
}

}  // namespace histtune::tuner
