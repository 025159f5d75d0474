// The histtune command line: `histtune --gpu auto` tunes this machine's GPU; the subcommands
// compare, benchmark, inspect and move what was tuned. Errors are one line on stderr and a
// documented exit code (see common.hpp); every option listed by --help is read by its command.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "commands.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"

namespace histtune::cli {
namespace {

// Which of the shared options a command reads; it offers only those.
enum Uses : unsigned { kGpu = 1, kDb = 2, kJson = 4, kQuiet = 8, kVerbose = 16 };

struct Help {
  const char* json = "machine-readable output: one JSON document on stdout (docs/cli.md)";
  const char* quiet = "print only results and errors";
  const char* verbose = nullptr;
};

void add_common(CLI::App* app, Common& c, unsigned uses, const Help& help = {}) {
  if (uses & kGpu)
    app->add_option("--gpu", c.gpu, "GPU to use: 'auto' (device 0) or a device index")
        ->capture_default_str()
        ->check([](const std::string& s) -> std::string {
          if (s == "auto" || (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos))
            return {};
          return "must be 'auto' or a device index (0, 1, ...), not '" + s + "'";
        });
  if (uses & kDb)
    app->add_option("--db", c.db_path,
                    "tuning database file (default: $HISTTUNE_DB, else "
                    "$XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db)");
  if (uses & kJson) app->add_flag("--json", c.json, help.json);
  if (uses & kQuiet) app->add_flag("-q,--quiet", c.quiet, help.quiet);
  if ((uses & kVerbose) && help.verbose) app->add_flag("-v,--verbose", c.verbose, help.verbose);
}

const char* const kExitCodes =
    "Exit codes: 0 success; 1 a configuration failed verification, or nothing to work on "
    "(nothing tuned on this GPU, a --problem not in the database); 2 bad command line or input "
    "(a malformed --problem, --gpu or --only, an unreadable or malformed import file, which "
    "changes nothing); 3 no CUDA device, or no such --gpu index; 4 the database could not be "
    "opened, read or written (a missing, locked, corrupt or foreign file is reported and left "
    "untouched).";

}  // namespace
}  // namespace histtune::cli

