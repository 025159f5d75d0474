#include "histtune/tuner/timing.hpp"

#include <algorithm>

#include "histtune/detail/cuda_check.hpp"

namespace histtune::tuner {

Timing summarize(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.samples = static_cast<int>(n);
  return t;
}

Timing time_calls(const std::function<void(cudaStream_t, int)>& launch, cudaStream_t stream,
                  const TimingOptions& opt) {
  for (int i = 0; i < opt.warmup; ++i) launch(stream, i);
  const int reps = std::max(opt.repetitions, 1);
  std::vector<cudaEvent_t> ev(2 * static_cast<std::size_t>(reps));
  for (auto& e : ev) HT_CUDA(cudaEventCreate(&e));
  std::vector<double> ms;
  try {
    // All repetitions are queued before one synchronisation, so the host never starves the GPU.
    for (int r = 0; r < reps; ++r) {
      HT_CUDA(cudaEventRecord(ev[2 * r], stream));
      launch(stream, opt.warmup + r);
      HT_CUDA(cudaEventRecord(ev[2 * r + 1], stream));
    }
    HT_CUDA(cudaStreamSynchronize(stream));
    for (int r = 0; r < reps; ++r) {
      float t = 0;
      HT_CUDA(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]));
      ms.push_back(t);
    }
  } catch (...) {
    for (auto& e : ev) cudaEventDestroy(e);
    throw;
  }
  for (auto& e : ev) cudaEventDestroy(e);
  return summarize(ms);
}

}  // namespace histtune::tuner
