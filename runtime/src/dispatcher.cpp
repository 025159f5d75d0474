#include "histtune/dispatcher.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "histtune/detail/cuda_check.hpp"

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

CompileRequest hist1d_request(const Hist1DConfig& c, const Problem& p, int arch) {
  return CompileRequest{hist1d::kTemplate, hist1d::defines(c, p), arch, c.label()};
}

void launch_hist1d(KernelCache& cache, const Kernel& k, const Hist1DConfig& c, const Problem& p,
                   const DeviceInfo& d, const void* d_samples, std::uint32_t* d_counts,
                   cudaStream_t stream) {
  const LaunchGeometry g = hist1d::geometry(c, p, d);
  cache.ensure_smem(k, d.ordinal, g.smem_bytes);
  // A single block stores every count itself; everything else adds to zeroed counts.
  if (!c.single_block || p.n == 0)
    HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * p.num_bins, stream));
  if (p.n == 0) return;
  const void* samples = d_samples;
  unsigned long long n = p.n;
  unsigned int num_bins = p.num_bins;
  unsigned int row_stride = g.row_stride;
  long long lower_i = static_cast<long long>(p.lower);
  unsigned long long range_i = static_cast<unsigned long long>(p.upper - p.lower);
  // The kernel divides by range_i through this reciprocal (see ht_bin_of).
  unsigned long long recip_i = range_i ? ~0ull / range_i : 0;
  float lower_f = static_cast<float>(p.lower);
  float upper_f = static_cast<float>(p.upper);
  // The host reference computes the same float scale the same way.
  float scale_f = static_cast<float>(p.num_bins) / (upper_f - lower_f);
  unsigned int* counts = d_counts;
  void* args[] = {&samples, &n,       &num_bins, &row_stride, &lower_i, &range_i,
                  &recip_i, &lower_f, &upper_f,  &scale_f,    &counts};
  if (c.cluster > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(g.grid);
    cfg.blockDim = dim3(g.block);
    cfg.dynamicSmemBytes = g.smem_bytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(c.cluster);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    HT_CUDA(cudaLaunchKernelExC(&cfg, k.func(), args));
  } else {
    HT_CUDA(cudaLaunchKernel(k.func(), dim3(g.grid), dim3(g.block), args, g.smem_bytes, stream));
  }
}

Dispatcher::Dispatcher(std::optional<std::string> db_path) {
  if (db_path) {
    db_path_ = *db_path;
  } else {
    db_path_ = db::Database::default_path();  // $HISTTUNE_DB first, then the default location
  }
  std::error_code ec;
  if (db_path_ == ":memory:" || !std::filesystem::exists(db_path_, ec)) return;  // no database
  try {
    db_ = std::make_unique<db::Database>(db_path_);
    cache_.set_store(db_.get());  // a first call in a new process loads instead of compiling
  } catch (const std::exception& e) {
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
  return w.config_label + " tuned on " + w.device.name + " (" + w.device.uuid + ") for bins=" +
         std::to_string(w.problem.num_bins) + " n=" + std::to_string(w.problem.n);
}

// The nearest candidate whose configuration parses and passes the family's restrictions for
// this problem on this device; rows that fail are skipped (and said so in `skipped`).
std::optional<Choice> nearest(std::vector<db::WinnerRow> rows, const Problem& p,
                              const DeviceInfo& d, LookupLevel level, std::string& skipped) {
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return shape_distance(a.problem, p) < shape_distance(b.problem, p);
  });
  for (const auto& w : rows) {
    auto c = Hist1DConfig::parse(w.config_label);
    std::string why = c ? hist1d::check(*c, p, d) : "unparsable label";
    if (why.empty()) return Choice{*c, level, where(w) + skipped};
    skipped += "; skipped " + w.config_label + ": " + why;
  }
  return std::nullopt;
}

}  // namespace

Choice Dispatcher::explain(const DeviceInfo& d, const Problem& p) const {
  std::string skipped;
  if (db_) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      const db::ProblemRow key = p.key();
      if (auto w = db_->winner(d.uuid, key)) {
        if (auto c = nearest({*w}, p, d, LookupLevel::exact, skipped)) return *c;
      }
      auto like = db_->winners_like(d.uuid, key);
      if (auto c = nearest(like, p, d, LookupLevel::nearest_shape, skipped)) return *c;
      auto arch = db_->winners_same_arch(d.cc_major, d.cc_minor, d.uuid, key);
      if (auto c = nearest(arch, p, d, LookupLevel::same_arch, skipped)) return *c;
    } catch (const std::exception& e) {
      skipped += std::string("; database lookup failed: ") + e.what();
    }
  }
  Choice c{hist1d::default_for(p, d), LookupLevel::builtin_default,
           db_ ? "nothing tuned for this problem" + skipped : "no tuning database at " + db_path_};
  return c;
}

const DeviceInfo& Dispatcher::device(int ordinal) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = devices_.find(ordinal);
  if (it == devices_.end()) it = devices_.emplace(ordinal, query_device(ordinal)).first;
  return it->second;
}

Status Dispatcher::run(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                       cudaStream_t stream, Choice* used) {
  try {
    if (std::string why = validate(p); !why.empty())
      return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
    if (d_counts == nullptr)
      return Status(StatusCode::invalid_argument, "histtune: d_counts is null");
    if (d_samples == nullptr && p.n > 0)
      return Status(StatusCode::invalid_argument,
                    "histtune: d_samples is null with n = " + std::to_string(p.n));
    const int ordinal = current_device();
    const MemoKey key{ordinal, static_cast<int>(p.sample_type), static_cast<int>(p.binning),
                      p.num_bins, p.n};
    const Resolved* res = nullptr;  // map nodes are stable: safe to use after the lock
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = resolved_.find(key);
      if (it != resolved_.end()) res = &it->second;
    }
    const DeviceInfo& d = device(ordinal);
    if (!res) {
      Resolved fresh;
      fresh.choice = explain(d, p);
      if (std::string why = hist1d::check(fresh.choice.config, p, d); !why.empty())
        return Status(StatusCode::invalid_argument,
                      "histtune: " + p.describe() + " cannot run in the hist1d family on " +
                          d.name + ": " + why);
      fresh.kernel = cache_.get(hist1d_request(fresh.choice.config, p, d.arch()), hist1d::kKernel);
      std::lock_guard<std::mutex> lock(mutex_);
      res = &resolved_.emplace(key, fresh).first->second;
    }
    const Choice& choice = res->choice;
    launch_hist1d(cache_, res->kernel, choice.config, p, d, d_samples, d_counts, stream);
    if (used) *used = choice;
    return Status();
  } catch (const Error& e) {
    return Status(e.code(), e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::internal, e.what());
  }
}

}  // namespace histtune
