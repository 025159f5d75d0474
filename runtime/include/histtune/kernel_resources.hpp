// What a compiled kernel asks of an SM, read from its CUBIN: the registers a thread and the
// local memory a thread (spills and arrays the compiler could not keep in registers). NVRTC
// writes them as attributes of the CUBIN's `.nv.info` section, so this needs no GPU and no
// CUDA tool: `histtune explain --resources` prints them for the configuration a call runs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace histtune {

struct KernelResources {
  int registers = 0;    // a thread
  int local_bytes = 0;  // a thread: its stack frame
};

// The resources of `kernel` (its __global__ name) in `cubin`; nullopt where the CUBIN is not a
// 64-bit ELF this reader understands or holds no register count for that kernel.
std::optional<KernelResources> kernel_resources(const std::vector<char>& cubin,
                                                std::string_view kernel);

}  // namespace histtune
