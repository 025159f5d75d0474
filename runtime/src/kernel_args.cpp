#include "histtune/kernel_args.hpp"

#include <cstring>

namespace histtune {
namespace {

long long bits_of(double v) {
  long long b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// 8-byte samples' even binning in the three 64-bit arguments (ht_bin_of reads them so):
// i64 and u64: lower's bits, the range (exact, up to 2^64 - 1), and the reciprocal of
// even_narrow's multiply-high or else the double num_bins / range (the estimate that 128-bit
// products correct); f64: the doubles lower, upper and num_bins / (upper - lower), as bits.
void wide_bounds(const Problem& p, BinningArgs& a) {
  if (p.sample_type == SampleType::f64) {
    a.lower_i = bits_of(p.lower);
    a.range_i = static_cast<unsigned long long>(bits_of(p.upper));
    // The host reference computes the same double scale the same way.
    a.recip_i = static_cast<unsigned long long>(bits_of(p.num_bins / (p.upper - p.lower)));
    return;
  }
  a.lower_i = static_cast<long long>(p.lower_bits);
  a.range_i = even_range64(p);
  if (even_narrow(p))  // range >= 2
    a.recip_i = ~0ull / a.range_i;
  else
    a.recip_i = static_cast<unsigned long long>(
        bits_of(static_cast<double>(p.num_bins) / static_cast<double>(a.range_i)));
}

}  // namespace

BinningArgs BinningArgs::of(const Problem& p) {
  BinningArgs a;
  if (sample_bytes(p.sample_type) == 8) {
    wide_bounds(p, a);
    return a;
  }
  a.lower_i = static_cast<long long>(p.lower);
  a.range_i = static_cast<unsigned long long>(p.upper - p.lower);
  // The kernel divides by range_i through this reciprocal (see ht_bin_of).
  a.recip_i = a.range_i ? ~0ull / a.range_i : 0;
  a.lower_f = static_cast<float>(p.lower);
  a.upper_f = static_cast<float>(p.upper);
  // The host reference computes the same float scale the same way.
  a.scale_f = static_cast<float>(p.num_bins) / (a.upper_f - a.lower_f);
  return a;
}

KernelArgs KernelArgs::of(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                          unsigned int row_stride) {
  KernelArgs a;
  a.samples = d_samples;
  a.n = p.n;
  a.num_bins = p.num_bins;
  a.row_stride = row_stride;
  a.binning = BinningArgs::of(p);
  a.counts = d_counts;
  a.levels = p.d_levels;
  if (p.pitched()) {  // validate(): the pitch is a whole number of samples
    a.row_pixels = p.row_pixels;
    a.row_pitch = p.row_pitch_bytes / sample_bytes(p.sample_type);
  }
  return a;
}

}  // namespace histtune
