#include "histtune/tuner/search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

namespace histtune::tuner {
namespace {

using Clock = std::chrono::steady_clock;

// Budget and time bookkeeping shared by the strategies; evaluate() is the only way to call the
// objective, so every strategy stops the same way and records the same history.
class Run {
 public:
  Run(const Objective& f, const SearchBudget& b, SearchResult& r)
      : f_(f), b_(b), r_(r), start_(Clock::now()) {}

  bool exhausted() {
    if (b_.max_evaluations && r_.evaluations >= b_.max_evaluations) {
      r_.stopped_by_budget = true;
      return true;
    }
    if (b_.time_limit_s > 0 &&
        std::chrono::duration<double>(Clock::now() - start_).count() >= b_.time_limit_s) {
      r_.stopped_by_time = true;
      return true;
    }
    return false;
  }

  std::optional<double> evaluate(const Point& p) {
    auto it = seen_.find(p);
    if (it != seen_.end()) return it->second;
    std::optional<double> c = f_(p);
    if (c && !std::isfinite(*c)) c.reset();
    ++r_.evaluations;
    r_.history.emplace_back(p, c);
    seen_.emplace(p, c);
    if (c && (r_.best.empty() || *c < r_.best_cost)) {
      r_.best = p;
      r_.best_cost = *c;
    }
    return c;
  }

  bool seen(const Point& p) const { return seen_.count(p) != 0; }

 private:
  const Objective& f_;
  SearchBudget b_;
  SearchResult& r_;
  Clock::time_point start_;
  std::map<Point, std::optional<double>> seen_;
};

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
                   std::uint64_t seed, const std::function<void(const std::vector<Point>&)>& plan,
                   const std::vector<Point>&) override {
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

// The coupled pair's first parameter one rung in direction dir and its second one rung the other
// way, or nullopt past either end.
std::optional<Point> coupled_step(const SearchSpace& space, const Point& from,
                                  const std::pair<std::size_t, std::size_t>& pair, int dir) {
  const auto [a, b] = pair;
  if (a >= from.size() || b >= from.size()) return std::nullopt;
  Point q = from;
  q[a] = rung_step(space, a, from[a], dir);
  q[b] = rung_step(space, b, from[b], -dir);
  if (q[a] < 0 || q[b] < 0) return std::nullopt;
  return q;
}

// The points one step away from centre (one_step's moves: neighbours() in search.hpp), on the
// grid, that `keep` accepts.
template <class Keep>
std::vector<Point> one_step(const SearchSpace& space, const Point& centre, const Keep& keep) {
  std::vector<Point> out;
  for (std::size_t k = 0; k < centre.size() && k < space.sizes.size(); ++k)
    for (int dir : {-1, 1}) {
      Point q = centre;
      q[k] = rung_step(space, k, centre[k], dir);
      if (q[k] >= 0 && keep(q)) out.push_back(q);
    }
  for (const auto& pair : space.coupled)
    for (int dir : {1, -1})
      if (const auto q = coupled_step(space, centre, pair, dir); q && keep(*q)) out.push_back(*q);
  return out;
}

// A value index's place on its parameter's rungs (search.hpp), or -1 off the grid.
int rung_position(const SearchSpace& space, std::size_t k, int index) {
  if (k >= space.sizes.size() || index < 0 || index >= space.sizes[k]) return -1;
  if (k >= space.rungs.size() || space.rungs[k].empty()) return index;
  const std::vector<int>& order = space.rungs[k];
  const auto at = std::find(order.begin(), order.end(), index);
  return at == order.end() ? -1 : static_cast<int>(at - order.begin());
}

}  // namespace

std::optional<Point> repeat_move(const SearchSpace& space, const Point& from, const Point& to) {
  if (from.size() != to.size() || from == to) return std::nullopt;
  Point q = to;
  for (std::size_t k = 0; k < to.size(); ++k) {
    if (from[k] == to[k]) continue;
    const int a = rung_position(space, k, from[k]), b = rung_position(space, k, to[k]);
    if (a < 0 || b < 0) return std::nullopt;
    const int c = b + (b - a);
    if (c < 0 || c >= space.sizes[k]) return std::nullopt;
    q[k] = k < space.rungs.size() && !space.rungs[k].empty() ? space.rungs[k][c] : c;
  }
  return q;
}

namespace {

// First-improvement hill climb over the untried neighbours (one parameter one step away) of the
// best point, announced to `plan` before they are timed; stops at a local optimum or when done().
// The move that led to the centre (from `came_from` at first) is tried again first: a step that
// paid often pays again (f32 2^20 bins on constant data: threads per SM 1,024 -> 512 -> 256,
// each step ~30% faster), and a climb of 16 evaluations that tries neighbours in random order
// stopped one such step short (H100 plan i: 89.6 us on constant data against 56.5 us two steps
// on).
void climb(const SearchSpace& space, const std::function<bool(const Point&)>& valid, Run& run,
           SearchResult& r, std::mt19937_64& rng,
           const std::function<void(const std::vector<Point>&)>& plan,
           const std::function<bool()>& done, Point came_from = {}) {
  bool improved = true;
  while (improved && !done() && !r.best.empty()) {
    improved = false;
    const Point centre = r.best;
    std::vector<Point> around = one_step(space, centre, [&](const Point& q) {
      return !run.seen(q) && valid(q);
    });
    std::shuffle(around.begin(), around.end(), rng);
    if (const auto again = repeat_move(space, came_from, centre))
      if (const auto it = std::find(around.begin(), around.end(), *again); it != around.end())
        std::rotate(around.begin(), it, it + 1);
    if (plan && !around.empty()) plan(around);
    for (const auto& q : around) {
      if (done()) break;
      run.evaluate(q);
      if (r.best != centre) {
        came_from = centre;
        improved = true;
        break;
      }
    }
  }
}

// The restrictions asked point by point, each answer kept: a budgeted search visits a few
// hundred points of a grid of millions (1D family: ~27,000 valid of 22 M), so it draws random
// valid points by rejection instead of enumerating the grid first (3 s per problem, most of the
// search's own time). The grid is enumerated only when a search needs all of it: no budget (a
// tenth of the space), or rejection failing in a sparse corner.
class LazyValid {
 public:
  explicit LazyValid(const SearchSpace& space) : space_(space) {}

