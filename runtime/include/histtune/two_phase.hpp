// The two-phase flush shared by the kernel families: the histogram kernel stores each block's
// histogram as a row of a temporary `partials` buffer (HT_TWO_PHASE), and templates/reduce.cuh
// sums the rows into the output, which therefore needs no zeroing and takes no atomics.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"

namespace histtune::two_phase {

constexpr const char* kTemplate = "reduce.cuh";
constexpr const char* kKernel = "histtune_reduce";

// The reduce kernel for an architecture (one per architecture, no defines).
CompileRequest request(int arch);

// The most temporary memory one call's partial histograms may take on `d`: 1/64 of the device's
// memory, at most 256 MiB (the restriction that keeps blocks x bins bounded).
std::size_t max_bytes(const DeviceInfo& d);

// A prepared second phase: the reduce kernel loaded for the device.
class Reducer {
 public:
  Reducer() = default;
  Reducer(KernelCache& cache, const DeviceInfo& d);
  // Allocates rows x width counters from the device's workspace pool (stream-ordered, so
  // concurrent calls on other streams and graph capture are safe), runs first(partials), sums
  // the rows into counts and frees the buffer on the stream.
  void operator()(std::uint64_t rows, std::uint64_t width, std::uint32_t* counts,
                  cudaStream_t stream,
                  const std::function<void(std::uint32_t* partials)>& first) const;
  const Kernel& kernel() const { return kernel_; }

 private:
  Kernel kernel_;
  int device_ = -1;
  int sm_count_ = 1;
};

}  // namespace histtune::two_phase
