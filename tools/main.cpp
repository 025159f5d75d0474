// The histtune command line: `histtune --gpu auto` tunes this machine's GPU; the subcommands
// compare, benchmark, inspect and move what was tuned. Errors are one line on stderr and a
// documented exit code (see common.hpp); every option --help lists is read by its command.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/side_by_side.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"
#include "stability.hpp"
#include "verdict.hpp"

namespace histtune::cli {
namespace {

// A number >= 0 (CLI::NonNegativeNumber's message would print the largest double).
std::string non_negative(const std::string& s) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && v >= 0 && std::isfinite(v)) return {};
  } catch (const std::exception&) {
  }
  return "must be a number >= 0, not '" + s + "'";
}

std::string gpu_index(const std::string& s) {
  if (s == "auto" || (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos))
    return {};
  return "must be 'auto' or a device index (0, 1, ...), not '" + s + "'";
}

// Which of the shared options a command reads; it offers only those.
enum Uses : unsigned { kGpu = 1, kDb = 2, kJson = 4, kQuiet = 8, kVerbose = 16 };

struct Help {
  const char* json = "machine-readable output: one JSON document on stdout";
  const char* quiet = nullptr;
  const char* verbose = nullptr;
};

void add_common(CLI::App* app, Common& c, unsigned uses, const Help& help = {}) {
  if (uses & kGpu)
    app->add_option("--gpu", c.gpu, "the GPU: 'auto' (device 0) or a device index")
        ->type_name("auto|N")
        ->capture_default_str()
        ->check(gpu_index, "");
  if (uses & kDb)
    app->add_option("--db", c.db_path,
                    "the tuning database (default: $HISTTUNE_DB, else\n"
                    "$XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db)")
        ->type_name("FILE");
  if (uses & kJson) app->add_flag("--json", c.json, help.json);
  if ((uses & kQuiet) && help.quiet) app->add_flag("-q,--quiet", c.quiet, help.quiet);
  if ((uses & kVerbose) && help.verbose) app->add_flag("-v,--verbose", c.verbose, help.verbose);
}

const char* const kProblemFormat =
    "A problem is TYPE:BINNING:BINS:N[:LOWER:UPPER]: TYPE u8, u16, u32, i32 or f32; BINNING\n"
    "direct (the sample value is its bin), even (BINS equal bins over [LOWER, UPPER), by\n"
    "default [0, BINS)) or range (BINS + 1 quadratically spaced levels from LOWER to UPPER, by\n"
    "default [0, BINS] for f32, [0, 4 x BINS] capped to the type for integers); N may be\n"
    "written 2^K or AxB. Example: u8:direct:256:2^24.\n"
    "A multi-channel problem (ROWS rows of CHANNELS interleaved samples, the first ACTIVE\n"
    "counted) is mc:ACTIVE/CHANNELS:TYPE:BINNING:BINS:ROWS[:LOWER:UPPER]. Example:\n"
    "mc:3/4:u8:direct:256:7680x4320 (an RGBA frame, colour channels only).";

const char* const kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  a configuration failed verification, or nothing to work on (nothing tuned on this\n"
    "     GPU, a --problem or --device not in the database)\n"
    "  2  bad command line or input: a malformed option or --problem, an unreadable or\n"
    "     malformed import file (nothing is imported), an output file that cannot be written\n"
    "  3  no CUDA device or driver, or no such --gpu index\n"
    "  4  the database could not be opened, read or written: missing (where one must exist),\n"
    "     locked, corrupt, foreign or unreadable; it is left untouched";

std::string footer(const std::string& details) { return details + "\n\n" + kExitCodes; }

// `--json [FILE]` of the commands that print a table: to FILE beside the table, or without FILE
// on stdout with the table on stderr.
CLI::Option* add_json_file(CLI::App* app, std::string& file) {
  return app
      ->add_option("--json", file,
                   "also write the results as JSON to FILE; without FILE: the JSON\n"
                   "on stdout, the table on stderr")
      ->expected(0, 1)
      ->type_name("[FILE]");
}

// --distributions LIST of tune and stability: the names parse_distributions reads.
void add_distributions(CLI::App* app, std::vector<std::string>& names, const std::string& help) {
  app->add_option("--distributions", names, help)
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::IsMember({"uniform", "skewed", "constant", "runs"}));
}

