// The weighted entry points: each builds its Problem (family weighted or weighted_det) and calls
// the one Dispatcher::run, whose counts pointer carries the bins of the weights' type.
#include <type_traits>

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

template <class T, class W>
Problem problem_of(Binning b, const W* d_weights, std::uint64_t n, std::uint32_t num_bins,
                   const WeightedOptions& o) {
  Problem p = weighted_problem(sample_type_of<T>(), weight_type_of<W>(), b, num_bins, n,
                               o.deterministic);
  p.d_weights = d_weights;
  p.weight_bound = o.max_abs_weight;
  return p;
}

Status run(const Problem& p, const void* d_samples, void* d_bins, cudaStream_t stream) {
  // The dispatcher's counts pointer is the output's: bin_bytes(p) a bin, aligned to them.
  return run_recorded(p, d_samples, static_cast<std::uint32_t*>(d_bins), stream);
}

}  // namespace

template <class T, class W>
Status histogram_even(const T* d_samples, const W* d_weights, std::uint64_t n,
                      std::uint32_t num_bins, typename EvenBound<T>::type lower,
                      typename EvenBound<T>::type upper, weighted_bin_t<W>* d_bins,
                      cudaStream_t stream, const WeightedOptions& options) {
  Problem p = problem_of<T>(Binning::even, d_weights, n, num_bins, options);
  if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>) {
    set_even_bounds(p, lower, upper);  // exactly, as the unweighted call
  } else {
    if (std::string why = inexact_bounds(lower, upper); !why.empty())
      return Status(StatusCode::invalid_argument, why);
    p.lower = static_cast<double>(lower);
    p.upper = static_cast<double>(upper);
  }
  return run(p, d_samples, d_bins, stream);
}

template <class T, class W>
Status histogram_range(const T* d_samples, const W* d_weights, std::uint64_t n,
                       std::uint32_t num_bins, const T* d_levels, weighted_bin_t<W>* d_bins,
                       cudaStream_t stream, const WeightedOptions& options) {
  Problem p = problem_of<T>(Binning::range, d_weights, n, num_bins, options);
  p.d_levels = d_levels;
  return run(p, d_samples, d_bins, stream);
}

template <class T, class W>
Status histogram_direct(const T* d_samples, const W* d_weights, std::uint64_t n,
                        std::uint32_t num_bins, weighted_bin_t<W>* d_bins, cudaStream_t stream,
                        const WeightedOptions& options) {
  return run(problem_of<T>(Binning::direct, d_weights, n, num_bins, options), d_samples, d_bins,
             stream);
}

Status histogram_weighted(SampleType t, const void* d_samples, WeightType w, const void* d_weights,
                          std::uint64_t n, Binning b, std::uint32_t num_bins, double lower,
                          double upper, const void* d_levels, void* d_bins, cudaStream_t stream,
                          const WeightedOptions& options) {
  Problem p = weighted_problem(t, w, b, num_bins, n, options.deterministic, lower, upper);
  p.d_weights = d_weights;
  p.weight_bound = options.max_abs_weight;
  p.d_levels = d_levels;
  return run(p, d_samples, d_bins, stream);
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
#define HT_EVERY_WEIGHT(M, T) M(T, float) M(T, double) M(T, std::int32_t) M(T, std::int64_t)
#define HT_EVEN_RANGE_OF(TAG, C, T, BOUND) HT_EVERY_WEIGHT(HT_WEIGHTED_EVEN_RANGE, T)
#define HT_DIRECT_OF(TAG, C, T, BOUND) HT_EVERY_WEIGHT(HT_WEIGHTED_DIRECT, T)
HT_ALL_TYPES(HT_EVEN_RANGE_OF)
HT_INTEGER_TYPES(HT_DIRECT_OF)
#undef HT_EVEN_RANGE_OF
#undef HT_DIRECT_OF
#undef HT_EVERY_WEIGHT
#undef HT_WEIGHTED_DIRECT
#undef HT_WEIGHTED_EVEN_RANGE

}  // namespace histtune
