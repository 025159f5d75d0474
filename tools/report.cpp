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

// Horizontal bars per problem: tuned, default, CUB, with the floor as a dashed line.
std::string bars_svg(const ReportDevice& d) {
  const int row_h = 58, left = 260, width = 560, top = 24;
  double max_ms = 0;
  for (const auto& r : d.rows)
    max_ms = std::max({max_ms, r.tuned_ms, r.default_ms.value_or(0), r.cub_ms.value_or(0),
                       r.floor_ms.value_or(0)});
  if (max_ms <= 0) max_ms = 1;
  const int h = top + static_cast<int>(d.rows.size()) * row_h + 10;
  std::ostringstream s;
  s << "<svg class=\"bars\" role=\"img\" aria-label=\"time per problem\" width=\"" << left + width + 150
    << "\" height=\"" << h << "\" viewBox=\"0 0 " << left + width + 150 << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  s << "<text x=\"" << left << "\" y=\"14\" class=\"axis\">time per call, ms (shorter is better; "
       "dashed: read floor)</text>\n";
  int y = top;
  for (const auto& r : d.rows) {
    s << "<text x=\"" << left - 8 << "\" y=\"" << y + 22 << "\" text-anchor=\"end\" class=\"name\">"
      << esc(r.problem) << "</text>\n";
    struct Bar {
      const char* cls;
      const char* name;
      std::optional<double> v;
    } bars[] = {{"tuned", "tuned", r.tuned_ms}, {"default", "default", r.default_ms},
                {"cub", "CUB", r.cub_ms}};
    int by = y;
    for (const auto& b : bars) {
      if (b.v) {
        const double w = std::max(1.0, *b.v / max_ms * width);
        s << "<rect class=\"bar " << b.cls << "\" x=\"" << left << "\" y=\"" << by << "\" width=\""
          << num(w, "%.1f") << "\" height=\"14\"><title>" << b.name << ' ' << num(*b.v)
          << " ms</title></rect>\n";
        s << "<text x=\"" << left + w + 4 << "\" y=\"" << by + 11 << "\" class=\"val\">" << b.name
          << ' ' << num(*b.v) << "</text>\n";
      }
      by += 16;
    }
    if (r.floor_ms) {
      const double x = left + *r.floor_ms / max_ms * width;
      s << "<line class=\"floor\" x1=\"" << num(x, "%.1f") << "\" x2=\"" << num(x, "%.1f")
        << "\" y1=\"" << y - 2 << "\" y2=\"" << y + 48 << "\"/>\n";
    }
    y += row_h;
  }
  s << "</svg>\n";
  return s.str();
}

