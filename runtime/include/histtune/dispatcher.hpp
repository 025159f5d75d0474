// The dispatcher: looks the winner up for (device, problem), graded, and launches it. It always
// launches something correct: with no database, or nothing tuned, the built-in default.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>

#include "histtune/batched.hpp"
#include "histtune/call_recorder.hpp"
#include "histtune/counts64.hpp"
#include "histtune/device.hpp"
#include "histtune/family.hpp"
#include "histtune/family_model.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/problem.hpp"
#include "histtune/restriction.hpp"
#include "histtune/status.hpp"
#include "histtune/weighted.hpp"

namespace histtune {
namespace db {
class Database;
struct WinnerRow;
}

// How a configuration was found, best first.
enum class LookupLevel {
  exact,            // tuned for this device and exactly this problem
  same_model,       // tuned for exactly this problem on another board of this model (same
                    // name, compute capability, SMs and memory: db::same_model), e.g. the
                    // other GPU of the machine under `histtune tune --gpu all`
  nearest_shape,    // tuned on this device for the nearest n and bins (log space), same type
  same_arch,        // tuned on another device of the same compute capability
  builtin_default,  // nothing usable in the database
};
const char* to_string(LookupLevel level);
// Tuned for exactly this problem on this model (exact or same_model): as good as tuning it here,
// so neither recorded as pending nor tuned online.
inline bool tuned_for_model(LookupLevel level) {
  return level == LookupLevel::exact || level == LookupLevel::same_model;
}

// What a lookup chose, for one family's configuration type.
template <class Config>
struct ChoiceOf {
  Config config;
  LookupLevel level = LookupLevel::builtin_default;
  // The stored result was recorded under another driver, NVRTC or histtune version than the
  // current ones (or under one that was not recorded). It is used, since the kernel source is
  // the same and the configuration passed the restrictions, but its speed under what runs now was
  // never measured: re-tune to confirm it. A strict dispatcher skips such rows instead. Never set
  // at builtin_default.
  bool unverified = false;
  std::string stale;   // what differs, e.g. "driver 12080 -> 13000; NVRTC 12.8 -> 13.0"
  std::string detail;  // what was matched ("... tuned on GPU-.. for bins=256 n=...") or why it
                       // fell back, followed by every stored row skipped on the way and why
  // "exact tpb256...", plus " (unverified: ...)" where it applies: one line for logs.
  std::string summary() const {
    std::string s = std::string(to_string(level)) + " " + config.label();
    if (unverified) s += " (unverified: " + stale + ")";
    return s;
  }
};
using Choice = ChoiceOf<Hist1DConfig>;
using MultiChannelChoice = ChoiceOf<MultiChannelConfig>;
using BatchedChoice = ChoiceOf<BatchedConfig>;  // the batched and segmented families'

// The same for any family: the configuration as its family's parameter values.
struct FamilyChoice {
  const KernelFamily* family = nullptr;
  ParamValues config;
  LookupLevel level = LookupLevel::builtin_default;
  bool unverified = false;
  std::string stale;
  std::string detail;
  std::string label() const { return family ? family->label(config) : std::string(); }
  std::string summary() const {
    std::string s = std::string(to_string(level)) + " " + label();
    if (unverified) s += " (unverified: " + stale + ")";
    return s;
  }
};

// A FamilyChoice of family F as F's typed choice.
template <class F>
ChoiceOf<typename F::Config> typed_choice(const FamilyChoice& c) {
  return {FamilyModel<F>::config(c.config), c.level, c.unverified, c.stale, c.detail};
}

// What runs now, against which stored results are judged (see Dispatcher::explain).
struct Toolchain {
  int driver_version = 0;  // cudaDriverGetVersion; 0 = unknown, not compared
  std::string nvrtc_version;
  std::string template_hash;  // of the family's kernel template
  std::string histtune_version;
};
// The toolchain of this process for a call on `d` (the driver version is d's) in `family` (whose
// template hash).
Toolchain current_toolchain(const DeviceInfo& d, Family family = Family::hist1d);

// How the lookup treats one stored winner (see Dispatcher::lookup), before the configuration's
// own restriction checks: used as measured, used but unverified (skipped when strict), or
// skipped as stale.
enum class RowUse { used, unverified, stale };
struct RowStanding {
  RowUse use = RowUse::used;
  // Why, for unverified ("driver 12.8 -> 13.0; NVRTC 12.8 -> 13.0") and stale ("the kernel
  // source changed since (template 1a2b..., now 3c4d...)"); empty for used.
  std::string why;
};
// `now` is current_toolchain(d, family of the row); a driver version of 0 is not compared.
RowStanding judge_row(const db::WinnerRow& w, const Toolchain& now);

struct DispatcherOptions {
  // Database location, in order: this path if given, else $HISTTUNE_DB (when set and not
  // empty), else $XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db.
  std::optional<std::string> db_path;
  // Skip stored results recorded under another driver, NVRTC or histtune version instead of
  // using them unverified. Unset: $HISTTUNE_STRICT=1 turns it on.
  std::optional<bool> strict;
  // Open the database read-only: never written, nor created, migrated or given compiled kernels
  // (for tools that only look up, as `histtune explain`). Nothing is recorded nor tuned then.
  bool read_only = false;
  // Record each shape whose first call resolved below tuned_for_model (exact or same_model),
  // with its call count, as a pending problem for `histtune tune --pending`: in the database
  // when it takes writes, else in the side file db::pending_file_path(db_path) (see
  // CallRecorder). Unset: on, unless $HISTTUNE_RECORD is 0, off or false.
  std::optional<bool> record{};
  // Online tuning: the first call of a shape below tuned_for_model tunes it before it runs (a
  // small search on uniform data, `tune_budget` configurations), stores the winner, says so on
  // stderr and runs it. Needs the tuner registered (tuner::enable_online_tuning(): the runtime does not
  // link the tuner) and a database, which is created where missing. Unset: $HISTTUNE_TUNE=1.
  std::optional<bool> tune{};
  std::size_t tune_budget = 24;
};

// What tunes one problem online (DispatcherOptions::tune): stores the winner of p on d in
// `database` and returns a line for the log ("winner LABEL MS ms, N measured"); throws where it
// finds none. The tuner registers one (tuner::enable_online_tuning()); the runtime sits below
// the tuner and cannot call it itself.
using OnlineTuner = std::function<std::string(const DeviceInfo& d, const Problem& p,
                                              db::Database& database, KernelCache& cache,
                                              std::size_t budget)>;
// Registers the online tuner of every dispatcher (empty: none). Thread-safe.
void set_online_tuner(OnlineTuner tuner);
bool has_online_tuner();

class Dispatcher {
 public:
  // A missing database file means no database: built-in defaults are used and nothing is
  // created. An unusable one (unreadable, corrupt, not histtune's, a newer schema) is reported
  // once to stderr and ignored the same way; explain() says why in its detail.
  explicit Dispatcher(std::optional<std::string> db_path = std::nullopt);
  explicit Dispatcher(const DispatcherOptions& options);
  ~Dispatcher();
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // The configuration that a call with `p` on device `d` would launch, and how it was found.
  // Needs no GPU: `d` may be any description. Thread-safe.
  //
  // Stored results are judged against current_toolchain(d):
  //  - another template hash (the kernel source changed): skipped, always;
  //  - another driver, NVRTC or histtune version, or one not recorded: used and flagged
  //    `unverified` (skipped when strict). The driver and NVRTC versions are those stored with
  //    the device the result was tuned on, as of its latest tuning run.
  // Each skipped row is named in `detail` with the reason; the lookup goes on to the next row and
  // level, down to the built-in default.
  FamilyChoice lookup(const DeviceInfo& d, const Problem& p) const;
  // lookup() of a 1D problem, as its family's configuration.
  Choice explain(const DeviceInfo& d, const Problem& p) const;