  bool operator()(const Point& q) {
    if (q.size() != space_.sizes.size()) return false;
    for (std::size_t k = 0; k < q.size(); ++k)
      if (q[k] < 0 || q[k] >= space_.sizes[k]) return false;
    if (!space_.valid) return true;
    const auto it = memo_.find(q);
    if (it != memo_.end()) return it->second;
    return memo_.emplace(q, space_.valid(q)).first->second;
  }

  // A uniformly random valid point accepted by `take`, or nullopt when there is none.
  template <class Take>
  std::optional<Point> random(std::mt19937_64& rng, const Take& take) {
    // Expected tries: grid / valid (~820 for the 1D family); 100x that before enumerating.
    if (space_.sizes.empty() ||
        std::any_of(space_.sizes.begin(), space_.sizes.end(), [](int n) { return n <= 0; }))
      return std::nullopt;  // an empty grid
    if (!all_) {
      Point q(space_.sizes.size());
      for (int t = 0; t < kTries; ++t) {
        for (std::size_t k = 0; k < q.size(); ++k)
          q[k] = static_cast<int>(rng() % static_cast<std::uint64_t>(space_.sizes[k]));
        // not memoised: random grid points seldom repeat
        if ((!space_.valid || space_.valid(q)) && take(q)) return q;
      }
    }
    const std::vector<Point>& pts = all();
    for (int t = 0; t < 64 && !pts.empty(); ++t) {
      const Point& q = pts[rng() % pts.size()];
      if (take(q)) return q;
    }
    for (const auto& q : pts)
      if (take(q)) return q;
    return std::nullopt;
  }

  // Every valid point, enumerated once; `invalid` (when given) gets the grid points removed.
  const std::vector<Point>& all(std::size_t* invalid = nullptr) {
    if (!all_) all_ = valid_points(space_, &invalid_);
    if (invalid) *invalid = invalid_;
    return *all_;
  }

