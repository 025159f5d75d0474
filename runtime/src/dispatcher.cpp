#include "histtune/dispatcher.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/families.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

namespace histtune {

const char* to_string(LookupLevel level) {
  switch (level) {
    case LookupLevel::exact: return "exact";
    case LookupLevel::nearest_shape: return "nearest_shape";
    case LookupLevel::same_arch: return "same_arch";
    case LookupLevel::builtin_default: return "default";
  }
  return "?";
}

Toolchain current_toolchain(const DeviceInfo& d, const std::string& family) {
  const char* tmpl = family == multichannel::kFamily ? multichannel::kTemplate : hist1d::kTemplate;
  return Toolchain{d.driver_version, nvrtc_version(), templates::get(tmpl).hash, version()};
}

CompileRequest hist1d_request(const Hist1DConfig& c, const Problem& p, int arch) {
  return CompileRequest{hist1d::kTemplate, hist1d::defines(c, p), arch, c.label()};
}

// ---- arguments -------------------------------------------------------------------------------

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string address(const void* ptr) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", ptr);
  return buf;
}

}  // namespace

std::string check_arguments(const Problem& p, const void* d_samples, const void* d_counts) {
  if (p.binning == Binning::even) {
    // Said before validate(), whose "lower < upper" would be a puzzling answer for a NaN.
    if (std::isnan(p.lower) || std::isnan(p.upper))
      return "even binning needs bounds that are numbers, got lower = " + num(p.lower) +
             ", upper = " + num(p.upper);
    if (!std::isfinite(p.lower) || !std::isfinite(p.upper))
      return "even binning needs finite bounds, got lower = " + num(p.lower) +
             ", upper = " + num(p.upper);
  }
  if (std::string why = validate(p); !why.empty()) {
    if (p.binning == Binning::even && !(p.lower < p.upper))
      why += ", got lower = " + num(p.lower) + ", upper = " + num(p.upper);
    return why;
  }
  if (p.binning == Binning::even && is_float(p.sample_type)) {
    // The kernel bins in float: the bounds, their range and the scale must all be floats.
    const float lower_f = static_cast<float>(p.lower), upper_f = static_cast<float>(p.upper);
    if (!(lower_f < upper_f))
      return "even binning needs lower < upper as floats: " + num(p.lower) + " and " +
             num(p.upper) + " round to the same float";
    const float range_f = upper_f - lower_f;
    if (!std::isfinite(range_f))
      return "upper - lower = " + num(p.upper - p.lower) + " overflows float";
    if (!std::isfinite(static_cast<float>(p.num_bins) / range_f))
      return "num_bins / (upper - lower) = " + num(p.num_bins / (p.upper - p.lower)) +
             " overflows float: the range is too narrow for the bins";
  }
  if (p.binning == Binning::even && !is_float(p.sample_type)) {
    constexpr double kExact = 9007199254740992.0;  // 2^53: integers a double holds exactly
    if (std::fabs(p.lower) > kExact || std::fabs(p.upper) > kExact)
      return "even binning of integer samples needs bounds within +-2^53, got lower = " +
             num(p.lower) + ", upper = " + num(p.upper);
  }
  if (d_counts == nullptr) return "d_counts is null";
  if (d_samples == nullptr && p.n > 0) return "d_samples is null with n = " + std::to_string(p.n);
  const std::size_t bytes = sample_bytes(p.sample_type);
  if (reinterpret_cast<std::uintptr_t>(d_samples) % bytes != 0)
    return "d_samples = " + address(d_samples) + " is not aligned to its " + std::to_string(bytes) +
           "-byte " + to_string(p.sample_type) + " samples";
  if (reinterpret_cast<std::uintptr_t>(d_counts) % sizeof(std::uint32_t) != 0)
    return "d_counts = " + address(d_counts) + " is not aligned to its 4-byte counters";
  if (p.binning == Binning::range && p.n > 0) {
    if (p.d_levels == nullptr)
      return "d_levels is null with n = " + std::to_string(p.n) + " (range binning reads " +
             std::to_string(std::uint64_t{p.num_bins} + 1) + " levels)";
    if (reinterpret_cast<std::uintptr_t>(p.d_levels) % bytes != 0)
      return "d_levels = " + address(p.d_levels) + " is not aligned to its " +
             std::to_string(bytes) + "-byte " + to_string(p.sample_type) + " levels";
  }
  return {};
}