  // lookup() of a multi-channel problem, as its family's configuration: the same stale-row rules
  // and restriction checks. Candidates at every level have the same sample type,
  // binning, channels and active channels as `p` (the kernel is compiled for the channel count,
  // channels_per_block must divide it, and the active channels set the grid): nearest_shape is
  // the nearest rows and bins in log space, as in 1D.
  MultiChannelChoice explain_multichannel(const DeviceInfo& d, const Problem& p) const;

  // Checks the arguments, looks up, zeroes d_counts and launches on `stream`, which must belong to
  // the current device: every public entry point of every family comes here. Nothing is
  // synchronised. `used`, when given, receives the choice (owned by the dispatcher, valid while
  // it lives). Bad arguments return invalid_argument before anything is launched (see
  // check_arguments).
  //
  // The first call for a (device, problem shape) resolves it: lookup, compile or load,
  // shared-memory limit (see first_call_choice). Later calls are a map lookup and the launch
  // (plus, for a shape recorded as pending, one relaxed atomic increment of its call count), with
  // no allocation, synchronisation or attribute change, so they may be captured into a CUDA graph. A first call
  // on a capturing stream is refused (invalid_argument): make one call outside the capture first.
  // Thread-safe; one dispatcher may serve many threads and streams.
  Status run(const Problem& p, const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream,
             const FamilyChoice** used = nullptr);
  // The same, with the choice of a 1D problem as the 1D family's.
  Status run(const Problem& p, const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream,
             Choice* used);
  // 64-bit counts (every family but the weighted ones): n up to kMaxSamples64, split into chunks
  // of at most kCount64Chunk samples, rows or samples per row (counts64.hpp), each run as above
  // (its configuration looked up for the chunk's n)
  // into a temporary uint32 buffer from the workspace pool and added into d_counts
  // (counts64.hpp; runtime/src/counts64.cpp). Every check and every chunk shape's resolve comes
  // before the first launch, so a refused call leaves d_counts untouched. `used` receives the
  // first chunk's choice. The first such call on a device also loads the add kernel: it too is
  // refused during capture.
  Status run(const Problem& p, const void* d_samples, std::uint64_t* d_counts, cudaStream_t stream,
             const FamilyChoice** used = nullptr);

