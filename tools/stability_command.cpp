// `histtune stability A.db B.db`: did two tuning runs choose equally good winners on this GPU?
// Each run's recorded times carry that run's clocks and launch jitter, so both winners of every
// problem tuned in both are timed again here, side by side on the same inputs of every
// distribution (tuner/side_by_side.hpp), judged on the tuner's own objective (the worst case over
// the distributions), and shown beside what each run recorded.
#include <cstdio>
#include <fstream>
#include <memory>
#include <utility>

#include "command.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/side_by_side.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "stability.hpp"

namespace histtune::cli {
namespace {

// A database given by path, only read.
struct Source {
  std::string path;
  std::unique_ptr<db::Database> db;
  std::vector<db::DeviceRow> tuned;  // devices with winners
  std::vector<db::WinnerRow> all;    // their winners
};

Source open_source(const std::string& path) {
  Source s{path, std::make_unique<db::Database>(path, db::Database::OpenMode::kReadOnly), {}, {}};
  for (const auto& d : s.db->devices()) {
    auto w = s.db->winners(d.uuid);
    if (w.empty()) continue;
    s.tuned.push_back(d);
    s.all.insert(s.all.end(), w.begin(), w.end());
  }
  return s;
}

int nothing_to_compare(const std::string& why) {
  std::fprintf(stderr, "histtune: %s\n", why.c_str());
  return kFailure;
}

// Whose winners a database that has none of this GPU's stands for it with.
std::string boards_note(const DeviceMatch& m, const std::string& model) {
  if (m.boards.size() == 1)
    return "holds the winners of another " + model + " board (" + m.boards.front() +
           "); they are timed on this one";
  const std::string uuids = join(m.boards);
  return "holds the winners of " + std::to_string(m.boards.size()) + " " + model + " boards (" +
         uuids + ": each problem's from the first by UUID that tuned it); they are timed on this one";
}

// A named problem that is not tuned in both databases (on any device, or on this GPU's).
int not_in_both(const std::vector<db::ProblemRow>& unpaired, const std::string& path_a,
                const std::string& path_b, const std::string& where) {
  return nothing_to_compare(join(unpaired, problem_spec) + (unpaired.size() == 1 ? " is" : " are") +
                            " not tuned in both " + path_a + " and " + path_b + where);
}

int run_stability(const Common& c, const std::string& path_a, const std::string& path_b,
                  const std::string& json_path, int rounds, bool again,
                  const std::vector<std::string>& distributions,
                  const std::vector<std::string>& problem_specs) {
  const std::vector<tuner::Distribution> dists = parse_distributions(distributions);
  std::vector<db::ProblemRow> only;
  for (const auto& s : problem_specs) only.push_back(parse_problem(s).key());
  const Source a = open_source(path_a), b = open_source(path_b);
  // What the files alone say is wrong is said before the GPU is asked.
  for (const Source* s : {&a, &b})
    if (s->all.empty())
      return nothing_to_compare(s->path + " holds no tuned problem (no winners); `histtune "
                                "--gpu auto --db " + s->path + "` tunes into it");
  const Matched anywhere = match_winners(a.all, b.all);
  if (anywhere.pairs.empty())
    return nothing_to_compare(path_a + " and " + path_b +
                              " have no tuned problem in common, on any device");
  if (const auto missing = unpaired(anywhere, only); !missing.empty())
    return not_in_both(missing, path_a, path_b, ", on any device");

  const DeviceInfo d = select_device(c);
  const db::DeviceRow gpu = d.row();
  const DeviceMatch match_a = match_device(a.tuned, gpu), match_b = match_device(b.tuned, gpu);
  for (const auto& [s, m] : {std::pair{&a, &match_a}, std::pair{&b, &match_b}})
    if (!m->device)
      return nothing_to_compare(s->path + ": " + m->why_not + " (GPU " +
                                std::to_string(d.ordinal) + ", " + d.name + ")");
  // A --gpu all database holds each problem under the board of the model that tuned it.
  Matched matched = only_problems(match_winners(model_winners(*a.db, *match_a.device),
                                                model_winners(*b.db, *match_b.device)),
                                  only);
  if (const auto missing = unpaired(matched, only); !missing.empty())
    return not_in_both(missing, path_a, path_b, " for GPU " + std::to_string(d.ordinal));
  for (auto& pair : matched.pairs) {
    const auto of_a = a.db->measurements(pair.a.device.uuid, pair.problem);
    const auto of_b = b.db->measurements(pair.b.device.uuid, pair.problem);
    pair.a_timed_b = timed_on(of_a, pair.b.config_label);
    pair.a_raced_b = timed_once_on(of_a, pair.b.config_label);
    pair.b_timed_a = timed_on(of_b, pair.a.config_label);
    pair.b_raced_a = timed_once_on(of_b, pair.a.config_label);
  }
  if (matched.pairs.empty())
    return nothing_to_compare("no problem is tuned for GPU " + std::to_string(d.ordinal) + " (" +
                              d.name + ") in both " + path_a + " and " + path_b);

  // An unwritable --json file is found now, not after minutes of timing.
  std::ofstream json_file;
  if (!json_path.empty()) {
    json_file.open(json_path);
    if (!json_file)
      throw Error(StatusCode::invalid_argument, "cannot write --json file " + json_path);
  }
  std::FILE* text = text_stream(c);  // stderr when the JSON goes to stdout
  if (!c.quiet) {
    std::fprintf(text, "histtune stability on GPU %d, %s (sm_%d): A = %s, B = %s\n", d.ordinal,
                 d.name.c_str(), d.arch(), path_a.c_str(), path_b.c_str());
    for (const auto& [name, m] : {std::pair{"A", &match_a}, std::pair{"B", &match_b}})
      if (!m->exact) std::fprintf(text, "note: %s %s\n", name, boards_note(*m, d.name).c_str());
    auto only = [&](const char* name, const std::vector<db::ProblemRow>& ps) {
      if (ps.empty()) return;
      std::fprintf(text, "note: %zu problem%s tuned only in %s, not compared: %s\n", ps.size(),
                   ps.size() == 1 ? "" : "s", name, join(ps, problem_spec).c_str());
    };
    only("A", matched.only_a);
    only("B", matched.only_b);
    std::fprintf(text, "%s", stability_legend(rounds, dists).c_str());
  }
  std::fprintf(text, "%s", stability_table_header(dists).c_str());

  KernelCache cache;
  tuner::SideBySideOptions opt;
  opt.rounds = rounds;
  opt.distributions = dists;
  opt.again = again;
  std::vector<StabilityRow> rows;
  for (const auto& pair : matched.pairs) {
    StabilityRow r = stability_row(
        pair,
        tuner::side_by_side(d, timed_problem(pair.problem), pair.a.config_label,
                            pair.b.config_label, cache, opt),
        dists.size());
    std::fprintf(text, "%s", stability_line(r).c_str());
    std::fflush(text);
    rows.push_back(std::move(r));
  }
  const StabilitySummary summary = stability_summary(rows);
  std::fprintf(text, "%s", stability_summary_line(summary, dists).c_str());
  const int status = summary.failed ? kFailure : kOk;

  if (!json_path.empty() || c.json) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto dist : dists) names.push_back(tuner::to_string(dist));
    nlohmann::json doc = {{"histtune", version()},
                          {"command", "stability"},
                          {"device", device_json(d)},
                          {"nvrtc", nvrtc_version()},
                          {"database_a", {{"path", path_a}, {"device", match_a.device->uuid}}},
                          {"database_b", {{"path", path_b}, {"device", match_b.device->uuid}}},
                          {"rounds", rounds},
                          {"distributions", names},
                          // The first: what `a`, `b`, `difference_percent` and `within` are on.
                          {"distribution", tuner::to_string(dists.front())}};
    doc.update(stability_json(rows, matched));
    doc["ok"] = status == kOk;
    if (json_path.empty()) {
      print_json(doc);
    } else {
      json_file << doc.dump(2) << "\n";
      json_file.close();
      if (!json_file)
      throw Error(StatusCode::invalid_argument, "cannot write --json file " + json_path);
    }
  }
  return status;
}

