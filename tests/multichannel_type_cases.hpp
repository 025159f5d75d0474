// The multi-channel shapes of issue 25's sample types (i8, i16, f16, bf16, i64, u64, f64), every
// binning each takes, and configurations over every layout: what the NVRTC compile test
// (tests/templates) builds and the GPU test (tests/runtime) runs.
#pragma once

#include <cstdint>

#include "histtune/problem.hpp"

namespace histtune::test {

struct MultiChannelTypeCase {
  SampleType type;
  Binning binning;
  std::uint32_t channels, active, bins;
  double lower = 0, upper = 0;  // even bounds; range: the levels' span (0, 0: the default)
};

// Even in 32-bit arithmetic, with 128-bit products and in double; range levels as a byte table,
// staged and in global memory; 20000 bins: the global layout.
inline constexpr MultiChannelTypeCase kMultiChannelTypeCases[] = {
    {SampleType::i8, Binning::direct, 4, 3, 128},
    {SampleType::i8, Binning::even, 64, 64, 256, -128, 128},
    {SampleType::i8, Binning::range, 4, 4, 255},
    {SampleType::i16, Binning::direct, 4, 3, 1024},
    {SampleType::i16, Binning::even, 64, 40, 100, -32768, 32767},
    {SampleType::i16, Binning::range, 4, 3, 1000},
    {SampleType::f16, Binning::even, 4, 3, 256, -1, 1},
    {SampleType::f16, Binning::range, 64, 64, 300},
    {SampleType::bf16, Binning::even, 64, 64, 64, 0, 300},
    {SampleType::bf16, Binning::range, 4, 4, 2000},
    {SampleType::i64, Binning::direct, 4, 3, 256},
    {SampleType::i64, Binning::even, 64, 64, 256, -1000, 1000},
    {SampleType::i64, Binning::even, 4, 4, 1000, -0x1p63, 0x1p63},
    {SampleType::i64, Binning::range, 4, 3, 1000, -1e15, 1e15},
    {SampleType::u64, Binning::direct, 64, 64, 4096},
    {SampleType::u64, Binning::even, 4, 3, 7, 0, 0x1p64},
    {SampleType::u64, Binning::range, 64, 33, 100, 0, 1e18},
    {SampleType::f64, Binning::even, 4, 3, 256, -1, 1},
    {SampleType::f64, Binning::even, 64, 64, 100, -1e300, 1e300},
    {SampleType::f64, Binning::range, 4, 4, 2047, -500, 500},
    {SampleType::i64, Binning::direct, 4, 4, 20000},
    {SampleType::f64, Binning::range, 4, 4, 20000, -1e300, 1e300},
};

// Rows (one sample a load, four copies), lane-striped, channel-interleaved, groups of 4 with a
// two-phase flush, and the global layout; each case takes those its restrictions allow.
inline constexpr const char* kMultiChannelTypeLabels[] = {
    "mc.tpb256.vpt1.vec0.cpb0.pc1.pad1.bps4.u0.lay0.pf0.tp0",
    "mc.tpb1024.vpt2.vec16.cpb0.pc1.pad0.bps2.u0.lay1.pf1.tp0",
    "mc.tpb1024.vpt2.vec16.cpb32.pc1.pad0.bps1.u0.lay2.pf1.tp0",
    "mc.tpb256.vpt2.vec16.cpb4.pc2.pad1.bps4.u2.lay0.pf0.tp1",
    "mc.tpb512.vpt4.vec16.cpb0.pc4.pad1.bps2.u0.lay0.pf1.tp0",
    "mc.tpb256.vpt2.vec16.cpb0.pc1.pad0.bps8.u0.lay3.pf0.tp0",
};

inline Problem problem_of(const MultiChannelTypeCase& k, std::uint64_t rows) {
  Problem p = multichannel_problem(k.type, k.channels, k.active, rows, k.bins, k.binning);
  p.lower = k.lower;
  p.upper = k.upper;
  bounds_from_doubles(p);  // i64 and u64: the exact bounds
  return p;
}

}  // namespace histtune::test
