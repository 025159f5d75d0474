#include "histtune/tuner/tuner.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <memory>
#include <set>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/families.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/decide.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/version.hpp"

namespace histtune::tuner {
namespace {

// ---- the decision logic ------------------------------------------------------------------------

// The `count` fastest verified points of `seen`, fastest first (ties: simpler first).
std::vector<Point> fastest(const std::map<Point, std::optional<double>>& seen, std::size_t count) {
  std::vector<std::pair<double, Point>> ok;
  for (const auto& [pt, cost] : seen)
    if (cost) ok.emplace_back(*cost, pt);
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : simpler(a.second, b.second);
  });
  std::vector<Point> out;
  for (std::size_t i = 0; i < ok.size() && i < count; ++i) out.push_back(ok[i].second);
  return out;
}

// Evaluations the search will make, for the progress total (the strategy may make fewer).
std::size_t search_estimate(const std::string& strategy, const SearchBudget& b,
                            const SearchSpace& space) {
  if (b.max_evaluations) return b.max_evaluations;
  const std::size_t valid = valid_points(space).size();
  return strategy == "annealing" ? std::max<std::size_t>(valid / 10, 1) : valid;
}

}  // namespace

TuneResult tune_with(const Problem& p, const SearchSpace& space, Bench& bench,
                     const TuneOptions& opt) {
  TuneResult r;
  r.problem = p;
  r.template_hash = bench.template_hash();
  const std::vector<Distribution> dists =
      opt.distributions.empty() ? std::vector<Distribution>{Distribution::uniform}
                                : opt.distributions;
  for (Distribution d : dists) r.distributions.push_back(to_string(d));
  const std::unique_ptr<Strategy> strategy = make_strategy(opt.strategy);
  r.strategy = strategy->name();

  // Progress over the three phases: the estimate of what is left is refined as phases end.
  std::size_t rounds = static_cast<std::size_t>(std::max(opt.remeasure_rounds, 1));
  const std::size_t others = dists.size() - 1;
  // finalists, a neighbourhood (at most two points per parameter), the climb
  const std::size_t per_other =
      opt.finalists + 2 * (space.sizes.size() + space.coupled.size()) + opt.distribution_budget;
  const std::size_t climbing = others > 0 ? opt.worst_case_budget : 0;
  const std::size_t deciding = (opt.finalists + others + 2) * dists.size() * rounds;
  std::size_t done = 0;
  const std::size_t second = others > 0 ? opt.second_search_budget : 0;
  std::size_t total = search_estimate(r.strategy, opt.budget, space) + opt.polish_budget +
                      others * per_other + second + climbing + deciding;
  auto progress = [&](const std::string& what) {
    ++done;
    if (opt.on_progress) opt.on_progress(Progress{done, std::max(total, done), what});
  };

  // Every cost seen, per distribution (index into dists).
  std::vector<std::map<Point, std::optional<double>>> seen(dists.size());
  auto evaluate = [&](std::size_t di, const Point& pt) -> std::optional<double> {
    // A point is timed once per distribution: later phases that reach it again reuse its cost.
    if (const auto it = seen[di].find(pt); it != seen[di].end()) return it->second;
    const std::string label = bench.label(pt);
    const std::string dist = r.distributions[di];
    const std::string shown = di == 0 ? label : dist + ": " + label;
    std::optional<double> cost;
    if (auto it = opt.known.find({dist, label}); it != opt.known.end()) {
      ++r.reused;
      if (it->second.verified) cost = it->second.median_ms;
    } else {
      const Bench::Measured m = bench.measure(pt, dists[di]);
      if (m.timing.samples > 0) {  // timed (a compile failure is not a measurement)
        db::MeasurementRow row;
        row.config_label = label;
        row.params_json = bench.params_json(pt);
        row.median_ms = m.timing.median_ms;
        row.min_ms = m.timing.min_ms;
        row.max_ms = m.timing.max_ms;
        row.samples = m.timing.samples;
        row.verified = m.verified;
        row.template_hash = r.template_hash;
        row.histtune_version = version();
        row.distribution = dist;
        r.measurements.push_back(row);
        if (opt.on_measurement) opt.on_measurement(row);
      }
      if (m.verified) {
        cost = m.timing.median_ms;
      } else {
        ++r.failed;
        r.errors.push_back(shown + ": " + (m.error.empty() ? "failed" : m.error));
      }
    }
    seen[di][pt] = cost;
    progress(shown);
    return cost;
  };
  auto plan = [&](const std::vector<Point>& pts) { bench.prefetch(pts); };

  // 1. Search on the first distribution.
  SearchResult sr = strategy->run(
      space, [&](const Point& pt) { return evaluate(0, pt); }, opt.budget, opt.seed, plan,
      opt.starts);
  for (const Point& pt : opt.always)
    if (!seen[0].count(pt)) evaluate(0, pt);
  r.pruned = sr.invalid_skipped;
  r.valid = sr.valid_points;
  r.search_evaluations = sr.evaluations;
  r.stopped_early = sr.stopped_by_budget || sr.stopped_by_time;
  total = done + opt.polish_budget + others * per_other + second + climbing + deciding;

  // The climbs' objective: at most `limit` new measurements, counted in `spent`; points already
  // timed cost nothing, and past the limit every untimed point is a dead end.
  const auto budgeted = [&](std::size_t& spent, std::size_t limit) {
    return [&, limit](std::size_t di, const Point& pt) -> std::optional<double> {
      if (!seen[di].count(pt)) {
        if (spent == limit) return std::nullopt;
        ++spent;
      }
      return evaluate(di, pt);
    };
  };

  // 1b. Polish: climb from the fastest point found to a local optimum, so that where the search's
  //     budget ran out does not decide the winner.
  if (const std::vector<Point> top = fastest(seen[0], 1); opt.polish_budget > 0 && !top.empty()) {
    const auto capped = budgeted(r.polish_evaluations, opt.polish_budget);
    hill_climb(space, [&](const Point& pt) { return capped(0, pt); }, top, SearchBudget{},
               opt.seed, plan);
  }

  // 1c. The interacting parameters moved together around the best point, and a second polish
  //     from a faster one: the search settles in one basin of threads x copies x prefetch, and
  //     a better one three single moves away is behind points slower than both (H100, u8 64 bins
  //     2^24: 8 of 14 plans kept one basin, 6 the other, 3.4% apart).
  if (const std::vector<Point> top = fastest(seen[0], 1); opt.factorial && !top.empty()) {
    const std::vector<Point> combos = factorial(space, top.front());
    plan(combos);
    for (const Point& pt : combos) {
      if (!seen[0].count(pt)) ++r.factorial_evaluations;
      evaluate(0, pt);
    }
    if (const std::vector<Point> now = fastest(seen[0], 1);
        now.front() != top.front() && opt.polish_budget > 0) {
      const auto capped = budgeted(r.factorial_evaluations,
                                   r.factorial_evaluations + opt.polish_budget);
      hill_climb(space, [&](const Point& pt) { return capped(0, pt); }, now, SearchBudget{},
                 opt.seed + 1, plan, top.front());
    }
  }
  total = done + others * per_other + second + climbing + deciding;

  // 2. Each other distribution: its finalists, every one-step neighbour of the best of them
  //    there, then a short climb. A distribution's own best is often one switch away from the
  //    first distribution's (run merging on image-like data); a first-improvement climb wanders
  //    the plateau on timing noise and can miss it (H100 plans kept winners 40-54% apart on runs
  //    or skewed data), and a short annealing search from the finalists (tried: 40 evaluations)
  //    did not find it reliably either.
  std::vector<Point> finalists = fastest(seen[0], opt.finalists);
  // The always-measured points are finalists too: a default just behind the fastest on the
  // first distribution may have the best worst case (H100, u32 65536 bins: 0.1% slower on
  // uniform data, 24% faster on runs than the stored winner).
  for (const Point& pt : opt.always)
    if (seen[0].count(pt) && seen[0][pt] &&
        std::find(finalists.begin(), finalists.end(), pt) == finalists.end())
      finalists.push_back(pt);
  for (std::size_t di = 1; di < dists.size() && !finalists.empty(); ++di) {
    const auto on_di = [&](const Point& pt) { return evaluate(di, pt); };
    plan(finalists);
    for (const Point& pt : finalists) on_di(pt);
    Point centre;  // the best finalist there: the climb first repeats the step away from it
    if (const std::vector<Point> top = fastest(seen[di], 1); !top.empty()) {
      centre = top.front();
      const std::vector<Point> around = neighbours(space, centre);
      plan(around);
      for (const Point& pt : around) on_di(pt);
    }
    hill_climb(space, on_di, fastest(seen[di], 1), SearchBudget{1 + opt.distribution_budget, 0},
               opt.seed + di, plan, centre);
    total = done + (dists.size() - 1 - di) * per_other + second + climbing + deciding;
  }
  const auto best_on = [&](std::size_t di) {
    double b = kFailed;
    for (const auto& [pt, c] : seen[di])
      if (c) b = std::min(b, *c);
    return b;
  };

  // 2a. A second search where the first distribution's landscape is not another's: the
  //     neighbourhoods of phase 2 surround the first distribution's finalists, and a
  //     distribution whose optima lie elsewhere is left at whichever local optimum is nearest
  //     (H100, f32 1024 range bins: uniform data is flat, skewed, constant and runs data have
  //     local optima 2-6% apart). Annealing, whatever the first search's strategy: a local
  //     search with room to cross a ridge, from the best points there.
  if (second > 0 && !finalists.empty()) {
    std::size_t on = 0;
    double widest = 1 + opt.second_search_gap;
    if (const std::vector<Point> top = fastest(seen[0], 1); !top.empty())
      for (std::size_t di = 1; di < dists.size(); ++di) {
        const auto it = seen[di].find(top.front());
        const double best = best_on(di);
        if (it != seen[di].end() && it->second && best > 0 && *it->second / best > widest) {
          widest = *it->second / best;
          on = di;
        }
      }
    if (on > 0) {
      const SearchResult s2 = make_strategy("annealing")->run(
          space, [&](const Point& pt) { return evaluate(on, pt); },
          SearchBudget{opt.second_search_budget, 0}, opt.seed + 100 + on, plan,
          fastest(seen[on], 3));
      r.second_search = r.distributions[on];
      r.second_search_evaluations = s2.evaluations;
    }
  }
  total = done + climbing + deciding;

  // 2b. The compromise: climbs on the worst case. The phases above find each distribution's best;
  //     the point that is good on all of them can be a neighbour of none. Each distribution's best
  //     is first timed on the others: a specialist is often a few steps from the compromise, while
  //     the points measured everywhere so far are mostly uniform data's finalists (H100, f32 2^20
  //     bins: the best of those was 38% behind on constant data, and one climb from it spent its
  //     64 measurements walking back; constant data's best was 9% behind on runs and 3 steps
  //     from the compromise). The climbs start from the best worst cases, each to a local optimum,
  //     the next from the best start no earlier climb passed through, while the budget lasts.
  std::vector<Point> compromise;  // the first start and each climb's end
  if (opt.worst_case_budget > 0 && dists.size() > 1) {
    const auto capped = budgeted(r.worst_case_evaluations, opt.worst_case_budget);
    for (std::size_t di = 0; di < dists.size(); ++di)
      for (const Point& pt : fastest(seen[di], 1))
        for (std::size_t dj = 0; dj < dists.size(); ++dj) capped(dj, pt);
    std::vector<double> bests(dists.size());
    for (std::size_t di = 0; di < dists.size(); ++di) bests[di] = best_on(di);
    std::vector<std::pair<double, Point>> starts;  // (worst ratio, point), measured everywhere
    for (const auto& [pt, c0] : seen[0]) {
      std::vector<double> row(dists.size(), kFailed);
      for (std::size_t di = 0; di < dists.size(); ++di)
        if (const auto it = seen[di].find(pt); it != seen[di].end() && it->second)
          row[di] = *it->second;
      const double worst = worst_ratio(row, [&](std::size_t di) { return bests[di]; });
      if (std::isfinite(worst)) starts.emplace_back(worst, pt);
    }
    std::sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : simpler(a.second, b.second);
    });
    std::set<Point> passed;
    for (const auto& [worst, start] : starts) {
      if (compromise.size() == opt.worst_case_climbs + 1) break;
      if (passed.count(start)) continue;
      if (!compromise.empty() && r.worst_case_evaluations >= opt.worst_case_budget) break;
      const std::vector<Point> path = worst_case_climb(
          space, dists.size(), capped, best_on, start, opt.tie_tolerance, opt.worst_case_budget,
          plan, [&](const Point& pt) { return passed.count(pt) > 0; });
      passed.insert(path.begin(), path.end());
      if (compromise.empty()) compromise.push_back(path.front());
      compromise.push_back(path.back());
    }
  }
  total = done + deciding;

  // 3. Decide: the candidates re-timed on every distribution, interleaved, then the rules of
  //    tuner/decide.hpp.
  std::vector<Point> candidates = finalists;
  for (const Point& pt : compromise)
    if (std::find(candidates.begin(), candidates.end(), pt) == candidates.end())
      candidates.push_back(pt);
  if (const std::vector<Point> top = fastest(seen[0], 1);
      !top.empty() && seen[0][top.front()] && *seen[0][top.front()] < opt.short_problem_ms)
    rounds *= 2;
  for (std::size_t di = 1; di < dists.size(); ++di)
    for (const Point& pt : fastest(seen[di], 1))
      if (std::find(candidates.begin(), candidates.end(), pt) == candidates.end())
        candidates.push_back(pt);
  const std::size_t eligible = candidates.size();
  for (const Point& pt : opt.references)
    if (std::find(candidates.begin(), candidates.end(), pt) == candidates.end())
      candidates.push_back(pt);
  total = done + candidates.size() * dists.size() * rounds;
  std::vector<std::vector<double>> cost(candidates.size(),
                                        std::vector<double>(dists.size(), kFailed));
  DecisionNoise noise;  // each pooled median's relative 95% CI half-width
  noise.noise.assign(eligible, std::vector<double>(dists.size(), 0.0));
  for (std::size_t di = 0; di < dists.size(); ++di) {
    std::vector<std::vector<double>> pooled(candidates.size());
    std::vector<bool> failed(candidates.size(), false);
    for (std::size_t round = 0; round < rounds; ++round) {
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (failed[c]) {
          progress(bench.label(candidates[c]));
          continue;
        }
        const Bench::Measured m = bench.measure(candidates[c], dists[di]);
        if (!m.verified) {
          failed[c] = true;
          ++r.failed;
          r.errors.push_back(r.distributions[di] + ": " + bench.label(candidates[c]) +
                             " (re-timing): " + (m.error.empty() ? "failed" : m.error));
        } else {
          pooled[c].insert(pooled[c].end(), m.timing.sample_ms.begin(), m.timing.sample_ms.end());
        }
        progress("deciding: " + r.distributions[di] + ": " + bench.label(candidates[c]));
      }
    }
    for (std::size_t c = 0; c < candidates.size(); ++c)
      if (!failed[c] && !pooled[c].empty()) {
        const Timing t = summarize(pooled[c]);
        cost[c][di] = t.median_ms;
        if (c < eligible && t.median_ms > 0) noise.noise[c][di] = t.ci_half_width_ms / t.median_ms;
      }
  }
  // The first always-measured point (the built-in default) wins a tie: every run measures it.
  if (!opt.always.empty()) {
    const auto it = std::find(candidates.begin(), candidates.begin() + eligible, opt.always.front());
    if (it != candidates.begin() + eligible) noise.preferred = it - candidates.begin();
  }
  const RobustChoice choice =
      choose_robust(std::vector<Point>(candidates.begin(), candidates.begin() + eligible),
                    std::vector<std::vector<double>>(cost.begin(), cost.begin() + eligible),
                    opt.tie_tolerance, noise, opt.decision);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    Finalist f;
    f.label = bench.label(candidates[c]);
    double worst = 0;
    for (std::size_t di = 0; di < dists.size(); ++di) {
      const double v = cost[c][di];
      f.median_ms.push_back(std::isfinite(v) ? v : -1.0);
      worst = std::max(worst, std::isfinite(v) && choice.best[di] > 0 ? v / choice.best[di] : kFailed);
    }
    f.worst_ratio = c < eligible ? choice.worst_ratio[c] : worst;
    if (c < eligible) f.regret = choice.regret[c];
    (c < eligible ? r.finalists : r.references).push_back(std::move(f));
  }
  // A reference that was also a candidate is reported among the references too.
  for (const Point& pt : opt.references) {
    const auto it = std::find(candidates.begin(), candidates.begin() + eligible, pt);
    if (it != candidates.begin() + eligible) r.references.push_back(r.finalists[it - candidates.begin()]);
  }
  if (choice.robust != kNone) {
    r.winner = bench.label(candidates[choice.robust]);
    r.winner_ms = cost[choice.robust][0];
    r.winner_worst_ratio = choice.worst_ratio[choice.robust];
  }
  for (std::size_t di = 0; di < dists.size() && dists.size() > 1; ++di) {
    const std::size_t c = choice.per_distribution[di];
    if (c == kNone) continue;
    r.by_distribution.push_back(
        DistributionWinner{r.distributions[di], bench.label(candidates[c]), cost[c][di]});
  }
  r.compiled = bench.kernels_loaded();
  return r;
}

