#include "histtune/joint.hpp"

#include <algorithm>
#include <cmath>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/kernel_args.hpp"
#include "restrictions.hpp"

namespace histtune {
namespace joint {

const std::vector<Param<JointConfig>>& params() {
  using C = JointConfig;
  static const std::vector<Param<C>> table = {
      param<&C::block_threads>("block_threads", "tpb", {256, 128, 512, 1024}, true),
      param<&C::items_per_thread>("items_per_thread", "ipt", {8, 4, 16, 2}, true),
      param<&C::private_copies>("private_copies", "pc", {1, 2, 4, 0}, true),
      param<&C::counter_bits>("counter_bits", "cb", {32, 16}, true),
      param<&C::blocks_per_sm>("blocks_per_sm", "bps", {2, 1, 4, 8}, true),
      param<&C::tuple_vectors>("tuple_vectors", "tv", {0, 1}, true),
  };
  return table;
}

std::vector<JointConfig> space() { return params::space(params()); }

namespace {

// Private copies 0 from this many joint bins (below, a copy fits and wins).
constexpr std::uint32_t kGlobalBinsFrom = 16384;

// 32-bit copies keep a sink after the bins (tuples in no bin add there instead of branching);
// 16-bit ones branch instead, since a wrap of the sink would be handed to a bin that is not there.
unsigned int hist_stride(const JointConfig& c, const Problem& p) {
  return c.counter_bits == 16 ? p.num_bins : p.num_bins + 1;
}

// Bytes of one tuple of p.
std::size_t tuple_bytes(const Problem& p) { return sample_bytes(p.sample_type) * p.channels; }

// Tuples a thread's 16-byte load holds under tuple_vectors 1 (joint.cuh's kVecTuples).
int vector_tuples(const JointConfig& c, const Problem& p) {
  const std::size_t t = tuple_bytes(p);
  return c.tuple_vectors && (t == 2 || t == 4 || t == 8) ? static_cast<int>(16 / t) : 1;
}

std::size_t copy_bytes(const JointConfig& c, const Problem& p) {
  const std::size_t words =
      c.counter_bits == 16 ? (std::size_t{hist_stride(c, p)} + 1) / 2 : hist_stride(c, p);
  return words * 4;
}

}  // namespace

Restriction check(const JointConfig& c, const Problem& p, const DeviceInfo& d) {
  if (Restriction r = params::check_values(params(), c); !r.holds()) return r;
  if (p.family != Family::joint) return Restriction::rule("the joint family runs joint problems only");
  const int warps = c.block_threads / 32;
  if (c.private_copies > warps)
    return Restriction::rule("private_copies > warps per block (" + std::to_string(warps) + ")");
  if (c.private_copies == 0 && c.counter_bits != 32)
    return Restriction::rule("counter_bits 16 is for private copies (private_copies 0 adds to the output)");
  if (c.tuple_vectors && vector_tuples(c, p) == 1)
    return Restriction::rule("tuple_vectors 1 is for tuples of 2, 4 or 8 bytes, not " +
                             std::to_string(tuple_bytes(p)));
  JointConfig one = c;
  one.private_copies = 1;
  one.counter_bits = 32;
  if (c.private_copies == 0 && p.num_bins < kGlobalBinsFrom &&
      copy_bytes(one, p) <= d.smem_per_block_optin)
    return Restriction::rule("atomics on the output (private_copies 0) are for " +
                             std::to_string(kGlobalBinsFrom) +
                             " joint bins or more, or a histogram beyond shared memory");
  return check_residency(c.block_threads, c.blocks_per_sm, geometry(c, p, d).smem_bytes, d);
}

JointGeometry geometry(const JointConfig& c, const Problem& p, const DeviceInfo& d) {
  JointGeometry g;
  g.block = static_cast<unsigned>(c.block_threads);
  g.hist_stride = hist_stride(c, p);
  g.smem_bytes = static_cast<std::size_t>(c.private_copies) * copy_bytes(c, p);
  g.grid = striding_grid(c.block_threads, c.items_per_thread * vector_tuples(c, p),
                         c.blocks_per_sm, p.n, d);
  return g;
}

JointConfig default_for(const Problem& p, const DeviceInfo& d) {
  JointConfig c;
  const std::size_t t = tuple_bytes(p);
  c.tuple_vectors = t == 2 || t == 4 || t == 8;
  if (copy_bytes(c, p) > d.smem_per_block_optin) c.counter_bits = 16;
  if (copy_bytes(c, p) > d.smem_per_block_optin) {
    c.counter_bits = 32;
    c.private_copies = 0;
  }
  // Histograms of more than a quarter of an SM's shared memory leave room for one block.
  if (d.smem_per_sm > 0 && c.private_copies > 0 && copy_bytes(c, p) * 4 > d.smem_per_sm) {
    c.blocks_per_sm = 1;
    c.block_threads = 1024;
  }
  if (check(c, p, d).holds()) return c;
  JointConfig plain;  // check() says why when it does not hold either
  plain.private_copies = c.private_copies;
  plain.counter_bits = c.counter_bits;
  plain.blocks_per_sm = 1;
  plain.tuple_vectors = c.tuple_vectors;
  return plain;
}

namespace {
std::string dims_text(const Problem& p) {
  std::string s;
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d)
    s += (d ? " x " : "") + std::to_string(p.joint.bins[d]);
  return s;
}
}  // namespace

std::string validate(const Problem& p) {
  if (p.channels == 0 || p.channels > kMaxJointDims)
    return "a joint histogram has 1 to " + std::to_string(kMaxJointDims) + " dimensions, got " +
           std::to_string(p.channels);
  if (p.active_channels != p.channels || p.rows != 1 || p.row_pixels != 0 || p.row_pitch_bytes != 0)
    return "joint problems count every dimension of one packed array of tuples";
  if (is_int64(p.sample_type))
    return std::string("joint histograms take samples up to 4 bytes and f64, not ") +
           to_string(p.sample_type);
  if (p.binning == Binning::direct)
    return "joint histograms bin by even bins or edges (range) in each dimension, not direct";
  std::uint64_t product = 1;
  for (std::uint32_t d = 0; d < p.channels; ++d) {
    if (p.joint.bins[d] == 0) return "dimension " + std::to_string(d) + " has no bins";
    product *= p.joint.bins[d];  // at most 2^31 x 2^32 before the check below stops it
    if (product > kMaxJointBins)
      return "the joint bins (" + dims_text(p) + ") exceed 2^31 - 1, the most the kernels index";
  }
  if (product != p.num_bins)
    return "num_bins = " + std::to_string(p.num_bins) + " is not the product of the bins (" +
           dims_text(p) + ")";
  for (std::uint32_t d = 0; d < p.channels; ++d)
    if (std::string why = histtune::validate(joint_dim(p, d)); !why.empty())
      return "dimension " + std::to_string(d) + ": " + why;
  return {};
}

namespace {
// Integer even bins one value wide in every dimension (u8 256 bins over [10, 266)): the bin is
// the offset from the lower bound, no multiplies (1); and where every dimension's bins cover
// the whole type (u8 over [0, 256), i8 over [-128, 128)), no compare either (2). Else 0.
int unit_bins(const Problem& p) {
  if (p.binning != Binning::even || is_float(p.sample_type) || is_int64(p.sample_type)) return 0;
  const double span = std::ldexp(1.0, 8 * static_cast<int>(sample_bytes(p.sample_type)));
  const bool is_signed = p.sample_type == SampleType::i8 || p.sample_type == SampleType::i16 ||
                         p.sample_type == SampleType::i32;
  bool whole = true;
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
    if (p.joint.upper[d] - p.joint.lower[d] != p.joint.bins[d]) return 0;
    whole &= p.joint.bins[d] == span && p.joint.lower[d] == (is_signed ? -span / 2 : 0.0);
  }
  return whole ? 2 : 1;
}
}  // namespace

