// Validation of an imported JSON document: every value is checked (type, range, printable text,
// bounded sizes and nesting) and a failure names its JSON path, before anything is written.
#include "json_document.hpp"

#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

namespace histtune::db::detail {
namespace {

using nlohmann::json;

// The channels column also holds the rows of a batched or segmented problem (10^5 segments).
constexpr std::int64_t kMaxChannels = 0xFFFFFFFF;
constexpr std::size_t kMaxImportMeasurements = 1'000'000;
constexpr std::size_t kMaxLabel = 200;
constexpr std::size_t kMaxUuid = 100;
constexpr std::size_t kMaxText = 200;
constexpr std::size_t kMaxDevices = 100'000;
constexpr std::size_t kMaxResults = 1'000'000;
// Real documents nest 6 deep (params one more); the bound keeps dump() and the destructor of a
// hostile document from recursing without limit.
constexpr std::size_t kMaxDepth = 32;
constexpr std::size_t kMaxKeyShown = 40;  // a path names at most this much of one key

std::string at(const std::string& where, const char* key) {
  return where.empty() ? std::string(key) : where + "." + key;
}

std::string at(const std::string& where, std::size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

const json& field(const json& object, const std::string& where, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) {
    throw Invalid(at(where, key), "is missing");
  }
  return *it;
}

const json& object_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_object()) throw Invalid(at(where, key), "must be an object");
  return v;
}

const json& array_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_array()) throw Invalid(at(where, key), "must be an array");
  return v;
}

bool printable(const std::string& s, bool allow_space) {
  for (const char c : s) {
    if (c < (allow_space ? 0x20 : 0x21) || c > 0x7e) return false;
  }
  return true;
}

// Any printable ASCII text of at most `max` characters (empty allowed).
std::string text_at(const json& object, const std::string& where, const char* key,
                    std::size_t max = kMaxText) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() > max || !printable(s, true)) {
    throw Invalid(at(where, key),
                  "must be printable ASCII of at most " + std::to_string(max) + " characters");
  }
  return s;
}

std::string label_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxLabel || !printable(s, false)) {
    throw Invalid(at(where, key), "must be printable ASCII without spaces, 1 to " +
                                      std::to_string(kMaxLabel) + " characters");
  }
  return s;
}

std::string uuid_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_string()) throw Invalid(at(where, key), "must be a string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > kMaxUuid || !printable(s, true)) {
    throw Invalid(at(where, key),
                  "must be 1 to " + std::to_string(kMaxUuid) + " printable ASCII characters");
  }
  return s;
}

std::int64_t integer_at(const json& object, const std::string& where, const char* key,
                        std::int64_t lo, std::int64_t hi) {
  const json& v = field(object, where, key);
  const std::string why =
      "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer()) throw Invalid(at(where, key), why);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    // The parser stores every non-negative integer as unsigned.
    if (u > static_cast<std::uint64_t>(hi) || (lo > 0 && u < static_cast<std::uint64_t>(lo))) {
      throw Invalid(at(where, key), why);
    }
    return static_cast<std::int64_t>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < lo || i > hi) throw Invalid(at(where, key), why);
  return i;
}

double time_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw Invalid(at(where, key), "must be a finite number >= 0");
  }
  return v.get<double>();
}

std::string one_of(const json& object, const std::string& where, const char* key,
                   std::initializer_list<const char*> allowed) {
  const json& v = field(object, where, key);
  std::string list;
  for (const char* a : allowed) {
    if (v.is_string() && v.get_ref<const std::string&>() == a) return a;
    list += list.empty() ? a : std::string(", ") + a;
  }
  throw Invalid(at(where, key), "must be one of " + list);
}

// family and distribution names: [a-z0-9_]{1,32}.
std::string family_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  const std::string why = "must match [a-z0-9_]{1,32}";
  if (!v.is_string()) throw Invalid(at(where, key), why);
  const std::string& s = v.get_ref<const std::string&>();
  if (s.empty() || s.size() > 32) throw Invalid(at(where, key), why);
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      throw Invalid(at(where, key), why);
    }
  }
  return s;
}

// The timestamps the database writes: "2025-01-31T12:00:00.000Z", UTC, sortable as text.
std::string timestamp_at(const json& object, const std::string& where, const char* key) {
  const json& v = field(object, where, key);
  const std::string why = "must be a UTC time like 2025-01-31T12:00:00.000Z";
  if (!v.is_string()) throw Invalid(at(where, key), why);
  const std::string& s = v.get_ref<const std::string&>();
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (s.size() != sizeof(kShape) - 1) throw Invalid(at(where, key), why);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool ok = kShape[i] == 'd' ? (s[i] >= '0' && s[i] <= '9') : s[i] == kShape[i];
    if (!ok) throw Invalid(at(where, key), why);
  }
  return s;
}

