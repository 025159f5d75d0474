#include "common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/weighted.hpp"

namespace histtune::cli {

DeviceInfo select_device(const Common& c) {
  if (c.gpu == "auto") {
    device_count();  // throws "no CUDA device" with the reason
    return query_device(0);
  }
  int index = -1;
  try {
    std::size_t used = 0;
    index = std::stoi(c.gpu, &used);
    if (used != c.gpu.size()) index = -1;
  } catch (const std::exception&) {
  }
  if (index < 0)
    throw Error(StatusCode::invalid_argument,
                "--gpu must be 'auto' or a device index (0, 1, ...), not '" + c.gpu + "'");
  DeviceInfo d = query_device(index);  // throws "no CUDA device N: this machine has ..."
  // Without it every allocation and launch would go to device 0 while the results were stored
  // under device N's UUID.
  if (current_device() != d.ordinal) make_current(d);
  return d;
}

void make_current(const DeviceInfo& d) { HT_CUDA(cudaSetDevice(d.ordinal)); }

std::string resolve_db_path(const Common& c) {
  return c.db_path.empty() ? db::Database::default_path() : c.db_path;
}

namespace {
// What SQLite would report vaguely ("disk I/O error", "unable to open database file"), said
// plainly before it is asked.
void check_db_path(const std::string& path, bool must_exist) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) {
    if (must_exist)
      throw Error(StatusCode::database_error,
                  "no database at " + path + " (`histtune tune` or `histtune import` creates it; "
                  "--db or $HISTTUNE_DB choose another)");
    return;
  }
  if (std::filesystem::is_directory(st))
    throw Error(StatusCode::database_error, "database " + path + " is a folder, not a file");
  if (::access(path.c_str(), R_OK) != 0)
    throw Error(StatusCode::database_error,
                "cannot read database " + path + ": " + std::strerror(errno));
}
}  // namespace

std::unique_ptr<db::Database> open_db(const Common& c, bool must_exist) {
  const std::string path = resolve_db_path(c);
  check_db_path(path, must_exist);
  return std::make_unique<db::Database>(path);
}

std::unique_ptr<db::Database> open_db_read_only(const Common& c) {
  const std::string path = resolve_db_path(c);
  check_db_path(path, /*must_exist=*/true);
  return std::make_unique<db::Database>(path, db::Database::OpenMode::kReadOnly);
}

