// histtune._core: histtune's C++ API for the Python package (python/histtune), by device pointer.
//
// The Python layer turns torch, CuPy, JAX and Numba arrays into a pointer, a length and a stream
// (cheaper per call than importing an ndarray object, which the 3-microsecond budget of issue 24
// cannot afford); this module calls the public functions of histtune.hpp with them and turns a
// failed Status into a Python exception: ValueError for invalid_argument, RuntimeError for the
// rest (no device, CUDA, NVRTC, database). Sample types are SampleType's values
// (u8 0, u16 1, u32 2, i32 3, f32 4, i8 5, i16 6, f16 7, bf16 8, i64 9, u64 10, f64 11).
// rows() and segments() are the batched and segmented families' calls (one histogram per row).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "histtune/histtune.hpp"
#include "histtune/version.hpp"

namespace nb = nanobind;
using namespace nb::literals;
using namespace histtune;

namespace {

// Which family the last call on this thread ran: last_choice() reports that one.
thread_local Family last_family = Family::hist1d;
thread_local bool any_call = false;

int device_count_checked();

void raise_for(const Status& s) {
  if (s.ok()) return;
  if (s.code() == StatusCode::invalid_argument) throw nb::value_error(s.message().c_str());
  // Whichever CUDA call noticed it, a missing device or driver is said as device_count() says it.
  if (s.code() == StatusCode::no_device) device_count_checked();
  std::string m = s.message();
  if (m.rfind("histtune", 0) != 0) m = "histtune: " + m;
  throw std::runtime_error(m);
}

// The call runs with `device` current (the array's), and the caller's current device after.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (device < 0 || cudaGetDevice(&previous_) != cudaSuccess) return;
    if (previous_ != device && cudaSetDevice(device) == cudaSuccess) restore_ = true;
  }
  ~DeviceScope() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

template <class T>
const T* as(std::uintptr_t p) {
  return reinterpret_cast<const T*>(p);
}
std::uint32_t* counts_at(std::uintptr_t p) { return reinterpret_cast<std::uint32_t*>(p); }
// f(the counts pointer): uint64 counts when `counts64` (the 64-bit overloads, whose n may pass
// 2^32 - 1), else uint32.
template <class F>
Status with_counts(std::uintptr_t p, bool counts64, F&& f) {
  if (counts64) return f(reinterpret_cast<std::uint64_t*>(p));
  return f(counts_at(p));
}
cudaStream_t stream_at(std::uintptr_t s) { return reinterpret_cast<cudaStream_t>(s); }

// Which sample types a call takes (by_type's `take`): a bit per SampleType value.
constexpr unsigned bit(SampleType t) { return 1u << static_cast<int>(t); }
constexpr unsigned kAllTypes = (1u << std::size(kSampleTypes)) - 1u;
constexpr unsigned kFloatTypes =
    bit(SampleType::f32) | bit(SampleType::f16) | bit(SampleType::bf16) | bit(SampleType::f64);
constexpr unsigned kIntegerTypes = kAllTypes & ~kFloatTypes;

// f(T{}) for the sample type `type` (the C++ API's pointer type: __half and __nv_bfloat16 for
// the halfs), among those the call takes.
template <class F>
Status by_type(int type, F&& f, unsigned take = kAllTypes) {
  if (type >= 0 && type < 32 && (take & (1u << type)) != 0) {
    switch (static_cast<SampleType>(type)) {
      case SampleType::u8: return f(std::uint8_t{});
      case SampleType::u16: return f(std::uint16_t{});
      case SampleType::u32: return f(std::uint32_t{});
      case SampleType::i32: return f(std::int32_t{});
      case SampleType::f32: return f(float{});
      case SampleType::i8: return f(std::int8_t{});
      case SampleType::i16: return f(std::int16_t{});
      case SampleType::f16: return f(__half{});
      case SampleType::bf16: return f(__nv_bfloat16{});
      case SampleType::i64: return f(std::int64_t{});
      case SampleType::u64: return f(std::uint64_t{});
      case SampleType::f64: return f(double{});
    }
  }
  return Status(StatusCode::invalid_argument,
                "histtune: sample type " + std::to_string(type) + " is not supported by this call");
}

void finish(const Status& s, Family f) {
  raise_for(s);
  last_family = f;
  any_call = true;
}

