// Tuning of one problem, in three phases:
//   1. search: a strategy (tuner/search.hpp) times configurations of the family's space on the
//      first input distribution (uniform), each compiled ahead where the strategy announces it,
//      timed until its median is stable and verified exactly against the host reference, then a
//      hill climb from the fastest point found to a local optimum (the polish);
//   2. per distribution: on each other distribution (skewed, constant, runs) the finalists of
//      the search are timed, then every one-step neighbour of the best of them there, then a
//      short hill climb looks for that distribution's own best; then each distribution's best is
//      timed on the others, and climbs on the worst case over the distributions look for the
//      compromise between them;
//   3. decision: the finalists of every phase are timed again on every distribution, interleaved
//      (round-robin over the candidates, several rounds), and tuner/decide.hpp chooses: the robust
//      winner is the best worst case over the distributions, each distribution keeps its own
//      winner, and near-ties go to the simplest configuration.
// The decision logic (tune_with) talks to the device through the Bench interface only, so it is
// tested on CPU with a fake bench; tune() is tune_with over the GPU bench of the problem's family
// (1D or multi-channel).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/decide.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/timing.hpp"

namespace histtune::tuner {

struct Progress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::string label;  // the configuration just measured ("skewed: tpb..." beyond uniform)
};

// (distribution name, configuration label): the key of a measurement within one problem.
using MeasurementKey = std::pair<std::string, std::string>;

// Tunings that run at once on one GPU take turns on it: each measurement (inputs uploaded, kernel
// loaded, timed, verified) holds the turn, so no timed call shares the GPU with another tuning's
// work; compiling does not hold it.
class DeviceTurn {
 public:
  std::unique_lock<std::mutex> take() { return std::unique_lock<std::mutex>(mutex_); }

 private:
  std::mutex mutex_;
};

