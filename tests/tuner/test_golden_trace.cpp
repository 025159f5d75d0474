// tune_with's golden traces: for a few problems and options, everything the phases ask of the
// bench (each prefetch batch and each measurement, with its distribution, in order), every
// progress report and every field of the result, compared line by line with
// fixtures/golden_trace.txt, captured from the tuner before its phases were split into methods.
// A rearrangement of the tuner that changes nothing keeps every line; a change of behaviour shows
// as the first line that differs.
//
// To capture the traces again (only where behaviour is meant to change): run this test with
// HISTTUNE_GOLDEN_OUT=<file>, read the differences, and copy the file over the fixture.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fake_bench.hpp"
#include "fake_device.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/tuner/tuner.hpp"
#include "landscapes.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;

namespace {

// Every number with all its digits: a rearrangement must not move one.
std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The fake bench, recording what it is asked in the trace.
class TracingBench : public FakeBench {
 public:
  TracingBench(Cost cost, std::ostringstream& trace) : FakeBench(std::move(cost)), trace_(trace) {}

  Measured measure(const Point& p, Distribution dist, const tuner::TimingOptions* how) override {
    trace_ << "M " << to_string(dist) << ' ' << label(p) << '\n';
    return FakeBench::measure(p, dist, how);
  }
  void prefetch(const std::vector<Point>& pts) override {
    trace_ << "P";
    for (const Point& p : pts) trace_ << ' ' << label(p);
    trace_ << '\n';
    FakeBench::prefetch(pts);
  }

 private:
  std::ostringstream& trace_;
};

void write_finalist(std::ostringstream& out, const char* kind, const Finalist& f) {
  out << kind << ' ' << f.label << " worst " << num(f.worst_ratio) << " regret " << num(f.regret)
      << " ms";
  for (double v : f.median_ms) out << ' ' << num(v);
  out << '\n';
}

void write_result(std::ostringstream& out, const TuneResult& r) {
  out << "strategy " << r.strategy << " template " << r.template_hash << '\n';
  out << "distributions";
  for (const std::string& d : r.distributions) out << ' ' << d;
  out << '\n';
  out << "measurements " << r.measurements.size() << " reused " << r.reused << " pruned "
      << r.pruned << " compiled " << r.compiled << " valid " << r.valid << '\n';
  out << "search " << r.search_evaluations << " polish " << r.polish_evaluations
      << " factorial " << r.factorial_evaluations << " worst_case " << r.worst_case_evaluations
      << " second_search '" << r.second_search << "' " << r.second_search_evaluations
      << " stopped_early " << r.stopped_early << '\n';
  out << "failed " << r.failed << " decision_dropped " << r.decision_dropped << '\n';
  for (const std::string& e : r.errors) out << "error " << e << '\n';
  for (const db::MeasurementRow& m : r.measurements)
    out << "row " << m.distribution << ' ' << m.config_label << ' ' << m.params_json << ' '
        << num(m.median_ms) << ' ' << num(m.min_ms) << ' ' << num(m.max_ms) << ' ' << m.samples
        << ' ' << m.verified << ' ' << m.template_hash << '\n';
  out << "winner '" << r.winner << "' " << num(r.winner_ms) << ' ' << num(r.winner_worst_ratio)
      << '\n';
  for (const DistributionWinner& w : r.by_distribution)
    out << "by_distribution " << w.distribution << ' ' << w.label << ' ' << num(w.median_ms)
        << '\n';
  for (const Finalist& f : r.finalists) write_finalist(out, "finalist", f);
  for (const Finalist& f : r.references) write_finalist(out, "reference", f);
}

// One case: a problem's space, a cost landscape and options; its trace is what the fixture holds.
struct Case {
  std::string name;
  SearchSpace space;
  FakeBench::Cost cost;
  TuneOptions options;
  std::function<std::string(const Point&)> label;  // the bench's labels; empty: cfg.i.j.k
};

std::string trace_of(const Case& c, TuneResult* result = nullptr) {
  std::ostringstream out;
  struct Labelled : TracingBench {
    Labelled(FakeBench::Cost cost, std::ostringstream& trace,
             std::function<std::string(const Point&)> of)
        : TracingBench(std::move(cost), trace), of_(std::move(of)) {}
    std::string label(const Point& p) const override {
      return of_ ? of_(p) : TracingBench::label(p);
    }
    std::function<std::string(const Point&)> of_;
  } bench(c.cost, out, c.label);
  TuneOptions o = c.options;
  std::size_t reported = 0;
  o.on_progress = [&](const Progress& p) {
    out << "G " << p.done << '/' << p.total << ' ' << p.label << '\n';
  };
  o.on_measurement = [&](const db::MeasurementRow&) { ++reported; };
  const TuneResult r = tune_with(Problem{}, c.space, bench, o);
  out << "reported " << reported << '\n';
  write_result(out, r);
  if (result) *result = r;
  return out.str();
}

// A fixed pseudo-random number in [0, 1) per point and distribution: a rugged landscape whose
// every step is decided the same way on every run.
double noise(const Point& p, Distribution d) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(d) + 1);
  for (int v : p) {
    h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return static_cast<double>(h >> 11) / static_cast<double>(1ull << 53);
}

