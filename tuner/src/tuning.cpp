#include "tuning.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "histtune/version.hpp"

namespace histtune::tuner {
namespace {

// The `count` fastest verified points of `seen`, fastest first (ties: simpler first).
std::vector<Point> fastest(const std::map<Point, std::optional<double>>& seen, std::size_t count) {
  std::vector<std::pair<double, Point>> ok;
  for (const auto& [pt, cost] : seen)
    if (cost) ok.emplace_back(*cost, pt);
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : simpler(a.second, b.second);
  });
  std::vector<Point> out;
  for (std::size_t i = 0; i < ok.size() && i < count; ++i) out.push_back(ok[i].second);
  return out;
}

void add_new(std::vector<Point>& to, const Point& pt) {
  if (std::find(to.begin(), to.end(), pt) == to.end()) to.push_back(pt);
}

}  // namespace

Tuning::Tuning(const Problem& p, const SearchSpace& space, Bench& bench, const TuneOptions& opt)
    : space_(space), bench_(bench), opt_(opt), count_(opt.on_progress) {
  r_.problem = p;
  r_.template_hash = bench.template_hash();
  dists_ = opt.distributions.empty() ? std::vector<Distribution>{Distribution::uniform}
                                     : opt.distributions;
  for (Distribution d : dists_) r_.distributions.push_back(to_string(d));
  strategy_ = make_strategy(opt.strategy);
  r_.strategy = strategy_->name();
  plan_ = [this](const std::vector<Point>& pts) { bench_.prefetch(pts); };
  seen_.resize(dists_.size());

  rounds_ = static_cast<std::size_t>(std::max(opt.remeasure_rounds, 1));
  others_ = dists_.size() - 1;
  // finalists, a neighbourhood (at most two points per parameter), the climb
  per_other_ =
      opt.finalists + 2 * (space.sizes.size() + space.coupled.size()) + opt.distribution_budget;
  climbing_ = others_ > 0 ? opt.worst_case_budget : 0;
  deciding_ = (opt.finalists + others_ + 2) * dists_.size() * rounds_;
  second_ = others_ > 0 ? opt.second_search_budget : 0;
  count_.expect(search_estimate() + opt.polish_budget + others_ * per_other_ +
                after_per_distribution());
}

std::size_t Tuning::search_estimate() const {
  // The strategy may make fewer.
  if (opt_.budget.max_evaluations) return opt_.budget.max_evaluations;
  const std::size_t valid = valid_points(space_).size();
  return r_.strategy == "annealing" ? std::max<std::size_t>(valid / 10, 1) : valid;
}

std::optional<double> Tuning::evaluate(std::size_t di, const Point& pt) {
  // A point is timed once per distribution: later phases that reach it again reuse its cost.
  if (const auto it = seen_[di].find(pt); it != seen_[di].end()) return it->second;
  const std::string label = bench_.label(pt);
  const std::string& dist = r_.distributions[di];
  const std::string shown = di == 0 ? label : dist + ": " + label;
  std::optional<double> cost;
  if (auto it = opt_.known.find({dist, label}); it != opt_.known.end()) {
    ++r_.reused;
    if (it->second.verified) cost = it->second.median_ms;
  } else {
    cost = measure(di, pt, label, shown);
  }
  seen_[di][pt] = cost;
  count_.step(shown);
  return cost;
}

std::optional<double> Tuning::measure(std::size_t di, const Point& pt, const std::string& label,
                                      const std::string& shown) {
  const double best = best_on(di);
  TimingOptions how = opt_.timing;
  if (opt_.race_ratio > 0 && best < kFailed) how.give_up_above_ms = best * opt_.race_ratio;
  const Bench::Measured m = bench_.measure(pt, dists_[di], &how);
  if (m.verified && m.timing.median_ms > how.give_up_above_ms) ++r_.raced_out;
  if (m.timing.samples > 0) {  // timed (a compile failure is not a measurement)
    db::MeasurementRow row;
    row.config_label = label;
    row.params_json = bench_.params_json(pt);
    row.median_ms = m.timing.median_ms;
    row.min_ms = m.timing.min_ms;
    row.max_ms = m.timing.max_ms;
    row.samples = m.timing.samples;
    row.verified = m.verified;
    row.template_hash = r_.template_hash;
    row.histtune_version = version();
    row.distribution = r_.distributions[di];
    r_.measurements.push_back(row);
    if (opt_.on_measurement) opt_.on_measurement(row);
  }
  if (m.verified) return m.timing.median_ms;
  ++r_.failed;
  r_.errors.push_back(shown + ": " + (m.error.empty() ? "failed" : m.error));
  return std::nullopt;
}

