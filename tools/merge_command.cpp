// `histtune merge OTHER`: adds another database file (only read) to this one. Where both name a
// winner for the same device and problem, their recorded medians come from two runs and cannot
// be compared: the two are re-timed side by side on a GPU of that kind when one is here, else
// the stored winner is kept; each such case is said, with the rule that decided it.
#include <cstdio>

#include "command.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/side_by_side.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

// A GPU of this machine of the same kind (name and architecture) as the stored device.
std::optional<DeviceInfo> local_gpu_like(const db::DeviceRow& stored) {
  try {
    for (int i = 0, n = device_count(); i < n; ++i) {
      DeviceInfo d = query_device(i);
      if (d.name == stored.name && d.cc_major == stored.cc_major && d.cc_minor == stored.cc_minor)
        return d;
    }
  } catch (const Error&) {
  }
  return std::nullopt;
}

// The slowest distribution's median: the tuner chooses its winner by the worst case. Unset when
// the side failed anywhere.
std::optional<double> worst_case(const std::vector<tuner::SideBySide>& runs, bool side_a) {
  double worst = 0;
  for (const auto& r : runs) {
    const tuner::SideTiming& t = side_a ? r.a : r.b;
    if (!t.verified || t.timing.samples == 0) return std::nullopt;
    worst = std::max(worst, t.timing.median_ms);
  }
  return worst;
}

// Re-times a robust-winner conflict on `gpu` and keeps the faster; returns why it kept what it
// kept.
std::string retime(db::Database& database, const db::DeviceRow& device, const DeviceInfo& gpu,
                   const db::WinnerConflict& w) {
  KernelCache cache;
  const Problem p = problem_of(w.problem);
  const auto runs = tuner::side_by_side(gpu, p, w.stored_label, w.imported_label, cache);
  const std::optional<double> stored = worst_case(runs, true), imported = worst_case(runs, false);
  const std::string where = "re-timed side by side on GPU " + std::to_string(gpu.ordinal) + " (" +
                            gpu.name + "), worst case over the tuner's distributions: ";
  if (imported && (!stored || *imported < *stored)) {
    database.set_winner(device, w.problem, w.imported_label, *imported, w.imported_template_hash,
                        w.imported_histtune_version);
    return "kept " + w.imported_label + " (the other file's): " + where +
           (stored ? fmt_ms(*imported) + " ms vs " + fmt_ms(*stored) + " ms"
                   : "the stored one failed to run or verify");
  }
  return "kept " + w.stored_label + " (this database's): " + where +
         (stored && imported ? fmt_ms(*stored) + " ms vs " + fmt_ms(*imported) + " ms"
          : stored           ? "the other failed to run or verify"
                             : "neither ran and verified");
}

// The stored winner stays (WinnerRule::existing); why, in words.
std::string kept_without_gpu(const db::WinnerConflict& w, const std::string& other,
                             const std::string& gpu_name) {
  return "kept " + w.stored_label + " (this database's, " + fmt_ms(w.stored_ms) +
         " ms recorded) over " + w.imported_label + " (" + other + "'s, " +
         fmt_ms(w.imported_ms) + " ms recorded): medians of two runs are not comparable and " +
         (gpu_name.empty() ? "this is the per-distribution winner"
                           : "no " + gpu_name + " is here to re-time both") +
         ", so the stored winner is kept; both sets of measurements are stored";
}

int run_merge(const Common& c, const std::string& other) {
  auto database = open_db(c);
  const db::ImportSummary s = database->merge_from(other, db::WinnerRule::existing);
  nlohmann::json decisions = nlohmann::json::array();
  std::string lines;
  for (const db::WinnerConflict& w : s.conflicts) {
    const std::optional<db::DeviceRow> dev = database->device(w.device_uuid);
    const bool robust = w.distribution == db::kAnyDistribution;
    const std::optional<DeviceInfo> gpu = robust && dev ? local_gpu_like(*dev) : std::nullopt;
    const std::string why = gpu ? retime(*database, *dev, *gpu, w)
                                : kept_without_gpu(w, other, robust && dev ? dev->name : "");
    const std::string what = problem_name(w.problem) + (robust ? "" : " (" + w.distribution + ")") +
                             " on " + w.device_uuid;
    decisions.push_back({{"device", w.device_uuid}, {"problem", problem_json(w.problem)},
                         {"distribution", w.distribution}, {"stored", w.stored_label},
                         {"imported", w.imported_label}, {"retimed", gpu.has_value()},
                         {"decision", why}});
    lines += "  " + what + ": " + why + "\n";
  }
  print_import_summary(c, "merge", database->path(), s,
                       {{"other", other}, {"winner_conflicts", decisions}},
                       "merged " + other + " into " + database->path(),
                       " (where both name a winner: re-timed on a GPU of that kind, else the "
                       "stored one is kept)");
  if (!c.json) std::printf("%s", lines.c_str());
  return kOk;
}

void declare(CLI::App* app, Common& common, std::string& other) {
  add_common(app, common, kDb | kJson, {"print the summary as JSON"});
  app->add_option("other", other, "the other database file (only read)")
      ->type_name("FILE")
      ->required()
      ->check(CLI::ExistingFile.description(""));
}

}  // namespace

Command merge_command() {
  return {"merge", "merge another histtune database file into this one",
          "Measurements are added, the later baseline is kept. Where both files name a winner\n"
          "for the same device and problem, their recorded medians come from two runs and are\n"
          "not compared: with a GPU of that kind here both are re-timed side by side and the\n"
          "faster (worst case over the tuner's distributions) is kept; otherwise the stored\n"
          "winner is kept. Each such case is printed with the rule that decided it. Needs no GPU.",
          bind_values<std::string>(declare, run_merge)};
}

}  // namespace histtune::cli
