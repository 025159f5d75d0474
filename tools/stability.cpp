#include "stability.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

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

std::optional<double> difference(const tuner::SideBySide& t) {
  const auto a = now_ms(t.a), b = now_ms(t.b);
  if (!a || !b) return std::nullopt;
  return difference_percent(*a, *b);
}

// On the first distribution: the figure the stability check gave before it timed several.
std::optional<double> first_difference(const StabilityRow& r) {
  return r.now.empty() ? std::nullopt : difference(r.now.front());
}

// Each side's medians, one per distribution; 0 where it has none (which no ratio accepts).
std::vector<double> medians(const StabilityRow& r, bool side_a) {
  std::vector<double> ms;
  for (const auto& t : r.now) ms.push_back(now_ms(side_a ? t.a : t.b).value_or(0));
  return ms;
}

std::optional<double> worst_difference(const StabilityRow& r) {
  return worst_case_difference_percent(medians(r, true), medians(r, false));
}

// A hair of slack: a difference of exactly 2% must not fail on rounding.
bool within(const std::optional<double>& percent) {
  return percent && std::fabs(*percent) <= 100 * kStabilityTolerance + 1e-9;
}

bool failed(const StabilityRow& r) {
  if (r.now.empty()) return true;  // nothing was timed
  for (const auto& t : r.now)
    if (!t.a.verified || !t.b.verified) return true;
  return r.again && (!r.again->a.verified || !r.again->b.verified);
}

// A signed figure to one decimal with its unit; "-" where there is none. Under 0.05 is +0.0,
// never -0.0: two equal worst cases reached through different distributions differ by a
// rounding error.
std::string signed_text(const std::optional<double>& p, const char* unit) {
  if (!p) return "-";
  return printf_text("%+.1f%s", std::fabs(*p) < 0.05 ? 0.0 : *p, unit);
}

std::string percent_text(const std::optional<double>& p) { return signed_text(p, "%"); }

// A side's time: its median, "WRONG" for a wrong result, "-" when it was not timed.
std::string side_text(const tuner::SideTiming& s) {
  if (s.verified) return fmt_ms(s.timing.median_ms);
  return s.error.find("differs from the host reference") != std::string::npos ? "WRONG" : "-";
}

std::string recorded_text(double ms) { return ms > 0 ? fmt_ms(ms) : "-"; }

std::string points_text(const std::optional<double>& p) { return signed_text(p, " points"); }

nlohmann::json timed_json(const tuner::SideTiming& s) {
  nlohmann::json j = timing_json(s.timing);
  j["verified"] = s.verified;
  if (!s.error.empty()) j["error"] = s.error;
  return j;
}

nlohmann::json side_json(const db::WinnerRow& w, const tuner::SideTiming& s) {
  nlohmann::json j = timed_json(s);
  j["configuration"] = w.config_label;
  j["recorded_ms"] = w.median_ms;
  return j;
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

StabilityRow stability_row(const StabilityPair& pair, std::vector<tuner::SideBySide> timed,
                           std::size_t dists) {
  StabilityRow r{pair, std::move(timed), std::nullopt};
  if (r.now.size() > dists) {
    r.again = r.now.back();
    r.now.pop_back();
  }
  return r;
}

std::optional<double> again_moved(const StabilityRow& r) {
  const auto first = first_difference(r);
  const auto again = r.again ? difference(*r.again) : std::nullopt;
  if (!first || !again) return std::nullopt;
  return *again - *first;
}

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
  std::sort(alike.begin(), alike.end(),
            [](const db::DeviceRow& x, const db::DeviceRow& y) { return x.uuid < y.uuid; });
  if (!alike.empty()) {
    m.device = alike.front();
    for (const auto& d : alike) m.boards.push_back(d.uuid);
    return m;
  }
  m.why_not = "no winners for this GPU (" + gpu.uuid + ") or another " + model(gpu);
  if (!tuned.empty()) {
    m.why_not += "; it holds winners of";
    for (std::size_t i = 0; i < tuned.size(); ++i) m.why_not += (i ? ", " : " ") + model(tuned[i]);
  }
  return m;
}

