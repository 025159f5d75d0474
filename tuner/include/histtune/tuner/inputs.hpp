// Host and device inputs for tuning and testing: random samples of a problem, the host reference
// of them, and a device pool of identical copies that timing rotates through so that inputs
// smaller than L2 are still read from memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histtune/problem.hpp"
#include "histtune/workload.hpp"

namespace histtune::tuner {

// The distributions of bins (workload.hpp, where the families' bench rows name them).
using histtune::Distribution;
using histtune::parse_distribution;
using histtune::to_string;
// The distributions a winner is chosen on, in their order: every one but `mixed`.
const std::vector<Distribution>& benchmark_distributions();

// n samples for p, deterministic in `seed`. Every distribution but `mixed` stays inside the bins.
// Range problems draw inside the bins of make_levels(p).
std::vector<std::uint8_t> make_samples(const Problem& p, std::uint64_t seed,
                                       Distribution dist);

// The levels the tuner uses for a range problem: num_bins + 1 strictly ascending levels of the
// sample's type (float for f32) from p.lower to p.upper, quadratically spaced (narrow bins near
// lower, wide near upper) so that the kernels' searches meet bins of every width: level i is
// lower + (upper - lower) * (t + t^2) / 2 with t = i / num_bins, rounded down for integers. Integer
// spans narrower than 2 x num_bins are spaced evenly instead (quadratic steps would repeat).
// Returned as bytes, like make_samples. Throws invalid_argument when no such levels exist (see
// level_span_problem).
std::vector<std::uint8_t> make_levels(const Problem& p);
// Typed values (samples or levels) as the bytes make_samples and make_levels return.
template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(v.data());
  return {b, b + v.size() * sizeof(T)};
}
// Why make_levels cannot draw levels for p (a span outside the sample type, or narrower than one
// integer per bin); empty when it can.
std::string level_span_problem(const Problem& p);
// The span of levels when a range problem gives none: [0, num_bins] for f32, and
// [0, min(4 x num_bins, the type's largest value)] for integers (uneven, and beyond u8's
// 255 bins no wider than u8 holds); from the type's smallest value where that holds fewer values
// than bins (i32 beyond 2^31 - 1 bins).
void set_default_level_span(Problem& p);

// The problem a stored key names, as `histtune tune` times it: even binning over [lower, upper)
// where given (a recorded call's bounds), else [0, bins), which the key does not keep; range
// binning's levels over the tuner's default span. Throws Error(invalid_argument) for a family
// this build does not know.
Problem problem_of_key(const db::ProblemRow& key, std::optional<double> lower = std::nullopt,
                       std::optional<double> upper = std::nullopt);

// The offsets the tuner cuts a segmented problem's n samples with: p.rows + 1 ascending offsets
// from 0 to n, the rows - 1 inner ones uniform random cuts (deterministic in `seed`), so segment
// lengths are random around their mean n / rows, some of them empty.
std::vector<std::int64_t> make_offsets(const Problem& p, std::uint64_t seed = 11);

// Weighted problems: p.n weights of p.weight_type, integers from -4 to 4 (deterministic in
// `seed`). Their sums are integers far below 2^24 in every bin and every partial sum (a random
// walk over 2^26 of them strays about 2^14.4 from 0), so float, double, int64 and fixed-point
// sums are exact in any order and the GPU's bins equal the reference's bit for bit.
std::vector<std::uint8_t> make_weights(const Problem& p, std::uint64_t seed = 13);
// The tuner's host buffer of a problem: make_samples of as_one_stream(p), and for weighted
// problems their make_weights from weighted::weights_offset(p) on (the device pool's copies
// carry both, so each call's weights rotate with its samples).
std::vector<std::uint8_t> make_inputs(const Problem& p, std::uint64_t seed, Distribution dist);
// The host reference of make_inputs' buffer as the output's 32-bit words: reference_histogram's
// counts, or a weighted problem's weighted_words of reference_weighted.
std::vector<std::uint32_t> reference_of(const Problem& p, const std::vector<std::uint8_t>& inputs,
                                        const std::vector<std::uint8_t>& levels,
                                        const std::vector<std::int64_t>& offsets);
// Where a copy of make_inputs' buffer at `inputs` holds its weights (null for unweighted p).
const void* weights_in(const Problem& p, const void* inputs);

// Owns device memory: `copies` copies of the samples back to back (each 256-byte aligned) and
// the counts buffer.
//
// The L2 rule of histtune's timing: an input smaller than twice the device's L2
// (DeviceInfo::l2_bytes) gets enough copies that the pool is at least twice L2, and every call reads
// the next copy in turn (next(), a cursor that carries on across measurements): a copy was last
// read at least 2 x L2 bytes of reads ago, so it is no longer in L2 and every call reads its
// input from memory, as a call on freshly produced data in another buffer would. Larger inputs
// have one copy: a call streams more than twice L2, so its start has left L2 when the next call
// begins. L2 is not flushed by writing a scratch buffer: the dirty lines such a flush leaves
// would be written back during the timed call and charged to it.
class DeviceInputs {
 public:
  // `levels` (range problems: make_levels' bytes) and `offsets` (segmented problems:
  // make_offsets') are copied to the device once: levels(), offsets().
  DeviceInputs(const Problem& p, const std::vector<std::uint8_t>& host, std::int64_t l2_bytes,
               const std::vector<std::uint8_t>& levels = {},
               const std::vector<std::int64_t>& offsets = {});
  ~DeviceInputs();
  DeviceInputs(const DeviceInputs&) = delete;
  DeviceInputs& operator=(const DeviceInputs&) = delete;

  const void* samples(int rep) const;  // the copy for repetition `rep` (rotates)
  const void* next();                  // the copy after the one next() returned last
  std::uint32_t* counts() const { return d_counts_; }
  const void* levels() const { return d_levels_; }  // null without levels
  const std::int64_t* offsets() const { return d_offsets_; }  // null without offsets
  int copies() const { return copies_; }
  std::vector<std::uint32_t> read_counts(std::uint32_t num_bins) const;
  // Whether the counters equal `expect` (as many words), compared on the device; `expect` is
  // copied there on the first call.
  bool counts_equal(const std::vector<std::uint32_t>& expect);

 private:
  std::uint8_t* d_pool_ = nullptr;
  std::uint32_t* d_counts_ = nullptr;
  std::uint8_t* d_levels_ = nullptr;
  std::int64_t* d_offsets_ = nullptr;
  std::uint32_t* d_expect_ = nullptr;       // counts_equal's expectation
  unsigned long long* d_differ_ = nullptr;  // and its result
  std::size_t expect_words_ = 0;
  std::size_t stride_ = 0;
  int copies_ = 1;
  int cursor_ = 0;
};

}  // namespace histtune::tuner
