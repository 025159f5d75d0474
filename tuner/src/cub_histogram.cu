// CUB's DeviceHistogram, the baseline every tuned result is compared with (compiled by nvcc).
// cuda_fp16.h and cuda_bf16.h first: CUB's half overloads exist only where they are included.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>
#include <type_traits>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/family.hpp"
#include "histtune/tuner/baselines.hpp"

namespace histtune::tuner {
namespace {

// An even bound as CUB's LevelT: i64 and u64 from the exact bounds (Problem::lower_bits), which
// the doubles only approximate.
template <class LevelT>
LevelT even_bound(const Problem& p, double v, std::uint64_t bits) {
  if constexpr (std::is_integral_v<LevelT> && sizeof(LevelT) == 8)
    if (is_int64(p.sample_type)) return static_cast<LevelT>(bits);
  return static_cast<LevelT>(v);
}

// CUB computes even bins from levels of LevelT; integer samples use 64-bit levels so that
// [0, 2^32) is expressible (i64 and u64: levels of their own type).
template <class T, class LevelT>
cudaError_t cub_even(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                     std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  const bool direct = p.binning == Binning::direct;
  const LevelT lower = direct ? LevelT(0) : even_bound<LevelT>(p, p.lower, p.lower_bits);
  const LevelT upper =
      direct ? static_cast<LevelT>(p.num_bins) : even_bound<LevelT>(p, p.upper, p.upper_bits);
  // CUB takes the sample count as an int-sized offset per call.
  return cub::DeviceHistogram::HistogramEven(
      d_temp, temp_bytes, static_cast<const T*>(d_samples), d_counts,
      static_cast<int>(p.num_bins + 1), lower, upper, static_cast<long long>(p.n), stream);
}

// Range binning: CUB's HistogramRange over the problem's device levels (of the sample's type).
template <class T>
cudaError_t cub_range(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                      std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramRange(
      d_temp, temp_bytes, static_cast<const T*>(d_samples), d_counts,
      static_cast<int>(p.num_bins + 1), static_cast<const T*>(p.d_levels),
      static_cast<long long>(p.n), stream);
}

// Interleaved pixels: CUB's MultiHistogramEven, C channels of which the first A are counted
// (C <= 4); the A histograms go one after another, like ours.
template <int C, int A, class T>
cudaError_t cub_pixels(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                       std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  const bool direct = p.binning == Binning::direct;
  cuda::std::array<std::uint32_t*, A> hist;
  if (p.binning == Binning::range) {
    // Every active channel shares the problem's levels.
    cuda::std::array<int, A> num_levels;
    cuda::std::array<const T*, A> d_levels;
    for (int c = 0; c < A; ++c) {
      hist[c] = d_counts ? d_counts + static_cast<std::size_t>(c) * p.num_bins : nullptr;
      num_levels[c] = static_cast<int>(p.num_bins + 1);
      d_levels[c] = static_cast<const T*>(p.d_levels);
    }
    return cub::DeviceHistogram::MultiHistogramRange<C, A>(
        d_temp, temp_bytes, static_cast<const T*>(d_samples), hist, num_levels, d_levels,
        static_cast<long long>(p.n), stream);
  }
  cuda::std::array<int, A> levels;
  cuda::std::array<long long, A> lower, upper;
  for (int c = 0; c < A; ++c) {
    hist[c] = d_counts ? d_counts + static_cast<std::size_t>(c) * p.num_bins : nullptr;
    levels[c] = static_cast<int>(p.num_bins + 1);
    lower[c] = direct ? 0 : static_cast<long long>(p.lower);
    upper[c] = direct ? static_cast<long long>(p.num_bins) : static_cast<long long>(p.upper);
  }
  return cub::DeviceHistogram::MultiHistogramEven<C, A>(
      d_temp, temp_bytes, static_cast<const T*>(d_samples), hist, levels, lower, upper,
      static_cast<long long>(p.n), stream);
}

template <class T>
cudaError_t cub_multichannel(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                             std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  const int c = static_cast<int>(p.channels), a = static_cast<int>(p.active_channels);
  if (c == 4 && a == 3) return cub_pixels<4, 3, T>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  if (c == 4 && a == 4) return cub_pixels<4, 4, T>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  if (c == 3 && a == 3) return cub_pixels<3, 3, T>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  throw Error(StatusCode::invalid_argument,
              "CUB's MultiHistogram is built here for 3 of 3, 3 of 4 and 4 of 4 channels only "
              "(it takes at most 4 interleaved channels)");
}

// One stream of samples: HistogramEven (direct binning as even bins over [0, bins)) or
// HistogramRange.
cudaError_t cub_flat(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                     std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  if (p.binning == Binning::range) {
    switch (p.sample_type) {
      case SampleType::u8: return cub_range<std::uint8_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::u16: return cub_range<std::uint16_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::u32: return cub_range<std::uint32_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::i32: return cub_range<std::int32_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::f32: return cub_range<float>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::i8: return cub_range<std::int8_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::i16: return cub_range<std::int16_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::f16: return cub_range<__half>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::bf16: return cub_range<__nv_bfloat16>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::i64: return cub_range<std::int64_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::u64: return cub_range<std::uint64_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
      case SampleType::f64: return cub_range<double>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    }
  }
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
    case SampleType::i8:
      return cub_even<std::int8_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::i16:
      return cub_even<std::int16_t, long long>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    // Halfs: CUB's levels are of the sample's type, and it bins in that type's arithmetic (half
    // or bfloat16 products), where ours bins in float: counts may differ near bin edges, which
    // `compare` reports as CUB's mismatch (cub_ok) rather than ours.
    case SampleType::f16:
      return cub_even<__half, __half>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::bf16:
      return cub_even<__nv_bfloat16, __nv_bfloat16>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::i64:
      return cub_even<std::int64_t, std::int64_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::u64:
      return cub_even<std::uint64_t, std::uint64_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case SampleType::f64:
      return cub_even<double, double>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  }
  return cudaErrorInvalidValue;
}

// Rows of interleaved channels: MultiHistogramEven / MultiHistogramRange, u8 and u16 samples.
cudaError_t cub_channels(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                         std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  if (p.sample_type == SampleType::u8)
    return cub_multichannel<std::uint8_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  if (p.sample_type == SampleType::u16)
    return cub_multichannel<std::uint16_t>(d_temp, temp_bytes, d_samples, d_counts, p, stream);
  throw Error(StatusCode::invalid_argument, "multi-channel CUB baseline: u8 and u16 only");
}

// The peer the problem's family declares (KernelFamily::baseline()).
cudaError_t dispatch(void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                     std::uint32_t* d_counts, const Problem& p, cudaStream_t stream) {
  const KernelFamily& f = family_of(p);
  switch (f.baseline()) {
    case Baseline::cub_histogram:
      return cub_flat(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case Baseline::cub_multi_histogram:
      return cub_channels(d_temp, temp_bytes, d_samples, d_counts, p, stream);
    case Baseline::none:
      break;
  }
  throw Error(StatusCode::invalid_argument,
              std::string("no CUB baseline for the ") + f.name() + " family");
}

// CUB bins 64-bit integers in 64-bit arithmetic, (s - lower) * bins / range: its HistogramEven
// returns cudaErrorInvalidValue where range x bins may overflow 64 bits (ScaleTransform's
// MayOverflow), and forms range = upper - lower in the sample's type, which overflows int64 from
// 2^63 on (one bin over most of the i64 values). histtune bins both exactly (128-bit products).
std::string cub_refusal64(const Problem& p) {
  if (p.binning != Binning::even) return {};
  const std::uint64_t range = even_range64(p);
  if (range > ~0ull / p.num_bins)
    return "CUB refuses (cudaErrorInvalidValue) 64-bit even bins whose range x bins overflows 64 "
           "bits: not run with " + std::to_string(p.num_bins) + " bins over a range of " +
           std::to_string(range);
  if (p.sample_type == SampleType::i64 && range > 0x7FFFFFFFFFFFFFFFull)
    return "CUB forms upper - lower in int64, which overflows from 2^63 on: not run over a range "
           "of " + std::to_string(range);
  return {};
}

}  // namespace

std::string cub_refusal(const Problem& p) {
  const std::string bins = std::to_string(p.num_bins);
  switch (p.sample_type) {
    case SampleType::i8:
      // Direct binning ignores negative samples anyway; even and range count them from a
      // negative lower bound or first level (the tuner draws its levels from p.lower).
      if (p.binning != Binning::direct && p.lower < 0)
        return "CUB drops every negative int8 sample (its byte path bins a sample by its value "
               "as a signed index; NVIDIA/cccl#10977): not run where a bin starts below 0";
      return {};
    case SampleType::i16:
      if (p.num_bins > 32768)
        return "CUB drops the counts of int16 bins above 32767 (the bin index passes through "
               "the sample type; NVIDIA/cccl#10976): not run with " + bins + " bins";
      return {};
    case SampleType::f16:
      if (p.num_bins > 2048)
        return "CUB merges __half bins above 2048 and writes past the counts (the bin index "
               "passes through the sample type; NVIDIA/cccl#10976): not run with " + bins + " bins";
      return {};
    case SampleType::bf16:
      if (p.num_bins > 256)
        return "CUB merges __nv_bfloat16 bins above 256 and writes past the counts (the bin "
               "index passes through the sample type; NVIDIA/cccl#10976): not run with " + bins +
               " bins";
      return {};
    case SampleType::i64:
    case SampleType::u64:
      return cub_refusal64(p);
    default:
      return {};
  }
}

CubHistogram::CubHistogram(const Problem& p) : p_(p) {
  if (std::string why = cub_refusal(p); !why.empty())
    throw Error(StatusCode::invalid_argument, "CUB baseline: " + why);
  // A fault ends the process's CUDA context, and every measurement after it: refuse up front.
  if (p.num_bins > kMaxCubBins)
    throw Error(StatusCode::invalid_argument,
                "CUB baseline: not run above " + std::to_string(kMaxCubBins) + " bins (" +
                    std::to_string(p.num_bins) +
                    " asked): its DeviceHistogram faulted with an illegal address on "
                    "f32 even 4194304 bins on an H100, which ends the process's CUDA context");
  HT_CUDA(dispatch(nullptr, temp_bytes_, nullptr, nullptr, p_, nullptr));
  HT_CUDA(cudaMalloc(&d_temp_, std::max<std::size_t>(temp_bytes_, 1)));
}

CubHistogram::~CubHistogram() { cudaFree(d_temp_); }

void CubHistogram::run(const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream) {
  std::size_t bytes = temp_bytes_;
  HT_CUDA(dispatch(d_temp_, bytes, d_samples, d_counts, p_, stream));
}

}  // namespace histtune::tuner