 private:
  static constexpr int kTries = 100000;
  const SearchSpace& space_;
  std::map<Point, bool> memo_;
  std::optional<std::vector<Point>> all_;
  std::size_t invalid_ = 0;
};

// Simulated annealing on log(cost), neighbourhood = one parameter moved to an adjacent value
// (sometimes to any value), memoised so no point is timed twice, restarts from the best point
// when stuck, and a final first-improvement hill climb around the best with what budget remains.
// Moves are proposed kBatch at a time from the current point and announced to `plan` before the
// first of them is timed, so their kernels compile in parallel (16: one per core of the machines
// histtune tunes on; on synthetic landscapes 16 finds as good points as 8 for the same budget);
// each is then accepted or rejected in turn, as in sequential annealing. With a budget it never
// enumerates the grid (LazyValid), so valid_points and invalid_skipped stay 0: not counted.
class Annealing : public Strategy {
 public:
  static constexpr std::size_t kBatch = 16;
  const char* name() const override { return "annealing"; }
  SearchResult run(const SearchSpace& space, const Objective& f, const SearchBudget& b,
                   std::uint64_t seed, const std::function<void(const std::vector<Point>&)>& plan,
                   const std::vector<Point>& starts) override {
    SearchResult r;
    LazyValid valid(space);
    std::mt19937_64 rng(seed);
    // Without a budget, anneal over a tenth of the space (the time limit may stop it sooner).
    std::size_t budget = b.max_evaluations;
    if (!budget) {
      r.valid_points = valid.all(&r.invalid_skipped).size();
      budget = std::max<std::size_t>(r.valid_points / 10, 1);
    }
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Run run(f, b, r);
    auto announce = [&](const std::vector<Point>& next) {
      if (plan && !next.empty()) plan(next);
    };
    auto random_unseen = [&](const std::set<Point>& also_taken) -> std::optional<Point> {
      return valid.random(rng, [&](const Point& p) { return !run.seen(p) && !also_taken.count(p); });
    };
    auto log_cost = [](const std::optional<double>& c) {
      return c ? std::log(std::max(*c, 1e-30)) : INFINITY;
    };
    auto left = [&] { return r.evaluations < budget ? budget - r.evaluations : 0; };
    auto done = [&] { return r.evaluations >= budget || run.exhausted(); };

    // Seeds: the valid starts, then random points, a few in all.
    const std::size_t seeds = std::min(std::max<std::size_t>(3, budget / 25), budget);
    std::vector<Point> first;
    {
      std::set<Point> taken;
      for (const auto& p : starts)
        if (first.size() < budget && valid(p) && taken.insert(p).second) first.push_back(p);
      while (first.size() < seeds) {
        auto p = random_unseen(taken);
        if (!p) break;
        taken.insert(*p);
        first.push_back(*p);
      }
    }
    if (first.empty()) return r;  // no valid point
    announce(first);
    Point cur;
    double cur_cost = INFINITY;
    for (const auto& p : first) {
      if (done()) break;
      double c = log_cost(run.evaluate(p));
      if (c < cur_cost) {
        cur = p;
        cur_cost = c;
      }
    }
    if (cur.empty()) cur = first.front();

    // Anneal over ~75% of the budget; the rest refines around the best.
    const std::size_t anneal_until = budget * 3 / 4;
    const double t0 = 0.25, t1 = 0.003;  // in log-cost units: 25% .. 0.3% worse accepted
    std::size_t since_best = 0;
    double best_seen = r.best.empty() ? INFINITY : log_cost(r.best_cost);
    auto propose = [&](const Point& from, const std::set<Point>& taken) -> std::optional<Point> {
      for (int attempt = 0; attempt < 64; ++attempt) {
        Point q = from;
        if (!space.coupled.empty() && unit(rng) < 0.1) {  // a coupled pair, one rung each way
          const auto& pair = space.coupled[rng() % space.coupled.size()];
          const auto c = coupled_step(space, from, pair, (rng() % 2) ? 1 : -1);
          if (c && !run.seen(*c) && !taken.count(*c) && valid(*c)) return c;
          continue;
        }
        const std::size_t k = rng() % q.size();
        if (space.sizes[k] <= 1) continue;
        if (unit(rng) < 0.8) {
          q[k] = rung_step(space, k, q[k], (rng() % 2) ? 1 : -1);
          if (q[k] < 0) continue;
        } else {
          q[k] = static_cast<int>(rng() % space.sizes[k]);
        }
        if (unit(rng) < 0.3) {  // sometimes move a second parameter: escapes restriction walls
          const std::size_t k2 = rng() % q.size();
          if (const int j = rung_step(space, k2, q[k2], (rng() % 2) ? 1 : -1); j >= 0) q[k2] = j;
        }
        if (!run.seen(q) && !taken.count(q) && valid(q)) return q;
      }
      return random_unseen(taken);
    };
    while (r.evaluations < anneal_until && !done()) {
      std::vector<Point> moves;
      std::set<Point> taken;
      const std::size_t want = std::min(kBatch, anneal_until - r.evaluations);
      while (moves.size() < want) {
        auto q = propose(cur, taken);
        if (!q) break;
        taken.insert(*q);
        moves.push_back(*q);
      }
      if (moves.empty()) break;
      announce(moves);
      for (const auto& next : moves) {
        if (r.evaluations >= anneal_until || done()) break;
        const double progress =
            static_cast<double>(r.evaluations) / std::max<std::size_t>(anneal_until, 1);
        const double temp = t0 * std::pow(t1 / t0, progress);
        const double c = log_cost(run.evaluate(next));
        if (c < cur_cost || unit(rng) < std::exp(-(c - cur_cost) / temp)) {
          cur = next;
          cur_cost = c;
        }
        if (c < best_seen) {
          best_seen = c;
          since_best = 0;
        } else if (++since_best > std::max<std::size_t>(budget / 8, 20) && !r.best.empty()) {
          cur = r.best;  // stuck: restart from the best point found
          cur_cost = best_seen;
          since_best = 0;
        }
      }
    }

    // Refine: first-improvement hill climb over the untried neighbours of the best point.
    if (!r.best.empty())
      climb(space, [&valid](const Point& q) { return valid(q); }, run, r, rng, plan, done);
    // Budget left (the neighbourhood of the best is exhausted): random samples.
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
      announce(more);
      for (const auto& p : more) {
        if (done()) break;
        run.evaluate(p);
      }
    }
    // The valid space is not counted: a full budget is a stop by budget unless the search ran
    // out of points (every valid point timed).
    if (b.max_evaluations && r.evaluations >= b.max_evaluations) r.stopped_by_budget = true;
    return r;
  }
};

}  // namespace

