// The strategies: exhaustive and random (points listed up front) and simulated annealing.
#include "histtune/tuner/search.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>

#include "histtune/tuner/cost_model.hpp"
#include "search_internal.hpp"

namespace histtune::tuner {
namespace {

using detail::LazyValid;
using detail::Run;
using Plan = std::function<void(const std::vector<Point>&)>;

// A budget that ended a search before it covered the valid space is a stop by budget, also when
// the strategy cut its list of points up front and so never hit the check in Run::exhausted().
void note_budget_stop(const SearchBudget& b, SearchResult& r) {
  if (b.max_evaluations && r.evaluations >= b.max_evaluations && r.evaluations < r.valid_points)
    r.stopped_by_budget = true;
}

// Strategies that fix their points up front and time them in order: exhaustive (every valid
// point, in enumeration order) and random (the same points shuffled: sampling without
// repetition). The budget truncates the list, so the compile pool gets exactly what is timed.
class Listed : public Strategy {
 public:
  explicit Listed(bool shuffle) : shuffle_(shuffle) {}
  const char* name() const override { return shuffle_ ? "random" : "exhaustive"; }
  SearchResult run(const SearchSpace& space, const Objective& f, const SearchBudget& b,
                   std::uint64_t seed, const Plan& plan, const std::vector<Point>&) override {
    SearchResult r;
    std::vector<Point> pts = valid_points(space, &r.invalid_skipped);
    r.valid_points = pts.size();
    if (shuffle_) {
      std::mt19937_64 rng(seed);
      std::shuffle(pts.begin(), pts.end(), rng);
    }
    if (b.max_evaluations && pts.size() > b.max_evaluations) pts.resize(b.max_evaluations);
    if (plan) plan(pts);
    Run run(f, b, r);
    for (const auto& p : pts) {
      if (run.exhausted()) break;
      run.evaluate(p);
    }
    note_budget_stop(b, r);
    return r;
  }

 private:
  bool shuffle_;
};

// One run of the annealing strategy (below), step by step: the seeds, the annealing proper over
// ~75% of the budget, a first-improvement climb around the best, then random samples with what
// budget is left.
class AnnealingRun {
 public:
  // Moves proposed at a time and announced to `plan` before the first of them is timed, so their
  // kernels compile in parallel: one per core of the machines histtune tunes on (on synthetic
  // landscapes 16 finds as good points as 8 for the same budget).
  static constexpr std::size_t kBatch = 16;

  AnnealingRun(const SearchSpace& space, const Objective& f, const SearchBudget& b,
               std::uint64_t seed, const Plan& plan)
      : space_(space), plan_(plan), valid_(space), rng_(seed), budget_(budget_of(b)),
        run_(f, b, r_), model_(space.sizes), screen_above_(b.screen_above) {}

  SearchResult run(const std::vector<Point>& starts, const SearchBudget& b) {
    const std::vector<Point> first = seeds(starts);
    if (first.empty()) return std::move(r_);  // no valid point
    start_from(first);
    anneal();
    // Refine: first-improvement hill climb over the untried neighbours of the best point.
    if (!r_.best.empty())
      detail::climb(space_, [this](const Point& q) { return valid_(q); }, run_, r_, rng_, plan_,
                    [this] { return done(); });
    sample_the_rest();
    // The valid space is not counted: a full budget is a stop by budget unless the search ran
    // out of points (every valid point timed).
    if (b.max_evaluations && r_.evaluations >= b.max_evaluations) r_.stopped_by_budget = true;
    return std::move(r_);
  }

 private:
  // Without a budget, anneal over a tenth of the space (the time limit may stop it sooner).
  // Called while constructing: r_ and valid_ are already there, run_ (whose clock starts) not.
  std::size_t budget_of(const SearchBudget& b) {
    if (b.max_evaluations) return b.max_evaluations;
    r_.valid_points = valid_.all(&r_.invalid_skipped).size();
    return std::max<std::size_t>(r_.valid_points / 10, 1);
  }