CompileRequest request(const JointConfig& c, const Problem& p, int arch) {
  std::vector<std::string> defs = params::defines(params(), c);
  params::set_define(defs, "HT_BLOCKS_PER_SM", launch_bounds_blocks(c.block_threads, c.blocks_per_sm));
  defs.push_back("-DHT_JOINT_DIMS=" + std::to_string(p.channels));
  defs.push_back("-DHT_HIST_STRIDE=" + std::to_string(hist_stride(c, p)));
  defs.push_back("-DHT_JOINT_UNIT_BINS=" + std::to_string(unit_bins(p)));
  for (auto& s : sample_defines(p)) defs.push_back(std::move(s));
  return CompileRequest{kTemplate, defs, arch, c.label()};
}

}  // namespace joint

// ---- the prepared launch ---------------------------------------------------------------------

namespace {

// joint.cuh's HtJointArgs, field for field.
struct JointArgs {
  const void* cols[kMaxJointDims];
  const void* levels[kMaxJointDims];
  long long lower_i[kMaxJointDims];
  unsigned long long range_i[kMaxJointDims];
  unsigned long long recip_i[kMaxJointDims];
  unsigned long long n;
  unsigned long long stride;
  unsigned int* counts;
  float lower_f[kMaxJointDims], upper_f[kMaxJointDims], scale_f[kMaxJointDims];
  unsigned int bins[kMaxJointDims];
  unsigned int total_bins;
  unsigned int tuple_loads;
  unsigned int vec_head;
};
static_assert(sizeof(JointArgs) == 264, "JointArgs is joint.cuh's HtJointArgs");

JointArgs joint_args(const Problem& p, const void* d_samples, std::uint32_t* d_counts) {
  JointArgs a{};
  const std::size_t sb = sample_bytes(p.sample_type);
  const bool separate = p.joint.d_columns[0] != nullptr;
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
    const BinningArgs b = BinningArgs::of(joint_dim(p, d));
    a.cols[d] = separate ? p.joint.d_columns[d] : static_cast<const char*>(d_samples) + d * sb;
    a.levels[d] = p.joint.d_levels[d];
    a.lower_i[d] = b.lower_i;
    a.range_i[d] = b.range_i;
    a.recip_i[d] = b.recip_i;
    a.lower_f[d] = b.lower_f;
    a.upper_f[d] = b.upper_f;
    a.scale_f[d] = b.scale_f;
    a.bins[d] = p.joint.bins[d];
  }
  a.n = p.n;
  a.stride = separate ? 1 : p.channels;
  a.counts = d_counts;
  a.total_bins = p.num_bins;
  const std::size_t tuple = sb * p.channels;
  const auto address = reinterpret_cast<std::uintptr_t>(d_samples);
  a.tuple_loads = !separate && (tuple == 2 || tuple == 4 || tuple == 8 || tuple == 16) &&
                  address % tuple == 0;
  if (a.tuple_loads) a.vec_head = static_cast<unsigned>((16 - address % 16) % 16 / tuple);
  return a;
}

}  // namespace

