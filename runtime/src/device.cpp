#include "histtune/device.hpp"

#include <cstdio>

#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/jit.hpp"
#include "histtune/status.hpp"

namespace histtune {

int device_count() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    std::string why = e == cudaSuccess ? "the driver reports no devices"
                                       : std::string(cudaGetErrorName(e)) + ": " +
                                             cudaGetErrorString(e);
    throw Error(StatusCode::no_device, "no CUDA device (" + why + ")");
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

db::DeviceRow DeviceInfo::row() const {
  db::DeviceRow r{uuid,         name,     cc_major,       cc_minor,       sm_count,
                  memory_bytes, l2_bytes, driver_version, runtime_version};
  r.memory_clock_khz = memory_clock_khz;
  r.nvrtc_version = nvrtc_version();
  return r;
}

}  // namespace histtune
