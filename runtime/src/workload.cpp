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

}  // namespace histtune