std::vector<db::WinnerRow> model_winners(const db::Database& database,
                                         const db::DeviceRow& device) {
  std::vector<db::WinnerRow> out = database.winners(device.uuid);
  std::vector<db::DeviceRow> others;
  for (const db::DeviceRow& d : database.devices())
    if (d.uuid != device.uuid && db::same_model(d, device)) others.push_back(d);
  std::sort(others.begin(), others.end(),
            [](const db::DeviceRow& a, const db::DeviceRow& b) { return a.uuid < b.uuid; });
  const std::size_t own = out.size();
  for (const db::DeviceRow& d : others)
    for (db::WinnerRow& w : database.winners(d.uuid))
      if (std::none_of(out.begin(), out.end(),
                       [&](const db::WinnerRow& o) { return o.problem == w.problem; }))
        out.push_back(std::move(w));
  // In the order of winners(): by problem key.
  const auto key = [](const db::WinnerRow& w) {
    const db::ProblemRow& p = w.problem;
    return std::tie(p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels,
                    p.active_channels);
  };
  if (out.size() > own)
    std::stable_sort(out.begin(), out.end(),
                     [&](const db::WinnerRow& a, const db::WinnerRow& b) { return key(a) < key(b); });
  return out;
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
      m.pairs.push_back({wa.problem, wa, *wb, {}, {}, {}, {}});
  }
  for (const auto& wb : b)
    if (find(a, wb.problem) == a.end()) m.only_b.push_back(wb.problem);
  return m;
}

Matched only_problems(const Matched& m, const std::vector<db::ProblemRow>& only) {
  if (only.empty()) return m;
  const auto named = [&](const db::ProblemRow& p) {
    return std::find(only.begin(), only.end(), p) != only.end();
  };
  Matched out;
  for (const StabilityPair& pair : m.pairs)
    if (named(pair.problem)) out.pairs.push_back(pair);
  for (const auto& p : m.only_a)
    if (named(p)) out.only_a.push_back(p);
  for (const auto& p : m.only_b)
    if (named(p)) out.only_b.push_back(p);
  return out;
}

std::vector<db::ProblemRow> unpaired(const Matched& m, const std::vector<db::ProblemRow>& only) {
  std::vector<db::ProblemRow> out;
  for (const auto& p : only)
    if (std::none_of(m.pairs.begin(), m.pairs.end(),
                     [&](const StabilityPair& s) { return s.problem == p; }))
      out.push_back(p);
  return out;
}

Problem timed_problem(const db::ProblemRow& key) {
  for (const Problem& p : tuner::default_plan())
    if (p.key() == key) return p;
  return problem_of(key);
}

bool within_tolerance(double a_ms, double b_ms) {
  return within(difference_percent(a_ms, b_ms));
}

std::vector<std::string> timed_on(const std::vector<db::MeasurementRow>& measurements,
                                  const std::string& label) {
  std::vector<std::string> out;
  for (const auto& m : measurements)
    if (m.verified && m.config_label == label &&
        std::find(out.begin(), out.end(), m.distribution) == out.end())
      out.push_back(m.distribution);
  return out;
}

std::vector<std::string> timed_once_on(const std::vector<db::MeasurementRow>& measurements,
                                       const std::string& label) {
  std::vector<std::string> out;
  for (const std::string& dist : timed_on(measurements, label)) {
    const bool once = std::all_of(measurements.begin(), measurements.end(), [&](const auto& m) {
      return !m.verified || m.config_label != label || m.distribution != dist || m.samples <= 1;
    });
    if (once) out.push_back(dist);
  }
  return out;
}

StabilitySummary stability_summary(const std::vector<StabilityRow>& rows) {
  StabilitySummary s;
  s.compared = rows.size();
  for (const auto& r : rows) {
    if (failed(r)) ++s.failed;
    const bool same = r.pair.a.config_label == r.pair.b.config_label;
    if (same) ++s.same;
    const auto worst = worst_difference(r);
    if (within(worst)) ++s.worst_case_within;
    if (within(worst) || (same && !failed(r))) ++s.within_or_same;
    if (!failed(r) && worst && *worst <= 100 * kStabilityTolerance + 1e-9) ++s.b_as_good;
    if (within(first_difference(r))) ++s.first_within;
    if (within_tolerance(r.pair.a.median_ms, r.pair.b.median_ms)) ++s.recorded_within;
    if (r.again) ++s.again;
    if (r.again && !within(again_moved(r))) ++s.again_moved;
  }
  return s;
}

std::string stability_legend(int rounds, const std::vector<tuner::Distribution>& dists) {
  const std::string first = dists.empty() ? "uniform" : tuner::to_string(dists.front());
  return printf_text(
      "Side by side: both winners timed now, in this process, on the same inputs; data: %s.\n"
      "  %d round%s alternating A B / B A per distribution, each a stable median of calls (zero\n"
      "  the bins + launch), pooled; both outputs verified against the host reference.\n"
      "A ms, B ms: the medians on %s data. Under each distribution: (B - A) / the faster there,\n"
      "  + when B is slower. worst: the tuner's objective; a winner's worst ratio w is the\n"
      "  largest over the distributions of its median / the faster of the two there;\n"
      "  worst = (wB - wA) / the smaller w. within: |worst| <= %.0f%%. Recorded: the time each\n"
      "  run stored for its own winner (on the first distribution it was tuned with).\n",
      distribution_list(dists, ", ").c_str(), rounds, rounds == 1 ? "" : "s", first.c_str(),
      kStabilityTolerance * 100);
}

