#include "histtune/tuner/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/family.hpp"
#include "histtune/half.hpp"
#include "histtune/reference.hpp"
#include "histtune/weighted.hpp"
#include "histtune/status.hpp"

namespace histtune::tuner {
namespace {

// splitmix64: fast, good enough for test data, and identical on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

// A bin index in [0, bins) drawn from distribution D; `state` carries the walk of `runs`. A
// template, so that each distribution's fill loop inlines its own draw.
template <Distribution D>
std::uint32_t draw_bin(std::uint32_t bins, Rng& rng, double& state, std::uint64_t& left) {
  if constexpr (D == Distribution::skewed) {
    // Mean bins/60: about 95% of the mass lies in the lowest 5% of the bins.
    const double x = -std::log(1.0 - rng.unit()) * bins / 60.0;
    return static_cast<std::uint32_t>(std::min<double>(x, bins - 1));
  } else if constexpr (D == Distribution::constant) {
    return bins / 3;
  } else if constexpr (D == Distribution::runs) {
    if (left == 0) {  // a new run: step the walk a little, 16..271 samples long
      state += (rng.unit() - 0.5) * std::max(2.0, bins / 32.0);
      if (state < 0) state = -state;
      if (state > bins - 1) state = 2.0 * (bins - 1) - state;
      // A step wider than the bins (one or two) overshoots the reflection.
      state = std::clamp(state, 0.0, bins - 1.0);
      left = 16 + rng.next() % 256;
    }
    --left;
    std::uint32_t b = static_cast<std::uint32_t>(state);
    if (rng.next() % 20 == 0) b = b + 1 < bins ? b + 1 : b;  // 5% noise of one bin
    return b;
  } else {
    const std::uint64_t r = rng.next();
    // The same draw without a 64-bit division where bins is a power of two (most problems).
    return static_cast<std::uint32_t>((bins & (bins - 1)) == 0 ? r & (bins - 1) : r % bins);
  }
}

// The largest double that converts to T: the type's largest value, but for i64 and u64 (whose
// largest values round up to 2^63 and 2^64, beyond the type) the double below it.
template <class T>
double type_max(T) {
  const double max = static_cast<double>(std::numeric_limits<T>::max());
  if constexpr (std::is_integral_v<T> && sizeof(T) == 8) return std::nextafter(max, 0.0);
  return max;
}

// i64 and u64 even binning: a value inside bin b at fraction frac of it, from the exact bounds
// (lower_bits, even_range64), which the doubles lower and upper only approximate.
template <class T>
T inside_bin64(const Problem& p, std::uint32_t b, double frac) {
  const std::uint64_t range = even_range64(p);
  const double at = (b + frac) * static_cast<double>(range) / p.num_bins;
  // Rounding may reach range itself: the last value then.
  const std::uint64_t offset = at < 0x1p64 ? static_cast<std::uint64_t>(at) : range - 1;
  return static_cast<T>(p.lower_bits + std::min(offset, range - 1));
}

// i64 and u64 even binning's mixed distribution: a value from 5% of the range below lower to
// 5% above upper at fraction `u` of that span, from the exact bounds, held to the type.
template <class T>
T around_bounds64(const Problem& p, double u) {
  using Wide = __int128;
  const double range = static_cast<double>(even_range64(p));
  const Wide lower = static_cast<Wide>(static_cast<T>(p.lower_bits));  // its value in T
  const Wide v = lower + static_cast<Wide>((u * 1.1 - 0.05) * range);
  const Wide lo = static_cast<Wide>(std::numeric_limits<T>::min());
  const Wide hi = static_cast<Wide>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(v, lo, hi));
}

template <class T>
std::vector<T> levels_of(const Problem& p) {
  const std::uint32_t bins = p.num_bins;
  const double span = p.upper - p.lower;
  std::vector<T> lv(static_cast<std::size_t>(bins) + 1);
  // Integers: quadratic steps are at least span / (2 bins) >= 1 when span >= 2 bins.
  const bool quadratic = std::is_floating_point_v<T> || span >= 2.0 * bins;
  for (std::uint32_t i = 0; i <= bins; ++i) {
    const double t = static_cast<double>(i) / bins;
    const double frac = quadratic ? (t + t * t) / 2 : t;
    const double v = i == bins ? p.upper : p.lower + span * frac;
    if constexpr (std::is_floating_point_v<T>) {
      lv[i] = static_cast<T>(v);
      // Float rounding may merge neighbours of a narrow span: nudge up to keep them distinct.
      if (i > 0 && !(lv[i] > lv[i - 1])) lv[i] = std::nextafter(lv[i - 1], INFINITY);
    } else {
      lv[i] = static_cast<T>(std::floor(std::min(v, type_max(T{}))));
    }
  }
  for (std::uint32_t i = 1; i <= bins; ++i)
    if (!(lv[i] > lv[i - 1]))
      throw Error(StatusCode::invalid_argument,
                  "range levels over [" + std::to_string(p.lower) + ", " +
                      std::to_string(p.upper) + "] are not strictly ascending at level " +
                      std::to_string(i) + " of " + std::to_string(bins));
  return lv;
}

template <class T>
std::vector<std::uint8_t> level_bytes(const Problem& p) {
  return bytes_of(levels_of<T>(p));
}

// Levels of a half type (f16, bf16): the float levels rounded to the type, nudged one step up
// where rounding merged neighbours.
std::vector<std::uint16_t> half_levels_of(const Problem& p) {
  const bool f16 = p.sample_type == SampleType::f16;
  auto value = [&](std::uint16_t h) { return f16 ? f16_to_float(h) : bf16_to_float(h); };
  std::vector<std::uint16_t> lv;
  for (float v : levels_of<float>(p)) {
    std::uint16_t h = f16 ? float_to_f16(v) : float_to_bf16(v);
    if (!lv.empty() && !(value(h) > value(lv.back()))) {
      const std::uint16_t prev = lv.back();  // the next value up: away from zero, or toward it
      h = static_cast<std::uint16_t>(prev == 0x8000u ? 1u : (prev & 0x8000u) ? prev - 1u : prev + 1u);
    }
    if (!std::isfinite(value(h)))
      throw Error(StatusCode::invalid_argument,
                  "range levels over [" + std::to_string(p.lower) + ", " +
                      std::to_string(p.upper) + "] do not fit " + to_string(p.sample_type) +
                      " as " + std::to_string(p.num_bins + 1) + " ascending finite levels");
    lv.push_back(h);
  }
  return lv;
}

// Mixed data: values spread a little beyond the bins' span (direct: beyond the last bin), and
// for floats a NaN in 1000.
template <class T>
void fill_mixed(const Problem& p, Rng& rng, T* out) {
  const bool direct = p.binning == Binning::direct;
  const double tmin = static_cast<double>(std::numeric_limits<T>::lowest());
  const double tmax = type_max(T{});
  const double lo = direct ? 0.0 : p.lower - 0.05 * (p.upper - p.lower);
  const double hi = direct ? static_cast<double>(p.num_bins) * 1.01 + 1
                           : p.upper + 0.05 * (p.upper - p.lower);
  for (std::uint64_t i = 0; i < p.n; ++i) {
    double v = lo + (hi - lo) * rng.unit();
    if constexpr (std::is_floating_point_v<T>) {
      out[i] = (rng.next() % 1000 == 0) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(v);
    } else if constexpr (sizeof(T) == 8) {
      out[i] = direct ? static_cast<T>(v) : around_bounds64<T>(p, rng.unit());
    } else {
      out[i] = static_cast<T>(std::floor(std::clamp(v, tmin, tmax)));
    }
  }
}

// Samples of bins drawn from D: values inside each bin (direct: the bin itself; constant data:
// the same value every time).
template <Distribution D, class T>
void fill_from(const Problem& p, Rng& rng, T* out, const std::vector<T>& lv) {
  const bool direct = p.binning == Binning::direct;
  const double tmin = static_cast<double>(std::numeric_limits<T>::lowest());
  const double tmax = type_max(T{});
  // Read once: the stores to `out` could alias p's fields, which the loop would then reload.
  const std::uint64_t n = p.n;
  const std::uint32_t bins = p.num_bins;
  const double lower = p.lower, upper = p.upper;
  const double width = direct ? 1.0 : (upper - lower) / bins;
  const double below_upper = std::nextafter(upper, lower);
  double state = bins / 2.0;
  std::uint64_t left = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t b = draw_bin<D>(bins, rng, state, left);
    if (direct) {
      out[i] = static_cast<T>(b);
      continue;
    }
    const double frac = D == Distribution::constant ? 0.5 : rng.unit();
    if (!lv.empty()) {  // a value inside [lv[b], lv[b + 1])
      const double lo = static_cast<double>(lv[b]), hi = static_cast<double>(lv[b + 1]);
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(lo + frac * (hi - lo));
        if (!(out[i] >= lv[b] && out[i] < lv[b + 1])) out[i] = lv[b];
      } else {
        out[i] = static_cast<T>(lo + std::floor(frac * (hi - lo)));
      }
      continue;
    }
    if constexpr (std::is_integral_v<T> && sizeof(T) == 8) {
      out[i] = inside_bin64<T>(p, b, frac);
      continue;
    }
    double v = lower + (b + frac) * width;
    v = std::clamp(v, lower, below_upper);
    if constexpr (std::is_floating_point_v<T>) {
      out[i] = static_cast<T>(v);
      if (!(out[i] < static_cast<T>(upper))) out[i] = static_cast<T>(lower);
    } else {
      out[i] = static_cast<T>(std::floor(std::clamp(v, tmin, tmax)));
    }
  }
}