// A 6 x 6 x 4 grid with a restriction, rungs out of index order, a coupled pair and interacting
// parameters; each distribution's best lies elsewhere, so every phase has work.
SearchSpace rugged_space() {
  SearchSpace s{{6, 6, 4}, [](const Point& p) { return p[0] + p[1] != 9; }};
  s.rungs = {{}, {5, 4, 3, 2, 1, 0}, {}};
  s.coupled = {{0, 1}};
  s.interacting = {0, 1, 2};
  return s;
}

std::optional<double> rugged(const Point& p, Distribution d) {
  double t = 1.0 + 0.03 * std::abs(p[0] - 4) + 0.02 * std::abs(p[1] - 2) + 0.01 * p[2] +
             0.006 * noise(p, d);
  switch (d) {
    case Distribution::constant:
      if (p[2] == 0) t *= 1.5;  // some points hate hot bins
      break;
    case Distribution::skewed: t *= 1.0 + 0.01 * p[1]; break;
    case Distribution::runs: t += 0.04 * (p[0] >= 3) - 0.01 * p[2]; break;
    default: break;
  }
  return t;
}

// Every phase's budget, in the order the phases run; the other options keep their defaults.
struct Budgets {
  const char* strategy;
  std::size_t search, finalists, per_distribution, second_search, worst_case;
  int rounds;
};

TuneOptions options(const Budgets& b) {
  TuneOptions o;
  o.strategy = b.strategy;
  o.budget.max_evaluations = b.search;
  o.finalists = b.finalists;
  o.distribution_budget = b.per_distribution;
  o.second_search_budget = b.second_search;
  o.worst_case_budget = b.worst_case;
  o.remeasure_rounds = b.rounds;
  return o;
}

// A cost over a family's real space from the point's indices, each parameter weighted apart.
double indices_cost(const Point& pt, int weight, int modulus) {
  double t = 1.0;
  for (std::size_t k = 0; k < pt.size(); ++k)
    t += 0.01 * ((pt[k] * (static_cast<int>(k) + weight)) % modulus);
  return t;
}

