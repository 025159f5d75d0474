// On the GPU: the weighted families against the host reference (reference_weighted, in double).
// The fast form within the float bound derived below, integer weights exactly; the deterministic
// form bit-identical across 3 configurations and 5 runs each, with the bound given and measured,
// and within its documented bound of the reference; NaN weights; the public C++ and C calls,
// their refusals (output untouched) and the tuner's exact inputs.
//
// The fast form's tolerance: a bin's m weights summed in any order (a tree of additions, float's
// unit roundoff u) are off from the exact sum by at most (m - 1) u sum|w| (first order), and the
// reference, summed in double, by (m - 1) 2^-53 sum|w|: |got - ref| <= (m u + m 2^-53) sum|w|.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "gpu.hpp"
#include "gpu_exact.hpp"
#include "weighted_gpu.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/families.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using histtune::test::DeviceBytes;

namespace {

using Case = test::WeightedCase;

const Case kCases[] = {
    {"f32_even_256", SampleType::f32, Binning::even, 256, 0, 100},
    {"u8_direct_256", SampleType::u8, Binning::direct, 256},
    {"u16_direct_1000", SampleType::u16, Binning::direct, 1000},
    {"i32_even_64", SampleType::i32, Binning::even, 64, -1000, 1000},
    {"u32_direct_20000", SampleType::u32, Binning::direct, 20000},
    {"f32_range_1024", SampleType::f32, Binning::range, 1024},
    {"f16_even_256", SampleType::f16, Binning::even, 256, -1, 1},
    {"f64_even_100", SampleType::f64, Binning::even, 100, -4, 4},
    {"i64_range_300", SampleType::i64, Binning::range, 300},
};
const std::uint64_t kSizes[] = {1, 4097, (std::uint64_t{1} << 20) + 3};

// One call's inputs on the device: samples (the tuner's uniform draw), weights, levels.
struct Inputs {
  Problem p;
  std::vector<std::uint8_t> samples, weights, levels;
  std::unique_ptr<DeviceBytes> d_samples, d_weights, d_levels;
};

// Weights of p's type: uniform in [-1, 2) for floats (with a NaN at `nan_at` if given), the
// tuner's integers otherwise.
std::vector<std::uint8_t> weights_of(const Problem& p, std::uint64_t seed, std::int64_t nan_at) {
  if (p.weight_type == WeightType::i32 || p.weight_type == WeightType::i64)
    return tuner::make_weights(p, seed);
  return test::real_weights(p.weight_type, p.n, seed, nan_at);
}

Inputs inputs_of(const Case& k, WeightType w, bool det, std::uint64_t n, std::int64_t nan_at = -1) {
  Inputs in;
  in.p = weighted_problem(k.type, w, k.binning, k.bins, n, det, k.lower, k.upper);
  if (k.binning == Binning::range) {
    tuner::set_default_level_span(in.p);
    in.levels = tuner::make_levels(in.p);
  }
  in.samples = tuner::make_samples(as_one_stream(in.p), 3, tuner::Distribution::uniform);
  in.weights = weights_of(in.p, 5, nan_at);
  auto upload = [](const std::vector<std::uint8_t>& host) {
    auto d = std::make_unique<DeviceBytes>(host.size());
    if (!host.empty()) HT_CUDA(cudaMemcpy(d->ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
    return d;
  };
  in.d_samples = upload(in.samples);
  in.d_weights = upload(in.weights);
  in.d_levels = upload(in.levels);
  in.p.d_weights = in.d_weights->ptr;
  in.p.d_levels = in.levels.empty() ? nullptr : in.d_levels->ptr;
  return in;
}

// The output read back as doubles (float, double or int64 bins).
std::vector<double> read_bins(const Problem& p, const void* d_out) {
  std::vector<std::uint8_t> raw(std::size_t{p.num_bins} * bin_bytes(p));
  HT_CUDA(cudaMemcpy(raw.data(), d_out, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(p.num_bins);
  for (std::size_t b = 0; b < out.size(); ++b) {
    if (p.weight_type == WeightType::f32) {
      float f;
      std::memcpy(&f, raw.data() + 4 * b, 4);
      out[b] = f;
    } else if (p.weight_type == WeightType::f64) {
      std::memcpy(&out[b], raw.data() + 8 * b, 8);
    } else {
      std::int64_t i;
      std::memcpy(&i, raw.data() + 8 * b, 8);
      out[b] = static_cast<double>(i);
    }
  }
  return out;
}

// Per bin: the samples in it and the sum of their |w|, for the bounds.
struct BinStats {
  std::vector<std::uint32_t> counts;
  std::vector<double> abs_sums;
};
BinStats stats_of(const Inputs& in) {
  const void* lv = in.levels.empty() ? nullptr : in.levels.data();
  Problem abs = in.p;
  abs.weight_type = WeightType::f64;
  std::vector<double> mags(in.p.n, 0.0);  // integer weights: exact, no bound needed
  const bool real = in.p.weight_type == WeightType::f32 || in.p.weight_type == WeightType::f64;
  for (std::uint64_t i = 0; real && i < in.p.n; ++i) {
    double v = 0;
    if (in.p.weight_type == WeightType::f32) {
      float f;
      std::memcpy(&f, in.weights.data() + 4 * i, 4);
      v = f;
    } else {
      std::memcpy(&v, in.weights.data() + 8 * i, 8);
    }
    mags[i] = std::fabs(v);
  }
  return {reference_histogram(as_one_stream(in.p), in.samples.data(), lv),
          reference_weighted(abs, in.samples.data(), mags.data(), lv)};
}

// Runs configuration `c` of p's family (prepared as the runtime prepares it) into d_out.
void run_config(KernelCache& cache, const DeviceInfo& d, const Inputs& in, const ParamValues& c,
                void* d_out) {
  const KernelFamily& f = family_of(in.p);
  const auto launch = f.prepare(cache, cache.get(f.request(c, in.p, d.arch()), f.kernel_name()),
                                c, in.p, d);
  (*launch)(in.p, in.d_samples->ptr, static_cast<std::uint32_t*>(d_out), nullptr);
  HT_CUDA(cudaDeviceSynchronize());
}

std::vector<ParamValues> three_configs(const Problem& p, const DeviceInfo& d) {
  return test::three_weighted_configs(p, d);
}

}  // namespace

TEST(GpuWeighted, FastFormIsWithinTheFloatBoundAndIntegersAreExact) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : kCases)
    for (WeightType w : {WeightType::f32, WeightType::f64, WeightType::i32, WeightType::i64})
      for (std::uint64_t n : kSizes) {
        const Inputs in = inputs_of(k, w, false, n);
        const std::vector<double> ref = reference_weighted(in.p, in.samples.data(),
                                                           in.weights.data(),
                                                           in.levels.empty() ? nullptr : in.levels.data());
        const BinStats st = stats_of(in);
        const double u = w == WeightType::f32 ? 0x1p-24 : w == WeightType::f64 ? 0x1p-53 : 0.0;
        DeviceBytes out(std::size_t{k.bins} * 8);
        for (const ParamValues& c : three_configs(in.p, d)) {
          run_config(cache, d, in, c, out.ptr);
          const std::vector<double> got = read_bins(in.p, out.ptr);
          for (std::uint32_t b = 0; b < k.bins; ++b) {
            const double m = st.counts[b];
            const double tol = (m * u + m * 0x1p-53) * st.abs_sums[b];
            ASSERT_LE(std::fabs(got[b] - ref[b]), tol)
                << k.name << " weights " << to_string(w) << " n=" << n << " "
                << family_of(in.p).label(c) << " bin " << b << ": " << got[b] << " vs " << ref[b];
          }
        }
      }
}

TEST(GpuWeighted, DeterministicIsIdenticalAcrossThreeConfigurationsAndFiveRuns) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : {kCases[0], kCases[2], kCases[5], kCases[7]})
    for (WeightType w : {WeightType::f32, WeightType::f64})
      for (double bound : {0.0, 2.0})  // measured, and the caller's (|w| < 2)
        for (std::uint64_t n : kSizes) {
          Inputs in = inputs_of(k, w, true, n);
          in.p.weight_bound = bound;
          const std::vector<double> ref = reference_weighted(
              in.p, in.samples.data(), in.weights.data(), in.levels.empty() ? nullptr : in.levels.data());
          const BinStats st = stats_of(in);
          // The bound the fixed point was scaled for: the caller's, or the largest |w| (< 2).
          const int s = weighted::fixed_shift(bound > 0 ? bound : 2.0, n);
          const double out_u = w == WeightType::f32 ? 0x1p-24 : 0x1p-53;
          const std::size_t bytes = std::size_t{k.bins} * bin_bytes(in.p);
          DeviceBytes out(bytes);
          std::vector<std::uint8_t> first, now(bytes);
          const auto configs = three_configs(in.p, d);
          ASSERT_EQ(configs.size(), 3u) << k.name;
          for (const ParamValues& c : configs)
            for (int run = 0; run < 5; ++run) {
              run_config(cache, d, in, c, out.ptr);
              HT_CUDA(cudaMemcpy(now.data(), out.ptr, bytes, cudaMemcpyDeviceToHost));
              if (first.empty()) first = now;
              ASSERT_EQ(now, first) << k.name << " weights " << to_string(w) << " bound " << bound
                                    << " n=" << n << " " << family_of(in.p).label(c) << " run "
                                    << run << ": bits differ";
            }
          const std::vector<double> got = read_bins(in.p, out.ptr);
          for (std::uint32_t b = 0; b < k.bins; ++b) {
            // The fixed point's rounding (measured bound: s may be larger, the error smaller),
            // the reference's own, then the one rounding to the output type.
            const double fixed = st.counts[b] * std::ldexp(1.0, -(s + 1));
            const double tol = fixed + st.counts[b] * 0x1p-53 * st.abs_sums[b] +
                               out_u * (std::fabs(ref[b]) + fixed);
            ASSERT_LE(std::fabs(got[b] - ref[b]), tol)
                << k.name << " weights " << to_string(w) << " n=" << n << " bin " << b;
          }
        }
}

