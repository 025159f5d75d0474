// What a compiled kernel asks of an SM, read from its CUBIN: the registers a thread, the local
// memory a thread (spills and arrays the compiler could not keep in registers) and the static
// shared memory a block. NVRTC writes the first two as attributes of the CUBIN's `.nv.info`
// section and the third as the size of the kernel's `.nv.shared.` section, so this needs no GPU
// and no CUDA tool: `histtune explain --resources` prints them for the configuration a call runs.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace histtune {

struct KernelResources {
  int registers = 0;    // a thread
  int local_bytes = 0;  // a thread: its stack frame
  int shared_bytes = 0;  // a block: its __shared__ arrays (dynamic shared memory comes at launch)
};

// The resources of `kernel` (its __global__ name) in `cubin`; nullopt where the CUBIN is not a
// 64-bit ELF this reader understands or holds no register count for that kernel.
std::optional<KernelResources> kernel_resources(const std::vector<char>& cubin,
                                                std::string_view kernel);

}  // namespace histtune
