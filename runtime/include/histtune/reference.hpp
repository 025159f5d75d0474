// The host reference every GPU result is compared against, bit for bit. Its bin arithmetic is
// the kernel's (templates/hist1d.cuh, ht_bin_of), written once more on the host on purpose:
// two independent writings of one definition.
#pragma once

#include <cstdint>
#include <vector>

#include "histtune/problem.hpp"

namespace histtune {

// Histogram of p.n host samples of p.sample_type at `samples`; for multi-channel problems, the
// active channels' histograms one after another (p.n rows of p.channels samples; with a row
// pitch, p.image_rows() image rows p.row_pitch_bytes apart, the bytes between them not read).
// Range binning reads p.num_bins + 1 host `levels` of the sample's type (float for f32; f16 and
// bf16 samples and levels are 16-bit patterns, converted by histtune/half.hpp's functions);
// p.d_levels is not read. i64 and u64 even bounds are p.lower_bits and p.upper_bits. A pitched problem that validate() refuses throws invalid_argument.
// Batched problems: p.rows histograms one after another, row r's n samples starting r x
// p.row_stride samples in (p.n when 0); segmented ones: row r's samples offsets[r] ..
// offsets[r + 1] - 1 of the p.n host samples, from the p.rows + 1 host `offsets` (each clamped to
// [0, n], an end before its begin an empty row, as the kernel reads them; p.d_offsets is not read).
std::vector<std::uint32_t> reference_histogram(const Problem& p, const void* samples,
                                               const void* levels = nullptr,
                                               const std::int64_t* offsets = nullptr);

// Joint problems (reference_histogram takes their interleaved even ones): the product of the
// bins, row-major, each tuple counted where every dimension's 1D rules above give it a bin. The
// tuples are p.n x p.channels interleaved host values at `samples`, or (columns non-null) the
// p.n values of dimension d at columns[d]; range binning reads dimension d's p.joint.bins[d] + 1
// host edges at levels[d].
std::vector<std::uint32_t> reference_joint(const Problem& p, const void* samples,
                                           const void* const* columns = nullptr,
                                           const void* const* levels = nullptr);

// Weighted problems: the sum in double, in sample order, of the host weights (p.weight_count()
// of p.weight_type, laid out as weighted.hpp's forms say) of each bin's samples (the bin rules
// above); a NaN weight makes its bin NaN. Rows and segments: a histogram a row, one after another
// (segments read the host offsets, clamped as the kernel clamps them); pixels of channels: a
// histogram an active channel, each sample of pixel i adding weight i.
// What the GPU's float sums are held to within a tolerance, and the deterministic mode within its
// bound (docs/api.md).
std::vector<double> reference_weighted(const Problem& p, const void* samples, const void* weights,
                                       const void* levels = nullptr,
                                       const std::int64_t* offsets = nullptr);
// Sums as the output's bins, as 32-bit words: float, double or int64 (bin_bytes(p)), each rounded
// to nearest. Equal to the GPU's words wherever the sums are exact (the tuner's integer weights).
std::vector<std::uint32_t> weighted_words(const Problem& p, const std::vector<double>& sums);

}  // namespace histtune
