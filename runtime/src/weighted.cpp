#include "histtune/weighted.hpp"

#include <algorithm>
#include <cmath>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/kernel_args.hpp"
#include "histtune/two_phase.hpp"
#include "restrictions.hpp"

namespace histtune {
namespace weighted {

namespace {
// Param<C> of WeightedConfig's int member M, for C the struct or DeterministicConfig.
template <class C, int WeightedConfig::*M>
Param<C> field(const char* name, const char* key, std::vector<int> values) {
  return {name, key, std::move(values), true, [](const C& c) { return c.*M; },
          [](C& c, int v) { c.*M = v; }};
}
}  // namespace

template <class C>
const std::vector<Param<C>>& params() {
  using W = WeightedConfig;
  static const std::vector<Param<C>> table = {
      field<C, &W::block_threads>("block_threads", "tpb", {256, 128, 512, 1024}),
      field<C, &W::items_per_thread>("items_per_thread", "ipt", {8, 4, 16, 2}),
      field<C, &W::private_copies>("private_copies", "pc", {1, 2, 4, 8, 0}),
      field<C, &W::blocks_per_sm>("blocks_per_sm", "bps", {2, 1, 4, 8}),
  };
  return table;
}
template const std::vector<Param<WeightedConfig>>& params<WeightedConfig>();
template const std::vector<Param<DeterministicConfig>>& params<DeterministicConfig>();

std::vector<WeightedConfig> space() { return params::space(params<WeightedConfig>()); }

std::size_t acc_bytes(const Problem& p) {
  return p.family == Family::weighted && p.weight_type == WeightType::f32 ? 4 : 8;
}

namespace {

// Private copies from this many bins may be 0 (atomics on the output); below, copies fit and win.
constexpr std::uint32_t kGlobalBinsFrom = 16384;

// Every channel of a copy keeps a sink after its bins: samples in no bin add there instead of
// branching.
unsigned int hist_stride(const Problem& p) { return p.num_bins + 1; }

// One private copy: every active channel's bins and sink.
std::size_t copy_bytes(const Problem& p) {
  return std::size_t{hist_stride(p)} * p.active_channels * acc_bytes(p);
}

// The grid's y: rows at once (CUDA's limit on y; a block walks the rows beyond it).
constexpr std::uint64_t kMaxGridY = 65535;

}  // namespace

Restriction check(const WeightedConfig& c, const Problem& p, const DeviceInfo& d) {
  if (Restriction r = params::check_values(params<WeightedConfig>(), c); !r.holds()) return r;
  if (p.family != Family::weighted && p.family != Family::weighted_det)
    return Restriction::rule("the weighted family runs weighted problems only");
  const int warps = c.block_threads / 32;
  if (c.private_copies > warps)
    return Restriction::rule("private_copies > warps per block (" + std::to_string(warps) + ")");
  if (c.private_copies == 0 && p.num_bins < kGlobalBinsFrom &&
      copy_bytes(p) + range_smem_bytes(p) <= d.smem_per_block_optin)
    return Restriction::rule("atomics on the output (private_copies 0) are for " +
                             std::to_string(kGlobalBinsFrom) +
                             " bins or more, or a histogram beyond shared memory");
  return check_residency(c.block_threads, c.blocks_per_sm, geometry(c, p, d).smem_bytes, d);
}

WeightedGeometry geometry(const WeightedConfig& c, const Problem& p, const DeviceInfo& d) {
  WeightedGeometry g;
  g.block = static_cast<unsigned>(c.block_threads);
  g.hist_stride = hist_stride(p);
  g.smem_bytes = static_cast<std::size_t>(c.private_copies) * copy_bytes(p) + range_smem_bytes(p);
  // Each row gets blocks for its mean length, the grid as a whole about what is resident.
  const std::uint64_t rows = std::max<std::uint64_t>(histograms(p), 1);
  const std::uint64_t row_n = form(p) == WeightedForm::segments ? p.n / rows : p.n;
  const auto y = static_cast<unsigned>(std::min(rows, kMaxGridY));
  const std::uint64_t resident =
      std::uint64_t{static_cast<unsigned>(std::max(d.sm_count, 1))} * c.blocks_per_sm;
  const std::uint64_t x =
      std::min<std::uint64_t>(striding_grid(c.block_threads, c.items_per_thread,
                                            c.blocks_per_sm, row_n, d),
                              (resident + y - 1) / y);
  g.grid = dim3(static_cast<unsigned>(std::max<std::uint64_t>(x, 1)), y);
  return g;
}

WeightedConfig default_for(const Problem& p, const DeviceInfo& d) {
  WeightedConfig c;
  if (copy_bytes(p) + range_smem_bytes(p) > d.smem_per_block_optin) c.private_copies = 0;
  // Histograms of more than a quarter of an SM's shared memory leave room for one block.
  if (d.smem_per_sm > 0 && copy_bytes(p) * 4 > d.smem_per_sm) c.blocks_per_sm = 1;
  if (check(c, p, d).holds()) return c;
  WeightedConfig plain;  // check() says why when it does not hold either
  plain.private_copies = c.private_copies;
  plain.blocks_per_sm = 1;
  return plain;
}

CompileRequest request(const WeightedConfig& c, const Problem& p, int arch) {
  std::vector<std::string> defs = params::defines(params<WeightedConfig>(), c);
  params::set_define(defs, "HT_BLOCKS_PER_SM", launch_bounds_blocks(c.block_threads, c.blocks_per_sm));
  defs.push_back("-DHT_HIST_STRIDE=" + std::to_string(hist_stride(p)));
  for (auto& s : sample_defines(p)) defs.push_back(std::move(s));
  static const char* weight_names[] = {"float", "float", "double", "int", "long long"};
  defs.push_back(std::string("-DHT_WEIGHT_T=") + weight_names[static_cast<int>(p.weight_type)]);
  int acc = 2;  // integer weights
  if (p.family == Family::weighted_det)
    acc = 3;
  else if (p.weight_type == WeightType::f32)
    acc = 0;
  else if (p.weight_type == WeightType::f64)
    acc = 1;
  defs.push_back("-DHT_ACC=" + std::to_string(acc));
  if (acc == 3 && p.weight_type == WeightType::f64) defs.push_back("-DHT_OUT_DOUBLE=1");
  if (form(p) == WeightedForm::segments) defs.push_back("-DHT_SEGMENTED=1");
  if (form(p) != WeightedForm::channels) defs.push_back("-DHT_ONE_CHANNEL=1");
  return CompileRequest{kTemplate, defs, arch, c.label()};
}

int fixed_shift(double bound, std::uint64_t n) {
  int e = 0;
  if (bound > 0) std::frexp(bound, &e);
  int lg = 0;
  while (lg < 64 && (std::uint64_t{1} << lg) < n) ++lg;
  return 62 - e - lg;
}

std::uint64_t weights_offset(const Problem& p) {
  return (p.total_samples() * sample_bytes(p.sample_type) + 255) / 256 * 256;
}

}  // namespace weighted

// ---- the prepared launch ---------------------------------------------------------------------

WeightedLaunch::WeightedLaunch(KernelCache& cache, const Kernel& k, const WeightedConfig& c,
                               const Problem& p, const DeviceInfo& d)
    : kernel_(k),
      geometry_(weighted::geometry(c, p, d)),
      device_(d.ordinal),
      aux_grid_(static_cast<unsigned>(std::max(d.sm_count, 1) * 4)) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
  if (p.family == Family::weighted_det) {
    const CompileRequest req = weighted::request(c, p, d.arch());
    maxabs_ = cache.get(req, weighted::kMaxAbsKernel);
    finish_ = cache.get(req, weighted::kFinishKernel);
  }
}

