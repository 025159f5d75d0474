// Timing like nvbench: warm-up, CUDA events around every repetition, the median of the
// repetitions. Each repetition is one full call as users make it (zero the bins, launch).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace histtune::tuner {

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
};

struct TimingOptions {
  int warmup = 3;
  int repetitions = 15;  // at least 10
};

// Times launch(stream, rep) for every repetition. Returns when all are done.
Timing time_calls(const std::function<void(cudaStream_t, int)>& launch, cudaStream_t stream,
                  const TimingOptions& opt = {});

Timing summarize(std::vector<double> ms);

}  // namespace histtune::tuner
