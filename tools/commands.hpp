// The subcommands of the histtune CLI, one file each (export/import/merge/prune share one).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::cli {

struct TuneFlags {
  std::string strategy = "annealing";
  std::optional<std::size_t> budget;  // unset: the plan's budget for annealing, none otherwise
  double time_limit_s = 0;
  std::vector<std::string> distributions;  // empty: uniform, skewed, constant, runs
  std::size_t finalists = tuner::TuneOptions{}.finalists;
  std::string decision = tuner::to_string(tuner::TuneOptions{}.decision);
  std::uint64_t seed = 1;
  bool fresh = false;  // measure again what the database already holds
  bool compare_strategies = false;
  int compare_seeds = 3;
};

int run_tune(const Common& c, const std::vector<std::string>& problem_specs, const TuneFlags& f);
int run_compare(const Common& c, const std::vector<std::string>& problem_specs);
int run_info(const Common& c);
int run_show(const Common& c, const std::string& problem_spec, std::size_t top);
int run_report(const Common& c, const std::string& html_path);
int run_export(const Common& c, const std::string& out_path, const std::string& device_uuid);
int run_import(const Common& c, const std::string& in_path);
int run_merge(const Common& c, const std::string& other);
int run_prune(const Common& c, bool all_versions);
// json_path: a file to write the JSON to; empty with c.json: the JSON goes to stdout.
int run_bench(const Common& c, const std::string& json_path, const std::string& only);
// json_path as for run_bench; `rounds` of A and B side by side per problem and distribution;
// `distributions` as --distributions names them (empty: the tuner's four).
int run_stability(const Common& c, const std::string& path_a, const std::string& path_b,
                  const std::string& json_path, int rounds,
                  const std::vector<std::string>& distributions);

}  // namespace histtune::cli
