// `histtune compare`: for every problem tuned on this GPU, the tuned configuration against the
// built-in default and CUB, with the read floor, all measured now in one run. Each time is shown
// with its spread, and a difference inside the noise is called a tie (verdict.hpp).
#include <cstdio>
#include <optional>

#include "command.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/compare.hpp"
#include "histtune/version.hpp"
#include "compare_view.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "verdict.hpp"

namespace histtune::cli {
namespace {

// Only the tuned winners of this GPU named by --problem (all when none is); a named problem
// that is not tuned here is an error naming it.
std::vector<db::WinnerRow> chosen_winners(const std::vector<db::WinnerRow>& winners,
                                          const std::vector<db::ProblemRow>& only,
                                          const DeviceInfo& d, const std::string& db_path) {
  if (only.empty()) return winners;
  std::vector<db::WinnerRow> chosen;
  for (const auto& key : only) {
    bool found = false;
    for (const auto& w : winners)
      if (w.problem == key) {
        chosen.push_back(w);
        found = true;
      }
    if (!found) {
      std::fprintf(stderr,
                   "histtune: %s is not tuned on GPU %d (%s) in %s; run `histtune --gpu %d "
                   "--problem %s` first\n",
                   problem_name(key).c_str(), d.ordinal, d.name.c_str(), db_path.c_str(),
                   d.ordinal, problem_spec(key).c_str());
      return {};
    }
  }
  return chosen;
}

int run_compare(const Common& c, const std::vector<std::string>& problem_specs) {
  std::vector<db::ProblemRow> only;
  for (const auto& s : problem_specs) only.push_back(parse_problem(s).key());
  const DeviceInfo d = select_device(c);
  auto database = open_db(c, /*must_exist=*/true);  // it stores baselines beside the winners
  const std::vector<db::WinnerRow> all = database->winners(d.uuid);
  if (all.empty()) {
    std::fprintf(stderr,
                 "histtune: nothing tuned for GPU %d (%s, %s) in %s; run `histtune --gpu %d` "
                 "first\n",
                 d.ordinal, d.name.c_str(), d.uuid.c_str(), database->path().c_str(), d.ordinal);
    return kFailure;
  }
  const std::vector<db::WinnerRow> winners = chosen_winners(all, only, d, database->path());
  if (winners.empty()) return kFailure;

  KernelCache cache;
  const double gbps = tuner::measure_read_bandwidth(cache, d);
  const bool text = !c.json;
  if (text && !c.quiet)
    std::printf("histtune compare on GPU %d, %s (sm_%d); read floor %.0f GB/s (measured now)\n%s",
                d.ordinal, d.name.c_str(), d.arch(), gbps, compare_legend().c_str());
  nlohmann::json rows = nlohmann::json::array();
  int status = kOk;
  for (const auto& w : winners) {
    const Problem p = problem_of(w.problem);
    const std::optional<ParamValues> cfg = family_of(p).parse(w.config_label);
    if (!cfg) {
      std::fprintf(stderr, "histtune: %s: stored configuration '%s' is not valid, skipped\n",
                   problem_name(w.problem).c_str(), w.config_label.c_str());
      status = kFailure;
      continue;
    }
    tuner::CompareRow r = tuner::compare(d, p, *cfg, cache, gbps);
    database->set_baseline(d.row(), w.problem, baseline_of(r, gbps));
    if (!r.tuned_ok || !r.fallback_ok) status = kFailure;

    rows.push_back(compare_json(w.problem, r));
    if (text) {
      std::printf("%s", compare_text(w.problem, r, c.verbose).c_str());
      std::fflush(stdout);
    }
  }
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "compare"},
                {"device", device_json(d)},
                {"nvrtc", nvrtc_version()},
                {"database", database->path()},
                {"read_gbps", gbps},
                {"tie_tolerance", kTieTolerance},
                {"rows", rows},
                {"ok", status == kOk}});
  return status;
}

void declare(CLI::App* app, Common& common, std::vector<std::string>& problems) {
  add_common(app, common, kGpu | kDb | kJson | kQuiet | kVerbose,
             {"one JSON document on stdout", "no header or legend: the results and errors",
              "also print how many calls each spread is taken from"});
  app->add_option("--problem", problems,
                  "only this tuned problem, TYPE:BINNING:BINS:N (repeatable)")
      ->type_name("SPEC");
}

}  // namespace

Command compare_command() {
  return {"compare", "tuned vs built-in default vs CUB vs the read floor, measured now",
          "For each problem tuned on this GPU (or each --problem), measures in one run, on\n"
          "the same input: the tuned configuration, the built-in default and CUB, each\n"
          "verified; prints min / median / max ms of the calls, the speedups (the other's\n"
          "median / the tuned median) and % of the read floor (input bytes / read\n"
          "bandwidth, measured now). A difference is a tie, not a win, when the min..max\n"
          "ranges overlap or the medians are within " +
              percent_text(kTieTolerance) +
              ". Default and CUB (median, min, max) and\n"
              "the floor are stored in the database for `histtune report`.",
          bind_values<std::vector<std::string>>(declare, run_compare)};
}

}  // namespace histtune::cli
