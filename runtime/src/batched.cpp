#include "histtune/batched.hpp"

#include <algorithm>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/kernel_args.hpp"
#include "restrictions.hpp"

namespace histtune {
namespace batched {

namespace {
// Param<C> of BatchedConfig's int member M, for C the struct or SegmentedConfig (params.hpp's
// param<> takes the class that declares the member).
template <class C, int BatchedConfig::*M>
Param<C> field(const char* name, const char* key, std::vector<int> values, bool compile_time) {
  return {name, key, std::move(values), compile_time, [](const C& c) { return c.*M; },
          [](C& c, int v) { c.*M = v; }};
}
}  // namespace

template <class C>
const std::vector<Param<C>>& params() {
  using B = BatchedConfig;
  static const std::vector<Param<C>> table = {
      field<C, &B::block_threads>("block_threads", "tpb", {256, 128, 512, 1024}, true),
      field<C, &B::vectors_per_thread>("vectors_per_thread", "vpt", {2, 1, 4, 8}, true),
      field<C, &B::vector_bytes>("vector_bytes", "vec", {16, 0, 4, 8}, true),
      field<C, &B::rows_per_block>("rows_per_block", "rpb", {1, 2, 4, 8, 16, 32}, true),
      // A launch argument: one kernel serves every split of the rows.
      field<C, &B::blocks_per_row>("blocks_per_row", "bpr",
                                   {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}, false),
      field<C, &B::private_copies>("private_copies", "pc", {1, 2, 4, 8, 0}, true),
      field<C, &B::unroll>("unroll", "u", {0, 2}, true),
      field<C, &B::layout>("layout", "lay", {0, 1}, true),
  };
  return table;
}
template const std::vector<Param<BatchedConfig>>& params<BatchedConfig>();
template const std::vector<Param<SegmentedConfig>>& params<SegmentedConfig>();

std::vector<BatchedConfig> space() { return params::space(params<BatchedConfig>()); }

std::uint64_t mean_row(const Problem& p) {
  const std::uint64_t len = p.family == Family::segmented && p.rows > 0 ? p.n / p.rows : p.n;
  return std::max<std::uint64_t>(len, 1);
}

namespace {

// Private copies from this many bins may be 0 (atomics on the output); below, copies fit and win.
constexpr std::uint32_t kGlobalBinsFrom = 16384;

unsigned int hist_stride(const Problem& p) { return p.num_bins + (needs_sink(p) ? 1u : 0u); }

// One row's histogram in one copy, and the range binning's levels or table.
std::size_t one_row_bytes(const Problem& p) {
  return std::size_t{hist_stride(p)} * sizeof(std::uint32_t) + range_smem_bytes(p);
}

std::uint64_t samples_per_load(const BatchedConfig& c, const Problem& p) {
  return c.vector_bytes ? c.vector_bytes / sample_bytes(p.sample_type) : 1;
}

}  // namespace

Restriction check(const BatchedConfig& c, const Problem& p, const DeviceInfo& d) {
  if (Restriction r = params::check_values(params<BatchedConfig>(), c); !r.holds()) return r;
  if (p.family != Family::batched && p.family != Family::segmented)
    return Restriction::rule("the batched family runs batched and segmented problems only");
  const int warps = c.block_threads / 32;
  if (c.rows_per_block > warps)
    return Restriction::rule("rows_per_block > warps per block: a row takes whole warps");
  const int row_warps = warps / c.rows_per_block;
  if (c.private_copies > row_warps)
    return Restriction::rule("private_copies > a row's warps (" + std::to_string(row_warps) + ")");
  if (c.layout == 1 && c.private_copies == 0)
    return Restriction::rule("layout 1 stripes private copies: private_copies 0 keeps none");
  if (c.private_copies == 0 && p.num_bins < kGlobalBinsFrom && one_row_bytes(p) <= d.smem_per_block_optin)
    return Restriction::rule("atomics on the output (private_copies 0) are for " +
                             std::to_string(kGlobalBinsFrom) +
                             " bins or more, or a histogram beyond shared memory");
  if (c.vector_bytes != 0 && static_cast<std::size_t>(c.vector_bytes) <= sample_bytes(p.sample_type))
    return Restriction::rule("vector_bytes " + std::to_string(c.vector_bytes) +
                             " is one sample: that is vec0");
  if (c.blocks_per_row > 1 &&
      mean_row(p) < static_cast<std::uint64_t>(c.blocks_per_row) * c.block_threads /
                        c.rows_per_block * samples_per_load(c, p))
    return Restriction::rule("blocks_per_row " + std::to_string(c.blocks_per_row) +
                             " leaves a block less than one load per thread of a row of " +
                             std::to_string(mean_row(p)) + " samples");
  return check_residency(c.block_threads, 1, geometry(c, p).smem_bytes, d);
}

BatchedGeometry geometry(const BatchedConfig& c, const Problem& p) {
  BatchedGeometry g;
  g.block = static_cast<unsigned>(c.block_threads);
  g.hist_stride = hist_stride(p);
  const std::size_t words = std::size_t{static_cast<unsigned>(c.rows_per_block)} *
                            c.private_copies * g.hist_stride * (c.layout == 1 ? 32 : 1);
  g.smem_bytes = words * sizeof(std::uint32_t) + range_smem_bytes(p);
  const std::uint64_t groups = (p.rows + c.rows_per_block - 1) / c.rows_per_block;
  g.grid = static_cast<unsigned>(std::min<std::uint64_t>(groups * c.blocks_per_row, kMaxGrid));
  return g;
}

namespace {

// Threads per row: whole warps, enough for each thread to load about 4 steps of a mean row.
int row_threads(const BatchedConfig& c, const Problem& p) {
  const std::uint64_t per_step = c.vectors_per_thread * samples_per_load(c, p);
  int group = 32;
  while (group < 1024 && std::uint64_t{static_cast<unsigned>(group)} * per_step * 4 < mean_row(p))
    group *= 2;
  return group;
}

// Blocks per row: when the row groups alone give fewer than two waves of resident blocks, split
// each row, as long as every block keeps two steps of loads per thread.
int row_split(const BatchedConfig& c, const Problem& p, const DeviceInfo& d) {
  const std::uint64_t groups = (p.rows + c.rows_per_block - 1) / c.rows_per_block;
  const std::uint64_t resident =
      std::uint64_t{static_cast<unsigned>(std::max(d.sm_count, 1))} * (2048 / c.block_threads);
  const std::uint64_t per_block = std::uint64_t{static_cast<unsigned>(c.block_threads)} /
                                  c.rows_per_block * c.vectors_per_thread * samples_per_load(c, p);
  int split = 1;
  while (split < 512 && groups * split < 2 * resident &&
         mean_row(p) >= std::uint64_t{static_cast<unsigned>(split) * 2} * per_block * 2)
    split *= 2;
  return split;
}

}  // namespace

BatchedConfig default_for(const Problem& p, const DeviceInfo& d) {
  BatchedConfig c;
  c.vector_bytes = sample_bytes(p.sample_type) < 16 ? 16 : 0;
  c.vectors_per_thread = 2;
  if (one_row_bytes(p) > d.smem_per_block_optin) c.private_copies = 0;
  const int group = row_threads(c, p);
  c.block_threads = std::max(group, 256);
  c.rows_per_block = c.block_threads / group;
  // Fewer rows a block while their histograms take more than half the block's shared memory.
  while (c.rows_per_block > 1 && geometry(c, p).smem_bytes * 2 > d.smem_per_block_optin) {
    c.rows_per_block /= 2;
    c.block_threads /= 2;
  }
  c.block_threads = std::max(c.block_threads, 128);
  c.rows_per_block = std::min(c.rows_per_block, c.block_threads / 32);
  // Long rows of few bins: lane-striped copies, free of bank conflicts, while they take at most
  // half the block's shared memory (u8 [4096, 65536] on the H100: 0.100 ms, 0.124 without).
  BatchedConfig striped = c;
  striped.layout = 1;
  if (c.rows_per_block == 1 && c.private_copies > 0 &&
      geometry(striped, p).smem_bytes * 2 <= d.smem_per_block_optin)
    c.layout = 1;
  c.blocks_per_row = row_split(c, p, d);
  if (check(c, p, d).holds()) return c;
  BatchedConfig plain;  // one row a block, one copy
  plain.private_copies = c.private_copies;
  plain.vector_bytes = c.vector_bytes;
  return plain;  // check() says why when it does not hold either
}

std::string validate(const Problem& p) { return validate_rows(p); }

CompileRequest request(const BatchedConfig& c, const Problem& p, int arch) {
  std::vector<std::string> defs = params::defines(params<BatchedConfig>(), c);
  defs.push_back("-DHT_HIST_STRIDE=" + std::to_string(hist_stride(p)));
  for (auto& s : sample_defines(p)) defs.push_back(std::move(s));
  if (p.family == Family::segmented) defs.push_back("-DHT_SEGMENTED=1");
  return CompileRequest{kTemplate, defs, arch, c.label()};
}

}  // namespace batched

// ---- the prepared launch ---------------------------------------------------------------------

BatchedLaunch::BatchedLaunch(KernelCache& cache, const Kernel& k, const BatchedConfig& c,
                             const Problem& p, const DeviceInfo& d)
    : kernel_(k),
      geometry_(batched::geometry(c, p)),
      blocks_per_row_(static_cast<unsigned>(c.blocks_per_row)),
      // A row owned by one block is stored whole; shared rows and atomics add to zeroes.
      zero_counts_(c.blocks_per_row > 1 || c.private_copies == 0) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
}