std::string stability_table_header(const std::vector<tuner::Distribution>& dists) {
  std::string s = printf_text("%-30s %9s %9s", "problem", "A ms", "B ms");
  for (const auto d : dists) s += printf_text(" %8s", tuner::to_string(d));
  return s + printf_text(" %7s %-6s %10s %10s %9s  %s\n", "worst", "within", "recorded A",
                         "recorded B", "rec. diff", "A configuration | B configuration");
}

std::string stability_line(const StabilityRow& r) {
  const auto worst = worst_difference(r);
  const char* verdict = failed(r) ? "FAILED" : within(worst) ? "yes" : "NO";
  const bool same = r.pair.a.config_label == r.pair.b.config_label;
  const tuner::SideBySide none;
  const tuner::SideBySide& first = r.now.empty() ? none : r.now.front();
  std::string s = printf_text("%-30s %9s %9s", problem_spec(r.pair.problem).c_str(),
                              side_text(first.a).c_str(), side_text(first.b).c_str());
  for (const auto& t : r.now) s += printf_text(" %8s", percent_text(difference(t)).c_str());
  s += printf_text(" %7s %-6s %10s %10s %9s  %s | %s\n", percent_text(worst).c_str(), verdict,
                   recorded_text(r.pair.a.median_ms).c_str(),
                   recorded_text(r.pair.b.median_ms).c_str(),
                   percent_text(difference_percent(r.pair.a.median_ms, r.pair.b.median_ms)).c_str(),
                   r.pair.a.config_label.c_str(), same ? "same" : r.pair.b.config_label.c_str());

  // Each message once, with the distributions it came from unless it came from all of them.
  struct Note {
    std::string side, text, where;
    std::size_t count = 0;
  };
  std::vector<Note> notes;
  const auto note = [&](const std::string& side, const std::string& text,
                        tuner::Distribution d) {
    auto it = std::find_if(notes.begin(), notes.end(),
                           [&](const Note& n) { return n.side == side && n.text == text; });
    if (it == notes.end()) it = notes.insert(notes.end(), Note{side, text, "", 0});
    it->where += (it->count++ ? ", " : "") + std::string(tuner::to_string(d));
  };
  for (const auto& t : r.now) {
    if (!t.a.error.empty()) note("A", t.a.error, t.dist);
    if (!t.b.error.empty()) note("B", t.b.error, t.dist);
  }
  for (const auto& t : r.now)
    if (t.a.error.empty() != t.b.error.empty() && t.rounds == 0)
      note(t.a.error.empty() ? "A" : "B", "not timed (one side alone answers nothing)", t.dist);
  for (const auto& n : notes)
    s += "    " + n.side + (n.count == r.now.size() ? "" : " (" + n.where + ")") + ": " + n.text +
         "\n";
  if (r.again)
    s += printf_text("    %s again, after the others: %s %s ms, %s (timed first: %s; moved %s)\n",
                     tuner::to_string(r.again->dist), side_text(r.again->a).c_str(),
                     side_text(r.again->b).c_str(), percent_text(difference(*r.again)).c_str(),
                     percent_text(first_difference(r)).c_str(),
                     points_text(again_moved(r)).c_str());
  if (!same && !failed(r) && worst && !within(worst)) {
    const auto where = [&](const std::vector<std::string>& on, const std::vector<std::string>& once) {
      if (on.empty()) return std::string("never");
      return "on " + join(on) + (once.empty() ? "" : " (one sample, raced out: " + join(once) + ")");
    };
    s += "    A timed B's winner " + where(r.pair.a_timed_b, r.pair.a_raced_b) + "; B timed A's " +
         where(r.pair.b_timed_a, r.pair.b_raced_a) + "\n";
  }
  return s;
}

