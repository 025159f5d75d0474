// Problem builders shared by the tests: a Problem is a plain struct, and each test file used to
// spell out the same field assignments.
#pragma once

#include <cstdint>

#include "histtune/multichannel.hpp"
#include "histtune/problem.hpp"

namespace histtune::test {

// A 1D problem: n samples of type t into `bins` bins (lower and upper for even binning).
inline Problem flat_problem(SampleType t, Binning b, std::uint32_t bins, std::uint64_t n,
                            double lower = 0, double upper = 0) {
  Problem p;
  p.sample_type = t;
  p.binning = b;
  p.num_bins = bins;
  p.n = n;
  p.lower = lower;
  p.upper = upper;
  return p;
}

// A multi-channel problem: `rows` rows of `channels` interleaved samples, the first `active` of
// them counted, "value is bin" unless the caller sets the binning.
inline Problem multichannel_problem(SampleType t, std::uint32_t channels, std::uint32_t active,
                                    std::uint64_t rows, std::uint32_t bins = 256) {
  Problem p;
  p.family = multichannel::kFamily;
  p.sample_type = t;
  p.channels = channels;
  p.active_channels = active;
  p.n = rows;
  p.num_bins = bins;
  return p;
}

}  // namespace histtune::test