namespace {

// The bins a call writes: every histogram's active channels.
std::uint64_t out_bins(const Problem& p) {
  return weighted::histograms(p) * p.active_channels * p.num_bins;
}

// Samples (and weights) from one row's first to the next's: the row stride of dense rows.
unsigned long long row_step(const Problem& p) { return p.row_stride != 0 ? p.row_stride : p.n; }

}  // namespace

void WeightedLaunch::launch_hist(const Problem& p, const void* d_samples, void* d_acc,
                                 const unsigned long long* d_max, unsigned int* d_marks,
                                 cudaStream_t stream) const {
  // The binning's scalars as the other families compute them (kernel_args.cpp).
  BinningArgs b = BinningArgs::of(p);
  const void* weights = p.d_weights;
  unsigned long long n = p.n;
  unsigned int num_bins = p.num_bins;
  const void* levels = p.d_levels;
  double bound = p.weight_bound;
  unsigned long long rows = weighted::histograms(p), stride = row_step(p);
  const void* offsets = p.d_offsets;
  unsigned long long offsets_base = p.offsets_base;
  unsigned int channels = p.channels, active = p.active_channels;
  void* args[] = {&d_samples, &weights,  &n,      &num_bins,     &b.lower_i, &b.range_i,
                  &b.recip_i, &b.lower_f, &b.upper_f, &b.scale_f, &d_acc,    &levels,
                  &bound,     &d_max,    &d_marks, &rows,         &stride,    &offsets,
                  &offsets_base, &channels, &active};
  HT_CUDA(cudaLaunchKernel(kernel_.func(), geometry_.grid, dim3(geometry_.block), args,
                           geometry_.smem_bytes, stream));
}