namespace {
// The direct bins a sample can reach: one per non-negative value (u8 256, u16 65536, i8 128, i16
// 32768); 0 where every bin count up to 2^32 - 1 is reachable.
std::uint64_t reachable_direct_bins(SampleType t) {
  switch (t) {
    case SampleType::u8: return 256;
    case SampleType::u16: return 65536;
    case SampleType::i8: return 128;
    case SampleType::i16: return 32768;
    default: return 0;
  }
}

// A weighted problem of rows or segments.
bool weighted_rows(const Problem& p) {
  return family_of(p).has_weights() && weighted::histograms(p) != 1;
}

// The shape after a weighted spec's '@': "bat4096" (dense rows), "seg100000" (segments) or
// "mc3/4" (pixels of channels); false when it is none of them.
bool weighted_shape_of_spec(Problem& p, const std::string& s) {
  auto count = [](const std::string& t, std::uint64_t max, std::uint64_t& out) {
    if (t.empty() || t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out = std::stoull(t);
    return out <= max;
  };
  std::uint64_t a = 0, c = 0;
  if (s.rfind("bat", 0) == 0 || s.rfind("seg", 0) == 0) {
    if (!count(s.substr(3), 0xFFFFFFFFull, a)) return false;
    p.rows = a;
    p.segments = s[0] == 's';
    return true;
  }
  const std::size_t slash = s.find('/');
  if (s.rfind("mc", 0) != 0 || slash == std::string::npos) return false;
  if (!count(s.substr(2, slash - 2), 4096, a) || !count(s.substr(slash + 1), 4096, c)) return false;
  p.active_channels = static_cast<std::uint32_t>(a);
  p.channels = static_cast<std::uint32_t>(c);
  return true;
}

// What the runtime accepts but a --problem names by mistake: nothing to count, bins that no
// sample value can reach, bounds that direct binning ignores.
std::string rejected_by_cli(const Problem& p, bool bounds_given) {
  if (p.n == 0)
    return family_of(p).has_channels() ? "ROWS = 0: nothing to count (at least 1)"
                                       : "N = 0: nothing to count (at least 1)";
  if ((family_of(p).has_rows() || weighted_rows(p)) && p.rows == 0)
    return "ROWS = 0: nothing to count (at least 1)";
  if (p.binning != Binning::direct) return {};
  if (bounds_given)
    return "direct binning takes no LOWER:UPPER (each sample value is its own bin); use even "
           "or range binning for bounds";
  const std::uint64_t values = reachable_direct_bins(p.sample_type);
  const bool is_signed = p.sample_type == SampleType::i8 || p.sample_type == SampleType::i16;
  if (values != 0 && p.num_bins > values)
    return "direct binning of " + std::string(to_string(p.sample_type)) + " samples has at most " +
           std::to_string(values) + " bins (one per " + (is_signed ? "non-negative " : "") +
           "value), not " + std::to_string(p.num_bins);
  return {};
}

// i64 and u64 even bounds written as decimal integers: exactly (a double rounds beyond 2^53);
// anything else (2^K, products, a fraction) as the double already parsed.
void exact_bounds(Problem& p, const std::string& lower, const std::string& upper) {
  bounds_from_doubles(p);
  if (!is_int64(p.sample_type)) return;
  auto integer = [](const std::string& s, bool u, std::uint64_t& bits) {
    if (s.empty() || s.find_first_not_of("-0123456789") != std::string::npos ||
        s.find('-', 1) != std::string::npos || (u && s[0] == '-'))
      return false;
    errno = 0;
    char* end = nullptr;
    bits = u ? std::strtoull(s.c_str(), &end, 10)
             : static_cast<std::uint64_t>(std::strtoll(s.c_str(), &end, 10));
    return errno == 0 && *end == '\0';  // out of the type: left to the double and validate()
  };
  const bool u = p.sample_type == SampleType::u64;
  std::uint64_t lo = 0, hi = 0;
  if (!integer(lower, u, lo) || !integer(upper, u, hi)) return;
  if (u)
    set_even_bounds(p, lo, hi);
  else
    set_even_bounds(p, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
}
}  // namespace

// A joint spec's bins: BINSxBINS.. one count per dimension (bins: the product), or the product
// alone, split as a stored key's (split_joint_bins); each dimension over LOWER:UPPER, or [0, its
// bins).
template <class Bad>
void joint_bins_of_spec(Problem& p, const std::string& text, bool bounds_given, Bad bad) {
  if (p.binning != Binning::even) throw bad("joint specs take even bins (the tuner draws no edges)");
  std::vector<std::uint32_t> each;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, 'x');)
    each.push_back(part.empty() || part.size() > 10 || part.find_first_not_of("0123456789") !=
                                                           std::string::npos
                       ? 0
                       : static_cast<std::uint32_t>(std::min(std::stoull(part), 0xFFFFFFFFull)));
  if (each.size() == 1) {
    split_joint_bins(p);
  } else if (each.size() != p.channels) {
    throw bad("joint bins '" + text + "' name " + std::to_string(each.size()) + " dimensions, not " +
              std::to_string(p.channels));
  } else {
    for (std::uint32_t d = 0; d < p.channels; ++d) p.joint.bins[d] = each[d];
  }
  set_joint_bounds(p, bounds_given);
}