std::string check_levels(const Problem& p, int current_device) {
  if (p.binning != Binning::range || p.n == 0) return {};
  // Asked on every call, during stream capture too: the CUDA documentation names no pointer query
  // among the calls a capture prohibits (its examples allocate or synchronise; this does neither),
  // and the GpuRangeGraph tests check that a global-mode capture survives it, refusals included.
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p.d_levels);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no trace for the caller's next check
    return "cudaPointerGetAttributes(d_levels = " + address(p.d_levels) + ") failed: " +
           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  }
  switch (a.type) {
    case cudaMemoryTypeUnregistered:
      return "d_levels = " + address(p.d_levels) +
             " is host memory the GPU cannot read; copy the levels to device memory";
    case cudaMemoryTypeHost:
      if (a.devicePointer == nullptr)
        return "d_levels = " + address(p.d_levels) + " is pinned host memory not mapped for GPU " +
               std::to_string(current_device);
      return {};
    case cudaMemoryTypeDevice:
      if (a.device != current_device) {
        int ok = 0;
        if (cudaDeviceCanAccessPeer(&ok, current_device, a.device) != cudaSuccess) {
          (void)cudaGetLastError();
          ok = 0;
        }
        if (!ok)
          return "d_levels = " + address(p.d_levels) + " is memory of GPU " +
                 std::to_string(a.device) + ", which GPU " + std::to_string(current_device) +
                 " cannot read";
      }
      return {};
    default:
      return {};  // managed memory
  }
}

std::string check_stream(cudaStream_t stream, int current_device, bool& capturing) {
  capturing = false;
  // The legacy stream cannot capture (and asking it while another stream captures fails).
  if (stream == nullptr || stream == cudaStreamLegacy) return {};
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(stream, &cs);
  int stream_device = current_device;  // the per-thread stream is the current device's
#if CUDART_VERSION >= 12080  // cudaStreamGetDevice is new in 12.8; older toolkits skip the check
  if (e == cudaSuccess && cs == cudaStreamCaptureStatusNone && stream != cudaStreamPerThread)
    e = cudaStreamGetDevice(stream, &stream_device);
#endif
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no trace for the caller's next check
    return "the stream " + address(stream) + " cannot be used: " + cudaGetErrorName(e) + " (" +
           cudaGetErrorString(e) + ")";
  }
  capturing = cs != cudaStreamCaptureStatusNone;
  if (stream_device != current_device)
    return "the stream belongs to device " + std::to_string(stream_device) +
           " but the current device is " + std::to_string(current_device) +
           "; call cudaSetDevice(" + std::to_string(stream_device) +
           ") first, or pass a stream of the current device";
  return {};
}

// ---- the prepared launch ---------------------------------------------------------------------

Hist1DLaunch::Hist1DLaunch(KernelCache& cache, const Kernel& k, const Hist1DConfig& c,
                           const Problem& p, const DeviceInfo& d)
    : kernel_(k), geometry_(hist1d::geometry(c, p, d)), cluster_(c.cluster) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
  // A single block stores every count itself, a two-phase reduction stores them too; everything
  // else adds to zeroed counts. An empty input launches nothing: its counts are zeroed.
  two_phase_ = c.two_phase == 1 && p.n > 0;
  zero_counts_ = (!c.single_block && !two_phase_) || p.n == 0;
  if (two_phase_) reducer_ = two_phase::Reducer(cache, d);
}

Hist1DArgs Hist1DLaunch::args(const Problem& p, const void* d_samples,
                              std::uint32_t* d_counts) const {
  return KernelArgs::of(p, d_samples, d_counts, geometry_.row_stride);
}

void Hist1DLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                              cudaStream_t stream) const {
  if (zero_counts_)
    HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * p.num_bins, stream));
  if (p.n == 0) return;
  if (two_phase_) {
    reducer_(geometry_.grid, p.num_bins, d_counts, stream,
             [&](std::uint32_t* partials) { launch_kernel(p, d_samples, partials, stream); });
    return;
  }
  launch_kernel(p, d_samples, d_counts, stream);
}

