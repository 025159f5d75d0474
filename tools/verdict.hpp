// Whether the tuned configuration beats another (the built-in default, CUB) or the two are a
// statistical tie. Timings of one call vary from run to run; calling a 1% difference inside
// overlapping spreads a "win" would report noise, so such pairs are ties.
#pragma once

namespace histtune::cli {

// The spread of one measurement: the fastest, median and slowest of its repetitions.
struct Spread {
  double min_ms = 0;
  double median_ms = 0;
  double max_ms = 0;
};

// Two medians closer than this are equal: the slower at most 2% above the faster.
constexpr double kTieTolerance = 0.02;

enum class Verdict { win, tie, loss };  // of the tuned configuration against the other

struct Judgement {
  Verdict verdict = Verdict::tie;
  bool ranges_overlap = false;   // min..max of the two intersect
  bool within_tolerance = false;  // medians within the tolerance band
};

// A tie when the min..max ranges overlap or the medians are within `tolerance` (relative to the
// faster); otherwise the lower median wins. Medians that are not positive finite numbers cannot
// be compared and are a tie.
Judgement judge(const Spread& tuned, const Spread& other, double tolerance = kTieTolerance);

const char* to_string(Verdict v);  // "win", "tie", "loss"

}  // namespace histtune::cli