SearchResult hill_climb(const SearchSpace& space, const Objective& f,
                        const std::vector<Point>& starts, const SearchBudget& b,
                        std::uint64_t seed,
                        const std::function<void(const std::vector<Point>&)>& plan,
                        const Point& came_from) {
  // The restrictions are asked point by point (LazyValid, never its all()): a short climb should
  // not pay for enumerating the grid (valid_points and invalid_skipped stay 0).
  SearchResult r;
  LazyValid valid(space);
  std::mt19937_64 rng(seed);
  Run run(f, b, r);
  std::vector<Point> first;
  for (const auto& p : starts)
    if (valid(p) && std::find(first.begin(), first.end(), p) == first.end()) first.push_back(p);
  if (plan && !first.empty()) plan(first);
  for (const auto& p : first) {
    if (run.exhausted()) break;
    run.evaluate(p);
  }
  climb(space, [&valid](const Point& q) { return valid(q); }, run, r, rng, plan,
        [&] { return run.exhausted(); }, came_from);
  return r;
}


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

int rung_step(const SearchSpace& space, std::size_t k, int index, int dir) {
  if (k >= space.sizes.size() || index < 0 || index >= space.sizes[k]) return -1;
  if (k >= space.rungs.size() || space.rungs[k].empty()) {
    const int j = index + dir;
    return j >= 0 && j < space.sizes[k] ? j : -1;
  }
  const std::vector<int>& order = space.rungs[k];
  const auto at = std::find(order.begin(), order.end(), index);
  if (at == order.end()) return -1;
  const auto pos = (at - order.begin()) + dir;
  return pos >= 0 && pos < static_cast<std::ptrdiff_t>(order.size()) ? order[pos] : -1;
}

