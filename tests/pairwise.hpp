// A pairwise-covering sample of a family's kernels, for the compile sweeps: the fewest kernels
// (greedily) such that every two values of two compile-time parameters that some valid kernel
// combines are combined in a chosen one. Every-n-th sampling reached every value of every
// parameter but not every pair, and took five times the compiles for the 1D family's u8 space.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "histtune/params.hpp"

namespace histtune::test {

// Indices into `configs` (in the order chosen, the first the one covering most pairs), covering
// every pair of compile-time parameter values that occurs among them. Deterministic: ties go to
// the earliest configuration.
template <class C>
std::vector<std::size_t> pairwise_cover(const std::vector<Param<C>>& table,
                                        const std::vector<C>& configs) {
  std::vector<const Param<C>*> ps;
  for (const auto& p : table)
    if (p.compile_time) ps.push_back(&p);
  // Each configuration as the indices of its values, and pair (a, va, b, vb), a < b, numbered.
  const std::size_t k = ps.size();
  std::vector<std::vector<std::size_t>> base(k, std::vector<std::size_t>(k, 0));
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = a + 1; b < k; ++b) {
      base[a][b] = pairs;
      pairs += ps[a]->values.size() * ps[b]->values.size();
    }
  auto value_index = [](const Param<C>& p, int v) {
    for (std::size_t i = 0; i < p.values.size(); ++i)
      if (p.values[i] == v) return i;
    return std::size_t{0};  // not in the table: check() refuses such a configuration first
  };
  std::vector<std::vector<std::uint32_t>> pairs_of(configs.size());
  std::vector<char> wanted(pairs, 0);
  for (std::size_t c = 0; c < configs.size(); ++c) {
    std::vector<std::size_t> v(k);
    for (std::size_t a = 0; a < k; ++a) v[a] = value_index(*ps[a], ps[a]->get(configs[c]));
    for (std::size_t a = 0; a < k; ++a)
      for (std::size_t b = a + 1; b < k; ++b) {
        const std::size_t id = base[a][b] + v[a] * ps[b]->values.size() + v[b];
        pairs_of[c].push_back(static_cast<std::uint32_t>(id));
        wanted[id] = 1;
      }
  }
  std::vector<std::size_t> chosen;
  std::vector<char> taken(configs.size(), 0);
  while (true) {
    std::size_t best = configs.size(), best_new = 0;
    for (std::size_t c = 0; c < configs.size(); ++c) {
      if (taken[c]) continue;
      std::size_t fresh = 0;
      for (std::uint32_t id : pairs_of[c]) fresh += wanted[id];
      if (fresh > best_new) best = c, best_new = fresh;
    }
    if (best == configs.size()) return chosen;  // every pair that occurs is covered
    taken[best] = 1;
    chosen.push_back(best);
    for (std::uint32_t id : pairs_of[best]) wanted[id] = 0;
  }
}

}  // namespace histtune::test