TEST(GpuWeighted, NanWeightsMakeTheirBinNan) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (bool det : {false, true}) {
    const Inputs in = inputs_of(kCases[0], WeightType::f32, det, 4097, /*nan_at=*/100);
    const std::vector<double> ref = reference_weighted(in.p, in.samples.data(), in.weights.data());
    DeviceBytes out(256 * 4);
    run_config(cache, d, in, family_of(in.p).fallback(in.p, d), out.ptr);
    const std::vector<double> got = read_bins(in.p, out.ptr);
    int nans = 0;
    for (std::uint32_t b = 0; b < 256; ++b) {
      EXPECT_EQ(std::isnan(got[b]), std::isnan(ref[b])) << "bin " << b << " det " << det;
      nans += std::isnan(got[b]);
    }
    EXPECT_EQ(nans, 1) << "det " << det;
  }
  // Deterministic: a weight beyond the caller's bound marks its bin too.
  Inputs in = inputs_of(kCases[0], WeightType::f64, true, 4097);
  in.p.weight_bound = 1.0;  // the weights reach 2
  DeviceBytes out(256 * 8);
  run_config(cache, d, in, family_of(in.p).fallback(in.p, d), out.ptr);
  int nans = 0;
  for (double v : read_bins(in.p, out.ptr)) nans += std::isnan(v);
  EXPECT_GT(nans, 0);
}

