#include "histtune/tuner/compare.hpp"

#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::tuner {

CompareRow compare(const DeviceInfo& d, const Problem& p, const Hist1DConfig& tuned,
                   KernelCache& cache, double read_gbps, Distribution dist,
                   const TimingOptions& timing, const std::string& skip_cub) {
  CompareRow row;
  row.problem = p;
  row.tuned_label = tuned.label();
  row.floor_ms = static_cast<double>(p.n * sample_bytes(p.sample_type)) / (read_gbps * 1e9) * 1e3;

  const std::vector<std::uint8_t> host = make_samples(p, 7, dist);
  const std::vector<std::uint32_t> expect = reference_histogram(p, host.data());
  DeviceInputs in(p, host, d.l2_bytes);
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  auto ours = [&](const Hist1DConfig& c, Timing& t, bool& ok) {
    Kernel k = cache.get(hist1d_request(c, p, d.arch()), hist1d::kKernel);
    t = time_calls([&](cudaStream_t s, int rep) {
      launch_hist1d(cache, k, c, p, d, in.samples(rep), in.counts(), s);
    }, stream, timing);
    HT_CUDA(cudaStreamSynchronize(stream));
    ok = in.read_counts(p.num_bins) == expect;
  };
  ours(tuned, row.tuned, row.tuned_ok);
  ours(hist1d::default_for(p, d), row.fallback, row.fallback_ok);
  if (!skip_cub.empty()) {
    row.cub_error = skip_cub;
    cudaStreamDestroy(stream);
    return row;
  }
  try {
    CubHistogram cub(p);
    row.cub = time_calls([&](cudaStream_t s, int rep) { cub.run(in.samples(rep), in.counts(), s); },
                         stream, timing);
    HT_CUDA(cudaStreamSynchronize(stream));
    row.cub_ok = in.read_counts(p.num_bins) == expect;
  } catch (const Error& e) {
    row.cub_error = e.what();
  }
  cudaStreamDestroy(stream);
  return row;
}

}  // namespace histtune::tuner
