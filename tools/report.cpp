#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace histtune::cli {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v, const char* fmt = "%.4f") {
  char b[32];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// Series colours; a seventh series reuses the first.
const char* const kPalette[] = {"#2a7ab9", "#d98c3a", "#3a9d5d", "#b9432a", "#7a4ab9", "#6b6b6b"};
const char* colour(std::size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

// Per problem: tuned, default and CUB bars with their min..max whiskers where known, and the read
// floor as a dashed line. Each problem is scaled to its own slowest time (their times span three
// orders of magnitude, so one axis would flatten the small ones); the numbers carry the scale.
std::string bars_svg(const ReportDevice& d) {
  const int left = 270, width = 430, right = 230, bar_h = 13, pitch = 16, row_h = 74, top = 8;
  const int w = left + width + right;
  const int h = top + static_cast<int>(d.rows.size()) * row_h;
  std::ostringstream s;
  s << "<svg class=\"bars\" role=\"img\" aria-label=\"time per problem: tuned, default, CUB\" "
       "width=\""
    << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  int y = top;
  for (const auto& r : d.rows) {
    double scale = std::max({r.tuned_ms, r.default_ms.value_or(0), r.cub_ms.value_or(0),
                             r.floor_ms.value_or(0)});
    if (r.tuned_range) scale = std::max(scale, r.tuned_range->max_ms);
    if (r.default_range) scale = std::max(scale, r.default_range->max_ms);
    if (scale <= 0) scale = 1;
    auto x_of = [&](double ms) { return left + ms / scale * width; };
    s << "<g class=\"problem\">\n<text x=\"" << left - 10 << "\" y=\"" << y + 24
      << "\" text-anchor=\"end\" class=\"name\">" << esc(r.problem) << "</text>\n";
    struct Bar {
      const char* cls;
      const char* name;
      std::optional<double> v;
      std::optional<ReportRange> range;
      std::string note;
    } bars[] = {
        {"tuned", "tuned", r.tuned_ms, r.tuned_range,
         r.floor_ms ? num(100 * *r.floor_ms / r.tuned_ms, "%.1f%% of floor") : ""},
        {"default", "default", r.default_ms, r.default_range,
         r.default_ms ? num(*r.default_ms / r.tuned_ms, "%.2fx") : ""},
        {"cub", "CUB", r.cub_ms, std::nullopt,
         r.cub_ms ? num(*r.cub_ms / r.tuned_ms, "%.2fx") : ""}};
    int by = y;
    for (const auto& b : bars) {
      if (b.v) {
        const double bw = std::max(1.0, x_of(*b.v) - left);
        double text_x = left + bw;
        s << "<rect class=\"bar " << b.cls << "\" x=\"" << left << "\" y=\"" << by << "\" width=\""
          << num(bw, "%.1f") << "\" height=\"" << bar_h << "\"><title>" << b.name << ' '
          << num(*b.v) << " ms</title></rect>\n";
        if (b.range) {
          const double x0 = x_of(b.range->min_ms), x1 = x_of(b.range->max_ms);
          const double ym = by + bar_h / 2.0;
          s << "<path class=\"range\" d=\"M" << num(x0, "%.1f") << ',' << ym - 4 << " V" << ym + 4
            << " M" << num(x0, "%.1f") << ',' << ym << " H" << num(x1, "%.1f") << " M"
            << num(x1, "%.1f") << ',' << ym - 4 << " V" << ym + 4 << "\"><title>" << b.name
            << " min " << num(b.range->min_ms) << ", max " << num(b.range->max_ms)
            << " ms</title></path>\n";
          text_x = std::max(text_x, x1);
        }
        s << "<text x=\"" << num(text_x + 5, "%.1f") << "\" y=\"" << by + 11 << "\" class=\"val\">"
          << b.name << ' ' << num(*b.v) << " ms" << (b.note.empty() ? "" : " \xc2\xb7 ")
          << esc(b.note) << "</text>\n";
      }
      by += pitch;
    }
    if (r.floor_ms) {
      const double x = std::max(x_of(*r.floor_ms), left + 1.0);
      s << "<line class=\"floor\" x1=\"" << num(x, "%.1f") << "\" x2=\"" << num(x, "%.1f")
        << "\" y1=\"" << y - 3 << "\" y2=\"" << y + 3 * pitch << "\"><title>read floor "
        << num(*r.floor_ms, "%.5f") << " ms</title></line>\n";
    }
    s << "<text x=\"" << left << "\" y=\"" << y + 3 * pitch + 11 << "\" class=\"cfg\">"
      << esc(r.label) << "</text>\n</g>\n";
    y += row_h;
  }
  s << "</svg>\n";
  return s.str();
}

std::string pow2_text(double log2_n) {
  return std::fabs(log2_n - std::round(log2_n)) < 1e-9 ? num(log2_n, "2^%.0f")
                                                       : num(log2_n, "2^%.1f");
}

// One small chart per parameter: its winning value (y, the values that occur, in order) against
// the problem size (x, log2 n), one coloured line per series (sample type, binning and bin count),
// so how the winner changes with size and with bin count shows at a glance.
std::string params_svg(const ReportDevice& d) {
  std::vector<std::pair<std::string, std::string>> keys;  // (key, name), in label order
  std::vector<std::string> series;
  std::set<double> xs;
  for (const auto& r : d.rows) {
    if (r.params.empty()) continue;
    for (const auto& p : r.params)
      if (std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == p.key; }) ==
          keys.end())
        keys.emplace_back(p.key, p.name);
    if (std::find(series.begin(), series.end(), r.series) == series.end())
      series.push_back(r.series);
    xs.insert(r.log2_n);
  }
  if (keys.empty()) return "<p>No winning configuration could be read.</p>\n";
  const int cw = 300, ch = 150, cols = 3, legend_h = 26;
  const int pl = 52, pr = 16, pt = 26, pb = 30;  // plot padding inside one chart
  const int rows = static_cast<int>((keys.size() + cols - 1) / cols);
  const int w = cols * cw, h = legend_h + rows * ch;
  std::ostringstream s;
  s << "<svg class=\"params\" role=\"img\" aria-label=\"winning parameters by size and bin count\" "
       "width=\""
    << w << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n<g class=\"legend\">\n";
  int lx = 8;
  for (std::size_t i = 0; i < series.size(); ++i) {
    s << "<circle cx=\"" << lx + 5 << "\" cy=\"13\" r=\"5\" fill=\"" << colour(i) << "\"/>"
      << "<text x=\"" << lx + 14 << "\" y=\"17\" class=\"tick\">" << esc(series[i]) << "</text>\n";
    lx += 24 + static_cast<int>(series[i].size()) * 7;
  }
  s << "</g>\n";
  const double x_lo = *xs.begin(), x_hi = *xs.rbegin();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& [key, name] = keys[i];
    const int ox = static_cast<int>(i % cols) * cw;
    const int oy = legend_h + static_cast<int>(i / cols) * ch;
    const int pw = cw - pl - pr, ph = ch - pt - pb;
    std::set<int> value_set;
    for (const auto& r : d.rows)
      for (const auto& p : r.params)
        if (p.key == key) value_set.insert(p.value);
    const std::vector<int> values(value_set.begin(), value_set.end());
    auto y_of = [&](int v) {
      const auto at = std::find(values.begin(), values.end(), v) - values.begin();
      const double t = values.size() > 1 ? static_cast<double>(at) / (values.size() - 1) : 0.5;
      return pt + ph * (1 - t);
    };
    auto x_of = [&](double log2_n, double serie) {
      const double t = x_hi > x_lo ? (log2_n - x_lo) / (x_hi - x_lo) : 0.5;
      // Series side by side, so equal values at one size do not hide each other.
      const double jitter = (serie - (series.size() - 1) / 2.0) * 5;
      return pl + 8 + t * (pw - 16) + jitter;
    };
    s << "<g class=\"chart\" data-param=\"" << esc(key) << "\" transform=\"translate(" << ox << ','
      << oy << ")\">\n<text x=\"" << pl << "\" y=\"16\" class=\"ctitle\">" << esc(name) << " ("
      << esc(key) << ")</text>\n<rect class=\"frame\" x=\"" << pl << "\" y=\"" << pt - 6
      << "\" width=\"" << pw << "\" height=\"" << ph + 12 << "\"/>\n";
    const bool all_ticks = values.size() <= 6;
    for (std::size_t v = 0; v < values.size(); ++v)
      if (all_ticks || v == 0 || v + 1 == values.size())
        s << "<text x=\"" << pl - 6 << "\" y=\"" << num(y_of(values[v]) + 4, "%.1f")
          << "\" text-anchor=\"end\" class=\"tick\">" << values[v] << "</text>\n";
    for (double x : xs)
      s << "<text x=\"" << num(x_of(x, (series.size() - 1) / 2.0), "%.1f") << "\" y=\""
        << ch - pb + 18 << "\" text-anchor=\"middle\" class=\"tick\">" << pow2_text(x)
        << "</text>\n";
    for (std::size_t si = 0; si < series.size(); ++si) {
      std::string path;
      std::ostringstream dots;
      for (const auto& r : d.rows) {
        if (r.series != series[si]) continue;
        for (const auto& p : r.params) {
          if (p.key != key) continue;
          const double x = x_of(r.log2_n, static_cast<double>(si)), y = y_of(p.value);
          path += (path.empty() ? "M" : " L") + num(x, "%.1f") + "," + num(y, "%.1f");
          dots << "<circle class=\"dot\" cx=\"" << num(x, "%.1f") << "\" cy=\"" << num(y, "%.1f")
               << "\" r=\"4\" fill=\"" << colour(si) << "\"><title>" << esc(r.problem) << ": "
               << esc(key) << '=' << p.value << "</title></circle>\n";
        }
      }
      if (!path.empty())
        s << "<path class=\"trend\" stroke=\"" << colour(si) << "\" d=\"" << path << "\"/>\n";
      s << dots.str();
    }
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string render_report(const ReportData& data) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<title>histtune report</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1000px}\n"
       "h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:15px;margin:18px 0 6px}\n"
       "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:3px 6px;"
       "text-align:right;white-space:nowrap}td:first-child,td:last-child,th:first-child,"
       "th:last-child{text-align:left}\n"
       ".bar.tuned{fill:#2a7ab9}.bar.default{fill:#9bb7cf}.bar.cub{fill:#d98c3a}\n"
       ".range{stroke:#222;stroke-width:1.2;fill:none}\n"
       ".floor{stroke:#333;stroke-width:1.5;stroke-dasharray:4 3}\n"
       ".name{font-size:13px}.val,.tick{font-size:11px}.cfg{font-size:10px;fill:#666}"
       ".ctitle{font-size:12px;font-weight:600}\n"
       ".frame{fill:none;stroke:#ccc}.trend{fill:none;stroke-width:1.5;stroke-opacity:.6}\n"
       ".meta,.note{color:#555;font-size:13px}\n</style></head><body>\n";
  h << "<h1>histtune tuning report</h1>\n<p class=\"meta\">histtune "
    << esc(data.histtune_version) << ", generated " << esc(data.generated_at) << " from "
    << esc(data.db_path) << "</p>\n";
  if (data.devices.empty()) h << "<p>The database holds no tuned problems.</p>\n";
  for (const auto& d : data.devices) {
    bool any_baseline = false;
    for (const auto& r : d.rows) any_baseline = any_baseline || r.cub_ms || r.floor_ms;
    h << "<section class=\"device\"><h2>" << esc(d.name) << "</h2>\n<p class=\"meta toolchain\">"
      << esc(d.arch) << ", " << d.sm_count << " SMs, " << esc(d.uuid) << "<br>CUDA driver "
      << esc(d.driver) << ", CUDA runtime " << esc(d.runtime) << ", NVRTC " << esc(d.nvrtc);
    if (!d.measured_by.empty()) h << "<br>measured by " << esc(d.measured_by);
    h << "</p>\n<h3>Time per problem</h3>\n<p class=\"note\">Medians per call (zero the bins + "
         "launch); whiskers: fastest..slowest call; dashed: the read floor (input bytes / read "
         "bandwidth). Each problem is scaled to its slowest bar; the label under the bars is the "
         "configuration chosen.";
    if (!any_baseline)
      h << " CUB and the floor come from <code>histtune compare</code>, which has not been run "
           "for this device.";
    h << "</p>\n" << bars_svg(d);
    h << "<h3>Winning parameters by problem size and bin count</h3>\n" << params_svg(d);
    h << "<h3>Table</h3>\n<table><tr><th>problem</th><th>tuned ms</th><th>min..max</th>"
         "<th>default ms</th><th>CUB ms</th><th>floor ms</th><th>% of floor</th>"
         "<th>vs default</th><th>vs CUB</th><th>configuration</th></tr>\n";
    for (const auto& r : d.rows) {
      auto cell = [](const std::optional<double>& v) { return v ? num(*v) : std::string("-"); };
      auto ratio = [&](const std::optional<double>& v) {
        return v ? num(*v / r.tuned_ms, "%.2fx") : std::string("-");
      };
      h << "<tr><td>" << esc(r.problem) << "</td><td>" << num(r.tuned_ms) << "</td><td>"
        << (r.tuned_range ? num(r.tuned_range->min_ms) + ".." + num(r.tuned_range->max_ms) : "-")
        << "</td><td>" << cell(r.default_ms) << "</td><td>" << cell(r.cub_ms) << "</td><td>"
        << (r.floor_ms ? num(*r.floor_ms, "%.5f") : "-") << "</td><td>"
        << (r.floor_ms ? num(100 * *r.floor_ms / r.tuned_ms, "%.1f%%") : "-") << "</td><td>"
        << ratio(r.default_ms) << "</td><td>" << ratio(r.cub_ms) << "</td><td>" << esc(r.label)
        << "</td></tr>\n";
    }
    h << "</table></section>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace histtune::cli