void Hist1DLaunch::launch_kernel(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                                 cudaStream_t stream) const {
  Hist1DArgs a = args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  if (cluster_ > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(geometry_.grid);
    cfg.blockDim = dim3(geometry_.block);
    cfg.dynamicSmemBytes = geometry_.smem_bytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(cluster_);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    HT_CUDA(cudaLaunchKernelExC(&cfg, kernel_.func(), ptrs.data()));
  } else {
    HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(geometry_.grid), dim3(geometry_.block),
                             ptrs.data(), geometry_.smem_bytes, stream));
  }
}

void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  Hist1DLaunch(cache, k, c, p, d)(p, d_samples, d_counts, stream);
}

// ---- logging ---------------------------------------------------------------------------------

namespace {

// $HISTTUNE_LOG: 0 (or "off") nothing; unset or 1: one line per NVRTC compile and per lookup that
// skipped a stored row or used an unverified one; 2 (or "all"): also one line per first call of
// each (device, problem). Read once.
int log_level() {
  static const int level = [] {
    const char* v = std::getenv("HISTTUNE_LOG");
    if (!v || !*v) return 1;
    if (!std::strcmp(v, "0") || !std::strcmp(v, "off")) return 0;
    if (!std::strcmp(v, "2") || !std::strcmp(v, "all")) return 2;
    return 1;
  }();
  return level;
}

bool strict_from_env() {
  const char* v = std::getenv("HISTTUNE_STRICT");
  return v && (!std::strcmp(v, "1") || !std::strcmp(v, "on") || !std::strcmp(v, "true"));
}

}  // namespace

// ---- the dispatcher --------------------------------------------------------------------------

struct Dispatcher::Resolved {
  Choice choice;
  Hist1DLaunch launch;
};

Dispatcher::Dispatcher(std::optional<std::string> db_path)
    : Dispatcher(DispatcherOptions{std::move(db_path), std::nullopt}) {}

Dispatcher::Dispatcher(const DispatcherOptions& options) {
  strict_ = options.strict ? *options.strict : strict_from_env();
  // $HISTTUNE_DB first, then the default location.
  db_path_ = options.db_path ? *options.db_path : db::Database::default_path();
  std::error_code ec;
  if (db_path_ == ":memory:" || !std::filesystem::exists(db_path_, ec)) return;  // no database
  try {
    db_ = std::make_unique<db::Database>(db_path_);
    cache_.set_store(db_.get());  // a first call in a new process loads instead of compiling
  } catch (const std::exception& e) {
    db_error_ = e.what();
    std::fprintf(stderr, "histtune: ignoring the tuning database, using defaults: %s\n", e.what());
  }
}

Dispatcher::~Dispatcher() = default;

namespace {

double shape_distance(const db::ProblemRow& a, const Problem& b) {
  return std::fabs(std::log2(static_cast<double>(std::max<std::uint64_t>(a.n, 1))) -
                   std::log2(static_cast<double>(std::max<std::uint64_t>(b.n, 1)))) +
         std::fabs(std::log2(static_cast<double>(a.num_bins)) -
                   std::log2(static_cast<double>(b.num_bins)));
}

std::string where(const db::WinnerRow& w) {
  std::string s = w.config_label + " tuned on " + w.device.name + " (" + w.device.uuid +
                  ") for bins=" + std::to_string(w.problem.num_bins) + " n=" +
                  std::to_string(w.problem.n);
  if (w.problem.active_channels > 0)
    s += " channels=" + std::to_string(w.problem.active_channels) + "/" +
         std::to_string(w.problem.channels);
  return s;
}

// 12080 -> "12.8", as CUDA writes its versions.
std::string cuda_version_text(int v) {
  if (v <= 0) return "unrecorded";
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string text_or_unrecorded(const std::string& s) { return s.empty() ? "unrecorded" : s; }

// What differs between the toolchain a row was recorded under and `now`, the template excepted;
// empty when nothing does.
std::string staleness(const db::WinnerRow& w, const Toolchain& now) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : "; ") + what; };
  if (now.driver_version != 0 && w.device.driver_version != now.driver_version)
    add("driver " + cuda_version_text(w.device.driver_version) + " -> " +
        cuda_version_text(now.driver_version));
  if (w.device.nvrtc_version != now.nvrtc_version)
    add("NVRTC " + text_or_unrecorded(w.device.nvrtc_version) + " -> " + now.nvrtc_version);
  if (w.histtune_version != now.histtune_version)
    add("histtune " + text_or_unrecorded(w.histtune_version) + " -> " + now.histtune_version);
  return out;
}

