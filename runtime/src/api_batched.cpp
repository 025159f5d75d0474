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

Status run(SampleType t, Binning b, const void* d_samples, std::uint64_t n, const Rows& r,
           std::uint32_t num_bins, double lower, double upper, std::uint32_t* d_counts,
           cudaStream_t stream, const void* d_levels = nullptr) {
  Problem p = r.family == Family::batched ? batched_problem(t, b, num_bins, r.rows, n, r.row_stride)
                                          : segmented_problem(t, b, num_bins, r.rows, n);
  p.d_offsets = r.d_offsets;
  p.lower = lower;
  p.upper = upper;
  p.d_levels = d_levels;
  return run_recorded(p, d_samples, d_counts, stream);
}

template <class Bound>
Status run_even(SampleType t, const void* d_samples, std::uint64_t n, const Rows& r,
                std::uint32_t num_bins, Bound lower, Bound upper, std::uint32_t* d_counts,
                cudaStream_t stream) {
  if (std::string why = inexact_bounds(lower, upper); !why.empty())
    return Status(StatusCode::invalid_argument, why);
  return run(t, Binning::even, d_samples, n, r, num_bins, static_cast<double>(lower),
             static_cast<double>(upper), d_counts, stream);
}

}  // namespace

#define HT_ROWS_EVEN(TAG, C, T, BOUND)                                                             \
  Status histogram_batched_even(const T* d_samples, std::uint64_t rows, std::uint64_t n,         \
                                std::uint64_t row_stride, std::uint32_t num_bins, BOUND lower,   \
                                BOUND upper, std::uint32_t* d_counts, cudaStream_t stream) {     \
    return run_even(SampleType::TAG, d_samples, n, dense(rows, row_stride), num_bins, lower,     \
                    upper, d_counts, stream);                                                    \
  }                                                                                              \
  Status histogram_segmented_even(const T* d_samples, std::uint64_t n,                           \
                                  std::uint64_t num_segments, const std::int64_t* d_offsets,     \
                                  std::uint32_t num_bins, BOUND lower, BOUND upper,              \
                                  std::uint32_t* d_counts, cudaStream_t stream) {                \
    return run_even(SampleType::TAG, d_samples, n, segments(num_segments, d_offsets), num_bins,  \
                    lower, upper, d_counts, stream);                                             \
  }                                                                                              \
  Status histogram_batched_range(const T* d_samples, std::uint64_t rows, std::uint64_t n,        \
                                 std::uint64_t row_stride, std::uint32_t num_bins,               \
                                 const T* d_levels, std::uint32_t* d_counts,                     \
                                 cudaStream_t stream) {                                          \
    return run(SampleType::TAG, Binning::range, d_samples, n, dense(rows, row_stride), num_bins, \
               0, 0, d_counts, stream, d_levels);                                                \
  }                                                                                              \
  Status histogram_segmented_range(const T* d_samples, std::uint64_t n,                          \
                                   std::uint64_t num_segments, const std::int64_t* d_offsets,    \
                                   std::uint32_t num_bins, const T* d_levels,                    \
                                   std::uint32_t* d_counts, cudaStream_t stream) {               \
    return run(SampleType::TAG, Binning::range, d_samples, n, segments(num_segments, d_offsets), \
               num_bins, 0, 0, d_counts, stream, d_levels);                                      \
  }
HT_TYPES_UP_TO_4_BYTES(HT_ROWS_EVEN)
#undef HT_ROWS_EVEN

#define HT_ROWS_DIRECT(TAG, C, T, BOUND)                                                           \
  Status histogram_batched_direct(const T* d_samples, std::uint64_t rows, std::uint64_t n,       \
                                  std::uint64_t row_stride, std::uint32_t num_bins,              \
                                  std::uint32_t* d_counts, cudaStream_t stream) {                \
    return run(SampleType::TAG, Binning::direct, d_samples, n, dense(rows, row_stride),          \
               num_bins, 0, 0, d_counts, stream);                                                \
  }                                                                                              \
  Status histogram_segmented_direct(const T* d_samples, std::uint64_t n,                         \
                                    std::uint64_t num_segments, const std::int64_t* d_offsets,   \
                                    std::uint32_t num_bins, std::uint32_t* d_counts,             \
                                    cudaStream_t stream) {                                       \
    return run(SampleType::TAG, Binning::direct, d_samples, n, segments(num_segments, d_offsets), \
               num_bins, 0, 0, d_counts, stream);                                                \
  }
HT_INTEGERS_UP_TO_4_BYTES(HT_ROWS_DIRECT)
#undef HT_ROWS_DIRECT

}  // namespace histtune
