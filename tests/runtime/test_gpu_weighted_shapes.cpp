// On the GPU: weighted rows (dense, strided), CSR segments and pixels of channels against the host
// reference. Integer-valued weights (the tuner's, -4 .. 4) sum exactly in every bin type, so the
// fast form is compared word for word in 3 configurations; the deterministic form is bit-identical
// across 3 configurations and 5 runs each and within its documented bound of the reference with
// real weights; NaN weights mark their row's or channel's bin; the public C++ and C calls, and
// their refusal of host weights (output untouched).
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
    {"f32_range_1024", SampleType::f32, Binning::range, 1024},
    {"u16_direct_20000", SampleType::u16, Binning::direct, 20000},
};

enum class Shape { rows, strided, segments, channels };
const Shape kShapes[] = {Shape::rows, Shape::strided, Shape::segments, Shape::channels};
const char* name_of(Shape s) {
  switch (s) {
    case Shape::rows: return "rows";
    case Shape::strided: return "strided";
    case Shape::segments: return "segments";
    case Shape::channels: return "channels";
  }
  return "?";
}

// One call's inputs, host and device: samples, weights (as the samples lie), levels, offsets.
struct Inputs {
  Problem p;
  std::vector<std::uint8_t> samples, weights, levels;
  std::vector<std::int64_t> offsets;
  std::unique_ptr<DeviceBytes> d_samples, d_weights, d_levels, d_offsets;
  const void* lv() const { return levels.empty() ? nullptr : levels.data(); }
  const std::int64_t* off() const { return offsets.empty() ? nullptr : offsets.data(); }
};