template <class T>
void fill(const Problem& p, Distribution dist, Rng& rng, T* out, const std::vector<T>& lv) {
  switch (dist) {
    case Distribution::mixed: return fill_mixed(p, rng, out);
    case Distribution::skewed: return fill_from<Distribution::skewed>(p, rng, out, lv);
    case Distribution::constant: return fill_from<Distribution::constant>(p, rng, out, lv);
    case Distribution::runs: return fill_from<Distribution::runs>(p, rng, out, lv);
    case Distribution::uniform: break;
  }
  fill_from<Distribution::uniform>(p, rng, out, lv);
}

template <class T>
void fill(const Problem& p, Distribution dist, Rng& rng, T* out) {
  fill(p, dist, rng, out, p.binning == Binning::range ? levels_of<T>(p) : std::vector<T>{});
}

// Half samples: drawn as floats (inside the half levels for range binning), then rounded to
// the type; rounding may move a value across a bin edge, which the reference counts as it is.
// The mixed distribution's NaN stay NaN, and one sample in 1000 is an infinity.
void fill_half(const Problem& p, Distribution dist, Rng& rng, std::uint16_t* out) {
  const bool f16 = p.sample_type == SampleType::f16;
  std::vector<float> lv;
  if (p.binning == Binning::range)
    for (std::uint16_t h : half_levels_of(p)) lv.push_back(f16 ? f16_to_float(h) : bf16_to_float(h));
  std::vector<float> values(p.n);
  fill(p, dist, rng, values.data(), lv);
  for (std::uint64_t i = 0; i < p.n; ++i) {
    out[i] = f16 ? float_to_f16(values[i]) : float_to_bf16(values[i]);
    if (dist == Distribution::mixed && rng.next() % 1000 == 0)
      out[i] = (f16 ? 0x7C00u : 0x7F80u) | ((rng.next() & 1u) << 15);
  }
}