namespace {

using BadSpec = std::function<Error(const std::string&)>;

// The fields a family's spec puts before TYPE (mc's channels, bat's and seg's rows, j's
// dimensions, w's weights and shape), read into p and erased from f.
void parse_family_fields(Problem& p, std::vector<std::string>& f, const BadSpec& bad) {
  if (family_of(p).has_channels()) {
    // Rows of channels: "mc:3/4:u8:direct:256:7680x4320" is RGBA rows with 3 channels counted.
    if (f.size() < 2) throw bad("wrong number of fields");
    const std::string& ch = f[1];
    const std::size_t slash = ch.find('/');
    auto count = [&](const std::string& s) -> std::uint32_t {
      if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
        throw bad("bad channels '" + ch + "' (ACTIVE/CHANNELS, e.g. 3/4)");
      return static_cast<std::uint32_t>(std::stoul(s));
    };
    if (slash == std::string::npos) throw bad("bad channels '" + ch + "' (ACTIVE/CHANNELS, e.g. 3/4)");
    p.active_channels = count(ch.substr(0, slash));
    p.channels = count(ch.substr(slash + 1));
    f.erase(f.begin(), f.begin() + 2);
  } else if (family_of(p).has_rows()) {
    // Rows of histograms: "bat:4096:u8:direct:256:65536" is [4096, 65536] u8 samples.
    if (f.size() < 2) throw bad("wrong number of fields");
    const std::string& rows = f[1];
    if (rows.empty() || rows.size() > 10 || rows.find_first_not_of("0123456789") != std::string::npos)
      throw bad("bad row count '" + rows + "'");
    p.rows = std::stoull(rows);
    f.erase(f.begin(), f.begin() + 2);
  } else if (family_of(p).has_dims()) {
    // Joint tuples: "j:2:u8:even:256x256:2^26" is u8 pairs into 256 x 256 bins.
    if (f.size() < 2) throw bad("wrong number of fields");
    const std::string& dims = f[1];
    if (dims.size() != 1 || dims[0] < '1' || dims[0] > '0' + static_cast<int>(kMaxJointDims))
      throw bad("bad dimensions '" + dims + "' (1 to " + std::to_string(kMaxJointDims) + ")");
    p.channels = p.active_channels = static_cast<std::uint32_t>(dims[0] - '0');
    f.erase(f.begin(), f.begin() + 2);
  } else if (family_of(p).has_weights()) {
    // Weighted samples: "w:f32:f32:even:256:2^26" is f32 samples with f32 weights.
    if (f.size() < 2) throw bad("wrong number of fields");
    // "w:f32@bat4096:..." rows, "@seg100000" segments, "@mc3/4" pixels of channels.
    const std::size_t at = f[1].find('@');
    const std::optional<WeightType> w = parse_weight_type(f[1].substr(0, at));
    if (!w) throw bad("unknown weight type '" + f[1].substr(0, at) + "' (f32, f64, i32, i64)");
    p.weight_type = *w;
    if (at != std::string::npos && !weighted_shape_of_spec(p, f[1].substr(at + 1)))
      throw bad("bad weighted shape '" + f[1].substr(at + 1) +
                "' (@batROWS, @segSEGMENTS or @mcACTIVE/CHANNELS)");
    f.erase(f.begin(), f.begin() + 2);
  }
}

// One factor: 2^K or a decimal number.
double spec_factor(const std::string& s, const char* what, const BadSpec& bad) {
  try {
    std::size_t used = 0;
    if (s.rfind("2^", 0) == 0) {
      int e = std::stoi(s.substr(2), &used);
      if (used + 2 != s.size() || e < 0 || e > 40) throw bad(std::string("bad ") + what);
      return static_cast<double>(1ull << e);
    }
    double v = std::stod(s, &used);
    if (used != s.size()) throw bad(std::string("bad ") + what + " '" + s + "'");
    return v;
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
    throw bad(std::string("bad ") + what + " '" + s + "'");
  }
}

// A factor, or a product for image sizes (7680x4320); what follows "2^" is one factor. A loop,
// not recursion: an argument of 10^5 factors (up to 128 KB) overflowed the stack.
double spec_number(const std::string& s, const char* what, const BadSpec& bad) {
  double v = 1;
  std::size_t from = 0;
  for (std::size_t x; s.compare(from, 2, "2^") != 0 &&
                      (x = s.find('x', from)) != std::string::npos && x > from;
       from = x + 1)
    v *= spec_factor(s.substr(from, x - from), what, bad);
  return v * spec_factor(s.substr(from), what, bad);
}

}  // namespace

