#include "stability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common.hpp"
#include "histtune/tuner/tuner.hpp"
#include "json_out.hpp"

namespace histtune::cli {
namespace {

std::string model(const db::DeviceRow& d) {
  return d.name + " (sm_" + std::to_string(d.cc_major * 10 + d.cc_minor) + ")";
}

// The side's median where it has one worth comparing: verified in every round.
std::optional<double> now_ms(const tuner::SideTiming& s) {
  if (!s.verified || s.timing.samples == 0) return std::nullopt;
  return s.timing.median_ms;
}

std::optional<double> now_difference(const StabilityRow& r) {
  const auto a = now_ms(r.now.a), b = now_ms(r.now.b);
  if (!a || !b) return std::nullopt;
  return difference_percent(*a, *b);
}

// A hair of slack: a difference of exactly 2% must not fail on rounding.
bool within(const std::optional<double>& percent) {
  return percent && std::fabs(*percent) <= 100 * kStabilityTolerance + 1e-9;
}

bool failed(const StabilityRow& r) { return !r.now.a.verified || !r.now.b.verified; }

std::string percent_text(const std::optional<double>& p) {
  return p ? printf_text("%+.1f%%", *p) : "-";
}

// A side's time: its median, "WRONG" for a wrong result, "-" when it was not timed.
std::string side_text(const tuner::SideTiming& s) {
  if (s.verified) return fmt_ms(s.timing.median_ms);
  return s.error.find("differs from the host reference") != std::string::npos ? "WRONG" : "-";
}

std::string recorded_text(double ms) { return ms > 0 ? fmt_ms(ms) : "-"; }

nlohmann::json side_json(const db::WinnerRow& w, const tuner::SideTiming& s) {
  nlohmann::json j = timing_json(s.timing);
  j["configuration"] = w.config_label;
  j["recorded_ms"] = w.median_ms;
  j["verified"] = s.verified;
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

DeviceMatch match_device(const std::vector<db::DeviceRow>& tuned, const db::DeviceRow& gpu) {
  DeviceMatch m;
  for (const auto& d : tuned)
    if (d.uuid == gpu.uuid) {
      m.device = d;
      m.exact = true;
      return m;
    }
  std::vector<db::DeviceRow> alike;
  for (const auto& d : tuned)
    if (d.name == gpu.name && d.cc_major == gpu.cc_major && d.cc_minor == gpu.cc_minor)
      alike.push_back(d);
  if (alike.size() == 1) {
    m.device = alike.front();
    return m;
  }
  m.why_not = "no winners for this GPU (" + gpu.uuid + ")";
  if (alike.empty()) {
    m.why_not += " or another " + model(gpu);
    if (!tuned.empty()) {
      m.why_not += "; it holds winners of";
      for (std::size_t i = 0; i < tuned.size(); ++i)
        m.why_not += (i ? ", " : " ") + model(tuned[i]);
    }
  } else {
    // Which of several boards stands for this one is not for histtune to guess.
    m.why_not += ", and winners of " + std::to_string(alike.size()) + " other " + model(gpu) +
                 " boards:";
    for (const auto& d : alike) m.why_not += " " + d.uuid;
  }
  return m;
}

Matched match_winners(const std::vector<db::WinnerRow>& a, const std::vector<db::WinnerRow>& b) {
  Matched m;
  auto find = [](const std::vector<db::WinnerRow>& in, const db::ProblemRow& p) {
    return std::find_if(in.begin(), in.end(),
                        [&](const db::WinnerRow& w) { return w.problem == p; });
  };
  for (const auto& wa : a) {
    const auto wb = find(b, wa.problem);
    if (wb == b.end())
      m.only_a.push_back(wa.problem);
    else
      m.pairs.push_back({wa.problem, wa, *wb});
  }
  for (const auto& wb : b)
    if (find(a, wb.problem) == a.end()) m.only_b.push_back(wb.problem);
  return m;
}

Problem timed_problem(const db::ProblemRow& key) {
  for (const Problem& p : tuner::default_plan())
    if (p.key() == key) return p;
  return problem_of(key);
}

std::optional<double> difference_percent(double a_ms, double b_ms) {
  if (!(a_ms > 0) || !(b_ms > 0)) return std::nullopt;
  return 100.0 * (b_ms - a_ms) / std::min(a_ms, b_ms);
}

bool within_tolerance(double a_ms, double b_ms) {
  return within(difference_percent(a_ms, b_ms));
}

StabilitySummary stability_summary(const std::vector<StabilityRow>& rows) {
  StabilitySummary s;
  s.compared = rows.size();
  for (const auto& r : rows) {
    if (failed(r)) ++s.failed;
    if (r.pair.a.config_label == r.pair.b.config_label) ++s.same;
    if (within(now_difference(r))) ++s.within;
    if (within_tolerance(r.pair.a.median_ms, r.pair.b.median_ms)) ++s.recorded_within;
  }
  return s;
}

std::string stability_legend(int rounds) {
  return printf_text(
      "Side by side: both winners timed now, in this process, on the same inputs: %d round%s "
      "alternating A B / B A,\n  each a stable median of calls (zero the bins + launch), "
      "pooled; both outputs verified against the host reference.\n"
      "diff: (B - A) / the faster, + when B is slower; within: |diff| <= %.0f%%. Recorded: "
      "the time each run stored for its own winner.\n",
      rounds, rounds == 1 ? "" : "s", kStabilityTolerance * 100);
}

std::string stability_table_header() {
  return printf_text("%-30s %9s %9s %7s %-6s %10s %10s %9s  %s\n", "problem", "A ms", "B ms",
                     "diff", "within", "recorded A", "recorded B", "rec. diff",
                     "A configuration | B configuration");
}

std::string stability_line(const StabilityRow& r) {
  const auto diff = now_difference(r);
  const char* verdict = failed(r) ? "FAILED" : within(diff) ? "yes" : "NO";
  const bool same = r.pair.a.config_label == r.pair.b.config_label;
  std::string s = printf_text(
      "%-30s %9s %9s %7s %-6s %10s %10s %9s  %s | %s\n", problem_spec(r.pair.problem).c_str(),
      side_text(r.now.a).c_str(), side_text(r.now.b).c_str(), percent_text(diff).c_str(), verdict,
      recorded_text(r.pair.a.median_ms).c_str(), recorded_text(r.pair.b.median_ms).c_str(),
      percent_text(difference_percent(r.pair.a.median_ms, r.pair.b.median_ms)).c_str(),
      r.pair.a.config_label.c_str(), same ? "same" : r.pair.b.config_label.c_str());
  if (!r.now.a.error.empty()) s += "    A: " + r.now.a.error + "\n";
  if (!r.now.b.error.empty()) s += "    B: " + r.now.b.error + "\n";
  if (r.now.a.error.empty() != r.now.b.error.empty() && r.now.rounds == 0)
    s += std::string("    ") + (r.now.a.error.empty() ? "A" : "B") +
         ": not timed (one side alone answers nothing)\n";
  return s;
}

std::string stability_summary_line(const StabilitySummary& s) {
  std::string line = printf_text(
      "%zu of %zu problems within %.0f%% (side by side, measured now); recorded times: %zu of "
      "%zu within; same configuration: %zu",
      s.within, s.compared, kStabilityTolerance * 100, s.recorded_within, s.compared, s.same);
  if (s.failed) line += printf_text("; %zu FAILED", s.failed);
  return line + "\n";
}

nlohmann::json stability_row_json(const StabilityRow& r) {
  const auto recorded = difference_percent(r.pair.a.median_ms, r.pair.b.median_ms);
  const auto diff = now_difference(r);
  return {{"problem", problem_json(r.pair.problem)},
          {"same_configuration", r.pair.a.config_label == r.pair.b.config_label},
          {"a", side_json(r.pair.a, r.now.a)},
          {"b", side_json(r.pair.b, r.now.b)},
          {"rounds", r.now.rounds},
          {"difference_percent", optional_json(diff)},
          {"within_tolerance", within(diff)},
          {"recorded_difference_percent", optional_json(recorded)},
          {"recorded_within_tolerance", within_tolerance(r.pair.a.median_ms, r.pair.b.median_ms)}};
}

nlohmann::json stability_json(const std::vector<StabilityRow>& rows, const Matched& matched) {
  const StabilitySummary s = stability_summary(rows);
  nlohmann::json j_rows = nlohmann::json::array(), only_a = nlohmann::json::array(),
                 only_b = nlohmann::json::array();
  for (const auto& r : rows) j_rows.push_back(stability_row_json(r));
  for (const auto& p : matched.only_a) only_a.push_back(problem_spec(p));
  for (const auto& p : matched.only_b) only_b.push_back(problem_spec(p));
  return {{"tolerance", kStabilityTolerance},
          {"rows", j_rows},
          {"only_in_a", only_a},
          {"only_in_b", only_b},
          {"compared", s.compared},
          {"within", s.within},
          {"recorded_within", s.recorded_within},
          {"failed", s.failed},
          {"same_configuration", s.same},
          {"all_within", s.compared > 0 && s.within == s.compared}};
}

}  // namespace histtune::cli
