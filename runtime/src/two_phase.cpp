#include "histtune/two_phase.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "capture.hpp"
#include "histtune/detail/cuda_check.hpp"

namespace histtune::two_phase {
namespace {

// One pool per device, created on first use and kept for the process: its release threshold
// keeps freed blocks for the next call instead of returning them to the driver at every
// synchronisation (the default pool's threshold is 0), and it leaves the default pool's
// settings, which belong to the application, alone. Creating a pool is not permitted while
// `stream` captures a graph: then, before the pool exists, null.
cudaMemPool_t pool(int device, cudaStream_t stream) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = pools.find(device); it != pools.end()) return it->second;
  if (capturing(stream)) return nullptr;
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t p = nullptr;
  HT_CUDA(cudaMemPoolCreate(&p, &props));
  std::uint64_t keep = UINT64_MAX;
  HT_CUDA(cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep));
  pools[device] = p;
  return p;
}

}  // namespace

CompileRequest request(int arch) { return CompileRequest{kTemplate, {}, arch, "reduce"}; }

std::size_t max_bytes(const DeviceInfo& d) {
  const std::size_t cap = std::size_t{256} << 20;
  return d.memory_bytes > 0 ? std::min(cap, static_cast<std::size_t>(d.memory_bytes) / 64) : cap;
}

Reducer::Reducer(KernelCache& cache, const DeviceInfo& d)
    : kernel_(cache.get(request(d.arch()), kKernel)),
      device_(d.ordinal),
      sm_count_(std::max(d.sm_count, 1)) {}

void* allocate_workspace(std::size_t bytes, int device, cudaStream_t stream) {
  void* buf = nullptr;
  // A capture records an allocation node whichever call makes it (graph memory): before the
  // process's first eager call has made the pool, the stream's own allocator records it.
  if (const cudaMemPool_t p = pool(device, stream))
    HT_CUDA(cudaMallocFromPoolAsync(&buf, bytes, p, stream));
  else
    HT_CUDA(cudaMallocAsync(&buf, bytes, stream));
  return buf;
}

void release_workspace(void* buffer, cudaStream_t stream, bool quiet) {
  if (quiet) {
    (void)cudaFreeAsync(buffer, stream);
    return;
  }
  HT_CUDA(cudaFreeAsync(buffer, stream));
}

std::uint32_t* Reducer::allocate(std::uint64_t rows, std::uint64_t width,
                                 cudaStream_t stream) const {
  const std::size_t bytes = static_cast<std::size_t>(rows * width) * sizeof(std::uint32_t);
  return static_cast<std::uint32_t*>(allocate_workspace(bytes, device_, stream));
}

void Reducer::reduce(std::uint32_t* partials, std::uint64_t rows, std::uint64_t width,
                     std::uint32_t* counts, cudaStream_t stream) const {
  unsigned int r = static_cast<unsigned int>(rows);
  unsigned long long w = width;
  void* args[] = {&partials, &r, &w, &counts};
  const std::uint64_t tiles = (width + 31) / 32;
  const unsigned int grid = static_cast<unsigned int>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>(tiles, 4ull * sm_count_)));
  HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(grid), dim3(1024), args, 0, stream));
}

}  // namespace histtune::two_phase
