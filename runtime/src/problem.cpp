#include "histtune/problem.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "histtune/db/database.hpp"
#include "histtune/family.hpp"
#include "histtune/weighted.hpp"

namespace histtune {

const char* to_string(Family f) {
  for (const KernelFamily* k : families())
    if (k->id() == f) return k->name();
  return "?";
}

std::optional<Family> parse_family(const std::string& s) {
  for (const KernelFamily* f : families())
    if (s == f->name()) return f->id();
  return std::nullopt;
}

Problem flat_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t n,
                     double lower, double upper) {
  Problem p;
  p.sample_type = t;
  p.binning = b;
  p.num_bins = num_bins;
  p.n = n;
  p.lower = lower;
  p.upper = upper;
  bounds_from_doubles(p);
  return p;
}

void bounds_from_doubles(Problem& p) {
  if (!is_int64(p.sample_type)) return;
  // Saturating: 2^63 (the nearest double to i64's largest value) is that value; a NaN, a
  // fraction or a bound beyond the type is validate()'s to report.
  const bool u = p.sample_type == SampleType::u64;
  auto bits = [u](double v) -> std::uint64_t {
    if (!(v == v)) return 0;
    if (u) return v <= 0 ? 0 : v >= 0x1p64 ? ~0ull : static_cast<std::uint64_t>(v);
    using L = std::numeric_limits<std::int64_t>;
    const std::int64_t i = v <= -0x1p63 ? L::min() : v >= 0x1p63 ? L::max() : static_cast<std::int64_t>(v);
    return static_cast<std::uint64_t>(i);
  };
  p.lower_bits = bits(p.lower);
  p.upper_bits = bits(p.upper);
}

void set_even_bounds(Problem& p, std::int64_t lower, std::int64_t upper) {
  p.lower_bits = static_cast<std::uint64_t>(lower);
  p.upper_bits = static_cast<std::uint64_t>(upper);
  p.lower = static_cast<double>(lower);
  p.upper = static_cast<double>(upper);
}

void set_even_bounds(Problem& p, std::uint64_t lower, std::uint64_t upper) {
  p.lower_bits = lower;
  p.upper_bits = upper;
  p.lower = static_cast<double>(lower);
  p.upper = static_cast<double>(upper);
}

std::uint64_t even_range64(const Problem& p) {
  const bool above = p.sample_type == SampleType::u64
                         ? p.upper_bits > p.lower_bits
                         : static_cast<std::int64_t>(p.upper_bits) > static_cast<std::int64_t>(p.lower_bits);
  return above ? p.upper_bits - p.lower_bits : 0;  // modulo 2^64: exact below 2^64
}

Problem multichannel_problem(SampleType t, std::uint32_t channels, std::uint32_t active,
                             std::uint64_t rows, std::uint32_t num_bins, Binning b) {
  Problem p = flat_problem(t, b, num_bins, rows);
  p.family = Family::multichannel;
  p.channels = channels;
  p.active_channels = active;
  return p;
}

Problem batched_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t rows,
                        std::uint64_t n, std::uint64_t row_stride) {
  Problem p = flat_problem(t, b, num_bins, n);
  p.family = Family::batched;
  p.rows = rows;
  p.row_stride = row_stride;
  return p;
}

Problem segmented_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t rows,
                          std::uint64_t n) {
  Problem p = flat_problem(t, b, num_bins, n);
  p.family = Family::segmented;
  p.rows = rows;
  return p;
}

Problem weighted_problem(SampleType t, WeightType w, Binning b, std::uint32_t num_bins,
                         std::uint64_t n, bool deterministic, double lower, double upper) {
  Problem p = flat_problem(t, b, num_bins, n, lower, upper);
  p.family = deterministic ? Family::weighted_det : Family::weighted;
  p.weight_type = w;
  return p;
}

std::size_t bin_bytes(const Problem& p) {
  return p.weight_type == WeightType::none || p.weight_type == WeightType::f32 ? 4 : 8;
}

const char* to_string(WeightType w) {
  switch (w) {
    case WeightType::none: return "none";
    case WeightType::f32: return "f32";
    case WeightType::f64: return "f64";
    case WeightType::i32: return "i32";
    case WeightType::i64: return "i64";
  }
  return "?";
}