struct TuneOptions {
  TimingOptions timing;
  DeviceTurn* turn = nullptr;  // shared by the tunings running at once on this GPU; null: alone
  std::uint64_t seed = 1;
  // The input distributions measured; the first is searched, the others refine and judge.
  std::vector<Distribution> distributions = {Distribution::uniform, Distribution::skewed,
                                             Distribution::constant, Distribution::runs};
  int compile_threads = 0;  // 0: one per hardware thread
  // Shared with the problems tuned at once (a plan's): compile_threads is then ignored.
  CompileSlots* compile_slots = nullptr;
  std::string strategy = "annealing";  // see tuner/search.hpp
  SearchBudget budget;                 // of the search phase; 0 = unlimited
  // Known good points to start the search from (annealing): see tuning_starts.
  std::vector<Point> starts;
  // Points measured whatever the search does, and carried into the decision as finalists (on
  // every distribution) when they verified: tune() adds the built-in default, so a guided search
  // cannot store a winner whose worst case is slower than what an untuned call runs.
  std::vector<Point> always;
  // Points re-timed beside the candidates in the decision but never chosen (the winner of an
  // earlier run: `histtune tune --fresh` reports how far apart the two winners are).
  std::vector<Point> references;
  // Evaluations of a hill climb on the first distribution from the search's fastest point, to a
  // local optimum: the search's budget can end before it reaches one, and two runs that stop at
  // different points of one slope store winners a few percent apart. 0: no climb.
  std::size_t polish_budget = 32;
  // Then every combination of one-rung moves of the interacting parameters around the best point
  // (search.hpp's factorial: 17 points at most for the families, whose prefetch has two values),
  // and, where one is faster, a second polish from it: two runs whose searches settled in
  // different basins of those parameters meet again.
  bool factorial = true;
  // Configurations of the search carried into the decision (the fastest, by median). 8, not 5:
  // the best worst case over the distributions is not always among the 5 fastest on the first
  // (two H100 plans stored winners 4-17% apart on the worst case where one run's was 6th).
  std::size_t finalists = 8;
  // Beyond them, the fastest point of each value of a basin parameter (SearchSpace::basins)
  // within this fraction of the first distribution's best: the finalists of one storage can all
  // be 4x behind on other data while another storage's best, 9th, is not (docs/tuning.md,
  // session 36). Negative: none.
  double basin_gap = 0.25;
  // Evaluations of the hill climb on each other distribution, beyond timing the finalists and
  // the neighbourhood of the best of them there; 0: no climb.
  std::size_t distribution_budget = 16;
  // Evaluations of a second annealing search, on the distribution where the first distribution's
  // best is furthest behind that distribution's best, when more than second_search_gap: there
  // the first distribution's landscape is not that one's, and its optima lie outside the
  // neighbourhoods phase 2 climbs (H100 plans d, e, f, f32 1024 range bins 2^24: three runs kept
  // three local optima 2-6% apart on skewed, constant and runs data, each a local optimum of
  // one-step moves). Started from that distribution's best points; 0: no second search.
  std::size_t second_search_budget = 64;
  double second_search_gap = 0.02;
  // New measurements of the climbs on the worst case over the distributions (search.hpp's
  // worst_case_climb), each distribution's best timed on the others included: at most
  // worst_case_climbs climbs, each from the best worst case measured that no earlier climb passed
  // through; the first start and each climb's end join the candidates. 0: no climb.
  std::size_t worst_case_budget = 96;
  std::size_t worst_case_climbs = 3;
  // Candidates within this fraction of the best are tied; the simplest of them wins. Well inside
  // the 2% within which two runs' winners should agree: at 1.5% the band alone let two H100 plans
  // keep winners 2-3% apart (each picked a simpler point near the top of its own band).
  double tie_tolerance = 0.005;
  // How the robust winner is chosen (tuner/decide.hpp): pairwise, as `histtune stability` judges
  // two runs' winners, or leximax over the ratios to each distribution's best.
  RobustRule decision = RobustRule::pairwise;
  // Interleaved rounds of timing every candidate on every distribution before deciding; twice as
  // many where the first distribution's fastest call is under short_problem_ms, whose medians
  // move most between runs (H100: 2-4% at 5-20 us) and whose rounds cost least.
  int remeasure_rounds = 5;
  double short_problem_ms = 0.02;
  // After each round but the last, a candidate plainly out of the running is not timed again:
  // its worst ratio over the distributions and its regret (decide.hpp) both more than this
  // fraction behind the best of the candidates, on the rounds pooled so far: well outside the tie
  // band and one round's noise (docs/tuning.md, session 25). 0: every candidate every round.
  double decision_drop = 0.05;
  // Samples each of the decision's re-timings takes (its least and its most; 0: the search's
  // stopping rule, TimingOptions: at least 10, until the median's 95% interval is within 1%).
  // Every round's samples are pooled, so the decision's medians rest on 50-100 samples or more
  // either way; the rule's least is the default, since noisy kernels took the rule to 100 samples
  // in every round (docs/tuning.md, "A cold plan", session 32). 5 kept fewer winners (session 30).
  int decision_samples = 10;
  // The search's measurements race: one whose first samples are more than race_ratio times the
  // best on its distribution so far stops there (TimingOptions::give_up_above_ms). 0: no racing.
  // The rest of the search is timed in full: coarser timings left winners behind (docs/tuning.md,
  // "A cold plan").
  double race_ratio = 1.25;
  std::function<void(const Progress&)> on_progress;
  // Measurements of this problem already in the database (same device and template hash), by
  // (distribution, label): the phases reuse them instead of timing again, so an interrupted run
  // resumes where it stopped (see resume_from).
  std::map<MeasurementKey, db::MeasurementRow> known;
  // Called with each new measurement as soon as it is taken (the CLI stores it at once, so an
  // interrupted run loses nothing it finished). The decision phase's re-timings are not
  // measurements of the search: they are not reported here (the winners carry their times).
  std::function<void(const db::MeasurementRow&)> on_measurement;
};