// ---- the GPU benches of the families ----------------------------------------------------------

namespace {

// The configuration at a point of the family's grid (tuner/search.hpp).
Hist1DConfig config_of(Hist1DFamily, const Point& pt) { return hist1d_config_of(pt); }
MultiChannelConfig config_of(MultiChannelFamily, const Point& pt) {
  return multichannel_config_of(pt);
}

// The inputs of p as one stream of p.total_samples() samples with room for every counter: a
// 1D problem is its own; a multi-channel problem's rows are drawn as flat samples (each channel
// then follows the distribution) and its active_channels x num_bins counters are read back.
Problem input_problem(const Problem& p) {
  if (p.family != multichannel::kFamily) return p;
  Problem flat = p;
  flat.family = hist1d::kFamily;
  flat.n = p.total_samples();
  flat.channels = flat.active_channels = 1;
  return flat;
}
std::uint32_t counters(const Problem& p) {
  return p.family == multichannel::kFamily ? p.num_bins * p.active_channels : p.num_bins;
}

template <class F>
class GpuBench : public Bench {
 public:
  GpuBench(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt)
      : d_(d),
        p_(p),
        cache_(cache),
        timing_(opt.timing),
        hash_(templates::get(F::kTemplate).hash),
        pool_(opt.compile_threads, [&cache](const CompileRequest& q) { return cache.compiled(q); }) {
    // Range problems: the levels every distribution is drawn in and verified with.
    if (p.binning == Binning::range) levels_ = make_levels(p);
    // Host samples and their reference histograms are drawn on other threads while the search
    // runs on the first distribution: large problems need seconds per distribution.
    for (Distribution dist : opt.distributions.empty()
                                 ? std::vector<Distribution>{Distribution::uniform}
                                 : opt.distributions) {
      if (pending_.count(dist)) continue;
      const std::uint64_t seed = opt.seed;
      pending_.emplace(dist, std::async(std::launch::async, [p, seed, dist, lv = levels_] {
                         Host h;
                         h.samples = make_samples(input_problem(p), seed, dist);
                         h.expect = reference_histogram(p, h.samples.data(),
                                                        lv.empty() ? nullptr : lv.data());
                         return h;
                       }));
    }
    HT_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~GpuBench() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  GpuBench(const GpuBench&) = delete;
  GpuBench& operator=(const GpuBench&) = delete;

  std::string label(const Point& pt) const override { return config_of(F{}, pt).label(); }
  std::string params_json(const Point& pt) const override { return config_of(F{}, pt).to_json(); }
  std::string template_hash() const override { return hash_; }
  std::size_t kernels_loaded() const override { return loaded_.size(); }

  void prefetch(const std::vector<Point>& pts) override {
    for (const Point& pt : pts) {
      const CompileRequest req = F::request(config_of(F{}, pt), p_, d_.arch());
      if (cache_.contains(req)) continue;
      const std::string key = cache_key(req);
      if (!queued_.count(key)) queued_.emplace(key, pool_.add(req));
    }
  }

  Measured measure(const Point& pt, Distribution dist) override {
    const typename F::Config c = config_of(F{}, pt);
    Measured out;
    try {
      Data& in = data(dist);
      Problem q = p_;
      q.d_levels = in.inputs->levels();  // range binning; null otherwise
      // Prepared once, as the runtime prepares it per shape: each timed call is the runtime's.
      const typename F::Launch launch(cache_, kernel(c), c, q, d_);
      out.timing = time_calls(
          [&](cudaStream_t s, int) { launch(q, in.inputs->next(), in.inputs->counts(), s); },
          stream_, timing_);
      HT_CUDA(cudaStreamSynchronize(stream_));
      out.verified = in.inputs->read_counts(counters(p_)) == in.expect;
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
    Problem sized = input_problem(p_);  // the pool's counts buffer holds every counter
    sized.num_bins = counters(p_);
    fresh.inputs = std::make_unique<DeviceInputs>(sized, h.samples, d_.l2_bytes, levels_);
    fresh.expect = std::move(h.expect);
    return data_.emplace(dist, std::move(fresh)).first->second;
  }

  Kernel kernel(const typename F::Config& c) {
    const CompileRequest req = F::request(c, p_, d_.arch());
    if (cache_.contains(req)) return cache_.get(req, F::kKernel);
    const std::string key = cache_key(req);
    loaded_.insert(key);
    if (auto it = queued_.find(key); it != queued_.end())
      return cache_.load(req, pool_.get(it->second), F::kKernel);
    return cache_.get(req, F::kKernel);  // the store, else NVRTC, on this thread
  }

  DeviceInfo d_;
  Problem p_;
  KernelCache& cache_;
  TimingOptions timing_;
  std::string hash_;
  std::vector<std::uint8_t> levels_;  // range problems: make_levels(p_)
  std::map<Distribution, std::future<Host>> pending_;
  std::map<Distribution, Data> data_;
  // Declared after what its compile function uses; destroyed first: in-flight compiles finish.
  CompilePool pool_;
  std::map<std::string, std::size_t> queued_;  // cache key -> pool index
  std::set<std::string> loaded_;               // cache keys this bench loaded
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<Bench> make_hist1d_bench(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                                         const TuneOptions& opt) {
  return std::make_unique<GpuBench<Hist1DFamily>>(d, p, cache, opt);
}

std::unique_ptr<Bench> make_multichannel_bench(const DeviceInfo& d, const Problem& p,
                                               KernelCache& cache, const TuneOptions& opt) {
  return std::make_unique<GpuBench<MultiChannelFamily>>(d, p, cache, opt);
}

std::string template_hash_of(const Problem& p) {
  return templates::get(p.family == multichannel::kFamily ? multichannel::kTemplate
                                                          : hist1d::kTemplate)
      .hash;
}

namespace {

// tune() for family F: the GPU bench, with the built-in default always measured and searched from.
template <class F>
TuneResult tune_family(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                       const TuneOptions& opt) {
  GpuBench<F> bench(d, p, cache, opt);
  TuneOptions with = opt;
  if (const std::optional<Point> pt = point_of_label(F::fallback(p, d).label(), p, d)) {
    with.always.push_back(*pt);
    // Annealing also searches around it: its neighbours may beat it.
    if (std::find(with.starts.begin(), with.starts.end(), *pt) == with.starts.end())
      with.starts.push_back(*pt);
  }
  return tune_with(p, search_space(p, d), bench, with);
}

}  // namespace

TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt) {
  return p.family == multichannel::kFamily ? tune_family<MultiChannelFamily>(d, p, cache, opt)
                                           : tune_family<Hist1DFamily>(d, p, cache, opt);
}

// ---- storage -----------------------------------------------------------------------------------

void resume_from(db::Database& database, const db::DeviceRow& device, const Problem& p,
                 const std::string& template_hash, TuneOptions& opt) {
  const db::ProblemRow key = p.key();
  for (auto& m : database.measurements(device.uuid, key))
    if (m.template_hash == template_hash)
      opt.known.emplace(MeasurementKey{m.distribution, m.config_label}, m);
  auto then = std::move(opt.on_measurement);
  opt.on_measurement = [&database, device, key, then](const db::MeasurementRow& m) {
    database.record_measurements(device, key, {m});
    if (then) then(m);
  };
}

void store(db::Database& database, const db::DeviceRow& device, const TuneResult& r,
           bool measurements) {
  const db::ProblemRow key = r.problem.key();
  if (measurements) database.record_measurements(device, key, r.measurements);
  if (r.winner.empty()) return;
  db::WinnerRow robust;
  robust.config_label = r.winner;
  robust.median_ms = r.winner_ms;
  robust.template_hash = r.template_hash;
  robust.histtune_version = version();
  std::vector<db::WinnerRow> per;
  for (const DistributionWinner& w : r.by_distribution) {
    db::WinnerRow row = robust;
    row.distribution = w.distribution;
    row.config_label = w.label;
    row.median_ms = w.median_ms;
    per.push_back(row);
  }
  database.set_winners(device, key, robust, per);
}

void store(db::Database& database, const DeviceInfo& d, const TuneResult& r, bool measurements) {
  store(database, d.row(), r, measurements);
}

std::vector<Point> tuning_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  const db::ProblemRow key = p.key();
  const auto lg = [](double v) { return std::log2(std::max(v, 1.0)); };
  // A sample type of the same width loads alike (0: a name this build does not know).
  const auto width = [](const std::string& type) -> std::size_t {
    const std::optional<SampleType> t = parse_sample_type(type);
    return t ? sample_bytes(*t) : 0;
  };
  std::vector<std::pair<double, const db::WinnerRow*>> near;
  for (const db::WinnerRow& w : winners) {
    const db::ProblemRow& q = w.problem;
    if (q == key || q.family != key.family || q.channels != key.channels ||
        q.active_channels != key.active_channels)
      continue;  // p's own winner is not a start: it is the answer
    // Another sample type or binning is further, not excluded: its kernel differs only in the
    // load and the bin computation, and without it the first problem of each kind started from
    // random points (H100 session 14: where two runs' winners were 2.3-2.6% apart, i32 direct
    // 4096 bins 2^22 and u32 even 1024 bins, a winner of another type or binning was one step
    // from, or was, the better one).
    double apart = std::fabs(lg(static_cast<double>(q.n)) - lg(static_cast<double>(p.n))) +
                   std::fabs(lg(q.num_bins) - lg(p.num_bins));
    if (q.sample_type != key.sample_type)
      apart += width(q.sample_type) == sample_bytes(p.sample_type) ? 2 : 4;
    if (q.binning != key.binning) apart += 4;
    near.emplace_back(apart, &w);
  }
  // Nearest first; among equals the order given (robust winners before the others).
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Point> out;
  for (const auto& [dist, w] : near) {
    if (out.size() >= max) break;
    const std::optional<Point> pt = point_of_label(w->config_label, p, d);
    if (pt && std::find(out.begin(), out.end(), *pt) == out.end()) out.push_back(*pt);
  }
  return out;
}

std::vector<Point> tuning_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  // Two queries, not one per tuned problem; each robust winner is followed by its problem's
  // per-distribution winners (the order among equally near starts).
  const std::vector<db::WinnerRow> per = database.distribution_winners(d.uuid);
  std::vector<db::WinnerRow> winners;
  for (db::WinnerRow& w : database.winners(d.uuid)) {
    const db::ProblemRow of = w.problem;
    winners.push_back(std::move(w));
    for (const db::WinnerRow& pw : per)
      if (pw.problem == of) winners.push_back(pw);
  }
  return tuning_starts(winners, d, p, max);
}

std::vector<Point> hist1d_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  return tuning_starts(winners, d, p, max);
}

