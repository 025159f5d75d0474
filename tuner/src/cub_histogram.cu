// CUB's DeviceHistogram, the baseline every tuned result is compared with. The only code in
// histtune that nvcc compiles.
#include <cub/device/device_histogram.cuh>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/tuner/baselines.hpp"

namespace histtune::tuner {
namespace {

// CUB computes even bins from levels of LevelT; integer samples use 64-bit levels so that
// [0, 2^32) is expressible.
template <class T, class LevelT>
cudaError_t cub_even(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                     std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  const bool direct = p.binning == Binning::direct;
  const LevelT lower = direct ? LevelT(0) : static_cast<LevelT>(p.lower);
  const LevelT upper = direct ? static_cast<LevelT>(p.num_bins) : static_cast<LevelT>(p.upper);
  // CUB takes the sample count as an int-sized offset per call.
  return cub::DeviceHistogram::HistogramEven(
      d_temp, temp_bytes, static_cast<const T*>(d_samples), d_counts,
      static_cast<int>(p.num_bins + 1), lower, upper, static_cast<long long>(p.n), stream);
}

cudaError_t dispatch(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                     std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  switch (p.sample_type) {
    case SampleType::u8:
      return cub_even<std::uint8_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::u16:
      return cub_even<std::uint16_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::u32:
      return cub_even<std::uint32_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::i32:
      return cub_even<std::int32_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::f32:
      return cub_even<float, float>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

CubHistogram::CubHistogram(const Problem& p) : p_(p) {
  HT_CUDA(dispatch(nullptr, temp_bytes_, nullptr, nullptr, p_, nullptr));
  HT_CUDA(cudaMalloc(&d_temp_, std::max<std::size_t>(temp_bytes_, 1)));
}

CubHistogram::~CubHistogram() { cudaFree(d_temp_); }

void CubHistogram::run(const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream) {
  std::size_t bytes = temp_bytes_;
  HT_CUDA(dispatch(d_temp_, bytes, d_samples, d_counts, p_, stream));
}

}  // namespace histtune::tuner