std::vector<Point> neighbours(const SearchSpace& space, const Point& centre) {
  return one_step(space, centre, [&space](const Point& q) { return !space.valid || space.valid(q); });
}

std::vector<Point> factorial(const SearchSpace& space, const Point& centre) {
  std::vector<std::size_t> ks;
  for (const std::size_t k : space.interacting)
    if (k < centre.size() && k < space.sizes.size()) ks.push_back(k);
  std::vector<Point> out;
  std::vector<int> dir(ks.size(), -1);  // an odometer over {-1, 0, +1} per parameter
  for (;;) {
    Point q = centre;
    bool on_grid = true;
    for (std::size_t i = 0; i < ks.size() && on_grid; ++i)
      if (dir[i] != 0) {
        q[ks[i]] = rung_step(space, ks[i], centre[ks[i]], dir[i]);
        on_grid = q[ks[i]] >= 0;
      }
    if (on_grid && q != centre && (!space.valid || space.valid(q))) out.push_back(q);
    std::size_t i = 0;
    while (i < dir.size() && dir[i] == 1) dir[i++] = -1;
    if (i == dir.size()) break;
    ++dir[i];
  }
  return out;
}

double worst_ratio(const std::vector<double>& cost,
                   const std::function<double(std::size_t)>& best_on) {
  double w = 0;
  for (std::size_t d = 0; d < cost.size(); ++d) {
    if (!std::isfinite(cost[d])) return std::numeric_limits<double>::infinity();
    const double b = best_on(d);
    w = std::max(w, b > 0 ? cost[d] / b : 1.0);  // zero best: an empty problem
  }
  return w;
}

std::vector<Point> worst_case_climb(const SearchSpace& space, std::size_t distributions,
                                    const DistributionObjective& cost,
                                    const std::function<double(std::size_t)>& best_on,
                                    const Point& start, double tolerance, std::size_t max_steps,
                                    const std::function<void(const std::vector<Point>&)>& plan,
                                    const std::function<bool(const Point&)>& joins) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // Ratios are taken afresh at each comparison: every point timed may lower a distribution's
  // best, and with it raise every other point's ratio there (a centre that was the best known on
  // constant data is 20% behind once its neighbour with warp aggregation is timed).
  const auto ratio = [&](std::size_t d, double c) {
    const double b = best_on(d);
    return !std::isfinite(c) ? kNever : b > 0 ? c / b : 1.0;  // zero best: an empty problem
  };
  const auto at = [&](std::size_t d, const Point& q) {
    const std::optional<double> c = cost(d, q);
    return c ? *c : kNever;
  };
  const auto worst = [&](const std::vector<double>& c) { return worst_ratio(c, best_on); };
  std::vector<Point> path{start};
  if (distributions == 0) return path;
  while (path.size() <= max_steps) {
    const Point& centre = path.back();
    std::vector<double> centre_cost(distributions);
    for (std::size_t d = 0; d < distributions; ++d) centre_cost[d] = at(d, centre);
    if (!std::isfinite(worst(centre_cost))) break;
    // The centre's distributions, worst first: a neighbour is judged where it can lose soonest.
    std::vector<std::size_t> order(distributions);
    for (std::size_t d = 0; d < distributions; ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return ratio(a, centre_cost[a]) > ratio(b, centre_cost[b]);
    });
    const std::vector<Point> around = neighbours(space, centre);
    if (plan && !around.empty()) plan(around);
    std::optional<Point> next;
    std::vector<double> next_cost;
    for (const Point& q : around) {
      // No faster on the centre's worst distribution: its worst ratio cannot be lower.
      std::vector<double> q_cost(distributions, kNever);
      q_cost[order[0]] = at(order[0], q);
      if (!(q_cost[order[0]] < centre_cost[order[0]])) continue;
      const double bound = worst(next ? next_cost : centre_cost);
      bool can_win = true;
      for (std::size_t i = 1; i < distributions && can_win; ++i) {
        q_cost[order[i]] = at(order[i], q);
        can_win = ratio(order[i], q_cost[order[i]]) < bound;
      }
      if (can_win && worst(q_cost) < worst(next ? next_cost : centre_cost)) {
        next = q;
        next_cost = q_cost;
      }
    }
    if (!next || worst(next_cost) * (1.0 + std::max(tolerance, 0.0)) >= worst(centre_cost)) break;
    path.push_back(*next);
    if (joins && joins(path.back())) break;
  }
  return path;
}

