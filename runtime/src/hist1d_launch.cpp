// The 1D family's prepared launch: geometry and shared-memory limit once per shape, then per
// call the zeroing (where the kernel adds), the kernel (a cluster launch for cluster storage) and
// a two-phase configuration's reduction.
#include "histtune/detail/cuda_check.hpp"
#include "histtune/hist1d.hpp"

namespace histtune {

Hist1DLaunch::Hist1DLaunch(KernelCache& cache, const Kernel& k, const Hist1DConfig& c,
                           const Problem& p, const DeviceInfo& d)
    : kernel_(k), geometry_(hist1d::geometry(c, p, d)), cluster_(c.cluster) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
  // A single block stores every count itself, a two-phase reduction stores them too; everything
  // else adds to zeroed counts. An empty input launches nothing: its counts are zeroed.
  two_phase_ = c.two_phase == 1 && p.n > 0;
  zero_counts_ = (!c.single_block && !two_phase_) || p.n == 0;
  if (two_phase_) reducer_ = two_phase::Reducer(cache, d);
}

Hist1DArgs Hist1DLaunch::args(const Problem& p, const void* d_samples,
                              std::uint32_t* d_counts) const {
  KernelArgs a = KernelArgs::of(p, d_samples, d_counts, geometry_.row_stride);
  a.slices = geometry_.slices;
  return a;
}

void Hist1DLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                              cudaStream_t stream) const {
  if (zero_counts_)
    HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * p.num_bins, stream));
  if (p.n == 0) return;
  if (two_phase_) {
    reducer_(geometry_.grid, p.num_bins, d_counts, stream,
             [&](std::uint32_t* partials) { launch_kernel(p, d_samples, partials, stream); });
    return;
  }
  launch_kernel(p, d_samples, d_counts, stream);
}

void Hist1DLaunch::launch_kernel(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                                 cudaStream_t stream) const {
  Hist1DArgs a = args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  if (cluster_ > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(geometry_.grid);
    cfg.blockDim = dim3(geometry_.block);
    cfg.dynamicSmemBytes = geometry_.smem_bytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(cluster_);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    HT_CUDA(cudaLaunchKernelExC(&cfg, kernel_.func(), ptrs.data()));
  } else {
    HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(geometry_.grid), dim3(geometry_.block),
                             ptrs.data(), geometry_.smem_bytes, stream));
  }
}

void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  Hist1DLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream);
}

}  // namespace histtune