void even_int(int type, std::uintptr_t samples, std::uint64_t n, std::uint32_t bins,
              std::int64_t lower, std::int64_t upper, std::uintptr_t counts, std::uintptr_t stream,
              int device, bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           // Integers but u64, whose bounds may pass 2^63 (even_u64).
           if constexpr (!std::is_integral_v<T> || std::is_same_v<T, std::uint64_t>) return Status();
           else return with_counts(counts, counts64, [&](auto* c) {
             return histogram_even(as<T>(samples), n, bins, lower, upper, c, stream_at(stream));
           });
         }, kIntegerTypes & ~bit(SampleType::u64)),
         Family::hist1d);
}

void even_u64(std::uintptr_t samples, std::uint64_t n, std::uint32_t bins, std::uint64_t lower,
              std::uint64_t upper, std::uintptr_t counts, std::uintptr_t stream, int device,
              bool counts64) {
  DeviceScope scope(device);
  finish(with_counts(counts, counts64, [&](auto* c) {
           return histogram_even(as<std::uint64_t>(samples), n, bins, lower, upper, c,
                                 stream_at(stream));
         }),
         Family::hist1d);
}

// f16, bf16 (float bounds: the doubles rounded to float, as even_f32's arguments are) and f64
// (double bounds); f32 too.
void even_float(int type, std::uintptr_t samples, std::uint64_t n, std::uint32_t bins,
                double lower, double upper, std::uintptr_t counts, std::uintptr_t stream,
                int device, bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           return with_counts(counts, counts64, [&](auto* c) {
             if constexpr (std::is_integral_v<T>) return Status();  // not reached: floats only
             else if constexpr (std::is_same_v<T, double>)
               return histogram_even(as<T>(samples), n, bins, lower, upper, c, stream_at(stream));
             else
               return histogram_even(as<T>(samples), n, bins, static_cast<float>(lower),
                                     static_cast<float>(upper), c, stream_at(stream));
           });
         }, kFloatTypes),
         Family::hist1d);
}

void even_f32(std::uintptr_t samples, std::uint64_t n, std::uint32_t bins, float lower,
              float upper, std::uintptr_t counts, std::uintptr_t stream, int device,
              bool counts64) {
  DeviceScope scope(device);
  finish(with_counts(counts, counts64, [&](auto* c) {
           return histogram_even(as<float>(samples), n, bins, lower, upper, c, stream_at(stream));
         }),
         Family::hist1d);
}

void direct(int type, std::uintptr_t samples, std::uint64_t n, std::uint32_t bins,
            std::uintptr_t counts, std::uintptr_t stream, int device, bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           if constexpr (!std::is_integral_v<T>) return Status();  // not reached: integers only
           else return with_counts(counts, counts64, [&](auto* c) {
             return histogram_direct(as<T>(samples), n, bins, c, stream_at(stream));
           });
         }, kIntegerTypes),
         Family::hist1d);
}

void range(int type, std::uintptr_t samples, std::uint64_t n, std::uint32_t bins,
           std::uintptr_t levels, std::uintptr_t counts, std::uintptr_t stream, int device,
           bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           return with_counts(counts, counts64, [&](auto* c) {
             return histogram_range(as<T>(samples), n, bins, as<T>(levels), c, stream_at(stream));
           });
         }),
         Family::hist1d);
}

// Direct binning of float samples: refused as the C++ API refuses it.
Status floats_not_direct() {
  return Status(StatusCode::invalid_argument,
                "histtune: direct binning needs integer samples; use even binning for floats");
}

// An even bound of T samples (histtune::EvenBound<T>) from the Python number the package passes:
// an int for integer samples (exact, up to 2^64 - 1 for u64), a float for the float types.
template <class T>
typename EvenBound<T>::type bound_of(nb::handle v) {
  return nb::cast<typename EvenBound<T>::type>(v);
}

// The rows of a multi-channel call: num_rows image rows of row_pixels rows of `channels`
// samples, row_pitch_bytes apart (0: packed).
struct Image {
  std::uint64_t row_pixels, num_rows, row_pitch_bytes;
  std::uint32_t channels, active;
};

template <class T, class Count>
Status channels_call(int binning, const T* x, const Image& im, std::uint32_t bins,
                     nb::handle lower, nb::handle upper, std::uintptr_t levels, Count* d_counts,
                     cudaStream_t s) {
  if (binning == static_cast<int>(Binning::even))
    return histogram_multichannel_even(x, im.row_pixels, im.num_rows, im.row_pitch_bytes,
                                       im.channels, im.active, bins, bound_of<T>(lower),
                                       bound_of<T>(upper), d_counts, s);
  if (binning == static_cast<int>(Binning::range))
    return histogram_multichannel_range(x, im.row_pixels, im.num_rows, im.row_pitch_bytes,
                                        im.channels, im.active, bins, as<T>(levels), d_counts, s);
  if constexpr (!std::is_integral_v<T>)
    return floats_not_direct();
  else
    return histogram_multichannel_direct(x, im.row_pixels, im.num_rows, im.row_pitch_bytes,
                                         im.channels, im.active, bins, d_counts, s);
}

