// For histtune's own tests and tools: a host-to-device copy that has landed when it returns.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "histtune/detail/cuda_check.hpp"

namespace histtune::detail {

// Copies `bytes` from the host to `device_ptr` (memory of the current device) and returns once
// they have landed: a copy from pageable memory may return before its DMA does, and work on a
// non-blocking stream (the library's, a test's) does not wait for the legacy stream.
inline void upload_and_wait(void* device_ptr, const void* host, std::size_t bytes) {
  HT_CUDA(cudaMemcpy(device_ptr, host, bytes, cudaMemcpyHostToDevice));
  HT_CUDA(cudaDeviceSynchronize());
}

}  // namespace histtune::detail
