#include "histtune/problem.hpp"

#include <cmath>
#include <sstream>

namespace histtune {

const char* to_string(SampleType t) {
  switch (t) {
    case SampleType::u8: return "u8";
    case SampleType::u16: return "u16";
    case SampleType::u32: return "u32";
    case SampleType::i32: return "i32";
    case SampleType::f32: return "f32";
  }
  return "?";
}

const char* to_string(Binning b) { return b == Binning::direct ? "direct" : "even"; }

std::optional<SampleType> parse_sample_type(const std::string& s) {
  for (SampleType t : {SampleType::u8, SampleType::u16, SampleType::u32, SampleType::i32,
                       SampleType::f32})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

std::optional<Binning> parse_binning(const std::string& s) {
  if (s == "direct") return Binning::direct;
  if (s == "even") return Binning::even;
  return std::nullopt;
}

std::size_t sample_bytes(SampleType t) {
  switch (t) {
    case SampleType::u8: return 1;
    case SampleType::u16: return 2;
    default: return 4;
  }
}

bool is_float(SampleType t) { return t == SampleType::f32; }

db::ProblemRow Problem::key() const {
  db::ProblemRow row{family, to_string(sample_type), to_string(binning), num_bins, n};
  // 1D problems keep the database's defaults (1 channel, 0 = not a multi-channel problem), so
  // their keys are those written before channels existed.
  if (family == "multichannel") {
    row.channels = channels;
    row.active_channels = active_channels;
  }
  return row;
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
  s << family << ' ' << to_string(sample_type) << ' ' << to_string(binning)
    << " bins=" << num_bins << " n=" << size_text(n);
  if (family == "multichannel") s << " channels=" << active_channels << "/" << channels;
  if (binning == Binning::even) s << " [" << lower << ", " << upper << ")";
  return s.str();
}

bool every_value_a_bin(const Problem& p) {
  if (p.binning != Binning::direct) return false;
  if (p.sample_type == SampleType::u8) return p.num_bins >= 256;
  if (p.sample_type == SampleType::u16) return p.num_bins >= 65536;
  return false;
}

std::vector<std::string> sample_defines(const Problem& p) {
  static const char* type_names[] = {"unsigned char", "unsigned short", "unsigned int", "int",
                                     "float"};
  return {std::string("-DHT_SAMPLE_T=") + type_names[static_cast<int>(p.sample_type)],
          "-DHT_BINNING=" + std::to_string(p.binning == Binning::direct ? 0 : 1),
          "-DHT_SAMPLE_IS_FLOAT=" + std::to_string(is_float(p.sample_type) ? 1 : 0),
          "-DHT_EVERY_VALUE_A_BIN=" + std::to_string(every_value_a_bin(p) ? 1 : 0)};
}

std::string validate(const Problem& p) {
  if (p.num_bins == 0) return "num_bins must be at least 1";
  if (p.family == "multichannel") {
    if (p.channels < 1 || p.channels > 4096) return "channels must be 1 .. 4096";
    if (p.active_channels < 1 || p.active_channels > p.channels)
      return "active_channels must be 1 .. channels";
    if (static_cast<double>(p.num_bins) * p.active_channels > 4294967295.0)
      return "num_bins x active_channels counters exceed 2^32";
  } else if (p.channels != 1 || p.active_channels != 1) {
    return "channels apply to the multichannel family only";
  }
  if (p.n > kMaxSamples)
    return "n = " + std::to_string(p.n) +
           " exceeds 2^32 - 1, the most samples uint32 counters can count without overflow";
  if (p.binning == Binning::direct && is_float(p.sample_type))
    return "direct binning needs integer samples; use even binning for f32";
  if (p.binning == Binning::even) {
    if (!(p.lower < p.upper)) return "even binning needs lower < upper";
    if (!is_float(p.sample_type) &&
        (std::floor(p.lower) != p.lower || std::floor(p.upper) != p.upper))
      return "even binning of integer samples needs integral bounds";
    if (!is_float(p.sample_type) && p.upper - p.lower > 4294967296.0)
      return "even binning of integer samples needs upper - lower <= 2^32";
  }
  return {};
}

}  // namespace histtune
