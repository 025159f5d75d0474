#include "histtune/dispatcher.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/db/database.hpp"
#include "log.hpp"
#include "lookup.hpp"
#include "histtune/version.hpp"

namespace histtune {

const char* to_string(LookupLevel level) {
  switch (level) {
    case LookupLevel::exact: return "exact";
    case LookupLevel::same_model: return "same_model";
    case LookupLevel::nearest_shape: return "nearest_shape";
    case LookupLevel::same_arch: return "same_arch";
    case LookupLevel::builtin_default: return "default";
  }
  return "?";
}

Toolchain current_toolchain(const DeviceInfo& d, Family f) {
  return Toolchain{d.driver_version, nvrtc_version(), family(f).template_hash(), version()};
}

// ---- logging ---------------------------------------------------------------------------------

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

namespace {

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && (!std::strcmp(v, "1") || !std::strcmp(v, "on") || !std::strcmp(v, "true"));
}

}  // namespace

// ---- the dispatcher --------------------------------------------------------------------------

Dispatcher::Dispatcher(std::optional<std::string> db_path)
    : Dispatcher(DispatcherOptions{std::move(db_path), std::nullopt}) {}

Dispatcher::Dispatcher(const DispatcherOptions& options) {
  strict_ = options.strict ? *options.strict : env_on("HISTTUNE_STRICT");
  tune_online_ = !options.read_only && (options.tune ? *options.tune : env_on("HISTTUNE_TUNE"));
  tune_budget_ = options.tune_budget;
  // $HISTTUNE_DB first, then the default location.
  db_path_ = options.db_path ? *options.db_path : db::Database::default_path();
  open_database(options.read_only);
  const bool record = options.record ? *options.record : record_from_env();
  if (record && !options.read_only && db_path_ != ":memory:")
    recorder_ = std::make_unique<CallRecorder>(db_.get(), db::pending_file_path(db_path_));
}

// A missing file is no database, unless online tuning is on: that stores its winners.
void Dispatcher::open_database(bool read_only) {
  std::error_code ec;
  if (db_path_ == ":memory:" || (!std::filesystem::exists(db_path_, ec) && !tune_online_)) return;
  try {
    if (read_only) {
      db_ = std::make_unique<db::Database>(db_path_, db::Database::OpenMode::kReadOnly);
      return;
    }
    db_ = std::make_unique<db::Database>(db_path_);
    cache_.set_store(db_.get());  // a first call in a new process loads instead of compiling
  } catch (const std::exception& e) {
    db_error_ = e.what();
    std::fprintf(stderr, "histtune: ignoring the tuning database, using defaults: %s\n", e.what());
  }
}

Dispatcher::~Dispatcher() = default;  // recorder_ goes first and flushes into db_

void Dispatcher::flush_records() {
  if (recorder_) recorder_->flush();
}

std::string Dispatcher::records_to() const { return recorder_ ? recorder_->destination() : ""; }

Dispatcher::FirstCall Dispatcher::first_call(const DeviceInfo& d, const Problem& p) {
  FirstCall out{lookup(d, p), {}, nullptr};
  if (!tuned_for_model(out.choice.level) && tune_online_)
    out.choice = tune_online(d, p, std::move(out.choice));
  // A stored configuration passed the restrictions in the lookup; the default is checked here,
  // since no configuration may fit at all (too many bins for shared memory). A problem that
  // cannot run (resolve() refuses it) is not worth recording for tuning.
  out.fits = out.choice.family->check(out.choice.config, p, d);
  if (!tuned_for_model(out.choice.level) && recorder_ && out.fits.holds())
    out.calls = recorder_->first_call(d, p, out.choice.level);
  else if (recorder_)
    recorder_->flush();  // what earlier shapes counted since the last first call
  return out;
}

FamilyChoice Dispatcher::first_call_choice(const DeviceInfo& d, const Problem& p) {
  return first_call(d, p).choice;
}

FamilyChoice Dispatcher::lookup(const DeviceInfo& d, const Problem& p) const {
  return graded_lookup(LookupSource{db_.get(), &db_mutex_, strict_, db_path_, db_error_}, d, p);
}

Choice Dispatcher::explain(const DeviceInfo& d, const Problem& p) const {
  return typed_choice<Hist1DFamily>(lookup(d, p));
}

MultiChannelChoice Dispatcher::explain_multichannel(const DeviceInfo& d, const Problem& p) const {
  return typed_choice<MultiChannelFamily>(lookup(d, p));
}

