#include "histtune/reference.hpp"

#include "histtune/half.hpp"
#include "histtune/weighted.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace histtune {
namespace {

// Even binning's rule, as the kernels compute it (ht_bin_of), with the constants of one problem:
// integers up to 32 bits in 64-bit offsets, i64 and u64 from their exact bounds in 128 bits, f32
// and the halfs in float, f64 in double.
struct EvenRule {
  long long lower_i = 0;
  unsigned long long range_i = 0;
  std::uint64_t lower64 = 0, range64 = 0;
  float lower_f = 0, upper_f = 0, scale_f = 0;
  double lower_d = 0, upper_d = 0, scale_d = 0;
  std::uint32_t num_bins = 0;

  explicit EvenRule(const Problem& p) : num_bins(p.num_bins) {
    if (p.binning != Binning::even) return;
    if (is_int64(p.sample_type)) {
      lower64 = p.lower_bits;
      range64 = even_range64(p);
    } else if (p.sample_type == SampleType::f64) {
      lower_d = p.lower;
      upper_d = p.upper;
      scale_d = p.num_bins / (p.upper - p.lower);  // as kernel_args.cpp computes it
    } else {
      lower_i = static_cast<long long>(p.lower);
      range_i = static_cast<unsigned long long>(p.upper - p.lower);
      lower_f = static_cast<float>(p.lower);
      upper_f = static_cast<float>(p.upper);
      scale_f = static_cast<float>(p.num_bins) / (upper_f - lower_f);
    }
  }

  std::uint32_t clamp(std::uint32_t b) const { return b < num_bins ? b : num_bins - 1; }

  // The bin of v, or false outside [lower, upper) (and NaN).
  template <class V>
  bool bin_of(V v, std::uint32_t& bin) const {
    if constexpr (std::is_same_v<V, double>) {
      if (!(v >= lower_d && v < upper_d)) return false;
      volatile double t = (v - lower_d) * scale_d;  // one rounding, as on the GPU
      bin = clamp(static_cast<std::uint32_t>(t));
    } else if constexpr (std::is_floating_point_v<V>) {
      if (!(v >= lower_f && v < upper_f)) return false;
      // volatile keeps the product a separately rounded float, as on the GPU.
      volatile float t = (v - lower_f) * scale_f;
      bin = clamp(static_cast<std::uint32_t>(t));
    } else if constexpr (sizeof(V) == 8) {
      // In the type's own order: i64 compares signed, u64 unsigned; the offset is then exact.
      if (v < static_cast<V>(lower64)) return false;
      const std::uint64_t d = static_cast<std::uint64_t>(v) - lower64;
      if (d >= range64) return false;
      bin = static_cast<std::uint32_t>(static_cast<unsigned __int128>(d) * num_bins / range64);
    } else {
      const long long d = static_cast<long long>(v) - lower_i;
      if (d < 0 || static_cast<unsigned long long>(d) >= range_i) return false;
      bin = static_cast<std::uint32_t>(static_cast<unsigned long long>(d) * num_bins / range_i);
    }
    return true;
  }
};

// T is the type in memory, V what the bin rules compare (float for f16 and bf16, whose
// value_of converts; T itself otherwise). Levels are converted once, before counting.
// Calls add(channel, bin, row) for each sample of p in a bin, in order.
template <class T, class V = T, class ValueOf, class Add>
void visit(const Problem& p, const T* s, const T* levels_in, ValueOf value_of, Add add) {
  std::vector<V> level_values;
  if (p.binning == Binning::range && levels_in != nullptr)
    for (std::uint32_t i = 0; i <= p.num_bins; ++i) level_values.push_back(value_of(levels_in[i]));
  const V* levels = level_values.data();
  // A half's and an f64's infinities are never counted (f32 keeps CUB's rule).
  const bool no_infinities = is_half(p.sample_type) || p.sample_type == SampleType::f64;
  // Channel c of row i is s[i * channels + c]; 1D problems are one channel. With a row pitch,
  // row i is pixel i % row_pixels of image row i / row_pixels, which starts row_pitch_bytes
  // after the one before: what lies between image rows is never read.
  const std::uint32_t channels = p.channels, active = p.active_channels;
  const std::uint64_t row_pixels = p.row_pixels != 0 ? p.row_pixels : p.n;
  const std::uint64_t pitch = p.row_pitch_bytes != 0 ? p.row_pitch_bytes / sizeof(T)
                                                     : row_pixels * channels;
  const EvenRule even(p);
  // Read once: add()'s 32-bit stores could alias p's fields, which the loop would then reload
  // for every sample.
  const std::uint64_t n = p.n;
  const Binning binning = p.binning;
  const std::uint32_t num_bins = p.num_bins;
  // Sample i's pixel, stepped rather than divided out of i: two 64-bit divisions a sample were
  // most of the reference's time.
  const T* image_row = s;
  std::uint64_t pixel = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const T* row = image_row + pixel * channels;
    if (++pixel == row_pixels) {
      pixel = 0;
      image_row += pitch;
    }
    for (std::uint32_t c = 0; c < active; ++c) {
      const V v = value_of(row[c]);
      if constexpr (std::is_floating_point_v<V>) {
        if (no_infinities && std::isinf(v)) continue;
      }
      if (binning == Binning::range) {
        // Bin i holds levels[i] <= v < levels[i + 1]: the last level not above v, which is
        // upper_bound's predecessor. Outside [levels[0], levels[num_bins]) and NaN: no bin.
        const V* end = levels + num_bins + 1;
        if constexpr (std::is_floating_point_v<V>) {
          if (std::isnan(v)) continue;
        }
        if (v < levels[0] || !(v < levels[num_bins])) continue;
        add(c, static_cast<std::uint32_t>(std::upper_bound(levels, end, v) - levels - 1), i);
      } else if (binning == Binning::direct) {
        // Negative values become huge unsigned ones, ignored like values >= num_bins.
        if constexpr (std::is_integral_v<V>) {
          const auto bin = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
          if (bin < num_bins) add(c, static_cast<std::uint32_t>(bin), i);
        } else {  // no direct binning of floats (validate()); as before it had a rule
          const auto bin = static_cast<std::uint32_t>(v);
          if (bin < num_bins) add(c, bin, i);
        }
      } else if (std::uint32_t bin; even.bin_of(v, bin)) {
        add(c, bin, i);
      }
    }
  }
}