// f64 samples: like f32's, and in the mixed distribution one sample in 1000 is an infinity too
// (never counted).
void fill_f64(const Problem& p, Distribution dist, Rng& rng, double* out) {
  fill(p, dist, rng, out);
  if (dist != Distribution::mixed) return;
  for (std::uint64_t i = 0; i < p.n; ++i)
    if (rng.next() % 1000 == 0) out[i] = (rng.next() & 1u) ? INFINITY : -INFINITY;
}

}  // namespace

std::vector<std::uint8_t> make_samples(const Problem& p, std::uint64_t seed, Distribution dist) {
  std::vector<std::uint8_t> bytes(p.n * sample_bytes(p.sample_type));
  Rng rng{seed * 0x2545F4914F6CDD1Dull + 1};
  switch (p.sample_type) {
    case SampleType::u8: fill(p, dist, rng, reinterpret_cast<std::uint8_t*>(bytes.data())); break;
    case SampleType::u16: fill(p, dist, rng, reinterpret_cast<std::uint16_t*>(bytes.data())); break;
    case SampleType::u32: fill(p, dist, rng, reinterpret_cast<std::uint32_t*>(bytes.data())); break;
    case SampleType::i32: fill(p, dist, rng, reinterpret_cast<std::int32_t*>(bytes.data())); break;
    case SampleType::f32: fill(p, dist, rng, reinterpret_cast<float*>(bytes.data())); break;
    case SampleType::i8: fill(p, dist, rng, reinterpret_cast<std::int8_t*>(bytes.data())); break;
    case SampleType::i16: fill(p, dist, rng, reinterpret_cast<std::int16_t*>(bytes.data())); break;
    case SampleType::f16:
    case SampleType::bf16: fill_half(p, dist, rng, reinterpret_cast<std::uint16_t*>(bytes.data())); break;
    case SampleType::i64: fill(p, dist, rng, reinterpret_cast<std::int64_t*>(bytes.data())); break;
    case SampleType::u64: fill(p, dist, rng, reinterpret_cast<std::uint64_t*>(bytes.data())); break;
    case SampleType::f64: fill_f64(p, dist, rng, reinterpret_cast<double*>(bytes.data())); break;
  }
  return bytes;
}

