#include "compare_view.hpp"

#include <cstdio>

#include "common.hpp"
#include "json_out.hpp"
#include "verdict.hpp"

namespace histtune::cli {
namespace {

Spread spread_of(const tuner::Timing& t) { return {t.min_ms, t.median_ms, t.max_ms}; }

// "tuned wins", "tie (ranges overlap)", "tie (medians within 2%)", "tuned loses".
std::string verdict_text(const Judgement& j) {
  switch (j.verdict) {
    case Verdict::win: return "tuned wins";
    case Verdict::loss: return "tuned loses";
    case Verdict::tie: break;
  }
  if (j.ranges_overlap) return "tie (ranges overlap)";
  return printf_text("tie (medians within %.0f%%)", kTieTolerance * 100);
}

nlohmann::json judgement_json(const Judgement& j, double speedup) {
  return {{"speedup", speedup},
          {"verdict", to_string(j.verdict)},
          {"ranges_overlap", j.ranges_overlap},
          {"medians_within_tolerance", j.within_tolerance}};
}

// What can be judged: a wrong result has no speed worth comparing.
struct Judged {
  bool cub_ran, vs_default_ok, vs_cub_ok;
  double vs_default, vs_cub, pct_floor;
  Judgement j_default, j_cub;
};

Judged judged(const tuner::CompareRow& r) {
  Judged o{};
  o.cub_ran = r.cub_error.empty();
  o.vs_default_ok = r.tuned_ok && r.fallback_ok;
  o.vs_cub_ok = r.tuned_ok && o.cub_ran && r.cub_ok;
  o.vs_default = r.fallback.median_ms / r.tuned.median_ms;
  o.vs_cub = o.cub_ran ? r.cub.median_ms / r.tuned.median_ms : 0;
  o.pct_floor = 100.0 * r.floor_ms / r.tuned.median_ms;
  o.j_default = judge(spread_of(r.tuned), spread_of(r.fallback));
  o.j_cub = judge(spread_of(r.tuned), spread_of(r.cub));
  return o;
}

}  // namespace

std::string compare_legend() {
  return printf_text(
      "Times: min / median / max ms of the calls (zero the bins + launch). Speedup: the other's "
      "median / tuned median.\nTie: the min..max ranges overlap, or the medians are within %.0f%% "
      "of each other; otherwise the lower median wins.\n",
      kTieTolerance * 100);
}

std::string compare_text(const db::ProblemRow& key, const tuner::CompareRow& r, bool verbose) {
  const Judged o = judged(r);
  std::string s = "\n" + problem_name(key) + "  (tuned: " + r.tuned_label + ")\n";
  // --verbose adds how many calls each spread is taken from, after the spread.
  s += printf_text("  %-8s %9s %9s %9s%s  %8s  %s\n", "", "min", "median", "max",
                   verbose ? "  calls" : "", "speedup", "verdict");
  auto line = [&](const char* who, const tuner::Timing& t, bool ok, const std::string& speedup,
                  const std::string& verdict) {
    s += printf_text("  %-8s %9s %9s %9s", who, fmt_ms(t.min_ms).c_str(),
                     fmt_ms(t.median_ms).c_str(), fmt_ms(t.max_ms).c_str());
    if (verbose) s += printf_text("  %5d", t.samples);
    s += printf_text("  %8s  %s", speedup.c_str(), ok ? verdict.c_str() : "WRONG RESULT");
    s.erase(s.find_last_not_of(' ') + 1);  // the tuned row has no speedup
    s += "\n";
  };
  line("tuned", r.tuned, r.tuned_ok, "", "");
  line("default", r.fallback, r.fallback_ok, printf_text("%.2fx", o.vs_default),
       o.vs_default_ok ? verdict_text(o.j_default) : "-");
  if (o.cub_ran)
    line("CUB", r.cub, r.cub_ok, printf_text("%.2fx", o.vs_cub),
         o.vs_cub_ok ? verdict_text(o.j_cub) : "-");
  else
    s += printf_text("  %-8s n/a: %s\n", "CUB", r.cub_error.c_str());
  s += printf_text("  %-8s %9s %9s %9s%s  %7.1f%% of the floor (input bytes / read bandwidth)\n",
                   "floor", "", fmt_ms(r.floor_ms).c_str(), "", verbose ? "       " : "",
                   o.pct_floor);
  return s;
}

nlohmann::json compare_json(const db::ProblemRow& key, const tuner::CompareRow& r) {
  const Judged o = judged(r);
  nlohmann::json j = {{"problem", problem_json(key)},
                      {"configuration", r.tuned_label},
                      {"tuned", timing_json(r.tuned)},
                      {"default", timing_json(r.fallback)},
                      {"floor_ms", r.floor_ms},
                      {"percent_of_floor", o.pct_floor}};
  j["tuned"]["verified"] = r.tuned_ok;
  j["default"]["verified"] = r.fallback_ok;
  j["vs_default"] = o.vs_default_ok ? judgement_json(o.j_default, o.vs_default) : nlohmann::json();
  if (o.cub_ran) {
    j["cub"] = timing_json(r.cub);
    j["cub"]["verified"] = r.cub_ok;
  } else {
    j["cub"] = {{"error", r.cub_error}};
  }
  j["vs_cub"] = o.vs_cub_ok ? judgement_json(o.j_cub, o.vs_cub) : nlohmann::json();
  return j;
}

db::BaselineRow baseline_of(const tuner::CompareRow& r, double gbps) {
  db::BaselineRow b;
  if (r.fallback_ok) {
    b.default_ms = r.fallback.median_ms;
    b.default_min_ms = r.fallback.min_ms;
    b.default_max_ms = r.fallback.max_ms;
  }
  if (r.cub_error.empty() && r.cub_ok) {
    b.cub_ms = r.cub.median_ms;
    b.cub_min_ms = r.cub.min_ms;
    b.cub_max_ms = r.cub.max_ms;
  }
  b.floor_ms = r.floor_ms;
  b.read_gbps = gbps;
  return b;
}

}  // namespace histtune::cli
