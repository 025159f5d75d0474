// The device at hand, read once through the CUDA runtime. Everything the runtime and the tuner
// size against (SMs, shared memory, L2) comes from here, never from constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace histtune {
namespace db {
struct DeviceRow;
}

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-..."
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::size_t smem_per_block_optin = 0;  // the most dynamic shared memory one block may opt into
  std::size_t smem_per_sm = 0;
  int max_threads_per_sm = 0;
  int driver_version = 0;
  int runtime_version = 0;
  std::int64_t memory_clock_khz = 0;  // peak memory clock

  int arch() const { return cc_major * 10 + cc_minor; }  // 90 for sm_90
  db::DeviceRow row() const;
};

// Number of CUDA devices; throws Error(no_device) with one clear line ("no CUDA device: ...")
// when there is no device or no usable driver.
int device_count();
// Reads device `ordinal`; throws Error(no_device) for an index that does not exist.
DeviceInfo query_device(int ordinal);
// The device current on the calling thread.
int current_device();
// A device of compute capability `cc_major`.`cc_minor` as the lookup sees one without the GPU
// (`histtune explain --arch`): the architecture's shared-memory and thread limits (CUDA
// programming guide) and the SM count of its best-known part (sm_90: H100 SXM, 132). No UUID,
// ordinal -1. nullopt for an architecture not listed.
std::optional<DeviceInfo> describe_arch(int cc_major, int cc_minor);
// describe_arch's shared memory per block for architecture `arch` (90 for sm_90) without building
// a DeviceInfo (the launch path asks it per call); 0 for an architecture not listed.
std::size_t arch_smem_per_block_optin(int arch);

}  // namespace histtune