std::vector<std::uint8_t> make_levels(const Problem& p) {
  if (std::string why = level_span_problem(p); !why.empty())
    throw Error(StatusCode::invalid_argument, "cannot draw levels for " + p.describe() + ": " + why);
  switch (p.sample_type) {
    case SampleType::u8: return level_bytes<std::uint8_t>(p);
    case SampleType::u16: return level_bytes<std::uint16_t>(p);
    case SampleType::u32: return level_bytes<std::uint32_t>(p);
    case SampleType::i32: return level_bytes<std::int32_t>(p);
    case SampleType::f32: return level_bytes<float>(p);
    case SampleType::i8: return level_bytes<std::int8_t>(p);
    case SampleType::i16: return level_bytes<std::int16_t>(p);
    case SampleType::f16:
    case SampleType::bf16: return bytes_of(half_levels_of(p));
    case SampleType::i64: return level_bytes<std::int64_t>(p);
    case SampleType::u64: return level_bytes<std::uint64_t>(p);
    case SampleType::f64: return level_bytes<double>(p);
  }
  return {};
}

namespace {
// The smallest and largest value of the sample type, as doubles.
std::pair<double, double> type_limits(SampleType t) {
  switch (t) {
    case SampleType::u8: return {0, 255};
    case SampleType::u16: return {0, 65535};
    case SampleType::u32: return {0, 4294967295.0};
    case SampleType::i32: return {-2147483648.0, 2147483647.0};
    case SampleType::f32: return {-3.4e38, 3.4e38};
    case SampleType::i8: return {-128, 127};
    case SampleType::i16: return {-32768, 32767};
    case SampleType::f16: return {-65504, 65504};
    case SampleType::bf16: return {-3.38e38, 3.38e38};
    case SampleType::i64: return {-0x1p63, type_max(std::int64_t{})};
    case SampleType::u64: return {0, type_max(std::uint64_t{})};
    case SampleType::f64: return {-1.79e308, 1.79e308};
  }
  return {0, 0};
}
}  // namespace

std::string level_span_problem(const Problem& p) {
  if (p.num_bins == 0) return "num_bins must be at least 1";
  if (!std::isfinite(p.lower) || !std::isfinite(p.upper) || !(p.lower < p.upper))
    return "the levels' span needs finite lower < upper";
  const auto [lo, hi] = type_limits(p.sample_type);
  if (p.lower < lo || p.upper > hi)
    return "the levels' span [" + std::to_string(p.lower) + ", " + std::to_string(p.upper) +
           "] leaves the " + to_string(p.sample_type) + " values";
  if (!is_float(p.sample_type)) {
    if (std::floor(p.lower) != p.lower || std::floor(p.upper) != p.upper)
      return "integer levels need an integral span";
    if (p.upper - p.lower < p.num_bins)
      return "integer levels need upper - lower >= num_bins (one value per bin at least)";
  }
  return {};
}