Problem parse_problem(const std::string& spec) {
  std::vector<std::string> f;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ':');) f.push_back(part);
  auto bad = [&](const std::string& why) {
    return Error(StatusCode::invalid_argument,
                 "--problem '" + spec + "': " + why +
                     " (expected TYPE:BINNING:BINS:N[:LOWER:UPPER], "
                     "mc:ACTIVE/CHANNELS:TYPE:BINNING:BINS:ROWS[:LOWER:UPPER], "
                     "bat:ROWS:TYPE:BINNING:BINS:N[:LOWER:UPPER] (N per row), "
                     "seg:SEGMENTS:TYPE:BINNING:BINS:N[:LOWER:UPPER] (N in all), "
                     "w|wdet:WEIGHTS[@batROWS|@segSEGMENTS|@mcACTIVE/CHANNELS]:TYPE:BINNING:BINS:"
                     "N[:LOWER:UPPER] (weighted, fast or deterministic; WEIGHTS f32, f64, i32, "
                     "i64; N per row, in all, or pixels) or "
                     "j:DIMS:TYPE:even:BINSxBINS..:N[:LOWER:UPPER] (joint, N tuples))");
  };
  Problem p;
  for (const KernelFamily* fam : families())
    if (!f.empty() && *fam->spec_prefix() && f[0] == fam->spec_prefix()) p.family = fam->id();
  parse_family_fields(p, f, bad);
  if (f.size() != 4 && f.size() != 6) throw bad("wrong number of fields");
  auto t = parse_sample_type(f[0]);
  if (!t) throw bad("unknown sample type '" + f[0] + "' (u8, u16, u32, i32, f32, i8, i16, f16, bf16, i64, u64, f64)");
  auto b = parse_binning(f[1]);
  if (!b) throw bad("unknown binning '" + f[1] + "' (direct, even, range)");
  p.sample_type = *t;
  p.binning = *b;
  auto number = [&](const std::string& s, const char* what) { return spec_number(s, what, bad); };
  const double bins = number(f[2], "bin count");
  const double n = number(f[3], family_of(p).has_channels() ? "row count" : "sample count");
  // Negated so that NaN ("nan", "infx0") fails too instead of reaching the casts below.
  if (!(bins >= 0 && bins <= 4294967295.0)) throw bad("bin count out of range");
  if (!(n >= 0 && n <= 1e15)) throw bad("sample count out of range");
  p.num_bins = static_cast<std::uint32_t>(bins);
  p.n = static_cast<std::uint64_t>(n);
  if (f.size() == 6) {
    p.lower = number(f[4], "lower bound");
    p.upper = number(f[5], "upper bound");
    exact_bounds(p, f[4], f[5]);
  } else if (p.binning == Binning::even) {
    p.lower = 0;
    p.upper = p.num_bins;
    bounds_from_doubles(p);
  } else if (p.binning == Binning::range) {
    tuner::set_default_level_span(p);
  }
  if (family_of(p).has_dims()) joint_bins_of_spec(p, f[2], f.size() == 6, bad);
  if (std::string why = rejected_by_cli(p, f.size() == 6); !why.empty()) throw bad(why);
  if (std::string why = validate(p); !why.empty()) throw bad(why);
  // Range problems: LOWER:UPPER is the span of the tuner's levels (tuner::make_levels).
  if (p.binning == Binning::range)
    if (std::string why = tuner::level_span_problem(p); !why.empty()) throw bad(why);
  return p;
}

Problem problem_of(const db::ProblemRow& key) { return tuner::problem_of_key(key); }

