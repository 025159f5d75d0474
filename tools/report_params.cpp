// The parameter charts and the lookup coverage grids of the report (report_charts.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "report_charts.hpp"
#include "report_svg.hpp"

namespace histtune::cli {
namespace {

using svg::esc;
using svg::num;

constexpr double kWidth = 960;

// One family's charts: one per parameter, a line per series; the legend wraps below them.
std::string family_params_svg(const std::vector<const ReportRow*>& rows, const std::string& fam) {
  std::vector<std::pair<std::string, std::string>> keys;  // (key, name), in label order
  std::vector<std::string> series;
  std::set<double> xs;
  for (const ReportRow* r : rows) {
    for (const auto& p : r->params)
      if (std::find_if(keys.begin(), keys.end(), [&](const auto& k) { return k.first == p.key; }) ==
          keys.end())
        keys.emplace_back(p.key, p.name);
    if (std::find(series.begin(), series.end(), r->series) == series.end())
      series.push_back(r->series);
    xs.insert(r->log2_n);
  }
  const int cols = 3;
  const double cw = kWidth / cols, ch = 150, pl = 44, pr = 12, pt = 26, pb = 28, r_dot = 3.5;
  const double pw = cw - pl - pr, ph = ch - pt - pb;
  const int nrows = static_cast<int>((keys.size() + cols - 1) / cols);
  std::vector<svg::LegendItem> items;
  for (std::size_t i = 0; i < series.size(); ++i)
    items.push_back({svg::series_swatch(i), series[i]});
  double legend_h = 0;
  const std::string legend = svg::legend(items, 8, nrows * ch + 4, kWidth - 16, legend_h);
  const double h = nrows * ch + 8 + legend_h;
  // Series side by side at one size, so equal values do not hide each other, by at most 70% of
  // the gap to the next size, and never out of the frame.
  std::map<double, std::vector<std::size_t>> series_at;
  for (const ReportRow* r : rows) {
    auto& at = series_at[r->log2_n];
    const std::size_t si = std::find(series.begin(), series.end(), r->series) - series.begin();
    if (std::find(at.begin(), at.end(), si) == at.end()) at.push_back(si);
  }
  std::size_t most = 1;
  for (const auto& [x, at] : series_at) most = std::max(most, at.size());
  double min_gap = pw;
  for (auto a = xs.begin(), b = std::next(xs.begin()); b != xs.end(); ++a, ++b)
    min_gap = std::min(min_gap, (*b - *a) / std::max(*xs.rbegin() - *xs.begin(), 1e-9) * (pw - 16));
  const double step = std::min(4.0, 0.7 * min_gap / most);
  std::ostringstream s;
  s << "<svg class=\"params\" data-family=\"" << esc(fam)
    << "\" role=\"img\" aria-label=\"winning parameters by size and bin count\" width=\"" << kWidth
    << "\" height=\"" << h << "\" viewBox=\"0 0 " << kWidth << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& [key, name] = keys[i];
    const double ox = (i % cols) * cw + pl, oy = (i / cols) * ch + pt;
    std::set<int> value_set;
    for (const ReportRow* r : rows)
      for (const auto& p : r->params)
        if (p.key == key) value_set.insert(p.value);
    const std::vector<int> values(value_set.begin(), value_set.end());
    auto y_of = [&](int v) {
      const auto at = std::find(values.begin(), values.end(), v) - values.begin();
      const double t = values.size() > 1 ? static_cast<double>(at) / (values.size() - 1) : 0.5;
      return oy + 6 + (ph - 12) * (1 - t);
    };
    svg::Scale xsc;
    xsc.lo = *xs.begin(), xsc.hi = *xs.rbegin(), xsc.px0 = ox + 8, xsc.px1 = ox + pw - 8;
    auto x_of = [&](double log2_n, std::size_t si) {
      const auto& at = series_at.at(log2_n);  // the series with a point at this size
      const double rank = std::find(at.begin(), at.end(), si) - at.begin();
      const double jitter = (rank - (at.size() - 1) / 2.0) * step;
      return std::clamp(xsc.at(log2_n) + jitter, ox + r_dot + 1, ox + pw - r_dot - 1);
    };
    s << svg::open_chart(ox, oy, pw, ph, name + " (" + key + ")", key);
    const bool all_ticks = values.size() <= 6;
    for (std::size_t v = 0; v < values.size(); ++v)
      if (all_ticks || v == 0 || v + 1 == values.size())
        s << "<text x=\"" << ox - 5 << "\" y=\"" << num(y_of(values[v]) + 4, "%.1f")
          << "\" text-anchor=\"end\" class=\"tick\">" << values[v] << "</text>\n";
    std::vector<double> ticks;
    for (double x : xs)
      if (ticks.empty() || xsc.at(x) - xsc.at(ticks.back()) > 30) ticks.push_back(x);
    s << svg::x_axis(xsc, oy + ph, oy, ticks, svg::pow2_text);
    for (std::size_t si = 0; si < series.size(); ++si) {
      std::string path;
      std::ostringstream dots;
      for (const ReportRow* r : rows) {
        if (r->series != series[si]) continue;
        for (const auto& p : r->params) {
          if (p.key != key) continue;
          const double x = x_of(r->log2_n, si), y = y_of(p.value);
          path += (path.empty() ? "M" : " L") + num(x, "%.1f") + "," + num(y, "%.1f");
          dots << svg::marker(si, x, y, r_dot, "mark dot",
                              r->problem + ": " + key + "=" + std::to_string(p.value))
               << '\n';
        }
      }
      if (!path.empty())
        s << "<path class=\"mark trend\" stroke=\"" << svg::colour(si) << "\" d=\"" << path
          << "\"/>\n";
      s << dots.str();
    }
    s << svg::close_chart();
  }
  s << legend << "</svg>\n";
  return s.str();
}

std::string level_class(const ReportCoverageCell& c) {
  std::string cls = "mark cell lvl-" + c.level;
  if (c.tuned) cls += " tuned";
  if (c.stale) cls += " stale";
  if (c.unverified) cls += " unverified";
  return cls;
}

// A grid's tick: the exponent of a power of two, else the value shortened ("8.29M").
std::string log2_text(double v) {
  return std::fabs(v - std::round(v)) < 1e-9 ? num(v, "%.0f") : svg::pow2_text(v);
}

// One kind's grid at (x, y): n across, bins down; returns its width.
std::string coverage_grid(const ReportCoverage& g, double x, double y, double cell_w,
                          double cell_h) {
  const double w = g.log2_ns.size() * cell_w, h = g.log2_bins.size() * cell_h;
  std::ostringstream s;
  s << svg::open_chart(x, y, w, h, g.title, g.title);
  const auto col = [&](double v) {
    return std::find(g.log2_ns.begin(), g.log2_ns.end(), v) - g.log2_ns.begin();
  };
  const auto row = [&](double v) {
    return std::find(g.log2_bins.begin(), g.log2_bins.end(), v) - g.log2_bins.begin();
  };
  for (const auto& c : g.cells)
    s << "<rect class=\"" << level_class(c) << "\" x=\"" << num(x + col(c.log2_n) * cell_w, "%.1f")
      << "\" y=\"" << num(y + row(c.log2_bins) * cell_h, "%.1f") << "\" width=\"" << cell_w
      << "\" height=\"" << cell_h << "\"><title>bins=" << svg::pow2_text(c.log2_bins) << " n="
      << svg::pow2_text(c.log2_n) << ": " << esc(c.summary) << "</title></rect>\n";
  for (std::size_t i = 0; i < g.log2_ns.size(); i += 2)
    s << "<text x=\"" << num(x + (i + 0.5) * cell_w, "%.1f") << "\" y=\"" << y + h + 10
      << "\" text-anchor=\"middle\" class=\"small\">" << log2_text(g.log2_ns[i]) << "</text>\n";
  for (std::size_t i = 0; i < g.log2_bins.size(); i += 2)
    s << "<text x=\"" << x - 3 << "\" y=\"" << num(y + (i + 0.5) * cell_h + 3, "%.1f")
      << "\" text-anchor=\"end\" class=\"small\">" << log2_text(g.log2_bins[i]) << "</text>\n";
  s << svg::close_chart();
  return s.str();
}

}  // namespace

