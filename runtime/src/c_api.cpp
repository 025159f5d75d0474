// The C API: thin wrappers over the C++ free functions, status codes and a per-thread message.
#include "histtune/histtune.h"

#include <string>

#include "histtune/histtune.hpp"
#include "last_choice.hpp"
#include "sample_types.hpp"

namespace {

thread_local std::string t_error;
thread_local histtune::Choice t_choice;  // of the last successful call
thread_local std::string t_label;        // built when asked for: not on every call's path
thread_local bool t_any_success = false;  // before one, the getters answer ""
thread_local histtune::MultiChannelChoice t_mc_choice;  // of the last successful multi-channel call
thread_local histtune::BatchedChoice t_rows_choice;     // of the last successful call of rows
thread_local histtune::FamilyChoice t_weighted_choice;   // of the last successful weighted call
thread_local histtune::FamilyChoice t_joint_choice;      // of the last successful joint call
// Which family's call was the last successful one.
enum class Last { hist1d, multichannel, rows, weighted, joint };
thread_local Last t_last = Last::hist1d;

histtune_status finish(const histtune::Status& s) {
  if (s.ok()) {
    t_error.clear();
    t_choice = histtune::last_choice();
    t_any_success = true;
    t_last = Last::hist1d;
  } else {
    t_error = s.message();
  }
  return static_cast<histtune_status>(s.code());
}

histtune_status finish_multichannel(const histtune::Status& s) {
  if (!s.ok()) return finish(s);
  t_error.clear();
  t_mc_choice = histtune::last_multichannel_choice();
  t_any_success = true;
  t_last = Last::multichannel;
  return HISTTUNE_OK;
}

histtune_status finish_rows(const histtune::Status& s) {
  if (!s.ok()) return finish(s);
  t_error.clear();
  t_rows_choice = histtune::last_batched_choice();
  t_any_success = true;
  t_last = Last::rows;
  return HISTTUNE_OK;
}

histtune_status finish_weighted(const histtune::Status& s) {
  if (!s.ok()) return finish(s);
  t_error.clear();
  t_weighted_choice = histtune::last_weighted_choice();
  t_any_success = true;
  t_last = Last::weighted;
  return HISTTUNE_OK;
}

histtune_status finish_joint(const histtune::Status& s) {
  if (!s.ok()) return finish(s);
  t_error.clear();
  t_joint_choice = histtune::last_joint_choice();
  t_any_success = true;
  t_last = Last::joint;
  return HISTTUNE_OK;
}

// A choice's label, typed or of any family.
template <class C>
std::string label_of(const histtune::ChoiceOf<C>& c) {
  return c.config.label();
}
std::string label_of(const histtune::FamilyChoice& c) { return c.label(); }

// The last successful call's choice, whichever family made it.
template <class F>
auto with_last(F f) {
  switch (t_last) {
    case Last::multichannel: return f(t_mc_choice);
    case Last::rows: return f(t_rows_choice);
    case Last::weighted: return f(t_weighted_choice);
    case Last::joint: return f(t_joint_choice);
    default: return f(t_choice);
  }
}

}  // namespace

