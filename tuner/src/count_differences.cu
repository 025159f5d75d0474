#include "count_differences.hpp"

#include "histtune/detail/cuda_check.hpp"

namespace histtune::tuner {
namespace {

__global__ void differences(const std::uint32_t* a, const std::uint32_t* b, std::size_t n,
                            unsigned long long* d_differ) {
  unsigned long long mine = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    mine += a[i] != b[i];
  if (mine) atomicAdd(d_differ, mine);
}

}  // namespace

std::uint64_t count_differences(const std::uint32_t* d_a, const std::uint32_t* d_b,
                                std::size_t n, unsigned long long* d_differ) {
  HT_CUDA(cudaMemset(d_differ, 0, sizeof(unsigned long long)));
  if (n > 0) {
    const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, 4096);
    differences<<<static_cast<unsigned>(blocks), 256>>>(d_a, d_b, n, d_differ);
    HT_CUDA(cudaGetLastError());
  }
  unsigned long long h = 0;
  HT_CUDA(cudaMemcpy(&h, d_differ, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace histtune::tuner