std::optional<WeightType> parse_weight_type(const std::string& s) {
  for (WeightType w : {WeightType::f32, WeightType::f64, WeightType::i32, WeightType::i64})
    if (s == to_string(w)) return w;
  return std::nullopt;
}

std::size_t weight_bytes(WeightType w) {
  switch (w) {
    case WeightType::none: return 0;
    case WeightType::f32:
    case WeightType::i32: return 4;
    default: return 8;
  }
}

std::uint64_t Problem::total_samples() const {
  if (reads_offsets(*this)) return n;
  return n * channels * rows;
}

std::uint64_t Problem::weight_count() const {
  if (weight_type == WeightType::none || channels == 0) return 0;
  return total_samples() / channels;
}

std::uint64_t Problem::input_bytes() const {
  return total_samples() * sample_bytes(sample_type) + weight_count() * weight_bytes(weight_type);
}

Problem as_one_stream(const Problem& p) {
  Problem flat = p;
  flat.family = Family::hist1d;
  flat.n = p.total_samples();
  flat.channels = flat.active_channels = 1;
  flat.row_pixels = flat.row_pitch_bytes = 0;
  flat.rows = 1;
  flat.row_stride = 0;
  flat.d_offsets = nullptr;
  flat.segments = false;
  flat.weight_type = WeightType::none;
  flat.d_weights = nullptr;
  flat.weight_bound = 0;
  // A joint problem's tuples as one stream of dimension 0's binning (the tuner draws every
  // dimension over its span).
  if (family_of(p).has_dims()) {
    flat.num_bins = p.joint.bins[0];
    flat.joint = JointBins{};
  }
  return flat;
}

const char* to_string(SampleType t) {
  switch (t) {
    case SampleType::u8: return "u8";
    case SampleType::u16: return "u16";
    case SampleType::u32: return "u32";
    case SampleType::i32: return "i32";
    case SampleType::f32: return "f32";
    case SampleType::i8: return "i8";
    case SampleType::i16: return "i16";
    case SampleType::f16: return "f16";
    case SampleType::bf16: return "bf16";
    case SampleType::i64: return "i64";
    case SampleType::u64: return "u64";
    case SampleType::f64: return "f64";
  }
  return "?";
}

const char* to_string(Binning b) {
  switch (b) {
    case Binning::direct: return "direct";
    case Binning::even: return "even";
    case Binning::range: return "range";
  }
  return "?";
}

std::optional<SampleType> parse_sample_type(const std::string& s) {
  for (SampleType t : kSampleTypes)
    if (s == to_string(t)) return t;
  return std::nullopt;
}

std::optional<Binning> parse_binning(const std::string& s) {
  if (s == "direct") return Binning::direct;
  if (s == "even") return Binning::even;
  if (s == "range") return Binning::range;
  return std::nullopt;
}

std::size_t sample_bytes(SampleType t) {
  switch (t) {
    case SampleType::u8:
    case SampleType::i8: return 1;
    case SampleType::u16:
    case SampleType::i16:
    case SampleType::f16:
    case SampleType::bf16: return 2;
    case SampleType::i64:
    case SampleType::u64:
    case SampleType::f64: return 8;
    default: return 4;
  }
}

bool is_float(SampleType t) {
  return t == SampleType::f32 || t == SampleType::f64 || is_half(t);
}

bool is_int64(SampleType t) { return t == SampleType::i64 || t == SampleType::u64; }

bool is_half(SampleType t) { return t == SampleType::f16 || t == SampleType::bf16; }

std::uint32_t distinct_values(SampleType t) {
  switch (t) {
    case SampleType::u8:
    case SampleType::i8: return 256;
    case SampleType::u16:
    case SampleType::i16: return 65536;
    // Non-NaN patterns: both signs of 31 exponents x 1024 mantissas and infinity, +-0 one value.
    case SampleType::f16: return 2 * (31 * 1024 + 1) - 1;
    // Both signs of 255 exponents x 128 mantissas and infinity, +-0 one value.
    case SampleType::bf16: return 2 * (255 * 128 + 1) - 1;
    default: return 0;
  }
}

