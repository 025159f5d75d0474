// `histtune bench`: the benchmark matrix on the GPU at hand, in one process: per row the tuned
// configuration (looked up as the runtime would), the built-in default, CUB and the read floor,
// all verified; a table on stdout and, with --json, the same as JSON (in a file, or on stdout with
// the table on stderr).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <regex>

#include "command.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/tuner/baselines.hpp"
#include "histtune/tuner/bench.hpp"
#include "histtune/tuner/compare.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_bench(const Common& c, const std::string& json_path, const std::string& only) {
  std::regex filter;
  try {
    filter = std::regex(only.empty() ? ".*" : only);
  } catch (const std::regex_error& e) {
    throw Error(StatusCode::invalid_argument,
                "--only '" + only + "' is not a regular expression: " + e.what());
  }
  const DeviceInfo d = select_device(c);
  Dispatcher dispatcher(resolve_db_path(c));
  KernelCache cache;
  const double gbps = tuner::measure_read_bandwidth(cache, d);
  std::FILE* text = text_stream(c);  // stderr when the JSON goes to stdout
  if (!c.quiet)
    std::fprintf(text,
                 "histtune bench on GPU %d, %s (sm_%d); read floor %.0f GB/s (measured now); "
                 "database %s\n",
                 d.ordinal, d.name.c_str(), d.arch(), gbps,
                 dispatcher.has_database() ? dispatcher.db_path().c_str() : "(none: defaults)");
  if (!c.quiet && d.name.find("H100") == std::string::npos)
    std::fprintf(text, "(the targets were set on an H100: on this GPU they compare with the "
                       "H100's figures, not with a target of its own)\n");
  std::fprintf(text, "%-32s %9s %9s %9s %9s %7s %7s %-6s %-14s %s\n", "row", "tuned ms",
               "default", "CUB", "floor", "%floor", "vs CUB", "target", "lookup",
               "configuration");
  nlohmann::json rows = nlohmann::json::array();
  int status = kOk;
  for (const auto& row : tuner::bench_matrix()) {
    if (!std::regex_search(row.id, filter)) continue;
    nlohmann::json j = {{"id", row.id}, {"target", row.target}};
    if (!row.unsupported.empty()) {
      std::fprintf(text, "%-32s not run: %s\n", row.id.c_str(), row.unsupported.c_str());
      j["unsupported"] = row.unsupported;
      rows.push_back(j);
      continue;
    }
    // The lookup the runtime's calls make; the default is timed beside it.
    const FamilyChoice choice = dispatcher.lookup(d, row.problem);
    const tuner::CompareRow r = tuner::compare(d, row.problem, choice.config, cache, gbps,
                                               row.dist, {}, row.skip_cub, row.graph_calls);
    const std::string level = to_string(choice.level);
    const std::string label = choice.label();
    const double pct = 100.0 * r.floor_ms / r.tuned.median_ms;
    const bool cub_ran = r.cub_error.empty();
    const double vs_cub = cub_ran ? r.cub.median_ms / r.tuned.median_ms : 0;
    bool met = r.tuned_ok && (!cub_ran || vs_cub >= 1.0);
    if (row.min_floor_pct) met = met && pct >= *row.min_floor_pct;
    if (row.max_us) met = met && r.tuned.median_ms * 1e3 <= *row.max_us;
    if (row.min_cub_speedup) met = met && cub_ran && vs_cub >= *row.min_cub_speedup;
    char cub[16] = "n/a", vs[16] = "-";
    if (cub_ran) {
      std::snprintf(cub, sizeof cub, "%.4f", r.cub.median_ms);
      std::snprintf(vs, sizeof vs, "%.2fx", vs_cub);
    }
    std::fprintf(text, "%-32s %9s %9s %9s %9.4f %6.1f%% %7s %-6s %-14s %s\n", row.id.c_str(),
                r.tuned_ok ? fmt_ms(r.tuned.median_ms).c_str() : "WRONG",
                r.fallback_ok ? fmt_ms(r.fallback.median_ms).c_str() : "WRONG", cub, r.floor_ms,
                pct, vs, met ? "met" : "MISSED", level.c_str(),
                label.c_str());
    std::fflush(text);
    j["problem"] = row.problem.describe();
    j["distribution"] = tuner::to_string(row.dist);
    if (row.graph_calls > 0) j["graph_calls"] = row.graph_calls;
    j["tuned"] = timing_json(r.tuned);
    j["tuned"]["verified"] = r.tuned_ok;
    j["tuned"]["configuration"] = label;
    j["tuned"]["lookup"] = level;
    j["default"] = timing_json(r.fallback);
    j["default"]["verified"] = r.fallback_ok;
    if (cub_ran) {
      j["cub"] = timing_json(r.cub);
      j["cub"]["verified"] = r.cub_ok;
      j["speedup_vs_cub"] = vs_cub;
    } else {
      j["cub"] = {{"error", r.cub_error}};
    }
    j["floor_ms"] = r.floor_ms;
    j["percent_of_floor"] = pct;
    j["target_met"] = met;
    rows.push_back(j);
    if (!r.tuned_ok || !r.fallback_ok) status = kFailure;
  }
  if (!json_path.empty() || c.json) {
    nlohmann::json doc = {{"histtune", version()}, {"command", "bench"},
                          {"device", device_json(d)}, {"read_gbps", gbps},
                          {"nvrtc", nvrtc_version()}, {"rows", rows}, {"ok", status == kOk}};
    if (json_path.empty()) {
      print_json(doc);
    } else {
      std::ofstream out(json_path);
      out << doc.dump(2) << "\n";
      out.close();
      if (!out) throw Error(StatusCode::invalid_argument, "cannot write --json file " + json_path);
    }
  }
  return status;
}

struct BenchValues {
  std::string json_path, only;
  CLI::Option* json = nullptr;
};

void declare(CLI::App* app, Common& common, BenchValues& v) {
  add_common(app, common, kGpu | kDb | kQuiet, {nullptr, "no header line: the table and errors"});
  app->add_flag("--matrix", "the whole matrix (the default; --only narrows it)");
  app->add_option("--only", v.only, "only the rows whose id matches this regular expression")
      ->type_name("REGEX");
  v.json = add_json_file(app, v.json_path);
}

int run(Common& c, const BenchValues& v) {
  if (v.json->count() > 0 && v.json_path.empty()) c.json = true;  // --json without FILE
  return run_bench(c, v.json_path, v.only);
}

}  // namespace

Command bench_command() {
  return {
      "bench", "the benchmark matrix: tuned (as the runtime picks it) vs default vs CUB",
      "Runs each row of the matrix (ids like u8-256-2^28-uniform) on one GPU: the configuration\n"
      "the runtime's lookup picks from the database (and at which level), the built-in default\n"
      "and CUB, all verified, against the read floor and the row's target. Rows that need a\n"
      "kernel family histtune does not have yet are listed as not run. The targets were set\n"
      "on an H100 80GB HBM3: on another GPU they are that GPU's figures against the H100's\n"
      "(a GPU with faster memory has a higher floor, so a row bound by anything else reaches a\n"
      "smaller share of it).",
      bind_values<BenchValues>(declare, run)};
}

}  // namespace histtune::cli
