// histtune_compile_cost --search: the kernels a cold default plan asks NVRTC for, counted without
// a GPU. Each problem is tuned in plan order by tune_with, as `histtune tune --fresh` tunes it (its
// options, the built-in default always measured, starts from the winners chosen so far), over a
// bench whose times are a fixed pseudo-random function of the configuration's label. The
// searches' paths are not the GPU's, but their shape is: how many kernels each problem announces
// to the compile pool, how many of those it then times, and how many another problem also uses.
#include "compile_cost.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "histtune/db/database.hpp"
#include "histtune/family.hpp"
#include "histtune/jit.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::compile_cost {
namespace {

using tuner::Point;

// A bench that times nothing: each label's median is fixed by a hash of it (1 to 2 ms, a little
// slower on the other distributions), and what the search announces and times is recorded by
// kernel (cache key).
class RecordingBench : public tuner::Bench {
 public:
  RecordingBench(const Problem& p, int arch) : f_(family_of(p)), p_(p), arch_(arch) {}

  std::string label(const Point& pt) const override {
    return f_.label(tuner::values_of(f_, pt));
  }
  std::string params_json(const Point& pt) const override {
    return f_.to_json(tuner::values_of(f_, pt));
  }
  std::string template_hash() const override { return f_.template_hash(); }

  Measured measure(const Point& pt, tuner::Distribution dist,
                   const tuner::TimingOptions*) override {
    for (const CompileRequest& r : f_.programs(tuner::values_of(f_, pt), p_, arch_))
      timed.insert(cache_key(r));  // its kernel's program and the shared ones its launch loads
    const std::string l = label(pt) + tuner::to_string(dist);
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : l) h = (h ^ c) * 1099511628211ull;
    const double ms = 1.0 + static_cast<double>(h % 1000) / 1000.0;
    Measured m;
    std::vector<double> samples(10, ms);
    m.timing = tuner::summarize(samples);
    m.verified = true;
    return m;
  }
  void prefetch(const std::vector<Point>& pts) override {
    for (const Point& pt : pts) {
      announced.insert(key(pt));
      for (CompileRequest& r : f_.programs(tuner::values_of(f_, pt), p_, arch_))
        requests.emplace(cache_key(r), std::move(r));  // a shared program once
    }
  }

  std::set<std::string> announced, timed;
  std::map<std::string, CompileRequest> requests;  // the announced kernels' programs

 private:
  CompileRequest request(const Point& pt) const {
    return f_.request(tuner::values_of(f_, pt), p_, arch_);
  }
  std::string key(const Point& pt) const { return cache_key(request(pt)); }

  const KernelFamily& f_;
  Problem p_;
  int arch_;
};

tuner::TuneOptions plan_options(const Problem& p, const DeviceInfo& d,
                                const std::vector<db::WinnerRow>& chosen) {
  tuner::TuneOptions opt;
  opt.budget = tuner::SearchBudget{tuner::plan_search_budget(p, d), 0, tuner::kPlanScreenAbove};
  tuner::plan_phase_budgets(opt, p, d);
  opt.starts = tuner::tuning_starts(chosen, d, p);
  tuner::add_built_in(opt, p, d);
  return opt;
}

}  // namespace

std::vector<SearchedProblem> searched_kernels(const std::vector<Problem>& plan,
                                              const DeviceInfo& d, int arch,
                                              const std::string& only) {
  std::vector<SearchedProblem> out;
  std::vector<db::WinnerRow> chosen;  // the winners so far: later problems start from them
  std::set<std::string> before;       // kernels of the problems before: in the CUBIN store
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Problem& p = plan[i];
    RecordingBench bench(p, arch);
    const tuner::TuneResult r =
        tuner::tune_with(p, tuner::search_space(p, d), bench, plan_options(p, d, chosen));
    db::WinnerRow w;
    w.problem = p.key();
    w.config_label = r.winner;
    if (!r.winner.empty()) chosen.push_back(w);
    SearchedProblem s;
    s.problem = i;
    for (const auto& [key, req] : bench.requests) {
      const bool timed = bench.timed.count(key) != 0;
      if (before.count(key)) {
        ++s.stored;
        continue;
      }
      ++(timed ? s.timed : s.never_timed);
      if (timed && !only.empty() && p.describe().find(only) != std::string::npos)
        s.compile.push_back(req);
    }
    for (const std::string& key : bench.timed)
      if (!bench.requests.count(key)) ++s.unannounced;
    before.insert(bench.announced.begin(), bench.announced.end());
    before.insert(bench.timed.begin(), bench.timed.end());
    out.push_back(std::move(s));
  }
  return out;
}

void print_searched(const std::vector<Problem>& plan, const std::vector<SearchedProblem>& s) {
  std::printf("%-4s %-58s %6s %6s %6s %6s\n", "#", "problem (searched as a cold plan)", "timed",
              "never", "stored", "unann");
  std::size_t timed = 0, never = 0, stored = 0, unannounced = 0;
  for (const SearchedProblem& x : s) {
    std::printf("%-4zu %-58s %6zu %6zu %6zu %6zu\n", x.problem, plan[x.problem].describe().c_str(),
                x.timed, x.never_timed, x.stored, x.unannounced);
    timed += x.timed;
    never += x.never_timed;
    stored += x.stored;
    unannounced += x.unannounced;
  }
  std::printf("%-4s %-58s %6zu %6zu %6zu %6zu\n", "", "all", timed, never, stored, unannounced);
  std::printf(
      "timed: new kernels announced and timed; never: announced, never timed; stored: compiled "
      "for an earlier problem; unann: timed without being announced\n");
}

}  // namespace histtune::compile_cost