// visit() over p's sample type.
template <class Add>
void visit_samples(const Problem& p, const void* samples, const void* levels, Add add) {
  const auto* bits = static_cast<const std::uint16_t*>(samples);
  const auto* level_bits = static_cast<const std::uint16_t*>(levels);
  switch (p.sample_type) {
#define HT_REF(TAG, T)                                                                   \
  case SampleType::TAG:                                                                  \
    return visit(p, static_cast<const T*>(samples), static_cast<const T*>(levels),       \
                 [](T v) { return v; }, add);
    HT_REF(u8, std::uint8_t)
    HT_REF(u16, std::uint16_t)
    HT_REF(u32, std::uint32_t)
    HT_REF(i32, std::int32_t)
    HT_REF(f32, float)
    HT_REF(i8, std::int8_t)
    HT_REF(i16, std::int16_t)
    HT_REF(i64, std::int64_t)
    HT_REF(u64, std::uint64_t)
    HT_REF(f64, double)
#undef HT_REF
    case SampleType::f16: return visit<std::uint16_t, float>(p, bits, level_bits, f16_to_float, add);
    case SampleType::bf16:
      return visit<std::uint16_t, float>(p, bits, level_bits, bf16_to_float, add);
  }
}

// [first, first + len) of row r: dense rows at r x stride, segments between clamped offsets.
std::pair<std::uint64_t, std::uint64_t> row_span(const Problem& p, std::uint64_t r,
                                                 const std::int64_t* offsets) {
  if (!reads_offsets(p)) return {r * (p.row_stride != 0 ? p.row_stride : p.n), p.n};
  const auto clamp = [&](std::int64_t o) {
    return o < 0 ? 0 : std::min(static_cast<std::uint64_t>(o), p.n);
  };
  const std::uint64_t first = clamp(offsets[r]), end = clamp(offsets[r + 1]);
  return {first, end > first ? end - first : 0};
}

// One histogram per row of a batched or segmented problem, each the 1D reference of its samples.
std::vector<std::uint32_t> count_rows(const Problem& p, const void* samples, const void* levels,
                                      const std::int64_t* offsets) {
  if (p.family == Family::segmented && offsets == nullptr && p.rows > 0)
    throw std::invalid_argument("reference_histogram: segmented rows need the host offsets");
  const std::size_t sb = sample_bytes(p.sample_type);
  Problem row = flat_problem(p.sample_type, p.binning, p.num_bins, 0, p.lower, p.upper);
  row.lower_bits = p.lower_bits;  // i64 and u64: the exact bounds, not the doubles'
  row.upper_bits = p.upper_bits;
  std::vector<std::uint32_t> out;
  out.reserve(static_cast<std::size_t>(p.num_bins) * p.rows);
  for (std::uint64_t r = 0; r < p.rows; ++r) {
    const auto [first, len] = row_span(p, r, offsets);  // segments clamped as the kernel does
    row.n = len;
    const auto* at = static_cast<const std::uint8_t*>(samples) + first * sb;
    const std::vector<std::uint32_t> h = reference_histogram(row, at, levels);
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

}  // namespace

std::vector<std::uint32_t> reference_joint(const Problem& p, const void* samples,
                                           const void* const* columns,
                                           const void* const* levels) {
  if (p.binning == Binning::range && levels == nullptr && p.n > 0)
    throw std::invalid_argument("reference_joint: edges need the host edges of every dimension");
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  const std::size_t sb = sample_bytes(p.sample_type);
  std::vector<std::uint32_t> index(p.n, 0);  // the joint bin so far, or kNone
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
    // Dimension d as one channel of `dims` interleaved ones (one of one in the separate form).
    Problem one = joint_dim(p, d);
    one.channels = columns != nullptr ? 1 : p.channels;
    const void* at = columns != nullptr ? columns[d] : static_cast<const char*>(samples) + d * sb;
    std::vector<std::uint32_t> bin(p.n, kNone);
    visit_samples(one, at, levels != nullptr ? levels[d] : nullptr,
                  [&](std::uint32_t, std::uint32_t b, std::uint64_t i) { bin[i] = b; });
    for (std::uint64_t i = 0; i < p.n; ++i)
      index[i] = index[i] == kNone || bin[i] == kNone ? kNone : index[i] * p.joint.bins[d] + bin[i];
  }
  std::vector<std::uint32_t> h(p.num_bins, 0);
  for (std::uint32_t j : index)
    if (j != kNone) ++h[j];
  return h;
}

