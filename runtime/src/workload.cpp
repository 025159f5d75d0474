#include "histtune/workload.hpp"

namespace histtune {

const char* to_string(Distribution d) {
  switch (d) {
    case Distribution::uniform: return "uniform";
    case Distribution::skewed: return "skewed";
    case Distribution::constant: return "constant";
    case Distribution::runs: return "runs";
    case Distribution::mixed: return "mixed";
  }
  return "?";
}

std::optional<Distribution> parse_distribution(const std::string& name) {
  for (Distribution d : {Distribution::uniform, Distribution::skewed, Distribution::constant,
                         Distribution::runs, Distribution::mixed})
    if (name == to_string(d)) return d;
  return std::nullopt;
}

BenchRow row_without_cub(std::string id, Problem p, std::string target,
                         std::optional<double> floor_pct, std::string no_cub) {
  BenchRow r;
  r.id = std::move(id);
  r.problem = std::move(p);
  r.min_floor_pct = floor_pct;
  r.target = std::move(target);
  r.skip_cub = std::move(no_cub);
  return r;
}

}  // namespace histtune
