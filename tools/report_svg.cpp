#include "report_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace histtune::cli::svg {

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

std::string num(double v, const char* fmt) {
  char b[48];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

std::string pow2_text(double log2_v) {
  if (std::fabs(log2_v - std::round(log2_v)) < 1e-9) return num(log2_v, "2^%.0f");
  const double v = std::exp2(log2_v);  // not a power of two: its value, shortened
  return v >= 1e9 ? num(v / 1e9, "%.3gG") : v >= 1e6 ? num(v / 1e6, "%.3gM")
                                                    : num(v / 1e3, "%.3gK");
}

namespace {
// Ten strong colours, four dark ones, then the ten strong ones lightened: neighbours in the
// list differ in hue, and the light half comes only past 14 series.
const char* const kPalette[] = {
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#aec7e8", "#ffbb78",
    "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};
constexpr std::size_t kColours = sizeof kPalette / sizeof *kPalette;
}  // namespace

const char* colour(std::size_t i) { return kPalette[i % kColours]; }

std::string marker(std::size_t i, double x, double y, double r, const std::string& cls,
                   const std::string& title) {
  const std::string fill = std::string(" fill=\"") + colour(i) + "\"";
  const std::string t = title.empty() ? "" : "<title>" + esc(title) + "</title>";
  const std::string c = "class=\"" + cls + "\"";
  std::ostringstream s;
  switch (i / kColours % 4) {
    case 0:
      s << "<circle " << c << " cx=\"" << num(x, "%.1f") << "\" cy=\"" << num(y, "%.1f")
        << "\" r=\"" << num(r, "%.1f") << '"' << fill << '>' << t << "</circle>";
      break;
    case 1:
      s << "<rect " << c << " x=\"" << num(x - r, "%.1f") << "\" y=\"" << num(y - r, "%.1f")
        << "\" width=\"" << num(2 * r, "%.1f") << "\" height=\"" << num(2 * r, "%.1f") << '"'
        << fill << '>' << t << "</rect>";
      break;
    default: {
      const bool diamond = i / kColours % 4 == 2;
      s << "<path " << c << " d=\"M" << num(x, "%.1f") << ',' << num(y - r, "%.1f");
      if (diamond)
        s << " L" << num(x + r, "%.1f") << ',' << num(y, "%.1f") << " L" << num(x, "%.1f") << ','
          << num(y + r, "%.1f") << " L" << num(x - r, "%.1f") << ',' << num(y, "%.1f");
      else
        s << " L" << num(x + r, "%.1f") << ',' << num(y + r, "%.1f") << " L"
          << num(x - r, "%.1f") << ',' << num(y + r, "%.1f");
      s << " Z\"" << fill << '>' << t << "</path>";
    }
  }
  return s.str();
}

double text_width(const std::string& text, double font_px) {
  double w = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte: counted with its lead
    w += (c == ' ' || c == '.' || c == ',' || c == 'i' || c == 'l' || c == '1') ? 0.35
         : (c >= 'A' && c <= 'Z') || c == 'm' || c == 'w'                     ? 0.8
                                                                              : 0.6;
  }
  return w * font_px;
}

double Scale::at(double v) const {
  double t;
  if (log) {
    const double a = std::log(lo), b = std::log(hi);
    t = b > a ? (std::log(std::max(v, 1e-300)) - a) / (b - a) : 0.5;
  } else {
    t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
  }
  return px0 + std::clamp(t, 0.0, 1.0) * (px1 - px0);
}

std::vector<double> Scale::ticks(int count) const {
  std::vector<double> out;
  if (log) {
    // The finest of these steps that gives at most `count` ticks (and at least 3 when it can).
    const std::vector<std::vector<double>> steps = {
        {1, 1.1, 1.2, 1.3, 1.5, 1.7, 2, 2.5, 3, 4, 5, 6, 8}, {1, 1.5, 2, 3, 5, 7}, {1, 2, 5},
        {1, 3}, {1}};
    for (const auto& step : steps) {
      out.clear();
      for (double decade = std::pow(10, std::floor(std::log10(lo))); decade <= hi * 1.0001;
           decade *= 10)
        for (double m : step)
          if (m * decade >= lo * 0.9999 && m * decade <= hi * 1.0001) out.push_back(m * decade);
      if (static_cast<int>(out.size()) <= count) break;
    }
    return out;
  }
  const double raw = (hi - lo) / std::max(count, 1);
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-6; v += step) out.push_back(v);
  return out;
}

std::string open_chart(double x, double y, double w, double h, const std::string& title,
                       const std::string& data_name) {
  std::ostringstream s;
  s << "<g class=\"chart\"" << (data_name.empty() ? "" : " data-name=\"" + esc(data_name) + "\"")
    << ">\n";
  if (!title.empty())
    s << "<text x=\"" << num(x, "%.1f") << "\" y=\"" << num(y - 8, "%.1f")
      << "\" class=\"ctitle\">" << esc(title) << "</text>\n";
  s << "<rect class=\"frame\" x=\"" << num(x, "%.1f") << "\" y=\"" << num(y, "%.1f")
    << "\" width=\"" << num(w, "%.1f") << "\" height=\"" << num(h, "%.1f") << "\"/>\n";
  return s.str();
}

std::string close_chart() { return "</g>\n"; }

std::string x_axis(const Scale& s, double y_bottom, double y_top, const std::vector<double>& ticks,
                   std::string (*fmt)(double)) {
  std::ostringstream o;
  for (double t : ticks) {
    const std::string x = num(s.at(t), "%.1f");
    o << "<line class=\"grid\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << num(y_top, "%.1f")
      << "\" y2=\"" << num(y_bottom, "%.1f") << "\"/><text x=\"" << x << "\" y=\""
      << num(y_bottom + 13, "%.1f") << "\" text-anchor=\"middle\" class=\"tick\">" << fmt(t)
      << "</text>\n";
  }
  return o.str();
}

std::string y_axis(const Scale& s, double x_left, double x_right, const std::vector<double>& ticks,
                   std::string (*fmt)(double)) {
  std::ostringstream o;
  for (double t : ticks) {
    const std::string y = num(s.at(t), "%.1f");
    o << "<line class=\"grid\" x1=\"" << num(x_left, "%.1f") << "\" x2=\"" << num(x_right, "%.1f")
      << "\" y1=\"" << y << "\" y2=\"" << y << "\"/><text x=\"" << num(x_left - 5, "%.1f")
      << "\" y=\"" << num(s.at(t) + 4, "%.1f") << "\" text-anchor=\"end\" class=\"tick\">"
      << fmt(t) << "</text>\n";
  }
  return o.str();
}

std::string series_swatch(std::size_t i) { return marker(i, 0, 0, 5, "key", ""); }

std::string legend(const std::vector<LegendItem>& items, double x, double y, double max_width,
                   double& height) {
  const double row_h = 18, font = 11;
  std::ostringstream s;
  s << "<g class=\"legend\">\n";
  double lx = x, ly = y;
  for (const auto& item : items) {
    const double w = 16 + text_width(item.text, font) + 14;
    if (lx > x && lx + w > x + max_width) {
      lx = x;
      ly += row_h;
    }
    s << "<g transform=\"translate(" << num(lx + 6, "%.1f") << ',' << num(ly + 9, "%.1f") << ")\">"
      << item.swatch << "<text x=\"10\" y=\"4\" class=\"tick\">" << esc(item.text)
      << "</text></g>\n";
    lx += w;
  }
  s << "</g>\n";
  height = items.empty() ? 0 : ly - y + row_h;
  return s.str();
}

}  // namespace histtune::cli::svg