  // What the first call of p on d chooses, before it compiles: lookup(), then, below
  // tuned_for_model (exact or same_model), an online tuning where it is on, and the record of a
  // pending problem where it still is below. run() calls it once per (device, problem shape); it needs a GPU only to tune.
  // Never fails because recording or tuning did (they are logged on stderr instead).
  FamilyChoice first_call_choice(const DeviceInfo& d, const Problem& p);
  // Writes the pending calls counted since the last write. Done at each first call of a shape
  // and when the dispatcher is destroyed (at exit for the library's own): a program that runs
  // for days may call it now and then; a crash loses at most the calls since the last write.
  void flush_records();
  // Where pending problems go: "database", the side file's path, or "" (recording off or
  // impossible).
  std::string records_to() const;
  bool tunes_online() const { return tune_online_; }

  const std::string& db_path() const { return db_path_; }
  bool has_database() const { return db_ != nullptr; }
  bool strict() const { return strict_; }
  KernelCache& cache() { return cache_; }

 private:
  struct Resolved {
    FamilyChoice choice;
    std::unique_ptr<PreparedLaunch> launch;
    std::atomic<std::uint64_t>* calls = nullptr;  // the recorder's, when this shape is pending
  };
  struct FirstCall {
    FamilyChoice choice;
    Restriction fits;  // the choice's check on the problem and device: resolve() refuses on it
    std::atomic<std::uint64_t>* calls = nullptr;
  };
  void open_database(bool read_only);
  FirstCall first_call(const DeviceInfo& d, const Problem& p);
  FamilyChoice tune_online(const DeviceInfo& d, const Problem& p, FamilyChoice untuned);
  const Resolved& resolve(int ordinal, const Problem& p);
  // The device at `ordinal`, queried once per process (memo_mutex_).
  DeviceInfo device_info(int ordinal);
  // The memo's entry for (ordinal, p), resolved on first use (refused while capturing).
  const Resolved& resolved(int ordinal, const Problem& p, bool capturing);
  // The current device, once the stream and the levels are checked for it; throws
  // Error(invalid_argument) naming p. `capturing` receives whether the stream captures.
  int checked_device(const Problem& p, cudaStream_t stream, bool& capturing) const;
  // The 64-bit counts' add kernel on a device, loaded on first use (refused while capturing).
  Kernel counts64_kernel(int ordinal, bool capturing);
  Kernel load_kernel(const KernelFamily& f, const CompileRequest& req, const Problem& p);