db::ProblemRow Problem::key() const {
  db::ProblemRow row{to_string(family), to_string(sample_type), to_string(binning), num_bins, n};
  // 1D problems keep the database's defaults (1 channel, 0 = not a multi-channel problem), so
  // their keys are those written before channels existed.
  if (family_of(*this).has_channels()) {
    row.channels = channels;
    row.active_channels = active_channels;
  }
  // Problems of rows keep their row count in the channels column (validate_rows(): < 2^32) and
  // active_channels 0, so that a nearer shape is one of the same rows and another length.
  if (family_of(*this).has_rows()) row.channels = static_cast<std::uint32_t>(rows);
  // Weighted problems keep their weights' type code (1 .. 4) in the channels column, so that a
  // nearer shape is one of the same weights, and their rows or channels beside it (weighted.hpp).
  if (family_of(*this).has_weights()) {
    const KeyColumns k = weighted::key_columns(*this);
    row.channels = k.channels;
    row.active_channels = k.active_channels;
  }
  // Joint problems keep their dimensions there, so that a nearer shape has as many.
  if (family_of(*this).has_dims()) row.channels = channels;
  return row;
}

std::uint64_t Problem::row_bytes() const { return row_pixels * channels * sample_bytes(sample_type); }

std::uint64_t Problem::image_rows() const {
  if (row_pixels == 0) return n > 0 ? 1 : 0;
  return n / row_pixels;
}

bool Problem::pitched() const {
  return row_pixels != 0 && row_pitch_bytes != 0 && row_pitch_bytes != row_bytes();
}

namespace {
std::string size_text(std::uint64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int e = 0;
    while ((1ull << e) != n) ++e;
    return "2^" + std::to_string(e);
  }
  return std::to_string(n);
}
}  // namespace

std::string Problem::describe() const {
  std::ostringstream s;
  s << to_string(family) << ' ' << to_string(sample_type) << ' ' << to_string(binning)
    << " bins=" << num_bins << " n=" << size_text(n);
  if (family_of(*this).has_channels()) s << " channels=" << active_channels << "/" << channels;
  if (family_of(*this).has_rows()) {
    s << " rows=" << rows;
    if (row_stride != 0) s << " row_stride=" << row_stride;
  }
  if (family_of(*this).has_weights()) s << " weights=" << to_string(weight_type)
                                         << weighted::shape_text(*this);
  if (family_of(*this).has_dims()) {
    s << " dims=" << channels << " (";
    for (std::uint32_t d = 0; d < channels && d < kMaxJointDims; ++d) s << (d ? "x" : "") << joint.bins[d];
    s << ")";
  }
  if (row_pixels != 0) {
    s << " image=" << image_rows() << "x" << row_pixels;
    if (row_pitch_bytes != 0) s << " pitch=" << row_pitch_bytes << "B";
  }
  if (family_of(*this).has_dims()) return s.str();  // each dimension has its own bounds
  if (binning == Binning::even && is_int64(sample_type)) {
    // Exactly: a double's six digits would print two different bounds alike.
    if (sample_type == SampleType::u64)
      s << " [" << lower_bits << ", " << upper_bits << ")";
    else
      s << " [" << static_cast<std::int64_t>(lower_bits) << ", "
        << static_cast<std::int64_t>(upper_bits) << ")";
  } else if (binning == Binning::even) {
    s << " [" << lower << ", " << upper << ")";
  }
  return s.str();
}

bool every_value_a_bin(const Problem& p) {
  if (p.binning != Binning::direct) return false;
  if (p.sample_type == SampleType::u8) return p.num_bins >= 256;
  if (p.sample_type == SampleType::u16) return p.num_bins >= 65536;
  return false;
}

int range_mode(const Problem& p) {
  if (p.family == Family::joint) return 0;  // one search per dimension, in global memory
  if (sample_bytes(p.sample_type) == 1) return 2;  // u8 and i8
  const std::size_t bytes = (static_cast<std::size_t>(p.num_bins) + 1) * sample_bytes(p.sample_type);
  if (bytes <= kRangeStageMaxBytes) return 1;
  return p.num_bins >= kRangeIndexFromBins ? 3 : 0;
}