JointLaunch::JointLaunch(KernelCache& cache, const Kernel& k, const JointConfig& c,
                         const Problem& p, const DeviceInfo& d)
    : kernel_(k), geometry_(joint::geometry(c, p, d)) {
  cache.ensure_smem(k, d.ordinal, geometry_.smem_bytes);
}

void JointLaunch::operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                             cudaStream_t stream) const {
  HT_CUDA(cudaMemsetAsync(d_counts, 0, std::size_t{p.num_bins} * 4, stream));
  if (p.n == 0) return;
  JointArgs a = joint_args(p, d_samples, d_counts);
  void* args[] = {&a};
  HT_CUDA(cudaLaunchKernel(kernel_.func(), dim3(geometry_.grid), dim3(geometry_.block), args,
                           geometry_.smem_bytes, stream));
}

bool JointConfig::operator==(const JointConfig& o) const {
  return params::equal(joint::params(), *this, o);
}

std::string JointConfig::label() const {
  return params::label(joint::params(), *this, joint::kLabelPrefix);
}

std::optional<JointConfig> JointConfig::parse(const std::string& label) {
  // Labels written before tuple_vectors existed end after 5 fields.
  return params::parse(joint::params(), label, 5, joint::kLabelPrefix);
}

std::string JointConfig::to_json() const { return params::json(joint::params(), *this); }

}  // namespace histtune
