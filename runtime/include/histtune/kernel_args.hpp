#pragma once
// The scalar arguments of every histtune kernel, in their parameter order: hist1d.cuh and
// multichannel.cuh take the same list (the binning scalars are those ht_bin_of in
// ht_common.cuh expects), so one struct fills both.

#include <array>
#include <cstdint>

#include "histtune/problem.hpp"

namespace histtune {

// The binning's scalars, in the order every kernel takes them (ht_common.cuh's HtBinning).
// Integer even binning: lower, upper - lower and the reciprocal the kernel divides by. 8-byte
// samples put other things in these 64 bits (kernel_args.cpp's wide_bounds): i64 and u64 their
// exact lower bound's bits, range and the narrow reciprocal or a double estimate of
// num_bins / range; f64 its double lower, upper and scale.
struct BinningArgs {
  long long lower_i = 0;
  unsigned long long range_i = 0;
  unsigned long long recip_i = 0;
  float lower_f = 0, upper_f = 0, scale_f = 0;
  // A call's bounds (they come from the call, not the shape).
  static BinningArgs of(const Problem& p);
};

struct KernelArgs {
  const void* samples = nullptr;
  unsigned long long n = 0;  // samples (1D) or rows of channels (multi-channel)
  unsigned int num_bins = 0;
  unsigned int row_stride = 0;  // words per private row, from the family's geometry
  BinningArgs binning;
  unsigned int* counts = nullptr;
  const void* levels = nullptr;  // range binning's d_levels; unused by the other binnings
  // Multi-channel row pitch, read by the pitched kernel variant (HT_PITCHED) only: rows per image
  // row and samples between image row starts; 0 and 0 unless Problem::pitched().
  unsigned long long row_pixels = 0;
  unsigned long long row_pitch = 0;
  // Bin-range slices, from the family's geometry (hist1d.cuh's HT_SLICED kernels); 1 elsewhere.
  unsigned int slices = 1;
  // What cudaLaunchKernel takes: the address of each argument above.
  std::array<void*, 15> pointers() {
    BinningArgs& b = binning;
    return {&samples,  &n,         &num_bins, &row_stride, &b.lower_i,  &b.range_i, &b.recip_i,
            &b.lower_f, &b.upper_f, &b.scale_f, &counts,    &levels,     &row_pixels, &row_pitch,
            &slices};
  }
  // The arguments of one call of `p`; the bounds, levels and pitch come from the call, not the
  // shape.
  static KernelArgs of(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                       unsigned int row_stride);
};

}  // namespace histtune