std::vector<Point> valid_points(const SearchSpace& space, std::size_t* invalid) {
  std::vector<Point> out;
  std::size_t skipped = 0;
  if (space.sizes.empty() ||
      std::any_of(space.sizes.begin(), space.sizes.end(), [](int s) { return s <= 0; }))
    return out;
  Point p(space.sizes.size(), 0);
  while (true) {
    if (!space.valid || space.valid(p))
      out.push_back(p);
    else
      ++skipped;
    int k = static_cast<int>(p.size()) - 1;  // odometer: last parameter varies fastest
    while (k >= 0 && ++p[k] == space.sizes[k]) p[k--] = 0;
    if (k < 0) break;
  }
  if (invalid) *invalid = skipped;
  return out;
}

ParamValues values_of(const KernelFamily& f, const Point& point) {
  const auto& prms = f.params();
  ParamValues v;
  for (std::size_t k = 0; k < prms.size() && k < point.size(); ++k)
    v.push_back(prms[k].values.at(static_cast<std::size_t>(point[k])));
  return v;
}

Point point_of(const KernelFamily& f, const ParamValues& v) {
  const auto& prms = f.params();
  Point p;
  for (std::size_t k = 0; k < prms.size() && k < v.size(); ++k) {
    auto it = std::find(prms[k].values.begin(), prms[k].values.end(), v[k]);
    if (it == prms[k].values.end())
      throw std::invalid_argument(prms[k].name + " = " + std::to_string(v[k]) +
                                  " is not on the family's grid");
    p.push_back(static_cast<int>(it - prms[k].values.begin()));
  }
  return p;
}

namespace {

// A family's grid: the sizes, each parameter's rungs (value indices by value), and the coupled
// pairs among threads per block / blocks per SM and vectors per thread / vector bytes.
void grid_of(const std::vector<ParamSpec>& prms, SearchSpace& s) {
  for (const auto& prm : prms) {
    s.sizes.push_back(static_cast<int>(prm.values.size()));
    std::vector<int> order(prm.values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return prm.values[a] < prm.values[b]; });
    s.rungs.push_back(order);
  }
  auto index = [&](const std::string& key) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < prms.size(); ++k)
      if (key == prms[k].key) return k;
    return std::nullopt;
  };
  for (const auto& [a, b] : {std::pair{"tpb", "bps"}, std::pair{"vpt", "vec"}})
    if (const auto ia = index(a), ib = index(b); ia && ib) s.coupled.emplace_back(*ia, *ib);
  for (const char* key : {"tpb", "pc", "pf"})
    if (const auto k = index(key)) s.interacting.push_back(*k);
}

}  // namespace

SearchSpace search_space(const Problem& p, const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  SearchSpace s;
  grid_of(f.params(), s);
  s.valid = [&f, p, d](const Point& pt) { return f.check(values_of(f, pt), p, d).empty(); };
  return s;
}

std::optional<Point> point_of_label(const std::string& label, const Problem& p,
                                    const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  const std::optional<ParamValues> v = f.parse(label);
  if (!v || !f.check(*v, p, d).empty()) return std::nullopt;
  try {
    return point_of(f, *v);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a value no longer on the grid
  }
}

}  // namespace histtune::tuner
