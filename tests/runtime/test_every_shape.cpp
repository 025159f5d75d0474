// Every valid problem runs (issue 27): the dispatcher refuses a call whose built-in default fails
// the restrictions (dispatcher.cpp, resolve), so each family's fallback must hold for every problem
// validate() accepts, on every architecture describe_arch knows. A seeded sweep of shapes drawn
// around the limits that change a family's choice (shared-memory copies, slices, partitions,
// channels, rows, dimensions), on each architecture with a small and a large memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "histtune/families.hpp"
#include "histtune/jit.hpp"

namespace histtune {
namespace {

// Bin counts around the boundaries where choices change: powers of two and one past them, the
// shared-memory limits of the listed architectures (in words), and the largest counts.
std::uint32_t draw_bins(std::mt19937_64& rng) {
  static const std::uint32_t kEdges[] = {1,      2,       10,      64,      256,     257,
                                         4096,   4097,    12288,   16383,   16384,   16385,
                                         24576,  25343,   25344,   40959,   41472,   56832,
                                         57856,  58112,   65535,   65536,   65537,   131072,
                                         131073, 1 << 20, 1 << 21, (1 << 21) + 1, 1 << 22,
                                         1 << 25, (1 << 25) + 1, 1u << 28, 0x7FFFFFFFu};
  const std::uint32_t edge = kEdges[rng() % std::size(kEdges)];
  switch (rng() % 3) {
    case 0: return edge;
    case 1: return edge > 8 ? edge - static_cast<std::uint32_t>(rng() % 8) : edge;
    default: return 1 + static_cast<std::uint32_t>(rng() % (std::uint64_t{1} << (1 + rng() % 26)));
  }
}

std::uint64_t draw_n(std::mt19937_64& rng) {
  static const std::uint64_t kNs[] = {0, 1, 3, 31, 1000, 4097, 1 << 16, 1 << 20, (1 << 24) + 5,
                                      1ull << 28, 0xFFFFFFFFull};
  return kNs[rng() % std::size(kNs)];
}

SampleType draw_type(std::mt19937_64& rng) {
  return kSampleTypes[rng() % std::size(kSampleTypes)];
}

// Even bounds a type can hold with num_bins bins; direct for integers half the time.
void draw_binning(std::mt19937_64& rng, Problem& p) {
  p.binning = !is_float(p.sample_type) && rng() % 2 ? Binning::direct
              : rng() % 4 == 0                       ? Binning::range
                                                     : Binning::even;
  if (p.binning == Binning::even) {
    p.lower = 0;
    p.upper = is_float(p.sample_type) ? 1.0 : 250.0;
    if (p.sample_type == SampleType::i8) p.upper = 127;
    bounds_from_doubles(p);
  }
}

// One problem of family f, not yet validated.
Problem draw(Family f, std::mt19937_64& rng) {
  const SampleType t = draw_type(rng);
  const std::uint32_t bins = draw_bins(rng);
  const std::uint64_t n = draw_n(rng);
  Problem p;
  switch (f) {
    case Family::multichannel: {
      const std::uint32_t c = 1 + static_cast<std::uint32_t>(rng() % (rng() % 2 ? 8 : 600));
      p = multichannel_problem(t, c, 1 + static_cast<std::uint32_t>(rng() % c), n / c, bins);
      break;
    }
    case Family::batched:
    case Family::segmented: {
      const std::uint64_t rows = 1 + rng() % (rng() % 2 ? 16 : 100000);
      p = f == Family::batched ? batched_problem(t, Binning::direct, bins, rows, n / rows)
                               : segmented_problem(t, Binning::direct, bins, rows, n);
      break;
    }
    case Family::weighted:
    case Family::weighted_det: {
      const WeightType w = static_cast<WeightType>(1 + rng() % 4);
      p = weighted_problem(t, w, Binning::direct, bins, n, f == Family::weighted_det);
      break;
    }
    case Family::joint: {
      const std::uint32_t dims = 1 + static_cast<std::uint32_t>(rng() % kMaxJointDims);
      std::uint32_t each[kMaxJointDims] = {};
      for (std::uint32_t d = 0; d < dims; ++d)
        each[d] = 1 + static_cast<std::uint32_t>(rng() % (rng() % 2 ? 64 : 5000));
      p = joint_problem(rng() % 2 ? SampleType::f32 : SampleType::u8, Binning::even, dims, each,
                        n, 0, rng() % 2 ? 1.0 : 250.0);
      return p;
    }
    default: p = flat_problem(t, Binning::direct, bins, n);
  }
  draw_binning(rng, p);
  return p;
}

// Each listed architecture's limits, with a small and a large memory (the two-phase partials'
// bound is a share of it).
std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (const auto& [major, minor] : std::vector<std::pair<int, int>>{
           {7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0}, {10, 0}, {12, 0}})
    for (const std::int64_t gib : {8, 141}) {
      DeviceInfo d = *describe_arch(major, minor);
      d.uuid = "GPU-sweep";
      d.memory_bytes = gib << 30;
      out.push_back(d);
    }
  return out;
}

TEST(EveryShape, EachFamilysDefaultHoldsForEveryValidProblemOnEveryArchitecture) {
  const std::vector<DeviceInfo> ds = devices();
  std::mt19937_64 rng(27);
  for (const KernelFamily* f : families()) {
    int valid = 0, refused = 0;
    for (int i = 0; i < 1500; ++i) {
      const Problem p = draw(f->id(), rng);
      if (!validate(p).empty()) continue;
      ++valid;
      for (const DeviceInfo& d : ds) {
        const ParamValues c = f->fallback(p, d);
        const Restriction r = f->check(c, p, d);
        if (!r.holds() && ++refused <= 10)
          ADD_FAILURE() << p.describe() << " on " << d.name << " (" << (d.memory_bytes >> 30)
                        << " GiB): " << f->label(c) << ": " << r.message();
      }
    }
    EXPECT_EQ(refused, 0) << f->name();
    EXPECT_GT(valid, 300) << f->name() << ": the sweep must draw valid problems";
  }
}

// The defaults those sweeps choose compile for the architectures besides sm_80 and sm_90 (which
// the compile sweeps cover) whose limits differ: sm_75 (1,024 threads, 64 KiB, 2^13-bin
// partitions), sm_86 and sm_120 (1,536 threads, 99 KiB). Two programs a family and architecture.
TEST(EveryShape, TheDefaultsCompileForTheOtherArchitectures) {
  std::mt19937_64 rng(28);
  for (const KernelFamily* f : families())
    for (const auto& [major, minor] : std::vector<std::pair<int, int>>{{7, 5}, {8, 6}, {12, 0}}) {
      DeviceInfo d = *describe_arch(major, minor);
      d.memory_bytes = std::int64_t{16} << 30;
      if (!nvrtc_compiles_for(d.arch())) continue;
      std::set<std::string> compiled;
      for (int i = 0; i < 500 && compiled.size() < 2; ++i) {
        const Problem p = draw(f->id(), rng);
        if (!validate(p).empty()) continue;
        for (const CompileRequest& r : f->programs(f->fallback(p, d), p, d.arch()))
          if (compiled.insert(cache_key(r)).second) {
            EXPECT_NO_THROW(compile_here(r)) << f->name() << " sm_" << d.arch() << " " << r.label;
          }
      }
      EXPECT_EQ(compiled.size(), 2u) << f->name() << " sm_" << d.arch();
    }
}

}  // namespace
}  // namespace histtune