DistributionObjective Tuning::budgeted(std::size_t& spent, std::size_t limit) {
  return [this, &spent, limit](std::size_t di, const Point& pt) -> std::optional<double> {
    if (!seen_[di].count(pt)) {
      if (spent == limit) return std::nullopt;
      ++spent;
    }
    return evaluate(di, pt);
  };
}

double Tuning::best_on(std::size_t di) const {
  double b = kFailed;
  for (const auto& [pt, c] : seen_[di])
    if (c) b = std::min(b, *c);
  return b;
}

void Tuning::search() {
  const SearchResult sr = strategy_->run(
      space_, [this](const Point& pt) { return evaluate(0, pt); }, opt_.budget, opt_.seed, plan_,
      opt_.starts);
  for (const Point& pt : opt_.always)
    if (!seen_[0].count(pt)) evaluate(0, pt);
  r_.pruned = sr.invalid_skipped;
  r_.valid = sr.valid_points;
  r_.search_evaluations = sr.evaluations;
  r_.screened = sr.screened;
  r_.stopped_early = sr.stopped_by_budget || sr.stopped_by_time;
  count_.expect(opt_.polish_budget + others_ * per_other_ + after_per_distribution());
}

// Where the search's budget ran out does not decide the winner.
void Tuning::polish() {
  const std::vector<Point> top = fastest(seen_[0], 1);
  if (opt_.polish_budget == 0 || top.empty()) return;
  const DistributionObjective capped = budgeted(r_.polish_evaluations, opt_.polish_budget);
  hill_climb(space_, [&](const Point& pt) { return capped(0, pt); }, top, SearchBudget{},
             opt_.seed, plan_);
}

// The search settles in one basin of threads x copies x prefetch, and a better one three single
// moves away is behind points slower than both (H100, u8 64 bins 2^24: 8 of 14 plans kept one
// basin, 6 the other, 3.4% apart).
void Tuning::factorial() {
  if (const std::vector<Point> top = fastest(seen_[0], 1); opt_.factorial && !top.empty()) {
    const std::vector<Point> combos = tuner::factorial(space_, top.front());
    plan_(combos);
    for (const Point& pt : combos) {
      if (!seen_[0].count(pt)) ++r_.factorial_evaluations;
      evaluate(0, pt);
    }
    if (const std::vector<Point> now = fastest(seen_[0], 1);
        now.front() != top.front() && opt_.polish_budget > 0) {
      const DistributionObjective capped =
          budgeted(r_.factorial_evaluations, r_.factorial_evaluations + opt_.polish_budget);
      hill_climb(space_, [&](const Point& pt) { return capped(0, pt); }, now, SearchBudget{},
                 opt_.seed + 1, plan_, top.front());
    }
  }
  count_.expect(others_ * per_other_ + after_per_distribution());
}

// A distribution's own best is often one switch away from the first distribution's (run merging
// on image-like data); a first-improvement climb wanders the plateau on timing noise and can miss
// it (H100 plans kept winners 40-54% apart on runs or skewed data), and a short annealing search
// from the finalists (tried: 40 evaluations) did not find it reliably either.
void Tuning::per_distribution() {
  finalists_ = fastest(seen_[0], opt_.finalists);
  for (const Point& pt : basin_bests()) add_new(finalists_, pt);
  // The always-measured points are finalists too: a default just behind the fastest on the
  // first distribution may have the best worst case (H100, u32 65536 bins: 0.1% slower on
  // uniform data, 24% faster on runs than the stored winner).
  for (const Point& pt : opt_.always)
    if (const auto it = seen_[0].find(pt); it != seen_[0].end() && it->second)
      add_new(finalists_, pt);
  for (std::size_t di = 1; di < dists_.size() && !finalists_.empty(); ++di) {
    const auto on_di = [&](const Point& pt) { return evaluate(di, pt); };
    plan_(finalists_);
    for (const Point& pt : finalists_) on_di(pt);
    Point centre;  // the best finalist there: the climb first repeats the step away from it
    if (const std::vector<Point> top = fastest(seen_[di], 1); !top.empty()) {
      centre = top.front();
      const std::vector<Point> around = neighbours(space_, centre);
      plan_(around);
      for (const Point& pt : around) on_di(pt);
    }
    hill_climb(space_, on_di, fastest(seen_[di], 1), SearchBudget{1 + opt_.distribution_budget, 0},
               opt_.seed + di, plan_, centre);
    count_.expect((dists_.size() - 1 - di) * per_other_ + after_per_distribution());
  }
}

