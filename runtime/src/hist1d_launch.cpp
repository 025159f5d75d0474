// The 1D family's prepared launch: geometry and shared-memory limit once per shape, then per
// call the zeroing (where the kernel adds: on sm_90 a kernel the histogram kernel overlaps), the
// kernel (a cluster launch for cluster storage), a two-phase configuration's reduction, or
// partitioned storage's rounds of three kernels.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "capture.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/hist1d.hpp"

namespace histtune {

namespace {

// $HISTTUNE_PDL=0 (or off): zero the counts with cudaMemsetAsync and launch every kernel in plain
// stream order, as before sm_90 (for side-by-side timing, or a profiler that serialises
// launches). Read once.
bool pdl_allowed() {
  static const bool on = [] {
    const char* v = std::getenv("HISTTUNE_PDL");
    return !v || (std::strcmp(v, "0") != 0 && std::strcmp(v, "off") != 0);
  }();
  return on;
}

// Whether the partitioned passes launch as programmatic dependents (sm_90 and newer, PDL allowed).
bool programmatic_passes(int arch) { return arch >= 90 && pdl_allowed(); }

// Partitioned storage's three passes start as programmatic dependents of the kernel before them
// on sm_90 (they wait for it in the kernel, hist1d.cuh's ht_wait_prior_pass): their launch and
// set-up hide behind its last blocks, and the count pass's first blocks start as soon as the
// sizes pass has seen the partition pass complete.
void launch_pass(const Kernel& k, unsigned grid, unsigned block, std::size_t smem, void** args,
                 int arch, cudaStream_t stream) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = programmatic_passes(arch) ? 1 : 0;
  HT_CUDA(cudaLaunchKernelExC(&cfg, k.func(), args));
}

}  // namespace

Hist1DLaunch::Hist1DLaunch(KernelCache& cache, const Kernel& k, const Hist1DConfig& c,
                           const Problem& p, const DeviceInfo& d)
    : kernel_(k), geometry_(hist1d::geometry(c, p, d)), cluster_(c.cluster) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
  // A single block stores every count itself, a two-phase reduction and a partitioned count pass
  // store them too; everything else adds to zeroed counts. An empty input launches nothing: its
  // counts are zeroed.
  two_phase_ = c.two_phase == 1 && p.n > 0;
  const bool partitioned = c.storage == Storage::partitioned;
  zero_counts_ = (!c.single_block && !two_phase_ && !partitioned) || p.n == 0;
  // Where it pays (hist1d::zeroing), a zeroing kernel of the same module replaces the memset,
  // and the histogram kernel starts while it runs (hist1d.cuh, ht_wait_zeroed).
  const hist1d::Zeroing zeroing = hist1d::zeroing(p, d);
  if (zero_counts_ && zeroing != hist1d::Zeroing::memset && pdl_allowed()) {
    zero_kernel_ = cache.get(hist1d::request(c, p, d.arch()), hist1d::kZeroKernel);
    zero_in_graphs_only_ = zeroing == hist1d::Zeroing::kernel_in_graphs;
  }
  if (two_phase_) reducer_ = two_phase::Reducer(cache, d);
  if (partitioned) {
    const CompileRequest module = hist1d::count_request(c, p, d.arch());
    count_kernel_ = cache.get(module, hist1d::kCountKernel);
    sizes_kernel_ = cache.get(module, hist1d::kSizesKernel);
    device_ = d;
    // The partition's bins and a sink word, and with range binning its levels (hist1d.cuh).
    count_smem_ = hist1d::count_pass_smem(hist1d::partition_bits(p, d.arch()),
                                          hist1d::staged_level_bytes(p));
    cache.ensure_smem(count_kernel_, d.ordinal, count_smem_);
    round_ = std::min(hist1d::partition_chunk(c, p, d), p.n);
    workspace_bytes_ = hist1d::partition_workspace_bytes(c, p, round_, d.arch());
    partitions_ = hist1d::partitions(p, d.arch());
  }
}

Hist1DArgs Hist1DLaunch::args(const Problem& p, const void* d_samples,
                              std::uint32_t* d_counts) const {
  KernelArgs a = KernelArgs::of(p, d_samples, d_counts, geometry_.row_stride);
  a.slices = geometry_.slices;
  return a;
}

