// `histtune compare`: for every problem tuned on this GPU, the tuned configuration against the
// built-in default and CUB, with the read floor, all measured now in one run.
#include <cstdio>

#include "commands.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/compare.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"

namespace histtune::cli {

int run_compare(const Common& c, const std::vector<std::string>& problem_specs) {
  std::vector<db::ProblemRow> only;
  for (const auto& s : problem_specs) only.push_back(parse_problem(s).key());
  const DeviceInfo d = select_device(c);
  auto database = open_db(c, /*must_exist=*/true);  // it stores baselines beside the winners
  std::vector<db::WinnerRow> winners = database->winners(d.uuid);
  for (const auto& key : only) {
    bool tuned = false;
    for (const auto& w : winners) tuned = tuned || w.problem == key;
    if (!tuned) {
      std::fprintf(stderr, "histtune: %s is not tuned on GPU %d (%s) in %s; run `histtune --gpu %d "
                           "--problem %s` first\n",
                   problem_name(key).c_str(), d.ordinal, d.name.c_str(), database->path().c_str(),
                   d.ordinal, problem_spec(key).c_str());
      return kFailure;
    }
  }
  if (!only.empty()) {
    std::vector<db::WinnerRow> chosen;
    for (const auto& w : winners)
      for (const auto& key : only)
        if (w.problem == key) chosen.push_back(w);
    winners = chosen;
  }
  if (winners.empty()) {
    std::fprintf(stderr,
                 "histtune: nothing tuned for GPU %d (%s, %s) in %s; run `histtune --gpu %d` "
                 "first\n",
                 d.ordinal, d.name.c_str(), d.uuid.c_str(), database->path().c_str(), d.ordinal);
    return kFailure;
  }
  KernelCache cache;
  const double gbps = tuner::measure_read_bandwidth(cache, d);
  const bool table = !c.json;
  if (table && !c.quiet) {
    std::printf("histtune compare on GPU %d, %s (sm_%d); read floor %.0f GB/s (measured now)\n",
                d.ordinal, d.name.c_str(), d.arch(), gbps);
    std::printf("times are medians of the calls (zero bins + launch), ms; speedup = other / tuned\n");
  }
  if (table)
    std::printf("%-36s %10s %10s %10s %10s %7s %8s %8s  %s\n", "problem", "tuned", "default",
                "CUB", "floor", "%floor", "vs def", "vs CUB", "tuned configuration");
  nlohmann::json rows = nlohmann::json::array();
  int status = kOk;
  for (const auto& w : winners) {
    const Problem p = problem_of(w.problem);
    auto cfg = Hist1DConfig::parse(w.config_label);
    if (!cfg) {
      std::fprintf(stderr, "  %s: stored configuration '%s' is not valid, skipped\n",
                   p.describe().c_str(), w.config_label.c_str());
      status = kFailure;
      continue;
    }
    tuner::CompareRow r = tuner::compare(d, p, *cfg, cache, gbps);
    db::BaselineRow base;  // kept for `histtune report`
    if (r.fallback_ok) base.default_ms = r.fallback.median_ms;
    if (r.cub_error.empty() && r.cub_ok) base.cub_ms = r.cub.median_ms;
    base.floor_ms = r.floor_ms;
    base.read_gbps = gbps;
    database->set_baseline(d.row(), w.problem, base);
    const bool cub_ran = r.cub_error.empty();
    const double pct = 100.0 * r.floor_ms / r.tuned.median_ms;
    const double vs_default = r.fallback.median_ms / r.tuned.median_ms;
    const double vs_cub = cub_ran ? r.cub.median_ms / r.tuned.median_ms : 0;
    if (!r.tuned_ok || !r.fallback_ok) status = kFailure;

    nlohmann::json j = {{"problem", problem_json(w.problem)},
                        {"configuration", r.tuned_label},
                        {"tuned", timing_json(r.tuned)},
                        {"default", timing_json(r.fallback)},
                        {"floor_ms", r.floor_ms},
                        {"percent_of_floor", pct},
                        {"speedup_vs_default", vs_default}};
    j["tuned"]["verified"] = r.tuned_ok;
    j["default"]["verified"] = r.fallback_ok;
    if (cub_ran) {
      j["cub"] = timing_json(r.cub);
      j["cub"]["verified"] = r.cub_ok;
      j["speedup_vs_cub"] = vs_cub;
    } else {
      j["cub"] = {{"error", r.cub_error}};
      j["speedup_vs_cub"] = nullptr;
    }
    rows.push_back(j);
    if (!table) continue;

    auto cell = [](const tuner::Timing& t, bool ok) {
      return ok ? fmt_ms(t.median_ms) : std::string("WRONG");
    };
    std::string cub = cub_ran ? cell(r.cub, r.cub_ok) : "n/a";
    char vs_cub_text[16] = "-";
    if (cub_ran) std::snprintf(vs_cub_text, sizeof vs_cub_text, "%.2fx", vs_cub);
    std::printf("%-36s %10s %10s %10s %10s %6.1f%% %7.2fx %8s  %s\n",
                problem_name(w.problem).c_str(), cell(r.tuned, r.tuned_ok).c_str(),
                cell(r.fallback, r.fallback_ok).c_str(), cub.c_str(), fmt_ms(r.floor_ms).c_str(),
                pct, vs_default, vs_cub_text, r.tuned_label.c_str());
    if (c.verbose)
      std::printf("%-36s   spread min/max: tuned %s/%s default %s/%s CUB %s/%s\n", "",
                  fmt_ms(r.tuned.min_ms).c_str(), fmt_ms(r.tuned.max_ms).c_str(),
                  fmt_ms(r.fallback.min_ms).c_str(), fmt_ms(r.fallback.max_ms).c_str(),
                  fmt_ms(r.cub.min_ms).c_str(), fmt_ms(r.cub.max_ms).c_str());
    std::fflush(stdout);
  }
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "compare"},
                {"device", device_json(d)},
                {"database", database->path()},
                {"read_gbps", gbps},
                {"rows", rows},
                {"ok", status == kOk}});
  return status;
}

}  // namespace histtune::cli
