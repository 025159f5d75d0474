// What histtune::nccl's GPU tests share: two GPUs (the tests skip, with the reason, where there
// are fewer), a comm on each from one process, device buffers, and shards' samples drawn on the
// host so that the reference is the host histogram of the concatenated shards.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/detail/upload.hpp"
#include "histtune/nccl.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::test {

// Why these tests cannot run here (fewer than two GPUs), or empty.
inline std::string no_two_gpus_reason() {
  if (std::string why = no_gpu_reason(); !why.empty()) return why;
  const int count = device_count();
  return count >= 2 ? std::string()
                    : "needs 2 GPUs, this machine has " + std::to_string(count);
}

#define HT_REQUIRE_TWO_GPUS()                                                        \
  do {                                                                               \
    const std::string ht_reason_ = ::histtune::test::no_two_gpus_reason();           \
    if (!ht_reason_.empty()) GTEST_SKIP() << "2-GPU test skipped: " << ht_reason_;   \
  } while (0)

#define HT_NCCL(call)                                                                 \
  do {                                                                                \
    ncclResult_t ht_r_ = (call);                                                      \
    ASSERT_EQ(ht_r_, ncclSuccess) << #call << ": " << ncclGetErrorString(ht_r_);      \
  } while (0)

// Device memory of `bytes` on `device`, freed when it goes.
class DeviceBytes {
 public:
  DeviceBytes(int device, std::size_t bytes) : device_(device) {
    HT_CUDA(cudaSetDevice(device));
    HT_CUDA(cudaMalloc(&p_, bytes ? bytes : 1));
  }
  ~DeviceBytes() {
    cudaSetDevice(device_);
    cudaFree(p_);
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  template <class T = void> T* get() const { return static_cast<T*>(p_); }

 private:
  int device_;
  void* p_ = nullptr;
};

// A copy of `host` on `device`, landed (the calls under test run on non-blocking streams).
inline std::unique_ptr<DeviceBytes> upload(int device, const std::vector<std::uint8_t>& host) {
  auto d = std::make_unique<DeviceBytes>(device, host.size());  // makes `device` current
  detail::upload_and_wait(d->get(), host.data(), host.size());
  return d;
}

inline std::vector<std::uint64_t> download(int device, const std::uint64_t* d_counts,
                                           std::uint32_t num_bins) {
  std::vector<std::uint64_t> host(num_bins);
  HT_CUDA(cudaSetDevice(device));
  HT_CUDA(cudaDeviceSynchronize());
  HT_CUDA(cudaMemcpy(host.data(), d_counts, num_bins * sizeof(std::uint64_t),
                     cudaMemcpyDeviceToHost));
  return host;
}

// The host histogram of several shards' samples (p's n is each shard's own), summed: that of
// their concatenation.
inline std::vector<std::uint64_t> reference_of(Problem p,
                                               const std::vector<std::vector<std::uint8_t>>& shards,
                                               const std::vector<std::uint8_t>& levels = {}) {
  std::vector<std::uint64_t> total(p.num_bins, 0);
  for (const auto& s : shards) {
    p.n = s.size() / sample_bytes(p.sample_type);
    const auto counts = reference_histogram(p, s.data(), levels.empty() ? nullptr : levels.data());
    for (std::size_t b = 0; b < counts.size(); ++b) total[b] += counts[b];
  }
  return total;
}

// Shard `rank`'s samples of p (p.n of them), the same on every process for the same seed.
inline std::vector<std::uint8_t> shard_samples(Problem p, std::uint64_t n, int rank,
                                               std::uint64_t seed = 30) {
  p.n = n;
  return tuner::make_samples(p, seed * 1000 + static_cast<std::uint64_t>(rank),
                             tuner::Distribution::mixed);
}

}  // namespace histtune::test
