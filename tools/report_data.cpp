#include "report_data.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "common.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"
#include "histtune/version.hpp"

namespace histtune::cli {
namespace {

// 13000 -> "13.0", 12080 -> "12.8", as CUDA encodes versions (1000 * major + 10 * minor).
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

double log2_of(double v) { return v > 0 ? std::log2(v) : 0; }

// The order distributions are listed in: the tuner's, uniform (the robust winner's time) first.
int distribution_rank(const std::string& d) {
  static const char* const order[] = {"uniform", "skewed", "constant", "runs"};
  for (int i = 0; i < 4; ++i)
    if (d == order[i]) return i;
  return 4;
}

// The tuning run's measurements of one problem: the winner on each distribution with its spread
// on uniform data, and the per-shape default's (the tuner always times it) on uniform data.
void read_measurements(const db::Database& database, const std::string& uuid,
                       const db::WinnerRow& w, const KernelFamily* f, ReportRow& r) {
  const auto default_values = f ? f->parse(r.default_label) : std::nullopt;
  for (const auto& m : database.measurements(uuid, w.problem)) {
    if (!m.verified || m.template_hash != w.template_hash) continue;
    const bool uniform = m.distribution == "uniform";
    if (m.config_label == w.config_label) {
      r.by_distribution.push_back({m.distribution, m.median_ms});
      if (uniform)
        r.tuned_range =
            ReportRange{std::min(m.min_ms, w.median_ms), std::max(m.max_ms, w.median_ms)};
    }
    // By value, not label: labels written before a parameter existed are shorter.
    if (uniform && !r.default_ms && default_values && f->parse(m.config_label) == default_values) {
      r.default_ms = m.median_ms;
      r.default_range = ReportRange{m.min_ms, m.max_ms};
      r.default_source = "tuning run";
    }
  }
  std::stable_sort(r.by_distribution.begin(), r.by_distribution.end(),
                   [](const auto& a, const auto& b) {
                     return distribution_rank(a.distribution) < distribution_rank(b.distribution);
                   });
}

// A stored spread, where both ends were stored.
std::optional<ReportRange> range_of(std::optional<double> min_ms, std::optional<double> max_ms) {
  if (!min_ms || !max_ms) return std::nullopt;
  return ReportRange{*min_ms, *max_ms};
}

void read_lookup(const Dispatcher& dispatcher, const DeviceInfo& d, const Problem& p,
                 ReportRow& r) {
  const FamilyChoice c = dispatcher.lookup(d, p);
  r.lookup = to_string(c.level);
  r.lookup_detail = c.summary() + ": " + c.detail;
}

ReportRow read_row(const db::Database& database, const Dispatcher& dispatcher,
                   const DeviceInfo& d, const db::WinnerRow& w) {
  ReportRow r;
  r.problem = problem_name(w.problem);
  r.family = w.problem.family;
  r.sample_type = w.problem.sample_type;
  r.series = w.problem.sample_type + " " + w.problem.binning + ", " +
             std::to_string(w.problem.num_bins) + " bins";
  if (w.problem.active_channels > 0)
    r.series += ", " + std::to_string(w.problem.active_channels) + "/" +
                std::to_string(w.problem.channels) + " channels";
  r.log2_n = log2_of(static_cast<double>(w.problem.n));
  r.log2_bins = log2_of(w.problem.num_bins);
  r.label = w.config_label;
  r.tuned_ms = w.median_ms;
  const KernelFamily* f = nullptr;
  if (const auto fam = parse_family(w.problem.family)) f = &family(*fam);
  if (f) {
    r.stale = w.template_hash != f->template_hash();
    if (const auto v = f->parse(w.config_label))
      for (std::size_t k = 0; k < v->size(); ++k)
        r.params.push_back({f->params()[k].name, f->params()[k].key, (*v)[k]});
    const Problem p = problem_of(w.problem);
    r.default_label = f->label(f->fallback(p, d));
    read_lookup(dispatcher, d, p, r);
  }
  read_measurements(database, d.uuid, w, f, r);
  if (auto b = database.baseline(d.uuid, w.problem)) {
    // The tuning run's default first: timed in the same run and way as the tuned median (and
    // compare stored medians only before schema 4).
    if (b->default_ms && !r.default_ms) {
      r.default_ms = b->default_ms;
      r.default_range = range_of(b->default_min_ms, b->default_max_ms);
      r.default_source = "compare";
    }
    r.cub_ms = b->cub_ms;
    if (r.cub_ms) r.cub_range = range_of(b->cub_min_ms, b->cub_max_ms);
    r.floor_ms = b->floor_ms;
  }
  return r;
}

}  // namespace

DeviceInfo described_device(const db::DeviceRow& row) {
  DeviceInfo d;
  d.name = row.name;
  d.uuid = row.uuid;
  d.cc_major = row.cc_major;
  d.cc_minor = row.cc_minor;
  d.sm_count = row.sm_count;
  d.memory_bytes = row.memory_bytes;
  d.l2_bytes = row.l2_bytes;
  d.driver_version = row.driver_version;
  d.runtime_version = row.runtime_version;
  d.memory_clock_khz = row.memory_clock_khz;
  // The architecture's limits as `explain` takes them (describe_arch); an architecture not listed
  // there keeps those of the newest listed below it.
  for (int cc = d.arch(); cc >= 70; --cc) {
    if (const std::optional<DeviceInfo> a = describe_arch(cc / 10, cc % 10)) {
      d.smem_per_block_optin = a->smem_per_block_optin;
      d.smem_per_sm = a->smem_per_sm;
      d.max_threads_per_sm = a->max_threads_per_sm;
      break;
    }
  }
  return d;
}

ReportData read_report(const db::Database& database, const Dispatcher& dispatcher) {
  ReportData data;
  data.histtune_version = version();
  data.db_path = database.path();
  const std::string templates = join(families(), [](const KernelFamily* f) {
    return std::string(f->name()) + " " + f->template_hash();
  });
  for (const auto& dev : database.devices()) {
    const DeviceInfo d = described_device(dev);
    ReportDevice rd;
    rd.name = dev.name;
    rd.uuid = dev.uuid;
    rd.arch = "sm_" + std::to_string(d.arch());
    rd.driver = cuda_version_text(dev.driver_version);
    rd.runtime = cuda_version_text(dev.runtime_version);
    rd.nvrtc = dev.nvrtc_version.empty() ? "?" : dev.nvrtc_version;
    rd.sm_count = dev.sm_count;
    rd.current_templates = templates;
    std::set<std::string> versions, hashes;
    const auto winners = database.winners(dev.uuid);
    for (const auto& w : winners) {
      rd.rows.push_back(read_row(database, dispatcher, d, w));
      if (!w.histtune_version.empty()) versions.insert(w.histtune_version);
      if (!w.template_hash.empty()) hashes.insert(w.template_hash);
    }
    if (!versions.empty()) rd.measured_by = "histtune " + join(versions);
    if (!hashes.empty())
      rd.measured_by += (rd.measured_by.empty() ? "" : "; ") + std::string("kernel template ") +
                        join(hashes);
    rd.coverage = read_coverage(dispatcher, d, winners);
    if (!rd.rows.empty()) data.devices.push_back(rd);
  }
  return data;
}

}  // namespace histtune::cli