namespace {
// Mode 3's index entries: one a window of 2^shift levels (the last window may hold fewer).
std::uint64_t index_windows(const Problem& p, int shift) {
  return (std::uint64_t{p.num_bins} + (1ull << shift) - 1) >> shift;
}
}  // namespace

int range_index_shift(const Problem& p) {
  const std::uint64_t most = kRangeIndexMaxBytes / sample_bytes(p.sample_type);
  int shift = 0;
  while (index_windows(p, shift) > most) ++shift;
  return shift;
}

std::size_t range_smem_bytes(const Problem& p) {
  if (p.binning != Binning::range) return 0;
  const int mode = range_mode(p);
  if (mode == 2) return 256;  // one byte per byte value
  if (mode == 0) return 0;
  const std::size_t sb = sample_bytes(p.sample_type);
  const std::size_t levels = mode == 1 ? std::size_t{p.num_bins} + 1
                                       : index_windows(p, range_index_shift(p));
  // 8-byte levels start on an 8-byte boundary after the counters' words (ht_range_setup).
  return (levels * sb + 3) / 4 * 4 + (sb == 8 ? 4 : 0);
}

namespace {
// Whether every value v of a sample type of at most 4 bytes has v - lower in
// [range - 2^32, 2^32): then (v - lower) mod 2^32 < range exactly when v is in [lower, upper),
// so the kernel takes the offset in 32-bit arithmetic. Fails only for bounds far outside the
// type's values (where hardly a sample counts).
bool offsets_fit_32_bits(const Problem& p, double range) {
  const bool is_signed = p.sample_type == SampleType::i8 || p.sample_type == SampleType::i16 ||
                         p.sample_type == SampleType::i32;
  const double span = std::ldexp(1.0, 8 * static_cast<int>(sample_bytes(p.sample_type)));
  const double lowest = is_signed ? -span / 2 : 0, highest = lowest + span - 1;
  const double wrap = 4294967296.0;
  return highest - p.lower < wrap && lowest - p.lower >= range - wrap;
}
}  // namespace

int even_narrow(const Problem& p) {
  if (p.family == Family::joint) {
    // One mode for every dimension: 2 serves wherever 1 does; 0 (64-bit) wherever either does.
    int mode = 0;
    for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
      const int m = even_narrow(joint_dim(p, d));
      if (m == 0) return 0;
      mode = m > mode ? m : mode;
    }
    return mode;
  }
  if (p.binning != Binning::even || is_float(p.sample_type)) return 0;
  // Integral for integer samples (validate()); i64 and u64 from their exact bounds.
  const double r = is_int64(p.sample_type) ? static_cast<double>(even_range64(p)) : p.upper - p.lower;
  if (!(r >= 2 && r < 4294967296.0)) return 0;  // m below fits 32 bits from range 2 on
  const std::uint64_t range = is_int64(p.sample_type) ? even_range64(p) : static_cast<std::uint64_t>(r);
  const std::uint64_t bins = p.num_bins;
  const std::uint64_t top = (range - 1) * bins;  // the largest d * num_bins
  if (top >= (1ull << 32)) return 0;
  if (!is_int64(p.sample_type) && !offsets_fit_32_bits(p, r)) return 0;
  // m exactly as the kernel forms it from recip_i (kernel_args.cpp): ceil(2^32 / range).
  const std::uint64_t m = ((~0ull / range) >> 32) + 1;
  const std::uint64_t excess = m * range - (1ull << 32);  // < range
  // x * m / 2^32 = x / range + x * excess / (range * 2^32): the floor is x / range's while the
  // error, below 1 / range, cannot carry a fraction of at most (range - 1) / range past 1. Else
  // the 64-bit reciprocal's multiply (ht_div_narrow), exact for every x < 2^32.
  return top * excess < (1ull << 32) ? 1 : 2;
}