namespace {
std::string count_text(std::uint64_t n) {
  if (n != 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::uint64_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

// A weighted key's WEIGHTS[@SHAPE] field.
std::string weighted_spec(const db::ProblemRow& key) {
  Problem q;
  weighted::set_key_columns(q, key.channels, key.active_channels);
  std::string s = to_string(q.weight_type);
  switch (weighted::form(q)) {
    case WeightedForm::rows: return s + "@bat" + std::to_string(q.rows);
    case WeightedForm::segments: return s + "@seg" + std::to_string(q.rows);
    case WeightedForm::channels:
      return s + "@mc" + std::to_string(q.active_channels) + "/" + std::to_string(q.channels);
    case WeightedForm::flat: break;
  }
  return s;
}

}  // namespace

std::string problem_spec(const db::ProblemRow& key) {
  const std::optional<Family> fam = parse_family(key.family);
  const KernelFamily& f = family(fam.value_or(Family::hist1d));
  const std::string prefix =
      f.has_channels() ? std::string(f.spec_prefix()) + ":" + std::to_string(key.active_channels) +
                             "/" + std::to_string(key.channels) + ":"
      : f.has_rows()   ? std::string(f.spec_prefix()) + ":" + std::to_string(key.channels) + ":"
      : f.has_weights() ? std::string(f.spec_prefix()) + ":" + weighted_spec(key) + ":"
      : f.has_dims() ? std::string(f.spec_prefix()) + ":" + std::to_string(key.channels) + ":"
                        : "";
  return prefix + key.sample_type + ":" + key.binning + ":" + std::to_string(key.num_bins) + ":" +
         count_text(key.n);
}

std::string problem_name(const db::ProblemRow& key) {
  std::string s = key.sample_type + " " + key.binning + " bins=" + std::to_string(key.num_bins) +
                  " n=" + count_text(key.n);
  const auto fam = parse_family(key.family);
  if (fam && family(*fam).has_weights())
    s = key.family + " " + s + " weights=" + weighted_spec(key);
  else if (key.active_channels > 0)  // 0: not a problem of channels
    s += " channels=" + std::to_string(key.active_channels) + "/" + std::to_string(key.channels);
  else if (fam && family(*fam).has_rows())
    s = key.family + " " + s + " rows=" + std::to_string(key.channels);  // the channels column
  else if (fam && family(*fam).has_dims())
    s = key.family + " " + s + " dims=" + std::to_string(key.channels);
  return s;
}

std::vector<tuner::Distribution> parse_distributions(const std::vector<std::string>& names) {
  std::vector<tuner::Distribution> out;
  for (const auto& name : names) {
    const auto dist = tuner::parse_distribution(name);
    // `mixed` leaves the bins: a correctness input, not one a winner is chosen on.
    const auto& valid = tuner::benchmark_distributions();
    if (!dist || std::find(valid.begin(), valid.end(), *dist) == valid.end())
      throw Error(StatusCode::invalid_argument, "--distributions: '" + name +
                                                    "' is not one of " +
                                                    distribution_list(valid, ", "));
    if (std::find(out.begin(), out.end(), *dist) == out.end()) out.push_back(*dist);
  }
  if (out.empty()) out = tuner::TuneOptions{}.distributions;
  return out;
}

std::string distribution_list(const std::vector<tuner::Distribution>& ds,
                              const std::string& separator) {
  std::string s;
  for (auto d : ds) s += (s.empty() ? "" : separator) + std::string(tuner::to_string(d));
  return s;
}

std::FILE* text_stream(const Common& c) { return c.json ? stderr : stdout; }

ProgressLine::ProgressLine(bool quiet, std::FILE* out, std::string prefix)
    : quiet_(quiet),
      out_(out),
      prefix_(std::move(prefix)),
      tty_(prefix_.empty() && isatty(fileno(out)) != 0) {}

void ProgressLine::update(const std::string& what, std::size_t done, std::size_t total,
                          double elapsed_s) {
  if (quiet_ || total == 0) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  const double eta = done ? elapsed_s / frac - elapsed_s : 0;
  if (tty_) {
    const int width = 30, filled = static_cast<int>(frac * width);
    std::fprintf(out_, "\r  [%-*s] %zu/%zu  eta %4.0fs  %-40s", width,
                 std::string(filled, '#').c_str(), done, total, eta, what.c_str());
    std::fflush(out_);
  } else {
    const std::size_t decile = done * 10 / total;
    if (decile != last_decile_ || done == total) {
      last_decile_ = decile;
      std::fprintf(out_, "%s  %zu/%zu configurations (%.0f%%), %.1fs elapsed, eta %.0fs\n",
                   prefix_.c_str(), done, total, frac * 100, elapsed_s, eta);
      std::fflush(out_);
    }
  }
}

void ProgressLine::finish(const std::string& line) {
  if (quiet_) return;
  if (tty_) std::fprintf(out_, "\r%-100s\r", "");
  std::fprintf(out_, "%s%s\n", prefix_.c_str(), line.c_str());
  std::fflush(out_);
}

std::string printf_text(const char* fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

std::string fmt_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", ms);
  return buf;
}

}  // namespace histtune::cli