void channels_run(int type, int binning, std::uintptr_t samples, const Image& im,
                  std::uint32_t bins, nb::handle lower, nb::handle upper, std::uintptr_t levels,
                  std::uintptr_t counts, std::uintptr_t stream, int device, bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           return with_counts(counts, counts64, [&](auto* c) {
             return channels_call(binning, as<T>(samples), im, bins, lower, upper, levels, c,
                                  stream_at(stream));
           });
         }),
         Family::multichannel);
}

// The rows of a call of the families of rows: `rows` dense rows of n samples row_stride apart,
// or (segmented) n samples cut into `rows` segments by the int64 offsets at `offsets`.
struct Rows {
  bool segmented;
  std::uint64_t rows, n, row_stride;
  std::uintptr_t offsets;
};

// Even bounds of a call (bound_of's Python numbers).
struct Bounds {
  nb::handle lower, upper;
};

template <class T, class Count>
Status rows_call(int binning, const T* x, const Rows& r, std::uint32_t bins, const Bounds& b,
                 std::uintptr_t levels, Count* d_counts, cudaStream_t s) {
  const auto* offsets = reinterpret_cast<const std::int64_t*>(r.offsets);
  if (binning == static_cast<int>(Binning::range))
    return r.segmented
               ? histogram_segmented_range(x, r.n, r.rows, offsets, bins, as<T>(levels), d_counts, s)
               : histogram_batched_range(x, r.rows, r.n, r.row_stride, bins, as<T>(levels),
                                         d_counts, s);
  if (binning == static_cast<int>(Binning::even)) {
    const auto lower = bound_of<T>(b.lower), upper = bound_of<T>(b.upper);
    return r.segmented ? histogram_segmented_even(x, r.n, r.rows, offsets, bins, lower, upper,
                                                  d_counts, s)
                       : histogram_batched_even(x, r.rows, r.n, r.row_stride, bins, lower, upper,
                                                d_counts, s);
  }
  if constexpr (!std::is_integral_v<T>)
    return floats_not_direct();
  else
    return r.segmented ? histogram_segmented_direct(x, r.n, r.rows, offsets, bins, d_counts, s)
                       : histogram_batched_direct(x, r.rows, r.n, r.row_stride, bins, d_counts, s);
}

void rows_run(int type, int binning, std::uintptr_t samples, const Rows& r, std::uint32_t bins,
              const Bounds& b, std::uintptr_t levels, std::uintptr_t counts,
              std::uintptr_t stream, int device, bool counts64) {
  DeviceScope scope(device);
  finish(by_type(type, [&](auto t) {
           using T = decltype(t);
           return with_counts(counts, counts64, [&](auto* c) {
             return rows_call(binning, as<T>(samples), r, bins, b, levels, c, stream_at(stream));
           });
         }),
         r.segmented ? Family::segmented : Family::batched);
}

// A weighted call (histtune::histogram_weighted): the types and binning as their codes (checked
// here too, since a cast of another code would name no enumerator), even bounds as doubles.
// The shape (histtune::WeightedShape): rows and row_stride dense rows; offsets and segments
// CSR segments; channels and active pixels of channels; the defaults a 1D call.
void weighted_run(int type, int weight_type, int binning, std::uintptr_t samples,
                  std::uintptr_t weights, std::uint64_t n, std::uint32_t bins, double lower,
                  double upper, std::uintptr_t levels, std::uintptr_t out, bool deterministic,
                  double max_abs_weight, std::uintptr_t stream, int device, std::uint64_t rows,
                  std::uint64_t row_stride, std::uintptr_t offsets, bool segments,
                  std::uint32_t channels, std::uint32_t active) {
  if (type < 0 || type > static_cast<int>(SampleType::f64) || weight_type < 1 ||
      weight_type > static_cast<int>(WeightType::i64) || binning < 0 ||
      binning > static_cast<int>(Binning::range))
    throw nb::value_error("histtune: unknown sample type, weight type or binning code");
  DeviceScope scope(device);
  WeightedShape shape;
  shape.rows = rows;
  shape.row_stride = row_stride;
  shape.d_offsets = as<std::int64_t>(offsets);
  shape.segments = segments;
  shape.channels = channels;
  shape.active_channels = active;
  finish(histogram_weighted(shape, static_cast<SampleType>(type), as<void>(samples),
                            static_cast<WeightType>(weight_type), as<void>(weights), n,
                            static_cast<Binning>(binning), bins, lower, upper, as<void>(levels),
                            reinterpret_cast<void*>(out), stream_at(stream),
                            WeightedOptions{deterministic, max_abs_weight}),
         deterministic ? Family::weighted_det : Family::weighted);
}

