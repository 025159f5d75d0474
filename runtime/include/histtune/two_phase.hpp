// The two-phase flush shared by the kernel families: the histogram kernel stores each block's
// histogram as a row of a temporary `partials` buffer (HT_TWO_PHASE), and templates/reduce.cuh
// sums the rows into the output, which therefore needs no zeroing and takes no atomics.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

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

// Temporary device memory for one call, from the device's workspace pool (stream-ordered, so
// concurrent calls on other streams and graph capture are safe). The two-phase partials and the
// partition pass's workspace (hist1d storage 5) take it from here.
void* allocate_workspace(std::size_t bytes, int device, cudaStream_t stream);
// quiet: while another error propagates, a failing free is not reported over it.
void release_workspace(void* buffer, cudaStream_t stream, bool quiet);

// A prepared second phase: the reduce kernel loaded for the device.
class Reducer {
 public:
  Reducer() = default;
  Reducer(KernelCache& cache, const DeviceInfo& d);
  // Allocates rows x width counters from the device's workspace pool (stream-ordered, so
  // concurrent calls on other streams and graph capture are safe), runs first(partials), sums
  // the rows into counts and frees the buffer on the stream, also when either step throws.
  // A template, not a std::function: the callers' capturing lambdas would allocate per call.
  template <class First>
  void operator()(std::uint64_t rows, std::uint64_t width, std::uint32_t* counts,
                  cudaStream_t stream, First&& first) const {
    std::uint32_t* partials = allocate(rows, width, stream);
    try {
      first(partials);
      reduce(partials, rows, width, counts, stream);
    } catch (...) {
      release(partials, stream, /*quiet=*/true);
      throw;
    }
    release(partials, stream, /*quiet=*/false);
  }
  const Kernel& kernel() const { return kernel_; }

 private:
  std::uint32_t* allocate(std::uint64_t rows, std::uint64_t width, cudaStream_t stream) const;
  void reduce(std::uint32_t* partials, std::uint64_t rows, std::uint64_t width,
              std::uint32_t* counts, cudaStream_t stream) const;
  void release(std::uint32_t* partials, cudaStream_t stream, bool quiet) const {
    release_workspace(partials, stream, quiet);
  }

  Kernel kernel_;
  int device_ = -1;
  int sm_count_ = 1;
};

}  // namespace histtune::two_phase
