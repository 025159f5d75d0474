// Comparing counters where they are: a check of 10^5 rows x 256 bins copied back to the host
// took 140 ms, longer than the measurement it checked. (DeviceInputs::counts_equal is defined
// here, beside its kernel, so that inputs.cpp builds without nvcc, as the fuzz targets build it.)
#include <algorithm>
#include <string>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"

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

// The words of d_a and d_b (n each) that differ; d_differ is one device word of scratch. On the
// legacy default stream; returns when done.
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

}  // namespace

bool DeviceInputs::counts_equal(const std::vector<std::uint32_t>& expect) {
  if (!d_expect_) {
    HT_CUDA(cudaMalloc(&d_expect_, sizeof(std::uint32_t) * std::max<std::size_t>(expect.size(), 1)));
    HT_CUDA(cudaMemcpy(d_expect_, expect.data(), sizeof(std::uint32_t) * expect.size(),
                       cudaMemcpyHostToDevice));
    HT_CUDA(cudaMalloc(&d_differ_, sizeof(unsigned long long)));
    expect_words_ = expect.size();
  }
  if (expect.size() != expect_words_)
    throw Error(StatusCode::invalid_argument,
                "DeviceInputs::counts_equal: " + std::to_string(expect.size()) +
                    " words expected, " + std::to_string(expect_words_) + " held");
  return count_differences(d_counts_, d_expect_, expect_words_, d_differ_) == 0;
}


}  // namespace histtune::tuner