// A joint call (histtune::histogram_joint): interleaved tuples at `samples`, or (samples 0) one
// array per dimension at `columns`; even bounds per dimension, or range edges per dimension.
// The lists' lengths are the dimensions' (the Python layer checks them; here again, since the C++
// call reads `dims` entries of each).
void joint_run(int type, int binning, std::uintptr_t samples,
               const std::vector<std::uintptr_t>& columns, std::uint64_t n,
               const std::vector<std::uint32_t>& bins, const std::vector<double>& lower,
               const std::vector<double>& upper, const std::vector<std::uintptr_t>& edges,
               std::uintptr_t counts, std::uintptr_t stream, int device) {
  if (type < 0 || type > static_cast<int>(SampleType::f64) ||
      (binning != static_cast<int>(Binning::even) && binning != static_cast<int>(Binning::range)))
    throw nb::value_error("histtune: unknown sample type or joint binning code");
  const std::size_t dims = bins.size();
  const bool even = binning == static_cast<int>(Binning::even);
  if ((even && (lower.size() != dims || upper.size() != dims)) || (!even && edges.size() != dims) ||
      (samples == 0 && columns.size() != dims))
    throw nb::value_error("histtune: joint histogram: one bin count, range and array per dimension");
  std::vector<JointBounds> bounds(dims);
  for (std::size_t d = 0; even && d < dims; ++d) bounds[d] = {lower[d], upper[d]};
  std::vector<const void*> cols(columns.size()), eds(edges.size());
  for (std::size_t d = 0; d < cols.size(); ++d) cols[d] = as<void>(columns[d]);
  for (std::size_t d = 0; d < eds.size(); ++d) eds[d] = as<void>(edges[d]);
  DeviceScope scope(device);
  finish(histogram_joint(static_cast<SampleType>(type), as<void>(samples),
                         samples == 0 ? cols.data() : nullptr, n,
                         static_cast<std::uint32_t>(dims), static_cast<Binning>(binning),
                         bins.data(), even ? bounds.data() : nullptr,
                         even ? nullptr : eds.data(), counts_at(counts), stream_at(stream)),
         Family::joint);
}

// What the last successful call on this thread ran, as the Python Choice's fields.
nb::dict last_choice_dict() {
  nb::dict d;
  auto fill = [&](const auto& c, const char* family) {
    d["family"] = family;
    d["config"] = c.config.label();
    d["level"] = to_string(c.level);
    d["unverified"] = c.unverified;
    d["stale"] = c.stale;
    d["detail"] = c.detail;
    d["summary"] = c.summary();
  };
  if (!any_call) return d;
  if (last_family == Family::multichannel) fill(last_multichannel_choice(), "multichannel");
  else if (last_family == Family::batched || last_family == Family::segmented) {
    const BatchedChoice c = last_batched_choice();
    fill(c, to_string(last_family));
    // A segmented configuration is labelled as its family labels it ("seg.").
    d["config"] = family(last_family).label(FamilyModel<BatchedFamily>::values(c.config));
  } else if (last_family == Family::weighted || last_family == Family::weighted_det ||
             last_family == Family::joint) {
    const FamilyChoice c =
        last_family == Family::joint ? last_joint_choice() : last_weighted_choice();
    d["family"] = to_string(last_family);
    d["config"] = c.label();
    d["level"] = to_string(c.level);
    d["unverified"] = c.unverified;
    d["stale"] = c.stale;
    d["detail"] = c.detail;
    d["summary"] = c.summary();
  } else fill(last_choice(), "hist1d");
  return d;
}

