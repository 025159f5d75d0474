// The grid of a search space: one-step moves along each parameter's rungs and the coupled pairs,
// the neighbourhood and the factorial of a point, the enumeration of the valid points, and the
// families' spaces (their tables as grids, points to configurations and labels and back).
#include <algorithm>
#include <stdexcept>

#include "search_internal.hpp"

namespace histtune::tuner {

int rung_position(const SearchSpace& space, std::size_t k, int index) {
  if (k >= space.sizes.size() || index < 0 || index >= space.sizes[k]) return -1;
  if (k >= space.rungs.size() || space.rungs[k].empty()) return index;
  const std::vector<int>& order = space.rungs[k];
  const auto at = std::find(order.begin(), order.end(), index);
  return at == order.end() ? -1 : static_cast<int>(at - order.begin());
}

int rung_step(const SearchSpace& space, std::size_t k, int index, int dir) {
  if (k >= space.sizes.size() || index < 0 || index >= space.sizes[k]) return -1;
  if (k >= space.rungs.size() || space.rungs[k].empty()) {
    const int j = index + dir;
    return j >= 0 && j < space.sizes[k] ? j : -1;
  }
  const std::vector<int>& order = space.rungs[k];
  const auto at = std::find(order.begin(), order.end(), index);
  if (at == order.end()) return -1;
  const auto pos = (at - order.begin()) + dir;
  return pos >= 0 && pos < static_cast<std::ptrdiff_t>(order.size()) ? order[pos] : -1;
}

std::optional<Point> detail::coupled_step(const SearchSpace& space, const Point& from,
                                          const std::pair<std::size_t, std::size_t>& pair,
                                          int dir) {
  const auto [a, b] = pair;
  if (a >= from.size() || b >= from.size()) return std::nullopt;
  Point q = from;
  q[a] = rung_step(space, a, from[a], dir);
  q[b] = rung_step(space, b, from[b], -dir);
  if (q[a] < 0 || q[b] < 0) return std::nullopt;
  return q;
}

std::optional<Point> repeat_move(const SearchSpace& space, const Point& from, const Point& to) {
  if (from.size() != to.size() || from == to) return std::nullopt;
  Point q = to;
  for (std::size_t k = 0; k < to.size(); ++k) {
    if (from[k] == to[k]) continue;
    const int a = rung_position(space, k, from[k]), b = rung_position(space, k, to[k]);
    if (a < 0 || b < 0) return std::nullopt;
    const int c = b + (b - a);
    if (c < 0 || c >= space.sizes[k]) return std::nullopt;
    q[k] = k < space.rungs.size() && !space.rungs[k].empty() ? space.rungs[k][c] : c;
  }
  return q;
}

std::vector<Point> neighbours(const SearchSpace& space, const Point& centre) {
  return detail::one_step(space, centre,
                          [&space](const Point& q) { return !space.valid || space.valid(q); });
}

std::vector<Point> factorial(const SearchSpace& space, const Point& centre) {
  std::vector<std::size_t> ks;
  for (const std::size_t k : space.interacting)
    if (k < centre.size() && k < space.sizes.size()) ks.push_back(k);
  std::vector<Point> out;
  std::vector<int> dir(ks.size(), -1);  // an odometer over {-1, 0, +1} per parameter
  for (;;) {
    Point q = centre;
    bool on_grid = true;
    for (std::size_t i = 0; i < ks.size() && on_grid; ++i)
      if (dir[i] != 0) {
        q[ks[i]] = rung_step(space, ks[i], centre[ks[i]], dir[i]);
        on_grid = q[ks[i]] >= 0;
      }
    if (on_grid && q != centre && (!space.valid || space.valid(q))) out.push_back(q);
    std::size_t i = 0;
    while (i < dir.size() && dir[i] == 1) dir[i++] = -1;
    if (i == dir.size()) break;
    ++dir[i];
  }
  return out;
}

std::vector<Point> valid_points(const SearchSpace& space, std::size_t* invalid) {
  std::vector<Point> out;
  std::size_t skipped = 0;
  if (space.sizes.empty() ||
      std::any_of(space.sizes.begin(), space.sizes.end(), [](int s) { return s <= 0; }))
    return out;
  Point p(space.sizes.size(), 0);
  while (true) {
    if (!space.valid || space.valid(p))
      out.push_back(p);
    else
      ++skipped;
    int k = static_cast<int>(p.size()) - 1;  // odometer: last parameter varies fastest
    while (k >= 0 && ++p[k] == space.sizes[k]) p[k--] = 0;
    if (k < 0) break;
  }
  if (invalid) *invalid = skipped;
  return out;
}

ParamValues values_of(const KernelFamily& f, const Point& point) {
  const auto& prms = f.params();
  ParamValues v;
  v.reserve(prms.size());  // the search's validity test calls this ~800 times a valid point
  for (std::size_t k = 0; k < prms.size() && k < point.size(); ++k)
    v.push_back(prms[k].values.at(static_cast<std::size_t>(point[k])));
  return v;
}

Point point_of(const KernelFamily& f, const ParamValues& v) {
  const auto& prms = f.params();
  Point p;
  for (std::size_t k = 0; k < prms.size() && k < v.size(); ++k) {
    auto it = std::find(prms[k].values.begin(), prms[k].values.end(), v[k]);
    if (it == prms[k].values.end())
      throw std::invalid_argument(prms[k].name + " = " + std::to_string(v[k]) +
                                  " is not on the family's grid");
    p.push_back(static_cast<int>(it - prms[k].values.begin()));
  }
  return p;
}

namespace {

// A family's grid: the sizes, each parameter's rungs (value indices by value), and the coupled
// pairs among threads per block / blocks per SM and vectors per thread / vector bytes.
void grid_of(const std::vector<ParamSpec>& prms, SearchSpace& s) {
  for (const auto& prm : prms) {
    s.sizes.push_back(static_cast<int>(prm.values.size()));
    std::vector<int> order(prm.values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return prm.values[a] < prm.values[b]; });
    s.rungs.push_back(order);
  }
  auto index = [&](const std::string& key) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < prms.size(); ++k)
      if (key == prms[k].key) return k;
    return std::nullopt;
  };
  for (const auto& [a, b] : {std::pair{"tpb", "bps"}, std::pair{"vpt", "vec"}})
    if (const auto ia = index(a), ib = index(b); ia && ib) s.coupled.emplace_back(*ia, *ib);
  for (const char* key : {"tpb", "pc", "pf"})
    if (const auto k = index(key)) s.interacting.push_back(*k);
  for (const char* key : {"st", "vpt"})
    if (const auto k = index(key)) s.basins.push_back(*k);
  s.blocks_per_sm = index("bps");
}

}  // namespace

SearchSpace search_space(const Problem& p, const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  SearchSpace s;
  grid_of(f.params(), s);
  s.valid = [&f, p, d](const Point& pt) { return f.check(values_of(f, pt), p, d).holds(); };
  return s;
}

std::optional<Point> point_of_label(const std::string& label, const Problem& p,
                                    const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  const std::optional<ParamValues> v = f.parse(label);
  if (!v || !f.check(*v, p, d).holds()) return std::nullopt;
  try {
    return point_of(f, *v);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // a value no longer on the grid
  }
}

}  // namespace histtune::tuner