// The fastest verified point of each value of each basin parameter, on the first distribution,
// within basin_gap of the best there.
std::vector<Point> Tuning::basin_bests() const {
  std::vector<Point> out;
  if (opt_.basin_gap < 0) return out;
  const double bound = best_on(0) * (1 + opt_.basin_gap);  // infinite: nothing verified
  for (const std::size_t k : space_.basins) {
    std::map<int, std::pair<double, Point>> best;  // value -> its fastest point
    for (const auto& [pt, cost] : seen_[0]) {
      if (!cost || *cost > bound) continue;
      const auto it = best.find(pt[k]);
      if (it == best.end() || *cost < it->second.first ||
          (*cost == it->second.first && simpler(pt, it->second.second)))
        best[pt[k]] = {*cost, pt};
    }
    for (const auto& [value, entry] : best) out.push_back(entry.second);
  }
  return out;
}

// The neighbourhoods of phase 2 surround the first distribution's finalists, and a distribution
// whose optima lie elsewhere is left at whichever local optimum is nearest (H100, f32 1024 range
// bins: uniform data is flat, skewed, constant and runs data have local optima 2-6% apart).
// Annealing, whatever the first search's strategy: a local search with room to cross a ridge,
// from the best points there.
void Tuning::second_search() {
  if (second_ > 0 && !finalists_.empty()) {
    std::size_t on = 0;
    double widest = 1 + opt_.second_search_gap;
    if (const std::vector<Point> top = fastest(seen_[0], 1); !top.empty())
      for (std::size_t di = 1; di < dists_.size(); ++di) {
        const auto it = seen_[di].find(top.front());
        const double best = best_on(di);
        if (it != seen_[di].end() && it->second && best > 0 && *it->second / best > widest) {
          widest = *it->second / best;
          on = di;
        }
      }
    if (on > 0) {
      const SearchResult s2 = make_strategy("annealing")->run(
          space_, [&](const Point& pt) { return evaluate(on, pt); },
          SearchBudget{opt_.second_search_budget, 0, opt_.budget.screen_above},
          opt_.seed + 100 + on, plan_, fastest(seen_[on], 3));
      r_.second_search = r_.distributions[on];
      r_.second_search_evaluations = s2.evaluations;
      r_.screened += s2.screened;
    }
  }
  count_.expect(climbing_ + deciding_);
}

// The phases above find each distribution's best; the point that is good on all of them can be
// a neighbour of none. The climbs start from the best worst cases, each to a local optimum, the
// next from the best start no earlier climb passed through, while the budget lasts.
void Tuning::worst_case() {
  if (opt_.worst_case_budget > 0 && dists_.size() > 1) {
    const DistributionObjective capped =
        budgeted(r_.worst_case_evaluations, opt_.worst_case_budget);
    const auto best = [this](std::size_t di) { return best_on(di); };
    std::set<Point> passed;
    for (const Point& start : worst_case_starts(capped)) {
      if (compromise_.size() == opt_.worst_case_climbs + 1) break;
      if (passed.count(start)) continue;
      if (!compromise_.empty() && r_.worst_case_evaluations >= opt_.worst_case_budget) break;
      const std::vector<Point> path = worst_case_climb(
          space_, dists_.size(), capped, best, start, opt_.tie_tolerance, opt_.worst_case_budget,
          plan_, [&](const Point& pt) { return passed.count(pt) > 0; });
      passed.insert(path.begin(), path.end());
      if (compromise_.empty()) compromise_.push_back(path.front());
      compromise_.push_back(path.back());
    }
  }
  count_.expect(deciding_);
}