// Median host time, in microseconds, of `calls` warm direct-binning calls made from C++: the
// baseline against which the Python layer's overhead is measured (python -m histtune.bench).
double warm_call_us(int type, std::uintptr_t samples, std::uint64_t n, std::uint32_t bins,
                    std::uintptr_t counts, std::uintptr_t stream, int calls) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(std::max(calls, 1)));
  for (int i = 0; i < std::max(calls, 1); ++i) {
    const auto t0 = Clock::now();
    Status s = by_type(type, [&](auto t) {
      using T = decltype(t);
      if constexpr (!std::is_integral_v<T>) return Status();
      else return histogram_direct(as<T>(samples), n, bins, counts_at(counts), stream_at(stream));
    }, kIntegerTypes);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    raise_for(s);
    // As the Python loop does (histtune.bench): a full launch queue would make the host wait for
    // the GPU, and the time per call then be the GPU's, not the host's.
    if (i % 256 == 255) (void)cudaStreamSynchronize(stream_at(stream));
  }
  (void)cudaStreamSynchronize(stream_at(stream));
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return us[us.size() / 2];
}

int device_count_checked() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string("histtune: no CUDA device (") +
                             (e == cudaSuccess ? "the driver reports no devices"
                                               : std::string(cudaGetErrorName(e)) + ": " +
                                                     cudaGetErrorString(e)) +
                             ")");
  }
  return count;
}

void check_cuda(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();
  const bool none = e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver;
  raise_for(Status(none ? StatusCode::no_device : StatusCode::cuda_error, std::string("histtune: ") + call + " failed: " +
                                               cudaGetErrorName(e) + " (" +
                                               cudaGetErrorString(e) + ")"));
}

// Makes `consumer` wait for what is queued on `producer` so far, without the host waiting.
void stream_wait(std::uintptr_t producer, std::uintptr_t consumer, int device) {
  if (producer == consumer) return;
  DeviceScope scope(device);
  cudaEvent_t e = nullptr;
  check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  cudaError_t r = cudaEventRecord(e, stream_at(producer));
  if (r == cudaSuccess) r = cudaStreamWaitEvent(stream_at(consumer), e, 0);
  (void)cudaEventDestroy(e);  // released once the wait is done
  check_cuda(r, "cudaEventRecord / cudaStreamWaitEvent");
}

using DeviceCounts = nb::ndarray<std::uint32_t, nb::device::cuda>;

// uint32 counters of `shape` in device memory of `device`, for frameworks whose arrays cannot be
// allocated from outside (JAX), as (pointer, DLPack capsule): the capsule owns the memory (freed
// with cudaFree when its consumer, or the capsule itself unconsumed, lets go). The pointer comes
// apart because reading it back from the capsule would consume it.
nb::tuple device_counts(const std::vector<std::size_t>& shape, int device) {
  DeviceScope scope(device);
  std::size_t size = 1;
  for (std::size_t s : shape) size *= s;
  void* d_counts = nullptr;
  check_cuda(cudaMalloc(&d_counts, std::max<std::size_t>(size, 1) * sizeof(std::uint32_t)),
             "cudaMalloc");
  nb::capsule owner(d_counts, [](void* p) noexcept { (void)cudaFree(p); });
  int current = 0;
  (void)cudaGetDevice(&current);
  DeviceCounts counts(d_counts, shape.size(), shape.data(), owner, nullptr,
                      nb::dtype<std::uint32_t>(), nb::device::cuda::value, current);
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(d_counts), nb::cast(counts));
}