  static double log_cost(const std::optional<double>& c) {
    return c ? std::log(std::max(*c, 1e-30)) : INFINITY;
  }
  bool done() { return r_.evaluations >= budget_ || run_.exhausted(); }

  // The points worth timing: with screen_above, those the cost model (fit to every point timed
  // so far) cannot predict or predicts within screen_above x the best; the others use their
  // evaluation untimed (Run::screen), as rejected moves.
  std::vector<Point> promising(const std::vector<Point>& pts) {
    if (screen_above_ <= 0 || r_.best.empty()) return pts;
    for (; fed_ < r_.history.size(); ++fed_)
      if (const auto& [p, c] = r_.history[fed_]; c) model_.add(p, *c);
    std::vector<Point> keep;
    for (const Point& p : pts) {
      const std::optional<double> predicted = model_.predict(p);
      if (predicted && *predicted > r_.best_cost * screen_above_)
        run_.screen(p);
      else
        keep.push_back(p);
    }
    return keep;
  }
  std::size_t left() const { return r_.evaluations < budget_ ? budget_ - r_.evaluations : 0; }
  void announce(const std::vector<Point>& next) {
    if (plan_ && !next.empty()) plan_(next);
  }
  std::optional<Point> random_unseen(const std::set<Point>& also_taken) {
    return valid_.random(rng_,
                         [&](const Point& p) { return !run_.seen(p) && !also_taken.count(p); });
  }

  // The valid starts, then random points, a few in all.
  std::vector<Point> seeds(const std::vector<Point>& starts) {
    const std::size_t seeds = std::min(std::max<std::size_t>(3, budget_ / 25), budget_);
    std::vector<Point> first;
    std::set<Point> taken;
    for (const auto& p : starts)
      if (first.size() < budget_ && valid_(p) && taken.insert(p).second) first.push_back(p);
    while (first.size() < seeds) {
      auto p = random_unseen(taken);
      if (!p) break;
      taken.insert(*p);
      first.push_back(*p);
    }
    return first;
  }

  // Times the seeds; the current point is the best of them.
  void start_from(const std::vector<Point>& first) {
    announce(first);
    for (const auto& p : first) {
      if (done()) break;
      double c = log_cost(run_.evaluate(p));
      if (c < cur_cost_) {
        cur_ = p;
        cur_cost_ = c;
      }
    }
    if (cur_.empty()) cur_ = first.front();
  }

  // A move from `from` not yet seen nor `taken`: one parameter one rung (sometimes to any
  // value, sometimes with a second one moved too), or a coupled pair; a random point when 64
  // tries find none.
  std::optional<Point> propose(const Point& from, const std::set<Point>& taken) {
    const auto fresh = [&](const Point& q) {
      return !run_.seen(q) && !taken.count(q) && valid_(q);
    };
    for (int attempt = 0; attempt < 64; ++attempt) {
      Point q = from;
      if (!space_.coupled.empty() && unit_(rng_) < 0.1) {  // a coupled pair, one rung each way
        const auto& pair = space_.coupled[rng_() % space_.coupled.size()];
        const auto c = detail::coupled_step(space_, from, pair, (rng_() % 2) ? 1 : -1);
        if (c && fresh(*c)) return c;
        continue;
      }
      const std::size_t k = rng_() % q.size();
      if (space_.sizes[k] <= 1) continue;
      if (unit_(rng_) < 0.8) {
        q[k] = rung_step(space_, k, q[k], (rng_() % 2) ? 1 : -1);
        if (q[k] < 0) continue;
      } else {
        q[k] = static_cast<int>(rng_() % space_.sizes[k]);
      }
      if (unit_(rng_) < 0.3) {  // sometimes move a second parameter: escapes restriction walls
        const std::size_t k2 = rng_() % q.size();
        if (const int j = rung_step(space_, k2, q[k2], (rng_() % 2) ? 1 : -1); j >= 0) q[k2] = j;
      }
      if (fresh(q)) return q;
    }
    return random_unseen(taken);
  }