BatchedArgs BatchedLaunch::args(const Problem& p, const void* d_samples,
                                std::uint32_t* d_counts) const {
  BatchedArgs a;
  a.samples = d_samples;
  a.n = p.n;
  a.rows = p.rows;
  a.row_stride = p.row_stride != 0 ? p.row_stride : p.n;
  a.offsets = p.d_offsets;
  a.offsets_base = p.offsets_base;
  a.blocks_per_row = blocks_per_row_;
  a.num_bins = p.num_bins;
  a.binning = BinningArgs::of(p);  // as the other families compute them
  a.counts = d_counts;
  a.levels = p.d_levels;
  return a;
}

void BatchedLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                               cudaStream_t stream) const {
  if (p.rows == 0) return;  // no histogram to write
  const std::size_t bytes = sizeof(std::uint32_t) * p.num_bins * p.rows;
  if (p.n == 0 || zero_counts_) HT_CUDA(cudaMemsetAsync(d_counts, 0, bytes, stream));
  if (p.n == 0) return;
  BatchedArgs a = args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(geometry_.grid), dim3(geometry_.block),
                           ptrs.data(), geometry_.smem_bytes, stream));
}

namespace {
const std::vector<Param<BatchedConfig>>& table() { return batched::params<BatchedConfig>(); }
// Labels name these first parameters at least: those stored before layout (lay) was added.
constexpr std::size_t kRequiredParams = 7;
}  // namespace

bool BatchedConfig::operator==(const BatchedConfig& o) const {
  return params::equal(table(), *this, o);
}

std::string BatchedConfig::label() const {
  return params::label(table(), *this, batched::kLabelPrefix);
}

std::optional<BatchedConfig> BatchedConfig::parse(const std::string& label) {
  return params::parse(table(), label, kRequiredParams, batched::kLabelPrefix);
}

std::string BatchedConfig::to_json() const { return params::json(table(), *this); }

std::string SegmentedConfig::label() const {
  return params::label(table(), BatchedConfig(*this), batched::kSegmentedLabelPrefix);
}

std::optional<SegmentedConfig> SegmentedConfig::parse(const std::string& label) {
  const auto c = params::parse(table(), label, kRequiredParams, batched::kSegmentedLabelPrefix);
  if (!c) return std::nullopt;
  return SegmentedConfig{*c};
}

}  // namespace histtune
