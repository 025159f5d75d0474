// `histtune report --html FILE`: renders the database (every device in it) as one HTML page.
// Needs no GPU: it reads what `tune` stored (winners and their measurements, the default
// configuration's where it was measured) and what `compare` stored (default, CUB, floor).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>

#include "command.hpp"
#include "histtune/version.hpp"
#include "histtune/family.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/status.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "standing.hpp"
#include "report.hpp"

namespace histtune::cli {
namespace {
// 13000 -> "13.0", 12080 -> "12.8", as CUDA encodes versions (1000 * major + 10 * minor).
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

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
    ReportDevice rd;
    rd.name = dev.name;
    rd.uuid = dev.uuid;
    rd.arch = "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor);
    rd.driver = cuda_version_text(dev.driver_version);
    rd.runtime = cuda_version_text(dev.runtime_version);
    rd.nvrtc = dev.nvrtc_version.empty() ? "?" : dev.nvrtc_version;
    rd.sm_count = dev.sm_count;
    std::set<std::string> versions, hashes;
    for (const auto& w : database->winners(dev.uuid)) {
      ReportRow r;
      r.problem = problem_name(w.problem);
      r.series = w.problem.sample_type + " " + w.problem.binning + ", " +
                 std::to_string(w.problem.num_bins) + " bins";
      r.log2_n = w.problem.n > 0 ? std::log2(static_cast<double>(w.problem.n)) : 0;
      r.label = w.config_label;
      r.tuned_ms = w.median_ms;
      if (!w.histtune_version.empty()) versions.insert(w.histtune_version);
      if (!w.template_hash.empty()) hashes.insert(w.template_hash);
      if (const auto fam = parse_family(w.problem.family)) {
        const KernelFamily& f = family(*fam);
        if (const auto v = f.parse(w.config_label))
          for (std::size_t k = 0; k < v->size(); ++k)
            r.params.push_back({f.params()[k].name, f.params()[k].key, (*v)[k]});
      }
      for (const auto& m : database->measurements(dev.uuid, w.problem)) {
        if (!m.verified) continue;
        if (!r.tuned_range && m.config_label == w.config_label &&
            m.template_hash == w.template_hash && m.median_ms == w.median_ms)
          r.tuned_range = ReportRange{m.min_ms, m.max_ms};
        // By value, not label: labels written before a parameter existed are shorter.
        if (!r.default_ms && Hist1DConfig::parse(m.config_label) == fallback) {
          r.default_ms = m.median_ms;
          r.default_range = ReportRange{m.min_ms, m.max_ms};
        }
      }
      if (auto b = database->baseline(dev.uuid, w.problem)) {
        if (b->default_ms) {  // measured beside the others by compare: its own run, no spread
          r.default_ms = b->default_ms;
          r.default_range.reset();
        }
        r.cub_ms = b->cub_ms;
        r.floor_ms = b->floor_ms;
      }
      rd.rows.push_back(r);
    }
    auto joined = [](const std::set<std::string>& xs) {
      std::string s;
      for (const auto& x : xs) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    if (!versions.empty()) rd.measured_by = "histtune " + joined(versions);
    if (!hashes.empty())
      rd.measured_by += (rd.measured_by.empty() ? "" : "; ") + std::string("kernel template ") +
                        joined(hashes);
    if (!rd.rows.empty()) data.devices.push_back(rd);
  }
  std::ofstream out(html_path);
  out << render_report(data);
  out.close();
  if (!out) throw Error(StatusCode::invalid_argument, "cannot write --html file " + html_path);
  std::size_t problems = 0;
  for (const auto& d : data.devices) problems += d.rows.size();
  // What the runtime makes of the rows charted: a report of stale rows must not look normal.
  nlohmann::json standing;
  const std::string standing_lines = database_standing(*database, standing);
  if (c.json)
    print_json({{"histtune", version()}, {"command", "report"}, {"database", database->path()},
                {"html", html_path}, {"devices", data.devices.size()}, {"problems", problems},
                {"standing", standing}});
  else if (!c.quiet)
    std::printf("histtune: wrote %s (%zu devices, %zu problems)\n%s", html_path.c_str(),
                data.devices.size(), problems, standing_lines.c_str());
  return kOk;
}

void declare(CLI::App* app, Common& common, std::string& html_path) {
  add_common(app, common, kDb | kJson | kQuiet,
             {"print a JSON summary (the file, devices, problems) instead of the line",
              "print nothing on success"});
  app->add_option("--html", html_path, "the HTML file to write")->type_name("FILE")->required();
}

}  // namespace

Command report_command() {
  return {
      "report", "write the database as one self-contained HTML page (--html FILE)",
      "One page, inline SVG and CSS, nothing fetched and no script. Per device: for each tuned\n"
      "problem the tuned, default and CUB times as bars (whiskers: fastest..slowest call), the\n"
      "read floor, % of the floor and the configuration chosen; a chart per tunable parameter of\n"
      "its winning value against the problem size, one line per sample type and bin count; a\n"
      "table; and the device, driver, runtime, NVRTC, histtune version and kernel template.\n"
      "CUB and the floor come from `histtune compare`. Needs no GPU; only reads the database.",
      bind_values<std::string>(declare, run_report)};
}

}  // namespace histtune::cli