// null (not measured) or a finite number >= 0.
std::optional<double> optional_time_at(const json& object, const std::string& where,
                                       const char* key) {
  if (field(object, where, key).is_null()) return std::nullopt;
  const json& v = field(object, where, key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw Invalid(at(where, key), "must be null or a finite number >= 0");
  }
  return v.get<double>();
}

// A first pass over the text that builds nothing: finds syntax errors, nesting deeper than
// kMaxDepth and too many measurements before a DOM is allocated for them, and says where (the
// JSON path of the value being read when it stopped).
class Prescan : public nlohmann::json_sax<json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    frames_.back().key = k.size() > kMaxKeyShown ? k.substr(0, kMaxKeyShown) + "..." : k;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) override {
    return fail(std::string("not valid JSON: ") + e.what());
  }

  // Where and why the scan stopped; empty when the text passed.
  const std::string& where() const { return where_; }
  const std::string& why() const { return why_; }

 private:
  struct Frame {
    bool array = false;
    std::size_t count = 0;  // elements begun, arrays only
    std::string key;        // the current key, objects only
  };

  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.array && f.count > 0) {
        out += "[" + std::to_string(f.count - 1) + "]";
      } else if (!f.array && !f.key.empty()) {
        out += (out.empty() ? "" : ".") + f.key;
      }
    }
    return out.empty() ? "document" : out;
  }
  bool fail(const std::string& why) {
    where_ = path();
    why_ = why;
    return false;
  }
  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
    return true;
  }
  bool open(bool array) {
    value();
    if (frames_.size() >= kMaxDepth) {
      return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    // An object directly in results[i].measurements is one measurement.
    if (!array && frames_.size() == 4 && frames_[0].key == "results" && frames_[1].array &&
        frames_[2].key == "measurements" && frames_[3].array &&
        ++measurements_ > kMaxImportMeasurements) {
      return fail("more than " + std::to_string(kMaxImportMeasurements) +
                  " measurements in one document");
    }
    frames_.push_back(Frame{array, 0, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::vector<Frame> frames_;
  std::size_t measurements_ = 0;
  std::string where_, why_;
};

DeviceRow parse_device(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object");
  DeviceRow d;
  d.uuid = uuid_at(j, where, "uuid");
  d.name = text_at(j, where, "name");
  d.cc_major = static_cast<int>(integer_at(j, where, "cc_major", 0, 1000));
  d.cc_minor = static_cast<int>(integer_at(j, where, "cc_minor", 0, 1000));
  d.sm_count = static_cast<int>(integer_at(j, where, "sm_count", 0, INT_MAX));
  d.memory_bytes = integer_at(j, where, "memory_bytes", 0, INT64_MAX);
  d.l2_bytes = integer_at(j, where, "l2_bytes", 0, INT64_MAX);
  d.driver_version = static_cast<int>(integer_at(j, where, "driver_version", 0, INT_MAX));
  d.runtime_version = static_cast<int>(integer_at(j, where, "runtime_version", 0, INT_MAX));
  d.memory_clock_khz = integer_at(j, where, "memory_clock_khz", 0, INT64_MAX);
  d.nvrtc_version = text_at(j, where, "nvrtc_version");
  return d;
}

ProblemRow parse_problem(const json& j, const std::string& where) {
  ProblemRow p;
  p.family = family_at(j, where, "family");
  p.sample_type = one_of(j, where, "sample_type",
                         {"u8", "u16", "u32", "i32", "f32", "i8", "i16", "f16", "bf16", "i64",
                          "u64", "f64"});
  p.binning = one_of(j, where, "binning", {"direct", "even", "range"});
  p.num_bins = static_cast<std::uint32_t>(integer_at(j, where, "num_bins", 1, UINT32_MAX));
  p.n = static_cast<std::uint64_t>(integer_at(j, where, "n", 0, UINT32_MAX));
  // Optional (format 2): absent in version-1 files and for 1D problems.
  if (j.contains("channels")) {
    p.channels = static_cast<std::uint32_t>(integer_at(j, where, "channels", 1, kMaxChannels));
  }
  if (j.contains("active_channels")) {
    p.active_channels = static_cast<std::uint32_t>(
        integer_at(j, where, "active_channels", 0, static_cast<std::int64_t>(p.channels)));
  }
  return p;
}

// A distribution name: [a-z0-9_]{1,32}, and not the robust winner's "any".
std::string distribution_at(const json& object, const std::string& where, const char* key) {
  std::string d = family_at(object, where, key);
  if (d == kAnyDistribution) {
    throw Invalid(at(where, key), std::string("'") + kAnyDistribution +
                                      "' names the robust winner, not a distribution");
  }
  return d;
}

MeasurementRow parse_measurement(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object");
  MeasurementRow m;
  m.config_label = label_at(j, where, "config_label");
  m.params_json = object_at(j, where, "params").dump();
  m.median_ms = time_at(j, where, "median_ms");
  m.min_ms = time_at(j, where, "min_ms");
  m.max_ms = time_at(j, where, "max_ms");
  m.samples = static_cast<int>(integer_at(j, where, "samples", 0, INT_MAX));
  const json& verified = field(j, where, "verified");
  if (!verified.is_boolean()) throw Invalid(at(where, "verified"), "must be true or false");
  m.verified = verified.get<bool>();
  m.template_hash = text_at(j, where, "template_hash");
  m.histtune_version = text_at(j, where, "histtune_version");
  // Optional (format 2): version-1 files measured uniform data only.
  if (j.contains("distribution")) m.distribution = distribution_at(j, where, "distribution");
  return m;
}

std::optional<double> absent_or_time_at(const json& object, const std::string& where,
                                        const char* key) {
  if (!object.contains(key)) return std::nullopt;
  return optional_time_at(object, where, key);
}

// A spread whose slowest call is faster than its fastest is a corrupt file.
void check_spread(const std::optional<double>& min, const std::optional<double>& max,
                  const std::string& where, const char* max_key) {
  if (min && max && *max < *min) throw Invalid(at(where, max_key), "must be >= the min");
}

BaselineRow parse_baseline(const json& j, const std::string& where) {
  if (!j.is_object()) throw Invalid(where, "must be an object or null");
  BaselineRow b;
  b.default_ms = optional_time_at(j, where, "default_ms");
  b.cub_ms = optional_time_at(j, where, "cub_ms");
  b.floor_ms = optional_time_at(j, where, "floor_ms");
  b.read_gbps = optional_time_at(j, where, "read_gbps");
  b.measured_at = timestamp_at(j, where, "measured_at");
  // Optional: exports before schema 4 stored medians only.
  b.default_min_ms = absent_or_time_at(j, where, "default_min_ms");
  b.default_max_ms = absent_or_time_at(j, where, "default_max_ms");
  b.cub_min_ms = absent_or_time_at(j, where, "cub_min_ms");
  b.cub_max_ms = absent_or_time_at(j, where, "cub_max_ms");
  check_spread(b.default_min_ms, b.default_max_ms, where, "default_max_ms");
  check_spread(b.cub_min_ms, b.cub_max_ms, where, "cub_max_ms");
  return b;
}

// The text as JSON, after Prescan has passed it.
json parse_checked(const std::string& text) {
  Prescan scan;
  bool scanned = false;
  json doc;
  try {
    scanned = json::sax_parse(text, &scan);
    if (scanned) doc = json::parse(text);
  } catch (const json::exception& e) {
    throw Invalid("document", std::string("not valid JSON: ") + e.what());
  }
  if (!scanned) throw Invalid(scan.where(), scan.why());
  return doc;
}

// The document's own fields: format, format version, the build and time that wrote it.
void check_header(const json& doc) {
  if (!doc.is_object()) throw Invalid("document", "must be a JSON object");
  const json& format = field(doc, "", "format");
  if (!format.is_string() || format.get_ref<const std::string&>() != kFormat) {
    throw Invalid("format", std::string("must be \"") + kFormat + "\"");
  }
  const json& version = field(doc, "", "format_version");
  if (!version.is_number_integer() || version.get<std::int64_t>() < kOldestFormatVersion ||
      version.get<std::int64_t>() > kFormatVersion) {
    throw Invalid("format_version", "unsupported (this build reads " +
                                        std::to_string(kOldestFormatVersion) + " to " +
                                        std::to_string(kFormatVersion) + ")");
  }
  // Written by every export since the first; optional so that those older files still import.
  if (doc.contains("histtune_version")) text_at(doc, "", "histtune_version");
  if (doc.contains("exported_at")) text_at(doc, "", "exported_at");
}

// `devices`, each uuid once; the uuids are added to `uuids`.
std::vector<DeviceRow> parse_devices(const json& doc, std::set<std::string>& uuids) {
  const json& devices = array_at(doc, "", "devices");
  if (devices.size() > kMaxDevices) {
    throw Invalid("devices", "more than " + std::to_string(kMaxDevices) + " devices");
  }
  std::vector<DeviceRow> out;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceRow d = parse_device(devices[i], at("devices", i));
    if (!uuids.insert(d.uuid).second) {
      throw Invalid(at(at("devices", i), "uuid"), "duplicate device '" + d.uuid + "'");
    }
    out.push_back(std::move(d));
  }
  return out;
}

// What an import stores of a winner: label, median, template hash and histtune version.
MeasurementRow parse_winner_fields(const json& w, const std::string& where) {
  MeasurementRow row;
  row.config_label = label_at(w, where, "config_label");
  row.median_ms = time_at(w, where, "median_ms");
  row.template_hash = text_at(w, where, "template_hash");
  row.histtune_version = text_at(w, where, "histtune_version");
  return row;
}

// A result's robust winner: an object or null.
std::optional<MeasurementRow> parse_winner(const json& r, const std::string& where) {
  const json& w = field(r, where, "winner");
  if (w.is_null()) return std::nullopt;
  const std::string ww = at(where, "winner");
  if (!w.is_object()) throw Invalid(ww, "must be an object or null");
  return parse_winner_fields(w, ww);
}

// A result's per-distribution winners (format 2; absent or null: none), each distribution once.
std::vector<MeasurementRow> parse_distribution_winners(const json& r, const std::string& where) {
  std::vector<MeasurementRow> out;
  const auto dw = r.find("winners_by_distribution");
  if (dw == r.end() || dw->is_null()) return out;
  const std::string wd = at(where, "winners_by_distribution");
  if (!dw->is_array()) throw Invalid(wd, "must be an array or null");
  std::set<std::string> seen;
  for (std::size_t k = 0; k < dw->size(); ++k) {
    const json& e = (*dw)[k];
    const std::string we = at(wd, k);
    if (!e.is_object()) throw Invalid(we, "must be an object");
    const std::string distribution = distribution_at(e, we, "distribution");
    if (!seen.insert(distribution).second) {
      throw Invalid(at(we, "distribution"), "duplicate distribution '" + distribution + "'");
    }
    MeasurementRow row = parse_winner_fields(e, we);
    row.distribution = distribution;
    out.push_back(std::move(row));
  }
  return out;
}

// results[i]: its device must be listed; `total` counts the document's measurements so far.
ImportResult parse_result(const json& r, const std::string& where,
                          const std::set<std::string>& uuids, std::size_t& total) {
  if (!r.is_object()) throw Invalid(where, "must be an object");
  ImportResult result;
  result.device_uuid = uuid_at(r, where, "device");
  if (uuids.count(result.device_uuid) == 0) {
    throw Invalid(at(where, "device"),
                  "device '" + result.device_uuid + "' is not listed in devices");
  }
  result.problem = parse_problem(object_at(r, where, "problem"), at(where, "problem"));
  const json& ms = array_at(r, where, "measurements");
  total += ms.size();
  if (total > kMaxImportMeasurements) {
    throw Invalid(at(where, "measurements"),
                  "more than " + std::to_string(kMaxImportMeasurements) +
                      " measurements in one document");
  }
  for (std::size_t k = 0; k < ms.size(); ++k) {
    result.measurements.push_back(parse_measurement(ms[k], at(at(where, "measurements"), k)));
  }
  result.winner = parse_winner(r, where);
  result.distribution_winners = parse_distribution_winners(r, where);
  // Optional: exports before baselines were stored have no such field.
  if (const auto b = r.find("baseline"); b != r.end() && !b->is_null()) {
    result.baseline = parse_baseline(*b, at(where, "baseline"));
  }
  return result;
}

}  // namespace

ImportDocument parse_document(const std::string& text) {
  const json doc = parse_checked(text);
  check_header(doc);
  ImportDocument out;
  std::set<std::string> uuids;
  out.devices = parse_devices(doc, uuids);
  const json& results = array_at(doc, "", "results");
  if (results.size() > kMaxResults) {
    throw Invalid("results", "more than " + std::to_string(kMaxResults) + " results");
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    out.results.push_back(parse_result(results[i], at("results", i), uuids, total));
  }
  return out;
}

}  // namespace histtune::db::detail
