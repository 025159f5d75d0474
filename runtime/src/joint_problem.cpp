// A joint problem's builders and its dimensions as 1D problems (problem.hpp), beside the
// family's own code (joint.cpp).
#include <algorithm>
#include <cmath>

#include "histtune/problem.hpp"

namespace histtune {

Problem joint_problem(SampleType t, Binning b, std::uint32_t dims, const std::uint32_t* bins,
                      std::uint64_t n, double lower, double upper) {
  Problem p = flat_problem(t, b, 1, n, lower, upper);
  p.family = Family::joint;
  p.channels = p.active_channels = dims;
  std::uint64_t product = 1;
  for (std::uint32_t d = 0; d < dims && d < kMaxJointDims; ++d) {
    p.joint.bins[d] = bins[d];
    p.joint.lower[d] = lower;
    p.joint.upper[d] = upper;
    product = std::min<std::uint64_t>(product * bins[d], 0xFFFFFFFFull);
  }
  p.num_bins = static_cast<std::uint32_t>(product);
  return p;
}

Problem joint_dim(const Problem& p, std::uint32_t d) {
  Problem one = flat_problem(p.sample_type, p.binning, p.joint.bins[d], p.n, p.joint.lower[d],
                             p.joint.upper[d]);
  one.d_levels = p.joint.d_levels[d];
  return one;
}

void split_joint_bins(Problem& p) {
  const std::uint32_t dims = p.channels;
  if (dims == 0 || dims > kMaxJointDims) return;  // validate() says why
  const auto root = static_cast<std::uint32_t>(
      std::llround(std::pow(static_cast<double>(p.num_bins), 1.0 / dims)));
  std::uint64_t power = 1;
  for (std::uint32_t d = 0; d < dims; ++d) power *= root;
  for (std::uint32_t d = 0; d < dims; ++d)
    p.joint.bins[d] = power == p.num_bins ? root : d == 0 ? p.num_bins : 1;
  p.active_channels = dims;
}

void set_joint_bounds(Problem& p, bool given) {
  if (!given) {
    p.lower = 0;
    p.upper = p.joint.bins[0];
  }
  for (std::uint32_t d = 0; d < p.channels && d < kMaxJointDims; ++d) {
    p.joint.lower[d] = p.lower;
    p.joint.upper[d] = given ? p.upper : p.joint.bins[d];
  }
}

}  // namespace histtune
