// A kernel family, declared once. Each family is a traits struct beside its value struct
// (Hist1DFamily in hist1d.hpp, MultiChannelFamily in multichannel.hpp), wrapped by FamilyModel
// (family_model.hpp) and listed once in runtime/src/families.cpp. The dispatcher, the tuner, the
// database's family column and the CLI reach a family only through this interface:
// families(), family(id) and family_of(problem). docs/families.md lists what adding one touches.
//
// Configurations cross this interface as ParamValues: one value per parameter, in the order of
// the family's params(); their label (the database key) and NVRTC defines come from the family.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"
#include "histtune/restriction.hpp"
#include "histtune/workload.hpp"

namespace histtune {

// A tunable as the search and the reports see it, without the family's value struct.
struct ParamSpec {
  std::string name;  // "block_threads"
  std::string key;   // its label prefix, "tpb"
  std::vector<int> values;  // searched values, simplest first
  bool compile_time = true;  // an NVRTC define (else a launch argument)
};

// A configuration of some family: the value of each of its params(), in order.
using ParamValues = std::vector<int>;

// What the first call of a (device, problem shape) prepares: geometry computed, shared-memory
// limit raised. Calling it with a problem of that shape zeroes what the kernel adds to and
// launches, stream-ordered and legal under stream capture.
class PreparedLaunch {
 public:
  virtual ~PreparedLaunch() = default;
  virtual void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                          cudaStream_t stream) const = 0;
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
  virtual Family id() const = 0;
  virtual const char* name() const = 0;  // "hist1d": the database's family column
  virtual const char* template_name() const = 0;  // in templates/
  virtual const char* kernel_name() const = 0;    // the __global__ function
  virtual const std::vector<ParamSpec>& params() const = 0;

  // A stored label as values; nullopt when it is not a label of this family.
  virtual std::optional<ParamValues> parse(const std::string& label) const = 0;
  virtual std::string label(const ParamValues& v) const = 0;
  virtual std::string to_json(const ParamValues& v) const = 0;
  // Holds when v may run p on d; else the restriction that says no (restriction.hpp).
  virtual Restriction check(const ParamValues& v, const Problem& p, const DeviceInfo& d) const = 0;
  // Holds when v, tuned for `tuned` (a nearer shape the lookup found), may serve p: check(),
  // and no change of shape that costs beyond what was timed (hist1d: more bin-range slices).
  virtual Restriction serves(const ParamValues& v, const Problem& tuned, const Problem& p,
                             const DeviceInfo& d) const = 0;
  // The built-in choice when nothing is tuned.
  virtual ParamValues fallback(const Problem& p, const DeviceInfo& d) const = 0;
  // Other built-in configurations a search of p starts from besides the fallback (known good
  // for problems of p's kind); none for a family whose traits have no seeds().
  virtual std::vector<ParamValues> seeds(const Problem& p, const DeviceInfo& d) const = 0;
  virtual CompileRequest request(const ParamValues& v, const Problem& p, int arch) const = 0;
  // Other programs v's launch loads besides request()'s, each shared by many configurations
  // (hist1d's partitioned count passes): the tuner compiles them ahead, as it does request()'s,
  // rather than the launch compiling them while it holds the GPU. None for most families.
  virtual std::vector<CompileRequest> also_compiled(const ParamValues& v, const Problem& p,
                                                    int arch) const = 0;
  virtual std::unique_ptr<PreparedLaunch> prepare(KernelCache& cache, const Kernel& k,
                                                  const ParamValues& v, const Problem& p,
                                                  const DeviceInfo& d) const = 0;

  // The family's own checks of a problem (channels, row pitch), after those every family shares
  // (validate() in problem.hpp); empty when valid.
  virtual std::string validate(const Problem& p) const = 0;
  // The first field of its problems' specs in the CLI's grammar ("mc" in
  // "mc:3/4:u8:direct:256:7680x4320"); empty for the family of plain TYPE:BINNING:BINS:N specs.
  virtual const char* spec_prefix() const = 0;
  // Whether its problems are rows of channels: their database key and description name them.
  virtual bool has_channels() const = 0;
  // Whether its problems are rows of histograms (Problem::rows): their key and description name
  // the rows.
  virtual bool has_rows() const = 0;
  // Whether its problems carry weights (Problem::weight_type): their key and description name
  // the weights' type, and each call its d_weights.
  virtual bool has_weights() const = 0;
  // Whether its problems are joint histograms of `channels` dimensions (Problem::joint): their key
  // and description name the dimensions, and the family checks each dimension's binning.
  virtual bool has_dims() const = 0;
  // The counters one call writes (and zeroes): its histograms' bins, one after another.
  virtual std::uint64_t counters(const Problem& p) const = 0;

  // What it is measured on and against (workload.hpp): its problems in the default plan of
  // `histtune tune --gpu auto`, its rows of `histtune bench`, and the peer `compare` times.
  virtual std::vector<Problem> plan_problems() const = 0;
  virtual std::vector<BenchRow> bench_rows() const = 0;
  virtual Baseline baseline() const = 0;
  // The template's hash: stored results recorded under another are stale.
  std::string template_hash() const;
  // Every program v's launch loads: request()'s first, then also_compiled()'s.
  std::vector<CompileRequest> programs(const ParamValues& v, const Problem& p, int arch) const;
};

// Every family, in Family order.
const std::vector<const KernelFamily*>& families();
const KernelFamily& family(Family id);
const KernelFamily& family_of(const Problem& p);
// "hist1d, multichannel": the families' names, for messages.
std::string family_names();

}  // namespace histtune
