// The 1D entry points: each builds its Problem and calls the one Dispatcher::run.
#include "histtune/histtune.hpp"

#include <string>
#include <vector>

#include "last_choice.hpp"
#include "sample_types.hpp"

namespace histtune {
namespace {

template <class Count>
Status run(SampleType t, Binning b, const void* d_samples, std::uint64_t n, std::uint32_t num_bins,
           double lower, double upper, Count* d_counts, cudaStream_t stream,
           const void* d_levels = nullptr) {
  Problem p = flat_problem(t, b, num_bins, n, lower, upper);
  p.d_levels = d_levels;
  return run_recorded(p, d_samples, d_counts, stream);
}

}  // namespace

std::string inexact_bounds(std::int64_t lower, std::int64_t upper) {
  // The problem carries bounds as doubles: integer bounds beyond 2^53 would be rounded, silently.
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  if (lower >= -kExact && lower <= kExact && upper >= -kExact && upper <= kExact) return {};
  return "histtune: even binning of integer samples needs bounds within +-2^53, got lower = " +
         std::to_string(lower) + ", upper = " + std::to_string(upper);
}

std::string inexact_bounds(float, float) { return {}; }

std::string inexact_bounds(double, double) { return {}; }

Dispatcher& default_dispatcher() {
  static Dispatcher dispatcher;
  return dispatcher;
}

namespace {
// Per family, the choice of this thread's last successful call (owned by the default dispatcher).
std::vector<const FamilyChoice*>& last_choices() {
  thread_local std::vector<const FamilyChoice*> last(families().size(), nullptr);
  return last;
}
// Which of the families of rows (batched, segmented) made this thread's last successful call.
thread_local Family t_last_rows = Family::batched;
// The same of the weighted families (weighted, weighted_det).
thread_local Family t_last_weighted = Family::weighted;
}  // namespace

namespace {
template <class Count>
Status run_recorded_as(const Problem& p, const void* d_samples, Count* d_counts,
                       cudaStream_t stream) {
  const FamilyChoice* used = nullptr;
  Status s = default_dispatcher().run(p, d_samples, d_counts, stream, &used);
  if (used) last_choices()[static_cast<std::size_t>(p.family)] = used;
  if (used && family_of(p).has_rows()) t_last_rows = p.family;
  if (used && family_of(p).has_weights()) t_last_weighted = p.family;
  return s;
}
}  // namespace

Status run_recorded(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                    cudaStream_t stream) {
  return run_recorded_as(p, d_samples, d_counts, stream);
}

Status run_recorded(const Problem& p, const void* d_samples, std::uint64_t* d_counts,
                    cudaStream_t stream) {
  return run_recorded_as(p, d_samples, d_counts, stream);
}

Family last_weighted_family() { return t_last_weighted; }

FamilyChoice last_family_choice(Family f) {
  const FamilyChoice* c = last_choices()[static_cast<std::size_t>(f)];
  return c ? *c : FamilyChoice{};
}

Choice last_choice() {
  const FamilyChoice* c = last_choices()[static_cast<std::size_t>(Family::hist1d)];
  return c ? typed_choice<Hist1DFamily>(*c) : Choice{};
}

MultiChannelChoice last_multichannel_choice() {
  const FamilyChoice* c = last_choices()[static_cast<std::size_t>(Family::multichannel)];
  return c ? typed_choice<MultiChannelFamily>(*c) : MultiChannelChoice{};
}

Family last_rows_family() { return t_last_rows; }

BatchedChoice last_batched_choice() {
  const FamilyChoice* c = last_choices()[static_cast<std::size_t>(t_last_rows)];
  return c ? typed_choice<BatchedFamily>(*c) : BatchedChoice{};
}

// Each call twice, from one body: with uint32 counts (n < 2^32) and with uint64 counts.
#define HT_EVEN_AS(T, LEVEL, TAG, COUNT)                                                          \
  Status histogram_even(const T* d_samples, std::uint64_t n, std::uint32_t num_bins, LEVEL lower, \
                        LEVEL upper, COUNT* d_counts, cudaStream_t stream) {                   \
    if (std::string why = inexact_bounds(lower, upper); !why.empty())                          \
      return Status(StatusCode::invalid_argument, why);                                        \
    return run(SampleType::TAG, Binning::even, d_samples, n, num_bins, static_cast<double>(lower), \
               static_cast<double>(upper), d_counts, stream);                                  \
  }
#define HT_EVEN(TAG, C, T, LEVEL) \
  HT_EVEN_AS(T, LEVEL, TAG, std::uint32_t) HT_EVEN_AS(T, LEVEL, TAG, std::uint64_t)
HT_TYPES_UP_TO_4_BYTES(HT_EVEN)
HT_EVEN(f64, double, double, double)
#undef HT_EVEN
#undef HT_EVEN_AS

// 64-bit integers keep their bounds exactly (Problem::lower_bits): no 2^53 limit.
#define HT_EVEN64_AS(T, TAG, COUNT)                                                                \
  Status histogram_even(const T* d_samples, std::uint64_t n, std::uint32_t num_bins, T lower,  \
                        T upper, COUNT* d_counts, cudaStream_t stream) {                      \
    Problem p = flat_problem(SampleType::TAG, Binning::even, num_bins, n);                    \
    set_even_bounds(p, lower, upper);                                                          \
    return run_recorded(p, d_samples, d_counts, stream);                                      \
  }
#define HT_EVEN64(TAG, C, T, BOUND) \
  HT_EVEN64_AS(T, TAG, std::uint32_t) HT_EVEN64_AS(T, TAG, std::uint64_t)
HT_INTEGERS_8_BYTES(HT_EVEN64)
#undef HT_EVEN64
#undef HT_EVEN64_AS

#define HT_RANGE_AS(T, TAG, COUNT)                                                                 \
  Status histogram_range(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,       \
                         const T* d_levels, COUNT* d_counts, cudaStream_t stream) {         \
    return run(SampleType::TAG, Binning::range, d_samples, n, num_bins, 0, 0, d_counts, stream, \
               d_levels);                                                                   \
  }
#define HT_RANGE(TAG, C, T, BOUND) \
  HT_RANGE_AS(T, TAG, std::uint32_t) HT_RANGE_AS(T, TAG, std::uint64_t)
HT_ALL_TYPES(HT_RANGE)
#undef HT_RANGE
#undef HT_RANGE_AS

#define HT_DIRECT_AS(T, TAG, COUNT)                                                                \
  Status histogram_direct(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,     \
                          COUNT* d_counts, cudaStream_t stream) {                          \
    return run(SampleType::TAG, Binning::direct, d_samples, n, num_bins, 0, 0, d_counts, stream); \
  }
#define HT_DIRECT(TAG, C, T, BOUND) \
  HT_DIRECT_AS(T, TAG, std::uint32_t) HT_DIRECT_AS(T, TAG, std::uint64_t)
HT_INTEGER_TYPES(HT_DIRECT)
#undef HT_DIRECT
#undef HT_DIRECT_AS

}  // namespace histtune