// An imported DLPack array (a capsule or an object with __dlpack__) as (pointer, shape,
// strides in elements, (code, bits, lanes), (device type, device id)).
nb::tuple describe(nb::ndarray<nb::ro> a) {
  std::vector<std::int64_t> shape, strides;
  for (std::size_t i = 0; i < a.ndim(); ++i) {
    shape.push_back(a.shape(i));
    strides.push_back(a.stride(i));
  }
  const nb::dlpack::dtype t = a.dtype();
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), nb::tuple(nb::cast(shape)),
                        nb::tuple(nb::cast(strides)), nb::make_tuple(t.code, t.bits, t.lanes),
                        nb::make_tuple(a.device_type(), a.device_id()));
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "histtune's C++ API by device pointer (use the histtune package, not this module)";
  m.attr("__version__") = version();
  m.def("even_int", &even_int, "type"_a, "samples"_a, "n"_a, "bins"_a, "lower"_a, "upper"_a,
        "counts"_a, "stream"_a, "device"_a, "counts64"_a = false);
  m.def("even_f32", &even_f32, "samples"_a, "n"_a, "bins"_a, "lower"_a, "upper"_a, "counts"_a,
        "stream"_a, "device"_a, "counts64"_a = false);
  m.def("even_u64", &even_u64, "samples"_a, "n"_a, "bins"_a, "lower"_a, "upper"_a, "counts"_a,
        "stream"_a, "device"_a, "counts64"_a = false);
  m.def("even_float", &even_float, "type"_a, "samples"_a, "n"_a, "bins"_a, "lower"_a, "upper"_a,
        "counts"_a, "stream"_a, "device"_a, "counts64"_a = false);
  m.def("direct", &direct, "type"_a, "samples"_a, "n"_a, "bins"_a, "counts"_a, "stream"_a,
        "device"_a, "counts64"_a = false);
  m.def("range", &range, "type"_a, "samples"_a, "n"_a, "bins"_a, "levels"_a, "counts"_a,
        "stream"_a, "device"_a, "counts64"_a = false);
  m.def("channels",
        [](int type, int binning, std::uintptr_t samples, std::uint64_t row_pixels,
           std::uint64_t num_rows, std::uint64_t row_pitch_bytes, std::uint32_t channels,
           std::uint32_t active, std::uint32_t bins, nb::handle lower, nb::handle upper,
           std::uintptr_t levels, std::uintptr_t counts, std::uintptr_t stream, int device,
           bool counts64) {
          channels_run(type, binning, samples,
                       Image{row_pixels, num_rows, row_pitch_bytes, channels, active}, bins,
                       lower, upper, levels, counts, stream, device, counts64);
        },
        "type"_a, "binning"_a, "samples"_a, "row_pixels"_a, "num_rows"_a, "row_pitch_bytes"_a,
        "channels"_a, "active"_a, "bins"_a, "lower"_a, "upper"_a, "levels"_a, "counts"_a,
        "stream"_a, "device"_a, "counts64"_a = false);
  m.def("rows",
        [](int type, int binning, std::uintptr_t samples, std::uint64_t rows, std::uint64_t n,
           std::uint64_t row_stride, std::uint32_t bins, nb::handle lower, nb::handle upper,
           std::uintptr_t levels, std::uintptr_t counts, std::uintptr_t stream, int device,
           bool counts64) {
          rows_run(type, binning, samples, Rows{false, rows, n, row_stride, 0}, bins,
                   Bounds{lower, upper}, levels, counts, stream, device, counts64);
        },
        "type"_a, "binning"_a, "samples"_a, "rows"_a, "n"_a, "row_stride"_a, "bins"_a,
        "lower"_a, "upper"_a, "levels"_a, "counts"_a, "stream"_a, "device"_a,
        "counts64"_a = false);
  m.def("segments",
        [](int type, int binning, std::uintptr_t samples, std::uint64_t n,
           std::uint64_t num_segments, std::uintptr_t offsets, std::uint32_t bins,
           nb::handle lower, nb::handle upper, std::uintptr_t levels, std::uintptr_t counts,
           std::uintptr_t stream, int device, bool counts64) {
          rows_run(type, binning, samples, Rows{true, num_segments, n, 0, offsets}, bins,
                   Bounds{lower, upper}, levels, counts, stream, device, counts64);
        },
        "type"_a, "binning"_a, "samples"_a, "n"_a, "num_segments"_a, "offsets"_a, "bins"_a,
        "lower"_a, "upper"_a, "levels"_a, "counts"_a, "stream"_a, "device"_a,
        "counts64"_a = false);
  m.def("weighted", &weighted_run, "type"_a, "weight_type"_a, "binning"_a, "samples"_a,
        "weights"_a, "n"_a, "bins"_a, "lower"_a, "upper"_a, "levels"_a, "out"_a, "deterministic"_a,
        "max_abs_weight"_a, "stream"_a, "device"_a, "rows"_a = 1, "row_stride"_a = 0,
        "offsets"_a = 0, "segments"_a = false, "channels"_a = 1, "active"_a = 1);
  m.def("joint", &joint_run, "type"_a, "binning"_a, "samples"_a, "columns"_a, "n"_a, "bins"_a,
        "lower"_a, "upper"_a, "edges"_a, "counts"_a, "stream"_a, "device"_a);
  m.def("last_choice", &last_choice_dict);
  m.def("warm_call_us", &warm_call_us, "type"_a, "samples"_a, "n"_a, "bins"_a, "counts"_a,
        "stream"_a, "calls"_a);
  m.def("device_count", &device_count_checked);
  m.def("stream_wait", &stream_wait, "producer"_a, "consumer"_a, "device"_a);
  m.def("device_counts", &device_counts, "shape"_a, "device"_a);
  m.def("describe", &describe, "array"_a);
}
