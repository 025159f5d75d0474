// The drawing vocabulary of `histtune report`'s charts: escaping, numbers, a palette whose colours
// do not repeat, log and linear scales that clamp into their frame, and legends that wrap inside
// the SVG's width. Every chart is a `<g class="chart">` holding one `<rect class="frame">` and
// marks of class "mark" drawn inside it; the browser test checks exactly that.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace histtune::cli::svg {

std::string esc(const std::string& s);
std::string num(double v, const char* fmt = "%.4f");
// "2^24" for a log2 value that is an integer, else the value shortened ("8.29M").
std::string pow2_text(double log2_v);

// 24 colours that a reader tells apart; past 24 series, marker() changes instead (colour i % 24,
// shape i / 24), so no two of 96 series look alike.
const char* colour(std::size_t i);
// A marker of series `i` at (x, y) with radius r: circle, square, diamond or triangle.
std::string marker(std::size_t i, double x, double y, double r, const std::string& cls,
                   const std::string& title);

// The width of `text` at `font_px`, estimated (no font metrics here): legends and labels are
// laid out with it, with room to spare.
double text_width(const std::string& text, double font_px);

// A value scale onto [px0, px1], logarithmic or linear; at() clamps into the range, so a mark
// outside the data's span stays inside its frame.
struct Scale {
  double lo = 0, hi = 1, px0 = 0, px1 = 1;
  bool log = false;
  double at(double v) const;
  // Tick values: at most `count` of 1-2-5 (or finer, or coarser) steps on a log scale, about
  // `count` even steps on a linear one.
  std::vector<double> ticks(int count = 6) const;
};

// A chart's frame and title: `<g class="chart" transform=...>`, the title above, the frame rect.
// close_chart() ends the group.
std::string open_chart(double x, double y, double w, double h, const std::string& title,
                       const std::string& data_name = "");
std::string close_chart();
// Tick labels (and light grid lines) of a scale along the bottom (horizontal) or left (vertical)
// of a frame at (x, y, w, h); `fmt` formats a tick value.
std::string x_axis(const Scale& s, double y_bottom, double y_top, const std::vector<double>& ticks,
                   std::string (*fmt)(double));
std::string y_axis(const Scale& s, double x_left, double x_right, const std::vector<double>& ticks,
                   std::string (*fmt)(double));

// A legend item: how it is drawn (an SVG fragment centred on (0, 0)) and its text.
struct LegendItem {
  std::string swatch;
  std::string text;
};
// A swatch of series i (its marker) or of a CSS class (a small filled rect of class `cls`).
std::string series_swatch(std::size_t i);
// Lays the items out left to right from (x, y), wrapping before `max_width`; returns the
// `<g class="legend">` and sets `height` to the rows' height.
std::string legend(const std::vector<LegendItem>& items, double x, double y, double max_width,
                   double& height);

}  // namespace histtune::cli::svg
