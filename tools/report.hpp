// `histtune report --html`: one self-contained HTML page (inline SVG and CSS, nothing fetched)
// from the tuning database: per problem the tuned / default / CUB bars and % of the floor, the
// configuration chosen, how the winning parameters change with size and bin count, and the
// device and toolchain.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace histtune::cli {

struct ReportRow {
  std::string problem;  // "u8 direct bins=256 n=2^28"
  std::string label;    // the winning configuration
  std::vector<std::pair<std::string, int>> params;  // (parameter key, value) of the winner
  double tuned_ms = 0;
  std::optional<double> default_ms, cub_ms, floor_ms;
};

struct ReportDevice {
  std::string name, uuid, arch, driver, runtime, nvrtc;
  std::vector<ReportRow> rows;
};

struct ReportData {
  std::string histtune_version;
  std::string generated_at;
  std::string db_path;
  std::vector<ReportDevice> devices;
};

std::string render_report(const ReportData& data);

}  // namespace histtune::cli
