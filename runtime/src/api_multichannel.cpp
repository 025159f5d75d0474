// The multi-channel entry points: each builds its Problem and calls the one Dispatcher::run.
#include "histtune/histtune.hpp"
#include "last_choice.hpp"

namespace histtune {
namespace {

// The rows of an image: packed (row_pixels 0: the whole input is one image row of `rows`) or
// num_rows image rows of row_pixels, row_pitch_bytes apart.
struct Rows {
  std::uint64_t rows = 0;  // packed; unused for an image
  std::uint64_t row_pixels = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t row_pitch_bytes = 0;
};

Rows packed(std::uint64_t rows) { return Rows{rows, 0, 0, 0}; }
Rows image(std::uint64_t row_pixels, std::uint64_t num_rows, std::uint64_t row_pitch_bytes) {
  return Rows{0, row_pixels, num_rows, row_pitch_bytes};
}

Status run(SampleType t, Binning b, const void* d_samples, const Rows& rows,
           std::uint32_t channels, std::uint32_t active, std::uint32_t num_bins, double lower,
           double upper, std::uint32_t* d_counts, cudaStream_t stream,
           const void* d_levels = nullptr) {
  // row_pixels x num_rows must not wrap before validate() sees n.
  if (rows.num_rows != 0 && rows.row_pixels > kMaxSamples / rows.num_rows)
    return Status(StatusCode::invalid_argument,
                  "histtune: row_pixels = " + std::to_string(rows.row_pixels) + " x num_rows = " +
                      std::to_string(rows.num_rows) +
                      " exceeds 2^32 - 1, the most samples uint32 counters can count without "
                      "overflow");
  Problem p = multichannel_problem(t, channels, active,
                                   rows.row_pixels ? rows.row_pixels * rows.num_rows : rows.rows,
                                   num_bins, b);
  p.row_pixels = rows.row_pixels;
  p.row_pitch_bytes = rows.row_pitch_bytes;
  p.lower = lower;
  p.upper = upper;
  p.d_levels = d_levels;
  return run_recorded(p, d_samples, d_counts, stream);
}

}  // namespace

#define HT_MC(T, TAG)                                                                           \
  Status histogram_multichannel_direct(const T* d_samples, std::uint64_t rows,                  \
                                       std::uint32_t channels, std::uint32_t active_channels,   \
                                       std::uint32_t num_bins, std::uint32_t* d_counts,         \
                                       cudaStream_t stream) {                                   \
    return run(SampleType::TAG, Binning::direct, d_samples, packed(rows), channels,             \
               active_channels, num_bins, 0, 0, d_counts, stream);                              \
  }                                                                                             \
  Status histogram_multichannel_even(const T* d_samples, std::uint64_t rows,                    \
                                     std::uint32_t channels, std::uint32_t active_channels,     \
                                     std::uint32_t num_bins, std::int64_t lower,                \
                                     std::int64_t upper, std::uint32_t* d_counts,               \
                                     cudaStream_t stream) {                                     \
    return run(SampleType::TAG, Binning::even, d_samples, packed(rows), channels,               \
               active_channels, num_bins, static_cast<double>(lower),                           \
               static_cast<double>(upper), d_counts, stream);                                   \
  }                                                                                             \
  Status histogram_multichannel_range(const T* d_samples, std::uint64_t rows,                   \
                                      std::uint32_t channels, std::uint32_t active_channels,    \
                                      std::uint32_t num_bins, const T* d_levels,                \
                                      std::uint32_t* d_counts, cudaStream_t stream) {           \
    return run(SampleType::TAG, Binning::range, d_samples, packed(rows), channels,              \
               active_channels, num_bins, 0, 0, d_counts, stream, d_levels);                    \
  }                                                                                             \
  Status histogram_multichannel_direct(const T* d_samples, std::uint64_t row_pixels,            \
                                       std::uint64_t num_rows, std::uint64_t row_pitch_bytes,   \
                                       std::uint32_t channels, std::uint32_t active_channels,   \
                                       std::uint32_t num_bins, std::uint32_t* d_counts,         \
                                       cudaStream_t stream) {                                   \
    return run(SampleType::TAG, Binning::direct, d_samples,                                     \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, 0, 0, d_counts, stream);                                               \
  }                                                                                             \
  Status histogram_multichannel_even(const T* d_samples, std::uint64_t row_pixels,              \
                                     std::uint64_t num_rows, std::uint64_t row_pitch_bytes,     \
                                     std::uint32_t channels, std::uint32_t active_channels,     \
                                     std::uint32_t num_bins, std::int64_t lower,                \
                                     std::int64_t upper, std::uint32_t* d_counts,               \
                                     cudaStream_t stream) {                                     \
    return run(SampleType::TAG, Binning::even, d_samples,                                       \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, static_cast<double>(lower), static_cast<double>(upper), d_counts,      \
               stream);                                                                         \
  }                                                                                             \
  Status histogram_multichannel_range(const T* d_samples, std::uint64_t row_pixels,             \
                                      std::uint64_t num_rows, std::uint64_t row_pitch_bytes,    \
                                      std::uint32_t channels, std::uint32_t active_channels,    \
                                      std::uint32_t num_bins, const T* d_levels,                \
                                      std::uint32_t* d_counts, cudaStream_t stream) {           \
    return run(SampleType::TAG, Binning::range, d_samples,                                      \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, 0, 0, d_counts, stream, d_levels);                                     \
  }
HT_MC(std::uint8_t, u8)
HT_MC(std::uint16_t, u16)
#undef HT_MC

}  // namespace histtune