// Each distribution's best is first timed on the others: a specialist is often a few steps from
// the compromise, while the points measured everywhere so far are mostly uniform data's
// finalists (H100, f32 2^20 bins: the best of those was 38% behind on constant data, and one
// climb from it spent its 64 measurements walking back; constant data's best was 9% behind on
// runs and 3 steps from the compromise).
std::vector<Point> Tuning::worst_case_starts(const DistributionObjective& capped) {
  for (std::size_t di = 0; di < dists_.size(); ++di)
    for (const Point& pt : fastest(seen_[di], 1))
      for (std::size_t dj = 0; dj < dists_.size(); ++dj) capped(dj, pt);
  std::vector<double> bests(dists_.size());
  for (std::size_t di = 0; di < dists_.size(); ++di) bests[di] = best_on(di);
  std::vector<std::pair<double, Point>> starts;  // (worst ratio, point), measured everywhere
  for (const auto& [pt, c0] : seen_[0]) {
    std::vector<double> row(dists_.size(), kFailed);
    for (std::size_t di = 0; di < dists_.size(); ++di)
      if (const auto it = seen_[di].find(pt); it != seen_[di].end() && it->second)
        row[di] = *it->second;
    const double worst = worst_ratio(row, [&](std::size_t di) { return bests[di]; });
    if (std::isfinite(worst)) starts.emplace_back(worst, pt);
  }
  std::sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : simpler(a.second, b.second);
  });
  std::vector<Point> out;
  for (const auto& [worst, pt] : starts) out.push_back(pt);
  return out;
}

TuneResult Tuning::decide() {
  const double device_before = bench_.spent().device_s;
  std::vector<Point> all = candidates();
  const std::size_t eligible = all.size();
  for (const Point& pt : opt_.references) add_new(all, pt);
  count_.expect(all.size() * dists_.size() * rounds_);
  DecisionNoise noise;  // each pooled median's relative 95% CI half-width
  // The first always-measured point (the built-in default) wins a tie: every run measures it.
  if (!opt_.always.empty()) {
    const auto it = std::find(all.begin(), all.begin() + eligible, opt_.always.front());
    if (it != all.begin() + eligible) noise.preferred = it - all.begin();
  }
  if (const auto k = space_.blocks_per_sm)
    for (std::size_t c = 0; c < eligible; ++c)
      noise.blocks_rung.push_back(rung_position(space_, *k, all[c][*k]));
  const Costs cost = retime(all, eligible, noise);
  const RobustChoice choice =
      choose_robust(std::vector<Point>(all.begin(), all.begin() + eligible),
                    Costs(cost.begin(), cost.begin() + eligible), opt_.tie_tolerance, noise,
                    opt_.decision);
  report(all, eligible, cost, choice);
  r_.compiled = bench_.kernels_loaded();
  r_.spent = bench_.spent();
  r_.decision_device_s = r_.spent.device_s - device_before;
  return std::move(r_);
}

// The finalists, the compromise and each other distribution's best; twice the rounds where the
// first distribution's fastest call is short.
std::vector<Point> Tuning::candidates() {
  std::vector<Point> out = finalists_;
  for (const Point& pt : compromise_) add_new(out, pt);
  if (const std::vector<Point> top = fastest(seen_[0], 1);
      !top.empty() && seen_[0][top.front()] && *seen_[0][top.front()] < opt_.short_problem_ms)
    rounds_ *= 2;
  for (std::size_t di = 1; di < dists_.size(); ++di)
    for (const Point& pt : fastest(seen_[di], 1)) add_new(out, pt);
  return out;
}