std::vector<std::uint32_t> reference_histogram(const Problem& p, const void* samples,
                                               const void* levels, const std::int64_t* offsets) {
  if (p.family == Family::batched || p.family == Family::segmented)
    return count_rows(p, samples, levels, offsets);
  if (p.family == Family::joint) return reference_joint(p, samples, nullptr, nullptr);
  if (p.binning == Binning::range && levels == nullptr && p.n > 0)
    throw std::invalid_argument("reference_histogram: range binning needs the host levels");
  // The pitch's arithmetic assumes what validate() checks (row_pixels divides n, the pitch is
  // whole samples and holds a row).
  if (p.row_pixels != 0 || p.row_pitch_bytes != 0) {
    if (std::string why = validate(p); !why.empty())
      throw std::invalid_argument("reference_histogram: " + p.describe() + ": " + why);
  }
  std::vector<std::uint32_t> h(static_cast<std::size_t>(p.num_bins) * p.active_channels, 0);
  std::uint32_t* const counts = h.data();
  const std::size_t bins = p.num_bins;
  visit_samples(p, samples, levels, [counts, bins](std::uint32_t c, std::uint32_t bin,
                                                   std::uint64_t) { ++counts[c * bins + bin]; });
  return h;
}

namespace {

// One weighted histogram of one row or of pixels of channels (p's rows and segments ignored).
std::vector<double> weighted_one(const Problem& p, const void* samples, const void* weights,
                                 const void* levels) {
  auto weight = [&](std::uint64_t i) -> double {
    switch (p.weight_type) {
      case WeightType::f32: return static_cast<const float*>(weights)[i];
      case WeightType::f64: return static_cast<const double*>(weights)[i];
      case WeightType::i32: return static_cast<const std::int32_t*>(weights)[i];
      case WeightType::i64: return static_cast<double>(static_cast<const std::int64_t*>(weights)[i]);
      case WeightType::none: break;
    }
    return 1;
  };
  std::vector<double> sums(std::size_t{p.num_bins} * p.active_channels, 0.0);
  visit_samples(p, samples, levels, [&](std::uint32_t c, std::uint32_t bin, std::uint64_t i) {
    sums[std::size_t{c} * p.num_bins + bin] += weight(i);  // pixel i's weight, every channel
  });
  return sums;
}

}  // namespace

std::vector<double> reference_weighted(const Problem& p, const void* samples, const void* weights,
                                       const void* levels, const std::int64_t* offsets) {
  if (p.binning == Binning::range && levels == nullptr && p.n > 0)
    throw std::invalid_argument("reference_weighted: range binning needs the host levels");
  const WeightedForm f = weighted::form(p);
  if (f != WeightedForm::rows && f != WeightedForm::segments)
    return weighted_one(p, samples, weights, levels);
  if (f == WeightedForm::segments && offsets == nullptr && p.rows > 0)
    throw std::invalid_argument("reference_weighted: segments need the host offsets");
  Problem row = p;
  row.rows = 1;
  row.row_stride = 0;
  row.segments = false;
  std::vector<double> out;
  out.reserve(std::size_t{p.num_bins} * p.rows);
  for (std::uint64_t r = 0; r < p.rows; ++r) {
    const auto [first, len] = row_span(p, r, offsets);
    row.n = len;
    const std::vector<double> h = weighted_one(
        row, static_cast<const std::uint8_t*>(samples) + first * sample_bytes(p.sample_type),
        static_cast<const std::uint8_t*>(weights) + first * weight_bytes(p.weight_type), levels);
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

std::vector<std::uint32_t> weighted_words(const Problem& p, const std::vector<double>& sums) {
  std::vector<std::uint32_t> words(sums.size() * bin_bytes(p) / 4);
  for (std::size_t b = 0; b < sums.size(); ++b) {
    if (p.weight_type == WeightType::f32) {
      const float f = static_cast<float>(sums[b]);
      std::memcpy(&words[b], &f, 4);
    } else if (p.weight_type == WeightType::f64) {
      std::memcpy(&words[2 * b], &sums[b], 8);
    } else {
      const auto i = static_cast<std::int64_t>(sums[b]);
      std::memcpy(&words[2 * b], &i, 8);
    }
  }
  return words;
}
}  // namespace histtune
