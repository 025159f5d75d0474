#include "histtune/tuner/tuner.hpp"

#include <algorithm>
#include <map>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/reference.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/search.hpp"

namespace histtune::tuner {

TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt) {
  TuneResult r;
  r.problem = p;
  r.template_hash = templates::get(hist1d::kTemplate).hash;
  const SearchSpace space = hist1d_search_space(p, d);
  std::unique_ptr<Strategy> strategy = make_strategy(opt.strategy);
  r.strategy = strategy->name();

  const std::vector<std::uint8_t> host = make_samples(p, opt.seed, opt.distribution);
  const std::vector<std::uint32_t> expect = reference_histogram(p, host.data());
  DeviceInputs inputs(p, host, d.l2_bytes);
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // Strategies that know their points up front get them compiled ahead, in order, on a pool:
  // one compile per distinct compile key not already loaded (configurations that differ only
  // at launch share a kernel). Others compile on demand.
  std::unique_ptr<CompilePool> pool;
  std::map<std::string, std::size_t> pool_index;  // cache key -> pool request
  std::size_t total = 0, evaluated = 0;
  auto plan = [&](const std::vector<Point>& pts) {
    std::vector<CompileRequest> reqs;
    for (const auto& pt : pts) {
      CompileRequest req = hist1d_request(hist1d_config_of(pt), p, d.arch());
      if (cache.contains(req)) continue;
      if (pool_index.emplace(cache_key(req), reqs.size()).second) reqs.push_back(req);
    }
    total = pts.size();
    pool = std::make_unique<CompilePool>(
        reqs, opt.compile_threads, [&cache](const CompileRequest& q) { return cache.compiled(q); });
  };

  auto objective = [&](const Point& pt) -> std::optional<double> {
    const Hist1DConfig c = hist1d_config_of(pt);
    if (auto it = opt.known.find(c.label()); it != opt.known.end()) {
      ++r.reused;
      ++evaluated;
      if (opt.on_progress) opt.on_progress(Progress{evaluated, std::max(total, evaluated), c.label()});
      return it->second.verified ? std::optional<double>(it->second.median_ms) : std::nullopt;
    }
    db::MeasurementRow m;
    m.config_label = c.label();
    m.params_json = c.to_json();
    m.template_hash = r.template_hash;
    m.histtune_version = version();
    std::optional<double> cost;
    try {
      const CompileRequest req = hist1d_request(c, p, d.arch());
      Kernel k;
      auto it = pool ? pool_index.find(cache_key(req)) : pool_index.end();
      if (it != pool_index.end()) {
        k = cache.load(req, pool->get(it->second), hist1d::kKernel);
      } else {
        if (!cache.contains(req)) ++r.compiled;
        k = cache.get(req, hist1d::kKernel);
      }
      Timing t = time_calls(
          [&](cudaStream_t s, int rep) {
            launch_hist1d(cache, k, c, p, d, inputs.samples(rep), inputs.counts(), s);
          },
          stream, opt.timing);
      HT_CUDA(cudaStreamSynchronize(stream));
      m.median_ms = t.median_ms;
      m.min_ms = t.min_ms;
      m.max_ms = t.max_ms;
      m.samples = t.samples;
      m.verified = inputs.read_counts(p.num_bins) == expect;
      if (m.verified) {
        cost = m.median_ms;
      } else {
        ++r.failed;
        r.errors.push_back(m.config_label + ": output differs from the host reference");
      }
      r.measurements.push_back(m);
      if (opt.on_measurement) opt.on_measurement(m);
    } catch (const Error& e) {
      // A sticky CUDA error (an illegal access) would poison every later measurement: stop.
      if (e.code() == StatusCode::cuda_error && cudaPeekAtLastError() != cudaSuccess) throw;
      ++r.failed;
      r.errors.push_back(m.config_label + ": " + e.what());
    }
    ++evaluated;
    if (opt.on_progress)
      opt.on_progress(Progress{evaluated, std::max(total, evaluated), m.config_label});
    return cost;
  };

  if (strategy->name() == std::string("annealing")) {
    const std::size_t valid = valid_points(space).size();
    total = opt.budget.max_evaluations ? std::min(opt.budget.max_evaluations, valid)
                                       : std::max<std::size_t>(valid / 10, 1);
  }
  SearchResult sr = strategy->run(space, objective, opt.budget, opt.seed, plan);
  cudaStreamDestroy(stream);
  if (pool) r.compiled += pool->size();
  r.pruned = sr.invalid_skipped;
  r.valid = sr.valid_points;
  r.stopped_early = sr.stopped_by_budget || sr.stopped_by_time;
  if (!sr.best.empty()) {
    r.winner = hist1d_config_of(sr.best).label();
    r.winner_ms = sr.best_cost;
  }
  return r;
}

void store(db::Database& database, const DeviceInfo& d, const TuneResult& r, bool measurements) {
  if (measurements) database.record_measurements(d.row(), r.problem.key(), r.measurements);
  if (!r.winner.empty())
    database.set_winner(d.row(), r.problem.key(), r.winner, r.winner_ms, r.template_hash,
                        version());
}

std::vector<Problem> default_plan() {
  std::vector<Problem> plan;
  for (int e : {16, 20, 24, 28}) {
    Problem p;
    p.sample_type = SampleType::u8;
    p.binning = Binning::direct;
    p.num_bins = 256;
    p.n = 1ull << e;
    plan.push_back(p);
  }
  for (std::uint32_t bins : {4096u, 256u}) {
    Problem u32;
    u32.sample_type = SampleType::u32;
    u32.num_bins = bins;
    u32.n = 1ull << 26;
    plan.push_back(u32);
  }
  Problem u16;
  u16.sample_type = SampleType::u16;
  u16.num_bins = 1024;
  u16.n = 1ull << 27;
  plan.push_back(u16);
  // Bins beyond shared memory: global and cluster storage.
  Problem large;
  large.sample_type = SampleType::u32;
  large.num_bins = 65536;
  large.n = 1ull << 26;
  plan.push_back(large);
  Problem fine;
  fine.sample_type = SampleType::f32;
  fine.binning = Binning::even;
  fine.n = 1ull << 24;
  fine.num_bins = static_cast<std::uint32_t>(fine.n / 16);
  fine.lower = 0;
  fine.upper = 100;
  plan.push_back(fine);
  return plan;
}

}  // namespace histtune::tuner