std::vector<std::string> sample_defines(const Problem& p) {
  // Halfs are their 16-bit patterns (NVRTC has no cuda_fp16.h here); HT_SAMPLE_HALF converts.
  static const char* type_names[] = {"unsigned char", "unsigned short",     "unsigned int",
                                     "int",           "float",              "signed char",
                                     "short",         "unsigned short",     "unsigned short",
                                     "long long",     "unsigned long long", "double"};
  std::vector<std::string> out = {
      std::string("-DHT_SAMPLE_T=") + type_names[static_cast<int>(p.sample_type)],
      "-DHT_BINNING=" + std::to_string(static_cast<int>(p.binning)),
      "-DHT_SAMPLE_IS_FLOAT=" + std::to_string(is_float(p.sample_type) ? 1 : 0),
      "-DHT_EVERY_VALUE_A_BIN=" + std::to_string(every_value_a_bin(p) ? 1 : 0)};
  // Only range problems get the define: the other binnings' compile requests stay as they were.
  if (p.binning == Binning::range) out.push_back("-DHT_RANGE_MODE=" + std::to_string(range_mode(p)));
  if (p.binning == Binning::range && range_mode(p) == 3)
    out.push_back("-DHT_RANGE_INDEX_BYTES=" + std::to_string(kRangeIndexMaxBytes));
  if (const int mode = even_narrow(p)) out.push_back("-DHT_EVEN_NARROW=" + std::to_string(mode));
  // Only half samples get the define: the other types' compile requests stay as they were.
  if (is_half(p.sample_type))
    out.push_back(std::string("-DHT_SAMPLE_HALF=") + (p.sample_type == SampleType::f16 ? "1" : "2"));
  return out;
}

// After n's checks: n < 2^32, so the products below cannot overflow.
std::string validate_pitch(const Problem& p) {
  if (p.row_pixels == 0 && p.row_pitch_bytes == 0) return {};
  if (p.row_pixels == 0) {
    if (p.n == 0) return {};  // an empty image: nothing is read
    return "row_pitch_bytes = " + std::to_string(p.row_pitch_bytes) +
           " needs row_pixels, the rows of an image row (0: one packed image row)";
  }
  if (p.n % p.row_pixels != 0)
    return "n = " + std::to_string(p.n) + " is not a whole number of image rows of row_pixels = " +
           std::to_string(p.row_pixels);
  if (p.row_pitch_bytes == 0) return {};
  const std::size_t sb = sample_bytes(p.sample_type);
  if (p.row_pitch_bytes % sb != 0)
    return "row_pitch_bytes = " + std::to_string(p.row_pitch_bytes) + " is not a multiple of the " +
           std::to_string(sb) + "-byte " + to_string(p.sample_type) + " samples";
  if (p.row_pitch_bytes < p.row_bytes())
    return "row_pitch_bytes = " + std::to_string(p.row_pitch_bytes) +
           " is less than an image row's " + std::to_string(p.row_bytes()) +
           " bytes (row_pixels " + std::to_string(p.row_pixels) + " x channels " +
           std::to_string(p.channels) + " x " + std::to_string(sb) + " bytes): rows would overlap";
  // The last image row's end must be an offset a pointer can hold.
  const std::uint64_t rows = p.image_rows();
  if (rows > 1 && p.row_pitch_bytes > (0x7FFFFFFFFFFFFFFFull - p.row_bytes()) / (rows - 1))
    return "row_pitch_bytes = " + std::to_string(p.row_pitch_bytes) + " x " +
           std::to_string(rows - 1) + " image rows overflows a 63-bit byte offset";
  return {};
}

