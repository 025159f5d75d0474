#include "histtune/tuner/tuner.hpp"

#include <algorithm>
#include <map>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/reference.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::tuner {

TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt) {
  TuneResult r;
  r.problem = p;
  r.template_hash = templates::get(hist1d::kTemplate).hash;

  std::vector<Hist1DConfig> configs;
  for (const auto& c : hist1d::space()) {
    if (hist1d::check(c, p, d).empty())
      configs.push_back(c);
    else
      ++r.pruned;
  }
  // One compile per distinct compile key not already loaded; configurations differing only at
  // launch share it.
  constexpr std::size_t kCached = static_cast<std::size_t>(-1);
  std::vector<CompileRequest> reqs;
  std::map<std::string, std::size_t> req_of_key;
  std::vector<std::size_t> req_index;
  for (const auto& c : configs) {
    CompileRequest req = hist1d_request(c, p, d.arch());
    if (cache.contains(req)) {
      req_index.push_back(kCached);
      continue;
    }
    auto [it, fresh] = req_of_key.emplace(cache_key(req), reqs.size());
    if (fresh) reqs.push_back(req);
    req_index.push_back(it->second);
  }
  r.compiled = reqs.size();
  const std::vector<std::uint8_t> host = make_samples(p, opt.seed, opt.distribution);
  const std::vector<std::uint32_t> expect = reference_histogram(p, host.data());
  DeviceInputs inputs(p, host, d.l2_bytes);
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CompilePool pool(reqs, opt.compile_threads);

  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Hist1DConfig& c = configs[i];
    db::MeasurementRow m;
    m.config_label = c.label();
    m.params_json = c.to_json();
    m.template_hash = r.template_hash;
    try {
      const std::size_t ri = req_index[i];
      Kernel k = ri == kCached
                     ? cache.get(hist1d_request(c, p, d.arch()), hist1d::kKernel)
                     : cache.load(reqs[ri], pool.get(ri), hist1d::kKernel);
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
      if (!m.verified) {
        ++r.failed;
        r.errors.push_back(m.config_label + ": output differs from the host reference");
      }
      r.measurements.push_back(m);
    } catch (const Error& e) {
      // A sticky CUDA error (an illegal access) would poison every later measurement: stop.
      if (e.code() == StatusCode::cuda_error && cudaPeekAtLastError() != cudaSuccess) throw;
      ++r.failed;
      r.errors.push_back(m.config_label + ": " + e.what());
    }
    if (opt.on_progress) opt.on_progress(Progress{i + 1, configs.size(), m.config_label});
  }
  cudaStreamDestroy(stream);

  for (const auto& m : r.measurements)
    if (m.verified && (r.winner.empty() || m.median_ms < r.winner_ms)) {
      r.winner = m.config_label;
      r.winner_ms = m.median_ms;
    }
  return r;
}

void store(db::Database& database, const DeviceInfo& d, const TuneResult& r) {
  database.record_measurements(d.row(), r.problem.key(), r.measurements);
  if (!r.winner.empty())
    database.set_winner(d.row(), r.problem.key(), r.winner, r.winner_ms, r.template_hash);
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
  return plan;
}

}  // namespace histtune::tuner