// One small dot chart per parameter: its winning value (y, log2 where the values are powers of
// two) for each problem (x, in table order), so trends with size and bin count show.
std::string params_svg(const ReportDevice& d) {
  std::vector<std::string> keys;
  for (const auto& r : d.rows)
    for (const auto& [k, v] : r.params)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  const int cw = 220, ch = 120, cols = 3;
  const int rows = static_cast<int>((keys.size() + cols - 1) / cols);
  std::ostringstream s;
  s << "<svg class=\"params\" role=\"img\" aria-label=\"winning parameters\" width=\"" << cols * cw
    << "\" height=\"" << rows * ch << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int ox = static_cast<int>(i % cols) * cw, oy = static_cast<int>(i / cols) * ch;
    std::set<int> values;
    for (const auto& r : d.rows)
      for (const auto& [k, v] : r.params)
        if (k == keys[i]) values.insert(v);
    const int lo = *values.begin(), hi = *values.rbegin();
    s << "<g class=\"chart\" transform=\"translate(" << ox << ',' << oy << ")\">\n"
      << "<text x=\"8\" y=\"14\" class=\"ctitle\">" << esc(keys[i]) << " (" << lo << ".." << hi
      << ")</text>\n<rect class=\"frame\" x=\"30\" y=\"22\" width=\"" << cw - 44
      << "\" height=\"" << ch - 40 << "\"/>\n";
    const std::size_t n = d.rows.size();
    std::string path;
    for (std::size_t j = 0; j < n; ++j) {
      for (const auto& [k, v] : d.rows[j].params) {
        if (k != keys[i]) continue;
        const double t = hi == lo ? 0.5 : static_cast<double>(v - lo) / (hi - lo);
        const double x = 36 + (n > 1 ? static_cast<double>(j) / (n - 1) : 0.5) * (cw - 56);
        const double y = 22 + (ch - 46) * (1 - t) + 3;
        path += (path.empty() ? "M" : " L") + num(x, "%.1f") + "," + num(y, "%.1f");
        s << "<circle class=\"dot\" cx=\"" << num(x, "%.1f") << "\" cy=\"" << num(y, "%.1f")
          << "\" r=\"4\"><title>" << esc(d.rows[j].problem) << ": " << esc(k) << '=' << v
          << "</title></circle>\n";
      }
    }
    if (!path.empty()) s << "<path class=\"trend\" d=\"" << path << "\"/>\n";
    s << "<text x=\"26\" y=\"30\" text-anchor=\"end\" class=\"tick\">" << hi << "</text>"
      << "<text x=\"26\" y=\"" << ch - 18 << "\" text-anchor=\"end\" class=\"tick\">" << lo
      << "</text>\n</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string render_report(const ReportData& data) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<title>histtune report</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;margin:24px;color:#222}\n"
       "h1{font-size:22px}h2{font-size:18px;margin-top:28px}\n"
       "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;"
       "text-align:right}td:first-child,td:last-child{text-align:left}\n"
       ".bar.tuned{fill:#2a7ab9}.bar.default{fill:#9bb7cf}.bar.cub{fill:#d98c3a}\n"
       ".floor{stroke:#333;stroke-dasharray:4 3}.name,.val,.axis,.tick,.ctitle{font-size:12px}\n"
       ".frame{fill:none;stroke:#bbb}.dot{fill:#2a7ab9}.trend{fill:none;stroke:#2a7ab9;"
       "stroke-opacity:.4}\n.meta{color:#555;font-size:13px}\n</style></head><body>\n";
  h << "<h1>histtune tuning report</h1>\n<p class=\"meta\">histtune "
    << esc(data.histtune_version) << ", generated " << esc(data.generated_at) << " from "
    << esc(data.db_path) << "</p>\n";
  if (data.devices.empty()) h << "<p>The database holds no tuned problems.</p>\n";
  for (const auto& d : data.devices) {
    h << "<section class=\"device\"><h2>" << esc(d.name) << "</h2>\n<p class=\"meta\">"
      << esc(d.uuid) << ", " << esc(d.arch) << ", driver " << esc(d.driver) << ", CUDA runtime "
      << esc(d.runtime) << ", NVRTC " << esc(d.nvrtc) << "</p>\n";
    h << "<h3>Time per problem</h3>\n" << bars_svg(d);
    h << "<h3>Winning parameters, problem by problem (left to right as in the table)</h3>\n"
      << params_svg(d);
    h << "<h3>Table</h3>\n<table><tr><th>problem</th><th>tuned ms</th><th>default ms</th>"
         "<th>CUB ms</th><th>floor ms</th><th>% of floor</th><th>vs default</th><th>vs CUB</th>"
         "<th>configuration</th></tr>\n";
    for (const auto& r : d.rows) {
      auto cell = [](const std::optional<double>& v) { return v ? num(*v) : std::string("-"); };
      auto ratio = [&](const std::optional<double>& v) {
        return v ? num(*v / r.tuned_ms, "%.2fx") : std::string("-");
      };
      h << "<tr><td>" << esc(r.problem) << "</td><td>" << num(r.tuned_ms) << "</td><td>"
        << cell(r.default_ms) << "</td><td>" << cell(r.cub_ms) << "</td><td>" << cell(r.floor_ms)
        << "</td><td>" << (r.floor_ms ? num(100 * *r.floor_ms / r.tuned_ms, "%.1f%%") : "-")
        << "</td><td>" << ratio(r.default_ms) << "</td><td>" << ratio(r.cub_ms) << "</td><td>"
        << esc(r.label) << "</td></tr>\n";
    }
    h << "</table></section>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace histtune::cli