std::string params_svg(const ReportDevice& d) {
  std::vector<std::string> fams;
  for (const auto& r : d.rows)
    if (!r.params.empty() && std::find(fams.begin(), fams.end(), r.family) == fams.end())
      fams.push_back(r.family);
  if (fams.empty()) return "<p>No winning configuration could be read.</p>\n";
  std::string out;
  for (const auto& fam : fams) {
    std::vector<const ReportRow*> rows;
    for (const auto& r : d.rows)
      if (r.family == fam && !r.params.empty()) rows.push_back(&r);
    if (fams.size() > 1) out += "<h4>" + esc(fam) + "</h4>\n";
    out += family_params_svg(rows, fam);
  }
  return out;
}

std::string coverage_svg(const ReportDevice& d) {
  if (d.coverage.empty()) return "";
  const double cell_w = 16, cell_h = 10, pad_l = 24, pad_t = 22, pad_b = 18, gap = 12;
  std::vector<svg::LegendItem> items = {
      {"<rect class=\"key lvl-exact\" x=\"-6\" y=\"-5\" width=\"12\" height=\"10\"/>", "exact"},
      {"<rect class=\"key lvl-same_model\" x=\"-6\" y=\"-5\" width=\"12\" height=\"10\"/>",
       "this problem, another GPU of this model"},
      {"<rect class=\"key lvl-nearest_shape\" x=\"-6\" y=\"-5\" width=\"12\" height=\"10\"/>",
       "nearest tuned shape"},
      {"<rect class=\"key lvl-same_arch\" x=\"-6\" y=\"-5\" width=\"12\" height=\"10\"/>",
       "another GPU of this architecture"},
      {"<rect class=\"key lvl-default\" x=\"-6\" y=\"-5\" width=\"12\" height=\"10\"/>",
       "built-in default"},
      {"<rect class=\"key lvl-default stale\" x=\"-6\" y=\"-5\" width=\"12\" "
       "height=\"10\"/>",
       "tuned here, skipped: stale"},
      {"<rect class=\"key lvl-nearest_shape unverified\" x=\"-6\" y=\"-5\" width=\"12\" "
       "height=\"10\"/>",
       "used unverified (other toolchain)"}};
  double legend_h = 0;
  const std::string legend = svg::legend(items, 0, 0, kWidth, legend_h);
  std::ostringstream s;
  double x = 0, y = legend_h + 6, row_h = 0;
  std::string grids;
  for (const auto& g : d.coverage) {
    const double w =
        pad_l + std::max(g.log2_ns.size() * cell_w, svg::text_width(g.title, 12)) + gap;
    const double h = pad_t + g.log2_bins.size() * cell_h + pad_b;
    if (x > 0 && x + w > kWidth) x = 0, y += row_h, row_h = 0;
    grids += coverage_grid(g, x + pad_l, y + pad_t, cell_w, cell_h);
    x += w;
    row_h = std::max(row_h, h);
  }
  const double h = y + row_h;
  s << "<svg class=\"coverage\" role=\"img\" aria-label=\"lookup level per shape\" width=\""
    << kWidth << "\" height=\"" << h << "\" viewBox=\"0 0 " << kWidth << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    << legend << grids << "</svg>\n";
  return s.str();
}

}  // namespace histtune::cli
