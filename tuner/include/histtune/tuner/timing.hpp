// Timing like nvbench: warm-up, CUDA events around every sample, each sample queued whole before
// the GPU starts it (a held stream), and samples until the median is stable (a noise criterion
// with a cap). Each call is one full call as users make it (zero the
// bins, launch); the caller's launch decides which input copy it reads (tuner/inputs.hpp rotates
// copies so that inputs smaller than L2 are still read from memory).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <limits>
#include <vector>

namespace histtune::tuner {

struct Timing {
  double median_ms = 0;  // per call
  double min_ms = 0;     // fastest sample, per call
  double max_ms = 0;     // slowest sample, per call
  int samples = 0;
  int calls_per_sample = 1;   // > 1 for calls shorter than TimingOptions::min_sample_ms
  double ci_half_width_ms = 0;  // of the median, 95%, distribution-free (median_ci_half_width)
  bool stable = false;          // the noise criterion was met (not a cap)
  int hold_timeouts = 0;        // samples whose hold ended by its timeout (may include host time)
  std::vector<double> sample_ms{};  // every sample, per call, in the order taken
};

// The stopping rule: at least min_samples; then stop as soon as the 95% confidence interval of
// the median is narrow (half-width <= target_rel x median, or <= the events' own resolution per
// call, resolution_ms / calls per sample, below which more samples tell nothing), or at
// max_samples, or once the samples add up to max_total_ms (a configuration that slow is nowhere
// near the best; it keeps >= 3 samples).
struct TimingOptions {
  // Warm-up: `warmup` calls, or fewer once they last warmup_ms: one call of a long kernel warms
  // it as well as three, which cost a plan seconds of the GPU (docs/tuning.md, "A cold plan").
  // The call that sizes a sample is one of them when it is no sample.
  int warmup = 3;
  double warmup_ms = 0.25;
  int min_samples = 10;
  int max_samples = 100;
  int batch = 10;  // samples queued per synchronisation after the first min_samples
  double target_rel = 0.01;
  double resolution_ms = 0.0005;  // CUDA events resolve about 0.5 us, per sample
  double max_total_ms = 1000;
  // Calls shorter than this are timed k at a time (k <= max_calls_per_sample, from the first
  // timed call), so that the events' resolution and the call-to-call jitter are a small part of
  // each sample (H100: one 19 us call per sample spread 17-54 us, and two medians of one kernel
  // taken side by side differed by 3.5%).
  double min_sample_ms = 0.25;
  int max_calls_per_sample = 64;
  // Each sample's calls are queued behind a StreamHold (tuner/stream_hold.hpp) and released at
  // once, so the events time the GPU running them back to back, not the host queuing them.
  bool hold = true;
  double hold_timeout_ms = 100;
  // Racing: a configuration whose median over its first 3 samples is above this (or whose first
  // timed call is above 1.5 times this) is plainly slower than the best one so far, and stops
  // there: a search needs its rank, not its third digit. Infinity: every configuration is timed
  // to the precision above.
  double give_up_above_ms = std::numeric_limits<double>::infinity();
};

enum class SamplingState { more, stable, max_samples, time_cap, given_up };

// Half-width of the distribution-free 95% confidence interval of the median of `ms`: order
// statistics j = round(n/2 - 0.98 sqrt(n)) and k = round(1 + n/2 + 0.98 sqrt(n)) (1-based,
// clamped), half of x(k) - x(j). Infinite for fewer than 2 samples.
double median_ci_half_width(std::vector<double> ms);

// Whether to take more samples, and if not, why. `ms` are per-call times of samples of
// `calls_per_sample` calls each; `spent_ms` is the time the samples took.
SamplingState sampling_state(const std::vector<double>& ms, double spent_ms,
                             const TimingOptions& opt, int calls_per_sample = 1);

// Times launch(stream, call) until sampling_state says stop; `call` counts every call, warm-ups
// included. Returns when all are done.
Timing time_calls(const std::function<void(cudaStream_t, int)>& launch, cudaStream_t stream,
                  const TimingOptions& opt = {});

// Median, min, max, count and the median's confidence interval of `ms` (stable is not set).
Timing summarize(std::vector<double> ms);

}  // namespace histtune::tuner