// The nearest candidate that is not stale (see Dispatcher::explain) and whose configuration
// parses and passes the family's restrictions for this problem on this device; rows that fail
// are skipped, and said so in `skipped`.
template <class F>
std::optional<ChoiceOf<typename F::Config>> nearest(std::vector<db::WinnerRow> rows,
                                                    const Problem& p, const DeviceInfo& d,
                                                    LookupLevel level, const Toolchain& now,
                                                    bool strict, std::string& skipped) {
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return shape_distance(a.problem, p) < shape_distance(b.problem, p);
  });
  for (const auto& w : rows) {
    if (w.template_hash != now.template_hash) {
      skipped += "; skipped stale " + where(w) + ": the kernel source changed since (template " +
                 text_or_unrecorded(w.template_hash) + ", now " + now.template_hash + ")";
      continue;
    }
    const std::string stale = staleness(w, now);
    if (!stale.empty() && strict) {
      skipped += "; skipped unverified " + where(w) + " (strict): " + stale;
      continue;
    }
    auto c = F::parse(w.config_label);
    std::string why = c ? F::check(*c, p, d) : "unparsable label";
    if (why.empty()) {
      ChoiceOf<typename F::Config> out{*c, level, !stale.empty(), stale, where(w) + skipped};
      if (out.unverified) out.detail += "; unverified: recorded under " + stale;
      return out;
    }
    skipped += "; skipped " + w.config_label + ": " + why;
  }
  return std::nullopt;
}

// exact -> nearest shape on this device -> same architecture -> the family's default.
template <class F>
ChoiceOf<typename F::Config> graded_lookup(db::Database* database, std::mutex& db_mutex,
                                           bool strict, const std::string& db_path,
                                           const std::string& db_error, const DeviceInfo& d,
                                           const Problem& p) {
  std::string skipped;
  if (database) {
    try {
      const Toolchain now = current_toolchain(d, p.family);
      const db::ProblemRow key = p.key();
      std::lock_guard<std::mutex> lock(db_mutex);
      if (auto w = database->winner(d.uuid, key)) {
        if (auto c = nearest<F>({*w}, p, d, LookupLevel::exact, now, strict, skipped)) return *c;
      }
      auto like = database->winners_like(d.uuid, key);
      // The exact row, if any, was judged above: not again (nor named twice in the detail).
      like.erase(std::remove_if(like.begin(), like.end(),
                                [&](const db::WinnerRow& w) { return w.problem == key; }),
                 like.end());
      if (auto c = nearest<F>(like, p, d, LookupLevel::nearest_shape, now, strict, skipped))
        return *c;
      auto arch = database->winners_same_arch(d.cc_major, d.cc_minor, d.uuid, key);
      if (auto c = nearest<F>(arch, p, d, LookupLevel::same_arch, now, strict, skipped)) return *c;
    } catch (const std::exception& e) {
      skipped += std::string("; database lookup failed: ") + e.what();
    }
  }
  ChoiceOf<typename F::Config> c;
  c.config = F::fallback(p, d);
  c.level = LookupLevel::builtin_default;
  c.detail = database          ? "nothing usable tuned for this problem" + skipped
             : db_error.empty() ? "no tuning database at " + db_path
                                : "tuning database unusable, ignored: " + db_error;
  return c;
}

}  // namespace

Choice Dispatcher::explain(const DeviceInfo& d, const Problem& p) const {
  return graded_lookup<Hist1DFamily>(db_.get(), db_mutex_, strict_, db_path_, db_error_, d, p);
}

MultiChannelChoice Dispatcher::explain_multichannel(const DeviceInfo& d, const Problem& p) const {
  return graded_lookup<MultiChannelFamily>(db_.get(), db_mutex_, strict_, db_path_, db_error_, d,
                                           p);
}