void log_first_call(const Problem& p, const DeviceInfo& d, const std::string& summary,
                    const std::string& detail, bool unverified) {
  const bool skipped_rows = detail.find("; skipped") != std::string::npos;
  if (log_level() >= 2 || (log_level() >= 1 && (unverified || skipped_rows)))
    std::fprintf(stderr, "histtune: %s on %s (GPU %d): %s; %s\n", p.describe().c_str(),
                 d.name.c_str(), d.ordinal, summary.c_str(), detail.c_str());
}

// The kernel of `req`: from this process's cache, else the CUBIN store or NVRTC (said on stderr
// when NVRTC compiled it).
Kernel Dispatcher::load_kernel(const KernelFamily& f, const CompileRequest& req,
                               const Problem& p) {
  if (cache_.contains(req)) return cache_.get(req, f.kernel_name());
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
  return cache_.load(req, image, f.kernel_name());
}

DeviceInfo Dispatcher::device_info(int ordinal) {
  std::unique_lock<std::shared_mutex> lock(memo_mutex_);
  auto it = devices_.find(ordinal);
  if (it == devices_.end()) it = devices_.emplace(ordinal, query_device(ordinal)).first;
  return it->second;
}

const Dispatcher::Resolved& Dispatcher::resolve(int ordinal, const Problem& p) {
  const DeviceInfo d = device_info(ordinal);
  auto fresh = std::make_unique<Resolved>();
  FirstCall first = first_call(d, p);
  fresh->choice = std::move(first.choice);
  fresh->calls = first.calls;
  const KernelFamily& f = *fresh->choice.family;
  const ParamValues& c = fresh->choice.config;
  if (!first.fits.holds())
    throw Error(StatusCode::invalid_argument, "histtune: " + p.describe() + " cannot run in the " +
                                                  f.name() + " family on " + d.name + ": " +
                                                  first.fits.message());
  const Kernel k = load_kernel(f, f.request(c, p, d.arch()), p);
  fresh->launch = f.prepare(cache_, k, c, p, d);
  const FamilyChoice& ch = fresh->choice;
  log_first_call(p, d, ch.summary(), ch.detail, ch.unverified);

  std::unique_lock<std::shared_mutex> lock(memo_mutex_);
  // Two threads may resolve the same key at once; the first one stored is kept.
  return *resolved_.emplace(std::make_pair(ordinal, shape_key(p)), std::move(fresh)).first->second;
}

Error refused(const Problem& p, const std::string& why) {
  return Error(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
}

int Dispatcher::checked_device(const Problem& p, cudaStream_t stream, bool& capturing) const {
  const int ordinal = current_device();
  if (std::string why = check_stream(stream, ordinal, capturing); !why.empty())
    throw refused(p, why);
  if (std::string why = check_levels(p, ordinal); !why.empty()) throw refused(p, why);
  return ordinal;
}

const Dispatcher::Resolved& Dispatcher::resolved(int ordinal, const Problem& p, bool capturing) {
  {
    std::shared_lock<std::shared_mutex> lock(memo_mutex_);
    auto it = resolved_.find(std::make_pair(ordinal, shape_key(p)));
    if (it != resolved_.end()) {  // entries are never erased
      const Resolved& r = *it->second;
      if (r.calls) r.calls->fetch_add(1, std::memory_order_relaxed);  // a pending shape: counted
      return r;
    }
  }
  if (capturing)
    throw refused(p, "first call on GPU " + std::to_string(ordinal) +
                         " made during stream capture; it loads a kernel and sets its shared "
                         "memory limit, which capture does not allow: make one call outside the "
                         "capture first");
  return resolve(ordinal, p);
}

Status Dispatcher::run(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                       cudaStream_t stream, const FamilyChoice** used) {
  try {
    if (std::string why = check_arguments(p, d_samples, d_counts); !why.empty())
      throw refused(p, why);
    bool capturing = false;
    const int ordinal = checked_device(p, stream, capturing);
    const Resolved& res = resolved(ordinal, p, capturing);
    // The bounds, levels and pitch are passed here; the key holds what the kernel depends on.
    (*res.launch)(p, d_samples, d_counts, stream);
    if (used) *used = &res.choice;
    return Status();
  } catch (const Error& e) {
    return Status(e.code(), e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::internal, e.what());
  }
}

Status Dispatcher::run(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                       cudaStream_t stream, Choice* used) {
  const FamilyChoice* c = nullptr;
  Status s = run(p, d_samples, d_counts, stream, &c);
  if (used && c && c->family->id() == Family::hist1d) *used = typed_choice<Hist1DFamily>(*c);
  return s;
}

}  // namespace histtune