// Every candidate on every distribution, round by round (each candidate once per distribution
// per round), each candidate's samples pooled. A candidate that fails on a distribution is not
// timed there again; one plainly behind after a round (out_of_running) is not timed again.
Tuning::Costs Tuning::retime(const std::vector<Point>& all, std::size_t eligible,
                             DecisionNoise& noise) {
  const std::size_t dists = dists_.size();
  std::vector<std::vector<std::vector<double>>> pooled(all.size(),
                                                       std::vector<std::vector<double>>(dists));
  std::vector<std::vector<bool>> failed(all.size(), std::vector<bool>(dists, false));
  std::vector<bool> dropped(all.size(), false);
  Costs cost(all.size(), std::vector<double>(dists, kFailed));
  noise.noise.assign(eligible, std::vector<double>(dists, 0.0));
  TimingOptions how = opt_.timing;
  if (opt_.decision_samples > 0)
    how.min_samples = how.max_samples = how.batch = opt_.decision_samples;
  for (std::size_t round = 0; round < rounds_; ++round) {
    for (std::size_t di = 0; di < dists; ++di)
      for (std::size_t c = 0; c < all.size(); ++c) {
        const std::string shown = r_.distributions[di] + ": " + bench_.label(all[c]);
        if (!failed[c][di] && !dropped[c]) {
          const Bench::Measured m = bench_.measure(all[c], dists_[di], &how);
          if (m.verified) {
            pooled[c][di].insert(pooled[c][di].end(), m.timing.sample_ms.begin(),
                                 m.timing.sample_ms.end());
          } else {
            failed[c][di] = true;
            ++r_.failed;
            r_.errors.push_back(shown + " (re-timing): " +
                                (m.error.empty() ? "failed" : m.error));
          }
        }
        count_.step("deciding: " + shown);
      }
    for (std::size_t c = 0; c < all.size(); ++c)
      for (std::size_t di = 0; di < dists; ++di)
        if (!failed[c][di] && !pooled[c][di].empty()) {
          const Timing t = summarize(pooled[c][di]);
          cost[c][di] = t.median_ms;
          if (c < eligible && t.median_ms > 0)
            noise.noise[c][di] = t.ci_half_width_ms / t.median_ms;
        }
    if (round + 1 < rounds_ && opt_.decision_drop > 0)
      out_of_running(all, eligible, cost, noise, dropped);
  }
  return cost;
}

// Marks the eligible candidates whose worst ratio and regret are both more than decision_drop
// behind the best of them; references are timed every round (they are reported, not chosen).
void Tuning::out_of_running(const std::vector<Point>& all, std::size_t eligible, const Costs& cost,
                            const DecisionNoise& noise, std::vector<bool>& dropped) {
  const RobustChoice now =
      choose_robust(std::vector<Point>(all.begin(), all.begin() + eligible),
                    Costs(cost.begin(), cost.begin() + eligible), opt_.tie_tolerance, noise,
                    opt_.decision);
  double best_worst = kFailed;
  for (std::size_t c = 0; c < eligible; ++c) best_worst = std::min(best_worst, now.worst_ratio[c]);
  const double margin = 1 + opt_.decision_drop;
  for (std::size_t c = 0; c < eligible; ++c)
    if (!dropped[c] && c != now.robust && now.worst_ratio[c] > best_worst * margin &&
        1 + now.regret[c] / 100 > margin) {
      dropped[c] = true;
      ++r_.decision_dropped;
    }
}

void Tuning::report(const std::vector<Point>& all, std::size_t eligible, const Costs& cost,
                    const RobustChoice& choice) {
  for (std::size_t c = 0; c < all.size(); ++c) {
    Finalist f;
    f.label = bench_.label(all[c]);
    double worst = 0;
    for (std::size_t di = 0; di < dists_.size(); ++di) {
      const double v = cost[c][di];
      f.median_ms.push_back(std::isfinite(v) ? v : -1.0);
      worst = std::max(worst,
                       std::isfinite(v) && choice.best[di] > 0 ? v / choice.best[di] : kFailed);
    }
    f.worst_ratio = c < eligible ? choice.worst_ratio[c] : worst;
    if (c < eligible) f.regret = choice.regret[c];
    (c < eligible ? r_.finalists : r_.references).push_back(std::move(f));
  }
  // A reference that was also a candidate is reported among the references too.
  for (const Point& pt : opt_.references) {
    const auto it = std::find(all.begin(), all.begin() + eligible, pt);
    if (it != all.begin() + eligible) r_.references.push_back(r_.finalists[it - all.begin()]);
  }
  if (choice.robust != kNone) {
    r_.winner = bench_.label(all[choice.robust]);
    r_.winner_ms = cost[choice.robust][0];
    r_.winner_worst_ratio = choice.worst_ratio[choice.robust];
  }
  for (std::size_t di = 0; di < dists_.size() && dists_.size() > 1; ++di) {
    const std::size_t c = choice.per_distribution[di];
    if (c == kNone) continue;
    r_.by_distribution.push_back(
        DistributionWinner{r_.distributions[di], bench_.label(all[c]), cost[c][di]});
  }
}

}  // namespace histtune::tuner