void WeightedLaunch::run_deterministic(const Problem& p, const void* d_samples, void* d_out,
                                       cudaStream_t stream) const {
  // The workspace: the measured bound's word, the bins' fixed-point sums, then their marks.
  unsigned long long bins = out_bins(p);
  const std::size_t sums_bytes = bins * 8;
  const std::size_t bytes = 8 + sums_bytes + bins * 4;
  auto* ws = static_cast<unsigned char*>(two_phase::allocate_workspace(bytes, device_, stream));
  try {
    auto* d_max = reinterpret_cast<unsigned long long*>(ws);
    void* d_sums = ws + 8;
    auto* d_marks = reinterpret_cast<unsigned int*>(ws + 8 + sums_bytes);
    HT_CUDA(cudaMemsetAsync(ws, 0, bytes, stream));
    unsigned long long n = p.n;
    if (n > 0 && bins > 0) {
      if (p.weight_bound == 0) {
        // The weights the call reads: dense rows' (not what lies between them), else all n.
        const bool dense = weighted::form(p) == WeightedForm::rows;
        const void* weights = p.d_weights;
        unsigned long long rows = dense ? p.rows : 1, stride = dense ? row_step(p) : n;
        void* args[] = {&weights, &n, &rows, &stride, &d_max};
        HT_CUDA(cudaLaunchKernel(maxabs_.func(), dim3(aux_grid_), dim3(256), args, 0, stream));
      }
      launch_hist(p, d_samples, d_sums, d_max, d_marks, stream);
    }
    double bound = p.weight_bound;
    void* args[] = {&d_sums, &d_marks, &bins, &n, &bound, &d_max, &d_out};
    const auto grid =
        static_cast<unsigned>(std::min<unsigned long long>(aux_grid_, (bins + 255) / 256));
    if (grid > 0)
      HT_CUDA(cudaLaunchKernel(finish_.func(), dim3(grid), dim3(256), args, 0, stream));
  } catch (...) {
    two_phase::release_workspace(ws, stream, /*quiet=*/true);
    throw;
  }
  two_phase::release_workspace(ws, stream, /*quiet=*/false);
}

void WeightedLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_out,
                                cudaStream_t stream) const {
  if (p.family == Family::weighted_det) return run_deterministic(p, d_samples, d_out, stream);
  const std::uint64_t bins = out_bins(p);
  if (bins == 0) return;
  HT_CUDA(cudaMemsetAsync(d_out, 0, bins * bin_bytes(p), stream));
  if (p.n > 0) launch_hist(p, d_samples, d_out, nullptr, nullptr, stream);
}

namespace {
const std::vector<Param<WeightedConfig>>& table() { return weighted::params<WeightedConfig>(); }
}  // namespace

bool WeightedConfig::operator==(const WeightedConfig& o) const {
  return params::equal(table(), *this, o);
}

std::string WeightedConfig::label() const {
  return params::label(table(), *this, weighted::kLabelPrefix);
}

std::optional<WeightedConfig> WeightedConfig::parse(const std::string& label) {
  return params::parse(table(), label, table().size(), weighted::kLabelPrefix);
}

std::string WeightedConfig::to_json() const { return params::json(table(), *this); }

std::string DeterministicConfig::label() const {
  return params::label(table(), WeightedConfig(*this), weighted::kDeterministicLabelPrefix);
}

std::optional<DeterministicConfig> DeterministicConfig::parse(const std::string& label) {
  const auto c = params::parse(table(), label, table().size(), weighted::kDeterministicLabelPrefix);
  if (!c) return std::nullopt;
  return DeterministicConfig{*c};
}

}  // namespace histtune
