// The histtune command line: `histtune --gpu auto` tunes this machine's GPU; `compare` and `info`
// report. Errors are one line on stderr and a documented exit code (see common.hpp).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>

#include "commands.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"

namespace histtune::cli {

Problem parse_problem(const std::string& spec) {
  std::vector<std::string> f;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ':');) f.push_back(part);
  auto bad = [&](const std::string& why) {
    return Error(StatusCode::invalid_argument, "--problem '" + spec + "': " + why +
                                                   " (expected TYPE:BINNING:BINS:N[:LOWER:UPPER])");
  };
  if (f.size() != 4 && f.size() != 6) throw bad("wrong number of fields");
  Problem p;
  auto t = parse_sample_type(f[0]);
  if (!t) throw bad("unknown sample type '" + f[0] + "' (u8, u16, u32, i32, f32)");
  auto b = parse_binning(f[1]);
  if (!b) throw bad("unknown binning '" + f[1] + "' (direct, even)");
  p.sample_type = *t;
  p.binning = *b;
  auto number = [&](const std::string& s, const char* what) -> double {
    try {
      std::size_t used = 0;
      if (s.rfind("2^", 0) == 0) {
        int e = std::stoi(s.substr(2), &used);
        if (used + 2 != s.size() || e < 0 || e > 40) throw bad(std::string("bad ") + what);
        return static_cast<double>(1ull << e);
      }
      double v = std::stod(s, &used);
      if (used != s.size()) throw bad(std::string("bad ") + what + " '" + s + "'");
      return v;
    } catch (const Error&) {
      throw;
    } catch (const std::exception&) {
      throw bad(std::string("bad ") + what + " '" + s + "'");
    }
  };
  const double bins = number(f[2], "bin count");
  const double n = number(f[3], "sample count");
  if (bins < 0 || bins > 4294967295.0) throw bad("bin count out of range");
  if (n < 0 || n > 1e15) throw bad("sample count out of range");
  p.num_bins = static_cast<std::uint32_t>(bins);
  p.n = static_cast<std::uint64_t>(n);
  if (f.size() == 6) {
    p.lower = number(f[4], "lower bound");
    p.upper = number(f[5], "upper bound");
  } else if (p.binning == Binning::even) {
    p.lower = 0;
    p.upper = p.num_bins;
  }
  if (std::string why = validate(p); !why.empty()) throw bad(why);
  return p;
}

namespace {

void add_common(CLI::App* app, Common& c) {
  app->add_option("--gpu", c.gpu, "GPU to use: 'auto' (the first device) or an index")
      ->capture_default_str();
  app->add_option("--db", c.db_path,
                  "tuning database file (default: $HISTTUNE_DB, else "
                  "$XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db)");
  app->add_flag("-q,--quiet", c.quiet, "print only results and errors");
  app->add_flag("-v,--verbose", c.verbose, "print more detail (measurement spread)");
}

}  // namespace
}  // namespace histtune::cli

int main(int argc, char** argv) {
  using namespace histtune::cli;
  CLI::App app{"histtune: autotuned CUDA histogram kernels.\n"
               "With no subcommand, tunes the default plan on the chosen GPU (same as `tune`).",
               "histtune"};
  app.set_version_flag("--version", std::string("histtune ") + histtune::version());
  app.footer(
      "Exit codes: 0 success; 1 a configuration failed or nothing to compare; 2 bad command "
      "line or input; 3 no CUDA device (or no such --gpu index); 4 database error (also a "
      "malformed import, which changes nothing).");
  Common common;
  std::vector<std::string> problems;
  add_common(&app, common);
  app.add_option("--problem", problems,
                 "tune only this problem, TYPE:BINNING:BINS:N[:LOWER:UPPER] (repeatable), "
                 "e.g. u8:direct:256:2^24");
  TuneFlags flags;
  auto add_tune_flags = [&](CLI::App* a) {
    a->add_option("--strategy", flags.strategy,
                  "search strategy: exhaustive (every valid configuration), random, or annealing "
                  "(simulated annealing, guided by the neighbours of good points)")
        ->capture_default_str()
        ->check(CLI::IsMember({"exhaustive", "random", "annealing"}));
    a->add_option("--budget", flags.budget,
                  "at most this many configurations timed per problem (0: no limit; annealing "
                  "then times a tenth of the space)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    a->add_option("--time-limit", flags.time_limit_s,
                  "stop searching a problem after this many seconds (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
  };
  add_tune_flags(&app);
  CLI::App* tune = app.add_subcommand("tune", "tune the default plan (or --problem ...) and record "
                                              "every measurement and the winners");
  add_common(tune, common);
  add_tune_flags(tune);
  tune->add_option("--problem", problems, "as above");
  CLI::App* compare = app.add_subcommand(
      "compare", "for each problem tuned on this GPU: tuned vs built-in default vs CUB vs the "
                 "read floor, measured now");
  add_common(compare, common);
  CLI::App* info = app.add_subcommand("info", "device, driver, NVRTC, database path and contents");
  add_common(info, common);
  std::string bench_json, bench_only;
  CLI::App* bench = app.add_subcommand(
      "bench", "run the benchmark matrix (tuned from the database vs default vs CUB vs floor)");
  add_common(bench, common);
  bench->add_flag("--matrix", "the whole matrix (the default; --only narrows it)");
  bench->add_option("--only", bench_only, "only rows whose id matches this regular expression");
  bench->add_option("--json", bench_json, "also write the results as JSON to this file");
  std::string show_problem;
  std::size_t show_top = 0;
  bool show_json = false;
  CLI::App* show = app.add_subcommand(
      "show", "what the database holds: tuned problems and winners per device (needs no GPU)");
  add_common(show, common);
  show->add_option("--problem", show_problem, "only this problem, TYPE:BINNING:BINS:N");
  show->add_option("--top", show_top, "also list the N fastest measurements of each problem");
  show->add_flag("--json", show_json, "machine-readable output");
  std::string html_path, export_path, export_device, import_path, merge_path;
  bool prune_all_versions = false;
  CLI::App* report = app.add_subcommand(
      "report", "write one self-contained HTML page of the database (needs no GPU)");
  add_common(report, common);
  report->add_option("--html", html_path, "the HTML file to write")->required();
  CLI::App* exp = app.add_subcommand("export", "write the database as JSON (docs/database-format.md)");
  add_common(exp, common);
  exp->add_option("--out", export_path, "file to write ('-' or nothing: standard output)");
  exp->add_option("--device", export_device, "only this device (its UUID)");
  CLI::App* imp = app.add_subcommand(
      "import", "add a JSON export to the database; a malformed file changes nothing");
  add_common(imp, common);
  imp->add_option("file", import_path, "the JSON file ('-': standard input)")->required();
  CLI::App* merge = app.add_subcommand(
      "merge", "merge another histtune database file into this one (faster winners are kept)");
  add_common(merge, common);
  merge->add_option("other", merge_path, "the other database file")->required()->check(CLI::ExistingFile);
  CLI::App* prune = app.add_subcommand(
      "prune", "delete results measured with another kernel template or histtune version");
  add_common(prune, common);
  prune->add_flag("--all-versions", prune_all_versions,
                  "keep results of other histtune versions (prune by kernel template only)");
  app.require_subcommand(0, 1);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  try {
    if (*compare) return run_compare(common);
    if (*info) return run_info(common);
    if (*bench) return run_bench(common, bench_json, bench_only);
    if (*report) return run_report(common, html_path);
    if (*show) return run_show(common, show_problem, show_top, show_json);
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
