// `histtune report --html FILE`: renders the database (every device in it) as one HTML page.
// Needs no GPU: it reads what `tune` and `compare` stored.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "commands.hpp"
#include "histtune/version.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/status.hpp"
#include "json_out.hpp"
#include "report.hpp"

namespace histtune::cli {

int run_report(const Common& c, const std::string& html_path) {
  auto database = open_db_read_only(c);
  ReportData data;
  data.histtune_version = version();
  data.db_path = database->path();
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  data.generated_at = when;
  const Hist1DConfig fallback = hist1d::default_config();
  for (const auto& dev : database->devices()) {
    ReportDevice rd{dev.name,
                    dev.uuid,
                    "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor),
                    std::to_string(dev.driver_version),
                    std::to_string(dev.runtime_version),
                    dev.nvrtc_version.empty() ? "?" : dev.nvrtc_version,
                    {}};
    for (const auto& w : database->winners(dev.uuid)) {
      ReportRow r;
      r.problem = w.problem.sample_type + " " + w.problem.binning +
                  " bins=" + std::to_string(w.problem.num_bins) + " n=" + std::to_string(w.problem.n);
      r.label = w.config_label;
      r.tuned_ms = w.median_ms;
      if (auto cfg = Hist1DConfig::parse(w.config_label))
        for (const auto& prm : hist1d::params()) r.params.emplace_back(prm.key, (*cfg).*prm.member);
      for (const auto& m : database->measurements(dev.uuid, w.problem))
        // By value, not label: labels written before a parameter existed are shorter.
        if (m.verified && Hist1DConfig::parse(m.config_label) == fallback) {
          r.default_ms = m.median_ms;
          break;
        }
      if (auto b = database->baseline(dev.uuid, w.problem)) {
        if (b->default_ms) r.default_ms = b->default_ms;
        r.cub_ms = b->cub_ms;
        r.floor_ms = b->floor_ms;
      }
      rd.rows.push_back(r);
    }
    if (!rd.rows.empty()) data.devices.push_back(rd);
  }
  std::ofstream out(html_path);
  out << render_report(data);
  out.close();
  if (!out) throw Error(StatusCode::invalid_argument, "cannot write --html file " + html_path);
  std::size_t problems = 0;
  for (const auto& d : data.devices) problems += d.rows.size();
  if (c.json)
    print_json({{"histtune", version()}, {"command", "report"}, {"database", database->path()},
                {"html", html_path}, {"devices", data.devices.size()}, {"problems", problems}});
  else if (!c.quiet)
    std::printf("histtune: wrote %s (%zu devices, %zu problems)\n", html_path.c_str(),
                data.devices.size(), problems);
  return kOk;
}

}  // namespace histtune::cli
