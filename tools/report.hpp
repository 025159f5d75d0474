// `histtune report --html`: one self-contained HTML page (inline SVG and CSS, no script, nothing
// fetched) from the tuning database: per problem the tuned / default / CUB bars with their spread,
// % of the floor and the configuration chosen; how each winning parameter changes with size and
// bin count; and the device and toolchain the results were measured with.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace histtune::cli {

// The fastest and slowest call of a measurement, where known.
struct ReportRange {
  double min_ms = 0;
  double max_ms = 0;
};

struct ReportParam {
  std::string name;  // "block_threads"
  std::string key;   // "tpb", as in the label
  int value = 0;
};

struct ReportRow {
  std::string problem;  // "u8 direct bins=256 n=2^28"
  // Problems of one series differ only in n: one line each in the parameter charts
  // ("u8 direct, 256 bins").
  std::string series;
  double log2_n = 0;    // x of the parameter charts
  std::string label;    // the winning configuration
  std::vector<ReportParam> params;  // of the winner; empty when its label does not parse
  double tuned_ms = 0;
  std::optional<ReportRange> tuned_range;
  std::optional<double> default_ms, cub_ms, floor_ms;
  std::optional<ReportRange> default_range;
};

struct ReportDevice {
  std::string name, uuid, arch, driver, runtime, nvrtc;
  int sm_count = 0;
  std::string measured_by;  // "histtune 0.1.0, kernel template 3f2a..." of the winners
  std::vector<ReportRow> rows;  // grouped by series, n ascending within one
};

struct ReportData {
  std::string histtune_version;
  std::string generated_at;
  std::string db_path;
  std::vector<ReportDevice> devices;
};

std::string render_report(const ReportData& data);

}  // namespace histtune::cli
