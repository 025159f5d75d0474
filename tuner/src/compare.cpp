#include "histtune/tuner/compare.hpp"

#include <functional>
#include <memory>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::tuner {

namespace {

// p: the compared problem with d_levels set (range binning).
using Launch = std::function<void(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                                  cudaStream_t)>;

// Times `calls` (one call per rep of the inputs), stream-launched, or with graph_calls > 0 as
// replays of one CUDA graph of graph_calls of them, then per call.
Timing time_side(const std::function<void(cudaStream_t, int)>& calls, cudaStream_t stream,
                 const TimingOptions& timing, int graph_calls) {
  if (graph_calls <= 0) return time_calls(calls, stream, timing);
  cudaGraph_t raw = nullptr;
  HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < graph_calls; ++i) calls(stream, i);
  } catch (...) {  // leave the stream usable: end the capture, drop what it held
    if (cudaStreamEndCapture(stream, &raw) == cudaSuccess && raw) cudaGraphDestroy(raw);
    throw;
  }
  HT_CUDA(cudaStreamEndCapture(stream, &raw));
  // Owned from here, so a failing instantiation or timing frees them too.
  const std::unique_ptr<CUgraph_st, decltype(&cudaGraphDestroy)> graph(raw, cudaGraphDestroy);
  cudaGraphExec_t raw_exec = nullptr;
  HT_CUDA(cudaGraphInstantiate(&raw_exec, graph.get(), 0));
  const std::unique_ptr<CUgraphExec_st, decltype(&cudaGraphExecDestroy)> exec(
      raw_exec, cudaGraphExecDestroy);
  Timing t = time_calls([&](cudaStream_t s, int) { HT_CUDA(cudaGraphLaunch(exec.get(), s)); },
                        stream, timing);
  HT_CUDA(cudaStreamSynchronize(stream));
  for (double* x : {&t.median_ms, &t.min_ms, &t.max_ms, &t.ci_half_width_ms}) *x /= graph_calls;
  for (double& x : t.sample_ms) x /= graph_calls;
  return t;
}

// Times `tuned`, `fallback` and CUB on the same inputs (drawn for p's sample type and bins,
// p.total_samples() of them), each verified against the host reference.
CompareRow measure(const DeviceInfo& d, const Problem& p, const Launch& tuned,
                   const Launch& fallback, double read_gbps, Distribution dist,
                   const TimingOptions& timing, const std::string& skip_cub, int graph_calls) {
  CompareRow row;
  row.problem = p;
  const std::uint64_t bytes = p.input_bytes();
  row.floor_ms = static_cast<double>(bytes) / (read_gbps * 1e9) * 1e3;

  const Problem flat = as_one_stream(p);
  const std::vector<std::uint8_t> host = make_inputs(p, 7, dist);  // weights too, if any
  const std::vector<std::uint8_t> levels =
      p.binning == Binning::range ? make_levels(p) : std::vector<std::uint8_t>{};
  const std::vector<std::int64_t> offsets =
      reads_offsets(p) ? make_offsets(p) : std::vector<std::int64_t>{};
  const std::vector<std::uint32_t> expect = reference_of(p, host, levels, offsets);
  const auto counters = static_cast<std::uint32_t>(expect.size());
  Problem sized = flat;
  sized.num_bins = counters;
  DeviceInputs in(sized, host, d.l2_bytes, levels, offsets);
  Problem run = p;
  run.d_levels = in.levels();
  run.d_offsets = in.offsets();
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  auto ours = [&](const Launch& launch, Timing& t, bool& ok) {
    t = time_side(
        [&](cudaStream_t s, int rep) {
          run.d_weights = weights_in(run, in.samples(rep));  // weighted: the copy's weights
          launch(run, in.samples(rep), in.counts(), s);
        },
        stream, timing, graph_calls);
    HT_CUDA(cudaStreamSynchronize(stream));
    ok = in.read_counts(counters) == expect;
  };
  ours(tuned, row.tuned, row.tuned_ok);
  ours(fallback, row.fallback, row.fallback_ok);
  if (!skip_cub.empty()) {
    row.cub_error = skip_cub;
    cudaStreamDestroy(stream);
    return row;
  }
  try {
    CubHistogram cub(run);
    row.cub = time_side([&](cudaStream_t s, int rep) { cub.run(in.samples(rep), in.counts(), s); },
                        stream, timing, graph_calls);
    HT_CUDA(cudaStreamSynchronize(stream));
    row.cub_ok = in.read_counts(counters) == expect;
  } catch (const Error& e) {
    row.cub_error = e.what();
  }
  cudaStreamDestroy(stream);
  return row;
}

}  // namespace

namespace {

// The launch of c for p's shape, prepared once as the runtime prepares it: each timed call is
// the runtime's call.
Launch prepared(KernelCache& cache, const DeviceInfo& d, const Problem& p, const ParamValues& c) {
  const KernelFamily& f = family_of(p);
  std::shared_ptr<const PreparedLaunch> launch =
      f.prepare(cache, cache.get(f.request(c, p, d.arch()), f.kernel_name()), c, p, d);
  return [launch](const Problem& q, const void* s, std::uint32_t* counts, cudaStream_t stream) {
    (*launch)(q, s, counts, stream);
  };
}

}  // namespace

CompareRow compare(const DeviceInfo& d, const Problem& p, const ParamValues& tuned,
                   KernelCache& cache, double read_gbps, Distribution dist,
                   const TimingOptions& timing, const std::string& skip_cub, int graph_calls) {
  const KernelFamily& f = family_of(p);
  CompareRow row = measure(d, p, prepared(cache, d, p, tuned),
                           prepared(cache, d, p, f.fallback(p, d)), read_gbps, dist, timing,
                           skip_cub, graph_calls);
  row.tuned_label = f.label(tuned);
  return row;
}

}  // namespace histtune::tuner