  std::string db_path_;
  std::string db_error_;  // why the file at db_path_ could not be used, when it could not
  bool strict_ = false;
  std::unique_ptr<db::Database> db_;
  mutable std::mutex db_mutex_;  // one SQLite connection: one lookup at a time
  std::unique_ptr<CallRecorder> recorder_;  // after db_: flushes into it when destroyed
  bool tune_online_ = false;
  std::size_t tune_budget_ = 0;
  std::mutex tune_mutex_;  // one online tuning at a time: the GPU is timed
  std::atomic<bool> said_no_tuner_{false};
  // The warm path: a call whose (device, problem shape) was seen before takes the shared lock,
  // finds the prepared launch and launches it: no database query, no string, no restriction
  // check.
  mutable std::shared_mutex memo_mutex_;
  std::map<int, DeviceInfo> devices_;
  std::map<std::pair<int, ShapeKey>, std::unique_ptr<Resolved>> resolved_;  // never erased
  std::map<int, Kernel> counts64_kernels_;  // per device ordinal, under memo_mutex_
  KernelCache cache_;
};

// One line on stderr for the first call of a (device, problem), as $HISTTUNE_LOG says: by
// default only when the lookup skipped stored rows or used an unverified one (see
// Dispatcher::run); `summary` and `detail` are the choice's.
void log_first_call(const Problem& p, const DeviceInfo& d, const std::string& summary,
                    const std::string& detail, bool unverified);

// The argument checks of Dispatcher::run that need no device: the problem (bins, n, bounds:
// finite, ordered, exact), null and misaligned pointers (p.d_levels too, for range binning with
// n > 0, p.d_offsets for segmented problems with rows, p.d_weights for weighted problems with
// n > 0; d_counts aligned to bin_bytes(p)). Empty when valid, else the reason.
std::string check_arguments(const Problem& p, const void* d_samples, const void* d_counts);
// How the dispatcher refuses a call: Error(invalid_argument, "histtune: <p.describe()>: why").
Error refused(const Problem& p, const std::string& why);
// The same for 64-bit counts: every family but the weighted ones, at most kMaxSamples64 samples
// (n, or n x channels), d_counts aligned to 8 bytes; the problem is validated as its first chunk
// (count64_chunk_problem: kCount64Chunk at most), so the 32-bit counts' limit on n does not
// apply, and a batched or pitched call's rows as a whole.
std::string check_arguments64(const Problem& p, const void* d_samples,
                              const std::uint64_t* d_counts);

// Range binning with n > 0: whether p.d_levels is memory the current device `current_device` can
// read (device or managed memory of any device it may address, or mapped pinned host memory), by
// cudaPointerGetAttributes; empty when it is, else the reason. Pageable host memory is refused.
// The levels' order is not checked (that would need a synchronisation): unsorted levels give
// unspecified counts, never an out-of-bounds access. Other binnings: always empty. No
// synchronisation; made on every call, stream capture included. Segmented problems with rows:
// p.d_offsets likewise; weighted problems with n > 0: p.d_weights likewise.
std::string check_levels(const Problem& p, int current_device);

// Whether `stream` may carry a launch for device `current_device`: empty when it may, else the
// reason. The legacy and per-thread default streams always may. Any other must belong to
// that device (cudaStreamGetDevice); this is checked only when the stream is not capturing,
// since querying a capturing stream's device is not capture-safe on every driver. `capturing`
// receives whether it is. No synchronisation, legal during capture.
std::string check_stream(cudaStream_t stream, int current_device, bool& capturing);

}  // namespace histtune