void set_default_level_span(Problem& p) {
  p.lower = 0;
  if (is_float(p.sample_type)) {
    p.upper = p.num_bins;
    return;
  }
  const auto [lo, hi] = type_limits(p.sample_type);
  p.upper = std::min(4.0 * p.num_bins, hi);
  // i32 with more bins than non-negative values: the levels take the negative ones too.
  if (p.upper - p.lower < p.num_bins) p.lower = lo;
}

std::vector<std::uint8_t> make_weights(const Problem& p, std::uint64_t seed) {
  Rng rng{seed * 0x9E3779B97F4A7C15ull + 5};
  const std::size_t wb = weight_bytes(p.weight_type);
  std::vector<std::uint8_t> out(p.weight_count() * wb);
  for (std::uint64_t i = 0; i < p.weight_count(); ++i) {
    const int w = static_cast<int>(rng.next() % 9) - 4;  // -4 .. 4
    std::uint8_t* at = out.data() + i * wb;
    switch (p.weight_type) {
      case WeightType::f32: { const float v = static_cast<float>(w); std::memcpy(at, &v, 4); break; }
      case WeightType::f64: { const double v = w; std::memcpy(at, &v, 8); break; }
      case WeightType::i32: { const std::int32_t v = w; std::memcpy(at, &v, 4); break; }
      case WeightType::i64: { const std::int64_t v = w; std::memcpy(at, &v, 8); break; }
      case WeightType::none: break;
    }
  }
  return out;
}

std::vector<std::uint8_t> make_inputs(const Problem& p, std::uint64_t seed, Distribution dist) {
  std::vector<std::uint8_t> out = make_samples(as_one_stream(p), seed, dist);
  if (p.weight_type == WeightType::none) return out;
  const std::vector<std::uint8_t> w = make_weights(p, seed);
  out.resize(weighted::weights_offset(p), 0);
  out.insert(out.end(), w.begin(), w.end());
  return out;
}

std::vector<std::uint32_t> reference_of(const Problem& p, const std::vector<std::uint8_t>& inputs,
                                        const std::vector<std::uint8_t>& levels,
                                        const std::vector<std::int64_t>& offsets) {
  const void* lv = levels.empty() ? nullptr : levels.data();
  if (p.weight_type != WeightType::none)
    return weighted_words(
        p, reference_weighted(p, inputs.data(), inputs.data() + weighted::weights_offset(p), lv,
                              offsets.empty() ? nullptr : offsets.data()));
  return reference_histogram(p, inputs.data(), lv, offsets.empty() ? nullptr : offsets.data());
}

const void* weights_in(const Problem& p, const void* inputs) {
  if (p.weight_type == WeightType::none) return nullptr;
  return static_cast<const std::uint8_t*>(inputs) + weighted::weights_offset(p);
}

std::vector<std::int64_t> make_offsets(const Problem& p, std::uint64_t seed) {
  Rng rng{seed * 0x2545F4914F6CDD1Dull + 3};
  std::vector<std::int64_t> out(p.rows + 1, 0);
  for (std::uint64_t r = 1; r < p.rows; ++r)
    out[r] = static_cast<std::int64_t>(p.n == 0 ? 0 : rng.next() % (p.n + 1));
  out[p.rows] = static_cast<std::int64_t>(p.n);
  std::sort(out.begin(), out.end());
  return out;
}

