#include "histtune/tuner/bench.hpp"

namespace histtune::tuner {
namespace {

std::string pow2(std::uint64_t n) {
  int e = 0;
  while ((1ull << e) < n) ++e;
  return "2^" + std::to_string(e);
}

BenchRow row(SampleType t, std::uint32_t bins, std::uint64_t n, Distribution dist,
             std::string target) {
  BenchRow r;
  r.problem.sample_type = t;
  r.problem.num_bins = bins;
  r.problem.n = n;
  r.dist = dist;
  r.id = std::string(to_string(t)) + "-" + std::to_string(bins) + "-" + pow2(n) + "-" +
         to_string(dist);
  r.target = std::move(target);
  return r;
}

}  // namespace

std::vector<BenchRow> bench_matrix() {
  using D = Distribution;
  std::vector<BenchRow> m;
  for (int e : {28, 30}) {
    auto u = row(SampleType::u8, 256, 1ull << e, D::uniform, ">= 85% of floor");
    u.min_floor_pct = 85;
    m.push_back(u);
    for (D d : {D::skewed, D::constant, D::runs}) {
      auto r = row(SampleType::u8, 256, 1ull << e, d, e == 28 ? ">= 92% of floor" : "never slower than CUB");
      if (e == 28) r.min_floor_pct = 92;
      m.push_back(r);
    }
  }
  const double us[] = {5, 6, 10};
  for (int i = 0; i < 3; ++i) {
    auto r = row(SampleType::u8, 256, 1ull << (16 + 4 * i), D::uniform,
                 "<= " + std::to_string(static_cast<int>(us[i])) + " us per call");
    r.max_us = us[i];
    m.push_back(r);
  }
  for (std::uint32_t bins : {256u, 4096u})
    for (D d : {D::uniform, D::skewed, D::constant}) {
      auto r = row(SampleType::u32, bins, 1ull << 26, d, ">= 85% of floor");
      r.min_floor_pct = 85;
      m.push_back(r);
    }
  auto u16 = row(SampleType::u16, 1024, 1ull << 27, D::uniform, ">= 85% of floor");
  u16.min_floor_pct = 85;
  m.push_back(u16);
  for (D d : {D::uniform, D::skewed, D::constant}) {
    auto r = row(SampleType::u32, 65536, 1ull << 26, d, ">= 50% of floor");
    r.min_floor_pct = 50;
    m.push_back(r);
  }
  for (int e : {24, 26}) {
    BenchRow r = row(SampleType::f32, static_cast<std::uint32_t>((1ull << e) / 16), 1ull << e,
                     D::uniform, e == 24 ? ">= 5x faster than CUB" : "correct (CUB fails)");
    r.problem.binning = Binning::even;
    r.problem.lower = 0;
    r.problem.upper = 100;
    r.id = "f32-n/16-" + pow2(1ull << e) + "-uniform";
    if (e == 24) r.min_cub_speedup = 5;
    // CUB 3.x faults (illegal address) on 4M bins on the H100 (ANCHORS.md); a fault would end
    // every later row of this process.
    if (e == 26) r.skip_cub = "not run: CUB faults with an illegal memory access at 4M bins";
    m.push_back(r);
  }
  // 7680 x 4320 RGBA pixels, histograms of R, G and B.
  BenchRow rgba = row(SampleType::u8, 256, 7680ull * 4320, D::uniform, ">= 85% of floor");
  rgba.problem.family = Family::multichannel;
  rgba.problem.channels = 4;
  rgba.problem.active_channels = 3;
  rgba.id = "rgba-u8-7680x4320-3of4";
  rgba.min_floor_pct = 85;
  m.push_back(rgba);
  BenchRow mc = row(SampleType::u8, 256, 1048576, D::uniform, "<= 0.20 ms");
  mc.problem.family = Family::multichannel;
  mc.problem.channels = 512;
  mc.problem.active_channels = 512;
  mc.id = "multichannel-1048576x512-u8-256";
  mc.max_us = 200;
  m.push_back(mc);
  return m;
}

}  // namespace histtune::tuner