void Hist1DLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                              cudaStream_t stream) const {
  // zero_kernel_ is set only where the counts are zeroed.
  if (p.n > 0 && zero_kernel_.handle && (!zero_in_graphs_only_ || capturing(stream))) {
    zero(p, d_counts, stream);
    return launch_kernel(p, d_samples, d_counts, stream, /*programmatic=*/true);
  }
  if (zero_counts_)
    HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * p.num_bins, stream));
  if (p.n == 0) return;
  if (two_phase_) {
    reducer_(geometry_.grid, p.num_bins, d_counts, stream,
             [&](std::uint32_t* partials) { launch_kernel(p, d_samples, partials, stream); });
    return;
  }
  if (round_ > 0) return launch_partitioned(p, d_samples, d_counts, stream);
  launch_kernel(p, d_samples, d_counts, stream);
}

void Hist1DLaunch::launch_partitioned(const Problem& p, const void* d_samples,
                                      std::uint32_t* d_counts, cudaStream_t stream) const {
  void* work = two_phase::allocate_workspace(workspace_bytes_, device_.ordinal, stream);
  try {
    const auto* bytes = static_cast<const std::uint8_t*>(d_samples);
    for (std::uint64_t first = 0; first < p.n; first += round_) {
      Problem part = p;
      part.n = std::min(round_, p.n - first);
      launch_kernel(part, bytes + first * sample_bytes(p.sample_type),
                    static_cast<std::uint32_t*>(work), stream,
                    /*programmatic=*/programmatic_passes(device_.arch()));
      unsigned long long n = part.n;
      unsigned int bins = p.num_bins, accumulate = first > 0;
      unsigned int target = hist1d::partition_target(part.n, p, device_);
      const void* levels = p.d_levels;  // the count pass's (range binning); the sizes pass
                                        // takes the first six
      void* args[] = {&work, &n, &bins, &d_counts, &accumulate, &target, &levels};
      launch_pass(sizes_kernel_, partitions_, 256, 0, args, device_.arch(), stream);
      // At most a block per partition plus one per target's samples (hist1d.cuh).
      const std::uint64_t blocks = partitions_ + (part.n + target - 1) / target;
      launch_pass(count_kernel_, static_cast<unsigned>(blocks), hist1d::kCountThreads,
                  count_smem_, args, device_.arch(), stream);
    }
  } catch (...) {
    two_phase::release_workspace(work, stream, /*quiet=*/true);
    throw;
  }
  two_phase::release_workspace(work, stream, /*quiet=*/false);
}

void Hist1DLaunch::zero(const Problem& p, std::uint32_t* d_counts, cudaStream_t stream) const {
  unsigned int words = p.num_bins;
  // Four words a thread; the kernel strides over what a grid of 1024 blocks does not cover.
  const unsigned blocks = static_cast<unsigned>(std::min<std::uint64_t>(1024, (words + 1023) / 1024));
  void* args[] = {&d_counts, &words};
  HT_CUDA(cudaLaunchKernel(zero_kernel_.func(), dim3(blocks), dim3(256), args, 0, stream));
}

void Hist1DLaunch::launch_kernel(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                                 cudaStream_t stream, bool programmatic) const {
  Hist1DArgs a = args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  if (cluster_ == 1 && !programmatic) {
    HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(geometry_.grid), dim3(geometry_.block),
                             ptrs.data(), geometry_.smem_bytes, stream));
    return;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(geometry_.grid);
  cfg.blockDim = dim3(geometry_.block);
  cfg.dynamicSmemBytes = geometry_.smem_bytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2] = {};
  unsigned n = 0;
  if (cluster_ > 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n].val.clusterDim.x = static_cast<unsigned>(cluster_);
    attr[n].val.clusterDim.y = 1;
    attr[n++].val.clusterDim.z = 1;
  }
  if (programmatic) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  cfg.attrs = attr;
  cfg.numAttrs = n;
  HT_CUDA(cudaLaunchKernelExC(&cfg, kernel_.func(), ptrs.data()));
}

void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  Hist1DLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream);
}

}  // namespace histtune
