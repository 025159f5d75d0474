// Online tuning (DispatcherOptions::tune): a first call below `exact` tunes its problem before it
// runs, through the tuner that the tuner library registers here; the runtime cannot link the
// tuner, which sits above it.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <utility>

#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "log.hpp"

namespace histtune {
namespace {

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

OnlineTuner& registered() {
  static OnlineTuner tuner;
  return tuner;
}

OnlineTuner online_tuner() {
  std::lock_guard<std::mutex> lock(registry_mutex());
  return registered();
}

}  // namespace

void set_online_tuner(OnlineTuner tuner) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registered() = std::move(tuner);
}

bool has_online_tuner() { return static_cast<bool>(online_tuner()); }

// Tunes p on d and looks it up again (now `exact`); where it cannot, says why (once where nothing
// can be tuned at all) and returns `untuned`, the lookup's choice, which the call then runs.
FamilyChoice Dispatcher::tune_online(const DeviceInfo& d, const Problem& p, FamilyChoice untuned) {
  const OnlineTuner tuner = online_tuner();
  if (!tuner || !db_) {
    if (!said_no_tuner_.exchange(true) && log_level() >= 1)
      std::fprintf(stderr, "histtune: online tuning is on but %s; calls run untuned\n",
                   !tuner ? "no tuner is registered (link histtune::tuner and call "
                            "histtune::tuner::enable_online_tuning())"
                          : ("the tuning database is unusable: " + db_error_).c_str());
    return untuned;
  }
  std::lock_guard<std::mutex> lock(tune_mutex_);
  FamilyChoice now = lookup(d, p);  // another thread may have tuned it meanwhile
  if (tuned_for_model(now.level)) return now;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const std::string what = tuner(d, p, *db_, cache_, tune_budget_);
    FamilyChoice tuned = lookup(d, p);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (log_level() >= 1)
      std::fprintf(stderr, "histtune: tuned %s online on %s (GPU %d) in %.1f s: %s; runs %s\n",
                   p.describe().c_str(), d.name.c_str(), d.ordinal, s, what.c_str(),
                   tuned.summary().c_str());
    return tuned;
  } catch (const std::exception& e) {
    if (log_level() >= 1)
      std::fprintf(stderr, "histtune: online tuning of %s failed, running %s: %s\n",
                   p.describe().c_str(), now.summary().c_str(), e.what());
    return now;
  }
}

}  // namespace histtune
