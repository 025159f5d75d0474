// `histtune tune` (the default action): tunes the default plan, or the given problems, on one
// GPU and records every measurement and the winners; with --compare-strategies, measures how
// close the guided search comes to the exhaustive one instead (docs/tuning.md).
#include "command.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/decide.hpp"
#include "histtune/tuner/search.hpp"
#include "options.hpp"
#include "pending.hpp"
#include "tune.hpp"

namespace histtune::cli {
namespace {

// After "Tunes the default plan (N problems: ", N counted when the help is built.
const char* const kDetails =
    "u8, u16, u32, i32, f32, i64, f16, bf16, i8 and i16\n"
    "samples, 10 to 1048576 and n/16 bins, 2^12 to 2^28 samples, direct, even and range\n"
    "binning; RGBA frames\n"
    "and [1048576, 512] columns of interleaved channels; batched and segmented rows; weighted\n"
    "samples, fast and deterministic; joint f32 and u8 pairs and f32 triples), or each\n"
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
    "winner are stored. --pending tunes what programs called instead (docs/tuning.md,\n"
    "\"Record, then tune\").\n"
    "--gpu all tunes every GPU of the machine at once, a thread per GPU, into one database:\n"
    "the boards of one model (same name, compute capability, SMs and memory) share the plan,\n"
    "each taking the next problem when it is free, and a winner tuned on one serves them all\n"
    "(lookup level same_model); boards of different models each tune the whole plan. Each line\n"
    "starts with its GPU ([GPU 1]); a GPU that fails is said on stderr and the others go on\n"
    "(exit code 5).\n\n";

struct TuneValues {
  std::vector<std::string> problems;
  bool pending = false;
  TuneFlags flags;
};

// The search: --strategy, --budget, --screen-above, --time-limit.
void declare_search(CLI::App* app, TuneFlags& flags) {
  app->add_option("--strategy", flags.strategy,
                  "annealing: simulated annealing over neighbours, then a hill climb (the\n"
                  "default); exhaustive: every valid configuration; random: the same in random\n"
                  "order")
      ->type_name("NAME")
      ->capture_default_str()
      ->check(CLI::IsMember(tuner::strategy_names()));
  app->add_option_function<std::size_t>(
         "--budget", [&flags](const std::size_t& n) { flags.budget = n; },
         "time at most N configurations per problem in the search (default:\n" +
             std::to_string(tuner::kPlanBudget) + " for annealing, " +
             std::to_string(tuner::kPartitionedPlanBudget) +
             " where the built-in default partitions (bins far\n"
             "beyond shared memory), none for exhaustive and random; 0: no limit,\n"
             "annealing then times a tenth of the valid space)")
      ->type_name("N")
      ->check(non_negative, "");
  app->add_option("--screen-above", flags.screen_above,
                  "annealing: a move the search's cost model (fit to the points timed so far)\n"
                  "predicts above RATIO x the best so far uses its evaluation untimed, so its\n"
                  "kernel is never compiled (0: time every move)")
      ->type_name("RATIO")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  app->add_option("--jobs", flags.jobs,
                  "problems tuned at once (0: one per 6 GiB of GPU memory, 1 to 8): each\n"
                  "compiles on its own threads while another is timed; every measurement\n"
                  "still has the GPU to itself")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  app->add_option("--compile-threads", flags.compile_threads,
                  "NVRTC threads per problem (0: one per hardware thread, shared in turns by\n"
                  "the problems tuned at once)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  app->add_option("--compile-in", flags.compile_in,
                  "where the shared NVRTC slots compile: in child processes of this program\n"
                  "(NVRTC's threads in one process keep about 9 of 16 cores busy) or in threads")
      ->type_name("WHERE")
      ->capture_default_str()
      ->check(CLI::IsMember({"processes", "threads"}));
  app->add_option("--time-limit", flags.time_limit_s,
                  "stop searching a problem after this many seconds (0: no limit)")
      ->type_name("SECONDS")
      ->capture_default_str()
      ->check(non_negative, "");
}

// How the winner is chosen: --distributions, --finalists, --decision, --decision-drop.
void declare_decision(CLI::App* app, TuneFlags& flags) {
  add_distributions(app, flags.distributions,
                    "input data measured, comma-separated; the first is searched, the others\n"
                    "judge the finalists (default: " +
                        distribution_list(tuner::TuneOptions{}.distributions) + ")");
  app->add_option("--finalists", flags.finalists,
                  "configurations of the search re-timed on every distribution before a winner\n"
                  "is chosen")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{100}));
  app->add_option("--decision-drop", flags.decision_drop,
                  "after each round of re-timing but the last, a candidate whose worst case and\n"
                  "regret are both more than this fraction behind the best is not re-timed\n"
                  "again (0: every candidate every round)")
      ->type_name("FRACTION")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  app->add_option("--decision-samples", flags.decision_samples,
                  "samples each re-timing of the decision takes, every round's pooled (0: as\n"
                  "the search times, at least 10 and until the median is within 1%, which took\n"
                  "the H100's default plan 10% longer with winners as good: docs/tuning.md)")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  app->add_option("--decision", flags.decision,
                  "how the winner is chosen over the distributions: pairwise (the candidate no\n"
                  "other beats by more, each pair judged as `histtune stability` judges two runs'\n"
                  "winners) or leximax (the smallest worst ratio to each distribution's best)")
      ->type_name("RULE")
      ->capture_default_str()
      ->check(CLI::IsMember(tuner::robust_rule_names()));
}

