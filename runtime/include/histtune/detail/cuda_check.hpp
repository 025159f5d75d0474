// For histtune's own layers (not the public API): turns a failing CUDA runtime call into an Error
// naming the call as written (with its arguments) and the CUDA error's name and text. Not the
// source file and line: users would read the build machine's paths.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "histtune/status.hpp"

namespace histtune::detail {

[[noreturn]] inline void throw_cuda(cudaError_t e, const std::string& call) {
  (void)cudaGetLastError();  // clear a sticky non-fatal error so later calls are not blamed
  StatusCode code = (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                        ? StatusCode::no_device
                        : StatusCode::cuda_error;
  throw Error(code, call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace histtune::detail

#define HT_CUDA(call)                                                    \
  do {                                                                   \
    cudaError_t ht_e_ = (call);                                          \
    if (ht_e_ != cudaSuccess) ::histtune::detail::throw_cuda(ht_e_, #call); \
  } while (0)
