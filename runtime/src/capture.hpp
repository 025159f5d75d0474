// Whether work queued on a stream now goes into a graph (the zeroing choice of hist1d_launch.cpp,
// the workspace pool of two_phase.cpp).
#pragma once

#include <cuda_runtime_api.h>

namespace histtune {

// A query the stream cannot answer (the legacy stream while another captures) counts as not
// capturing, and its error is cleared: the call that follows reports the real one.
inline bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return status == cudaStreamCaptureStatusActive;
}

}  // namespace histtune