std::string stability_summary_line(const StabilitySummary& s,
                                   const std::vector<tuner::Distribution>& dists) {
  const double band = kStabilityTolerance * 100;
  std::string line;
  if (dists.size() == 1)
    line = printf_text("%zu of %zu problems within %.0f%% on %s data (side by side, measured now)",
                       s.worst_case_within, s.compared, band, tuner::to_string(dists.front()));
  else
    line = printf_text(
        "%zu of %zu problems within %.0f%% on the worst case over %s (the tuner's objective); %zu "
        "of %zu on %s data alone",
        s.worst_case_within, s.compared, band, distribution_list(dists, ", ").c_str(),
        s.first_within, s.compared, dists.empty() ? "uniform" : tuner::to_string(dists.front()));
  line += printf_text("; recorded times: %zu of %zu within; same configuration: %zu",
                      s.recorded_within, s.compared, s.same);
  line += printf_text(
      "; within or the same configuration (one kernel: equal times, the rest is timing noise): "
      "%zu of %zu",
      s.within_or_same, s.compared);
  line += printf_text(
      "; B as good as A or better (at most %.0f%% slower on the worst case): %zu of %zu", band,
      s.b_as_good, s.compared);
  if (s.again)
    line += printf_text("; %s again after the others: %zu of %zu moved more than %.0f points",
                        dists.empty() ? "uniform" : tuner::to_string(dists.front()),
                        s.again_moved, s.again, band);
  if (s.failed) line += printf_text("; %zu FAILED", s.failed);
  return line + "\n";
}

nlohmann::json stability_row_json(const StabilityRow& r) {
  const auto recorded = difference_percent(r.pair.a.median_ms, r.pair.b.median_ms);
  const auto first = first_difference(r), worst = worst_difference(r);
  const std::vector<double> a_ms = medians(r, true), b_ms = medians(r, false);
  nlohmann::json per = nlohmann::json::array();
  for (const auto& t : r.now) {
    const auto diff = difference(t);
    per.push_back({{"distribution", tuner::to_string(t.dist)},
                   {"a", timed_json(t.a)},
                   {"b", timed_json(t.b)},
                   {"rounds", t.rounds},
                   {"difference_percent", optional_json(diff)},
                   {"within_tolerance", within(diff)}});
  }
  const tuner::SideBySide none;
  const tuner::SideBySide& on_first = r.now.empty() ? none : r.now.front();
  nlohmann::json row = {{"problem", problem_json(r.pair.problem)},
                        {"same_configuration", r.pair.a.config_label == r.pair.b.config_label},
                        {"failed", failed(r)},
                        {"worst_ratio_a", optional_json(pairwise_worst_ratio(a_ms, b_ms))},
                        {"worst_ratio_b", optional_json(pairwise_worst_ratio(b_ms, a_ms))},
                        {"worst_case_difference_percent", optional_json(worst)},
                        {"worst_case_within_tolerance", within(worst)},
                        {"distributions", per},
                        {"a", side_json(r.pair.a, on_first.a)},
                        {"b", side_json(r.pair.b, on_first.b)},
                        {"rounds", on_first.rounds},
                        {"difference_percent", optional_json(first)},
                        {"within_tolerance", within(first)},
                        {"recorded_difference_percent", optional_json(recorded)},
                        {"recorded_within_tolerance",
                         within_tolerance(r.pair.a.median_ms, r.pair.b.median_ms)},
                        {"a_timed_b", r.pair.a_timed_b},
                        {"b_timed_a", r.pair.b_timed_a},
                        {"a_raced_b", r.pair.a_raced_b},
                        {"b_raced_a", r.pair.b_raced_a}};
  if (r.again)
    row["again"] = {{"distribution", tuner::to_string(r.again->dist)},
                    {"a", timed_json(r.again->a)},
                    {"b", timed_json(r.again->b)},
                    {"rounds", r.again->rounds},
                    {"difference_percent", optional_json(difference(*r.again))},
                    {"moved_points", optional_json(again_moved(r))}};
  return row;
}

nlohmann::json stability_json(const std::vector<StabilityRow>& rows, const Matched& matched) {
  const StabilitySummary s = stability_summary(rows);
  nlohmann::json j_rows = nlohmann::json::array(), only_a = nlohmann::json::array(),
                 only_b = nlohmann::json::array();
  for (const auto& r : rows) j_rows.push_back(stability_row_json(r));
  for (const auto& p : matched.only_a) only_a.push_back(problem_spec(p));
  for (const auto& p : matched.only_b) only_b.push_back(problem_spec(p));
  nlohmann::json out = {{"tolerance", kStabilityTolerance},
                        {"rows", j_rows},
                        {"only_in_a", only_a},
                        {"only_in_b", only_b},
                        {"compared", s.compared},
                        {"worst_case_within", s.worst_case_within},
                        {"worst_case_all_within",
                         s.compared > 0 && s.worst_case_within == s.compared},
                        {"within", s.first_within},
                        {"all_within", s.compared > 0 && s.first_within == s.compared},
                        {"recorded_within", s.recorded_within},
                        {"failed", s.failed},
                        {"same_configuration", s.same},
                        {"within_or_same_configuration", s.within_or_same},
                        {"b_as_good", s.b_as_good}};
  if (s.again) {
    out["again"] = s.again;
    out["again_moved"] = s.again_moved;
  }
  return out;
}

}  // namespace histtune::cli
