// Pending problems: what programs called that the runtime resolved below `exact`, with call
// counts, in the `pending` table (schema v5) or, where the database cannot take them, in a side
// file of appended lines.
#include "internal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace histtune::db {
namespace {

using detail::bind_problem;

constexpr const char* kPendingColumns =
    "p.device_uuid, p.device_name, " HT_PROBLEM_COLUMNS
    ", p.lower, p.upper, p.level, p.calls, p.first_seen, p.last_seen";

// Most-called first, then the latest seen, then the key: the order of pending() and of the side
// file's reader.
constexpr const char* kPendingOrder =
    " ORDER BY p.calls DESC, p.last_seen DESC, p.family, p.sample_type, p.binning, p.num_bins,"
    " p.n, p.channels, p.active_channels, p.device_uuid";

PendingRow read_pending_row(const SQLite::Statement& q) {
  PendingRow r;
  r.device_uuid = q.getColumn(0).getString();
  r.device_name = q.getColumn(1).getString();
  r.problem = detail::read_problem(q, 2);
  constexpr int c = 2 + detail::kProblemColumnCount;
  r.lower = detail::optional_column(q.getColumn(c));
  r.upper = detail::optional_column(q.getColumn(c + 1));
  r.level = q.getColumn(c + 2).getString();
  r.calls = static_cast<std::uint64_t>(q.getColumn(c + 3).getInt64());
  r.first_seen = q.getColumn(c + 4).getString();
  r.last_seen = q.getColumn(c + 5).getString();
  return r;
}

std::optional<std::string> text_or_null(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

// Now, UTC with milliseconds, as the database's column defaults write it.
std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  char millis[8];
  std::snprintf(millis, sizeof millis, ".%03dZ", static_cast<int>(ms.count()));
  return std::string(date) + millis;
}

// A field of a side-file line: tabs and line breaks become spaces (a GPU name has none).
std::string field(const std::string& s) {
  std::string out = s;
  std::replace_if(out.begin(), out.end(), [](char ch) { return ch == '\t' || ch == '\n' || ch == '\r'; }, ' ');
  return out;
}

std::string number_field(const std::optional<double>& v) {
  if (!v) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", *v);
  return buf;
}

// The side file's format version: the first field of each line.
constexpr const char* kLineVersion = "1";
constexpr std::size_t kLineFields = 15;

std::string side_line(const PendingRow& r, const std::string& when) {
  const ProblemRow& p = r.problem;
  std::ostringstream s;
  s << kLineVersion << '\t' << field(r.device_uuid) << '\t' << field(r.device_name) << '\t'
    << field(p.family) << '\t' << field(p.sample_type) << '\t' << field(p.binning) << '\t'
    << p.num_bins << '\t' << p.n << '\t' << p.channels << '\t' << p.active_channels << '\t'
    << number_field(r.lower) << '\t' << number_field(r.upper) << '\t' << field(r.level) << '\t'
    << r.calls << '\t' << when << '\n';
  return s.str();
}

bool parse_unsigned(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return errno == 0;
}

bool parse_optional_double(const std::string& s, std::optional<double>& out) {
  if (s.empty()) return true;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0') return false;
  out = v;
  return true;
}

// One line of the side file, or nullopt where it is not one (a comment, a partial last line).
std::optional<PendingRow> parse_side_line(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream in(line);
  for (std::string part; std::getline(in, part, '\t');) f.push_back(part);
  if (f.size() != kLineFields || f[0] != kLineVersion || f[1].empty() || f[3].empty()) return {};
  PendingRow r;
  r.device_uuid = f[1];
  r.device_name = f[2];
  r.problem.family = f[3];
  r.problem.sample_type = f[4];
  r.problem.binning = f[5];
  std::uint64_t bins = 0, channels = 0, active = 0;
  if (!parse_unsigned(f[6], bins) || !parse_unsigned(f[7], r.problem.n) ||
      !parse_unsigned(f[8], channels) || !parse_unsigned(f[9], active) ||
      !parse_optional_double(f[10], r.lower) || !parse_optional_double(f[11], r.upper) ||
      !parse_unsigned(f[13], r.calls) || bins > 0xFFFFFFFFull || channels == 0 ||
      channels > 0xFFFFFFFFull || active > channels || f[14].empty())
    return {};
  r.problem.num_bins = static_cast<std::uint32_t>(bins);
  r.problem.channels = static_cast<std::uint32_t>(channels);
  r.problem.active_channels = static_cast<std::uint32_t>(active);
  r.level = f[12];
  r.first_seen = r.last_seen = f[14];
  return r;
}

using PendingKey = std::tuple<std::string, std::string, std::string, std::string, std::uint32_t,
                              std::uint64_t, std::uint32_t, std::uint32_t>;

PendingKey key_of(const PendingRow& r) {
  const ProblemRow& p = r.problem;
  return {r.device_uuid, p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels,
          p.active_channels};
}

}  // namespace

namespace detail {

int clear_pending_in(SQLite::Database& db, const std::string& device_uuid,
                     const ProblemRow& problem) {
  SQLite::Statement q(db, std::string("DELETE FROM pending AS p WHERE p.device_uuid = :uuid AND") +
                              kProblemMatch);
  q.bind(":uuid", device_uuid);
  bind_problem(q, problem);
  return q.exec();
}

}  // namespace detail

