// `histtune compare`: for every problem tuned on this GPU, the tuned configuration against the
// built-in default and CUB, with the read floor, all measured now in one run.
#include <cstdio>

#include "commands.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/compare.hpp"

namespace histtune::cli {

int run_compare(const Common& c) {
  const DeviceInfo d = select_device(c);
  auto database = open_db(c);
  std::vector<db::WinnerRow> winners = database->winners(d.uuid);
  if (winners.empty()) {
    std::fprintf(stderr,
                 "histtune: nothing tuned for GPU %d (%s, %s) in %s; run `histtune --gpu %d` "
                 "first\n",
                 d.ordinal, d.name.c_str(), d.uuid.c_str(), database->path().c_str(), d.ordinal);
    return kFailure;
  }
  KernelCache cache;
  const double gbps = tuner::measure_read_bandwidth(cache, d);
  std::printf("histtune compare on GPU %d, %s (sm_%d); read floor %.0f GB/s (measured now)\n",
              d.ordinal, d.name.c_str(), d.arch(), gbps);
  std::printf("times are medians of the calls (zero bins + launch), ms; speedup = other / tuned\n");
  std::printf("%-36s %10s %10s %10s %10s %7s %8s %8s  %s\n", "problem", "tuned", "default", "CUB",
              "floor", "%floor", "vs def", "vs CUB", "tuned configuration");
  int status = kOk;
  for (const auto& w : winners) {
    Problem p;
    p.family = w.problem.family;
    p.sample_type = *parse_sample_type(w.problem.sample_type);
    p.binning = *parse_binning(w.problem.binning);
    p.num_bins = w.problem.num_bins;
    p.n = w.problem.n;
    if (p.binning == Binning::even) {  // the key keeps no bounds: compare on [0, bins)
      p.lower = 0;
      p.upper = p.num_bins;
    }
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
    auto cell = [](const tuner::Timing& t, bool ok) {
      return ok ? fmt_ms(t.median_ms) : std::string("WRONG");
    };
    std::string cub = r.cub_error.empty() ? cell(r.cub, r.cub_ok) : "n/a";
    char vs_cub[16] = "-";
    if (r.cub_error.empty()) std::snprintf(vs_cub, sizeof vs_cub, "%.2fx", r.cub.median_ms / r.tuned.median_ms);
    std::string name = p.describe().substr(p.family.size() + 1);
    std::printf("%-36s %10s %10s %10s %10s %6.1f%% %7.2fx %8s  %s\n", name.c_str(),
                cell(r.tuned, r.tuned_ok).c_str(), cell(r.fallback, r.fallback_ok).c_str(),
                cub.c_str(), fmt_ms(r.floor_ms).c_str(), 100.0 * r.floor_ms / r.tuned.median_ms,
                r.fallback.median_ms / r.tuned.median_ms, vs_cub, r.tuned_label.c_str());
    if (c.verbose)
      std::printf("%-36s   spread min/max: tuned %s/%s default %s/%s CUB %s/%s\n", "",
                  fmt_ms(r.tuned.min_ms).c_str(), fmt_ms(r.tuned.max_ms).c_str(),
                  fmt_ms(r.fallback.min_ms).c_str(), fmt_ms(r.fallback.max_ms).c_str(),
                  fmt_ms(r.cub.min_ms).c_str(), fmt_ms(r.cub.max_ms).c_str());
    if (!r.tuned_ok || !r.fallback_ok) status = kFailure;
  }
  return status;
}

}  // namespace histtune::cli
