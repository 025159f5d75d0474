// The entry points of the families of rows (batched, segmented): each builds its Problem and
// calls the one Dispatcher::run.
#include "histtune/histtune.hpp"
#include "last_choice.hpp"
#include "sample_types.hpp"

namespace histtune {
namespace {

// Where a call's rows are: dense rows row_stride apart, or segments between offsets.
struct Rows {
  Family family = Family::batched;
  std::uint64_t rows = 0;
  std::uint64_t row_stride = 0;
  const std::int64_t* d_offsets = nullptr;
};

Rows dense(std::uint64_t rows, std::uint64_t row_stride) {
  return Rows{Family::batched, rows, row_stride, nullptr};
}
Rows segments(std::uint64_t num_segments, const std::int64_t* d_offsets) {
  return Rows{Family::segmented, num_segments, 0, d_offsets};
}

// A call's problem: its rows and bins (even bounds and levels set by the caller).
template <class T>
Problem problem_of(Binning b, std::uint64_t n, const Rows& r, std::uint32_t num_bins) {
  Problem p = r.family == Family::batched
                  ? batched_problem(sample_type_of<T>(), b, num_bins, r.rows, n, r.row_stride)
                  : segmented_problem(sample_type_of<T>(), b, num_bins, r.rows, n);
  p.d_offsets = r.d_offsets;
  return p;
}

template <class T, class Count>
Status run_direct(const T* d_samples, std::uint64_t n, const Rows& r, std::uint32_t num_bins,
                  Count* d_counts, cudaStream_t stream) {
  return run_recorded(problem_of<T>(Binning::direct, n, r, num_bins), d_samples, d_counts,
                      stream);
}

template <class T, class Count>
Status run_even(const T* d_samples, std::uint64_t n, const Rows& r, std::uint32_t num_bins,
                typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                Count* d_counts, cudaStream_t stream) {
  Problem p = problem_of<T>(Binning::even, n, r, num_bins);
  if (std::string why = set_call_bounds(p, lower, upper); !why.empty())
    return Status(StatusCode::invalid_argument, why);
  return run_recorded(p, d_samples, d_counts, stream);
}

template <class T, class Count>
Status run_range(const T* d_samples, std::uint64_t n, const Rows& r, std::uint32_t num_bins,
                 const T* d_levels, Count* d_counts, cudaStream_t stream) {
  Problem p = problem_of<T>(Binning::range, n, r, num_bins);
  p.d_levels = d_levels;
  return run_recorded(p, d_samples, d_counts, stream);
}

}  // namespace

template <class T, class Count>
Status histogram_batched_even(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                              std::uint64_t row_stride, std::uint32_t num_bins,
                              typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                              Count* d_counts, cudaStream_t stream) {
  return run_even(d_samples, n, dense(rows, row_stride), num_bins, lower, upper, d_counts, stream);
}

template <class T, class Count>
Status histogram_batched_direct(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                                std::uint64_t row_stride, std::uint32_t num_bins, Count* d_counts,
                                cudaStream_t stream) {
  return run_direct(d_samples, n, dense(rows, row_stride), num_bins, d_counts, stream);
}

template <class T, class Count>
Status histogram_batched_range(const T* d_samples, std::uint64_t rows, std::uint64_t n,
                               std::uint64_t row_stride, std::uint32_t num_bins,
                               const typename SameType<T>::type* d_levels, Count* d_counts,
                               cudaStream_t stream) {
  return run_range(d_samples, n, dense(rows, row_stride), num_bins, d_levels, d_counts, stream);
}

template <class T, class Count>
Status histogram_segmented_even(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                const std::int64_t* d_offsets, std::uint32_t num_bins,
                                typename EvenBound<T>::type lower,
                                typename EvenBound<T>::type upper, Count* d_counts,
                                cudaStream_t stream) {
  return run_even(d_samples, n, segments(num_segments, d_offsets), num_bins, lower, upper,
                  d_counts, stream);
}

template <class T, class Count>
Status histogram_segmented_direct(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                  const std::int64_t* d_offsets, std::uint32_t num_bins,
                                  Count* d_counts, cudaStream_t stream) {
  return run_direct(d_samples, n, segments(num_segments, d_offsets), num_bins, d_counts, stream);
}

template <class T, class Count>
Status histogram_segmented_range(const T* d_samples, std::uint64_t n, std::uint64_t num_segments,
                                 const std::int64_t* d_offsets, std::uint32_t num_bins,
                                 const typename SameType<T>::type* d_levels, Count* d_counts,
                                 cudaStream_t stream) {
  return run_range(d_samples, n, segments(num_segments, d_offsets), num_bins, d_levels, d_counts,
                   stream);
}

// The instantiations: even and range binning of every sample type, direct of every integer
// type, with uint32 and uint64 counts.
#define HT_ROWS_EVEN_RANGE_AS(T, COUNT)                                                            \
  template Status histogram_batched_even<T, COUNT>(const T*, std::uint64_t, std::uint64_t,        \
                                                   std::uint64_t, std::uint32_t,                  \
                                                   EvenBound<T>::type, EvenBound<T>::type,        \
                                                   COUNT*, cudaStream_t);                         \
  template Status histogram_batched_range<T, COUNT>(const T*, std::uint64_t, std::uint64_t,       \
                                                    std::uint64_t, std::uint32_t, const T*,       \
                                                    COUNT*, cudaStream_t);                        \
  template Status histogram_segmented_even<T, COUNT>(const T*, std::uint64_t, std::uint64_t,      \
                                                     const std::int64_t*, std::uint32_t,          \
                                                     EvenBound<T>::type, EvenBound<T>::type,      \
                                                     COUNT*, cudaStream_t);                       \
  template Status histogram_segmented_range<T, COUNT>(const T*, std::uint64_t, std::uint64_t,     \
                                                      const std::int64_t*, std::uint32_t,         \
                                                      const T*, COUNT*, cudaStream_t);
#define HT_ROWS_DIRECT_AS(T, COUNT)                                                                \
  template Status histogram_batched_direct<T, COUNT>(const T*, std::uint64_t, std::uint64_t,      \
                                                     std::uint64_t, std::uint32_t, COUNT*,        \
                                                     cudaStream_t);                               \
  template Status histogram_segmented_direct<T, COUNT>(const T*, std::uint64_t, std::uint64_t,    \
                                                       const std::int64_t*, std::uint32_t,        \
                                                       COUNT*, cudaStream_t);
#define HT_ROWS_EVEN_RANGE(TAG, C, T, BOUND) \
  HT_ROWS_EVEN_RANGE_AS(T, std::uint32_t) HT_ROWS_EVEN_RANGE_AS(T, std::uint64_t)
#define HT_ROWS_DIRECT(TAG, C, T, BOUND) \
  HT_ROWS_DIRECT_AS(T, std::uint32_t) HT_ROWS_DIRECT_AS(T, std::uint64_t)
HT_ALL_TYPES(HT_ROWS_EVEN_RANGE)
HT_INTEGER_TYPES(HT_ROWS_DIRECT)
#undef HT_ROWS_EVEN_RANGE
#undef HT_ROWS_DIRECT
#undef HT_ROWS_DIRECT_AS
#undef HT_ROWS_EVEN_RANGE_AS

}  // namespace histtune
