// The dispatcher: looks the winner up for (device, problem), graded, and launches it. It always
// launches something correct: with no database, or nothing tuned, the built-in default.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>

#include "histtune/device.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_args.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/problem.hpp"
#include "histtune/status.hpp"
#include "histtune/two_phase.hpp"

namespace histtune {

// How a configuration was found, best first.
enum class LookupLevel {
  exact,            // tuned for this device and exactly this problem
  nearest_shape,    // tuned on this device for the nearest n and bins (log space), same type
  same_arch,        // tuned on another device of the same compute capability
  builtin_default,  // nothing usable in the database
};
const char* to_string(LookupLevel level);

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

// What runs now, against which stored results are judged (see Dispatcher::explain).
struct Toolchain {
  int driver_version = 0;  // cudaDriverGetVersion; 0 = unknown, not compared
  std::string nvrtc_version;
  std::string template_hash;  // of the family's kernel template
  std::string histtune_version;
};
// The toolchain of this process for a call on `d` (the driver version is d's) in `family`
// ("hist1d" or "multichannel": whose template hash).
Toolchain current_toolchain(const DeviceInfo& d, const std::string& family = hist1d::kFamily);

struct DispatcherOptions {
  // Database location, in order: this path if given, else $HISTTUNE_DB (when set and not
  // empty), else $XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db.
  std::optional<std::string> db_path;
  // Skip stored results recorded under another driver, NVRTC or histtune version instead of
  // using them unverified. Unset: $HISTTUNE_STRICT=1 turns it on.
  std::optional<bool> strict;
};

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
  Choice explain(const DeviceInfo& d, const Problem& p) const;

  // The same graded lookup for a multi-channel problem (family "multichannel"), with the same
  // stale-row rules and restriction checks. Candidates at every level have the same sample type,
  // binning, channels and active channels as `p` (the kernel is compiled for the channel count,
  // channels_per_block must divide it, and the active channels set the grid): nearest_shape is
  // the nearest rows and bins in log space, as in 1D.
  MultiChannelChoice explain_multichannel(const DeviceInfo& d, const Problem& p) const;

  // Checks the arguments, looks up, zeroes d_counts and launches on `stream`, which must belong to
  // the current device. Nothing is synchronised. `used`, when given, receives the choice.
  // Bad arguments return invalid_argument before anything is launched (see check_arguments).
  //
  // The first call for a (device, problem) resolves it: lookup, compile or load, shared-memory
  // limit. Later calls are a map lookup and the launch, with no allocation, synchronisation or
  // attribute change, so they may be captured into a CUDA graph. A first call on a capturing
  // stream is refused (invalid_argument): make one call outside the capture first.
  // Thread-safe; one dispatcher may serve many threads and streams.
  Status run(const Problem& p, const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream,
             Choice* used = nullptr);

  const std::string& db_path() const { return db_path_; }
  bool has_database() const { return db_ != nullptr; }
  bool strict() const { return strict_; }
  KernelCache& cache() { return cache_; }

 private:
  struct Resolved;
  const Resolved& resolve(int ordinal, const Problem& p);

  std::string db_path_;
  std::string db_error_;  // why the file at db_path_ could not be used, when it could not
  bool strict_ = false;
  std::unique_ptr<db::Database> db_;
  mutable std::mutex db_mutex_;  // one SQLite connection: one lookup at a time
  // The warm path: a call whose (device, problem) was seen before takes the shared lock, finds
  // the prepared launch and launches it: no database query, no string, no restriction check.
  mutable std::shared_mutex memo_mutex_;
  std::map<int, DeviceInfo> devices_;
  // device, type, binning, bins, n, and even_narrow(p): the call's bounds choose that kernel
  // variant, so a shape called with other bounds may need the other one.
  using MemoKey = std::tuple<int, int, int, std::uint32_t, std::uint64_t, bool>;
  static MemoKey memo_key(int ordinal, const Problem& p);
  std::map<MemoKey, std::unique_ptr<Resolved>> resolved_;  // entries are never erased
  KernelCache cache_;
};

// One line on stderr for the first call of a (device, problem), as $HISTTUNE_LOG says: by
// default only when the lookup skipped stored rows or used an unverified one (see
// Dispatcher::run); `summary` and `detail` are the choice's.
void log_first_call(const Problem& p, const DeviceInfo& d, const std::string& summary,
                    const std::string& detail, bool unverified);

// The argument checks of Dispatcher::run that need no device: the problem (bins, n, bounds:
// finite, ordered, exact), null and misaligned pointers (p.d_levels too, for range binning with
// n > 0). Empty when valid, else the reason.
std::string check_arguments(const Problem& p, const void* d_samples, const void* d_counts);

// Range binning with n > 0: whether p.d_levels is memory the current device `current_device` can
// read (device or managed memory of any device it may address, or mapped pinned host memory), by
// cudaPointerGetAttributes; empty when it is, else the reason. Pageable host memory is refused.
// The levels' order is not checked (that would need a synchronisation): unsorted levels give
// unspecified counts, never an out-of-bounds access. Other binnings: always empty. No
// synchronisation; made on every call, stream capture included.
std::string check_levels(const Problem& p, int current_device);

// Whether `stream` may carry a launch for device `current_device`: empty when it may, else the
// reason. The legacy and per-thread default streams always may. Any other must belong to
// that device (cudaStreamGetDevice); this is checked only when the stream is not capturing,
// since querying a capturing stream's device is not capture-safe on every driver. `capturing`
// receives whether it is. No synchronisation, legal during capture.
std::string check_stream(cudaStream_t stream, int current_device, bool& capturing);

using Hist1DArgs = KernelArgs;  // kernel_args.hpp: both families take the same list

// The launch of the 1D kernel `k` built for (c, p) on `d`, prepared once per problem shape:
// geometry computed, the kernel's shared-memory limit raised (a CUDA attribute call: not legal
// during capture, hence here). Calling it with a problem of that shape (same sample type,
// binning, bins and n; the even bounds may differ) zeroes the counts when the kernel adds to them
// and launches (a two-phase configuration: its partials' buffer, the kernel, the reduction, the
// buffer freed, all stream-ordered); all legal under stream capture.
class Hist1DLaunch {
 public:
  Hist1DLaunch() = default;
  Hist1DLaunch(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
               const DeviceInfo& d);
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                  cudaStream_t stream) const;
  // The kernel's arguments for one call, for a bare cudaLaunchKernel (the overhead benchmark).
  Hist1DArgs args(const Problem& p, const void* d_samples, std::uint32_t* d_counts) const;
  const Kernel& kernel() const { return kernel_; }
  const LaunchGeometry& geometry() const { return geometry_; }
  bool zeroes_counts() const { return zero_counts_; }
  // Two-phase: a call is more than one kernel (args() alone does not make one).
  bool two_phase() const { return two_phase_; }

 private:
  void launch_kernel(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                     cudaStream_t stream) const;
  Kernel kernel_;
  LaunchGeometry geometry_;
  int cluster_ = 1;
  bool zero_counts_ = true;
  bool two_phase_ = false;
  two_phase::Reducer reducer_;
};

// Hist1DLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream): prepares and launches in one
// call (no lookup), for one-off launches (the GPU tests). The tuner, `compare` and the dispatcher
// each prepare a Hist1DLaunch once per shape and call it, so what is timed is what users get.
void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream);

// The compile request for (c, p) on architecture `arch`.
CompileRequest hist1d_request(const Hist1DConfig& c, const Problem& p, int arch);

}  // namespace histtune
