// What tuned kernels are held against, measured in the same run: CUB's DeviceHistogram (compiled
// by nvcc) and the device's read bandwidth (the floor).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"

namespace histtune::tuner {

// The peer p's family declares (KernelFamily::baseline(), workload.hpp): sizes CUB's temporary
// storage for p (first call) and runs its DeviceHistogram call, HistogramEven (direct binning as
// even bins over [0, num_bins)) or HistogramRange over p.d_levels, or their MultiHistogram forms
// for interleaved channels. Counts are overwritten, like ours. A family without a peer throws
// Error(invalid_argument), which `compare` reports in the CUB column.
// Above kMaxCubBins bins it throws too: CUB faulted at 4194304 bins (cub_histogram.cu), and a
// fault ends the process's CUDA context.
constexpr std::uint32_t kMaxCubBins = 1u << 20;
// Why CUB's DeviceHistogram cannot count p correctly (empty when it can): the sample types and
// bins where its own bugs give wrong counts or write out of bounds (issue 25 lists them), and the
// i64 and u64 even ranges its 64-bit arithmetic refuses or overflows. The constructor below
// throws with this reason.
std::string cub_refusal(const Problem& p);
class CubHistogram {
 public:
  explicit CubHistogram(const Problem& p);
  ~CubHistogram();
  CubHistogram(const CubHistogram&) = delete;
  CubHistogram& operator=(const CubHistogram&) = delete;
  void run(const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream);

 private:
  Problem p_;
  void* d_temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

// Read bandwidth in GB/s (1e9 bytes/s): a 16-byte-load streaming kernel over `bytes` of device
// memory, median of repetitions.
double measure_read_bandwidth(KernelCache& cache, const DeviceInfo& d, std::size_t bytes = 1ull << 30);

}  // namespace histtune::tuner