// What tune_with needs of a device, for one problem.
class Bench {
 public:
  struct Measured {
    Timing timing;
    bool verified = false;
    std::string error;  // why it failed (compile error, wrong result), when it did
  };
  virtual ~Bench() = default;
  virtual std::string label(const Point& p) const = 0;
  virtual std::string params_json(const Point& p) const = 0;
  virtual std::string template_hash() const = 0;
  // Times p on `dist` and verifies the result. Failures of the configuration are returned (not
  // verified, with the error); an error that leaves the device unusable is thrown. `how`: the
  // timing to use (the search's, coarser and racing); null: the bench's own.
  virtual Measured measure(const Point& p, Distribution dist,
                           const TimingOptions* how = nullptr) = 0;
  // These points will be measured soon, in this order: compile them ahead.
  virtual void prefetch(const std::vector<Point>&) {}
  // Distinct kernels this bench had to load (compiled by NVRTC or taken from the CUBIN store).
  virtual std::size_t kernels_loaded() const { return 0; }
  // Where measure() spent its time: on the GPU (holding the turn; calls_s of it in the timed
  // calls, of which the events timed samples_s, the rest setting up and verifying), loading
  // kernels while holding the turn, waiting for a compile.
  struct Spent {
    double device_s = 0;
    double calls_s = 0;
    double samples_s = 0;
    double load_s = 0;
    double compile_wait_s = 0;
    Spent& operator+=(const Spent& o) {
      device_s += o.device_s;
      calls_s += o.calls_s;
      samples_s += o.samples_s;
      load_s += o.load_s;
      compile_wait_s += o.compile_wait_s;
      return *this;
    }
  };
  virtual Spent spent() const { return {}; }
};

// One distribution's winner.
struct DistributionWinner {
  std::string distribution;
  std::string label;
  double median_ms = 0;
};

// A candidate of the decision: its re-timed median on each distribution (TuneOptions order;
// negative where it failed), its worst ratio to each distribution's best and its regret (percent,
// decide.hpp; infinite where it failed, 0 for a reference, which is never chosen).
struct Finalist {
  std::string label;
  std::vector<double> median_ms;
  double worst_ratio = 0;
  double regret = 0;
};

struct TuneResult {
  Problem problem;
  std::vector<db::MeasurementRow> measurements;  // every configuration timed by the phases
  std::size_t reused = 0;                        // taken from TuneOptions::known instead
  std::size_t pruned = 0;                        // points the restrictions skipped (0 when not counted)
  std::size_t compiled = 0;                      // distinct kernels loaded (NVRTC or store)
  Bench::Spent spent;                            // the bench's GPU time and compile waits
  double decision_device_s = 0;                  // of spent.device_s, the decision's re-timings
  std::size_t decision_dropped = 0;              // candidates left out of its later rounds
  std::size_t raced_out = 0;                     // measurements stopped early by the race
  std::size_t valid = 0;                         // valid points of the space; 0: not counted (annealing with a budget)
  std::size_t search_evaluations = 0;            // of phase 1, reused ones included
  std::size_t screened = 0;                      // of the two searches' evaluations, left untimed
  std::size_t polish_evaluations = 0;            // new points the polish climb timed
  std::size_t factorial_evaluations = 0;         // new points of the factorial and its polish
  std::size_t worst_case_evaluations = 0;        // new measurements of the worst-case climb
  std::string second_search;                     // its distribution; empty: none was needed
  std::size_t second_search_evaluations = 0;     // of the second search, reused ones included
  std::string strategy;
  bool stopped_early = false;                    // by the evaluation budget or the time limit
  std::size_t failed = 0;                        // compiled or verified wrongly (listed in errors)
  std::vector<std::string> errors;
  // The robust winner (best worst case over the distributions; with one distribution, the
  // fastest up to ties), its re-timed median on the first distribution and its worst ratio.
  std::string winner;  // label; empty when nothing verified
  double winner_ms = 0;
  double winner_worst_ratio = 0;
  std::vector<DistributionWinner> by_distribution;  // empty with a single distribution
  std::vector<std::string> distributions;           // names, TuneOptions order
  std::vector<Finalist> finalists;
  std::vector<Finalist> references;  // TuneOptions::references, re-timed the same way
  std::string template_hash;
};

// The three phases over `space`, measured through `bench`.
TuneResult tune_with(const Problem& p, const SearchSpace& space, Bench& bench,
                     const TuneOptions& opt);