extern "C" {

// T is the C sample type, CPP the C++ one: C has no __half or __nv_bfloat16, so its f16 and bf16
// calls take the samples' 16-bit patterns, the same bytes. Each 1D call twice, from one body:
// histtune_histogram_<binning>_<type> with uint32 counts, ..._counts64_<type> with uint64 ones.
#define HT_C_EVEN_AS(NAME, T, CPP, LEVEL, COUNT)                                                   \
  histtune_status NAME(const T* d_samples, uint64_t n, uint32_t num_bins, LEVEL lower,          \
                       LEVEL upper, COUNT* d_counts, cudaStream_t stream) {                     \
    return finish(histtune::histogram_even(reinterpret_cast<const CPP*>(d_samples), n, num_bins, \
                                           lower, upper, d_counts, stream));                    \
  }
#define HT_C_EVEN(SUFFIX, T, CPP, LEVEL)                                     \
  HT_C_EVEN_AS(histtune_histogram_even_##SUFFIX, T, CPP, LEVEL, uint32_t) \
  HT_C_EVEN_AS(histtune_histogram_even_counts64_##SUFFIX, T, CPP, LEVEL, uint64_t)
HT_ALL_TYPES(HT_C_EVEN)
#undef HT_C_EVEN
#undef HT_C_EVEN_AS

#define HT_C_DIRECT_AS(NAME, T, COUNT)                                                             \
  histtune_status NAME(const T* d_samples, uint64_t n, uint32_t num_bins, COUNT* d_counts,      \
                       cudaStream_t stream) {                                                   \
    return finish(histtune::histogram_direct(d_samples, n, num_bins, d_counts, stream));        \
  }
#define HT_C_DIRECT(SUFFIX, T, CPP, BOUND)                              \
  HT_C_DIRECT_AS(histtune_histogram_direct_##SUFFIX, T, uint32_t) \
  HT_C_DIRECT_AS(histtune_histogram_direct_counts64_##SUFFIX, T, uint64_t)
HT_INTEGER_TYPES(HT_C_DIRECT)
#undef HT_C_DIRECT
#undef HT_C_DIRECT_AS

// ---- range binning ----
#define HT_C_RANGE_AS(NAME, T, CPP, COUNT)                                                         \
  histtune_status NAME(const T* d_samples, uint64_t n, uint32_t num_bins, const T* d_levels,    \
                       COUNT* d_counts, cudaStream_t stream) {                                  \
    return finish(histtune::histogram_range(reinterpret_cast<const CPP*>(d_samples), n,         \
                                            num_bins, reinterpret_cast<const CPP*>(d_levels),   \
                                            d_counts, stream));                                 \
  }
#define HT_C_RANGE(SUFFIX, T, CPP, BOUND)                                \
  HT_C_RANGE_AS(histtune_histogram_range_##SUFFIX, T, CPP, uint32_t) \
  HT_C_RANGE_AS(histtune_histogram_range_counts64_##SUFFIX, T, CPP, uint64_t)
HT_ALL_TYPES(HT_C_RANGE)
#undef HT_C_RANGE
#undef HT_C_RANGE_AS

// ---- end of range binning ----

// ---- multi-channel ----
// histtune_histogram_multichannel_<binning>[_pitched]<SUFFIX>: packed rows and pitched images.
#define HT_C_MC_EVEN_RANGE_AS(SUFFIX, T, CPP, BOUND, COUNT)                                        \
  histtune_status histtune_histogram_multichannel_even##SUFFIX(                                  \
      const T* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,            \
      uint32_t num_bins, BOUND lower, BOUND upper, COUNT* d_counts, cudaStream_t stream) {       \
    return finish_multichannel(histtune::histogram_multichannel_even(                           \
        reinterpret_cast<const CPP*>(d_samples), rows, channels, active_channels, num_bins,      \
        lower, upper, d_counts, stream));                                                        \
  }                                                                                              \
  histtune_status histtune_histogram_multichannel_range##SUFFIX(                                 \
      const T* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,            \
      uint32_t num_bins, const T* d_levels, COUNT* d_counts, cudaStream_t stream) {              \
    return finish_multichannel(histtune::histogram_multichannel_range(                          \
        reinterpret_cast<const CPP*>(d_samples), rows, channels, active_channels, num_bins,      \
        reinterpret_cast<const CPP*>(d_levels), d_counts, stream));                              \
  }                                                                                              \
  histtune_status histtune_histogram_multichannel_even_pitched##SUFFIX(                          \
      const T* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,      \
      uint32_t channels, uint32_t active_channels, uint32_t num_bins, BOUND lower, BOUND upper,  \
      COUNT* d_counts, cudaStream_t stream) {                                                    \
    return finish_multichannel(histtune::histogram_multichannel_even(                           \
        reinterpret_cast<const CPP*>(d_samples), row_pixels, num_rows, row_pitch_bytes,          \
        channels, active_channels, num_bins, lower, upper, d_counts, stream));                   \
  }                                                                                              \
  histtune_status histtune_histogram_multichannel_range_pitched##SUFFIX(                         \
      const T* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,      \
      uint32_t channels, uint32_t active_channels, uint32_t num_bins, const T* d_levels,         \
      COUNT* d_counts, cudaStream_t stream) {                                                    \
    return finish_multichannel(histtune::histogram_multichannel_range(                          \
        reinterpret_cast<const CPP*>(d_samples), row_pixels, num_rows, row_pitch_bytes,          \
        channels, active_channels, num_bins, reinterpret_cast<const CPP*>(d_levels), d_counts,   \
        stream));                                                                                \
  }
#define HT_C_MC_DIRECT_AS(SUFFIX, T, COUNT)                                                        \
  histtune_status histtune_histogram_multichannel_direct##SUFFIX(                                \
      const T* d_samples, uint64_t rows, uint32_t channels, uint32_t active_channels,            \
      uint32_t num_bins, COUNT* d_counts, cudaStream_t stream) {                                 \
    return finish_multichannel(histtune::histogram_multichannel_direct(                         \
        d_samples, rows, channels, active_channels, num_bins, d_counts, stream));                \
  }                                                                                              \
  histtune_status histtune_histogram_multichannel_direct_pitched##SUFFIX(                        \
      const T* d_samples, uint64_t row_pixels, uint64_t num_rows, uint64_t row_pitch_bytes,      \
      uint32_t channels, uint32_t active_channels, uint32_t num_bins, COUNT* d_counts,           \
      cudaStream_t stream) {                                                                     \
    return finish_multichannel(histtune::histogram_multichannel_direct(                         \
        d_samples, row_pixels, num_rows, row_pitch_bytes, channels, active_channels, num_bins,   \
        d_counts, stream));                                                                      \
  }
#define HT_C_MC_EVEN_RANGE(TAG, T, CPP, BOUND)           \
  HT_C_MC_EVEN_RANGE_AS(_##TAG, T, CPP, BOUND, uint32_t) \
  HT_C_MC_EVEN_RANGE_AS(_counts64_##TAG, T, CPP, BOUND, uint64_t)
#define HT_C_MC_DIRECT(TAG, T, CPP, BOUND) \
  HT_C_MC_DIRECT_AS(_##TAG, T, uint32_t) HT_C_MC_DIRECT_AS(_counts64_##TAG, T, uint64_t)
HT_ALL_TYPES(HT_C_MC_EVEN_RANGE)
HT_INTEGER_TYPES(HT_C_MC_DIRECT)
#undef HT_C_MC_EVEN_RANGE
#undef HT_C_MC_DIRECT
#undef HT_C_MC_DIRECT_AS
#undef HT_C_MC_EVEN_RANGE_AS
// ---- end multi-channel ----

// ---- batched rows ----
// histtune_histogram_{batched,segmented}_<binning><SUFFIX>.
#define HT_C_ROWS_EVEN_RANGE_AS(SUFFIX, T, CPP, BOUND, COUNT)                                      \
  histtune_status histtune_histogram_batched_even##SUFFIX(                                       \
      const T* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,     \
      BOUND lower, BOUND upper, COUNT* d_counts, cudaStream_t stream) {                          \
    return finish_rows(histtune::histogram_batched_even(reinterpret_cast<const CPP*>(d_samples), \
                                                        rows, n, row_stride, num_bins, lower,    \
                                                        upper, d_counts, stream));               \
  }                                                                                              \
  histtune_status histtune_histogram_batched_range##SUFFIX(                                      \
      const T* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,     \
      const T* d_levels, COUNT* d_counts, cudaStream_t stream) {                                 \
    return finish_rows(histtune::histogram_batched_range(                                        \
        reinterpret_cast<const CPP*>(d_samples), rows, n, row_stride, num_bins,                  \
        reinterpret_cast<const CPP*>(d_levels), d_counts, stream));                              \
  }                                                                                              \
  histtune_status histtune_histogram_segmented_even##SUFFIX(                                     \
      const T* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,           \
      uint32_t num_bins, BOUND lower, BOUND upper, COUNT* d_counts, cudaStream_t stream) {       \
    return finish_rows(histtune::histogram_segmented_even(                                       \
        reinterpret_cast<const CPP*>(d_samples), n, num_segments, d_offsets, num_bins, lower,    \
        upper, d_counts, stream));                                                               \
  }                                                                                              \
  histtune_status histtune_histogram_segmented_range##SUFFIX(                                    \
      const T* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,           \
      uint32_t num_bins, const T* d_levels, COUNT* d_counts, cudaStream_t stream) {              \
    return finish_rows(histtune::histogram_segmented_range(                                      \
        reinterpret_cast<const CPP*>(d_samples), n, num_segments, d_offsets, num_bins,           \
        reinterpret_cast<const CPP*>(d_levels), d_counts, stream));                              \
  }
