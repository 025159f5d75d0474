// Search strategies over a family's configuration space, behind one interface: exhaustive,
// random, and simulated annealing (a neighbourhood-guided search), each with an evaluation budget
// and a time limit. A point is a vector of value indices, one per parameter of the family's table,
// so strategies know nothing of kernels; invalid points (restrictions) are skipped and counted,
// never evaluated.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/families.hpp"
#include "histtune/problem.hpp"

namespace histtune::tuner {

using Point = std::vector<int>;

struct SearchSpace {
  SearchSpace() = default;
  SearchSpace(std::vector<int> sizes_, std::function<bool(const Point&)> valid_,
              std::vector<std::vector<int>> rungs_ = {},
              std::vector<std::pair<std::size_t, std::size_t>> coupled_ = {},
              std::vector<std::size_t> interacting_ = {})
      : sizes(std::move(sizes_)),
        valid(std::move(valid_)),
        rungs(std::move(rungs_)),
        coupled(std::move(coupled_)),
        interacting(std::move(interacting_)) {}

  std::vector<int> sizes;                    // number of values of each parameter
  std::function<bool(const Point&)> valid;  // the restrictions
  // Per parameter, its value indices from the smallest value up; a one-step move goes one rung.
  // Empty (or empty for a parameter): index order. The families' tables list values simplest
  // first (blocks per SM {8, 1, 2, 4, 16}), and in index order 8 -> 4 was three steps through
  // worse points that a climb does not cross.
  std::vector<std::vector<int>> rungs;
  // Pairs of parameters that also move together, one rung each in opposite directions: threads
  // per block against blocks per SM keeps the threads per SM, vectors per thread against vector
  // bytes the bytes each thread has in flight. Either move alone passes a worse point (half the
  // occupancy, half the loads in flight) between two good ones.
  std::vector<std::pair<std::size_t, std::size_t>> coupled;
  // Parameters whose good values depend on each other, searched together by factorial(): threads
  // per block, private copies and prefetch share one block's resources (threads, shared memory,
  // registers), and the best of one depends on the others (H100, u8 64 bins 2^24: threads 1,024
  // with two copies and no prefetch is 3.4% ahead of 512 with one copy and prefetch, and each
  // single switch between them is 1-8% slower than either).
  std::vector<std::size_t> interacting;
  // Parameters whose values are different algorithms (hist1d's storage) or different balances
  // of work a thread (every family's vectors per thread): the fastest points of one value can
  // all be one basin's variants, fast on the first distribution and slow on the others, while
  // another value's best is just behind them (tuning.cpp's per_distribution; docs/tuning.md,
  // sessions 37 and 42).
  std::vector<std::size_t> basins;
  // The blocks-per-SM parameter, where the family has one: a decision's ties go to fewer blocks
  // an SM (decide.hpp, DecisionNoise::blocks_rung).
  std::optional<std::size_t> blocks_per_sm;
};

// A value index's place on parameter k's rungs (0: the smallest value), or -1 off the grid.
int rung_position(const SearchSpace& space, std::size_t k, int index);

// The value index one rung below (dir -1) or above (dir +1) index `index` of parameter k, or -1
// past either end.
int rung_step(const SearchSpace& space, std::size_t k, int index, int dir);

// A point's cost (lower is better; a median time), or nullopt when it failed (did not compile,
// gave a wrong result): a failure counts as an evaluation and never wins.
using Objective = std::function<std::optional<double>(const Point&)>;

struct SearchBudget {
  std::size_t max_evaluations = 0;  // 0: no limit
  double time_limit_s = 0;          // 0: no limit
  // Annealing: a move its cost model (cost_model.hpp) predicts above this many times the best
  // cost so far counts against max_evaluations untimed, so its kernel is never compiled.
  // 0: every move timed.
  double screen_above = 0;
};

struct SearchResult {
  Point best;  // empty when nothing succeeded
  double best_cost = 0;
  std::size_t evaluations = 0;  // screened ones included
  std::size_t screened = 0;     // moves left untimed (SearchBudget::screen_above)
  std::size_t invalid_skipped = 0;  // grid points the restrictions removed
  std::size_t valid_points = 0;     // size of the valid space
  std::vector<std::pair<Point, std::optional<double>>> history;  // in evaluation order
  bool stopped_by_budget = false;  // max_evaluations ended it before it covered the valid space
  bool stopped_by_time = false;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual const char* name() const = 0;
  // `plan`, when given, is told the points the strategy will evaluate next, in order, before it
  // evaluates them, so that their kernels compile ahead: all of them up front (exhaustive,
  // random), or a few at a time as the search goes (annealing: each batch of proposed moves).
  // `starts`, when given, are known good points (the winners of similar problems): annealing
  // evaluates the valid ones first, in place of its random seeds; the listed strategies ignore
  // them.
  virtual SearchResult run(const SearchSpace& space, const Objective& objective,
                           const SearchBudget& budget, std::uint64_t seed,
                           const std::function<void(const std::vector<Point>&)>& plan = {},
                           const std::vector<Point>& starts = {}) = 0;
};

// "exhaustive", "random" or "annealing"; throws std::invalid_argument naming the valid ones.
std::unique_ptr<Strategy> make_strategy(const std::string& name);
const std::vector<std::string>& strategy_names();

// A short local search for a known good region: evaluates `starts` (the valid ones, in order),
// then climbs from the best point found by first improvement over its one-step neighbours until
// a local optimum, the budget or the time limit. Used to find each input distribution's own best
// near the finalists of the main search. It asks the restrictions point by point instead of
// enumerating the grid, so valid_points and invalid_skipped of its result are 0. Each step first
// tries the move that led to the centre again (repeat_move; at the start, the move from
// `came_from` to the best start, where given), then the other neighbours in random order.
SearchResult hill_climb(const SearchSpace& space, const Objective& objective,
                        const std::vector<Point>& starts, const SearchBudget& budget,
                        std::uint64_t seed,
                        const std::function<void(const std::vector<Point>&)>& plan = {},
                        const Point& came_from = {});

// The move from `from` to `to` made once more from `to`: each parameter that changed goes as many
// rungs again the same way (a coupled step repeats as a coupled step). nullopt where that leaves
// the grid or the points are equal; the restrictions are not asked.
std::optional<Point> repeat_move(const SearchSpace& space, const Point& from, const Point& to);

// The valid points one step away from `centre`: each parameter one rung down and up, in
// parameter order, then each coupled pair moved together (first up, second down; then the
// reverse): the neighbourhood the climbs search.
std::vector<Point> neighbours(const SearchSpace& space, const Point& centre);

// The valid points that move the interacting parameters of `centre` (SearchSpace::interacting)
// each one rung down, not at all, or one rung up, in every combination but `centre` itself: at
// most 3^k - 1 points for k such parameters, in a fixed order. Two or three parameters moved at
// once reach a point that no sequence of single moves through better points does.
std::vector<Point> factorial(const SearchSpace& space, const Point& centre);

// A point's cost on input distribution d (lower is better), or nullopt when it failed.
using DistributionObjective = std::function<std::optional<double>(std::size_t, const Point&)>;

// The worst ratio of a point whose cost on distribution d is cost[d] (infinite where it failed
// or was not measured): the largest over d of cost[d] / best_on(d), with 1 where best_on(d) is
// not positive (an empty problem); infinite where any cost is.
double worst_ratio(const std::vector<double>& cost,
                   const std::function<double(std::size_t)>& best_on);

// A climb on the worst case over `distributions` objectives (the tuner's objective): a point's
// worst ratio is the largest over d of cost(d, point) / best_on(d), the best cost known on d
// (it falls as the climb finds faster points). From `start`, each step moves to the one-step
// neighbour with the lowest worst ratio while it beats the centre's by more than `tolerance`,
// at most `max_steps` times. A neighbour is timed first on the centre's worst distribution and
// on the others only while it can still win: one no faster there cannot lower the worst ratio.
// The per-distribution searches find each distribution's best, not the compromise between
// them (H100, i32 65536 bins: two runs kept the hot-bin-safe configuration with unroll 0 and
// 2, 4% apart on every distribution). Returns the points it moved through, `start` first. It
// stops on a point for which `joins` is true (an earlier climb's path: the rest is known).
std::vector<Point> worst_case_climb(const SearchSpace& space, std::size_t distributions,
                                    const DistributionObjective& cost,
                                    const std::function<double(std::size_t)>& best_on,
                                    const Point& start, double tolerance, std::size_t max_steps,
                                    const std::function<void(const std::vector<Point>&)>& plan = {},
                                    const std::function<bool(const Point&)>& joins = {});

// Every valid point of the grid, in enumeration order (the first parameter varies slowest).
std::vector<Point> valid_points(const SearchSpace& space, std::size_t* invalid = nullptr);

// A point of family f's grid as its parameter values, and back (throws std::invalid_argument off
// the grid).
ParamValues values_of(const KernelFamily& f, const Point& point);
Point point_of(const KernelFamily& f, const ParamValues& v);

// The space of p's family (family_of(p)) for p on d: its grid, restricted by its check.
SearchSpace search_space(const Problem& p, const DeviceInfo& d);
// The point of a stored label of p's family, when it parses, is on the grid and passes the
// restrictions for p on d.
std::optional<Point> point_of_label(const std::string& label, const Problem& p,
                                    const DeviceInfo& d);

// Typed forms for code written per family (the tests).
template <class F>
typename F::Config config_of(const Point& point) {
  return FamilyModel<F>::config(values_of(family(F::kId), point));
}
template <class F>
Point point_of(const typename F::Config& c) {
  return point_of(family(F::kId), FamilyModel<F>::values(c));
}
inline SearchSpace hist1d_search_space(const Problem& p, const DeviceInfo& d) {
  return search_space(p, d);
}
inline Hist1DConfig hist1d_config_of(const Point& point) { return config_of<Hist1DFamily>(point); }
inline Point hist1d_point_of(const Hist1DConfig& c) { return point_of<Hist1DFamily>(c); }
inline SearchSpace multichannel_search_space(const Problem& p, const DeviceInfo& d) {
  return search_space(p, d);
}
inline MultiChannelConfig multichannel_config_of(const Point& point) {
  return config_of<MultiChannelFamily>(point);
}
inline Point multichannel_point_of(const MultiChannelConfig& c) {
  return point_of<MultiChannelFamily>(c);
}

}  // namespace histtune::tuner
