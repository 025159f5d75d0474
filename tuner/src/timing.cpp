#include "histtune/tuner/timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/tuner/stream_hold.hpp"

namespace histtune::tuner {

double median_ci_half_width(std::vector<double> ms) {
  const std::size_t n = ms.size();
  if (n < 2) return std::numeric_limits<double>::infinity();
  std::sort(ms.begin(), ms.end());
  const double half = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 sqrt(n) / 2
  const double nn = static_cast<double>(n);
  const auto clamp = [n](double i) {
    return static_cast<std::size_t>(std::clamp<double>(std::round(i), 1.0, static_cast<double>(n)));
  };
  const std::size_t j = clamp(nn / 2 - half), k = clamp(1 + nn / 2 + half);
  return 0.5 * (ms[k - 1] - ms[j - 1]);
}

namespace {

// The widest confidence interval that still counts as stable, for a median of `median_ms` a call.
// The events resolve a sample, not a call: a sample of k calls resolves each call to 1/k of that.
// (Until session 12 the floor was 0.5 us a call, 1-12% of a 4-50 us call: every such call of
// H100 plan h stopped at 10 samples, whatever its spread.)
double allowed_half_width(double median_ms, const TimingOptions& opt, int calls_per_sample) {
  return std::max(opt.target_rel * median_ms, opt.resolution_ms / std::max(calls_per_sample, 1));
}

}  // namespace

SamplingState sampling_state(const std::vector<double>& ms, double spent_ms,
                             const TimingOptions& opt, int calls_per_sample) {
  const int n = static_cast<int>(ms.size());
  const int max_samples = std::max(opt.max_samples, 1);
  if (n >= max_samples) return SamplingState::max_samples;
  if (n >= std::min(3, max_samples) && spent_ms >= opt.max_total_ms) return SamplingState::time_cap;
  if (n >= std::min(3, max_samples) && summarize(ms).median_ms > opt.give_up_above_ms)
    return SamplingState::given_up;
  if (n < std::min(std::max(opt.min_samples, 2), max_samples)) return SamplingState::more;
  const Timing t = summarize(ms);
  return t.ci_half_width_ms <= allowed_half_width(t.median_ms, opt, calls_per_sample)
             ? SamplingState::stable
             : SamplingState::more;
}

Timing summarize(std::vector<double> ms) {
  Timing t;
  if (ms.empty()) return t;
  t.sample_ms = ms;
  t.ci_half_width_ms = median_ci_half_width(ms);
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.samples = static_cast<int>(n);
  return t;
}

namespace {

// A thread's events, kept from one time_calls to the next, grown as needed.
class Events {
 public:
  Events() = default;
  void reserve(std::size_t n) {
    while (ev_.size() < n) {
      cudaEvent_t e = nullptr;
      HT_CUDA(cudaEventCreate(&e));
      ev_.push_back(e);
    }
  }
  ~Events() {
    for (auto& e : ev_)
      if (e) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  cudaEvent_t operator[](std::size_t i) const { return ev_[i]; }

 private:
  std::vector<cudaEvent_t> ev_;
};

}  // namespace

Timing time_calls(const std::function<void(cudaStream_t, int)>& launch, cudaStream_t stream,
                  const TimingOptions& opt) {
  int call = 0;
  if (opt.warmup > 0) launch(stream, call++);
  const int max_samples = std::max(opt.max_samples, 1);
  const int first = std::clamp(opt.min_samples, 1, max_samples);
  const int batch = std::max(opt.batch, 1);
  const std::size_t slots = static_cast<std::size_t>(std::max(first, batch));
  // Kept per thread and device: a fresh hold's pinned memory cost a millisecond or more a
  // measurement, its free a wait for the whole device.
  thread_local std::map<int, Events> events;
  thread_local std::map<int, std::unique_ptr<StreamHold>> holds;
  int device = 0;
  HT_CUDA(cudaGetDevice(&device));
  Events& ev = events[device];
  ev.reserve(2 * slots);
  StreamHold* hold = nullptr;
  if (opt.hold) {
    auto& kept = holds[device];
    if (!kept || kept->slots() < slots || kept->timeout_ms() != opt.hold_timeout_ms)
      kept = std::make_unique<StreamHold>(slots, opt.hold_timeout_ms);
    hold = kept.get();
    hold->reset();
  }
  int hold_timeouts = 0;
  // Sample s of a batch: its hold, its events around its calls, its release.
  const auto queue_sample = [&](std::size_t s, int calls) {
    if (hold) hold->hold(stream, s);
    HT_CUDA(cudaEventRecord(ev[2 * s], stream));
    for (int c = 0; c < calls; ++c) launch(stream, call++);
    HT_CUDA(cudaEventRecord(ev[2 * s + 1], stream));
    if (hold) hold->release(s);
  };
  const auto synchronize = [&] {
    HT_CUDA(cudaStreamSynchronize(stream));
    if (hold) {
      hold_timeouts += hold->timeouts();
      hold->reset();
    }
  };

  // One timed call says how many calls a sample needs to last min_sample_ms.
  int per_sample = 1;
  std::vector<double> ms;
  double spent = 0;  // ms the timed calls took
  int timed_calls = 1;
  bool far_over = false;
  {
    queue_sample(0, 1);
    synchronize();
    float t = 0;
    HT_CUDA(cudaEventElapsedTime(&t, ev[0], ev[1]));
    spent += t;
    if (opt.min_sample_ms > 0 && t < opt.min_sample_ms) {
      per_sample = static_cast<int>(std::ceil(opt.min_sample_ms / std::max<double>(t, 1e-4)));
      per_sample = std::clamp(per_sample, 1, std::max(opt.max_calls_per_sample, 1));
    }
    // The warm-up so far: one call before this one. Where it was enough, this call is a sample
    // like any other (if it needs no company); else it warms too, and so do a few more calls.
    int warmed = opt.warmup > 0 ? 1 : 0;
    if (warmed >= opt.warmup || warmed * t >= opt.warmup_ms) {
      if (per_sample == 1) ms.push_back(t);
    } else {
      for (++warmed; warmed < opt.warmup && warmed * t < opt.warmup_ms; ++warmed)
        launch(stream, call++);
    }
    // Racing: one sample this far over the bound says enough. A lone call shorter than a sample
    // is no such sample: it carries the GPU's start after the hold (H200: a 2.8 us kernel timed
    // alone took 5.7 us), so such a call is judged on its first sample below.
    far_over = per_sample == 1 && t > 1.5 * opt.give_up_above_ms;
    if (far_over) ms = {static_cast<double>(t)};
  }

  while (!far_over && sampling_state(ms, spent, opt, per_sample) == SamplingState::more) {
    const int n = static_cast<int>(ms.size());
    // Racing: the first 3 samples alone, then the rest if it is still in the race; a short call's
    // first sample alone before them, for the far-over test above.
    const bool racing = std::isfinite(opt.give_up_above_ms) && n < 3;
    const bool first_alone = racing && n == 0 && per_sample > 1;
    int want = batch;
    if (first_alone)
      want = 1;
    else if (n < first)
      want = racing ? 3 - n : first - n;
    want = std::min(want, max_samples - n);
    // Near the time cap, queue only what fits (but enough for 3 samples).
    const double per_sample_ms = spent / timed_calls * per_sample;
    if (per_sample_ms > 0) {
      const double room = std::floor((opt.max_total_ms - spent) / per_sample_ms);
      want = std::min(want, std::max({static_cast<int>(std::max(room, 0.0)), 3 - n, 1}));
    }
    // One synchronisation per batch; each sample runs only once it is queued whole.
    for (int s = 0; s < want; ++s) queue_sample(static_cast<std::size_t>(s), per_sample);
    timed_calls += want * per_sample;
    synchronize();
    for (int s = 0; s < want; ++s) {
      float t = 0;
      HT_CUDA(cudaEventElapsedTime(&t, ev[2 * s], ev[2 * s + 1]));
      spent += t;
      ms.push_back(static_cast<double>(t) / per_sample);
    }
    far_over = first_alone && ms.front() > 1.5 * opt.give_up_above_ms;
  }
  Timing out = summarize(ms);
  out.calls_per_sample = per_sample;
  out.hold_timeouts = hold_timeouts;
  out.stable = out.samples >= std::min(opt.min_samples, max_samples) &&
               out.ci_half_width_ms <= allowed_half_width(out.median_ms, opt, per_sample);
  return out;
}

}  // namespace histtune::tuner