std::unique_ptr<DeviceBytes> upload(const void* host, std::size_t bytes) {
  auto d = std::make_unique<DeviceBytes>(std::max<std::size_t>(bytes, 8));
  if (bytes) HT_CUDA(cudaMemcpy(d->ptr, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

// The problem of shape s: 37 rows of 4099 (strided: 4107 apart), 50 segments of 2^20 + 3 samples
// (some empty), or 100003 pixels of 4 channels, 3 counted.
Problem shaped_problem(const Case& k, Shape s, WeightType w, bool det) {
  Problem p = weighted_problem(k.type, w, k.binning, k.bins, 4099, det, k.lower, k.upper);
  if (k.binning == Binning::range) tuner::set_default_level_span(p);
  if (s == Shape::rows || s == Shape::strided) p.rows = 37;
  if (s == Shape::strided) p.row_stride = 4107;
  if (s == Shape::segments) {
    p.rows = 50;
    p.segments = true;
    p.n = (1 << 20) + 3;
  }
  if (s == Shape::channels) {
    p.n = 100003;
    p.channels = 4;
    p.active_channels = 3;
  }
  return p;
}

// Real weights uniform in [-1, 2) (a NaN at nan_at if given), or the tuner's integers.
std::vector<std::uint8_t> weights_of(WeightType w, std::uint64_t count, bool real,
                                     std::int64_t nan_at) {
  if (real) return test::real_weights(w, count, 5, nan_at);
  return tuner::make_weights(weighted_problem(SampleType::u8, w, Binning::direct, 1, count), 11);
}

Inputs inputs_of(const Case& k, Shape s, WeightType w, bool det, bool real,
                 std::int64_t nan_at = -1) {
  Inputs in;
  in.p = shaped_problem(k, s, w, det);
  const std::uint64_t elements =
      s == Shape::strided ? in.p.rows * in.p.row_stride : in.p.total_samples();
  Problem flat = as_one_stream(in.p);
  flat.n = elements;
  in.samples = tuner::make_samples(flat, 3, tuner::Distribution::uniform);
  in.weights = weights_of(w, elements / in.p.channels, real, nan_at);
  if (k.binning == Binning::range) in.levels = tuner::make_levels(in.p);
  if (s == Shape::segments) in.offsets = tuner::make_offsets(in.p, 13);
  in.d_samples = upload(in.samples.data(), in.samples.size());
  in.d_weights = upload(in.weights.data(), in.weights.size());
  in.d_levels = upload(in.levels.data(), in.levels.size());
  in.d_offsets = upload(in.offsets.data(), in.offsets.size() * 8);
  in.p.d_weights = in.d_weights->ptr;
  in.p.d_levels = in.levels.empty() ? nullptr : in.d_levels->ptr;
  in.p.d_offsets =
      in.offsets.empty() ? nullptr : static_cast<const std::int64_t*>(in.d_offsets->ptr);
  return in;
}

std::size_t out_bytes(const Problem& p) {
  return family_of(p).counters(p) * 4;
}

std::vector<std::uint32_t> run_config(KernelCache& cache, const DeviceInfo& d, const Inputs& in,
                                      const ParamValues& c) {
  const KernelFamily& f = family_of(in.p);
  const auto launch = f.prepare(cache, cache.get(f.request(c, in.p, d.arch()), f.kernel_name()),
                                c, in.p, d);
  DeviceBytes out(out_bytes(in.p));
  HT_CUDA(cudaMemset(out.ptr, 0xFF, out_bytes(in.p)));  // the fast form must zero it
  (*launch)(in.p, in.d_samples->ptr, static_cast<std::uint32_t*>(out.ptr), nullptr);
  std::vector<std::uint32_t> got(out_bytes(in.p) / 4);
  HT_CUDA(cudaMemcpy(got.data(), out.ptr, got.size() * 4, cudaMemcpyDeviceToHost));
  return got;
}

// The words as doubles (float, double or int64 bins).
std::vector<double> as_doubles(const Problem& p, const std::vector<std::uint32_t>& words) {
  std::vector<double> out(words.size() * 4 / bin_bytes(p));
  for (std::size_t b = 0; b < out.size(); ++b) {
    if (p.weight_type == WeightType::f32) {
      float f;
      std::memcpy(&f, &words[b], 4);
      out[b] = f;
    } else {
      std::memcpy(&out[b], &words[2 * b], 8);
    }
  }
  return out;
}

// Per bin of the reference: the weights' count and the sum of their |w| (the bounds' terms).
std::pair<std::vector<double>, std::vector<double>> bin_stats(const Inputs& in) {
  Problem abs = in.p;
  abs.weight_type = WeightType::f64;
  const std::size_t count = in.weights.size() / weight_bytes(in.p.weight_type);
  std::vector<double> ones(count, 1.0), mags(count);
  for (std::size_t i = 0; i < count; ++i) {
    double v;
    if (in.p.weight_type == WeightType::f32) {
      float f;
      std::memcpy(&f, in.weights.data() + 4 * i, 4);
      v = f;
    } else {
      std::memcpy(&v, in.weights.data() + 8 * i, 8);
    }
    mags[i] = std::fabs(v);
  }
  return {reference_weighted(abs, in.samples.data(), ones.data(), in.lv(), in.off()),
          reference_weighted(abs, in.samples.data(), mags.data(), in.lv(), in.off())};
}

}  // namespace

TEST(GpuWeightedShapes, FastFormEqualsTheReferenceWordForWord) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : kCases)
    for (Shape s : kShapes)
      for (WeightType w : {WeightType::f32, WeightType::f64, WeightType::i32, WeightType::i64}) {
        const Inputs in = inputs_of(k, s, w, false, false);
        const std::vector<double> sums =
            reference_weighted(in.p, in.samples.data(), in.weights.data(), in.lv(), in.off());
        const std::vector<std::uint32_t> expect = weighted_words(in.p, sums);
        for (const ParamValues& c : test::three_weighted_configs(in.p, d))
          ASSERT_EQ(run_config(cache, d, in, c), expect)
              << k.name << " " << name_of(s) << " weights " << to_string(w) << " "
              << family_of(in.p).label(c);
      }
}

