// The argument checks of every public entry point, made before anything is launched.
#include <cinttypes>
#include <cstdio>

#include "histtune/counts64.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"

namespace histtune {

namespace {

std::string address(const void* ptr) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", ptr);
  return buf;
}

// A joint problem's arrays per dimension: the separate form's columns and range binning's
// edges, each non-null and aligned to the samples' type (n > 0).
std::string check_joint_pointers(const Problem& p) {
  if (p.n == 0) return {};
  const std::size_t bytes = sample_bytes(p.sample_type);
  const bool separate = p.joint.d_columns[0] != nullptr;
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
    const std::string dim = "[" + std::to_string(d) + "]";
    const void* col = p.joint.d_columns[d];
    if (separate && col == nullptr) return "d_columns" + dim + " is null with n = " + std::to_string(p.n);
    if (reinterpret_cast<std::uintptr_t>(col) % bytes != 0)
      return "d_columns" + dim + " = " + address(col) + " is not aligned to its " +
             std::to_string(bytes) + "-byte " + to_string(p.sample_type) + " samples";
    if (p.binning != Binning::range) continue;
    const void* edges = p.joint.d_levels[d];
    if (edges == nullptr)
      return "d_edges" + dim + " is null with n = " + std::to_string(p.n) + " (dimension " +
             std::to_string(d) + " reads " + std::to_string(std::uint64_t{p.joint.bins[d]} + 1) +
             " edges)";
    if (reinterpret_cast<std::uintptr_t>(edges) % bytes != 0)
      return "d_edges" + dim + " = " + address(edges) + " is not aligned to its " +
             std::to_string(bytes) + "-byte " + to_string(p.sample_type) + " edges";
  }
  return {};
}

// The pointer checks of both count widths, after the problem's: counts of `count_bytes` each.
std::string check_pointers(const Problem& p, const void* d_samples, const void* d_counts,
                           std::size_t count_bytes) {
  if (d_counts == nullptr) return "d_counts is null";
  if (d_samples == nullptr && p.n > 0) return "d_samples is null with n = " + std::to_string(p.n);
  const std::size_t bytes = sample_bytes(p.sample_type);
  if (reinterpret_cast<std::uintptr_t>(d_samples) % bytes != 0)
    return "d_samples = " + address(d_samples) + " is not aligned to its " + std::to_string(bytes) +
           "-byte " + to_string(p.sample_type) + " samples";
  // Counters of `count_bytes`, or a weighted call's bins of their type.
  const bool weighted = p.weight_type != WeightType::none;
  if (const std::size_t out = weighted ? bin_bytes(p) : count_bytes;
      reinterpret_cast<std::uintptr_t>(d_counts) % out != 0)
    return "d_counts = " + address(d_counts) + " is not aligned to its " + std::to_string(out) +
           (weighted ? "-byte bins" : "-byte counters");
  if (weighted && p.weight_count() > 0) {
    // The weights lie as the samples (a pixel's one weight for its channels), of their type.
    const std::size_t wb = weight_bytes(p.weight_type);
    if (p.d_weights == nullptr)
      return "d_weights is null with n = " + std::to_string(p.n) + " (a weighted call reads " +
             std::to_string(p.weight_count()) + " weights)";
    if (reinterpret_cast<std::uintptr_t>(p.d_weights) % wb != 0)
      return "d_weights = " + address(p.d_weights) + " is not aligned to its " +
             std::to_string(wb) + "-byte " + to_string(p.weight_type) + " weights";
  }
  if (family_of(p).has_dims()) return check_joint_pointers(p);
  if (p.binning == Binning::range && p.n > 0) {
    if (p.d_levels == nullptr)
      return "d_levels is null with n = " + std::to_string(p.n) + " (range binning reads " +
             std::to_string(std::uint64_t{p.num_bins} + 1) + " levels)";
    if (reinterpret_cast<std::uintptr_t>(p.d_levels) % bytes != 0)
      return "d_levels = " + address(p.d_levels) + " is not aligned to its " +
             std::to_string(bytes) + "-byte " + to_string(p.sample_type) + " levels";
  }
  if (reads_offsets(p) && p.rows > 0) {
    if (p.d_offsets == nullptr)
      return "d_offsets is null with " + std::to_string(p.rows) + " segments (they read " +
             std::to_string(p.rows + 1) + " offsets)";
    if (reinterpret_cast<std::uintptr_t>(p.d_offsets) % sizeof(std::int64_t) != 0)
      return "d_offsets = " + address(p.d_offsets) + " is not aligned to its 8-byte offsets";
  }
  return {};
}

}  // namespace

std::string check_arguments(const Problem& p, const void* d_samples, const void* d_counts) {
  // The problem's own checks, the even bounds among them (validate() in problem.hpp).
  if (std::string why = validate(p); !why.empty()) return why;
  return check_pointers(p, d_samples, d_counts, sizeof(std::uint32_t));
}

