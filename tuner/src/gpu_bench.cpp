// The GPU benches of the families: a problem's kernels compiled ahead on a pool, its inputs of
// each distribution drawn on other threads, each configuration timed on the device and verified
// against the host reference; tune() is tune_with over the bench of the problem's family.
#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/family.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {
namespace {

// The bench of p's family: configurations cross it as points of the family's grid.
class GpuBench : public Bench {
  using Clock = std::chrono::steady_clock;

 public:
  GpuBench(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt)
      : f_(family_of(p)),
        d_(d),
        p_(p),
        cache_(cache),
        timing_(opt.timing),
        turn_(opt.turn),
        hash_(f_.template_hash()),
        pool_(opt.compile_threads, [&cache](const CompileRequest& q) { return cache.compiled(q); },
              opt.compile_slots) {
    // Range problems: the levels every distribution is drawn in and verified with.
    if (p.binning == Binning::range) levels_ = make_levels(p);
    // Segmented problems: the segments every distribution is cut into.
    if (reads_offsets(p)) offsets_ = make_offsets(p);
    // Host samples and their reference histograms are drawn on other threads while the search
    // runs on the first distribution: large problems need seconds per distribution.
    for (Distribution dist : opt.distributions.empty()
                                 ? std::vector<Distribution>{Distribution::uniform}
                                 : opt.distributions) {
      if (pending_.count(dist)) continue;
      const std::uint64_t seed = opt.seed;
      pending_.emplace(dist, std::async(std::launch::async, [p, seed, dist, lv = levels_,
                                                             off = offsets_] {
                         Host h;
                         h.samples = make_inputs(p, seed, dist);  // weights too, if any
                         h.expect = reference_of(p, h.samples, lv, off);
                         return h;
                       }));
    }
    const auto turn = take_turn();
    HT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~GpuBench() override {
    // Freeing device memory waits for the whole device: not while another tuning times a call.
    const auto turn = take_turn();
    data_.clear();
    if (stream_) cudaStreamDestroy(stream_);
  }
  GpuBench(const GpuBench&) = delete;
  GpuBench& operator=(const GpuBench&) = delete;

  std::string label(const Point& pt) const override { return f_.label(values_of(f_, pt)); }
  std::string params_json(const Point& pt) const override {
    return f_.to_json(values_of(f_, pt));
  }
  std::string template_hash() const override { return hash_; }
  std::size_t kernels_loaded() const override { return loaded_.size(); }
  Spent spent() const override { return spent_; }

  void prefetch(const std::vector<Point>& pts) override {
    for (const Point& pt : pts) {
      for (const CompileRequest& req : f_.programs(values_of(f_, pt), p_, d_.arch())) {
        if (cache_.contains(req)) continue;
        const std::string key = cache_key(req);
        if (!queued_.count(key)) queued_.emplace(key, pool_.add(req));
      }
    }
  }

  Measured measure(const Point& pt, Distribution dist, const TimingOptions* how) override {
    const ParamValues c = values_of(f_, pt);
    Measured out;
    try {
      // Drawing the host inputs takes seconds on large problems: not while holding the turn.
      if (const auto it = pending_.find(dist); it != pending_.end() && !data_.count(dist))
        it->second.wait();
      std::unique_lock<std::mutex> turn;
      const Kernel k = kernel(c, turn);
      const auto t1 = Clock::now();
      Data& in = data(dist);
      Problem q = p_;
      q.d_levels = in.inputs->levels();    // range binning; null otherwise
      q.d_offsets = in.inputs->offsets();  // segmented rows; null otherwise
      // Prepared once, as the runtime prepares it per shape: each timed call is the runtime's.
      const std::unique_ptr<PreparedLaunch> launch = f_.prepare(cache_, k, c, q, d_);
      const auto t2 = Clock::now();
      out.timing = time_calls(
          [&](cudaStream_t s, int) {
            const void* copy = in.inputs->next();
            q.d_weights = weights_in(q, copy);  // weighted problems: the copy's weights
            (*launch)(q, copy, in.inputs->counts(), s);
          },
          stream_, how ? *how : timing_);
      HT_CUDA(cudaStreamSynchronize(stream_));
      spent_.calls_s += seconds(t2, Clock::now());
      for (const double ms : out.timing.sample_ms)
        spent_.samples_s += ms * out.timing.calls_per_sample / 1000;
      out.verified = in.inputs->counts_equal(in.expect);
      spent_.device_s += seconds(t1, Clock::now());
      if (!out.verified)
        out.error = std::string("output differs from the host reference (") + to_string(dist) +
                    " data)";
    } catch (const Error& e) {
      // A sticky CUDA error (an illegal access) would poison every later measurement: stop.
      if (e.code() == StatusCode::cuda_error && cudaPeekAtLastError() != cudaSuccess) throw;
      out.verified = false;
      out.error = e.what();
    }
    return out;
  }

 private:
  struct Host {
    std::vector<std::uint8_t> samples;
    std::vector<std::uint32_t> expect;
  };
  struct Data {
    std::vector<std::uint32_t> expect;
    std::unique_ptr<DeviceInputs> inputs;
  };

  Data& data(Distribution dist) {
    auto it = data_.find(dist);
    if (it != data_.end()) return it->second;
    const auto pending = pending_.find(dist);
    if (pending == pending_.end())  // a failure of this measurement, not of the device
      throw Error(StatusCode::invalid_argument,
                  std::string("no ") + to_string(dist) +
                      " inputs: this bench draws only its TuneOptions::distributions");
    Host h = pending->second.get();  // rethrows a failure to draw them
    Data fresh;
    Problem sized = as_one_stream(p_);  // the pool's counts buffer holds every counter
    sized.num_bins = static_cast<std::uint32_t>(f_.counters(p_));
    fresh.inputs = std::make_unique<DeviceInputs>(sized, h.samples, d_.l2_bytes, levels_, offsets_);
    fresh.expect = std::move(h.expect);
    return data_.emplace(dist, std::move(fresh)).first->second;
  }

  // c's kernel: its CUBIN and those of the other programs its launch loads built (the pool's,
  // the store's or NVRTC's on this thread) before the turn is taken, so other tunings time
  // meanwhile; loaded inside it.
  Kernel kernel(const ParamValues& c, std::unique_lock<std::mutex>& turn) {
    std::vector<CompileRequest> programs = f_.programs(c, p_, d_.arch());  // request()'s first
    const CompileRequest req = std::move(programs.front());
    const auto t0 = Clock::now();
    const std::optional<CompiledKernel> built = built_for(req);
    std::vector<std::pair<CompileRequest, CompiledKernel>> also;
    for (auto r = programs.begin() + 1; r != programs.end(); ++r)
      if (std::optional<CompiledKernel> b = built_for(*r))
        also.emplace_back(std::move(*r), std::move(*b));
    spent_.compile_wait_s += seconds(t0, Clock::now());
    turn = take_turn();
    const auto t1 = Clock::now();
    for (const auto& [r, b] : also) cache_.preload(r, b);
    const Kernel k =
        built ? cache_.load(req, *built, f_.kernel_name()) : cache_.get(req, f_.kernel_name());
    spent_.load_s += seconds(t1, Clock::now());
    return k;
  }

  // req's CUBIN where the cache has not loaded it: the pool's, else the store's or NVRTC's here.
  std::optional<CompiledKernel> built_for(const CompileRequest& req) {
    if (cache_.contains(req)) return std::nullopt;
    const std::string key = cache_key(req);
    loaded_.insert(key);
    const auto it = queued_.find(key);
    return it != queued_.end() ? pool_.get(it->second) : cache_.compiled(req);
  }

  std::unique_lock<std::mutex> take_turn() {
    return turn_ ? turn_->take() : std::unique_lock<std::mutex>();
  }

  static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  }

  const KernelFamily& f_;
  DeviceInfo d_;
  Problem p_;
  KernelCache& cache_;
  TimingOptions timing_;
  DeviceTurn* turn_;
  Spent spent_;
  std::string hash_;
  std::vector<std::uint8_t> levels_;    // range problems: make_levels(p_)
  std::vector<std::int64_t> offsets_;  // segmented problems: make_offsets(p_)
  std::map<Distribution, std::future<Host>> pending_;
  std::map<Distribution, Data> data_;
  // Declared after what its compile function uses; destroyed first: in-flight compiles finish.
  CompilePool pool_;
  std::map<std::string, std::size_t> queued_;  // cache key -> pool index
  std::set<std::string> loaded_;               // cache keys this bench loaded
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<Bench> make_bench(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                                  const TuneOptions& opt) {
  return std::make_unique<GpuBench>(d, p, cache, opt);
}

std::string template_hash_of(const Problem& p) { return family_of(p).template_hash(); }

TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt) {
  GpuBench bench(d, p, cache, opt);
  TuneOptions with = opt;
  add_built_in(with, p, d);
  return tune_with(p, search_space(p, d), bench, with);
}

}  // namespace histtune::tuner