TEST(GpuWeightedShapes, DeterministicIsIdenticalAcrossThreeConfigurationsAndFiveRuns) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (const Case& k : {kCases[0], kCases[1], kCases[2]})
    for (Shape s : kShapes)
      for (WeightType w : {WeightType::f32, WeightType::f64})
        for (double bound : {0.0, 2.0}) {  // measured, and the caller's (|w| < 2)
          Inputs in = inputs_of(k, s, w, true, true);
          in.p.weight_bound = bound;
          const std::vector<double> ref =
              reference_weighted(in.p, in.samples.data(), in.weights.data(), in.lv(), in.off());
          const auto [counts, abs_sums] = bin_stats(in);
          const std::string what = std::string(k.name) + " " + name_of(s) + " weights " +
                                   to_string(w) + " bound " + std::to_string(bound);
          const auto configs = test::three_weighted_configs(in.p, d);
          ASSERT_EQ(configs.size(), 3u) << what;
          std::vector<std::uint32_t> first;
          for (const ParamValues& c : configs)
            for (int run = 0; run < 5; ++run) {
              const std::vector<std::uint32_t> now = run_config(cache, d, in, c);
              if (first.empty()) first = now;
              ASSERT_EQ(now, first) << what << " " << family_of(in.p).label(c) << " run " << run
                                    << ": bits differ";
            }
          // The fixed point's scale for n weights a bin at most and a bound of at most 2.
          const int sh = weighted::fixed_shift(2.0, in.p.n);
          const double out_u = w == WeightType::f32 ? 0x1p-24 : 0x1p-53;
          const std::vector<double> got = as_doubles(in.p, first);
          ASSERT_EQ(got.size(), ref.size()) << what;
          for (std::size_t b = 0; b < ref.size(); ++b) {
            const double fixed = counts[b] * std::ldexp(1.0, -(sh + 1));
            const double tol =
                fixed + counts[b] * 0x1p-53 * abs_sums[b] + out_u * (std::fabs(ref[b]) + fixed);
            ASSERT_LE(std::fabs(got[b] - ref[b]), tol) << what << " bin " << b;
          }
        }
}

TEST(GpuWeightedShapes, NanWeightsMakeTheirBinNanInTheirRowOrChannel) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (Shape s : kShapes)
    for (bool det : {false, true}) {
      const Inputs in = inputs_of(kCases[0], s, WeightType::f32, det, true, /*nan_at=*/4200);
      const std::vector<double> ref =
          reference_weighted(in.p, in.samples.data(), in.weights.data(), in.lv(), in.off());
      const std::vector<double> got =
          as_doubles(in.p, run_config(cache, d, in, family_of(in.p).fallback(in.p, d)));
      ASSERT_EQ(got.size(), ref.size());
      for (std::size_t b = 0; b < ref.size(); ++b)
        ASSERT_EQ(std::isnan(got[b]), std::isnan(ref[b]))
            << name_of(s) << " det " << det << " bin " << b;
    }
}

