/* histtune's C API, for C and other languages: the same calls as histtune.hpp, one name per
 * sample type, status codes instead of objects. Every call is stream-ordered and does not
 * synchronise; d_counts (num_bins uint32) is overwritten. On failure the call returns a non-zero
 * code and histtune_last_error() (per thread) says what failed and with what. */
#ifndef HISTTUNE_H
#define HISTTUNE_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same values as histtune::StatusCode. */
typedef enum histtune_status {
  HISTTUNE_OK = 0,
  HISTTUNE_INVALID_ARGUMENT = 1,
  HISTTUNE_NO_DEVICE = 2,
  HISTTUNE_CUDA_ERROR = 3,
  HISTTUNE_COMPILE_ERROR = 4,
  HISTTUNE_DATABASE_ERROR = 5,
  HISTTUNE_INTERNAL = 6
} histtune_status;

/* Even bins over [lower, upper); samples outside, and NaN, are not counted. */
histtune_status histtune_histogram_even_u8(const uint8_t* d_samples, uint64_t n, uint32_t num_bins,
                                           int64_t lower, int64_t upper, uint32_t* d_counts,
                                           cudaStream_t stream);
histtune_status histtune_histogram_even_u16(const uint16_t* d_samples, uint64_t n,
                                            uint32_t num_bins, int64_t lower, int64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_u32(const uint32_t* d_samples, uint64_t n,
                                            uint32_t num_bins, int64_t lower, int64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_i32(const int32_t* d_samples, uint64_t n,
                                            uint32_t num_bins, int64_t lower, int64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_f32(const float* d_samples, uint64_t n, uint32_t num_bins,
                                            float lower, float upper, uint32_t* d_counts,
                                            cudaStream_t stream);
histtune_status histtune_histogram_even_i8(const int8_t* d_samples, uint64_t n, uint32_t num_bins,
                                           int64_t lower, int64_t upper, uint32_t* d_counts,
                                           cudaStream_t stream);
histtune_status histtune_histogram_even_i16(const int16_t* d_samples, uint64_t n,
                                            uint32_t num_bins, int64_t lower, int64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
/* f16 (IEEE binary16) and bf16 (bfloat16) samples as their 16-bit patterns (C has no half type;
 * the bytes of a __half or __nv_bfloat16 array): converted to float and binned in float, like
 * f32; NaN and infinities are never counted. */
histtune_status histtune_histogram_even_f16(const uint16_t* d_samples, uint64_t n,
                                            uint32_t num_bins, float lower, float upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_bf16(const uint16_t* d_samples, uint64_t n,
                                             uint32_t num_bins, float lower, float upper,
                                             uint32_t* d_counts, cudaStream_t stream);
/* 64-bit samples: integer bounds of the sample's type, exact over any range (upper excluded);
 * f64 bins in double, and NaN and infinities are never counted. */
histtune_status histtune_histogram_even_i64(const int64_t* d_samples, uint64_t n,
                                            uint32_t num_bins, int64_t lower, int64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_u64(const uint64_t* d_samples, uint64_t n,
                                            uint32_t num_bins, uint64_t lower, uint64_t upper,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_f64(const double* d_samples, uint64_t n,
                                            uint32_t num_bins, double lower, double upper,
                                            uint32_t* d_counts, cudaStream_t stream);

/* The sample value is the bin; values >= num_bins (and negative values) are not counted. */
histtune_status histtune_histogram_direct_u8(const uint8_t* d_samples, uint64_t n,
                                             uint32_t num_bins, uint32_t* d_counts,
                                             cudaStream_t stream);
histtune_status histtune_histogram_direct_u16(const uint16_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);
histtune_status histtune_histogram_direct_u32(const uint32_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);
histtune_status histtune_histogram_direct_i32(const int32_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);
histtune_status histtune_histogram_direct_i8(const int8_t* d_samples, uint64_t n,
                                             uint32_t num_bins, uint32_t* d_counts,
                                             cudaStream_t stream);
histtune_status histtune_histogram_direct_i16(const int16_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);
histtune_status histtune_histogram_direct_i64(const int64_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);
histtune_status histtune_histogram_direct_u64(const uint64_t* d_samples, uint64_t n,
                                              uint32_t num_bins, uint32_t* d_counts,
                                              cudaStream_t stream);

/* ---- Range binning (CUB's HistogramRange) ---------------------------------------------------
 * d_levels: num_bins + 1 strictly ascending levels in device memory, of the sample's type (float
 * for f32); bin i counts d_levels[i] <= s < d_levels[i + 1]. Samples outside [d_levels[0],
 * d_levels[num_bins]), and NaN, are not counted. Unsorted levels give unspecified counts, never
 * an out-of-bounds access; host (pageable) levels are refused. Multi-channel: the active channels
 * share the levels. */
histtune_status histtune_histogram_range_u8(const uint8_t* d_samples, uint64_t n,
                                            uint32_t num_bins, const uint8_t* d_levels,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_u16(const uint16_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const uint16_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_u32(const uint32_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const uint32_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_i32(const int32_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const int32_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_f32(const float* d_samples, uint64_t n, uint32_t num_bins,
                                             const float* d_levels, uint32_t* d_counts,
                                             cudaStream_t stream);
histtune_status histtune_histogram_range_i8(const int8_t* d_samples, uint64_t n,
                                            uint32_t num_bins, const int8_t* d_levels,
                                            uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_i16(const int16_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const int16_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
/* f16 and bf16 samples and levels as 16-bit patterns, compared as floats; a NaN or infinite
 * sample is never counted. */
histtune_status histtune_histogram_range_f16(const uint16_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const uint16_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_bf16(const uint16_t* d_samples, uint64_t n,
                                              uint32_t num_bins, const uint16_t* d_levels,
                                              uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_i64(const int64_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const int64_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_u64(const uint64_t* d_samples, uint64_t n,
                                             uint32_t num_bins, const uint64_t* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
/* A NaN or infinite f64 sample is never counted. */
histtune_status histtune_histogram_range_f64(const double* d_samples, uint64_t n,
                                             uint32_t num_bins, const double* d_levels,
                                             uint32_t* d_counts, cudaStream_t stream);
/* ---- end of range binning ------------------------------------------------------------------ */

/* ---- 64-bit counts ----
 * Every 1D call above as histtune_histogram_<binning>_counts64_<type>: d_counts holds num_bins
 * uint64 (8-byte aligned), overwritten, and n may exceed 2^32 - 1 (up to 2^60). The same
 * semantics, checks and errors as histtune::histogram_even / _direct / _range with
 * std::uint64_t* d_counts (chunks of at most 2^31 samples, each run by its tuned configuration
 * and added into d_counts). The getters below report the first chunk's configuration. */
histtune_status histtune_histogram_even_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_f32(
    const float* d_samples, uint64_t n, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_f16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_bf16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t lower, uint64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_even_counts64_f64(
    const double* d_samples, uint64_t n, uint32_t num_bins, double lower, double upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_direct_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint32_t num_bins, const uint8_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint32_t num_bins, const uint32_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint32_t num_bins, const int32_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_f32(
    const float* d_samples, uint64_t n, uint32_t num_bins, const float* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint32_t num_bins, const int8_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint32_t num_bins, const int16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_f16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_bf16(
    const uint16_t* d_samples, uint64_t n, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint32_t num_bins, const int64_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint32_t num_bins, const uint64_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_range_counts64_f64(
    const double* d_samples, uint64_t n, uint32_t num_bins, const double* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
/* ---- end 64-bit counts ---- */

/* ---- multi-channel ----
 * `rows` rows of `channels` interleaved samples (row-major [rows, channels]; RGBA pixels are
 * [pixels, 4]); the first `active_channels` each get num_bins counters, one histogram after
 * another: d_counts holds active_channels x num_bins uint32, overwritten. Every sample type of
 * the 1D calls with their bounds, levels and rules (direct binning for integers; f16 and bf16
 * samples and levels as 16-bit patterns). The same semantics, checks and errors as
 * histtune::histogram_multichannel_direct / _even / _range; the configuration is looked up in
 * the tuning database like the 1D calls' and reported by the getters below.
 *
 * ..._pitched_<type>: images with a row pitch, num_rows image rows of row_pixels pixels, image
 * row r starting r x row_pitch_bytes bytes after d_samples; the bytes between image rows are
 * never read. row_pitch_bytes: a multiple of the sample size, at least row_pixels x channels x
 * sample size, or 0 for packed rows (the pitched overloads of the C++ calls). */
histtune_status histtune_histogram_multichannel_direct_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_f32(
    const float* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_f16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_bf16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t lower, uint64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_f64(
    const double* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, double lower, double upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_f32(
    const float* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const float* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_f16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_bf16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_f64(
    const double* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const double* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint32_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_f32(
    const float* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_f16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_bf16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t lower, uint64_t upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_f64(
    const double* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, double lower, double upper,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint8_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint32_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int32_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_f32(
    const float* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const float* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int8_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int16_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_f16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_bf16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int64_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint64_t* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_f64(
    const double* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const double* d_levels,
    uint32_t* d_counts, cudaStream_t stream);
/* 64-bit counts: every multi-channel call above as ..._<binning>[_pitched]_counts64_<type>:
 * d_counts holds active_channels x num_bins uint64 (8-byte aligned), overwritten, and the rows
 * may pass 2^32 - 1 (rows x channels up to 2^60), cut into chunks of at most 2^31 rows (whole
 * image rows) as histtune::histogram_multichannel_* with std::uint64_t* d_counts. */
histtune_status histtune_histogram_multichannel_direct_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_f32(
    const float* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_f16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_bf16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, uint64_t lower, uint64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_counts64_f64(
    const double* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, double lower, double upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_f32(
    const float* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const float* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_f16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_bf16(
    const uint16_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const int64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const uint64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_counts64_f64(
    const double* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,
    uint32_t num_bins, const double* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_direct_pitched_counts64_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t* d_counts,
    cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_f32(
    const float* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_f16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_bf16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, float lower, float upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, int64_t lower, int64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, uint64_t lower, uint64_t upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_even_pitched_counts64_f64(
    const double* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, double lower, double upper,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_u8(
    const uint8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint8_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_u16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_u32(
    const uint32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint32_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_i32(
    const int32_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int32_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_f32(
    const float* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const float* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_i8(
    const int8_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int8_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_i16(
    const int16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_f16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_bf16(
    const uint16_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint16_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_i64(
    const int64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const int64_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_u64(
    const uint64_t* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const uint64_t* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_multichannel_range_pitched_counts64_f64(
    const double* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,
    uint32_t channels, uint32_t active_channels, uint32_t num_bins, const double* d_levels,
    uint64_t* d_counts, cudaStream_t stream);
/* ---- end multi-channel ---- */

/* ---- batched rows ----
 * One histogram per row: `rows` rows of n samples, row r starting r x row_stride samples after
 * d_samples (0: n, packed [rows, n]); d_counts holds rows x num_bins uint32, row r's at
 * r x num_bins, overwritten. Segmented: n samples, segment r holding samples d_offsets[r] ..
 * d_offsets[r + 1] - 1 (num_segments + 1 int64 offsets in device memory, each clamped to [0, n]
 * on the device, an end before its begin an empty segment); d_counts holds num_segments x
 * num_bins. The same semantics, checks and errors as histtune::histogram_batched_* and
 * histtune::histogram_segmented_*, every sample type of the 1D calls; f16 and bf16 samples and
 * levels as 16-bit patterns. */
histtune_status histtune_histogram_batched_even_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_f32(
    const float* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_f16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_bf16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_f32(
    const float* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const float* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_f16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_bf16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_f32(
    const float* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_f16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_bf16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int32_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_f32(
    const float* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const float* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int8_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_f16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_bf16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
/* 8-byte samples (i64, u64 with bounds of its own type, f64 with double bounds). */
histtune_status histtune_histogram_batched_even_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t lower, uint64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_f64(
    const double* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    double lower, double upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_f64(
    const double* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const double* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t lower, uint64_t upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_f64(
    const double* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, double lower, double upper, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint64_t* d_levels, uint32_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_f64(
    const double* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const double* d_levels, uint32_t* d_counts, cudaStream_t stream);
/* 64-bit counts: every call of rows above as histtune_histogram_{batched,segmented}_<binning>
 * _counts64_<type>: d_counts holds rows (segments) x num_bins uint64 (8-byte aligned),
 * overwritten, and n (a row's samples; a segmented call's in all) may pass 2^32 - 1, up to 2^60,
 * as histtune::histogram_batched_* / _segmented_* with std::uint64_t* d_counts. */
histtune_status histtune_histogram_batched_even_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_f32(
    const float* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_f16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_bf16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t lower, uint64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_even_counts64_f64(
    const double* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    double lower, double upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_direct_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_u8(
    const uint8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_u16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_u32(
    const uint32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_i32(
    const int32_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_f32(
    const float* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const float* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_i8(
    const int8_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_i16(
    const int16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_f16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_bf16(
    const uint16_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_i64(
    const int64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const int64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_u64(
    const uint64_t* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const uint64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_batched_range_counts64_f64(
    const double* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,
    const double* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_f32(
    const float* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_f16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_bf16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, float lower, float upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, int64_t lower, int64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t lower, uint64_t upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_even_counts64_f64(
    const double* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, double lower, double upper, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_direct_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_u8(
    const uint8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_u16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_u32(
    const uint32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_i32(
    const int32_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int32_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_f32(
    const float* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const float* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_i8(
    const int8_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int8_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_i16(
    const int16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_f16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_bf16(
    const uint16_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint16_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_i64(
    const int64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const int64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_u64(
    const uint64_t* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const uint64_t* d_levels, uint64_t* d_counts, cudaStream_t stream);
histtune_status histtune_histogram_segmented_range_counts64_f64(
    const double* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,
    uint32_t num_bins, const double* d_levels, uint64_t* d_counts, cudaStream_t stream);
/* ---- end batched rows ---- */

/* ---- weighted ----
 * Sample i adds d_weights[i] to its bin instead of 1: n samples and n weights. sample_type is
 * histtune::SampleType's code (u8 0, u16 1, u32 2, i32 3, f32 4, i8 5, i16 6, f16 7, bf16 8,
 * i64 9, u64 10, f64 11), weight_type histtune::WeightType's (f32 1, f64 2, i32 3, i64 4) and
 * binning 0 direct, 1 even over [lower, upper) (doubles; 64-bit integer bounds exact up to
 * 2^53), 2 range (d_levels: num_bins + 1 levels of the samples' type). d_bins: num_bins float
 * (f32 weights), double (f64) or int64_t (i32, i64) bins, overwritten. deterministic != 0: the
 * same bits on every run (f32 and f64 weights; 64-bit fixed point scaled for max_abs_weight, a
 * bound on |w| the caller guarantees, or 0 to measure it). The semantics, checks and errors of
 * histtune::histogram_even(d_samples, d_weights, ...); docs/api.md. */
histtune_status histtune_histogram_weighted(int sample_type, const void* d_samples, int weight_type,
                                            const void* d_weights, uint64_t n, int binning,
                                            uint32_t num_bins, double lower, double upper,
                                            const void* d_levels, void* d_bins, int deterministic,
                                            double max_abs_weight, cudaStream_t stream);

/* Weighted rows, segments and pixels of channels (histtune::histogram_batched_even(d_samples,
 * d_weights, ...) and the others of their section in histtune.hpp): the codes, bounds, levels,
 * modes and bins of histtune_histogram_weighted.
 * _batched: rows dense rows of n samples, row r at r x row_stride (0: n); the weights laid out as
 *   the samples (the same row stride); d_bins rows x num_bins, row r's at r x num_bins.
 * _segmented: n samples and n weights, segment r from d_offsets[r] to d_offsets[r + 1] - 1
 *   (num_segments + 1 int64 offsets in device memory, clamped to [0, n]); d_bins num_segments x
 *   num_bins.
 * _multichannel: pixels pixels of channels interleaved samples and ONE weight a pixel (pixels
 *   weights), each of a pixel's first active_channels samples adding the pixel's weight to its
 *   channel's histogram; d_bins active_channels x num_bins, channel c's at c x num_bins. */
histtune_status histtune_histogram_weighted_batched(
    int sample_type, const void* d_samples, int weight_type, const void* d_weights, uint64_t rows,
    uint64_t n, uint64_t row_stride, int binning, uint32_t num_bins, double lower, double upper,
    const void* d_levels, void* d_bins, int deterministic, double max_abs_weight,
    cudaStream_t stream);
histtune_status histtune_histogram_weighted_segmented(
    int sample_type, const void* d_samples, int weight_type, const void* d_weights, uint64_t n,
    uint64_t num_segments, const int64_t* d_offsets, int binning, uint32_t num_bins, double lower,
    double upper, const void* d_levels, void* d_bins, int deterministic, double max_abs_weight,
    cudaStream_t stream);
histtune_status histtune_histogram_weighted_multichannel(
    int sample_type, const void* d_samples, int weight_type, const void* d_weights,
    uint64_t pixels, uint32_t channels, uint32_t active_channels, int binning, uint32_t num_bins,
    double lower, double upper, const void* d_levels, void* d_bins, int deterministic,
    double max_abs_weight, cudaStream_t stream);

/* ---- joint ----
 * A histogram over tuples (numpy.histogramdd): n tuples of dims values (1 .. 4), interleaved
 * [n, dims] at d_samples, or (d_samples NULL) separate, d_columns[d] holding dimension d's n
 * values. sample_type as above (every type of at most 4 bytes, and f64 11); binning 1 even
 * (dimension d's bins[d] bins over [lower[d], upper[d]), half-open) or 2 range (d_edges[d]:
 * bins[d] + 1 ascending edges of the samples' type). d_counts: the product of the bins (below
 * 2^31), row-major, overwritten. A tuple with a value in no bin (out of range, NaN, infinite) is
 * not counted. The semantics, checks and errors of histtune::histogram_joint; docs/api.md. */
histtune_status histtune_histogramdd(int sample_type, const void* d_samples,
                                     const void* const* d_columns, uint64_t n, uint32_t dims,
                                     int binning, const uint32_t* bins, const double* lower,
                                     const double* upper, const void* const* d_edges,
                                     uint32_t* d_counts, cudaStream_t stream);

/* The message of this thread's last failed call ("" after a success). */
const char* histtune_last_error(void);
/* The configuration label and lookup level ("exact", "same_model", "nearest_shape", "same_arch",
 * "default") of this thread's last successful call, 1D, multi-channel, batched, segmented,
 * weighted or joint. */
const char* histtune_last_configuration(void);
const char* histtune_last_lookup_level(void);
/* 1 when this thread's last successful call used a stored result recorded under another driver,
 * NVRTC or histtune version than the current ones (used, but its speed under what runs now was
 * never measured; $HISTTUNE_STRICT=1 skips such results), else 0. */
int histtune_last_unverified(void);
/* How that configuration was found: the stored result matched (or why the default was used),
 * every stored result skipped on the way and why, and what is unverified. */
const char* histtune_last_detail(void);

#ifdef __cplusplus
}
#endif

#endif /* HISTTUNE_H */