TEST(GpuWeighted, PublicCallsMatchTheReferenceAndRefuseBadInputUntouched) {
  HT_REQUIRE_GPU();
  const Inputs in = inputs_of(kCases[0], WeightType::f64, false, 100003);
  DeviceBytes out(256 * 8);
  const auto* samples = static_cast<const float*>(in.d_samples->ptr);
  const auto* weights = static_cast<const double*>(in.d_weights->ptr);
  auto* bins = static_cast<double*>(out.ptr);
  Status s = histogram_even(samples, weights, in.p.n, 256, 0.0f, 100.0f, bins);
  ASSERT_TRUE(s.ok()) << s.message();
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(last_weighted_choice().label().rfind("w.", 0), 0u) << last_weighted_choice().label();
  const std::vector<double> ref = reference_weighted(in.p, in.samples.data(), in.weights.data());
  std::vector<double> got = read_bins(in.p, out.ptr);
  for (std::uint32_t b = 0; b < 256; ++b) EXPECT_NEAR(got[b], ref[b], 1e-9 * (1 + std::fabs(ref[b])));
  // Deterministic through C: the same bits twice.
  ASSERT_EQ(histtune_histogram_weighted(4, samples, 2, weights, in.p.n, 1, 256, 0, 100, nullptr,
                                        bins, 1, 0.0, nullptr),
            HISTTUNE_OK)
      << histtune_last_error();
  EXPECT_EQ(std::string(histtune_last_configuration()).rfind("wdet.", 0), 0u);
  HT_CUDA(cudaDeviceSynchronize());
  const std::vector<double> det = read_bins(in.p, out.ptr);
  // Host weights (pageable memory) are refused before launch, the output untouched.
  HT_CUDA(cudaMemset(out.ptr, 0x7F, 256 * 8));
  const std::vector<double> before = read_bins(in.p, out.ptr);
  std::vector<double> host_weights(in.p.n, 1.0);
  s = histogram_even(samples, host_weights.data(), in.p.n, 256, 0.0f, 100.0f, bins);
  EXPECT_EQ(s.code(), StatusCode::invalid_argument);
  EXPECT_NE(s.message().find("d_weights"), std::string::npos) << s.message();
  EXPECT_EQ(histtune_histogram_weighted(4, samples, 9, weights, in.p.n, 1, 256, 0, 100, nullptr,
                                        bins, 0, 0.0, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  HT_CUDA(cudaDeviceSynchronize());
  const std::vector<double> after = read_bins(in.p, out.ptr);
  EXPECT_EQ(std::memcmp(before.data(), after.data(), 256 * 8), 0);
  EXPECT_FALSE(det.empty());
}

// The tuner's inputs (integer weights): every configuration's output equals the reference's
// words exactly, fast and deterministic, as the tuner verifies them.
TEST(GpuWeighted, TunerInputsVerifyExactly) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (Family f : {Family::weighted, Family::weighted_det})
    for (const Problem& plan : family(f).plan_problems()) {
      if (weighted::form(plan) != WeightedForm::flat) continue;  // GpuWeightedShapes has those
      Problem p = plan;
      p.n = (std::uint64_t{1} << 22) + 5;
      const std::vector<std::uint8_t> host = tuner::make_inputs(p, 9, tuner::Distribution::skewed);
      const std::vector<std::uint32_t> expect = tuner::reference_of(p, host, {}, {});
      DeviceBytes d_in(host.size()), out(expect.size() * 4);
      HT_CUDA(cudaMemcpy(d_in.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
      p.d_weights = tuner::weights_in(p, d_in.ptr);
      for (const ParamValues& c : three_configs(p, d)) {
        const KernelFamily& fam = family_of(p);
        const auto launch = fam.prepare(
            cache, cache.get(fam.request(c, p, d.arch()), fam.kernel_name()), c, p, d);
        (*launch)(p, d_in.ptr, static_cast<std::uint32_t*>(out.ptr), nullptr);
        std::vector<std::uint32_t> got(expect.size());
        HT_CUDA(cudaMemcpy(got.data(), out.ptr, got.size() * 4, cudaMemcpyDeviceToHost));
        EXPECT_EQ(got, expect) << p.describe() << " " << fam.label(c);
      }
    }
}
