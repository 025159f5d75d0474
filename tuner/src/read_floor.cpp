#include "histtune/detail/cuda_check.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/timing.hpp"

namespace histtune::tuner {

double measure_read_bandwidth(KernelCache& cache, const DeviceInfo& d, std::size_t bytes) {
  bytes = bytes / 16 * 16;
  const CompileRequest req{"read_floor.cuh", {}, d.arch(), "read_floor"};
  Kernel k = cache.get(req, "histtune_read_floor");
  void* d_data = nullptr;
  unsigned int* d_sink = nullptr;
  HT_CUDA(cudaMalloc(&d_data, bytes));
  HT_CUDA(cudaMalloc(&d_sink, sizeof(unsigned int)));
  Timing t;
  TimingOptions timing;
  timing.min_samples = 20;
  try {
    HT_CUDA(cudaMemset(d_data, 0x5a, bytes));  // never time reads of untouched pages
    unsigned long long n_vec = bytes / 16;
    const unsigned grid = static_cast<unsigned>(d.sm_count * 8);
    t = time_calls(
        [&](cudaStream_t s, int) {
          void* args[] = {&d_data, &n_vec, &d_sink};
          HT_CUDA(cudaLaunchKernel(k.func(), dim3(grid), dim3(256), args, 0, s));
        },
        nullptr, timing);
  } catch (...) {
    cudaFree(d_data);
    cudaFree(d_sink);
    throw;
  }
  cudaFree(d_data);
  cudaFree(d_sink);
  return static_cast<double>(bytes) / (t.median_ms * 1e-3) / 1e9;
}

}  // namespace histtune::tuner
