// `histtune report --html FILE`: renders the database (every device in it) as one HTML page.
// Needs no GPU: it reads what `tune` stored (winners and their measurements, the per-shape
// default's among them) and what `compare` stored (default, CUB, floor); report_data.cpp.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

#include "command.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/version.hpp"
#include "histtune/status.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "standing.hpp"
#include "report.hpp"
#include "report_data.hpp"

namespace histtune::cli {
namespace {

int run_report(const Common& c, const std::string& html_path) {
  open_db_read_only(c);  // a missing, corrupt or foreign file: refused with its own message
  // The dispatcher's connection before the reader's, so that it closes last: the last connection
  // to close removes SQLite's -wal and -shm files.
  const Dispatcher dispatcher(DispatcherOptions{resolve_db_path(c), std::nullopt});
  auto database = open_db_read_only(c);
  ReportData data = read_report(*database, dispatcher);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  data.generated_at = when;
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
      "One page, inline SVG and CSS, nothing fetched and no script. Per device: per tuned\n"
      "problem the tuned, per-shape default and CUB times (whiskers: fastest..slowest call) and\n"
      "the read floor, the speedups on a log axis and the winner on each input distribution;\n"
      "% of the read floor against bins and size; which shapes the dispatcher answers exactly,\n"
      "from a nearer shape or with its default; a chart per tunable of its winning value against\n"
      "size; a table; stale rows marked; the device, driver, runtime, NVRTC, histtune version\n"
      "and kernel template. CUB and the floor come from `histtune compare`. Needs no GPU; only\n"
      "reads.",
      bind_values<std::string>(declare, run_report)};
}

}  // namespace histtune::cli