void declare(CLI::App* app, Common& common, TuneValues& v) {
  add_common(app, common, kGpu | kGpuAll | kDb | kJson | kQuiet | kVerbose,
             {"one JSON document on stdout at the end; progress goes to stderr",
              "print only each problem's winner line and errors (with --json: none)",
              "print each configuration as it is measured instead of a progress bar"});
  app->add_option("--problem", v.problems,
                  "tune this problem instead of the default plan (repeatable; format below)")
      ->type_name("SPEC");
  app->add_flag("--pending", v.pending,
                "tune the problems programs called that the runtime resolved below `exact` on\n"
                "this GPU (`histtune show --pending` lists them), most-called first; each then\n"
                "resolves `exact` and leaves the list");
  declare_search(app, v.flags);
  declare_decision(app, v.flags);
  app->add_option("--seed", v.flags.seed, "seed of the search and of the input data")
      ->type_name("N")
      ->capture_default_str();
  app->add_flag("--fresh", v.flags.fresh,
                "measure again what the database already holds (default: reuse it, so an\n"
                "interrupted run resumes)");
  app->add_flag("--compare-strategies", v.flags.compare_strategies,
                "instead of tuning: exhaustive vs annealing per problem, on uniform\n"
                "data (docs/tuning.md); stores only compiled kernels");
  app->add_option("--compare-seeds", v.flags.compare_seeds,
                  "with --compare-strategies: annealing runs per budget")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
}

// The problems named by --problem, or the default plan.
std::vector<Problem> select_plan(const std::vector<std::string>& problem_specs) {
  std::vector<Problem> plan;
  for (const auto& s : problem_specs) plan.push_back(parse_problem(s));
  if (plan.empty()) plan = tuner::default_plan();
  return plan;
}

int run_tune(const Common& c, const TuneValues& v) {
  const TuneFlags& f = v.flags;
  if (v.pending && !v.problems.empty())
    throw Error(StatusCode::invalid_argument,
                "--pending tunes what programs called: not with --problem");
  std::vector<Problem> plan = v.pending ? std::vector<Problem>() : select_plan(v.problems);
  const std::vector<tuner::Distribution> dists = parse_distributions(f.distributions);
  if (c.gpu == "all") {
    if (f.compare_strategies)
      throw Error(StatusCode::invalid_argument,
                  "--compare-strategies runs on one GPU: give --gpu auto or an index");
    return tune_all(c, plan, v.pending, f, dists);
  }
  const DeviceInfo d = select_device(c);
  auto database = open_db(c);
  std::FILE* text = text_stream(c);  // stderr under --json: stdout carries the document
  if (v.pending) plan = pending_plan(*database, {d}, text, c.quiet);
  if (f.compare_strategies) return run_compare_strategies(c, plan, f, d, *database, text);
  const int status = tune_plan(c, plan, f, dists, d, *database, text, v.pending);
  if (v.pending) clear_tuned(*database, {d}, plan);
  return status;
}

}  // namespace

Command tune_command() {
  return {
      "tune", "tune the default plan or --problem ... (default)",
      "Tunes the default plan (" + std::to_string(tuner::default_plan().size()) +
          " problems: " + kDetails + kProblemFormat,
      bind_values<TuneValues>(
          declare, [](Common& c, const TuneValues& v) { return run_tune(c, v); }),
      /*is_default=*/true};
}

}  // namespace histtune::cli