std::vector<Case> cases() {
  using histtune::test::off_path_compromise;
  using histtune::test::ridge;
  using histtune::test::two_basins;
  std::vector<Case> out;
  {
    // Annealing from starts over four distributions: polish (the search ends mid-climb),
    // factorial, per distribution, the second search, the worst-case climbs and the decision
    // with a reference.
    TuneOptions o = options({"annealing", 20, 6, 8, 24, 40, 2});
    o.starts = {{1, 1, 1}, {0, 4, 3}};
    o.always = {{0, 0, 0}};
    o.references = {{5, 3, 3}};
    out.push_back({"annealing_starts_four_distributions", rugged_space(), rugged, o, {}});
  }
  {
    TuneOptions o = options({"exhaustive", 0, 3, 8, 64, 96, 2});
    o.distributions = {Distribution::uniform, Distribution::skewed, Distribution::constant};
    out.push_back({"exhaustive_three_distributions", SearchSpace{{4, 4, 3}, nullptr}, two_basins,
                   o, {}});
  }
  {
    // Random sampling with failures: some points fail on runs data, one everywhere.
    TuneOptions o = options({"random", 25, 4, 6, 64, 96, 3});
    o.seed = 7;
    o.distributions = {Distribution::uniform, Distribution::runs};
    const auto cost = [](const Point& p, Distribution d) -> std::optional<double> {
      if (p == Point{2, 2, 1}) return std::nullopt;
      if (d == Distribution::runs && p[0] == p[1]) return std::nullopt;
      return 1.0 + 0.02 * std::abs(p[0] - 2) + 0.03 * std::abs(p[1] - 3) + 0.01 * p[2] +
             0.004 * noise(p, d);
    };
    out.push_back({"random_with_failures", SearchSpace{{5, 5, 3}, nullptr}, cost, o, {}});
  }
  {
    // test_tuner.cpp's ridge: phase 2 stops at x = 51 on constant data, the second search
    // crosses to the slope beyond x = 49.
    TuneOptions o = options({"exhaustive", 0, 3, 8, 16, 0, 2});
    o.distributions = {Distribution::uniform, Distribution::runs, Distribution::constant};
    out.push_back({"second_search_ridge", SearchSpace{{64}, nullptr}, ridge, o, {}});
  }
  {
    // test_tuner.cpp's compromise: three worst-case climbs, the first walking {2, 1} -> {2, 3}.
    TuneOptions o = options({"exhaustive", 4, 1, 0, 0, 64, 2});
    o.polish_budget = 0;
    o.always = {{2, 0}};
    o.distributions = {Distribution::uniform, Distribution::constant};
    out.push_back({"worst_case_climbs", SearchSpace{{4, 4}, nullptr}, off_path_compromise, o, {}});
  }
  {
    // Annealing without a budget (a tenth of the valid space, counted) on one distribution of a
    // short problem (the decision's rounds doubled), with the factorial.
    TuneOptions o = options({"annealing", 0, 4, 16, 64, 96, 2});
    o.seed = 3;
    o.distributions = {Distribution::uniform};
    SearchSpace s{{7, 5, 4}, [](const Point& p) { return (p[0] * p[1]) % 5 != 3; }};
    s.interacting = {0, 2};
    const auto cost = [](const Point& p, Distribution d) -> std::optional<double> {
      return 0.01 * (1.0 + 0.05 * std::abs(p[0] - 5) + 0.04 * std::abs(p[1] - 1) +
                     0.03 * std::abs(p[2] - 2) + 0.02 * noise(p, d));
    };
    out.push_back({"annealing_unbudgeted_one_distribution", s, cost, o, {}});
  }
  {
    // The 1D family's real space on an H100-like device (rungs, coupled pairs, restrictions
    // asked point by point), two distributions, its own labels.
    TuneOptions o = options({"annealing", 48, 4, 6, 16, 24, 2});
    o.seed = 11;
    o.distributions = {Distribution::uniform, Distribution::skewed};
    const Problem p = flat_problem(SampleType::u8, Binning::direct, 256, 1u << 24);
    const DeviceInfo dev = histtune::test::h100_like();
    o.always = {hist1d_point_of(hist1d::default_for(p, dev))};
    o.starts = o.always;
    const auto cost = [](const Point& pt, Distribution d) -> std::optional<double> {
      return indices_cost(pt, 3, 5) * (1.0 + 0.01 * noise(pt, d));
    };
    out.push_back({"hist1d_space", hist1d_search_space(p, dev), cost, o,
                   [](const Point& pt) { return hist1d_config_of(pt).label(); }});
  }
  {
    // The multi-channel family's real space, four distributions, smaller budgets.
    TuneOptions o = options({"annealing", 40, 4, 4, 12, 20, 1});
    o.seed = 5;
    o.polish_budget = 12;
    o.worst_case_climbs = 2;
    const Problem p = multichannel_problem(SampleType::u8, 4, 3, 1 << 22, 256);
    const auto cost = [](const Point& pt, Distribution d) -> std::optional<double> {
      double t = indices_cost(pt, 2, 4);
      if (d == Distribution::constant) t *= 1.0 + 0.02 * (pt.size() > 3 ? pt[3] : 0);
      return t * (1.0 + 0.01 * noise(pt, d));
    };
    out.push_back({"multichannel_space",
                   multichannel_search_space(p, histtune::test::h100_like()), cost, o,
                   [](const Point& pt) { return multichannel_config_of(pt).label(); }});
  }
  return out;
}