int main(int argc, char** argv) {
  using namespace histtune::cli;
  CLI::App app{"histtune: autotuned CUDA histogram kernels.\n"
               "With no subcommand, tunes the default plan (or --problem ...) on the chosen GPU, "
               "the same as `histtune tune`.",
               "histtune"};
  app.set_version_flag("--version", std::string("histtune ") + histtune::version(),
                       "print the version and exit");
  app.footer(kExitCodes);  // subcommands created after this inherit it

  Common common;
  std::vector<std::string> problems;
  TuneFlags flags;
  const Help tune_help{
      "machine-readable output: one JSON document on stdout at the end; progress goes to stderr",
      "print only the final summary and errors (no progress)",
      "print every configuration as it is measured (median and min..max ms)"};
  auto add_tune_options = [&](CLI::App* a, const char* problem_help) {
    add_common(a, common, kGpu | kDb | kJson | kQuiet | kVerbose, tune_help);
    a->add_option("--problem", problems, problem_help);
    a->add_option("--strategy", flags.strategy,
                  "search strategy: exhaustive (every valid configuration), random (a sample "
                  "without repetition), or annealing (simulated annealing over neighbouring "
                  "configurations, then a hill climb around the best)")
        ->capture_default_str()
        ->check(CLI::IsMember({"exhaustive", "random", "annealing"}));
    a->add_option("--budget", flags.budget,
                  "at most this many configurations timed per problem (0: no limit, except that "
                  "annealing then times a tenth of the space)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    a->add_option("--time-limit", flags.time_limit_s,
                  "stop searching a problem after this many seconds (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
  };
  const char* problem_help =
      "tune only this problem (repeatable), TYPE:BINNING:BINS:N[:LOWER:UPPER]: TYPE u8, u16, "
      "u32, i32 or f32; BINNING direct (the value is the bin) or even (equal bins over "
      "[LOWER, UPPER), default [0, BINS)); N may be written 2^K; e.g. u8:direct:256:2^24. "
      "Without it: the default plan (u8 with 256 bins at 2^16, 2^20, 2^24, 2^28; u32 with 4096 "
      "bins at 2^26)";
  add_tune_options(&app, problem_help);

  CLI::App* tune = app.add_subcommand(
      "tune",
      "tune the default plan (or --problem ...) on one GPU: every configuration is compiled, "
      "timed and verified, each measurement stored at once (a re-run resumes), the fastest "
      "verified one stored as the winner");
  add_tune_options(tune, problem_help);

  std::vector<std::string> compare_problems;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "for each problem tuned on this GPU, measure now, in one run and on the same input: the "
      "tuned configuration, the built-in default and CUB (min / median / max ms of the calls), "
      "the read floor, the speedups (other's median / tuned median) and % of the floor. A "
      "difference is a tie, not a win, when the min..max ranges overlap or the medians are "
      "within 2%. Stores default, CUB and floor in the database for `report`");
  add_common(compare, common, kGpu | kDb | kJson | kQuiet | kVerbose,
             {"machine-readable output: one JSON document on stdout (docs/cli.md)",
              "print only the results and errors (no header or legend)",
              "also print how many calls each spread is taken from"});
  compare->add_option("--problem", compare_problems,
                      "only this tuned problem, TYPE:BINNING:BINS:N (repeatable)");

  CLI::App* info = app.add_subcommand(
      "info",
      "histtune and NVRTC versions, the database (path, schema, devices and what is stored for "
      "each) and the GPU (name, UUID, architecture, SMs, memory, driver and runtime versions) "
      "with its tuned problems. Without a GPU it still prints the rest, then exits 3");
  add_common(info, common, kGpu | kDb | kJson);

  std::string bench_json, bench_only;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "run the benchmark matrix on one GPU: per row the configuration the runtime would pick "
      "from the database, the built-in default, CUB and the read floor, verified, against the "
      "row's target");
  add_common(bench, common, kGpu | kDb | kQuiet, {nullptr, "print only the table and errors"});
  bench->add_flag("--matrix", "the whole matrix (the default; --only narrows it)");
  bench->add_option("--only", bench_only,
                    "only rows whose id matches this regular expression (ECMAScript), e.g. "
                    "'u8-256-2\\^28'");
  CLI::Option* bench_json_opt =
      bench->add_option("--json", bench_json,
                        "also write the results as JSON to FILE; without FILE: the JSON on "
                        "stdout and the table on stderr")
          ->expected(0, 1)
          ->type_name("[FILE]");

  std::string show_problem;
  std::size_t show_top = 0;
  CLI::App* show = app.add_subcommand(
      "show", "what the database holds, per device: tuned problems and their winners (needs no GPU)");
  add_common(show, common, kDb | kJson);
  show->add_option("--problem", show_problem,
                   "only this problem, TYPE:BINNING:BINS:N (exit 1 if it is not stored)");
  show->add_option("--top", show_top, "also list the N fastest measurements of each problem");

  std::string html_path, export_path, export_device, import_path, merge_path;
  bool prune_all_versions = false;
  CLI::App* report = app.add_subcommand(
      "report",
      "write one self-contained HTML page of the database (inline SVG, nothing fetched): per "
      "device and problem the tuned / default / CUB bars, % of floor, the configuration chosen, "
      "how the winning parameters change with size and bin count, and the device and toolchain "
      "(needs no GPU; default, CUB and floor come from `compare`)");
  add_common(report, common, kDb | kJson | kQuiet,
             {"print a JSON summary (file written, devices, problems) instead of the line"});
  report->add_option("--html", html_path, "the HTML file to write")->required();

  CLI::App* exp = app.add_subcommand(
      "export", "write the database as JSON (format: docs/database-format.md; needs no GPU)");
  add_common(exp, common, kDb | kJson | kQuiet,
             {"with --out FILE: print a JSON summary instead of the line"});
  exp->add_option("--out", export_path, "file to write ('-' or nothing: standard output)");
  exp->add_option("--device", export_device, "only this device (its UUID, as `show` lists it)");

  CLI::App* imp = app.add_subcommand(
      "import",
      "add a JSON export to the database (needs no GPU). The whole file is checked first: a "
      "malformed one changes nothing and exits 2. Identical measurements are skipped; a winner "
      "replaces a stored one only if faster, a baseline only if measured later");
  add_common(imp, common, kDb | kJson, {"print the summary as JSON"});
  imp->add_option("file", import_path, "the JSON file ('-': standard input)")->required();

  CLI::App* merge = app.add_subcommand(
      "merge",
      "merge another histtune database file into this one, with import's rules: the faster "
      "winner is kept (the other file is only read; needs no GPU)");
  add_common(merge, common, kDb | kJson, {"print the summary as JSON"});
  merge->add_option("other", merge_path, "the other database file")->required()->check(CLI::ExistingFile);

  CLI::App* prune = app.add_subcommand(
      "prune",
      "delete measurements and winners taken with another kernel template or histtune version "
      "than this build's, then what nothing refers to (needs no GPU)");
  add_common(prune, common, kDb | kJson, {"print the summary as JSON"});
  prune->add_flag("--all-versions", prune_all_versions,
                  "keep results of other histtune versions (prune by kernel template only)");
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  if (bench_json_opt->count() > 0 && bench_json.empty()) common.json = true;
  try {
    if (*compare) return run_compare(common, compare_problems);
    if (*info) return run_info(common);
    if (*bench) return run_bench(common, bench_json, bench_only);
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
    std::fprintf(stderr, "histtune: %s\n", e.what());
    return kDatabase;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "histtune: %s\n", e.what());
    return kFailure;
  }
}