std::string check_arguments64(const Problem& p, const void* d_samples,
                              const std::uint64_t* d_counts) {
  if (family_of(p).has_weights())
    return std::string("64-bit counts are taken by the 1D, multi-channel, batched and segmented "
                       "calls, not the ") +
           to_string(p.family) + " family's (its bins are of the weights' type)";
  if (p.n > kMaxSamples64)
    return "n = " + std::to_string(p.n) + " exceeds 2^60, the most samples a call with 64-bit " +
           "counts takes";
  if (p.family == Family::multichannel && p.channels > 1 && p.n > kMaxSamples64 / p.channels)
    return "rows = " + std::to_string(p.n) + " x channels = " + std::to_string(p.channels) +
           " exceeds 2^60, the most samples a call with 64-bit counts takes";
  // Validated as its first chunk, what the kernels run (no chunk passes 2^32 - 1 samples a
  // counter); the whole call's rows, image rows and pointers as they are.
  if (std::string why = validate(count64_chunk_problem(p, 0)); !why.empty()) return why;
  if (p.family == Family::multichannel)
    if (std::string why = validate_pitch(p); !why.empty()) return why;
  if (p.family == Family::batched)
    if (std::string why = validate_rows(p); !why.empty()) return why;
  return check_pointers(p, d_samples, d_counts, sizeof(std::uint64_t));
}

namespace {

// Whether `ptr`, an array a kernel reads (`name`, of `what`), is memory the current device can read.
std::string check_readable(const void* ptr, const char* name, const char* what,
                           int current_device) {
  // Asked on every call, during stream capture too: the CUDA documentation names no pointer query
  // among the calls a capture prohibits (its examples allocate or synchronise; this does neither),
  // and the GpuRangeGraph tests check that a global-mode capture survives it, refusals included.
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, ptr);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no trace for the caller's next check
    return std::string("cudaPointerGetAttributes(") + name + " = " + address(ptr) + ") failed: " +
           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  }
  switch (a.type) {
    case cudaMemoryTypeUnregistered:
      return std::string(name) + " = " + address(ptr) +
             " is host memory the GPU cannot read; copy the " + what + " to device memory";
    case cudaMemoryTypeHost:
      if (a.devicePointer == nullptr)
        return std::string(name) + " = " + address(ptr) +
               " is pinned host memory not mapped for GPU " + std::to_string(current_device);
      return {};
    case cudaMemoryTypeDevice:
      if (a.device != current_device) {
        int ok = 0;
        if (cudaDeviceCanAccessPeer(&ok, current_device, a.device) != cudaSuccess) {
          (void)cudaGetLastError();
          ok = 0;
        }
        if (!ok)
          return std::string(name) + " = " + address(ptr) + " is memory of GPU " +
                 std::to_string(a.device) + ", which GPU " + std::to_string(current_device) +
                 " cannot read";
      }
      return {};
    default:
      return {};  // managed memory
  }
}

}  // namespace

std::string check_levels(const Problem& p, int current_device) {
  if (family_of(p).has_dims()) {  // its edges per dimension (no levels, weights or offsets)
    if (p.binning == Binning::range && p.n > 0)
      for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d)
        if (std::string why = check_readable(p.joint.d_levels[d], "d_edges", "edges", current_device);
            !why.empty())
          return why;
    return {};
  }
  if (p.binning == Binning::range && p.n > 0)
    if (std::string why = check_readable(p.d_levels, "d_levels", "levels", current_device);
        !why.empty())
      return why;
  if (p.weight_count() > 0)
    if (std::string why = check_readable(p.d_weights, "d_weights", "weights", current_device);
        !why.empty())
      return why;
  if (reads_offsets(p) && p.rows > 0)
    return check_readable(p.d_offsets, "d_offsets", "offsets", current_device);
  return {};
}

std::string check_stream(cudaStream_t stream, int current_device, bool& capturing) {
  capturing = false;
  // The legacy stream cannot capture (and asking it while another stream captures fails).
  if (stream == nullptr || stream == cudaStreamLegacy) return {};
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(stream, &cs);
  int stream_device = current_device;  // the per-thread stream is the current device's
#if CUDART_VERSION >= 12080  // cudaStreamGetDevice is new in 12.8; older toolkits skip the check
  if (e == cudaSuccess && cs == cudaStreamCaptureStatusNone && stream != cudaStreamPerThread)
    e = cudaStreamGetDevice(stream, &stream_device);
#endif
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no trace for the caller's next check
    return "the stream " + address(stream) + " cannot be used: " + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + ")";
  }
  capturing = cs != cudaStreamCaptureStatusNone;
  if (stream_device != current_device)
    return "the stream belongs to device " + std::to_string(stream_device) +
           " but the current device is " + std::to_string(current_device) +
           "; call cudaSetDevice(" + std::to_string(stream_device) +
           ") first, or pass a stream of the current device";
  return {};
}

}  // namespace histtune
