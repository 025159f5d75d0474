// `histtune show`: what the database holds, without a GPU: per device its tuned problems and
// winners (each marked where the runtime skips it as stale or flags it unverified, with a count
// per device), or for one problem the fastest measurements; as text or --json.
#include <cstdio>

#include "command.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "pending.hpp"
#include "standing.hpp"

namespace histtune::cli {
namespace {

int run_show(const Common& c, const std::string& problem_spec, std::size_t top) {
  std::optional<Problem> only;
  if (!problem_spec.empty()) only = parse_problem(problem_spec);
  auto database = open_db_read_only(c);
  nlohmann::json devices = nlohmann::json::array();
  std::string text;  // printed at the end: an unknown --problem prints only its error
  bool any = false;
  for (const auto& dev : database->devices()) {
    nlohmann::json jd = device_json(dev);
    jd["problems"] = nlohmann::json::array();
    text += dev.name + " (" + dev.uuid + ", sm_" + std::to_string(dev.cc_major) +
            std::to_string(dev.cc_minor) + ")\n";
    const auto winners = database->winners(dev.uuid);
    const int driver = local_driver_version();
    if (!only) {
      const Standing st = standing_of(winners, driver);
      jd["standing"] = standing_json(st);
      text += standing_text(st, "  ");
    }
    for (const auto& w : winners) {
      if (only && !(w.problem == only->key())) continue;
      any = true;
      const Standing one = standing_of({w}, driver);
      const char* use = one.stale ? "stale" : one.unverified ? "unverified" : "used";
      nlohmann::json jp = {{"problem", problem_json(w.problem)}, {"winner", w.config_label},
                           {"winner_ms", w.median_ms}, {"template_hash", w.template_hash},
                           {"histtune_version", w.histtune_version}, {"runtime", use}};
      text += "  " + problem_name(w.problem) + ": " + w.config_label + " " + fmt_ms(w.median_ms) +
              " ms" + (one.stale ? "  [stale: skipped by the runtime]"
                                 : one.unverified ? "  [unverified]" : "") + "\n";
      if (top > 0) {
        nlohmann::json jm = nlohmann::json::array();
        std::size_t shown = 0;
        for (const auto& m : database->measurements(dev.uuid, w.problem)) {
          if (shown++ == top) break;
          jm.push_back({{"configuration", m.config_label}, {"median_ms", m.median_ms},
                        {"min_ms", m.min_ms}, {"max_ms", m.max_ms}, {"samples", m.samples},
                        {"verified", m.verified}, {"distribution", m.distribution}});
          char line[320];
          std::snprintf(line, sizeof line, "      %-8s %-56s %s ms (min %s, max %s)%s\n",
                        m.distribution.c_str(), m.config_label.c_str(), fmt_ms(m.median_ms).c_str(),
                        fmt_ms(m.min_ms).c_str(), fmt_ms(m.max_ms).c_str(),
                        m.verified ? "" : "  WRONG RESULT");
          text += line;
        }
        jp["fastest"] = jm;
      }
      jd["problems"].push_back(jp);
    }
    devices.push_back(jd);
  }
  if (only && !any) {
    std::fprintf(stderr, "histtune: %s is not tuned in %s\n", only->describe().c_str(),
                 database->path().c_str());
    return kFailure;
  }
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "show"},
                {"database", database->path()},
                {"devices", devices}});
  else if (text.empty())
    std::printf("%s holds no tuning results\n", database->path().c_str());
  else
    std::printf("%s", text.c_str());
  return kOk;
}

struct ShowValues {
  std::string problem;
  std::size_t top = 0;
  bool pending = false;
};

void declare(CLI::App* app, Common& common, ShowValues& v) {
  add_common(app, common, kDb | kJson);
  app->add_option("--problem", v.problem,
                  "only this problem, TYPE:BINNING:BINS:N (exit 1 if it is not stored)")
      ->type_name("SPEC");
  app->add_option("--top", v.top,
                  "also list the N fastest measurements of each problem, over every input\n"
                  "distribution (named in the first column)")
      ->type_name("N")
      ->check(non_negative, "");
  app->add_flag("--pending", v.pending,
                "instead: the problems programs called that the runtime resolved below\n"
                "`exact` (from the database and its side file), most-called first, with their\n"
                "call counts; `histtune tune --pending` tunes them");
}

}  // namespace

Command show_command() {
  return {"show", "what the database holds: tuned problems and winners per device",
          "Per device: how many winners the runtime uses, skips as stale (another kernel template)\n"
          "or flags unverified (another driver, NVRTC or histtune), and why; each winner is marked\n"
          "[stale: skipped by the runtime] or [unverified]. Needs no GPU; only reads the database.\n"
          "--pending lists what programs called untuned instead: each problem with its calls,\n"
          "the lookup level it ran at, the --problem form and the GPU it was called on.",
          bind_values<ShowValues>(declare, [](Common& c, const ShowValues& v) {
            if (v.pending && (!v.problem.empty() || v.top > 0))
              throw Error(StatusCode::invalid_argument,
                          "--pending lists what programs called: not with --problem or --top");
            return v.pending ? show_pending(c) : run_show(c, v.problem, v.top);
          })};
}

}  // namespace histtune::cli