std::string validate_rows(const Problem& p) {
  if (p.channels != 1 || p.active_channels != 1)
    return std::string(to_string(p.family)) + " problems have one channel";
  if (p.row_pixels != 0 || p.row_pitch_bytes != 0)
    return std::string(to_string(p.family)) + " problems take row_stride, not a row pitch";
  if (p.rows > 0xFFFFFFFFull) return "rows = " + std::to_string(p.rows) + " exceeds 2^32 - 1";
  const bool segmented = reads_offsets(p);
  if (!segmented && p.rows == 0 && p.n > 0)
    return "rows = 0 with n = " + std::to_string(p.n) + " samples per row (no row to count them in)";
  if (std::uint64_t{p.num_bins} * p.rows > (std::uint64_t{1} << 62) / sizeof(std::uint32_t))
    return "rows x num_bins counters overflow a 64-bit byte offset";
  if (segmented) {
    if (p.row_stride != 0) return "segmented problems take offsets, not a row_stride";
    return {};
  }
  if (p.row_stride != 0 && p.row_stride < p.n)
    return "row_stride = " + std::to_string(p.row_stride) + " is less than n = " +
           std::to_string(p.n) + " samples per row: rows would overlap";
  // The last row's end must be an offset in bytes a pointer can hold.
  const std::uint64_t stride = p.row_stride != 0 ? p.row_stride : p.n;
  const std::uint64_t limit = 0x7FFFFFFFFFFFFFFFull / sample_bytes(p.sample_type);
  if (p.rows > 1 && stride > (limit - p.n) / (p.rows - 1))
    return "row_stride = " + std::to_string(stride) + " x " + std::to_string(p.rows - 1) +
           " rows overflows a 63-bit byte offset";
  return {};
}

ShapeKey shape_key(const Problem& p) {
  return {p.family,   p.sample_type,     p.binning,   p.num_bins,     p.n,
          p.channels, p.active_channels, p.pitched(), even_narrow(p), p.rows, p.weight_type,
          p.segments};
}

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// f64: the kernel bins in double, (s - lower) * (num_bins / (upper - lower)).
std::string validate_double_bounds(const Problem& p, const std::string& got) {
  const double range = p.upper - p.lower;
  if (!std::isfinite(range)) return "upper - lower overflows double" + got;
  if (!std::isfinite(p.num_bins / range))
    return "num_bins / (upper - lower) overflows double: the range is too narrow for the bins" + got;
  return {};
}

// i64 and u64: the exact bounds (lower_bits, upper_bits) are the bounds; lower and upper must be
// their nearest doubles, so that a caller who set only the doubles is told rather than binned
// by stale bits. Any range up to 2^64 - 1 is exact (hist1d's 128-bit products).
std::string validate_int64_bounds(const Problem& p) {
  const bool u = p.sample_type == SampleType::u64;
  const std::string t = to_string(p.sample_type);
  const std::string lo = u ? std::to_string(p.lower_bits)
                           : std::to_string(static_cast<std::int64_t>(p.lower_bits));
  const std::string hi = u ? std::to_string(p.upper_bits)
                           : std::to_string(static_cast<std::int64_t>(p.upper_bits));
  if (std::floor(p.lower) != p.lower || std::floor(p.upper) != p.upper)
    return "even binning of integer samples needs integral bounds, got lower = " + num(p.lower) +
           ", upper = " + num(p.upper);
  const double min = u ? 0.0 : -0x1p63, max = u ? 0x1p64 : 0x1p63;
  if (p.lower < min || p.lower > max || p.upper < min || p.upper > max)
    return "even binning of " + t + " samples needs bounds within " + t + "'s values, got lower = " +
           num(p.lower) + ", upper = " + num(p.upper);
  auto value = [u](std::uint64_t b) {
    return u ? static_cast<double>(b) : static_cast<double>(static_cast<std::int64_t>(b));
  };
  if (value(p.lower_bits) != p.lower || value(p.upper_bits) != p.upper)
    return "the exact " + t + " bounds [" + lo + ", " + hi + ") are not lower = " + num(p.lower) +
           ", upper = " + num(p.upper) + " (set_even_bounds sets both)";
  if (even_range64(p) == 0) return "even binning needs lower < upper, got [" + lo + ", " + hi + ")";
  return {};
}