// Resume: the first case again with every other measurement of a first run known (one of them
// unverified, one slower than measured), so the phases take some and time the rest.
Case resumed_case() {
  Case c = cases().front();
  TuneResult first;
  trace_of(c, &first);
  for (std::size_t i = 0; i < first.measurements.size(); i += 2) {
    db::MeasurementRow m = first.measurements[i];
    if (i == 4) m.verified = false;
    if (i == 6) m.median_ms *= 1.3;
    c.options.known.emplace(MeasurementKey{m.distribution, m.config_label}, m);
  }
  c.name = "resume_with_known";
  return c;
}

std::map<std::string, std::string> read_fixture(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::string> sections;
  std::string line, name;
  while (std::getline(in, line)) {
    if (line.rfind("== ", 0) == 0) {
      name = line.substr(3);
      sections[name];
    } else if (!name.empty()) {
      sections[name] += line + '\n';
    }
  }
  return sections;
}

// The first line where two traces differ, with its number, for the failure message.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (std::size_t n = 1;; ++n) {
    const bool ha = static_cast<bool>(std::getline(a, la));
    const bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "identical";
    if (!ha || !hb || la != lb)
      return "line " + std::to_string(n) + ":\n  fixture: " + (ha ? la : "<end>") +
             "\n  now:     " + (hb ? lb : "<end>");
  }
}

}  // namespace

TEST(GoldenTrace, EveryCaseAsksTheBenchTheSameAndReturnsTheSameResult) {
  std::vector<Case> all = cases();
  all.push_back(resumed_case());
  std::string captured =
      "tune_with's golden traces (tests/tuner/test_golden_trace.cpp): per case, M a measurement\n"
      "(distribution, label), P a prefetch batch, G a progress report (done/total label), then\n"
      "the result's fields. Lines before the first case are not read.\n";
  const std::map<std::string, std::string> fixture =
      read_fixture(std::string(HISTTUNE_TUNER_FIXTURES) + "/golden_trace.txt");
  for (const Case& c : all) {
    const std::string got = trace_of(c);
    captured += "== " + c.name + "\n" + got;
    const auto it = fixture.find(c.name);
    if (it == fixture.end()) {
      ADD_FAILURE() << c.name << ": no trace in fixtures/golden_trace.txt";
      continue;
    }
    EXPECT_TRUE(it->second == got) << c.name << ": " << first_difference(it->second, got);
  }
  if (const char* out = std::getenv("HISTTUNE_GOLDEN_OUT")) std::ofstream(out) << captured;
}

// The cases cover what they are named for (so the fixture cannot lose a phase unnoticed).
TEST(GoldenTrace, TheCasesReachEveryPhase) {
  std::map<std::string, TuneResult> r;
  for (const Case& c : cases()) trace_of(c, &r[c.name]);
  trace_of(resumed_case(), &r["resume_with_known"]);
  const TuneResult& a = r["annealing_starts_four_distributions"];
  EXPECT_GT(a.polish_evaluations, 0u);
  EXPECT_GT(a.factorial_evaluations, 0u);
  EXPECT_FALSE(a.second_search.empty());
  EXPECT_GT(a.worst_case_evaluations, 0u);
  EXPECT_GT(a.decision_dropped, 0u);
  EXPECT_EQ(a.references.size(), 1u);
  EXPECT_EQ(a.by_distribution.size(), 4u);
  EXPECT_EQ(r["exhaustive_three_distributions"].strategy, "exhaustive");
  EXPECT_EQ(r["random_with_failures"].strategy, "random");
  EXPECT_GT(r["random_with_failures"].failed, 0u);
  EXPECT_EQ(r["second_search_ridge"].second_search, "constant");
  EXPECT_GT(r["worst_case_climbs"].worst_case_evaluations, 0u);
  EXPECT_GT(r["annealing_unbudgeted_one_distribution"].valid, 0u);
  EXPECT_GT(r["resume_with_known"].reused, 0u);
  EXPECT_GT(r["resume_with_known"].measurements.size(), 0u);
}
