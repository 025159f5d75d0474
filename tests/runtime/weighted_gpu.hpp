// What the weighted families' GPU tests share: real weights to sum, and three configurations of
// the space that hold for a problem.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "histtune/families.hpp"
#include "histtune/problem.hpp"

namespace histtune::test {

// A sample type and binning the weighted GPU tests run: its bins and even bounds (range: the
// tuner's default span).
struct WeightedCase {
  const char* name;
  SampleType type;
  Binning binning;
  std::uint32_t bins;
  double lower = 0, upper = 0;
};

// `count` weights of type w uniform in [-1, 2) (a NaN at nan_at, if >= 0), as bytes.
inline std::vector<std::uint8_t> real_weights(WeightType w, std::uint64_t count, std::uint64_t seed,
                                              std::int64_t nan_at) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 2.0);
  const std::size_t wb = weight_bytes(w);
  std::vector<std::uint8_t> out(count * wb);
  for (std::uint64_t i = 0; i < count; ++i) {
    const double v = static_cast<std::int64_t>(i) == nan_at ? NAN : u(rng);
    const float f = static_cast<float>(v);
    std::memcpy(out.data() + i * wb, wb == 4 ? static_cast<const void*>(&f) : &v, wb);
  }
  return out;
}

// Three configurations of the space that hold for p: the default, and two others.
inline std::vector<ParamValues> three_weighted_configs(const Problem& p, const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  std::vector<ParamValues> out = {f.fallback(p, d)};
  for (const char* label : {"tpb128.ipt2.pc2.bps4", "tpb512.ipt16.pc4.bps1",
                            "tpb1024.ipt4.pc8.bps1", "tpb256.ipt4.pc0.bps2"}) {
    const auto v = f.parse(std::string(p.family == Family::weighted ? "w." : "wdet.") + label);
    if (v && f.check(*v, p, d).holds() && *v != out.front() && out.size() < 3) out.push_back(*v);
  }
  return out;
}

}  // namespace histtune::test
