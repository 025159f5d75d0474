// The per-problem panels and the floor charts of the report (report_charts.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "report_charts.hpp"
#include "report_svg.hpp"

namespace histtune::cli {
namespace {

using svg::esc;
using svg::num;

constexpr double kWidth = 960;  // every chart's SVG: inside the page's 1000 px

// Distribution colours: palette entries unlike the tuned, default and CUB marks' blue, grey and
// orange.
std::size_t distribution_colour(const std::string& name) {
  static const char* const known[] = {"uniform", "skewed", "constant", "runs"};
  static const std::size_t colours[] = {4, 5, 6, 9};
  for (std::size_t i = 0; i < 4; ++i)
    if (name == known[i]) return colours[i];
  return 8;
}

std::string ms_text(double v) {
  return v >= 1 ? num(v, "%.1f") : v >= 0.01 ? num(v, "%.3g") : num(v, "%.2g");
}
std::string times_text(double v) { return num(v, v < 2 ? "%.3gx" : "%.2gx"); }

// A horizontal whisker from x0 to x1 at y, with end caps.
std::string whisker(double x0, double x1, double y, const std::string& cls,
                    const std::string& title) {
  return "<path class=\"mark range " + cls + "\" d=\"M" + num(x0, "%.1f") + ',' +
         num(y - 3, "%.1f") + " V" + num(y + 3, "%.1f") + " M" + num(x0, "%.1f") + ',' +
         num(y, "%.1f") + " H" + num(x1, "%.1f") + " M" + num(x1, "%.1f") + ',' +
         num(y - 3, "%.1f") + " V" + num(y + 3, "%.1f") + "\"><title>" + esc(title) +
         "</title></path>\n";
}

std::string dot(const std::string& cls, double x, double y, double r, const std::string& title) {
  return "<circle class=\"mark " + cls + "\" cx=\"" + num(x, "%.1f") + "\" cy=\"" +
         num(y, "%.1f") + "\" r=\"" + num(r, "%.1f") + "\"><title>" + esc(title) +
         "</title></circle>\n";
}

// The span of every value `of` gives, widened by `pad` on a log scale.
template <class Of>
svg::Scale log_scale(const std::vector<ReportRow>& rows, Of of, double pad, double must_lo,
                     double must_hi) {
  double lo = must_lo, hi = must_hi;
  for (const auto& r : rows)
    for (double v : of(r))
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  svg::Scale s;
  s.log = true;
  s.lo = lo / pad;
  s.hi = hi * pad;
  return s;
}

std::vector<double> times_of(const ReportRow& r) {
  std::vector<double> v{r.tuned_ms};
  for (auto o : {r.default_ms, r.cub_ms, r.floor_ms})
    if (o) v.push_back(*o);
  for (auto g : {r.tuned_range, r.default_range, r.cub_range})
    if (g) v.push_back(g->min_ms), v.push_back(g->max_ms);
  return v;
}

std::vector<double> speedups_of(const ReportRow& r) {
  std::vector<double> v;
  for (auto o : {r.default_ms, r.cub_ms})
    if (o) v.push_back(*o / r.tuned_ms);
  return v;
}

// The winner's time on each distribution relative to its time on the first (uniform) one.
std::vector<double> spread_of(const ReportRow& r) {
  std::vector<double> v;
  if (r.by_distribution.empty() || r.by_distribution.front().median_ms <= 0) return v;
  for (const auto& t : r.by_distribution)
    v.push_back(t.median_ms / r.by_distribution.front().median_ms);
  return v;
}

// One problem's marks in the time panel.
std::string time_marks(const ReportRow& r, const svg::Scale& s, double y) {
  std::ostringstream o;
  struct Mark {
    const char* cls;
    const char* name;
    std::optional<double> v;
    std::optional<ReportRange> range;
    double dy;
  } marks[] = {{"cub", "CUB", r.cub_ms, r.cub_range, 4},  // tuned last: on top
               {"default", "default", r.default_ms, r.default_range, 0},
               {"tuned", "tuned", r.tuned_ms, r.tuned_range, -4}};
  if (r.floor_ms) {
    const std::string x = num(s.at(*r.floor_ms), "%.1f");
    o << "<line class=\"mark floor\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\""
      << num(y - 7, "%.1f") << "\" y2=\"" << num(y + 7, "%.1f") << "\"><title>"
      << esc(r.problem) << ": read floor " << num(*r.floor_ms, "%.5f") << " ms</title></line>\n";
  }
  for (const auto& m : marks) {
    if (!m.v) continue;
    const std::string what = r.problem + ": " + m.name + " " + num(*m.v) + " ms";
    if (m.range)
      o << whisker(s.at(m.range->min_ms), s.at(m.range->max_ms), y + m.dy, m.cls,
                   what + " (calls " + num(m.range->min_ms) + ".." + num(m.range->max_ms) + ")");
    o << dot(m.cls, s.at(*m.v), y + m.dy, 3.5,
             what + (std::string(m.cls) == "tuned" ? ", " + r.label : ""));
  }
  return o.str();
}

// One problem's marks in the speedup panel: the other's median over tuned's, the whisker from
// the spreads where both are known (slowest other / fastest tuned .. the reverse).
std::string speedup_marks(const ReportRow& r, const svg::Scale& s, double y) {
  std::ostringstream o;
  const auto one = [&](const char* cls, const char* name, std::optional<double> v,
                       std::optional<ReportRange> range, double dy) {
    if (!v) return;
    const double x = *v / r.tuned_ms;
    if (range && r.tuned_range)
      o << whisker(s.at(range->min_ms / r.tuned_range->max_ms),
                   s.at(range->max_ms / r.tuned_range->min_ms), y + dy, cls,
                   r.problem + ": vs " + name + " over the calls' spread");
    o << dot(cls, s.at(x), y + dy, 3.5, r.problem + ": tuned is " + times_text(x) + " " + name);
  };
  one("default", "the default", r.default_ms, r.default_range, -3);
  one("cub", "CUB", r.cub_ms, r.cub_range, 3);
  return o.str();
}

std::string distribution_marks(const ReportRow& r, const svg::Scale& s, double y) {
  std::ostringstream o;
  if (r.by_distribution.empty() || r.by_distribution.front().median_ms <= 0) return "";
  // The first (uniform) is the dashed 1x line itself.
  for (const auto& t : r.by_distribution) {
    if (&t == &r.by_distribution.front()) continue;
    const double x = t.median_ms / r.by_distribution.front().median_ms;
    o << svg::marker(distribution_colour(t.distribution), s.at(x), y, 3.5, "mark dist",
                     r.problem + ": " + t.distribution + " " + num(t.median_ms) + " ms (" +
                         times_text(x) + " of " + r.by_distribution.front().distribution + ")")
      << '\n';
  }
  return o.str();
}

std::string problems_legend(double width, bool distributions, double& height) {
  std::vector<svg::LegendItem> items = {
      {"<circle class=\"key tuned\" r=\"4\"/>", "tuned"},
      {"<circle class=\"key default\" r=\"4\"/>", "built-in default (per shape)"},
      {"<circle class=\"key cub\" r=\"4\"/>", "CUB"},
      {"<line class=\"key floor\" x1=\"0\" x2=\"0\" y1=\"-6\" y2=\"6\"/>", "read floor"},
      {"<path class=\"key range\" d=\"M-6,-3 V3 M-6,0 H6 M6,-3 V3\"/>", "fastest..slowest call"}};
  for (const char* dist : {"skewed", "constant", "runs"})
    if (distributions)
      items.push_back({svg::marker(distribution_colour(dist), 0, 0, 4, "key", ""),
                       std::string("winner on ") + dist + " / on uniform"});
  return svg::legend(items, 0, 0, width, height);
}

}  // namespace

std::string problems_svg(const ReportDevice& d) {
  double label_w = 160;
  for (const auto& r : d.rows)
    label_w = std::max(label_w, svg::text_width(r.problem + (r.stale ? " (stale)" : ""), 12) + 14);
  label_w = std::min(label_w, 360.0);
  // The distribution panel only where the winner was timed on more than one distribution.
  bool distributions = false;
  for (const auto& r : d.rows) distributions = distributions || r.by_distribution.size() > 1;
  double legend_h = 0;
  const std::string legend = problems_legend(kWidth, distributions, legend_h);
  // 18 px a problem; a few problems get more room.
  const double pitch = std::clamp(240.0 / std::max<std::size_t>(d.rows.size(), 1), 18.0, 26.0);
  const double top = legend_h + 30, gap = 18;
  const double frame_h = d.rows.size() * pitch + 6;
  const double avail = kWidth - label_w - 2 * gap - 4;  // the third gap goes when dw is 0
  const double tw = avail * (distributions ? 0.4 : 0.55), sw = avail * (distributions ? 0.3 : 0.45),
               dw = avail - tw - sw;
  const double tx = label_w, sx = tx + tw + gap, dx = sx + sw + gap;
  svg::Scale ts = log_scale(d.rows, times_of, 1.15, 1e300, 0);
  ts.px0 = tx + 6, ts.px1 = tx + tw - 6;
  svg::Scale ss = log_scale(d.rows, speedups_of, 1.1, 0.9, 1.1);
  ss.px0 = sx + 6, ss.px1 = sx + sw - 6;
  svg::Scale ds = log_scale(d.rows, spread_of, 1.1, 0.9, 1.1);
  ds.px0 = dx + 6, ds.px1 = dx + dw - 6;
  const double h = top + frame_h + 34;
  std::ostringstream s;
  s << "<svg class=\"problems\" role=\"img\" aria-label=\"time, speedup and distributions per "
       "problem\" width=\""
    << kWidth << "\" height=\"" << h << "\" viewBox=\"0 0 " << kWidth << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    << legend;
  // Alternate series get a band, so a size sweep reads as one group.
  std::string bands, names;
  std::size_t group = 0;
  for (std::size_t i = 0; i < d.rows.size(); ++i) {
    const auto& r = d.rows[i];
    if (i > 0 && r.series != d.rows[i - 1].series) ++group;
    const double y = top + 3 + i * pitch;
    if (group % 2)
      bands += "<rect class=\"band\" x=\"0\" y=\"" + num(y, "%.1f") + "\" width=\"" +
               num(kWidth, "%.0f") + "\" height=\"" + num(pitch, "%.0f") + "\"/>\n";
    names += "<text x=\"" + num(label_w - 8, "%.1f") + "\" y=\"" + num(y + pitch / 2 + 4, "%.1f") +
             "\" text-anchor=\"end\" class=\"name" + (r.stale ? " stale" : "") + "\">" +
             esc(r.problem) + (r.stale ? " (stale)" : "") + "<title>" + esc(r.label) +
             "</title></text>\n";
  }
  s << bands << names;
  const auto panel = [&](double x, double w, const svg::Scale& sc, const char* name,
                         const char* title, std::string (*fmt)(double), auto marks,
                         bool one_line) {
    s << svg::open_chart(x, top, w, frame_h, title, name)
      << svg::x_axis(sc, top + frame_h, top, sc.ticks(), fmt);
    if (one_line) {
      const std::string x1 = num(sc.at(1), "%.1f");
      s << "<line class=\"one\" x1=\"" << x1 << "\" x2=\"" << x1 << "\" y1=\"" << top
        << "\" y2=\"" << top + frame_h << "\"/>\n";
    }
    for (std::size_t i = 0; i < d.rows.size(); ++i)
      s << "<g class=\"row" << (d.rows[i].stale ? " stale" : "") << "\">"
        << marks(d.rows[i], sc, top + 3 + i * pitch + pitch / 2) << "</g>\n";
    s << svg::close_chart();
  };
  panel(tx, tw, ts, "time", "time per call, ms", ms_text, time_marks, false);
  panel(sx, sw, ss, "speedup", "tuned speedup (>1: faster)", times_text, speedup_marks, true);
  if (distributions)
    panel(dx, dw, ds, "distribution", "winner per distribution", times_text, distribution_marks,
          true);
  s << "</svg>\n";
  return s.str();
}

std::string floor_svg(const ReportDevice& d) {
  std::vector<std::string> kinds;  // colour by sample type (and multi-channel)
  double top_pct = 100;
  for (const auto& r : d.rows) {
    if (!r.floor_ms) continue;
    const std::string k = r.sample_type + (r.family == "hist1d" ? "" : " " + r.family);
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
    top_pct = std::max(top_pct, 100 * *r.floor_ms / r.tuned_ms);
  }
  if (kinds.empty())
    return "<p class=\"note\">No read floor: <code>histtune compare</code> measures it.</p>\n";
  const double cw = (kWidth - 40) / 2, ch = 220, pl = 44, top = 26;
  std::vector<svg::LegendItem> items;
  for (std::size_t i = 0; i < kinds.size(); ++i) items.push_back({svg::series_swatch(i), kinds[i]});
  double legend_h = 0;
  const std::string legend = svg::legend(items, pl, top + ch + 36, kWidth - pl, legend_h);
  const double h = top + ch + 40 + legend_h;
  std::ostringstream s;
  s << "<svg class=\"roofline\" role=\"img\" aria-label=\"% of the read floor by bins and size\" "
       "width=\""
    << kWidth << "\" height=\"" << h << "\" viewBox=\"0 0 " << kWidth << ' ' << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  svg::Scale ys;
  ys.lo = 0, ys.hi = std::min(top_pct * 1.08, 150.0), ys.px0 = top + ch - 6, ys.px1 = top + 6;
  for (int panel = 0; panel < 2; ++panel) {
    const double x0 = pl + panel * (cw + 40), w = cw - pl;
    svg::Scale xs;
    xs.lo = 1e9, xs.hi = -1e9;
    for (const auto& r : d.rows) {
      const double v = panel ? r.log2_n : r.log2_bins;
      xs.lo = std::min(xs.lo, v - 0.5), xs.hi = std::max(xs.hi, v + 0.5);
    }
    xs.px0 = x0 + 8, xs.px1 = x0 + w - 8;
    std::vector<double> xt;
    for (double v = std::ceil(xs.lo); v <= xs.hi; v += xs.hi - xs.lo > 12 ? 2 : 1)
      xt.push_back(v);
    s << svg::open_chart(x0, top, w, ch,
                         panel ? "% of the read floor by size n"
                               : "% of the read floor by bin count",
                         panel ? "floor-by-n" : "floor-by-bins")
      << svg::x_axis(xs, top + ch, top, xt, svg::pow2_text)
      << svg::y_axis(ys, x0, x0 + w, ys.ticks(5),
                     [](double v) { return num(v, "%.0f%%"); });
    const std::string y100 = num(ys.at(100), "%.1f");
    s << "<line class=\"one\" x1=\"" << x0 << "\" x2=\"" << x0 + w << "\" y1=\"" << y100
      << "\" y2=\"" << y100 << "\"/>\n";
    for (const auto& r : d.rows) {
      if (!r.floor_ms) continue;
      const std::string k = r.sample_type + (r.family == "hist1d" ? "" : " " + r.family);
      const std::size_t i = std::find(kinds.begin(), kinds.end(), k) - kinds.begin();
      const double pct = 100 * *r.floor_ms / r.tuned_ms;
      s << svg::marker(i, xs.at(panel ? r.log2_n : r.log2_bins), ys.at(pct), 4,
                       std::string("mark pct") + (r.stale ? " stale" : ""),
                       r.problem + ": " + num(pct, "%.1f") + "% of floor")
        << '\n';
    }
    s << svg::close_chart();
  }
  s << legend << "</svg>\n";
  return s.str();
}

}  // namespace histtune::cli
