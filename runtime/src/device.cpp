#include "histtune/device.hpp"

#include <cstdio>

#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/jit.hpp"
#include "histtune/status.hpp"

namespace histtune {

namespace {

// CUDA version 12080 as "12.8".
std::string cuda_version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

// Why cudaGetDeviceCount found no device, in words a user can act on, after "no CUDA device" (the
// line scripts match). The runtime reports a missing driver (no libcuda to load) and an old one
// alike as cudaErrorInsufficientDriver ("driver version is insufficient", which would send a user
// without a driver to upgrade one); cudaDriverGetVersion tells them apart (0: none loaded).
std::string no_device_reason(cudaError_t e) {
  if (e == cudaSuccess) return "no CUDA device (the driver reports no devices)";
  const std::string code = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  if (e != cudaErrorInsufficientDriver) return "no CUDA device (" + code + ")";
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
    return "no CUDA device: no NVIDIA driver found (libcuda.so.1 could not be loaded)";
  int runtime = 0;
  (void)cudaRuntimeGetVersion(&runtime);
  return "no CUDA device: the NVIDIA driver supports CUDA " + cuda_version_text(driver) +
         ", older than this build's runtime (CUDA " + cuda_version_text(runtime) +
         ") needs; upgrade the driver (" + code + ")";
}

}  // namespace

int device_count() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw Error(StatusCode::no_device, no_device_reason(e));
  }
  return count;
}

int current_device() {
  int d = 0;
  HT_CUDA(cudaGetDevice(&d));
  return d;
}

DeviceInfo query_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw Error(StatusCode::no_device,
                "no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                    std::to_string(count) + " (valid: 0.." + std::to_string(count - 1) + ")");
  cudaDeviceProp prop{};
  HT_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = prop.name;
  char uuid[64];
  const auto* b = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
  std::snprintf(uuid, sizeof uuid,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  d.uuid = uuid;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  d.l2_bytes = prop.l2CacheSize;
  d.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  d.smem_per_sm = prop.sharedMemPerMultiprocessor;
  d.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  int clock_khz = 0;
  HT_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  d.memory_clock_khz = clock_khz;
  HT_CUDA(cudaDriverGetVersion(&d.driver_version));
  HT_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

namespace {

// The architectures describe_arch knows: limits from the CUDA programming guide, the SM count of
// the best-known part.
struct Arch {
  int major, minor, sms;
  std::size_t smem_optin_kib, smem_sm_kib;
  int threads_per_sm;
  const char* part;
};
constexpr Arch kArchs[] = {
    {7, 0, 80, 96, 96, 2048, "V100"},         {7, 5, 40, 64, 64, 1024, "T4"},
    {8, 0, 108, 163, 164, 2048, "A100"},      {8, 6, 84, 99, 100, 1536, "RTX A6000"},
    {8, 7, 16, 163, 164, 1536, "Jetson Orin"}, {8, 9, 142, 99, 100, 1536, "L40"},
    {9, 0, 132, 227, 228, 2048, "H100 SXM"},  {10, 0, 148, 227, 228, 2048, "B200"},
    {12, 0, 170, 99, 100, 1536, "RTX 5090"},
};

const Arch* find_arch(int cc_major, int cc_minor) {
  for (const Arch& a : kArchs)
    if (a.major == cc_major && a.minor == cc_minor) return &a;
  return nullptr;
}

}  // namespace

std::optional<DeviceInfo> describe_arch(int cc_major, int cc_minor) {
  const Arch* a = find_arch(cc_major, cc_minor);
  if (!a) return std::nullopt;
  DeviceInfo d;
  d.name = "any sm_" + std::to_string(cc_major * 10 + cc_minor) + " device (limits of " +
           a->part + ")";
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = a->sms;
  d.smem_per_block_optin = a->smem_optin_kib * 1024;
  d.smem_per_sm = a->smem_sm_kib * 1024;
  d.max_threads_per_sm = a->threads_per_sm;
  return d;
}

std::size_t arch_smem_per_block_optin(int arch) {
  const Arch* a = find_arch(arch / 10, arch % 10);
  return a ? a->smem_optin_kib * 1024 : 0;
}

db::DeviceRow DeviceInfo::row() const {
  db::DeviceRow r{uuid,         name,     cc_major,       cc_minor,       sm_count,
                  memory_bytes, l2_bytes, driver_version, runtime_version};
  r.memory_clock_khz = memory_clock_khz;
  r.nvrtc_version = nvrtc_version();
  return r;
}

}  // namespace histtune
