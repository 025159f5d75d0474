// histtune: tuned CUDA histograms. Include this header and link histtune::histtune.
//
//   std::uint32_t* d_counts;  // num_bins counters, overwritten
//   histtune::Status s = histtune::histogram_even(d_samples, n, 256, 0.0f, 1.0f, d_counts, stream);
//   if (!s.ok()) std::cerr << s.message() << "\n";
//
// Every call is stream-ordered and does not synchronise. Results are exact: counts are uint32
// and n is at most 2^32 - 1, so no counter can overflow; larger n is rejected. The 1D,
// multi-channel and row calls also take std::uint64_t* d_counts (below, "64-bit counts"): then n
// may be up to 2^60. The
// configuration comes from the tuning database (see Dispatcher for where it is looked for);
// last_choice() says which one ran, how it was found, and whether it is unverified (tuned under
// another driver, NVRTC or histtune version; see Dispatcher::explain).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "histtune/dispatcher.hpp"
#include "histtune/problem.hpp"
#include "histtune/status.hpp"

namespace histtune {

// Even bins: num_bins equal bins over [lower, upper). Integer bin = (s - lower) * num_bins /
// (upper - lower) in exact integer arithmetic; float bin = (s - lower) * (num_bins / (upper -
// lower)) in float. Samples outside [lower, upper) and NaN are not counted.
Status histogram_even(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const float* d_samples, std::uint64_t n, std::uint32_t num_bins, float lower,
                      float upper, std::uint32_t* d_counts, cudaStream_t stream = nullptr);
// i8 and i16 over any integral bounds, their whole range included ([-128, 128) is exact: CUB's
// HistogramEven puts every sample in bin 0 there, NVIDIA/cccl#10975).
Status histogram_even(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
// Half-precision samples (CUDA's own __half and __nv_bfloat16, what tensors and cuBLAS hold, so
// that no cast of the pointer is needed): each sample is converted to float, exactly, and binned
// by the float rule above with float bounds; NaN and infinities are never counted.
Status histogram_even(const __half* d_samples, std::uint64_t n, std::uint32_t num_bins, float lower,
                      float upper, std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_even(const __nv_bfloat16* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      float lower, float upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
// 64-bit integers over bounds of their own type, exactly: bin = (s - lower) * num_bins /
// (upper - lower) over the whole range (up to 2^64 - 1 wide; 128-bit products, no overflow).
// upper is excluded, so the type's largest value is counted by no even bins.
Status histogram_even(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::uint64_t lower, std::uint64_t upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);
// Doubles: bin = (s - lower) * (num_bins / (upper - lower)) in double arithmetic (the float rule
// above, in double); NaN and infinities are never counted.
Status histogram_even(const double* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      double lower, double upper, std::uint32_t* d_counts,
                      cudaStream_t stream = nullptr);

// "Value is bin": sample v counts in bin v; values >= num_bins (and negative values) are ignored.
Status histogram_direct(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint32_t* d_counts, cudaStream_t stream = nullptr);

// Bins between caller-given levels (CUB's HistogramRange): d_levels holds num_bins + 1 strictly
// ascending levels in device memory, of the sample's type (float for f32 samples); bin i counts
// samples s with d_levels[i] <= s < d_levels[i + 1]. Samples outside [d_levels[0],
// d_levels[num_bins]) and NaN are not counted. The order is not checked (it would need a
// synchronisation): unsorted levels give unspecified counts, never an out-of-bounds access. Host
// (pageable) levels are refused. u8 and i8 samples have at most 255 bins, u16 and i16 at most
// 65535, f16 at most 63488 and bf16 at most 65280 (one fewer than their distinct values). Half
// samples and levels are compared as floats; a NaN or infinite sample is never counted (even
// between infinite levels).
Status histogram_range(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint8_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint16_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint32_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int32_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const float* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const float* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int8_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int16_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const __half* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const __half* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const __nv_bfloat16* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const __nv_bfloat16* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
// 64-bit levels, compared in the sample's type (f64: a NaN or infinite sample is never counted).
Status histogram_range(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int64_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint64_t* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const double* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const double* d_levels, std::uint32_t* d_counts,
                       cudaStream_t stream = nullptr);

// 64-bit counts: every 1D call above with std::uint64_t counters. The same binning, checks and
// results, and n may exceed 2^32 - 1 (up to 2^60). The call is cut into chunks of at most 2^31
// samples, each counted by the configuration tuned for the chunk's size into a temporary uint32
// buffer (stream-ordered, from the workspace pool) and added into d_counts by a small kernel:
// about the 32-bit call's time, plus a launch per chunk. d_counts (num_bins uint64, 8-byte
// aligned) is overwritten; last_choice() reports the first chunk's configuration. The first
// such call on a device loads the add kernel (like any first call, not during stream capture).
Status histogram_even(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const float* d_samples, std::uint64_t n, std::uint32_t num_bins, float lower,
                      float upper, std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_even(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const __half* d_samples, std::uint64_t n, std::uint32_t num_bins, float lower,
                      float upper, std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_even(const __nv_bfloat16* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      float lower, float upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::int64_t lower, std::int64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      std::uint64_t lower, std::uint64_t upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_even(const double* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      double lower, double upper, std::uint64_t* d_counts,
                      cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_direct(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, cudaStream_t stream = nullptr);
Status histogram_range(const std::uint8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint8_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint16_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint32_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int32_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int32_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const float* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const float* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int8_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int8_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int16_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int16_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const __half* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const __half* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const __nv_bfloat16* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const __nv_bfloat16* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::int64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::int64_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const std::uint64_t* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const std::uint64_t* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);
Status histogram_range(const double* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const double* d_levels, std::uint64_t* d_counts,
                       cudaStream_t stream = nullptr);

// The type of even bins' bounds for samples of type T: std::int64_t for integers (exact up to
// +-2^53 for those of at most 4 bytes, exactly for std::int64_t), std::uint64_t for
// std::uint64_t, float for float and the halfs, double for double.
template <class T> struct EvenBound { using type = std::int64_t; };
template <> struct EvenBound<float> { using type = float; };
template <> struct EvenBound<__half> { using type = float; };
template <> struct EvenBound<__nv_bfloat16> { using type = float; };
template <> struct EvenBound<double> { using type = double; };
template <> struct EvenBound<std::uint64_t> { using type = std::uint64_t; };  // exact bounds
// T itself where it deduces nothing (d_levels may be a null pointer constant).
template <class T> struct SameType { using type = T; };

// Multi-channel: `rows` rows of `channels` interleaved samples (row-major [rows, channels]; RGBA
// pixels are [pixels, 4]). The first `active_channels` channels each get num_bins counters, one
// histogram after another: d_counts holds active_channels x num_bins. Every sample type T of the
// 1D calls with their rules: direct binning of integers, even bounds of EvenBound<T>, range
// levels of T. Count is std::uint32_t (rows at most 2^32 - 1) or std::uint64_t (64-bit counts, as
// the 1D calls': rows x channels up to 2^60, in chunks of at most 2^31 rows, whole image rows
// when pitched, each added into d_counts). The configuration comes from the
// tuning database like the 1D calls' (Dispatcher::explain_multichannel: tuned for this shape,
// the nearest rows and bins with the same channels, the same architecture, else the family's
// built-in default); last_multichannel_choice() says which one ran.
template <class T, class Count>
Status histogram_multichannel_direct(const T* d_samples, std::uint64_t rows,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, Count* d_counts,
                                     cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_multichannel_even(const T* d_samples, std::uint64_t rows, std::uint32_t channels,
                                   std::uint32_t active_channels, std::uint32_t num_bins,
                                   typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, Count* d_counts,
                                   cudaStream_t stream = nullptr);
// Multi-channel range binning: every active channel uses the same num_bins + 1 levels at
// d_levels (as histogram_range).
template <class T, class Count>
Status histogram_multichannel_range(const T* d_samples, std::uint64_t rows,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins,
                                    const typename SameType<T>::type* d_levels, Count* d_counts,
                                    cudaStream_t stream = nullptr);

// Multi-channel images with a row pitch (CUB's MultiHistogram* with num_row_pixels, num_rows,
// row_stride_bytes): num_rows image rows of row_pixels pixels (rows of `channels` samples), image
// row r starting r x row_pitch_bytes bytes after d_samples. The bytes between one image row's
// last sample and the next one's first are never read: padding may hold anything. row_pitch_bytes
// is a multiple of the sample size and at least row_pixels x channels x sample size (0: packed,
// the same as the calls above with rows = row_pixels x num_rows). The configuration is the one
// tuned for the packed image of the same shape; a pitch that is not a multiple of 16 bytes
// costs narrower loads where an image row starts off a vector's alignment.
template <class T, class Count>
Status histogram_multichannel_direct(const T* d_samples, std::uint64_t row_pixels,
                                     std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, Count* d_counts,
                                     cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_multichannel_even(const T* d_samples, std::uint64_t row_pixels,
                                   std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                   std::uint32_t channels, std::uint32_t active_channels,
                                   std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, Count* d_counts,
                                   cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_multichannel_range(const T* d_samples, std::uint64_t row_pixels,
                                    std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins,
                                    const typename SameType<T>::type* d_levels, Count* d_counts,
                                    cudaStream_t stream = nullptr);

// One histogram per row (the batched family). `rows` rows of n samples each, row r starting
// r x row_stride samples after d_samples (row_stride 0: n, a packed [rows, n] tensor; otherwise
// at least n: a strided view, whose rows may start off any alignment but the sample's). d_counts
// holds rows x num_bins counters, row r's at r x num_bins, overwritten. Every sample type T of
// the 1D calls with their rules (direct binning of integers, even bounds of EvenBound<T>, range
// levels of T). Count is std::uint32_t (n at most 2^32 - 1) or std::uint64_t (64-bit counts, as
// the 1D calls': n up to 2^60, every row cut into chunks of at most 2^31 samples, each added into
// d_counts). rows = 0 is a call with nothing to do when n = 0 and refused otherwise. The
// configuration is looked up in the tuning database for (rows, n).
template <class T, class Count>
Status histogram_batched_even(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                              std::uint64_t row_stride, std::uint32_t num_bins,
                              typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                              Count* d_counts, cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_batched_direct(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                                std::uint64_t row_stride, std::uint32_t num_bins, Count* d_counts,
                                cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_batched_range(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                               std::uint64_t row_stride, std::uint32_t num_bins,
                               const typename SameType<T>::type* d_levels, Count* d_counts,
                               cudaStream_t stream = nullptr);

// One histogram per segment (the segmented family, CUB's segmented offsets): n samples at
// d_samples, segment r holding samples d_offsets[r] .. d_offsets[r + 1] - 1, from num_segments + 1
// offsets in device memory (int64, like torch's). d_counts holds num_segments x num_bins
// counters, segment r's at r x num_bins, overwritten. Segments may be empty and need not cover
// the samples. The offsets are not checked on the host (that would need a synchronisation): each
// is clamped to [0, n] and a segment whose end comes before its begin is empty, so offsets out of
// order or beyond n give counts of the clamped segments, never an access outside the n samples.
// The sample types and Count of the batched calls (64-bit counts: n up to 2^60, in chunks of at
// most 2^31 samples).
template <class T, class Count>
Status histogram_segmented_even(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                const std::int64_t* d_offsets, std::uint32_t num_bins,
                                typename EvenBound<T>::type lower,
                                typename EvenBound<T>::type upper, Count* d_counts,
                                cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_segmented_direct(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                  const std::int64_t* d_offsets, std::uint32_t num_bins,
                                  Count* d_counts, cudaStream_t stream = nullptr);
template <class T, class Count>
Status histogram_segmented_range(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                 const std::int64_t* d_offsets, std::uint32_t num_bins,
                                 const typename SameType<T>::type* d_levels, Count* d_counts,
                                 cudaStream_t stream = nullptr);

// ---- Weighted histograms (families "weighted" and "weighted_det") ----------------------------
// Sample i adds d_weights[i] to its bin instead of 1 (numpy.histogram's weights=): n samples and
// n weights (one n for both). The binnings are those of the unweighted calls above, over the same
// sample types. Weights and bins: float -> float bins, double -> double bins, std::int32_t and
// std::int64_t -> std::int64_t bins (exact; a sum beyond int64 wraps). d_bins holds num_bins
// bins, overwritten. Samples in no bin add nothing, whatever their weight.
//
// The fast mode (the default) adds with float or double atomics: the order of the additions, and
// so the last bits of a bin, may differ between runs and configurations; a bin's error is at most
// about (samples in the bin) x epsilon x (the sum of |w| in it) (docs/api.md). A NaN weight makes
// its bin NaN (it propagates, as in NumPy).
//
// The deterministic mode (float and double weights) adds 64-bit fixed point, rint(w x 2^s), and
// converts each bin at the end: the same bits on every run and every configuration.
// s = 62 - e - ceil(log2 n), where max_abs_weight < 2^e (the caller's bound on |w|; 0: measured
// by one more pass over the weights, the largest finite |w|), so no sum can overflow. Each weight
// is off by at most 2^-(s+1), a bin by (samples in the bin) x 2^-(s+1) before the one rounding
// to the output type. A weight that is NaN, infinite or beyond max_abs_weight makes its bin NaN.
struct WeightedOptions {
  bool deterministic = false;
  double max_abs_weight = 0;  // deterministic: a bound on |w| the caller guarantees; 0: measured
};
// The bins of weights of type W (the even bounds of samples of type T: EvenBound above).
template <class W> struct WeightedBin;
template <> struct WeightedBin<float> { using type = float; };
template <> struct WeightedBin<double> { using type = double; };
template <> struct WeightedBin<std::int32_t> { using type = std::int64_t; };
template <> struct WeightedBin<std::int64_t> { using type = std::int64_t; };
template <class W> using weighted_bin_t = typename WeightedBin<W>::type;

// Every sample type of histogram_even, and W one of float, double, std::int32_t, std::int64_t.
template <class T, class W>
Status histogram_even(const T* d_samples, const W* d_weights, std::uint64_t n,
                      std::uint32_t num_bins, typename EvenBound<T>::type lower,
                      typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                      cudaStream_t stream = nullptr, const WeightedOptions& options = {});
// Every sample type of histogram_range.
template <class T, class W>
Status histogram_range(const T* d_samples, const W* d_weights, std::uint64_t n,
                       std::uint32_t num_bins, const T* d_levels, weighted_bin_t<W>* d_bins,
                       cudaStream_t stream = nullptr, const WeightedOptions& options = {});
// Every integer sample type of histogram_direct.
template <class T, class W>
Status histogram_direct(const T* d_samples, const W* d_weights, std::uint64_t n,
                        std::uint32_t num_bins, weighted_bin_t<W>* d_bins,
                        cudaStream_t stream = nullptr, const WeightedOptions& options = {});

// The same calls with the types as values, for bindings (the C API, Python): samples of type t
// (SampleType's codes), weights of type w, one binning b; even bounds as doubles (exact for
// 64-bit integers up to 2^53; the typed calls take them exactly), range levels of the samples'
// type at d_levels; d_bins of weighted_bin_t of w.
Status histogram_weighted(SampleType t, const void* d_samples, WeightType w, const void* d_weights,
                          std::uint64_t n, Binning b, std::uint32_t num_bins, double lower,
                          double upper, const void* d_levels, void* d_bins,
                          cudaStream_t stream = nullptr, const WeightedOptions& options = {});

// Weighted rows, segments and pixels of channels: the weighted calls above over the shapes of the
// batched, segmented and multi-channel calls (their names, their arguments, plus d_weights), in
// both modes (WeightedOptions) with the same rules (bins, NaN weights, the fixed point's scale).
// Rows: `rows` dense rows of n samples, row r at r x row_stride (0: n), and the weights laid out
// as the samples (weight of sample j of row r at r x row_stride + j); d_bins holds rows x
// num_bins bins, row r's at r x num_bins. Segments: n samples and n weights, segment r holding
// those from d_offsets[r] to d_offsets[r + 1] - 1 (clamped to [0, n] as the unweighted segmented
// calls); d_bins holds num_segments x num_bins bins. Pixels of channels: `pixels` pixels of
// `channels` interleaved samples, and ONE weight a pixel (pixels weights, as an image's pixel
// weights or a mask in NumPy's histogram of each channel with the same weights=): pixel i's
// weight adds to the bin of each of its first active_channels samples; d_bins holds
// active_channels x num_bins bins, channel c's at c x num_bins (packed pixels: no row pitch).
// The deterministic mode's fixed point is scaled for n samples a bin at most (a row's, a
// segment's n in all, the pixels) and for the largest |w| of the whole call, so a row's bins may
// differ in their last bits from a 1D call on that row alone; every run and configuration gives
// the same bits. The configuration is looked up under the call's shape (rows or channels in
// the key) in the weighted families.
template <class T, class W>
Status histogram_batched_even(const T* d_samples, const W* d_weights, std::uint64_t rows,
                              std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                              typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                              weighted_bin_t<W>* d_bins, cudaStream_t stream = nullptr,
                              const WeightedOptions& options = {});
template <class T, class W>
Status histogram_batched_range(const T* d_samples, const W* d_weights, std::uint64_t rows,
                               std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                               const T* d_levels, weighted_bin_t<W>* d_bins,
                               cudaStream_t stream = nullptr, const WeightedOptions& options = {});
template <class T, class W>
Status histogram_batched_direct(const T* d_samples, const W* d_weights, std::uint64_t rows,
                                std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                                weighted_bin_t<W>* d_bins, cudaStream_t stream = nullptr,
                                const WeightedOptions& options = {});
template <class T, class W>
Status histogram_segmented_even(const T* d_samples, const W* d_weights, std::uint64_t n,
                                std::uint64_t num_segments, const std::int64_t* d_offsets,
                                std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                                cudaStream_t stream = nullptr, const WeightedOptions& options = {});
template <class T, class W>
Status histogram_segmented_range(const T* d_samples, const W* d_weights, std::uint64_t n,
                                 std::uint64_t num_segments, const std::int64_t* d_offsets,
                                 std::uint32_t num_bins, const T* d_levels,
                                 weighted_bin_t<W>* d_bins, cudaStream_t stream = nullptr,
                                 const WeightedOptions& options = {});
template <class T, class W>
Status histogram_segmented_direct(const T* d_samples, const W* d_weights, std::uint64_t n,
                                  std::uint64_t num_segments, const std::int64_t* d_offsets,
                                  std::uint32_t num_bins, weighted_bin_t<W>* d_bins,
                                  cudaStream_t stream = nullptr,
                                  const WeightedOptions& options = {});
template <class T, class W>
Status histogram_multichannel_even(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                   std::uint32_t channels, std::uint32_t active_channels,
                                   std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                                   cudaStream_t stream = nullptr,
                                   const WeightedOptions& options = {});
template <class T, class W>
Status histogram_multichannel_range(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins, const T* d_levels,
                                    weighted_bin_t<W>* d_bins, cudaStream_t stream = nullptr,
                                    const WeightedOptions& options = {});
template <class T, class W>
Status histogram_multichannel_direct(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, weighted_bin_t<W>* d_bins,
                                     cudaStream_t stream = nullptr,
                                     const WeightedOptions& options = {});

// The shape of a value-typed weighted call: the defaults are the 1D call's; rows and row_stride
// dense rows; rows, d_offsets and segments = true CSR segments; channels and active_channels
// pixels of channels (n the pixels). One shape at a time.
struct WeightedShape {
  std::uint64_t rows = 1;
  std::uint64_t row_stride = 0;
  const std::int64_t* d_offsets = nullptr;
  bool segments = false;
  std::uint32_t channels = 1;
  std::uint32_t active_channels = 1;

  static WeightedShape dense_rows(std::uint64_t rows, std::uint64_t row_stride);
  static WeightedShape segments_of(std::uint64_t num_segments, const std::int64_t* d_offsets);
  static WeightedShape pixels_of(std::uint32_t channels, std::uint32_t active_channels);
};
Status histogram_weighted(const WeightedShape& shape, SampleType t, const void* d_samples,
                          WeightType w, const void* d_weights, std::uint64_t n, Binning b,
                          std::uint32_t num_bins, double lower, double upper,
                          const void* d_levels, void* d_bins, cudaStream_t stream = nullptr,
                          const WeightedOptions& options = {});

// ---- Joint histograms (family "joint") -------------------------------------------------------
// A histogram over tuples (numpy.histogram2d, numpy.histogramdd): n tuples of `dims` values
// (1 .. kMaxJointDims), dimension d binned as the 1D call of bins[d] bins bins it, and each tuple
// counted once in the joint bin of its dimensions' bins. d_counts holds the product of the bins,
// row-major as NumPy's ([bins_x, bins_y]: bin (i, j) at i x bins_y + j), overwritten; the product
// must be below 2^31. Even bins: dimension d's bins split [lower, upper) evenly, half-open as the
// 1D even binning (a value equal to upper is in no bin, where NumPy's last bin takes it). Edges
// (range binning): bins[d] + 1 ascending edges of the samples' type in device memory, bin i
// counting edges[i] <= v < edges[i + 1], as the 1D range binning (edges that do not ascend give
// unspecified counts, never an out-of-bounds read; the Python calls check them). A tuple with any
// value in no bin (out of range, NaN, infinite) is not counted, as numpy.histogramdd with range=.
// Samples: every type of at most 4 bytes, and double. Interleaved tuples are row-major [n, dims]
// (d_samples); the separate form takes one array of n values per dimension (d_columns).
struct JointBounds {
  double lower = 0;
  double upper = 0;
};

// 2D, even bins: separate x and y arrays, or interleaved [n, 2] pairs.
template <class T>
Status histogram2d(const T* d_x, const T* d_y, std::uint64_t n, std::uint32_t bins_x,
                   std::uint32_t bins_y, JointBounds x, JointBounds y, std::uint32_t* d_counts,
                   cudaStream_t stream = nullptr);
template <class T>
Status histogram2d(const T* d_pairs, std::uint64_t n, std::uint32_t bins_x, std::uint32_t bins_y,
                   JointBounds x, JointBounds y, std::uint32_t* d_counts,
                   cudaStream_t stream = nullptr);
// N-D, even bins: bins[d] and bounds[d] for each of `dims` dimensions; interleaved [n, dims]
// tuples, or d_columns[d] the n values of dimension d.
template <class T>
Status histogramdd(const T* d_samples, std::uint64_t n, std::uint32_t dims,
                   const std::uint32_t* bins, const JointBounds* bounds, std::uint32_t* d_counts,
                   cudaStream_t stream = nullptr);
template <class T>
Status histogramdd(const T* const* d_columns, std::uint64_t n, std::uint32_t dims,
                   const std::uint32_t* bins, const JointBounds* bounds, std::uint32_t* d_counts,
                   cudaStream_t stream = nullptr);
// N-D, edges: d_edges[d] holds bins[d] + 1 ascending edges of dimension d in device memory.
template <class T>
Status histogramdd_edges(const T* d_samples, std::uint64_t n, std::uint32_t dims,
                         const std::uint32_t* bins, const T* const* d_edges,
                         std::uint32_t* d_counts, cudaStream_t stream = nullptr);
template <class T>
Status histogramdd_edges(const T* const* d_columns, std::uint64_t n, std::uint32_t dims,
                         const std::uint32_t* bins, const T* const* d_edges,
                         std::uint32_t* d_counts, cudaStream_t stream = nullptr);
// The same calls with the type as a value, for bindings (the C API, Python): samples of type t
// interleaved at d_samples, or (d_samples null) separate at d_columns[0 .. dims - 1]; b even (the
// bounds) or range (the edges, d_edges[d] of the samples' type).
Status histogram_joint(SampleType t, const void* d_samples, const void* const* d_columns,
                       std::uint64_t n, std::uint32_t dims, Binning b, const std::uint32_t* bins,
                       const JointBounds* bounds, const void* const* d_edges,
                       std::uint32_t* d_counts, cudaStream_t stream = nullptr);

// The configuration and lookup level of the last 1D call made on this thread.
Choice last_choice();
// The same for the last successful multi-channel call made on this thread.
MultiChannelChoice last_multichannel_choice();
// The same for the last successful batched or segmented call made on this thread (the segmented
// family's configurations have the same fields; their label's prefix is "seg.").
BatchedChoice last_batched_choice();
// The same for the last successful weighted call (fast or deterministic) made on this thread, as
// its family's parameter values (label() names the form: "w." or "wdet.").
FamilyChoice last_weighted_choice();
// The same for the last successful joint call made on this thread (labels "j.").
FamilyChoice last_joint_choice();
// The process-wide dispatcher behind the free functions (created on first use).
Dispatcher& default_dispatcher();

}  // namespace histtune
