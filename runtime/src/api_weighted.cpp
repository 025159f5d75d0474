// The weighted entry points: each builds its Problem (family weighted or weighted_det; flat, rows,
// segments or channels: WeightedShape) and calls the one Dispatcher::run, whose counts pointer
// carries the bins of the weights' type.
#include "histtune/histtune.hpp"
#include "last_choice.hpp"
#include "sample_types.hpp"

namespace histtune {
namespace {

template <class W> constexpr WeightType weight_type_of();
template <> constexpr WeightType weight_type_of<float>() { return WeightType::f32; }
template <> constexpr WeightType weight_type_of<double>() { return WeightType::f64; }
template <> constexpr WeightType weight_type_of<std::int32_t>() { return WeightType::i32; }
template <> constexpr WeightType weight_type_of<std::int64_t>() { return WeightType::i64; }

// A shape's fields on the problem (WeightedForm follows from them).
void set_shape(Problem& p, const WeightedShape& s) {
  p.rows = s.rows;
  p.row_stride = s.row_stride;
  p.d_offsets = s.d_offsets;
  p.segments = s.segments;
  p.channels = s.channels;
  p.active_channels = s.active_channels;
}

template <class T, class W>
Problem problem_of(Binning b, const W* d_weights, std::uint64_t n, std::uint32_t num_bins,
                   const WeightedOptions& o, const WeightedShape& shape = {}) {
  Problem p = weighted_problem(sample_type_of<T>(), weight_type_of<W>(), b, num_bins, n,
                               o.deterministic);
  p.d_weights = d_weights;
  p.weight_bound = o.max_abs_weight;
  set_shape(p, shape);
  return p;
}

Status run(const Problem& p, const void* d_samples, void* d_bins, cudaStream_t stream) {
  // The dispatcher's counts pointer is the output's: bin_bytes(p) a bin, aligned to them.
  return run_recorded(p, d_samples, static_cast<std::uint32_t*>(d_bins), stream);
}

// The typed calls of every shape, by binning (the even bounds exact, as the 1D calls').
template <class T, class W>
Status run_even(const WeightedShape& shape, const T* d_samples, const W* d_weights,
                std::uint64_t n, std::uint32_t num_bins, typename EvenBound<T>::type lower,
                typename EvenBound<T>::type upper, void* d_bins, cudaStream_t stream,
                const WeightedOptions& o) {
  Problem p = problem_of<T>(Binning::even, d_weights, n, num_bins, o, shape);
  if (std::string why = set_call_bounds(p, lower, upper); !why.empty())
    return Status(StatusCode::invalid_argument, why);
  return run(p, d_samples, d_bins, stream);
}

template <class T, class W>
Status run_range(const WeightedShape& shape, const T* d_samples, const W* d_weights,
                 std::uint64_t n, std::uint32_t num_bins, const T* d_levels, void* d_bins,
                 cudaStream_t stream, const WeightedOptions& o) {
  Problem p = problem_of<T>(Binning::range, d_weights, n, num_bins, o, shape);
  p.d_levels = d_levels;
  return run(p, d_samples, d_bins, stream);
}

template <class T, class W>
Status run_direct(const WeightedShape& shape, const T* d_samples, const W* d_weights,
                  std::uint64_t n, std::uint32_t num_bins, void* d_bins, cudaStream_t stream,
                  const WeightedOptions& o) {
  return run(problem_of<T>(Binning::direct, d_weights, n, num_bins, o, shape), d_samples, d_bins,
             stream);
}

}  // namespace

WeightedShape WeightedShape::dense_rows(std::uint64_t rows, std::uint64_t row_stride) {
  WeightedShape s;
  s.rows = rows;
  s.row_stride = row_stride;
  return s;
}

WeightedShape WeightedShape::segments_of(std::uint64_t num_segments,
                                         const std::int64_t* d_offsets) {
  WeightedShape s;
  s.rows = num_segments;
  s.d_offsets = d_offsets;
  s.segments = true;
  return s;
}

WeightedShape WeightedShape::pixels_of(std::uint32_t channels, std::uint32_t active_channels) {
  WeightedShape s;
  s.channels = channels;
  s.active_channels = active_channels;
  return s;
}

template <class T, class W>
Status histogram_even(const T* d_samples, const W* d_weights, std::uint64_t n,
                      std::uint32_t num_bins, typename EvenBound<T>::type lower,
                      typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                      cudaStream_t stream, const WeightedOptions& options) {
  return run_even(WeightedShape{}, d_samples, d_weights, n, num_bins, lower, upper, d_bins, stream,
                  options);
}

template <class T, class W>
Status histogram_range(const T* d_samples, const W* d_weights, std::uint64_t n,
                       std::uint32_t num_bins, const T* d_levels, weighted_bin_t<W>* d_bins,
                       cudaStream_t stream, const WeightedOptions& options) {
  return run_range(WeightedShape{}, d_samples, d_weights, n, num_bins, d_levels, d_bins, stream,
                   options);
}

template <class T, class W>
Status histogram_direct(const T* d_samples, const W* d_weights, std::uint64_t n,
                        std::uint32_t num_bins, weighted_bin_t<W>* d_bins, cudaStream_t stream,
                        const WeightedOptions& options) {
  return run_direct(WeightedShape{}, d_samples, d_weights, n, num_bins, d_bins, stream, options);
}

Status histogram_weighted(SampleType t, const void* d_samples, WeightType w, const void* d_weights,
                          std::uint64_t n, Binning b, std::uint32_t num_bins, double lower,
                          double upper, const void* d_levels, void* d_bins, cudaStream_t stream,
                          const WeightedOptions& options) {
  return histogram_weighted(WeightedShape{}, t, d_samples, w, d_weights, n, b, num_bins, lower,
                            upper, d_levels, d_bins, stream, options);
}

Status histogram_weighted(const WeightedShape& shape, SampleType t, const void* d_samples,
                          WeightType w, const void* d_weights, std::uint64_t n, Binning b,
                          std::uint32_t num_bins, double lower, double upper,
                          const void* d_levels, void* d_bins, cudaStream_t stream,
                          const WeightedOptions& options) {
  Problem p = weighted_problem(t, w, b, num_bins, n, options.deterministic, lower, upper);
  p.d_weights = d_weights;
  p.weight_bound = options.max_abs_weight;
  p.d_levels = d_levels;
  set_shape(p, shape);
  return run(p, d_samples, d_bins, stream);
}

// ---- rows, segments and pixels of channels ----

template <class T, class W>
Status histogram_batched_even(const T* d_samples, const W* d_weights, std::uint64_t rows,
                              std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                              typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                              weighted_bin_t<W>* d_bins, cudaStream_t stream,
                              const WeightedOptions& options) {
  return run_even(WeightedShape::dense_rows(rows, row_stride), d_samples, d_weights, n, num_bins,
                  lower, upper, d_bins, stream, options);
}

template <class T, class W>
Status histogram_batched_range(const T* d_samples, const W* d_weights, std::uint64_t rows,
                               std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                               const T* d_levels, weighted_bin_t<W>* d_bins, cudaStream_t stream,
                               const WeightedOptions& options) {
  return run_range(WeightedShape::dense_rows(rows, row_stride), d_samples, d_weights, n, num_bins,
                   d_levels, d_bins, stream, options);
}

template <class T, class W>
Status histogram_batched_direct(const T* d_samples, const W* d_weights, std::uint64_t rows,
                                std::uint64_t n, std::uint64_t row_stride, std::uint32_t num_bins,
                                weighted_bin_t<W>* d_bins, cudaStream_t stream,
                                const WeightedOptions& options) {
  return run_direct(WeightedShape::dense_rows(rows, row_stride), d_samples, d_weights, n, num_bins,
                    d_bins, stream, options);
}

template <class T, class W>
Status histogram_segmented_even(const T* d_samples, const W* d_weights, std::uint64_t n,
                                std::uint64_t num_segments, const std::int64_t* d_offsets,
                                std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                                cudaStream_t stream, const WeightedOptions& options) {
  return run_even(WeightedShape::segments_of(num_segments, d_offsets), d_samples, d_weights, n,
                  num_bins, lower, upper, d_bins, stream, options);
}

template <class T, class W>
Status histogram_segmented_range(const T* d_samples, const W* d_weights, std::uint64_t n,
                                 std::uint64_t num_segments, const std::int64_t* d_offsets,
                                 std::uint32_t num_bins, const T* d_levels,
                                 weighted_bin_t<W>* d_bins, cudaStream_t stream,
                                 const WeightedOptions& options) {
  return run_range(WeightedShape::segments_of(num_segments, d_offsets), d_samples, d_weights, n,
                   num_bins, d_levels, d_bins, stream, options);
}

template <class T, class W>
Status histogram_segmented_direct(const T* d_samples, const W* d_weights, std::uint64_t n,
                                  std::uint64_t num_segments, const std::int64_t* d_offsets,
                                  std::uint32_t num_bins, weighted_bin_t<W>* d_bins,
                                  cudaStream_t stream, const WeightedOptions& options) {
  return run_direct(WeightedShape::segments_of(num_segments, d_offsets), d_samples, d_weights, n,
                    num_bins, d_bins, stream, options);
}

template <class T, class W>
Status histogram_multichannel_even(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                   std::uint32_t channels, std::uint32_t active_channels,
                                   std::uint32_t num_bins, typename EvenBound<T>::type lower,
                                   typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                                   cudaStream_t stream, const WeightedOptions& options) {
  return run_even(WeightedShape::pixels_of(channels, active_channels), d_samples, d_weights, pixels,
                  num_bins, lower, upper, d_bins, stream, options);
}

template <class T, class W>
Status histogram_multichannel_range(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                    std::uint32_t channels, std::uint32_t active_channels,
                                    std::uint32_t num_bins, const T* d_levels,
                                    weighted_bin_t<W>* d_bins, cudaStream_t stream,
                                    const WeightedOptions& options) {
  return run_range(WeightedShape::pixels_of(channels, active_channels), d_samples, d_weights,
                   pixels, num_bins, d_levels, d_bins, stream, options);
}

template <class T, class W>
Status histogram_multichannel_direct(const T* d_samples, const W* d_weights, std::uint64_t pixels,
                                     std::uint32_t channels, std::uint32_t active_channels,
                                     std::uint32_t num_bins, weighted_bin_t<W>* d_bins,
                                     cudaStream_t stream, const WeightedOptions& options) {
  return run_direct(WeightedShape::pixels_of(channels, active_channels), d_samples, d_weights,
                    pixels, num_bins, d_bins, stream, options);
}

FamilyChoice last_weighted_choice() { return last_family_choice(last_weighted_family()); }

// The instantiations: every sample type with every weight type.
#define HT_WEIGHTED_EVEN_RANGE(T, W)                                                              \
  template Status histogram_even<T, W>(const T*, const W*, std::uint64_t, std::uint32_t,         \
                                       EvenBound<T>::type, EvenBound<T>::type,                   \
                                       weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&); \
  template Status histogram_range<T, W>(const T*, const W*, std::uint64_t, std::uint32_t,        \
                                        const T*, weighted_bin_t<W>*, cudaStream_t,              \
                                        const WeightedOptions&);
#define HT_WEIGHTED_DIRECT(T, W)                                                                  \
  template Status histogram_direct<T, W>(const T*, const W*, std::uint64_t, std::uint32_t,       \
                                         weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&);
// The shaped calls: rows, segments, pixels of channels.
#define HT_SHAPED_EVEN_RANGE(T, W)                                                                \
  template Status histogram_batched_even<T, W>(                                                  \
      const T*, const W*, std::uint64_t, std::uint64_t, std::uint64_t, std::uint32_t,            \
      EvenBound<T>::type, EvenBound<T>::type, weighted_bin_t<W>*, cudaStream_t,                  \
      const WeightedOptions&);                                                                   \
  template Status histogram_batched_range<T, W>(const T*, const W*, std::uint64_t,               \
                                                std::uint64_t, std::uint64_t, std::uint32_t,     \
                                                const T*, weighted_bin_t<W>*, cudaStream_t,      \
                                                const WeightedOptions&);                         \
  template Status histogram_segmented_even<T, W>(                                                \
      const T*, const W*, std::uint64_t, std::uint64_t, const std::int64_t*, std::uint32_t,      \
      EvenBound<T>::type, EvenBound<T>::type, weighted_bin_t<W>*, cudaStream_t,                  \
      const WeightedOptions&);                                                                   \
  template Status histogram_segmented_range<T, W>(                                               \
      const T*, const W*, std::uint64_t, std::uint64_t, const std::int64_t*, std::uint32_t,      \
      const T*, weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&);                       \
  template Status histogram_multichannel_even<T, W>(                                             \
      const T*, const W*, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t,            \
      EvenBound<T>::type, EvenBound<T>::type, weighted_bin_t<W>*, cudaStream_t,                  \
      const WeightedOptions&);                                                                   \
  template Status histogram_multichannel_range<T, W>(                                            \
      const T*, const W*, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t, const T*,  \
      weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&);
#define HT_SHAPED_DIRECT(T, W)                                                                    \
  template Status histogram_batched_direct<T, W>(const T*, const W*, std::uint64_t,              \
                                                 std::uint64_t, std::uint64_t, std::uint32_t,    \
                                                 weighted_bin_t<W>*, cudaStream_t,               \
                                                 const WeightedOptions&);                        \
  template Status histogram_segmented_direct<T, W>(                                              \
      const T*, const W*, std::uint64_t, std::uint64_t, const std::int64_t*, std::uint32_t,      \
      weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&);                                 \
  template Status histogram_multichannel_direct<T, W>(                                           \
      const T*, const W*, std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t,            \
      weighted_bin_t<W>*, cudaStream_t, const WeightedOptions&);
#define HT_EVERY_WEIGHT(M, T) M(T, float) M(T, double) M(T, std::int32_t) M(T, std::int64_t)
#define HT_EVEN_RANGE_OF(TAG, C, T, BOUND) \
  HT_EVERY_WEIGHT(HT_WEIGHTED_EVEN_RANGE, T) HT_EVERY_WEIGHT(HT_SHAPED_EVEN_RANGE, T)
#define HT_DIRECT_OF(TAG, C, T, BOUND) \
  HT_EVERY_WEIGHT(HT_WEIGHTED_DIRECT, T) HT_EVERY_WEIGHT(HT_SHAPED_DIRECT, T)
HT_ALL_TYPES(HT_EVEN_RANGE_OF)
HT_INTEGER_TYPES(HT_DIRECT_OF)
#undef HT_EVEN_RANGE_OF
#undef HT_DIRECT_OF
#undef HT_EVERY_WEIGHT
#undef HT_WEIGHTED_DIRECT
#undef HT_SHAPED_DIRECT
#undef HT_SHAPED_EVEN_RANGE
#undef HT_WEIGHTED_EVEN_RANGE

}  // namespace histtune
