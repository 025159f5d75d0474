// The joint entry points: each builds its Problem (family joint) and calls the one
// Dispatcher::run through histogram_joint.
#include <type_traits>

#include "histtune/histtune.hpp"
#include "last_choice.hpp"
#include "sample_types.hpp"

namespace histtune {
namespace {

Status refuse(const std::string& why) {
  return Status(StatusCode::invalid_argument, "histtune: joint histogram: " + why);
}

}  // namespace

Status histogram_joint(SampleType t, const void* d_samples, const void* const* d_columns,
                       std::uint64_t n, std::uint32_t dims, Binning b, const std::uint32_t* bins,
                       const JointBounds* bounds, const void* const* d_edges,
                       std::uint32_t* d_counts, cudaStream_t stream) {
  // The host arrays are read up to `dims` entries: checked before any is.
  if (dims == 0 || dims > kMaxJointDims)
    return refuse("dims = " + std::to_string(dims) + ": a joint histogram has 1 to " +
                  std::to_string(kMaxJointDims) + " dimensions");
  if (bins == nullptr) return refuse("bins is null");
  if (b == Binning::even && bounds == nullptr) return refuse("bounds is null");
  if (b == Binning::range && d_edges == nullptr) return refuse("d_edges is null");
  if (d_samples == nullptr && n > 0 && (d_columns == nullptr || d_columns[0] == nullptr))
    return refuse(std::string(d_columns ? "d_columns[0]" : "d_samples") + " is null with n = " +
                  std::to_string(n));
  Problem p = joint_problem(t, b, dims, bins, n);
  for (std::uint32_t d = 0; d < dims; ++d) {
    if (b == Binning::even) {
      p.joint.lower[d] = bounds[d].lower;
      p.joint.upper[d] = bounds[d].upper;
    } else if (b == Binning::range) {
      p.joint.d_levels[d] = d_edges[d];
    }
    if (d_samples == nullptr && d_columns != nullptr) p.joint.d_columns[d] = d_columns[d];
  }
  p.lower = p.joint.lower[0];
  p.upper = p.joint.upper[0];
  // The separate form's first array stands for the samples in the checks every call shares.
  const void* samples = d_samples != nullptr ? d_samples : p.joint.d_columns[0];
  return run_recorded(p, samples, d_counts, stream);
}

template <class T>
Status histogram2d(const T* d_x, const T* d_y, std::uint64_t n, std::uint32_t bins_x,
                   std::uint32_t bins_y, JointBounds x, JointBounds y, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  const void* columns[] = {d_x, d_y};
  const std::uint32_t bins[] = {bins_x, bins_y};
  const JointBounds bounds[] = {x, y};
  return histogram_joint(sample_type_of<T>(), nullptr, columns, n, 2, Binning::even, bins, bounds,
                         nullptr, d_counts, stream);
}

template <class T>
Status histogram2d(const T* d_pairs, std::uint64_t n, std::uint32_t bins_x, std::uint32_t bins_y,
                   JointBounds x, JointBounds y, std::uint32_t* d_counts, cudaStream_t stream) {
  const std::uint32_t bins[] = {bins_x, bins_y};
  const JointBounds bounds[] = {x, y};
  return histogram_joint(sample_type_of<T>(), d_pairs, nullptr, n, 2, Binning::even, bins, bounds,
                         nullptr, d_counts, stream);
}

template <class T>
Status histogramdd(const T* d_samples, std::uint64_t n, std::uint32_t dims,
                   const std::uint32_t* bins, const JointBounds* bounds, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  return histogram_joint(sample_type_of<T>(), d_samples, nullptr,
                         n, dims, Binning::even, bins, bounds, nullptr, d_counts, stream);
}

template <class T>
Status histogramdd(const T* const* d_columns, std::uint64_t n, std::uint32_t dims,
                   const std::uint32_t* bins, const JointBounds* bounds, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  return histogram_joint(sample_type_of<T>(), nullptr,
                         reinterpret_cast<const void* const*>(d_columns), n, dims, Binning::even,
                         bins, bounds, nullptr, d_counts, stream);
}

template <class T>
Status histogramdd_edges(const T* d_samples, std::uint64_t n, std::uint32_t dims,
                         const std::uint32_t* bins, const T* const* d_edges,
                         std::uint32_t* d_counts, cudaStream_t stream) {
  return histogram_joint(sample_type_of<T>(), d_samples, nullptr,
                         n, dims, Binning::range, bins, nullptr,
                         reinterpret_cast<const void* const*>(d_edges), d_counts, stream);
}

template <class T>
Status histogramdd_edges(const T* const* d_columns, std::uint64_t n, std::uint32_t dims,
                         const std::uint32_t* bins, const T* const* d_edges,
                         std::uint32_t* d_counts, cudaStream_t stream) {
  return histogram_joint(sample_type_of<T>(), nullptr,
                         reinterpret_cast<const void* const*>(d_columns), n, dims, Binning::range,
                         bins, nullptr, reinterpret_cast<const void* const*>(d_edges), d_counts,
                         stream);
}

FamilyChoice last_joint_choice() { return last_family_choice(Family::joint); }

// The instantiations: every type of at most 4 bytes, and double.
#define HT_JOINT_CALLS(TAG, C, T, BOUND)                                                          \
  template Status histogram2d<T>(const T*, const T*, std::uint64_t, std::uint32_t,               \
                                 std::uint32_t, JointBounds, JointBounds, std::uint32_t*,        \
                                 cudaStream_t);                                                  \
  template Status histogram2d<T>(const T*, std::uint64_t, std::uint32_t, std::uint32_t,          \
                                 JointBounds, JointBounds, std::uint32_t*, cudaStream_t);        \
  template Status histogramdd<T>(const T*, std::uint64_t, std::uint32_t, const std::uint32_t*,   \
                                 const JointBounds*, std::uint32_t*, cudaStream_t);              \
  template Status histogramdd<T>(const T* const*, std::uint64_t, std::uint32_t,                  \
                                 const std::uint32_t*, const JointBounds*, std::uint32_t*,       \
                                 cudaStream_t);                                                  \
  template Status histogramdd_edges<T>(const T*, std::uint64_t, std::uint32_t,                   \
                                       const std::uint32_t*, const T* const*, std::uint32_t*,    \
                                       cudaStream_t);                                            \
  template Status histogramdd_edges<T>(const T* const*, std::uint64_t, std::uint32_t,            \
                                       const std::uint32_t*, const T* const*, std::uint32_t*,    \
                                       cudaStream_t);
HT_TYPES_UP_TO_4_BYTES(HT_JOINT_CALLS)
HT_JOINT_CALLS(f64, double, double, double)
#undef HT_JOINT_CALLS

}  // namespace histtune