void log_first_call(const Problem& p, const DeviceInfo& d, const std::string& summary,
                    const std::string& detail, bool unverified) {
  const bool skipped_rows = detail.find("; skipped") != std::string::npos;
  if (log_level() >= 2 || (log_level() >= 1 && (unverified || skipped_rows)))
    std::fprintf(stderr, "histtune: %s on %s (GPU %d): %s; %s\n", p.describe().c_str(),
                 d.name.c_str(), d.ordinal, summary.c_str(), detail.c_str());
}

Dispatcher::MemoKey Dispatcher::memo_key(int ordinal, const Problem& p) {
  return {ordinal, static_cast<int>(p.sample_type), static_cast<int>(p.binning), p.num_bins, p.n,
          even_narrow(p)};
}

const Dispatcher::Resolved& Dispatcher::resolve(int ordinal, const Problem& p) {
  DeviceInfo d;
  {
    std::unique_lock<std::shared_mutex> lock(memo_mutex_);
    auto it = devices_.find(ordinal);
    if (it == devices_.end()) it = devices_.emplace(ordinal, query_device(ordinal)).first;
    d = it->second;
  }
  auto fresh = std::make_unique<Resolved>();
  fresh->choice = explain(d, p);
  const Hist1DConfig& c = fresh->choice.config;
  if (std::string why = hist1d::check(c, p, d); !why.empty())
    throw Error(StatusCode::invalid_argument, "histtune: " + p.describe() +
                                                  " cannot run in the hist1d family on " + d.name +
                                                  ": " + why);
  const CompileRequest req = hist1d_request(c, p, d.arch());
  Kernel k;
  if (cache_.contains(req)) {
    k = cache_.get(req, hist1d::kKernel);
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t compiles_before = cache_.compiles();
    const CompiledKernel image = cache_.compiled(req);
    // Another thread's compile may land in between: the line may then name the wrong one of two
    // first calls, never a compile that did not happen.
    if (cache_.compiles() != compiles_before && log_level() >= 1) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "histtune: compiled %s for sm_%d (%s) in %.0f ms; %s\n",
                   req.label.c_str(), req.arch, p.describe().c_str(), ms,
                   db_ ? "stored in the tuning database for later processes"
                       : "no tuning database: kept for this process only");
    }
    k = cache_.load(req, image, hist1d::kKernel);
  }
  fresh->launch = Hist1DLaunch(cache_, k, c, p, d);
  const Choice& ch = fresh->choice;
  log_first_call(p, d, ch.summary(), ch.detail, ch.unverified);

  const MemoKey key = memo_key(ordinal, p);
  std::unique_lock<std::shared_mutex> lock(memo_mutex_);
  // Two threads may resolve the same key at once; the first one stored is kept.
  return *resolved_.emplace(key, std::move(fresh)).first->second;
}

Status Dispatcher::run(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                       cudaStream_t stream, Choice* used) {
  try {
    if (std::string why = check_arguments(p, d_samples, d_counts); !why.empty())
      return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
    if (p.family != hist1d::kFamily)
      return Status(StatusCode::invalid_argument,
                    "histtune: " + p.describe() + ": the dispatcher runs the hist1d family only");
    const int ordinal = current_device();
    bool capturing = false;
    if (std::string why = check_stream(stream, ordinal, capturing); !why.empty())
      return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
    if (std::string why = check_levels(p, ordinal); !why.empty())
      return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
    const MemoKey key = memo_key(ordinal, p);
    const Resolved* res = nullptr;  // entries are never erased: safe to use after the lock
    {
      std::shared_lock<std::shared_mutex> lock(memo_mutex_);
      auto it = resolved_.find(key);
      if (it != resolved_.end()) res = it->second.get();
    }
    if (!res) {
      if (capturing)
        return Status(StatusCode::invalid_argument,
                      "histtune: " + p.describe() + ": first call on GPU " +
                          std::to_string(ordinal) +
                          " made during stream capture; it loads a kernel and sets its shared "
                          "memory limit, which capture does not allow: make one call outside the "
                          "capture first");
      res = &resolve(ordinal, p);
    }
    // The bounds and levels are passed here; of the bounds, the key holds what the kernel does.
    res->launch(p, d_samples, d_counts, stream);
    if (used) *used = res->choice;
    return Status();
  } catch (const Error& e) {
    return Status(e.code(), e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::internal, e.what());
  }
}

}  // namespace histtune
