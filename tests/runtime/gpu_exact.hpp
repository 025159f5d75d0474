// What the 1D family's GPU tests share: the exactness loop (one configuration on one shape, every
// distribution, from a misaligned start, against the host reference), the configurations a
// shape takes, and a public call's counts against the reference with guard words after them.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/detail/upload.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/reference.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::test {

inline std::uint64_t fresh_seed() {
  return std::random_device{}() * 0x100000001ull + std::random_device{}();
}

// Runs `c` on `p` over `host` (p.n + skip samples as bytes; the call starts `skip` samples in) and
// compares its counts with the host reference's; `what` names the data in a failure. Range
// binning takes `given` levels, or the tuner's.
inline void expect_config_exact(KernelCache& cache, const Hist1DConfig& c, Problem p,
                                const DeviceInfo& d, const std::vector<std::uint8_t>& host,
                                std::uint64_t skip, const std::string& what,
                                const std::vector<std::uint8_t>& given = {}) {
  Problem whole = p;
  whole.n = p.n + skip;
  const auto levels = p.binning != Binning::range ? std::vector<std::uint8_t>{}
                      : given.empty()             ? tuner::make_levels(p)
                                                  : given;
  tuner::DeviceInputs in(whole, host, 0, levels);
  p.d_levels = in.levels();
  const Kernel kern = cache.get(hist1d::request(c, p, d.arch()), hist1d::kKernel);
  const Hist1DLaunch launch(cache, kern, c, p, d);
  HT_CUDA(cudaMemset(in.counts(), 0xFF, p.num_bins * sizeof(std::uint32_t)));
  const std::size_t bytes = sample_bytes(p.sample_type);
  launch(p, static_cast<const std::uint8_t*>(in.samples(0)) + skip * bytes, in.counts(), nullptr);
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(in.read_counts(p.num_bins),
            reference_histogram(p, host.data() + skip * bytes,
                                levels.empty() ? nullptr : levels.data()))
      << c.label() << " " << p.describe() << " skip " << skip << " " << what;
}

// Runs `c` on `p` (its samples `skip` elements into the device copy, the host reference on the
// same samples) for every distribution; returns the cases run.
inline int run_all_distributions(KernelCache& cache, const Hist1DConfig& c, Problem p,
                                 const DeviceInfo& d, std::uint64_t skip) {
  int ran = 0;
  for (const auto dist : {tuner::Distribution::uniform, tuner::Distribution::skewed,
                          tuner::Distribution::constant, tuner::Distribution::runs,
                          tuner::Distribution::mixed}) {
    Problem whole = p;
    whole.n = p.n + skip;
    const std::uint64_t seed = fresh_seed();
    expect_config_exact(cache, c, p, d, tuner::make_samples(whole, seed, dist), skip,
                        std::string(tuner::to_string(dist)) + " seed " + std::to_string(seed));
    ++ran;
  }
  return ran;
}


// The shape's built-in default and those of `labels` that hold for it.
template <std::size_t N>
std::vector<Hist1DConfig> configs_for(const Problem& p, const DeviceInfo& d,
                                      const char* const (&labels)[N]) {
  std::vector<Hist1DConfig> out = {hist1d::default_for(p, d)};
  for (const char* label : labels)
    if (const auto c = Hist1DConfig::parse(label); c && hist1d::check(*c, p, d).holds())
      out.push_back(*c);
  return out;
}

// Every shape at n = 1, 4097 and 2^20 + 3, whole and from one sample in (a load's words or
// samples split elsewhere), with its built-in default and the `labels` that hold for it, every
// distribution exact; returns the cases run.
template <std::size_t N>
int run_shapes(const std::vector<Problem>& shapes, const char* const (&labels)[N]) {
  const DeviceInfo d = query_device(current_device());
  KernelCache cache;
  int ran = 0;
  for (const Problem& s : shapes)
    for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{4097}, (std::uint64_t{1} << 20) + 3})
      for (const std::uint64_t skip : {0u, 1u}) {
        if (skip >= n) continue;
        Problem p = s;
        p.n = n - skip;
        for (const Hist1DConfig& c : configs_for(p, d, labels))
          ran += run_all_distributions(cache, c, p, d, skip);
      }
  return ran;
}

// Copies `bytes` to the device and returns once they have landed.
inline void upload(void* device, const void* host, std::size_t bytes) {
  detail::upload_and_wait(device, host, bytes);
}

// Device memory freed on scope exit.
struct DeviceBytes {
  void* ptr = nullptr;
  explicit DeviceBytes(std::size_t bytes) { HT_CUDA(cudaMalloc(&ptr, bytes ? bytes : 1)); }
  ~DeviceBytes() { (void)cudaFree(ptr); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

// Counts with 64 guard words after them, all 0xFFFFFFFF before the call; the call's counts, and
// whether the guards are untouched.
struct GuardedCounts {
  static constexpr std::uint32_t kGuard = 64;
  std::uint32_t bins;
  DeviceBytes mem;
  explicit GuardedCounts(std::uint32_t b) : bins(b), mem((b + kGuard) * sizeof(std::uint32_t)) {
    HT_CUDA(cudaMemset(mem.ptr, 0xFF, (bins + kGuard) * sizeof(std::uint32_t)));
  }
  std::uint32_t* get() const { return static_cast<std::uint32_t*>(mem.ptr); }
  std::vector<std::uint32_t> read(bool& guards_ok) const {
    std::vector<std::uint32_t> h(bins + kGuard);
    HT_CUDA(cudaMemcpy(h.data(), mem.ptr, h.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    guards_ok = true;
    for (std::uint32_t i = bins; i < bins + kGuard; ++i) guards_ok &= h[i] == 0xFFFFFFFFu;
    h.resize(bins);
    return h;
  }
};

// Runs `call` (a public API call writing the reference's counts: num_bins, or a histogram per
// active channel) on `host` samples and compares with the reference; `levels` for range binning.
template <class T, class Call>
void expect_exact(const Problem& p, const std::vector<T>& host, Call call,
                  const std::vector<T>& levels = {}) {
  const std::size_t bytes = host.size() * sizeof(T), level_bytes = levels.size() * sizeof(T);
  DeviceBytes samples(bytes), d_levels(level_bytes);
  HT_CUDA(cudaMemcpy(samples.ptr, host.data(), bytes, cudaMemcpyHostToDevice));
  if (!levels.empty())
    HT_CUDA(cudaMemcpy(d_levels.ptr, levels.data(), level_bytes, cudaMemcpyHostToDevice));
  const auto expect =
      reference_histogram(p, host.data(), levels.empty() ? nullptr : levels.data());
  GuardedCounts counts(static_cast<std::uint32_t>(expect.size()));
  const Status s = call(samples.ptr, d_levels.ptr, counts.get());
  ASSERT_TRUE(s.ok()) << p.describe() << ": " << s.message();
  HT_CUDA(cudaDeviceSynchronize());
  bool guards_ok = false;
  EXPECT_EQ(counts.read(guards_ok), expect) << p.describe();
  EXPECT_TRUE(guards_ok) << p.describe() << ": a count was written past the bins";
}

}  // namespace histtune::test
