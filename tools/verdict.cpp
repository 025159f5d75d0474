#include "verdict.hpp"

#include <algorithm>
#include <cmath>

namespace histtune::cli {

Judgement judge(const Spread& tuned, const Spread& other, double tolerance) {
  Judgement j;
  const double a = tuned.median_ms, b = other.median_ms;
  if (!(std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0)) return j;
  // A range given as only a median (min and max unset) is that single point.
  const double a_lo = std::min(tuned.min_ms > 0 ? tuned.min_ms : a, a);
  const double a_hi = std::max(tuned.max_ms, a);
  const double b_lo = std::min(other.min_ms > 0 ? other.min_ms : b, b);
  const double b_hi = std::max(other.max_ms, b);
  j.ranges_overlap = a_lo <= b_hi && b_lo <= a_hi;
  j.within_tolerance = std::max(a, b) <= std::min(a, b) * (1 + tolerance);
  if (j.ranges_overlap || j.within_tolerance)
    j.verdict = Verdict::tie;
  else
    j.verdict = a < b ? Verdict::win : Verdict::loss;
  return j;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::win: return "win";
    case Verdict::loss: return "loss";
    case Verdict::tie: break;
  }
  return "tie";
}

}  // namespace histtune::cli