// "histtune db: open on 'x.db' failed: database is locked (SQLite code 5)" reads, after the
// CLI's own "histtune: ", as "database open on 'x.db' failed: ...", with a hint where one helps.
std::string database_error_text(std::string what) {
  const std::string prefix = "histtune db: ";
  if (what.rfind(prefix, 0) == 0) what = "database " + what.substr(prefix.size());
  if (what.find("database is locked") != std::string::npos)
    what += "; another process holds it (histtune waited 5 s): retry when it is done";
  return what;
}

}  // namespace
}  // namespace histtune::cli

int main(int argc, char** argv) {
  using namespace histtune::cli;
  CLI::App app{"histtune: autotuned CUDA histogram kernels. Without a subcommand it tunes, as "
               "`histtune tune` does.",
               "histtune"};
  app.set_version_flag("--version", std::string("histtune ") + histtune::version(),
                       "print the version and exit");
  app.footer(footer(
      std::string("Every subcommand has its own --help. Output for scripts: --json.\n") +
      kProblemFormat));
  // Parse errors read like the others: one line, prefixed.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "histtune: " + std::string(e.what()) + " (see --help)\n";
  });

  Common common;
  std::vector<std::string> problems;
  TuneFlags flags;
  const Help tune_help{
      "one JSON document on stdout at the end; progress goes to stderr",
      "print only each problem's winner line and errors (with --json: none)",
      "print each configuration as it is measured instead of a progress bar"};
  auto add_tune_options = [&](CLI::App* a) {
    add_common(a, common, kGpu | kDb | kJson | kQuiet | kVerbose, tune_help);
    a->add_option("--problem", problems,
                  "tune this problem instead of the default plan (repeatable; format below)")
        ->type_name("SPEC");
    a->add_option("--strategy", flags.strategy,
                  "annealing: simulated annealing over neighbours, then a hill climb (the\n"
                  "default); exhaustive: every valid configuration; random: the same in random\n"
                  "order")
        ->type_name("NAME")
        ->capture_default_str()
        ->check(CLI::IsMember({"exhaustive", "random", "annealing"}));
    a->add_option_function<std::size_t>(
         "--budget", [&](const std::size_t& n) { flags.budget = n; },
         "time at most N configurations per problem in the search (default:\n" +
             std::to_string(histtune::tuner::kPlanBudget) +
             " for annealing, none for exhaustive and random; 0: no limit,\n"
             "annealing then times a tenth of the valid space)")
        ->type_name("N")
        ->check(non_negative, "");
    a->add_option("--time-limit", flags.time_limit_s,
                  "stop searching a problem after this many seconds (0: no limit)")
        ->type_name("SECONDS")
        ->capture_default_str()
        ->check(non_negative, "");
    add_distributions(a, flags.distributions,
                      "input data measured, comma-separated; the first is searched, the others\n"
                      "judge the finalists (default: uniform,skewed,constant,runs)");
    a->add_option("--finalists", flags.finalists,
                  "configurations of the search re-timed on every distribution before a winner\n"
                  "is chosen")
        ->type_name("N")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{100}));
    a->add_option("--decision", flags.decision,
                  "how the winner is chosen over the distributions: pairwise (the candidate no\n"
                  "other beats by more, each pair judged as `histtune stability` judges two runs'\n"
                  "winners) or leximax (the smallest worst ratio to each distribution's best)")
        ->type_name("RULE")
        ->capture_default_str()
        ->check(CLI::IsMember(histtune::tuner::robust_rule_names()));
    a->add_option("--seed", flags.seed, "seed of the search and of the input data")
        ->type_name("N")
        ->capture_default_str();
    a->add_flag("--fresh", flags.fresh,
                "measure again what the database already holds (default: reuse it, so an\n"
                "interrupted run resumes)");
    a->add_flag("--compare-strategies", flags.compare_strategies,
                "instead of tuning: exhaustive vs annealing per problem, on uniform\n"
                "data (docs/tuning.md); stores only compiled kernels");
    a->add_option("--compare-seeds", flags.compare_seeds,
                  "with --compare-strategies: annealing runs per budget")
        ->type_name("N")
        ->capture_default_str()
        ->check(CLI::Range(1, 100));
  };
  const std::string tune_details =
      std::string(
          "Tunes the default plan (34 problems: u8, u16, u32, i32 and f32 samples, 64 to\n"
          "65536 and n/16 bins, 2^16 to 2^28 samples, direct, even and range binning; RGBA frames\n"
          "and [1048576, 512] columns of interleaved channels), or each\n"
          "--problem, on one GPU. Per problem: the search (annealing with a budget, started from\n"
          "the winners of similar problems already tuned) times configurations on uniform data,\n"
          "each compiled by NVRTC (or loaded from the database), timed until its median is\n"
          "stable and verified exactly against a host reference; the fastest are then timed on\n"
          "skewed, constant and run-length data too, with a short climb for each distribution's\n"
          "own best (and a second search, on the one where uniform data's best is furthest\n"
          "behind), and climbs on the worst case over the distributions look for the\n"
          "compromise; finally the candidates are re-timed side by side and the winner is the\n"
          "best worst case: the candidate that no other beats by more, each pair compared on\n"
          "the distribution where it differs most, as `histtune stability` compares two runs'\n"
          "winners (--decision; a gap within 0.5% or within both medians' confidence intervals\n"
          "is a tie: the built-in default wins it, else the simplest configuration). Each\n"
          "measurement is stored as it is taken, so running the same command again after an\n"
          "interruption measures only the rest; the robust winner and each distribution's\n"
          "winner are stored.\n\n") +
      kProblemFormat;
  add_tune_options(&app);

  CLI::App* tune = app.add_subcommand("tune", "tune the default plan or --problem ... (default)");
  add_tune_options(tune);
  tune->footer(footer(tune_details));

  std::vector<std::string> compare_problems;
  CLI::App* compare = app.add_subcommand(
      "compare", "tuned vs built-in default vs CUB vs the read floor, measured now");
  add_common(compare, common, kGpu | kDb | kJson | kQuiet | kVerbose,
             {"one JSON document on stdout", "no header or legend: the results and errors",
              "also print how many calls each spread is taken from"});
  compare->add_option("--problem", compare_problems,
                      "only this tuned problem, TYPE:BINNING:BINS:N (repeatable)")
      ->type_name("SPEC");
  char tie_band[16];
  std::snprintf(tie_band, sizeof tie_band, "%.0f%%", kTieTolerance * 100);
  compare->footer(footer(
      std::string("For each problem tuned on this GPU (or each --problem), measures in one run, on\n"
                  "the same input: the tuned configuration, the built-in default and CUB, each\n"
                  "verified; prints min / median / max ms of the calls, the speedups (the other's\n"
                  "median / the tuned median) and % of the read floor (input bytes / read\n"
                  "bandwidth, measured now). A difference is a tie, not a win, when the min..max\n"
                  "ranges overlap or the medians are within ") +
      tie_band +
      ". Default, CUB and floor are stored in\n"
      "the database for `histtune report`."));

  CLI::App* info = app.add_subcommand(
      "info", "versions, the database and what it holds, the GPU and its tuned problems");
  add_common(info, common, kGpu | kDb | kJson);
  info->footer(footer(
      "Prints the histtune and NVRTC versions; the database's path, schema and, per device,\n"
      "its tuned problems, measurements and compared problems; then the GPU (name, UUID,\n"
      "architecture, SMs, memory, L2, driver and runtime) and the winners tuned for it.\n"
      "Without a GPU it prints the rest (with --json: \"device\": null and \"device_error\"),\n"
      "then exits 3. It never creates or writes the database."));

  std::string bench_json, bench_only;
  CLI::App* bench = app.add_subcommand(
      "bench", "the benchmark matrix: tuned (as the runtime picks it) vs default vs CUB");
  add_common(bench, common, kGpu | kDb | kQuiet, {nullptr, "no header line: the table and errors"});
  bench->add_flag("--matrix", "the whole matrix (the default; --only narrows it)");
  bench->add_option("--only", bench_only,
                    "only the rows whose id matches this regular expression")
      ->type_name("REGEX");
  CLI::Option* bench_json_opt = add_json_file(bench, bench_json);
  bench->footer(footer(
      "Runs each row of the matrix (ids like u8-256-2^28-uniform) on one GPU: the configuration\n"
      "the runtime's lookup picks from the database (and at which level), the built-in default\n"
      "and CUB, all verified, against the read floor and the row's target. Rows that need a\n"
      "kernel family histtune does not have yet are listed as not run."));

  std::string stability_a, stability_b, stability_json;
  std::vector<std::string> stability_distributions;
  int stability_rounds = histtune::tuner::SideBySideOptions{}.rounds;
  CLI::App* stability = app.add_subcommand(
      "stability",
      "are two runs' winners equally good? both timed side by side now, on the tuner's objective");
  add_common(stability, common, kGpu | kQuiet,
             {nullptr, "no header, notes or legend: the table, the summary and errors"});
  stability->add_option("A.db", stability_a, "the first run's database (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
  stability->add_option("B.db", stability_b, "the second run's database (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
  stability->add_option("--rounds", stability_rounds,
                        "rounds of A and B per problem and distribution, alternating\n"
                        "A B / B A")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  add_distributions(stability, stability_distributions,
                    "input data timed, comma-separated, as for tune: the worst case is\n"
                    "taken over them, the first also has its own column (default:\n"
                    "uniform,skewed,constant,runs, the tuner's)");
  CLI::Option* stability_json_opt = add_json_file(stability, stability_json);
  char stability_band[16];
  std::snprintf(stability_band, sizeof stability_band, "%.0f%%", kStabilityTolerance * 100);
  stability->footer(footer(
      std::string(
          "For each problem with a winner for this GPU in both databases (two runs of `histtune\n"
          "--gpu auto`, say): times winner A and winner B in this process on the same inputs of\n"
          "each distribution, in rounds alternating A B / B A (each a stable median, the rounds\n"
          "pooled), verifies both against the host reference, and judges them as the tuner\n"
          "chose them, by the worst case over the distributions: a winner's worst ratio w is\n"
          "the largest over the distributions of its median / the faster of the two there;\n"
          "worst = (wB - wA) / the smaller w, + when B is worse. Two winners each faster on\n"
          "some data are equally good when their worst cases are. Also printed: both medians on\n"
          "the first distribution, the difference (B - A) / the faster on each distribution,\n"
          "and the times each run recorded for its own winner, which carry that run's clocks\n"
          "and launch jitter. Last line: how many problems are within ") +
      stability_band +
      " on the worst case, and\n"
      "how many on the first distribution alone (uniform: the check before the worst case;\n"
      "--distributions uniform gives it alone), then how many are within or chose the same\n"
      "configuration (one kernel: equal times; the measured count stays the verdict). A\n"
      "database made on another board of the same model stands for this GPU (a note says\n"
      "so). Exit 1 when a winner fails on any distribution or nothing is tuned in both; the\n"
      "verdict does not change the exit code; the databases are only read."));

  std::string show_problem;
  std::size_t show_top = 0;
  CLI::App* show =
      app.add_subcommand("show", "what the database holds: tuned problems and winners per device");
  add_common(show, common, kDb | kJson);
  show->add_option("--problem", show_problem,
                   "only this problem, TYPE:BINNING:BINS:N (exit 1 if it is not stored)")
      ->type_name("SPEC");
  show->add_option("--top", show_top, "also list the N fastest measurements of each problem")
      ->type_name("N")
      ->check(non_negative, "");
  show->footer(footer("Needs no GPU; only reads the database."));

  std::string html_path, export_path, export_device, import_path, merge_path;
  bool prune_all_versions = false;
  CLI::App* report = app.add_subcommand(
      "report", "write the database as one self-contained HTML page (--html FILE)");
  add_common(report, common, kDb | kJson | kQuiet,
             {"print a JSON summary (the file, devices, problems) instead of the line",
              "print nothing on success"});
  report->add_option("--html", html_path, "the HTML file to write")
      ->type_name("FILE")
      ->required();
  report->footer(footer(
      "One page, inline SVG and CSS, nothing fetched and no script. Per device: for each tuned\n"
      "problem the tuned, default and CUB times as bars (whiskers: fastest..slowest call), the\n"
      "read floor, % of the floor and the configuration chosen; a chart per tunable parameter of\n"
      "its winning value against the problem size, one line per sample type and bin count; a\n"
      "table; and the device, driver, runtime, NVRTC, histtune version and kernel template.\n"
      "CUB and the floor come from `histtune compare`. Needs no GPU; only reads the database."));

  CLI::App* exp = app.add_subcommand("export", "write the database as JSON");
  add_common(exp, common, kDb | kJson | kQuiet,
             {"with --out: a JSON summary instead of the line", "with --out: print nothing"});
  exp->add_option("--out", export_path, "the file to write ('-' or none: standard output)")
      ->type_name("FILE");
  exp->add_option("--device", export_device, "only this device (exit 1 if it is not stored)")
      ->type_name("UUID");
  exp->footer(footer(
      "The format is docs/database-format.md; compiled kernels are not exported. Needs no GPU;\n"
      "only reads the database."));

  CLI::App* imp = app.add_subcommand("import", "add a JSON export to the database");
  add_common(imp, common, kDb | kJson, {"print the summary as JSON"});
  imp->add_option("file", import_path, "the JSON file ('-': standard input)")
      ->type_name("FILE")
      ->required();
  imp->footer(footer(
      "The whole file is checked before the database is opened: a malformed one changes nothing\n"
      "and exits 2, naming the first problem (its JSON path and the rule). Measurements already\n"
      "stored are skipped; an imported winner replaces a stored one only if it is faster, a\n"
      "baseline only if it was measured later. Needs no GPU."));

  CLI::App* merge = app.add_subcommand(
      "merge", "merge another histtune database file into this one");
  add_common(merge, common, kDb | kJson, {"print the summary as JSON"});
  merge->add_option("other", merge_path, "the other database file (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
  merge->footer(footer("Import's rules: the faster winner and the later baseline are kept. Needs no GPU."));

  CLI::App* prune = app.add_subcommand(
      "prune", "delete results of another kernel template or histtune version");
  add_common(prune, common, kDb | kJson, {"print the summary as JSON"});
  prune->add_flag("--all-versions", prune_all_versions,
                  "keep results of other histtune versions (prune by kernel template only)");
  prune->footer(footer(
      "Deletes the measurements and winners taken with another kernel template than this\n"
      "build's (and, without --all-versions, by another histtune version), then the problems\n"
      "and configurations nothing refers to, in one transaction. Needs no GPU."));
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  if (bench_json_opt->count() > 0 && bench_json.empty()) common.json = true;
  if (stability_json_opt->count() > 0 && stability_json.empty()) common.json = true;
  try {
    if (*compare) return run_compare(common, compare_problems);
    if (*info) return run_info(common);
    if (*bench) return run_bench(common, bench_json, bench_only);
    if (*stability)
      return run_stability(common, stability_a, stability_b, stability_json, stability_rounds,
                           stability_distributions);
    if (*report) return run_report(common, html_path);
    if (*show) return run_show(common, show_problem, show_top);
    if (*exp) return run_export(common, export_path, export_device);
    if (*imp) return run_import(common, import_path);
    if (*merge) return run_merge(common, merge_path);
    if (*prune) return run_prune(common, prune_all_versions);
    return run_tune(common, problems, flags);
  } catch (const histtune::Error& e) {
    std::fprintf(stderr, "histtune: %s\n", e.what());
    switch (e.code()) {
      case histtune::StatusCode::no_device: return kNoDevice;
      case histtune::StatusCode::invalid_argument: return kUsage;
      case histtune::StatusCode::database_error: return kDatabase;
      default: return kFailure;
    }
  } catch (const histtune::db::DbError& e) {
    std::fprintf(stderr, "histtune: %s\n", database_error_text(e.what()).c_str());
    return kDatabase;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "histtune: %s\n", e.what());
    return kFailure;
  }
}