std::vector<Point> hist1d_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  return tuning_starts(database, d, p, max);
}

// ---- the default plan --------------------------------------------------------------------------

std::vector<Problem> default_plan() {
  // Sample types x bin counts x sizes x binning: 31 1D problems (one range-binned), then 3
  // multi-channel ones.
  // Problems of one sample type and binning share their kernels (the bin count and n are launch
  // arguments), so each group after its first problem mostly reuses compiled kernels; every
  // winner starts the searches of the next ones, its own group's first (tuning_starts).
  struct Row {
    SampleType type;
    Binning binning;
    std::uint32_t bins;  // 0: n / 16
    int log2_n;
    double lower, upper;  // even binning; range binning: the levels' span
  };
  const Row rows[] = {
      // u8: the classic 256-bin image histogram over four decades of size, fewer bins.
      {SampleType::u8, Binning::direct, 256, 16, 0, 0},
      {SampleType::u8, Binning::direct, 256, 20, 0, 0},
      {SampleType::u8, Binning::direct, 256, 24, 0, 0},
      {SampleType::u8, Binning::direct, 256, 28, 0, 0},
      {SampleType::u8, Binning::direct, 64, 24, 0, 0},
      {SampleType::u8, Binning::even, 64, 24, 0, 256},
      // u16: 10-bit and 12-bit sensor data, all 65536 values, coarse even bins.
      {SampleType::u16, Binning::direct, 1024, 20, 0, 0},
      {SampleType::u16, Binning::direct, 1024, 24, 0, 0},
      {SampleType::u16, Binning::direct, 4096, 24, 0, 0},
      {SampleType::u16, Binning::direct, 65536, 24, 0, 0},
      {SampleType::u16, Binning::even, 256, 26, 0, 65536},
      // u32 keys: small to beyond-shared-memory bin counts.
      {SampleType::u32, Binning::direct, 256, 20, 0, 0},
      {SampleType::u32, Binning::direct, 256, 26, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::u32, Binning::direct, 4096, 26, 0, 0},
      {SampleType::u32, Binning::direct, 65536, 26, 0, 0},
      {SampleType::u32, Binning::even, 1024, 24, 0, 1 << 20},
      // i32: signed ranges.
      {SampleType::i32, Binning::direct, 4096, 22, 0, 0},
      {SampleType::i32, Binning::even, 256, 24, -1000, 1000},
      {SampleType::i32, Binning::even, 65536, 26, -(1 << 20), 1 << 20},
      // f32: the float path over sizes and bin counts up to one bin per 16 samples.
      {SampleType::f32, Binning::even, 64, 24, 0, 1},
      {SampleType::f32, Binning::even, 256, 16, 0, 100},
      {SampleType::f32, Binning::even, 256, 20, 0, 100},
      {SampleType::f32, Binning::even, 256, 24, 0, 100},
      {SampleType::f32, Binning::even, 256, 28, 0, 100},
      {SampleType::f32, Binning::even, 1024, 26, 0, 1},
      {SampleType::f32, Binning::even, 4096, 24, -1, 1},
      {SampleType::f32, Binning::even, 65536, 24, 0, 100},
      {SampleType::f32, Binning::even, 0, 20, 0, 100},
      {SampleType::f32, Binning::even, 0, 24, 0, 100},
      // Caller-given levels: make_levels' quadratic spacing over [0, 100], staged in shared memory.
      {SampleType::f32, Binning::range, 1024, 24, 0, 100},
  };
  std::vector<Problem> plan;
  for (const Row& row : rows) {
    const std::uint64_t n = std::uint64_t{1} << row.log2_n;
    const bool bounded = row.binning != Binning::direct;
    plan.push_back(flat_problem(row.type, row.binning,
                                row.bins ? row.bins : static_cast<std::uint32_t>(n / 16), n,
                                bounded ? row.lower : 0, bounded ? row.upper : 0));
  }
  // Multi-channel rows (searched with the same strategy and budget): RGBA 8K frames with the
  // three colour channels counted, [1048576, 512] u8 columns, 12-bit RGBA 4K frames.
  struct ChannelRow {
    SampleType type;
    std::uint32_t bins;
    std::uint64_t rows;
    std::uint32_t channels, active;
  };
  const ChannelRow channel_rows[] = {
      {SampleType::u8, 256, 7680ull * 4320, 4, 3},
      {SampleType::u8, 256, 1048576, 512, 512},
      {SampleType::u16, 4096, 3840ull * 2160, 4, 4},
  };
  for (const ChannelRow& row : channel_rows) {
    plan.push_back(multichannel_problem(row.type, row.channels, row.active, row.rows, row.bins));
  }
  return plan;
}

}  // namespace histtune::tuner
