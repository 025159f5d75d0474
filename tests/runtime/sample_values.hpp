// Every value of a small sample type, and the edges of 64-bit even bins, for the tests of issue
// 25's types (host and GPU).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace histtune::test {

// Every value of an 8- or 16-bit integer type, lowest first.
template <class T>
std::vector<T> every_value() {
  std::vector<T> v;
  for (long long x = std::numeric_limits<T>::lowest(); x <= std::numeric_limits<T>::max(); ++x)
    v.push_back(static_cast<T>(x));
  return v;
}

// Every 16-bit pattern: every f16 or bf16 value, NaN and infinities included.
inline std::vector<std::uint16_t> every_pattern() { return every_value<std::uint16_t>(); }

}  // namespace histtune::test

namespace histtune::test {

// i64 and u64 even binning, worked out by the edges rather than by the bin rule: bin b of `bins`
// over [lower, lower + range) starts at offset ceil(b * range / bins) (128 bits). For each bin
// in `which`, the samples at its first and last offsets (one where the bin is one value wide);
// `counts` (bins entries) what a histogram of `samples` holds.
template <class T>
struct Edges {
  std::vector<T> samples;
  std::vector<std::uint32_t> counts;
};

template <class T>
Edges<T> even_edges64(std::uint64_t lower_bits, std::uint64_t range, std::uint32_t bins,
                      const std::vector<std::uint32_t>& which) {
  using U = unsigned __int128;
  auto start = [&](std::uint64_t b) {
    return static_cast<std::uint64_t>((U{b} * range + bins - 1) / bins);
  };
  Edges<T> e;
  e.counts.assign(bins, 0);
  for (const std::uint32_t b : which) {
    const std::uint64_t first = start(b), last = start(b + 1ull) - 1;  // start(bins) = range
    if (last < first || last >= range) continue;  // an empty bin (more bins than values)
    e.samples.push_back(static_cast<T>(lower_bits + first));
    ++e.counts[b];
    if (last != first) {
      e.samples.push_back(static_cast<T>(lower_bits + last));
      ++e.counts[b];
    }
  }
  return e;
}

// The bins even_edges64 visits for `bins` bins: the first and last 64 and every 4099th.
inline std::vector<std::uint32_t> edge_bins(std::uint32_t bins) {
  std::vector<std::uint32_t> v;
  for (std::uint64_t b = 0; b < bins; ++b)
    if (b < 64 || b + 64 >= bins || b % 4099 == 0) v.push_back(static_cast<std::uint32_t>(b));
  return v;
}

}  // namespace histtune::test