// The GPU bench of p's family (family_of(p)) for p on d: kernels compiled ahead on a pool of
// opt.compile_threads (through `cache`, which consults its CUBIN store first), inputs of
// p.total_samples() samples of each of opt.distributions drawn (with opt.seed) on other threads
// (each channel of a multi-channel problem follows the distribution) and timed with opt.timing,
// rotating copies as tuner/inputs.hpp says, and every counter verified against the host
// reference.
std::unique_ptr<Bench> make_bench(const DeviceInfo& d, const Problem& p, KernelCache& cache,
                                  const TuneOptions& opt);

// tune_with on the GPU, over the space and bench of p's family; the family's built-in default is
// always measured and searched from.
TuneResult tune(const DeviceInfo& d, const Problem& p, KernelCache& cache, const TuneOptions& opt);
// The template hash of p's family's kernel: what its measurements and winners are recorded with.
std::string template_hash_of(const Problem& p);

// The storage side of a run, shared by `histtune tune` and its tests: fills opt.known with what
// `database` holds of (device, problem) measured with `template_hash` (resume), and makes
// opt.on_measurement store each new measurement at once, in its own transaction, before calling
// the on_measurement that was set (if any). `database` must outlive the run.
void resume_from(db::Database& database, const db::DeviceRow& device, const Problem& p,
                 const std::string& template_hash, TuneOptions& opt);

// Records the winners: the robust one and each distribution's (one transaction), and with
// measurements = true every measurement (another). A caller that stored every measurement
// through on_measurement passes measurements = false.
void store(db::Database& database, const db::DeviceRow& device, const TuneResult& r,
           bool measurements = true);
void store(db::Database& database, const DeviceInfo& d, const TuneResult& r,
           bool measurements = true);

// Start points for tuning p: the winners (robust and per distribution) of problems of the same
// family and channels already tuned on this device, nearest first (|log2 n| + |log2 bins| apart,
// plus 2 for another sample type of the same width, 4 of another width, 4 for another binning),
// that are valid for p on d; at most `max`. Any family.
std::vector<Point> tuning_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max = 6);
// The same over given winners (rows of any problem: only those like p count), e.g. the ones a
// run chose so far when it must not read earlier runs' (`histtune tune --fresh`).
std::vector<Point> tuning_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max = 6);
// The built-in configurations in opt: the fallback (the family's default for p on d) always
// measured, and it and the first three of the family's seeds() after opt.starts (the ones not
// already there), so that annealing searches around them too: their neighbours may beat them.
// tune() calls it.
void add_built_in(TuneOptions& opt, const Problem& p, const DeviceInfo& d);
// The rows tuning_starts(database, ...) reads of one device: each robust winner followed by its
// problem's per-distribution winners (`histtune tune --gpu all` reads every board of a model's).
std::vector<db::WinnerRow> start_rows(const db::Database& database,
                                      const std::string& device_uuid);
// Earlier names of tuning_starts, kept for callers of the 1D family.
std::vector<Point> hist1d_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max = 6);
std::vector<Point> hist1d_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max = 6);

// The default plan of `histtune --gpu auto`, and the search budget (evaluations per problem,
// annealing) it is tuned with unless --budget says otherwise; its searches leave untimed the
// moves their cost model predicts above kPlanScreenAbove x the best (SearchBudget::screen_above;
// --screen-above).
std::vector<Problem> default_plan();
constexpr std::size_t kPlanBudget = 160;
constexpr double kPlanScreenAbove = 3.0;
// Where the built-in default partitions (hist1d storage 5, bins far beyond shared memory), a plan
// tunes with 1 / kPartitionedShare of each budget: the search's (when --budget does not set it)
// and those of the phases after it (plan_phase_budgets): their kernels are the slowest to compile
// and the default has won their tunings (docs/tuning.md, "A cold plan", session 50).
constexpr std::size_t kPartitionedShare = 4;
constexpr std::size_t kPartitionedPlanBudget = kPlanBudget / kPartitionedShare;
bool default_partitions(const Problem& p, const DeviceInfo& d);
// The search budget of a plan's problem when --budget does not set one.
std::size_t plan_search_budget(const Problem& p, const DeviceInfo& d);
// Where the default partitions, opt's polish, climbs (other distributions, worst case) and second
// search get 1 / kPartitionedShare of their budgets; elsewhere they stay as they are.
void plan_phase_budgets(TuneOptions& opt, const Problem& p, const DeviceInfo& d);

}  // namespace histtune::tuner
