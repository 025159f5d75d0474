#include "report.hpp"

#include <cmath>
#include <sstream>

#include "report_charts.hpp"
#include "report_svg.hpp"

namespace histtune::cli {
namespace {

using svg::esc;
using svg::num;

const char* const kStyle =
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}\n"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px;margin:22px 0 6px}"
    "h4{font-size:13px;margin:10px 0 2px}\n"
    "table{border-collapse:collapse;font-size:11px}td,th{border:1px solid #ccc;padding:2px 5px;"
    "text-align:right;white-space:nowrap}td:first-child,td:last-child,th:first-child,"
    "th:last-child{text-align:left}td:last-child{font-size:10px}.scroll{overflow-x:auto}"
    "tr.stale td{color:#999;font-style:italic}\n"
    ".tuned{fill:#1f77b4;stroke:#1f77b4}.default{fill:#8c8c8c;stroke:#8c8c8c}"
    ".cub{fill:#ff7f0e;stroke:#ff7f0e}\n"
    ".range{stroke-width:1.2;fill:none}.floor{stroke:#222;stroke-width:2}.key.range{stroke:#222}\n"
    ".frame{fill:none;stroke:#bbb}.grid{stroke:#eee}.one{stroke:#666;stroke-dasharray:3 3}"
    ".band{fill:#f4f6f9}\n"
    ".name{font-size:12px}.name.stale{fill:#b00;font-style:italic}.tick{font-size:11px}"
    ".small{font-size:8px;fill:#555}.ctitle{font-size:12px;font-weight:600}\n"
    ".trend{fill:none;stroke-width:1.5;stroke-opacity:.55}.row.stale{opacity:.35}"
    ".pct.stale{opacity:.35}\n"
    ".lvl-exact{fill:#1b7837}.lvl-same_model{fill:#5aae61}.lvl-nearest_shape{fill:#a6dba0}"
    ".lvl-same_arch{fill:#fee08b}"
    ".lvl-default{fill:#e0e0e0}.cell{stroke:#fff;stroke-width:1}"
    ".cell.stale,.key.stale{stroke:#d62728;stroke-width:2}"
    ".cell.unverified,.key.unverified{stroke:#e08214;stroke-width:2}\n"
    ".meta,.note{color:#555;font-size:13px}.warn{color:#b00;font-size:13px}\n";

std::string cell(const std::optional<double>& v, const char* fmt = "%.4f") {
  return v ? num(*v, fmt) : std::string("-");
}

std::string table(const ReportDevice& d) {
  std::ostringstream h;
  h << "<div class=\"scroll\"><table><tr><th>problem</th><th>lookup</th><th>tuned ms</th>"
       "<th>min..max</th>"
       "<th>default ms</th><th>from</th><th>CUB ms</th><th>floor ms</th><th>% of floor</th>"
       "<th>vs default</th><th>vs CUB</th><th>configuration</th></tr>\n";
  for (const auto& r : d.rows) {
    auto ratio = [&](const std::optional<double>& v) {
      return v ? num(*v / r.tuned_ms, "%.2fx") : std::string("-");
    };
    h << "<tr" << (r.stale ? " class=\"stale\"" : "") << "><td>" << esc(r.problem) << "</td><td"
      << (r.lookup_detail.empty() ? "" : " title=\"" + esc(r.lookup_detail) + "\"") << '>'
      << esc(r.stale ? "stale: " + r.lookup : r.lookup) << "</td><td>" << num(r.tuned_ms)
      << "</td><td>"
      << (r.tuned_range ? num(r.tuned_range->min_ms) + ".." + num(r.tuned_range->max_ms) : "-")
      << "</td><td"
      << (r.default_label.empty() ? "" : " title=\"" + esc(r.default_label) + "\"") << '>'
      << cell(r.default_ms) << "</td><td>" << esc(r.default_ms ? r.default_source : "-")
      << "</td><td>" << cell(r.cub_ms) << "</td><td>" << cell(r.floor_ms, "%.5f") << "</td><td>"
      << (r.floor_ms ? num(100 * *r.floor_ms / r.tuned_ms, "%.1f%%") : "-") << "</td><td>"
      << ratio(r.default_ms) << "</td><td>" << ratio(r.cub_ms) << "</td><td>" << esc(r.label)
      << "</td></tr>\n";
  }
  h << "</table></div>\n";
  return h.str();
}

// What the reader must know before the charts: stale and unverified rows, missing baselines.
std::string summary(const ReportDevice& d) {
  std::size_t stale = 0, cub = 0, from_compare = 0, defaults = 0, exact = 0;
  for (const auto& r : d.rows) {
    stale += r.stale;
    cub += r.cub_ms.has_value();
    defaults += r.default_ms.has_value();
    from_compare += r.default_ms && r.default_source == "compare";
    exact += r.lookup == "exact";
  }
  std::size_t beats_cub = 0, beats_default = 0, ties_default = 0;
  for (const auto& r : d.rows) {
    beats_cub += r.cub_ms && *r.cub_ms > r.tuned_ms;
    if (r.default_ms && std::fabs(*r.default_ms / r.tuned_ms - 1) <= 0.02)
      ++ties_default;
    else
      beats_default += r.default_ms && *r.default_ms > r.tuned_ms;
  }
  std::ostringstream h;
  h << "<p class=\"meta summary\">" << d.rows.size() << " tuned problems; the dispatcher answers "
    << exact << " of them with their own row. Tuned's median is below CUB's on " << beats_cub
    << " of " << cub << "; below the built-in default's by more than 2% on " << beats_default
    << " of " << defaults << " (within 2%: " << ties_default << "). Default times: " << from_compare
    << " from <code>histtune compare</code>, the rest from the tuning run.</p>\n";
  if (stale)
    h << "<p class=\"warn\">" << stale << " of " << d.rows.size()
      << " rows are stale: recorded with another kernel template than this build's ("
      << esc(d.current_templates)
      << "), so the dispatcher skips them. Re-tune, or <code>histtune prune</code>.</p>\n";
  return h.str();
}

std::string device_section(const ReportDevice& d) {
  bool any_baseline = false;
  for (const auto& r : d.rows) any_baseline = any_baseline || r.cub_ms || r.floor_ms;
  std::ostringstream h;
  h << "<section class=\"device\"><h2>" << esc(d.name) << "</h2>\n<p class=\"meta toolchain\">"
    << esc(d.arch) << ", " << d.sm_count << " SMs, " << esc(d.uuid) << "<br>CUDA driver "
    << esc(d.driver) << ", CUDA runtime " << esc(d.runtime) << ", NVRTC " << esc(d.nvrtc);
  if (!d.measured_by.empty()) h << "<br>measured by " << esc(d.measured_by);
  h << "</p>\n" << summary(d);
  h << "<h3>Per problem: time, speedup, distributions</h3>\n<p class=\"note\">Medians per call "
       "(zero the bins + launch) on uniform data; whiskers: fastest..slowest call; the default "
       "is the built-in choice for that shape. Speedup: the other's median over tuned's. Right: "
       "the robust winner's median on each input distribution over its median on uniform data.";
  if (!any_baseline)
    h << " CUB and the floor come from <code>histtune compare</code>, which has not been run "
         "for this device.";
  h << "</p>\n" << problems_svg(d);
  h << "<h3>How close to the read floor</h3>\n<p class=\"note\">The read floor is the input's "
       "bytes over the read bandwidth <code>histtune compare</code> measured; 100%: the kernel "
       "runs as fast as reading its input.</p>\n"
    << floor_svg(d);
  h << "<h3>Lookup coverage</h3>\n<p class=\"note\">What the dispatcher of this build would "
       "launch for each shape on this device (log2 n across, log2 bins down).</p>\n"
    << coverage_svg(d);
  h << "<h3>Winning parameters by problem size and bin count</h3>\n" << params_svg(d);
  h << "<h3>Table</h3>\n" << table(d) << "</section>\n";
  return h.str();
}

}  // namespace

std::string render_report(const ReportData& data) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<title>histtune report</title>\n<style>\n"
    << kStyle << "</style></head><body>\n";
  h << "<h1>histtune tuning report</h1>\n<p class=\"meta\">histtune "
    << esc(data.histtune_version) << ", generated " << esc(data.generated_at) << " from "
    << esc(data.db_path) << "</p>\n";
  if (data.devices.empty()) h << "<p>The database holds no tuned problems.</p>\n";
  for (const auto& d : data.devices) h << device_section(d);
  h << "</body></html>\n";
  return h.str();
}

}  // namespace histtune::cli
