// The subcommands of the histtune CLI, one file each.
#pragma once

#include <string>
#include <vector>

#include "common.hpp"
#include "histtune/problem.hpp"

namespace histtune::cli {

struct TuneFlags {
  std::string strategy = "exhaustive";
  std::size_t budget = 0;
  double time_limit_s = 0;
};

int run_tune(const Common& c, const std::vector<std::string>& problem_specs, const TuneFlags& f);
int run_compare(const Common& c);
int run_info(const Common& c);
int run_show(const Common& c, const std::string& problem_spec, std::size_t top, bool as_json);
int run_report(const Common& c, const std::string& html_path);
int run_export(const Common& c, const std::string& out_path, const std::string& device_uuid);
int run_import(const Common& c, const std::string& in_path);
int run_merge(const Common& c, const std::string& other);
int run_prune(const Common& c, bool all_versions);
int run_bench(const Common& c, const std::string& json_path, const std::string& only);

// "TYPE:BINNING:BINS:N[:LOWER:UPPER]", e.g. "u8:direct:256:2^24" or "f32:even:1024:2^20:0:100";
// N may be written 2^K. Throws Error(invalid_argument) naming the bad field.
Problem parse_problem(const std::string& spec);

}  // namespace histtune::cli
