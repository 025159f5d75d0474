// One run of tune_with: the phases of tuner.hpp as methods over the state they share (every
// cost seen per distribution, the finalists, the compromise, the progress count). tune_with
// calls them in order; each reads what the earlier ones left.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "histtune/tuner/tuner.hpp"

namespace histtune::tuner {

// The progress count shared by the phases: each evaluation and re-timing is one step; the total
// is what was done plus the estimate of what the phases left will take, refined as each ends.
class ProgressCount {
 public:
  explicit ProgressCount(const std::function<void(const Progress&)>& report) : report_(report) {}
  void step(const std::string& what) {
    ++done_;
    if (report_) report_(Progress{done_, std::max(total_, done_), what});
  }
  void expect(std::size_t more) { total_ = done_ + more; }

 private:
  const std::function<void(const Progress&)>& report_;
  std::size_t done_ = 0;
  std::size_t total_ = 0;
};

class Tuning {
 public:
  Tuning(const Problem& p, const SearchSpace& space, Bench& bench, const TuneOptions& opt);
  Tuning(const Tuning&) = delete;
  Tuning& operator=(const Tuning&) = delete;

  // The phases, in the order tune_with calls them.
  void search();            // 1: the strategy on the first distribution, then `always`
  void polish();            // 1b: a climb from the fastest point to a local optimum
  void factorial();         // 1c: the interacting parameters moved together, a second polish
  void per_distribution();  // 2: each other distribution's finalists, neighbourhood and climb
  void second_search();     // 2a: annealing where the first distribution's best is furthest behind
  void worst_case();        // 2b: climbs on the worst case over the distributions
  TuneResult decide();      // 3: the candidates re-timed, interleaved; the rules of decide.hpp

 private:
  using Seen = std::map<Point, std::optional<double>>;
  using Costs = std::vector<std::vector<double>>;  // [candidate][distribution]

  // A point's cost on distribution di, timed once per distribution (or taken from opt.known).
  std::optional<double> evaluate(std::size_t di, const Point& pt);
  // Times pt on distribution di through the bench: a measurement, or a failure in the errors.
  std::optional<double> measure(std::size_t di, const Point& pt, const std::string& label,
                                const std::string& shown);
  // evaluate() within a budget: at most `limit` new measurements, counted in `spent`; points
  // already timed cost nothing, and past the limit every untimed point is a dead end.
  DistributionObjective budgeted(std::size_t& spent, std::size_t limit);
  double best_on(std::size_t di) const;
  // Phase 2's finalists beyond the fastest: each basin value's best near the first's best.
  std::vector<Point> basin_bests() const;
  // Evaluations of the search and of each other distribution, for the progress total.
  std::size_t search_estimate() const;
  std::size_t after_per_distribution() const { return second_ + climbing_ + deciding_; }

  // Phase 2b's starts: each distribution's best timed on the others (within the budget), then
  // every point measured everywhere, best worst case first.
  std::vector<Point> worst_case_starts(const DistributionObjective& capped);
  // Phase 3's parts: the candidates (eligible ones, then references), their re-timed costs,
  // and the result's finalists and winners.
  std::vector<Point> candidates();
  Costs retime(const std::vector<Point>& candidates, std::size_t eligible, DecisionNoise& noise);
  void out_of_running(const std::vector<Point>& candidates, std::size_t eligible,
                      const Costs& cost, const DecisionNoise& noise, std::vector<bool>& dropped);
  void report(const std::vector<Point>& candidates, std::size_t eligible, const Costs& cost,
              const RobustChoice& choice);

  const SearchSpace& space_;
  Bench& bench_;
  const TuneOptions& opt_;
  TuneResult r_;
  std::vector<Distribution> dists_;
  std::unique_ptr<Strategy> strategy_;
  std::function<void(const std::vector<Point>&)> plan_;  // compile ahead: the bench's prefetch
  std::vector<Seen> seen_;        // every cost seen, per distribution (index into dists_)
  std::vector<Point> finalists_;  // of the search, and the always-measured points
  std::vector<Point> compromise_;  // phase 2b's first start and each climb's end
  std::size_t rounds_;            // of the decision's re-timing
  std::size_t others_;            // distributions beyond the first
  // Progress estimates: per other distribution, the second search, the climbs, the decision.
  std::size_t per_other_, second_, climbing_, deciding_;
  ProgressCount count_;
};

}  // namespace histtune::tuner
