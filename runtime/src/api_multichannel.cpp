// The multi-channel entry points: each builds its Problem and calls the one Dispatcher::run.
#include "histtune/counts64.hpp"
#include "histtune/histtune.hpp"
#include "last_choice.hpp"
#include "sample_types.hpp"

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

// A call's problem: its rows, channels and bins (even bounds and levels set by the caller).
template <class T>
Problem problem_of(Binning b, const Rows& rows, std::uint32_t channels, std::uint32_t active,
                   std::uint32_t num_bins) {
  Problem p = multichannel_problem(sample_type_of<T>(), channels, active,
                                   rows.row_pixels ? rows.row_pixels * rows.num_rows : rows.rows,
                                   num_bins, b);
  p.row_pixels = rows.row_pixels;
  p.row_pitch_bytes = rows.row_pitch_bytes;
  return p;
}

template <class Count>
Status run(const Problem& p, const Rows& rows, const void* d_samples, Count* d_counts,
           cudaStream_t stream) {
  // row_pixels x num_rows must not wrap before validate() sees n.
  constexpr bool wide = sizeof(Count) == 8;
  if (rows.num_rows != 0 && rows.row_pixels > (wide ? kMaxSamples64 : kMaxSamples) / rows.num_rows)
    return Status(StatusCode::invalid_argument,
                  "histtune: row_pixels = " + std::to_string(rows.row_pixels) + " x num_rows = " +
                      std::to_string(rows.num_rows) +
                      (wide ? " exceeds 2^60, the most rows a call with 64-bit counts takes"
                            : " exceeds 2^32 - 1, the most samples uint32 counters can count "
                              "without overflow"));
  return run_recorded(p, d_samples, d_counts, stream);
}

template <class T, class Count>
Status run_direct(const T* d_samples, const Rows& rows, std::uint32_t channels,
                  std::uint32_t active, std::uint32_t num_bins, Count* d_counts,
                  cudaStream_t stream) {
  const Problem p = problem_of<T>(Binning::direct, rows, channels, active, num_bins);
  return run(p, rows, d_samples, d_counts, stream);
}

template <class T, class Count>
Status run_even(const T* d_samples, const Rows& rows, std::uint32_t channels,
                std::uint32_t active, std::uint32_t num_bins, typename EvenBound<T>::type lower,
                typename EvenBound<T>::type upper, Count* d_counts, cudaStream_t stream) {
  Problem p = problem_of<T>(Binning::even, rows, channels, active, num_bins);
  if (std::string why = set_call_bounds(p, lower, upper); !why.empty())
    return Status(StatusCode::invalid_argument, why);
  return run(p, rows, d_samples, d_counts, stream);
}

template <class T, class Count>
Status run_range(const T* d_samples, const Rows& rows, std::uint32_t channels,
                 std::uint32_t active, std::uint32_t num_bins, const T* d_levels,
                 Count* d_counts, cudaStream_t stream) {
  Problem p = problem_of<T>(Binning::range, rows, channels, active, num_bins);
  p.d_levels = d_levels;
  return run(p, rows, d_samples, d_counts, stream);
}

}  // namespace

template <class T, class Count>
Status histogram_multichannel_direct(const T* d_samples, std::uint64_t rows,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, Count* d_counts,
                                     cudaStream_t stream) {
  return run_direct(d_samples, packed(rows), channels, active_channels, num_bins, d_counts, stream);
}

template <class T, class Count>
Status histogram_multichannel_even(const T* d_samples, std::uint64_t rows, std::uint32_t channels,
                                   std::uint32_t active_channels, std::uint32_t num_bins,
                                   typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, Count* d_counts,
                                   cudaStream_t stream) {
  return run_even(d_samples, packed(rows), channels, active_channels, num_bins, lower, upper,
                  d_counts, stream);
}

template <class T, class Count>
Status histogram_multichannel_range(const T* d_samples, std::uint64_t rows,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins,
                                    const typename SameType<T>::type* d_levels, Count* d_counts,
                                    cudaStream_t stream) {
  return run_range(d_samples, packed(rows), channels, active_channels, num_bins, d_levels,
                   d_counts, stream);
}

template <class T, class Count>
Status histogram_multichannel_direct(const T* d_samples, std::uint64_t row_pixels,
                                     std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, Count* d_counts,
                                     cudaStream_t stream) {
  return run_direct(d_samples, image(row_pixels, num_rows, row_pitch_bytes), channels,
                    active_channels, num_bins, d_counts, stream);
}

template <class T, class Count>
Status histogram_multichannel_even(const T* d_samples, std::uint64_t row_pixels,
                                   std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                   std::uint32_t channels, std::uint32_t active_channels,
                                   std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, Count* d_counts,
                                   cudaStream_t stream) {
  return run_even(d_samples, image(row_pixels, num_rows, row_pitch_bytes), channels,
                  active_channels, num_bins, lower, upper, d_counts, stream);
}

template <class T, class Count>
Status histogram_multichannel_range(const T* d_samples, std::uint64_t row_pixels,
                                    std::uint64_t num_rows, std::uint64_t row_pitch_bytes,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins,
                                    const typename SameType<T>::type* d_levels, Count* d_counts,
                                    cudaStream_t stream) {
  return run_range(d_samples, image(row_pixels, num_rows, row_pitch_bytes), channels,
                   active_channels, num_bins, d_levels, d_counts, stream);
}

// The instantiations: even and range binning of every sample type, direct of every integer
// type, with uint32 and uint64 counts.
#define HT_MC_EVEN_RANGE_AS(T, COUNT)                                                              \
  template Status histogram_multichannel_even<T, COUNT>(                                          \
      const T*, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t, EvenBound<T>::type,    \
      EvenBound<T>::type, COUNT*, cudaStream_t);                                                   \
  template Status histogram_multichannel_even<T, COUNT>(                                          \
      const T*, std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t,         \
      std::uint32_t, EvenBound<T>::type, EvenBound<T>::type, COUNT*, cudaStream_t);                \
  template Status histogram_multichannel_range<T, COUNT>(const T*, std::uint64_t, std::uint32_t,  \
                                                         std::uint32_t, std::uint32_t, const T*,  \
                                                         COUNT*, cudaStream_t);                   \
  template Status histogram_multichannel_range<T, COUNT>(                                         \
      const T*, std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t,         \
      std::uint32_t, const T*, COUNT*, cudaStream_t);
#define HT_MC_DIRECT_AS(T, COUNT)                                                                  \
  template Status histogram_multichannel_direct<T, COUNT>(const T*, std::uint64_t, std::uint32_t, \
                                                          std::uint32_t, std::uint32_t, COUNT*,   \
                                                          cudaStream_t);                          \
  template Status histogram_multichannel_direct<T, COUNT>(                                        \
      const T*, std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t, std::uint32_t,         \
      std::uint32_t, COUNT*, cudaStream_t);
#define HT_MC_EVEN_RANGE(TAG, C, T, BOUND) \
  HT_MC_EVEN_RANGE_AS(T, std::uint32_t) HT_MC_EVEN_RANGE_AS(T, std::uint64_t)
#define HT_MC_DIRECT(TAG, C, T, BOUND) \
  HT_MC_DIRECT_AS(T, std::uint32_t) HT_MC_DIRECT_AS(T, std::uint64_t)
HT_ALL_TYPES(HT_MC_EVEN_RANGE)
HT_INTEGER_TYPES(HT_MC_DIRECT)
#undef HT_MC_EVEN_RANGE
#undef HT_MC_DIRECT
#undef HT_MC_DIRECT_AS
#undef HT_MC_EVEN_RANGE_AS

}  // namespace histtune
