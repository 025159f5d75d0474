// `histtune tune --gpu all`: every GPU of the machine at once, a thread per GPU. The boards of one
// model share the plan through one PlanQueue (each takes the next problem when it is free), since
// a winner tuned on one serves them all (lookup level `same_model`); boards of different models
// each tune the whole plan. One database file, and one connection per thread: SQLite serialises
// the writers itself (WAL, IMMEDIATE transactions, a 5 s busy timeout; db/), every write is one
// short transaction (a measurement, a problem's winners, a CUBIN), so a writer waits milliseconds,
// and no thread's connection is shared, so no thread waits on another's statements. (One writer
// thread fed by a queue would add a hand-off for no gain: the tuner stores each measurement as
// it is taken, through its own callback, so that an interrupted run resumes.)
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "pending.hpp"
#include "tune.hpp"

namespace histtune::cli {
namespace {

// Every device of the machine; throws Error(no_device) with the reason where there is none.
std::vector<DeviceInfo> every_device() {
  std::vector<DeviceInfo> out;
  const int count = device_count();
  for (int i = 0; i < count; ++i) out.push_back(query_device(i));
  return out;
}

std::string gpu_prefix(const DeviceInfo& d) { return "[GPU " + std::to_string(d.ordinal) + "] "; }

// What each model tunes: the plan given, or its boards' pending problems.
struct ModelWork {
  ModelGroup group;
  std::vector<Problem> plan;
  std::unique_ptr<PlanQueue> queue;
};

void print_header(const Common& c, const std::vector<ModelWork>& work, const TuneFlags& f,
                  const std::vector<tuner::Distribution>& dists, const std::string& db_path,
                  std::FILE* text) {
  if (c.quiet) return;
  std::size_t gpus = 0;
  for (const ModelWork& w : work) gpus += w.group.devices.size();
  std::string s = printf_text("histtune: tuning on %zu GPUs of %zu model%s at once, database %s\n",
                              gpus, work.size(), work.size() == 1 ? "" : "s", db_path.c_str());
  for (const ModelWork& w : work) {
    std::string boards;
    for (const DeviceInfo& d : w.group.devices)
      boards += (boards.empty() ? "GPU " : ", GPU ") + std::to_string(d.ordinal);
    s += printf_text("  %s: %s; %zu problems%s\n", model_text(w.group.devices.front()).c_str(),
                     boards.c_str(), w.plan.size(),
                     w.group.devices.size() > 1
                         ? ", shared: each GPU takes the next problem when it is free"
                         : "");
  }
  std::fprintf(text, "%s%s; %s at once per GPU\n", s.c_str(), search_line(f, dists).c_str(),
               f.jobs > 0 ? ("up to " + std::to_string(f.jobs)).c_str()
                          : "one problem per 6 GiB of its memory (up to 8)");
}

// One GPU's thread: its device current, its own database connection, its share of the queue.
ShareOutcome run_gpu(const Common& c, const ModelWork& work, const DeviceInfo& d, int gpus,
                     const TuneFlags& f, const std::vector<tuner::Distribution>& dists,
                     std::FILE* text, std::chrono::steady_clock::time_point t0) {
  try {
    make_current(d);
    db::Database database(resolve_db_path(c));
    return tune_share(c, work.plan, *work.queue, gpu_prefix(d), gpus, f, dists, d, database,
                      text, t0);
  } catch (const std::exception& e) {  // before its first problem
    ShareOutcome out;
    out.status = kGpuFailed;
    out.error = e.what();
    out.json = {{"device", device_json(d)}, {"results", nlohmann::json::array()},
                {"ok", false}, {"error", out.error}};
    return out;
  }
}

// The closing lines: a GPU that failed, with what it said; the wall time.
int report(const Common& c, const std::vector<const DeviceInfo*>& devices,
           const std::vector<ShareOutcome>& outcomes, double seconds, const std::string& db_path,
           std::FILE* text) {
  int status = kOk;
  nlohmann::json gpus = nlohmann::json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const ShareOutcome& o = outcomes[i];
    gpus.push_back(o.json);
    if (!o.error.empty())
      std::fprintf(stderr,
                   "histtune: GPU %d (%s) failed: %s; the other GPUs went on with the plan (run "
                   "the same command again to tune what it left)\n",
                   devices[i]->ordinal, devices[i]->name.c_str(), o.error.c_str());
    // A GPU that failed says more than a problem that did (kFailure).
    if (o.status == kGpuFailed || (o.status != kOk && status == kOk)) status = o.status;
  }
  if (!c.quiet)
    std::fprintf(text, "histtune: every GPU done in %.1f s; results in %s\n", seconds,
                 db_path.c_str());
  if (c.json)
    print_json({{"histtune", version()},
                {"command", "tune"},
                {"database", db_path},
                {"gpus", gpus},
                {"seconds", seconds},
                {"ok", status == kOk}});
  return status;
}

}  // namespace

int tune_all(const Common& c, const std::vector<Problem>& plan, bool pending, const TuneFlags& f,
             const std::vector<tuner::Distribution>& dists) {
  const std::vector<DeviceInfo> devices = every_device();
  // Created (or migrated) once here, before the threads open their own connections.
  auto database = open_db(c);
  std::FILE* text = text_stream(c);  // stderr under --json: stdout carries the document
  std::vector<ModelWork> work;
  for (ModelGroup& g : group_by_model(devices)) {
    std::vector<Problem> p = pending ? pending_plan(*database, g.devices, text, c.quiet) : plan;
    auto queue = plan_queue(p, pending);
    work.push_back({std::move(g), std::move(p), std::move(queue)});
  }
  print_header(c, work, f, dists, database->path(), text);
  start_compile_children(f);  // one set for every board: the slots are shared

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const DeviceInfo*> boards;
  for (const ModelWork& w : work)
    for (const DeviceInfo& d : w.group.devices) boards.push_back(&d);
  std::vector<ShareOutcome> outcomes(boards.size());
  std::vector<std::thread> threads;
  std::size_t k = 0;
  for (const ModelWork& w : work)
    for (const DeviceInfo& d : w.group.devices) {
      ShareOutcome* out = &outcomes[k++];
      const int gpus = static_cast<int>(boards.size());
      threads.emplace_back([&c, &w, &d, gpus, &f, &dists, text, t0, out] {
        *out = run_gpu(c, w, d, gpus, f, dists, text, t0);
      });
    }
  for (std::thread& t : threads) t.join();

  if (pending)
    for (const ModelWork& w : work) clear_tuned(*database, w.group.devices, w.plan);
  return report(c, boards, outcomes, seconds_since(t0), database->path(), text);
}

}  // namespace histtune::cli