void Database::add_pending(const std::vector<PendingRow>& rows) {
  write("add_pending", [&](SQLite::Database& db) {
    SQLite::Statement put(
        db,
        "INSERT INTO pending (device_uuid, device_name, family, sample_type, binning, num_bins,"
        "  n, channels, active_channels, lower, upper, level, calls, first_seen, last_seen)"
        " VALUES (:uuid, :name, :family, :sample_type, :binning, :num_bins, :n, :channels,"
        "  :active_channels, :lower, :upper, :level, :calls,"
        "  coalesce(:first_seen, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),"
        "  coalesce(:last_seen, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
        " ON CONFLICT (device_uuid, family, sample_type, binning, num_bins, n, channels,"
        "  active_channels) DO UPDATE SET calls = calls + excluded.calls,"
        "  device_name = excluded.device_name, level = excluded.level,"
        "  first_seen = min(first_seen, excluded.first_seen),"
        "  last_seen = max(last_seen, excluded.last_seen)");
    for (const PendingRow& r : rows) {
      put.reset();
      put.bind(":uuid", r.device_uuid);
      put.bind(":name", r.device_name);
      bind_problem(put, r.problem);
      detail::bind_optional(put, ":lower", r.lower);
      detail::bind_optional(put, ":upper", r.upper);
      put.bind(":level", r.level);
      put.bind(":calls", static_cast<std::int64_t>(r.calls));
      detail::bind_optional(put, ":first_seen", text_or_null(r.first_seen));
      detail::bind_optional(put, ":last_seen", text_or_null(r.last_seen));
      put.exec();
    }
  });
}

std::vector<PendingRow> Database::pending(const std::optional<std::string>& device_uuid) const {
  return read("pending", [&](SQLite::Database& db) {
    SQLite::Statement q(db, std::string("SELECT ") + kPendingColumns +
                                " FROM pending p WHERE (:uuid IS NULL OR p.device_uuid = :uuid)" +
                                kPendingOrder);
    detail::bind_optional(q, ":uuid", device_uuid);
    std::vector<PendingRow> out;
    while (q.executeStep()) out.push_back(read_pending_row(q));
    return out;
  });
}

bool Database::clear_pending(const std::string& device_uuid, const ProblemRow& problem) {
  return write("clear_pending", [&](SQLite::Database& db) {
    return detail::clear_pending_in(db, device_uuid, problem) > 0;
  });
}

std::size_t Database::take_pending_file(const std::string& side_path) {
  const std::string taken = side_path + ".taking." + std::to_string(::getpid());
  if (std::rename(side_path.c_str(), taken.c_str()) != 0) {
    if (errno == ENOENT) return 0;
    throw detail::make_error("take_pending_file", path_,
                             "cannot rename " + side_path + ": " + std::strerror(errno));
  }
  const std::vector<PendingRow> rows = read_pending_file(taken);
  try {
    add_pending(rows);
  } catch (const DbError&) {
    append_pending_file(side_path, rows);  // give them back before saying why
    std::remove(taken.c_str());
    throw;
  }
  std::remove(taken.c_str());
  return rows.size();
}

std::string pending_file_path(const std::string& database_path) {
  return database_path + ".pending";
}

void append_pending_file(const std::string& side_path, const std::vector<PendingRow>& rows) {
  if (rows.empty()) return;
  const std::string when = utc_now();
  std::string text;
  for (const PendingRow& r : rows) text += side_line(r, when);
  // One write with O_APPEND: lines of processes appending at once do not interleave.
  const int fd = ::open(side_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    throw DbError("histtune: cannot open the pending side file " + side_path + ": " +
                  std::strerror(errno));
  const ssize_t wrote = ::write(fd, text.data(), text.size());
  const int err = errno;
  ::close(fd);
  if (wrote != static_cast<ssize_t>(text.size()))
    throw DbError("histtune: cannot append to the pending side file " + side_path + ": " +
                  (wrote < 0 ? std::strerror(err) : "short write"));
}

std::vector<PendingRow> read_pending_file(const std::string& side_path) {
  std::ifstream in(side_path);
  std::vector<PendingRow> rows;
  for (std::string line; std::getline(in, line);)
    if (std::optional<PendingRow> r = parse_side_line(line)) rows.push_back(std::move(*r));
  return sum_pending(rows);
}

std::vector<PendingRow> sum_pending(const std::vector<PendingRow>& rows) {
  std::map<PendingKey, PendingRow> by_key;
  for (const PendingRow& r : rows) {
    auto [it, fresh] = by_key.emplace(key_of(r), r);
    if (fresh) continue;
    PendingRow& sum = it->second;
    sum.calls += r.calls;
    sum.first_seen = std::min(sum.first_seen, r.first_seen);
    if (r.last_seen >= sum.last_seen) {
      sum.last_seen = r.last_seen;
      sum.level = r.level;
      sum.device_name = r.device_name;
    }
  }
  std::vector<PendingRow> out;
  for (auto& [key, row] : by_key) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(), [](const PendingRow& a, const PendingRow& b) {
    return a.calls != b.calls ? a.calls > b.calls : a.last_seen > b.last_seen;
  });
  return out;
}

}  // namespace histtune::db