  // Batches of moves from the current point, each accepted or rejected in turn as in sequential
  // annealing; restarts from the best point when stuck.
  void anneal() {
    const std::size_t anneal_until = budget_ * 3 / 4;
    const double t0 = 0.25, t1 = 0.003;  // in log-cost units: 25% .. 0.3% worse accepted
    std::size_t since_best = 0;
    double best_seen = r_.best.empty() ? INFINITY : log_cost(r_.best_cost);
    while (r_.evaluations < anneal_until && !done()) {
      std::vector<Point> moves;
      std::set<Point> taken;
      const std::size_t want = std::min(kBatch, anneal_until - r_.evaluations);
      while (moves.size() < want) {
        auto q = propose(cur_, taken);
        if (!q) break;
        taken.insert(*q);
        moves.push_back(*q);
      }
      if (moves.empty()) break;
      moves = promising(moves);
      announce(moves);
      for (const auto& next : moves) {
        if (r_.evaluations >= anneal_until || done()) break;
        const double progress =
            static_cast<double>(r_.evaluations) / std::max<std::size_t>(anneal_until, 1);
        const double temp = t0 * std::pow(t1 / t0, progress);
        const double c = log_cost(run_.evaluate(next));
        if (c < cur_cost_ || unit_(rng_) < std::exp(-(c - cur_cost_) / temp)) {
          cur_ = next;
          cur_cost_ = c;
        }
        if (c < best_seen) {
          best_seen = c;
          since_best = 0;
        } else if (++since_best > std::max<std::size_t>(budget_ / 8, 20) && !r_.best.empty()) {
          cur_ = r_.best;  // stuck: restart from the best point found
          cur_cost_ = best_seen;
          since_best = 0;
        }
      }
    }
  }

  // Budget left (the neighbourhood of the best is exhausted): random samples.
  void sample_the_rest() {
    while (!done()) {
      std::vector<Point> more;
      std::set<Point> taken;
      while (more.size() < std::min(kBatch, left())) {
        auto p = random_unseen(taken);
        if (!p) break;
        taken.insert(*p);
        more.push_back(*p);
      }
      if (more.empty()) break;
      more = promising(more);
      announce(more);
      for (const auto& p : more) {
        if (done()) break;
        run_.evaluate(p);
      }
    }
  }

  const SearchSpace& space_;
  const Plan& plan_;
  SearchResult r_;
  LazyValid valid_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::size_t budget_;
  Run run_;
  CostModel model_;
  double screen_above_;
  std::size_t fed_ = 0;  // points of r_.history the model has
  Point cur_;  // the annealing's current point and its log cost
  double cur_cost_ = INFINITY;
};

// Simulated annealing on log(cost), neighbourhood = one parameter moved to an adjacent value
// (sometimes to any value), memoised so no point is timed twice, restarts from the best point
// when stuck, and a final first-improvement hill climb around the best with what budget remains.
// Moves are proposed in batches (AnnealingRun::kBatch) announced to `plan` before the first of
// them is timed, so their kernels compile in parallel; each is then accepted or rejected in
// turn, as in sequential annealing. With a budget it never enumerates the grid (LazyValid), so
// valid_points and invalid_skipped stay 0: not counted.
class Annealing : public Strategy {
 public:
  const char* name() const override { return "annealing"; }
  SearchResult run(const SearchSpace& space, const Objective& f, const SearchBudget& b,
                   std::uint64_t seed, const Plan& plan,
                   const std::vector<Point>& starts) override {
    return AnnealingRun(space, f, b, seed, plan).run(starts, b);
  }
};

}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"exhaustive", "random", "annealing"};
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name) {
  if (name == "exhaustive") return std::make_unique<Listed>(false);
  if (name == "random") return std::make_unique<Listed>(true);
  if (name == "annealing") return std::make_unique<Annealing>();
  throw std::invalid_argument("unknown search strategy '" + name +
                              "' (valid: exhaustive, random, annealing)");
}

}  // namespace histtune::tuner