DeviceInputs::DeviceInputs(const Problem& p, const std::vector<std::uint8_t>& host,
                           std::int64_t l2_bytes, const std::vector<std::uint8_t>& levels,
                           const std::vector<std::int64_t>& offsets) {
  if (!levels.empty()) {
    HT_CUDA(cudaMalloc(&d_levels_, levels.size()));
    HT_CUDA(cudaMemcpy(d_levels_, levels.data(), levels.size(), cudaMemcpyHostToDevice));
  }
  if (!offsets.empty()) {
    const std::size_t bytes = offsets.size() * sizeof(std::int64_t);
    HT_CUDA(cudaMalloc(&d_offsets_, bytes));
    HT_CUDA(cudaMemcpy(d_offsets_, offsets.data(), bytes, cudaMemcpyHostToDevice));
  }
  const std::size_t bytes = host.size();
  stride_ = std::max<std::size_t>(256, (bytes + 255) / 256 * 256);
  // Enough copies that the pool is at least twice L2: consecutive repetitions never hit in L2.
  const std::size_t want = static_cast<std::size_t>(2 * std::max<std::int64_t>(l2_bytes, 0));
  copies_ = static_cast<int>(std::max<std::size_t>(1, (want + stride_ - 1) / stride_));
  if (bytes >= want) copies_ = 1;
  HT_CUDA(cudaMalloc(&d_pool_, stride_ * copies_));
  for (int c = 0; c < copies_; ++c)
    if (bytes) HT_CUDA(cudaMemcpy(d_pool_ + c * stride_, host.data(), bytes, cudaMemcpyHostToDevice));
  HT_CUDA(cudaMalloc(&d_counts_, sizeof(std::uint32_t) * std::max<std::uint32_t>(p.num_bins, 1)));
  // The copies above ran on the legacy stream and, from pageable memory, may return before their
  // DMA lands; the timing stream is non-blocking and would not wait for them.
  HT_CUDA(cudaDeviceSynchronize());
}

DeviceInputs::~DeviceInputs() {
  cudaFree(d_pool_);
  cudaFree(d_counts_);
  cudaFree(d_levels_);
  cudaFree(d_offsets_);
  cudaFree(d_expect_);
  cudaFree(d_differ_);
}

const void* DeviceInputs::samples(int rep) const {
  return d_pool_ + static_cast<std::size_t>(rep % copies_) * stride_;
}

const void* DeviceInputs::next() {
  const void* p = samples(cursor_);
  cursor_ = (cursor_ + 1) % copies_;
  return p;
}

std::vector<std::uint32_t> DeviceInputs::read_counts(std::uint32_t num_bins) const {
  std::vector<std::uint32_t> h(num_bins);
  HT_CUDA(cudaMemcpy(h.data(), d_counts_, sizeof(std::uint32_t) * num_bins, cudaMemcpyDeviceToHost));
  return h;
}

const std::vector<Distribution>& benchmark_distributions() {
  static const std::vector<Distribution> all = {Distribution::uniform, Distribution::skewed,
                                                Distribution::constant, Distribution::runs};
  return all;
}

Problem problem_of_key(const db::ProblemRow& key, std::optional<double> lower,
                       std::optional<double> upper) {
  Problem p;
  const std::optional<Family> fam = parse_family(key.family);
  if (!fam)
    throw Error(StatusCode::invalid_argument, "unknown kernel family '" + key.family +
                                                  "' in the database (this histtune has " +
                                                  family_names() + ")");
  p.family = *fam;
  if (auto t = parse_sample_type(key.sample_type)) p.sample_type = *t;
  if (auto b = parse_binning(key.binning)) p.binning = *b;
  p.num_bins = key.num_bins;
  p.n = key.n;
  if (family_of(p).has_channels()) {
    p.channels = key.channels;
    p.active_channels = key.active_channels;
  }
  if (family_of(p).has_rows()) p.rows = key.channels;  // the key's channels column holds them
  // Weighted: the weights' type and the rows or channels (weighted::key_columns).
  if (family_of(p).has_weights()) weighted::set_key_columns(p, key.channels, key.active_channels);
  if (p.binning == Binning::even) {
    p.lower = lower.value_or(0);
    p.upper = upper.value_or(p.num_bins);
    bounds_from_doubles(p);
  } else if (p.binning == Binning::range) {
    set_default_level_span(p);
  }
  if (family_of(p).has_dims()) {  // the key's channels column holds the dimensions
    p.channels = key.channels;
    split_joint_bins(p);
    set_joint_bounds(p, lower || upper);
  }
  return p;
}

}  // namespace histtune::tuner