TEST(GpuWeightedShapes, PublicCallsMatchTheReferenceAndRefuseHostWeightsUntouched) {
  HT_REQUIRE_GPU();
  const Case& k = kCases[0];
  const Inputs rows = inputs_of(k, Shape::strided, WeightType::f32, false, false);
  DeviceBytes out(out_bytes(rows.p));
  auto* bins = static_cast<float*>(out.ptr);
  const auto* x = static_cast<const float*>(rows.d_samples->ptr);
  const auto* w = static_cast<const float*>(rows.d_weights->ptr);
  auto read = [&](const Problem& p) {
    std::vector<std::uint32_t> got(out_bytes(p) / 4);
    HT_CUDA(cudaMemcpy(got.data(), out.ptr, got.size() * 4, cudaMemcpyDeviceToHost));
    return got;
  };
  auto expect = [](const Inputs& in) {
    return weighted_words(in.p, reference_weighted(in.p, in.samples.data(), in.weights.data(),
                                                   in.lv(), in.off()));
  };
  Status st = histogram_batched_even(x, w, rows.p.rows, rows.p.n, rows.p.row_stride, 256, 0.0f,
                                     100.0f, bins);
  ASSERT_TRUE(st.ok()) << st.message();
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(read(rows.p), expect(rows));
  EXPECT_EQ(last_weighted_choice().label().rfind("w.", 0), 0u);
  // Segments and channels through C, deterministic, integer-valued weights: exact.
  const Inputs seg = inputs_of(k, Shape::segments, WeightType::f32, true, false);
  DeviceBytes seg_out(out_bytes(seg.p));
  ASSERT_EQ(histtune_histogram_weighted_segmented(
                4, seg.d_samples->ptr, 1, seg.d_weights->ptr, seg.p.n, seg.p.rows, seg.p.d_offsets,
                1, 256, 0, 100, nullptr, seg_out.ptr, 1, 0.0, nullptr),
            HISTTUNE_OK)
      << histtune_last_error();
  EXPECT_EQ(std::string(histtune_last_configuration()).rfind("wdet.", 0), 0u);
  std::vector<std::uint32_t> seg_got(out_bytes(seg.p) / 4);
  HT_CUDA(cudaMemcpy(seg_got.data(), seg_out.ptr, seg_got.size() * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(seg_got, expect(seg));
  const Case& u8 = kCases[1];
  const Inputs pix = inputs_of(u8, Shape::channels, WeightType::f64, false, false);
  DeviceBytes pix_out(out_bytes(pix.p));
  ASSERT_EQ(histtune_histogram_weighted_multichannel(0, pix.d_samples->ptr, 2, pix.d_weights->ptr,
                                                     pix.p.n, 4, 3, 0, 256, 0, 0, nullptr,
                                                     pix_out.ptr, 0, 0.0, nullptr),
            HISTTUNE_OK)
      << histtune_last_error();
  std::vector<std::uint32_t> pix_got(out_bytes(pix.p) / 4);
  HT_CUDA(cudaMemcpy(pix_got.data(), pix_out.ptr, pix_got.size() * 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(pix_got, expect(pix));
  // Host weights are refused before launch, the output untouched.
  HT_CUDA(cudaMemset(out.ptr, 0x7F, out_bytes(rows.p)));
  const std::vector<std::uint32_t> before = read(rows.p);
  std::vector<float> host_weights(rows.weights.size() / 4, 1.0f);
  st = histogram_batched_even(x, host_weights.data(), rows.p.rows, rows.p.n, rows.p.row_stride,
                              256, 0.0f, 100.0f, bins);
  EXPECT_EQ(st.code(), StatusCode::invalid_argument);
  EXPECT_NE(st.message().find("d_weights"), std::string::npos) << st.message();
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(read(rows.p), before);
}

// The tuner's inputs of the plan's shaped problems (packed rows, segments, channels): every
// configuration's output equals the reference's words, as the tuner verifies them.
TEST(GpuWeightedShapes, TunerInputsVerifyExactly) {
  HT_REQUIRE_GPU();
  const DeviceInfo d = query_device(0);
  KernelCache cache;
  for (Family f : {Family::weighted, Family::weighted_det})
    for (Problem p : family(f).plan_problems()) {
      if (weighted::form(p) == WeightedForm::flat) continue;
      const std::uint64_t rows = std::max<std::uint64_t>(weighted::histograms(p), 1);
      p.n = std::min<std::uint64_t>(p.n, (std::uint64_t{1} << 22) / rows + 5);
      const std::vector<std::int64_t> offsets =
          reads_offsets(p) ? tuner::make_offsets(p, 3) : std::vector<std::int64_t>{};
      const std::vector<std::uint8_t> host = tuner::make_inputs(p, 9, tuner::Distribution::skewed);
      const std::vector<std::uint32_t> expect = tuner::reference_of(p, host, {}, offsets);
      DeviceBytes d_in(host.size());
      HT_CUDA(cudaMemcpy(d_in.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
      const auto d_off = upload(offsets.data(), offsets.size() * 8);
      p.d_weights = tuner::weights_in(p, d_in.ptr);
      p.d_offsets = offsets.empty() ? nullptr : static_cast<const std::int64_t*>(d_off->ptr);
      DeviceBytes out(expect.size() * 4);
      for (const ParamValues& c : test::three_weighted_configs(p, d)) {
        const KernelFamily& fam = family_of(p);
        const auto launch =
            fam.prepare(cache, cache.get(fam.request(c, p, d.arch()), fam.kernel_name()), c, p, d);
        (*launch)(p, d_in.ptr, static_cast<std::uint32_t*>(out.ptr), nullptr);
        std::vector<std::uint32_t> got(expect.size());
        HT_CUDA(cudaMemcpy(got.data(), out.ptr, got.size() * 4, cudaMemcpyDeviceToHost));
        EXPECT_EQ(got, expect) << p.describe() << " " << fam.label(c);
      }
    }
}
