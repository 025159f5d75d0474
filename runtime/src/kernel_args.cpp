#include "histtune/kernel_args.hpp"

namespace histtune {

KernelArgs KernelArgs::of(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                          unsigned int row_stride) {
  KernelArgs a;
  a.samples = d_samples;
  a.n = p.n;
  a.num_bins = p.num_bins;
  a.row_stride = row_stride;
  a.lower_i = static_cast<long long>(p.lower);
  a.range_i = static_cast<unsigned long long>(p.upper - p.lower);
  // The kernel divides by range_i through this reciprocal (see ht_bin_of).
  a.recip_i = a.range_i ? ~0ull / a.range_i : 0;
  a.lower_f = static_cast<float>(p.lower);
  a.upper_f = static_cast<float>(p.upper);
  // The host reference computes the same float scale the same way.
  a.scale_f = static_cast<float>(p.num_bins) / (a.upper_f - a.lower_f);
  a.counts = d_counts;
  a.levels = p.d_levels;
  if (p.pitched()) {  // validate(): the pitch is a whole number of samples
    a.row_pixels = p.row_pixels;
    a.row_pitch = p.row_pitch_bytes / sample_bytes(p.sample_type);
  }
  return a;
}

}  // namespace histtune
