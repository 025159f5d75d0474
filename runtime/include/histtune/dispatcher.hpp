// The dispatcher: looks the winner up for (device, problem), graded, and launches it. It always
// launches something correct: with no database, or nothing tuned, the built-in default.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "histtune/device.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/status.hpp"

namespace histtune {

// How a configuration was found, best first.
enum class LookupLevel {
  exact,            // tuned for this device and exactly this problem
  nearest_shape,    // tuned on this device for the nearest n and bins (log space), same type
  same_arch,        // tuned on another device of the same compute capability
  builtin_default,  // nothing usable in the database
};
const char* to_string(LookupLevel level);

struct Choice {
  Hist1DConfig config;
  LookupLevel level = LookupLevel::builtin_default;
  std::string detail;  // what was matched ("device GPU-.. n=2^24 bins=256") or why it fell back
};

class Dispatcher {
 public:
  // Database location, in order: `db_path` if given, else $HISTTUNE_DB, else the default path
  // (db::Database::default_path()). A missing file means no database: defaults are used and
  // nothing is created. An unreadable database is reported once to stderr and ignored.
  explicit Dispatcher(std::optional<std::string> db_path = std::nullopt);
  ~Dispatcher();

  // The configuration that a call with `p` on device `d` would launch, and how it was found.
  // Needs no GPU: `d` may be any description.
  Choice explain(const DeviceInfo& d, const Problem& p) const;

  // Validates, looks up, zeroes d_counts and launches on `stream` (current device). Nothing is
  // synchronised. `used`, when given, receives the choice.
  Status run(const Problem& p, const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream,
             Choice* used = nullptr);

  const std::string& db_path() const { return db_path_; }
  bool has_database() const { return db_ != nullptr; }
  KernelCache& cache() { return cache_; }

 private:
  const DeviceInfo& device(int ordinal);

  std::string db_path_;
  std::unique_ptr<db::Database> db_;
  mutable std::mutex mutex_;  // guards db_ reads and the device/choice caches
  std::map<int, DeviceInfo> devices_;
  // The warm path: a call whose (device, problem) was seen before is a map lookup and a launch,
  // with no database query, no compile-key string and no restriction check.
  struct Resolved {
    Choice choice;
    Kernel kernel;
  };
  using MemoKey = std::tuple<int, int, int, std::uint32_t, std::uint64_t>;  // device, type, binning, bins, n
  std::map<MemoKey, Resolved> resolved_;
  KernelCache cache_;
};

// Zeroes d_counts and launches the 1D kernel `k` built for `c` (no lookup). Shared by the
// dispatcher and the tuner so that what is timed is exactly what users get.
void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream);

// The compile request for (c, p) on architecture `arch`.
CompileRequest hist1d_request(const Hist1DConfig& c, const Problem& p, int arch);

}  // namespace histtune
