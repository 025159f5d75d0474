// `histtune report --html`: one self-contained HTML page (inline SVG and CSS, no script, nothing
// fetched) from the tuning database. Per device: per problem the tuned / default / CUB times with
// their spread, the speedups on a log axis and the winner's time on each input distribution; % of
// the read floor against bin count and size; which shapes the dispatcher answers exactly, from a
// nearer shape or with its default; how each winning parameter changes with size and bin count;
// stale rows marked; and the device and toolchain the results were measured with.
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

// The winner's median on one input distribution (uniform, skewed, constant, runs).
struct ReportDistributionTime {
  std::string distribution;
  double median_ms = 0;
};

struct ReportRow {
  std::string problem;  // "u8 direct bins=256 n=2^28"
  std::string family;   // "hist1d": parameter charts are drawn per family
  std::string sample_type;  // "u8": the colour in the floor charts
  // Problems of one series differ only in n: one line each in the parameter charts
  // ("u8 direct, 256 bins").
  std::string series;
  double log2_n = 0;     // x of the parameter charts
  double log2_bins = 0;  // x of the floor chart
  std::string label;     // the winning configuration
  std::vector<ReportParam> params;  // of the winner; empty when its label does not parse
  double tuned_ms = 0;
  std::optional<ReportRange> tuned_range;
  std::optional<double> default_ms, cub_ms, floor_ms;
  std::optional<ReportRange> default_range, cub_range;
  std::string default_label;   // the per-shape default the dispatcher would fall back to
  std::string default_source;  // "compare" or "tuning run"
  std::vector<ReportDistributionTime> by_distribution;
  // Recorded under another kernel template than this build's: the dispatcher skips it.
  bool stale = false;
  std::string lookup;  // how the dispatcher answers this problem: "exact", "default", ...
  std::string lookup_detail;  // its summary, with why (skipped rows, unverified toolchain)
};

// One cell of the coverage grid: what the dispatcher does for that shape.
struct ReportCoverageCell {
  double log2_n = 0, log2_bins = 0;
  std::string level;  // "exact", "nearest_shape", "same_arch", "default"
  bool tuned = false;       // a stored row of exactly this shape exists
  bool stale = false;       // ... and it was skipped as stale
  bool unverified = false;  // the row used was recorded under another toolchain
  std::string summary;      // the lookup's one line
};

// The grid of one kind of problem (family, sample type, binning, channels): n across, bins down.
struct ReportCoverage {
  std::string title;  // "u8 direct"
  std::vector<double> log2_ns, log2_bins;
  std::vector<ReportCoverageCell> cells;  // valid shapes only
};

struct ReportDevice {
  std::string name, uuid, arch, driver, runtime, nvrtc;
  int sm_count = 0;
  std::string measured_by;  // "histtune 0.1.0, kernel template 3f2a..." of the winners
  std::string current_templates;  // this build's template hashes, "hist1d 3f2a..., ..."
  std::vector<ReportRow> rows;  // grouped by series, n ascending within one
  std::vector<ReportCoverage> coverage;
};

struct ReportData {
  std::string histtune_version;
  std::string generated_at;
  std::string db_path;
  std::vector<ReportDevice> devices;
};

std::string render_report(const ReportData& data);

}  // namespace histtune::cli
