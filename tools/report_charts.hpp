// The charts of one device's section of the report, each an inline <svg>.
#pragma once

#include <string>

#include "report.hpp"

namespace histtune::cli {

// Per problem, one row across three panels: time (tuned, default, CUB, floor; whiskers: the
// spread), the speedup of tuned over default and CUB, and the winner's time on each distribution.
std::string problems_svg(const ReportDevice& d);
// % of the read floor against bin count and against size (a roofline seen from the input side).
std::string floor_svg(const ReportDevice& d);
// Per kind of problem, a grid of shapes coloured by the dispatcher's lookup level.
std::string coverage_svg(const ReportDevice& d);
// Per family, one small chart per parameter: its winning value against size, a line per series.
std::string params_svg(const ReportDevice& d);

}  // namespace histtune::cli
