// The joint family (templates/joint.cuh): histograms over tuples of 1 to kMaxJointDims values
// (numpy.histogram2d, numpy.histogramdd), each dimension binned as the 1D call of its bins and
// bounds (even) or levels (range) bins it, counted in the row-major joint bin. Its value struct,
// space, restrictions, default, launch and traits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/family.hpp"
#include "histtune/jit.hpp"
#include "histtune/params.hpp"
#include "histtune/problem.hpp"

namespace histtune {

struct JointConfig {
  // Threads per block {256, 128, 512, 1024}.
  int block_threads = 256;
  // Tuples a thread loads before it bins any {8, 4, 16, 2}: loads in flight vs. registers.
  int items_per_thread = 8;
  // Private joint histograms in shared memory per block {1, 2, 4, 0}, one per group of warps:
  // fewer collisions on hot bins vs. shared memory and a longer flush. 0: none, every tuple an
  // atomic on the output (joint bins beyond shared memory).
  int private_copies = 1;
  // Bits of a private counter {32, 16}: 16 halves the bytes (256 x 256 bins fit an H100 block)
  // for a check per add and, rarely, a wrap handed to the output (joint.cuh's ht_add16).
  int counter_bits = 32;
  // Resident blocks per SM the grid is sized for {2, 1, 4, 8} (also the launch bounds).
  int blocks_per_sm = 2;
  // Interleaved tuples of 2, 4 or 8 bytes loaded 16 bytes at a time {0, 1} (0: a tuple a load):
  // more bytes in flight per thread for a few more instructions to take the tuples apart.
  int tuple_vectors = 0;

  bool operator==(const JointConfig& o) const;
  bool operator!=(const JointConfig& o) const { return !(*this == o); }
  // "j.tpb256.ipt8.pc1.cb32.bps2.tv0"
  std::string label() const;
  static std::optional<JointConfig> parse(const std::string& label);
  std::string to_json() const;
};

struct JointGeometry {
  unsigned int grid = 0;
  unsigned int block = 0;
  std::size_t smem_bytes = 0;
  unsigned int hist_stride = 0;  // counters per private copy (bins, and the 32-bit sink)
};

namespace joint {

constexpr const char* kTemplate = "joint.cuh";
constexpr const char* kKernel = "histtune_joint";
constexpr const char* kLabelPrefix = "j.";

const std::vector<Param<JointConfig>>& params();
std::vector<JointConfig> space();
Restriction check(const JointConfig& c, const Problem& p, const DeviceInfo& d);
JointGeometry geometry(const JointConfig& c, const Problem& p, const DeviceInfo& d);
// The built-in choice: one private copy of 32-bit counters where it fits shared memory, else of
// 16-bit counters, else atomics on the output.
JointConfig default_for(const Problem& p, const DeviceInfo& d);
// Dimensions 1 .. kMaxJointDims, sample types up to 4 bytes and f64, even or range binning, the
// bins' product (kMaxJointBins at most) in num_bins, each dimension valid as a 1D problem.
std::string validate(const Problem& p);
CompileRequest request(const JointConfig& c, const Problem& p, int arch);
std::vector<Problem> plan_problems();
std::vector<BenchRow> bench_rows();

}  // namespace joint

// The launch of the joint kernel built for (c, p) on `d`, prepared once per shape. Calling it
// zeroes the output and launches; no temporary memory. Legal under stream capture.
class JointLaunch {
 public:
  JointLaunch() = default;
  JointLaunch(KernelCache& cache, const Kernel& k, const JointConfig& c, const Problem& p,
              const DeviceInfo& d);
  // d_samples: the interleaved [n, dims] tuples, or null in the separate form
  // (p.joint.d_columns).
  void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                  cudaStream_t stream) const;
  const Kernel& kernel() const { return kernel_; }
  const JointGeometry& geometry() const { return geometry_; }

 private:
  Kernel kernel_;
  JointGeometry geometry_;
};

struct JointFamily {
  using Config = JointConfig;
  using Launch = JointLaunch;
  static constexpr Family kId = Family::joint;
  static constexpr const char* kName = "joint";
  static constexpr const char* kTemplate = joint::kTemplate;
  static constexpr const char* kKernel = joint::kKernel;
  static constexpr const char* kSpecPrefix = "j";
  static constexpr bool kChannels = false;
  static constexpr bool kRows = false;
  static constexpr bool kWeights = false;
  static constexpr bool kDims = true;
  static constexpr Baseline kBaseline = Baseline::none;
  static const std::vector<Param<Config>>& params() { return joint::params(); }
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static Restriction check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return joint::check(c, p, d);
  }
  static Restriction serves(const Config& c, const Problem& /*tuned*/, const Problem& p,
                            const DeviceInfo& d) {
    return joint::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) { return joint::default_for(p, d); }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return joint::request(c, p, arch);
  }
  static std::string validate(const Problem& p) { return joint::validate(p); }
  static std::uint64_t counters(const Problem& p) { return p.num_bins; }
  static std::vector<Problem> plan_problems() { return joint::plan_problems(); }
  static std::vector<BenchRow> bench_rows() { return joint::bench_rows(); }
};

}  // namespace histtune