// Even binning's bounds: numbers, finite, ascending, and held by what the kernels compute in.
std::string validate_even_bounds(const Problem& p) {
  const std::string got = ", got lower = " + num(p.lower) + ", upper = " + num(p.upper);
  // Before the order, whose "lower < upper" would be a puzzling answer for a NaN.
  if (std::isnan(p.lower) || std::isnan(p.upper))
    return "even binning needs bounds that are numbers" + got;
  if (!std::isfinite(p.lower) || !std::isfinite(p.upper))
    return "even binning needs finite bounds" + got;
  if (is_int64(p.sample_type)) return validate_int64_bounds(p);
  if (!(p.lower < p.upper)) return "even binning needs lower < upper" + got;
  if (p.sample_type == SampleType::f64) return validate_double_bounds(p, got);
  if (is_float(p.sample_type)) {
    // The kernel bins in float: the bounds, their range and the scale must all be floats.
    if (std::fabs(p.lower) > FLT_MAX || std::fabs(p.upper) > FLT_MAX)
      return std::string("even binning of ") + to_string(p.sample_type) +
             " samples needs bounds within a float's +-3.4e38" + got;
    const float lower_f = static_cast<float>(p.lower), upper_f = static_cast<float>(p.upper);
    if (!(lower_f < upper_f))
      return "even binning needs lower < upper as floats: " + num(p.lower) + " and " +
             num(p.upper) + " round to the same float";
    const float range_f = upper_f - lower_f;
    if (!std::isfinite(range_f))
      return "upper - lower = " + num(p.upper - p.lower) + " overflows float";
    if (!std::isfinite(static_cast<float>(p.num_bins) / range_f))
      return "num_bins / (upper - lower) = " + num(p.num_bins / (p.upper - p.lower)) +
             " overflows float: the range is too narrow for the bins";
    return {};
  }
  if (std::floor(p.lower) != p.lower || std::floor(p.upper) != p.upper)
    return "even binning of integer samples needs integral bounds";
  if (p.upper - p.lower > 4294967296.0)
    return "even binning of integer samples needs upper - lower <= 2^32";
  constexpr double kExact = 9007199254740992.0;  // 2^53: integers a double holds exactly
  if (std::fabs(p.lower) > kExact || std::fabs(p.upper) > kExact)
    return "even binning of integer samples needs bounds within +-2^53" + got;
  return {};
}

}  // namespace

std::string validate(const Problem& p) {
  // A joint problem's family names the dimension without bins.
  if (p.num_bins == 0 && !family_of(p).has_dims()) return "num_bins must be at least 1";
  if (p.n > kMaxSamples)
    return "n = " + std::to_string(p.n) +
           " exceeds 2^32 - 1, the most samples uint32 counters can count without overflow" +
           (family_of(p).has_weights() ? "" : " (the calls with uint64_t* d_counts take more)");
  if (std::string why = family_of(p).validate(p); !why.empty()) return why;
  if (!family_of(p).has_weights() && (p.weight_type != WeightType::none || p.segments))
    return std::string(to_string(p.family)) +
           " problems take no weights (the weighted families do), nor weighted segments";
  // The joint family checked each dimension's binning as a 1D problem's (joint_dim).
  if (family_of(p).has_dims()) return {};
  if (p.binning == Binning::direct && is_float(p.sample_type))
    return std::string("direct binning needs integer samples; use even binning for ") +
           to_string(p.sample_type);
  if (p.binning == Binning::range) {
    // num_bins + 1 strictly ascending levels must exist in the sample's type.
    const std::uint32_t values = distinct_values(p.sample_type);
    if (values != 0 && p.num_bins > values - 1) {
      const std::string t = to_string(p.sample_type);
      return "range binning of " + t + " samples has at most " + std::to_string(values - 1) +
             " bins (" + std::to_string(values) + " distinct " + t + " levels), got " +
             std::to_string(p.num_bins);
    }
    // Mode 3's window search moves a bin by up to 2^shift - 1 in 32-bit arithmetic.
    const std::uint64_t window = std::uint64_t{1} << range_index_shift(p);
    if (range_mode(p) == 3 && p.num_bins + window > 0xFFFFFFFFull)
      return std::string("range binning of ") + to_string(p.sample_type) + " samples has at most " +
             std::to_string(0xFFFFFFFFull - window) + " bins (its search's 32-bit windows), got " +
             std::to_string(p.num_bins);
  }
  if (p.binning == Binning::even) return validate_even_bounds(p);
  return {};
}

}  // namespace histtune