#define HT_C_ROWS_DIRECT_AS(SUFFIX, T, COUNT)                                                      \
  histtune_status histtune_histogram_batched_direct##SUFFIX(                                     \
      const T* d_samples, uint64_t rows, uint64_t n, uint64_t row_stride, uint32_t num_bins,     \
      COUNT* d_counts, cudaStream_t stream) {                                                    \
    return finish_rows(histtune::histogram_batched_direct(d_samples, rows, n, row_stride,        \
                                                          num_bins, d_counts, stream));          \
  }                                                                                              \
  histtune_status histtune_histogram_segmented_direct##SUFFIX(                                   \
      const T* d_samples, uint64_t n, uint64_t num_segments, const int64_t* d_offsets,           \
      uint32_t num_bins, COUNT* d_counts, cudaStream_t stream) {                                 \
    return finish_rows(histtune::histogram_segmented_direct(d_samples, n, num_segments,          \
                                                            d_offsets, num_bins, d_counts,       \
                                                            stream));                            \
  }
#define HT_C_ROWS_EVEN_RANGE(TAG, T, CPP, BOUND)           \
  HT_C_ROWS_EVEN_RANGE_AS(_##TAG, T, CPP, BOUND, uint32_t) \
  HT_C_ROWS_EVEN_RANGE_AS(_counts64_##TAG, T, CPP, BOUND, uint64_t)
#define HT_C_ROWS_DIRECT(TAG, T, CPP, BOUND) \
  HT_C_ROWS_DIRECT_AS(_##TAG, T, uint32_t) HT_C_ROWS_DIRECT_AS(_counts64_##TAG, T, uint64_t)
HT_ALL_TYPES(HT_C_ROWS_EVEN_RANGE)
HT_INTEGER_TYPES(HT_C_ROWS_DIRECT)
#undef HT_C_ROWS_EVEN_RANGE
#undef HT_C_ROWS_DIRECT
#undef HT_C_ROWS_DIRECT_AS
#undef HT_C_ROWS_EVEN_RANGE_AS
// ---- end batched rows ----

namespace {

// A weighted call of any shape by its codes: codes outside the enumerations are refused here,
// since the casts would name no type.
histtune_status weighted_call(const histtune::WeightedShape& shape, int sample_type,
                              const void* d_samples, int weight_type, const void* d_weights,
                              uint64_t n, int binning, uint32_t num_bins, double lower,
                              double upper, const void* d_levels, void* d_bins, int deterministic,
                              double max_abs_weight, cudaStream_t stream) {
  using namespace histtune;
  if (sample_type < 0 || sample_type > static_cast<int>(SampleType::f64))
    return finish(Status(StatusCode::invalid_argument,
                         "histtune: unknown sample type code " + std::to_string(sample_type)));
  if (weight_type < 1 || weight_type > static_cast<int>(WeightType::i64))
    return finish(Status(StatusCode::invalid_argument,
                         "histtune: unknown weight type code " + std::to_string(weight_type) +
                             " (f32 1, f64 2, i32 3, i64 4)"));
  if (binning < 0 || binning > static_cast<int>(Binning::range))
    return finish(Status(StatusCode::invalid_argument,
                         "histtune: unknown binning code " + std::to_string(binning) +
                             " (direct 0, even 1, range 2)"));
  return finish_weighted(histogram_weighted(
      shape, static_cast<SampleType>(sample_type), d_samples, static_cast<WeightType>(weight_type),
      d_weights, n, static_cast<Binning>(binning), num_bins, lower, upper, d_levels, d_bins,
      stream, WeightedOptions{deterministic != 0, max_abs_weight}));
}

}  // namespace

histtune_status histtune_histogram_weighted(int sample_type, const void* d_samples, int weight_type,
                                            const void* d_weights, uint64_t n, int binning,
                                            uint32_t num_bins, double lower, double upper,
                                            const void* d_levels, void* d_bins, int deterministic,
                                            double max_abs_weight, cudaStream_t stream) {
  return weighted_call(histtune::WeightedShape{}, sample_type, d_samples, weight_type, d_weights,
                       n, binning, num_bins, lower, upper, d_levels, d_bins, deterministic,
                       max_abs_weight, stream);
}

histtune_status histtune_histogram_weighted_batched(int sample_type, const void* d_samples,
                                                    int weight_type, const void* d_weights,
                                                    uint64_t rows, uint64_t n, uint64_t row_stride,
                                                    int binning, uint32_t num_bins, double lower,
                                                    double upper, const void* d_levels,
                                                    void* d_bins, int deterministic,
                                                    double max_abs_weight, cudaStream_t stream) {
  return weighted_call(histtune::WeightedShape::dense_rows(rows, row_stride), sample_type,
                       d_samples, weight_type, d_weights, n, binning, num_bins, lower, upper,
                       d_levels, d_bins, deterministic, max_abs_weight, stream);
}

histtune_status histtune_histogram_weighted_segmented(
    int sample_type, const void* d_samples, int weight_type, const void* d_weights, uint64_t n,
    uint64_t num_segments, const int64_t* d_offsets, int binning, uint32_t num_bins, double lower,
    double upper, const void* d_levels, void* d_bins, int deterministic, double max_abs_weight,
    cudaStream_t stream) {
  return weighted_call(histtune::WeightedShape::segments_of(num_segments, d_offsets), sample_type,
                       d_samples, weight_type, d_weights, n, binning, num_bins, lower, upper,
                       d_levels, d_bins, deterministic, max_abs_weight, stream);
}

histtune_status histtune_histogram_weighted_multichannel(
    int sample_type, const void* d_samples, int weight_type, const void* d_weights, uint64_t pixels,
    uint32_t channels, uint32_t active_channels, int binning, uint32_t num_bins, double lower,
    double upper, const void* d_levels, void* d_bins, int deterministic, double max_abs_weight,
    cudaStream_t stream) {
  return weighted_call(histtune::WeightedShape::pixels_of(channels, active_channels), sample_type,
                       d_samples, weight_type, d_weights, pixels, binning, num_bins, lower, upper,
                       d_levels, d_bins, deterministic, max_abs_weight, stream);
}

histtune_status histtune_histogramdd(int sample_type, const void* d_samples,
                                     const void* const* d_columns, uint64_t n, uint32_t dims,
                                     int binning, const uint32_t* bins, const double* lower,
                                     const double* upper, const void* const* d_edges,
                                     uint32_t* d_counts, cudaStream_t stream) {
  using namespace histtune;
  // Codes outside the enumerations are refused here: the casts below would name no type.
  if (sample_type < 0 || sample_type > static_cast<int>(SampleType::f64))
    return finish(Status(StatusCode::invalid_argument,
                         "histtune: unknown sample type code " + std::to_string(sample_type)));
  if (binning != static_cast<int>(Binning::even) && binning != static_cast<int>(Binning::range))
    return finish(Status(StatusCode::invalid_argument,
                         "histtune: joint binning code " + std::to_string(binning) +
                             " is neither even (1) nor range (2)"));
  JointBounds bounds[kMaxJointDims];
  const bool even = binning == static_cast<int>(Binning::even);
  if (even && dims <= kMaxJointDims && (lower == nullptr || upper == nullptr))
    return finish(Status(StatusCode::invalid_argument, "histtune: joint histogram: lower or upper is null"));
  for (uint32_t d = 0; even && d < dims && d < kMaxJointDims; ++d) bounds[d] = {lower[d], upper[d]};
  return finish_joint(histogram_joint(static_cast<SampleType>(sample_type), d_samples, d_columns, n,
                                      dims, static_cast<Binning>(binning), bins,
                                      even ? bounds : nullptr, d_edges, d_counts, stream));
}

const char* histtune_last_error(void) { return t_error.c_str(); }
const char* histtune_last_configuration(void) {
  t_label = !t_any_success ? "" : with_last([](const auto& c) { return label_of(c); });
  // A segmented call's configuration is labelled as its family labels it ("seg.").
  if (t_any_success && t_last == Last::rows)
    t_label = histtune::family(histtune::last_rows_family())
                  .label(histtune::FamilyModel<histtune::BatchedFamily>::values(
                      t_rows_choice.config));
  return t_label.c_str();
}
const char* histtune_last_lookup_level(void) {
  if (!t_any_success) return "";
  return histtune::to_string(with_last([](const auto& c) { return c.level; }));
}
int histtune_last_unverified(void) {
  return with_last([](const auto& c) { return c.unverified; }) ? 1 : 0;
}
const char* histtune_last_detail(void) {
  return with_last([](const auto& c) { return c.detail.c_str(); });
}

}  // extern "C"
