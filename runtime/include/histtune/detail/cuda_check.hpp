// For histtune's own layers (not the public API): turns a failing CUDA runtime call into an Error naming the call, its place and the
// CUDA error's name and text.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "histtune/status.hpp"

namespace histtune::detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  (void)cudaGetLastError();  // clear a sticky non-fatal error so later calls are not blamed
  StatusCode code = (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                        ? StatusCode::no_device
                        : StatusCode::cuda_error;
  throw Error(code, std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                        cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace histtune::detail

#define HT_CUDA(call)                                                              \
  do {                                                                             \
    cudaError_t ht_e_ = (call);                                                    \
    if (ht_e_ != cudaSuccess) ::histtune::detail::throw_cuda(ht_e_, #call, __FILE__, __LINE__); \
  } while (0)