struct StabilityValues {
  std::string a, b, json_path;
  std::vector<std::string> distributions, problems;
  int rounds = tuner::SideBySideOptions{}.rounds;
  bool again = false;
  CLI::Option* json = nullptr;
};

void declare(CLI::App* app, Common& common, StabilityValues& v) {
  add_common(app, common, kGpu | kQuiet,
             {nullptr, "no header, notes or legend: the table, the summary and errors"});
  app->add_option("A.db", v.a, "the first run's database (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
  app->add_option("B.db", v.b, "the second run's database (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
  app->add_option("--rounds", v.rounds,
                  "rounds of A and B per problem and distribution, alternating\n"
                  "A B / B A")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  add_distributions(app, v.distributions,
                    "input data timed, comma-separated, as for tune: the worst case is\n"
                    "taken over them, the first also has its own column (default:\n" +
                        distribution_list(tuner::TuneOptions{}.distributions) + ", the tuner's)");
  app->add_flag("--again", v.again,
                "time the first distribution once more after the others and show how far\n"
                "its difference moved (a kernel's time can depend on what ran before it:\n"
                "docs/tuning.md); the verdict stays the first timing's");
  app->add_option("--problem", v.problems,
                  "only this problem, TYPE:BINNING:BINS:N as for tune (repeatable; each\n"
                  "must be tuned in both)")
      ->type_name("SPEC");
  v.json = add_json_file(app, v.json_path);
}

int run(Common& c, const StabilityValues& v) {
  if (v.json->count() > 0 && v.json_path.empty()) c.json = true;  // --json without FILE
  return run_stability(c, v.a, v.b, v.json_path, v.rounds, v.again, v.distributions, v.problems);
}

}  // namespace

Command stability_command() {
  return {
      "stability",
      "are two runs' winners equally good? both timed side by side now, on the tuner's objective",
      "For each problem with a winner for this GPU in both databases (two runs of `histtune\n"
      "--gpu auto`, say; or each --problem): times winner A and winner B in this process\n"
      "on the same inputs of each distribution, in rounds alternating A B / B A (each a\n"
      "stable median, the rounds pooled), verifies both against the host reference, and\n"
      "judges them as the tuner chose them, by the worst case over the distributions: a\n"
      "winner's worst ratio w is the largest over the distributions of its median / the\n"
      "faster of the two there; worst = (wB - wA) / the smaller w, + when B is worse. Two\n"
      "winners each faster on some data are equally good when their worst cases are. Also\n"
      "printed: both medians on the first distribution, the difference (B - A) / the\n"
      "faster on each distribution, and the times each run recorded for its own winner,\n"
      "which carry that run's clocks and launch jitter. Last line: how many problems are\n"
      "within " +
          percent_text(kStabilityTolerance) +
          " on the worst case, and how many\n"
          "on the first distribution alone (uniform: the check before the worst case;\n"
          "--distributions uniform gives it alone), then how many are within or chose the same\n"
          "configuration (one kernel: equal times; the measured count stays the verdict). A\n"
          "database made on other boards of the same model (one, or a --gpu all run's) stands\n"
          "for this GPU (a note says so). Exit 1 when a winner fails on any distribution,\n"
          "nothing is tuned in both or a --problem is not; the verdict does not change the\n"
          "exit code; the databases are only read.",
      bind_values<StabilityValues>(declare, run)};
}

}  // namespace histtune::cli
