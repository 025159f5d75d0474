// The GPU sweeps' sample of a family's space: every configuration of every stride-th distinct
// kernel, in enumeration order, so every parameter's values are reached with few compiles.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "histtune/device.hpp"
#include "histtune/families.hpp"
#include "histtune/jit.hpp"
#include "histtune/problem.hpp"

namespace histtune::test {

// $HT_GPU_STRIDE when set (1: every kernel), else `fallback`.
inline std::size_t gpu_stride(std::size_t fallback) {
  const char* env = std::getenv("HT_GPU_STRIDE");
  return env && std::atoi(env) > 0 ? static_cast<std::size_t>(std::atoi(env)) : fallback;
}

template <class F>
struct SampledKernels {
  std::vector<typename F::Config> configs;
  std::vector<std::size_t> req_of;  // configs[i] runs the kernel of reqs[req_of[i]]
  std::vector<CompileRequest> reqs;
};

// The configurations of `space` valid for `valid_for` on d whose kernel (compiled for
// `compiled_for`: the same shape, so the same kernel for every size) is a stride-th distinct one.
template <class F>
SampledKernels<F> sample_kernels(const std::vector<typename F::Config>& space,
                                 const Problem& valid_for, const Problem& compiled_for,
                                 const DeviceInfo& d, std::size_t stride) {
  SampledKernels<F> out;
  std::map<std::string, std::size_t> number, index;  // cache key -> kernel number, reqs index
  for (const auto& c : space) {
    if (!F::check(c, valid_for, d).holds()) continue;
    const CompileRequest req = F::request(c, compiled_for, d.arch());
    const std::string key = cache_key(req);
    if (number.emplace(key, number.size()).first->second % stride != 0) continue;
    auto [it, fresh] = index.emplace(key, out.reqs.size());
    if (fresh) out.reqs.push_back(req);
    out.configs.push_back(c);
    out.req_of.push_back(it->second);
  }
  return out;
}

}  // namespace histtune::test
