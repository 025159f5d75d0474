// `histtune show`: what the database holds, without a GPU: per device its tuned problems and
// winners, or for one problem the fastest measurements; as text or --json.
#include <nlohmann/json.hpp>

#include <cstdio>

#include "commands.hpp"

namespace histtune::cli {

int run_show(const Common& c, const std::string& problem_spec, std::size_t top, bool as_json) {
  auto database = open_db(c);
  std::optional<Problem> only;
  if (!problem_spec.empty()) only = parse_problem(problem_spec);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& dev : database->devices()) {
    nlohmann::json jd = {{"uuid", dev.uuid}, {"name", dev.name},
                         {"arch", "sm_" + std::to_string(dev.cc_major * 10 + dev.cc_minor)},
                         {"problems", nlohmann::json::array()}};
    if (!as_json) std::printf("%s (%s, sm_%d%d)\n", dev.name.c_str(), dev.uuid.c_str(), dev.cc_major, dev.cc_minor);
    for (const auto& w : database->winners(dev.uuid)) {
      if (only && !(w.problem == only->key())) continue;
      nlohmann::json jp = {{"family", w.problem.family}, {"sample_type", w.problem.sample_type},
                           {"binning", w.problem.binning}, {"num_bins", w.problem.num_bins},
                           {"n", w.problem.n}, {"winner", w.config_label}, {"winner_ms", w.median_ms},
                           {"template_hash", w.template_hash}};
      if (!as_json)
        std::printf("  %s %s bins=%u n=%llu: %s %s ms\n", w.problem.sample_type.c_str(),
                    w.problem.binning.c_str(), w.problem.num_bins,
                    static_cast<unsigned long long>(w.problem.n), w.config_label.c_str(),
                    fmt_ms(w.median_ms).c_str());
      if (top > 0) {
        nlohmann::json jm = nlohmann::json::array();
        std::size_t shown = 0;
        for (const auto& m : database->measurements(dev.uuid, w.problem)) {
          if (shown++ == top) break;
          jm.push_back({{"config", m.config_label}, {"median_ms", m.median_ms}, {"min_ms", m.min_ms},
                        {"max_ms", m.max_ms}, {"samples", m.samples}, {"verified", m.verified}});
          if (!as_json)
            std::printf("      %-48s %s ms (min %s, max %s)%s\n", m.config_label.c_str(),
                        fmt_ms(m.median_ms).c_str(), fmt_ms(m.min_ms).c_str(),
                        fmt_ms(m.max_ms).c_str(), m.verified ? "" : "  WRONG RESULT");
        }
        jp["fastest"] = jm;
      }
      jd["problems"].push_back(jp);
    }
    out.push_back(jd);
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  if (only && !as_json) {
    bool any = false;
    for (const auto& d : out) any = any || !d["problems"].empty();
    if (!any) {
      std::fprintf(stderr, "histtune: %s is not tuned in %s\n", only->describe().c_str(),
                   database->path().c_str());
      return kFailure;
    }
  }
  return kOk;
}

}  // namespace histtune::cli
