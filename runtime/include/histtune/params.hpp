// The parameter table of a kernel family's value struct, and what every family derives from it
// the same way: the label (the database key), its parser, the JSON form, the NVRTC defines and
// the full grid of the declared space. A family declares its table once, beside its struct.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "histtune/restriction.hpp"

namespace histtune {

template <class Config>
struct Param {
  const char* name;  // "block_threads"; the define is HT_BLOCK_THREADS
  const char* key;   // label prefix, "tpb"
  std::vector<int> values;  // the searched values, in order of simplicity
  bool compile_time;        // true: an NVRTC define; false: a launch argument
  // The member's value as an int, and back: members may be ints or enums over int.
  int (*get)(const Config&);
  void (*set)(Config&, int);
};

// Param<Config> of the member M (an int or an enum over int): param<&Config::storage>("storage",
// "st", {0, 1, 2}, true).
template <auto M, class T = decltype(M)>
struct ParamOf;
template <auto M, class C, class V>
struct ParamOf<M, V C::*> {
  static Param<C> make(const char* name, const char* key, std::vector<int> values,
                       bool compile_time) {
    return {name, key, std::move(values), compile_time,
            [](const C& c) { return static_cast<int>(c.*M); },
            [](C& c, int v) { c.*M = static_cast<V>(v); }};
  }
};
template <auto M>
auto param(const char* name, const char* key, std::vector<int> values, bool compile_time) {
  return ParamOf<M>::make(name, key, std::move(values), compile_time);
}

namespace params {

template <class C>
bool equal(const std::vector<Param<C>>& t, const C& a, const C& b) {
  for (const auto& p : t)
    if (p.get(a) != p.get(b)) return false;
  return true;
}

// prefix + "tpb256.vpt1...."
template <class C>
std::string label(const std::vector<Param<C>>& t, const C& c, const std::string& prefix = "") {
  std::string s;
  for (const auto& p : t) s += (s.empty() ? "" : ".") + std::string(p.key) + std::to_string(p.get(c));
  return prefix + s;
}

// Inverse of label(). A label may end after `required` fields: parameters added later take
// their first value, so labels written by an earlier version still parse.
template <class C>
std::optional<C> parse(const std::vector<Param<C>>& t, const std::string& text, std::size_t required,
                       const std::string& prefix = "") {
  if (text.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  C c;
  std::istringstream in(text.substr(prefix.size()));
  std::string part;
  std::size_t i = 0;
  for (const auto& p : t) {
    if (!std::getline(in, part, '.')) {
      if (i < required) return std::nullopt;
      p.set(c, p.values.front());
      continue;
    }
    ++i;
    const std::string key = p.key;
    if (part.size() <= key.size() || part.compare(0, key.size(), key) != 0) return std::nullopt;
    const std::string num = part.substr(key.size());
    const auto digit = [](unsigned char ch) { return std::isdigit(ch) != 0; };  // no UB past 0x7F
    if (num.size() > 6 || !std::all_of(num.begin(), num.end(), digit)) return std::nullopt;
    p.set(c, std::stoi(num));
  }
  if (std::getline(in, part, '.')) return std::nullopt;  // trailing fields
  return c;
}

template <class C>
std::string json(const std::vector<Param<C>>& t, const C& c) {
  std::string s = "{";
  for (const auto& p : t)
    s += (s.size() > 1 ? ", \"" : "\"") + std::string(p.name) + "\": " + std::to_string(p.get(c));
  return s + "}";
}

// -DHT_<NAME>=<value> for the compile-time parameters.
template <class C>
std::vector<std::string> defines(const std::vector<Param<C>>& t, const C& c) {
  std::vector<std::string> out;
  for (const auto& p : t) {
    if (!p.compile_time) continue;
    std::string name = p.name;
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    out.push_back("-DHT_" + name + "=" + std::to_string(p.get(c)));
  }
  return out;
}

// Sets the define `name` (HT_...) of defines()' output to `value`: for a family whose parameter
// compiles to fewer distinct programs than it has values.
inline void set_define(std::vector<std::string>& defines, const std::string& name, int value) {
  const std::string head = "-D" + name + "=";
  for (std::string& d : defines)
    if (d.compare(0, head.size(), head) == 0) d = head + std::to_string(value);
}

// Holds when every parameter holds one of its values; else which does not.
template <class C>
Restriction check_values(const std::vector<Param<C>>& t, const C& c) {
  for (const auto& p : t) {
    const int v = p.get(c);
    if (std::find(p.values.begin(), p.values.end(), v) == p.values.end())
      return {RestrictionKind::parameter_value, v, 0, p.name};
  }
  return {};
}

// Every point of the grid (restrictions not applied), the first parameter varying slowest.
template <class C>
std::vector<C> space(const std::vector<Param<C>>& t) {
  std::vector<C> out{C{}};
  for (const auto& p : t) {
    std::vector<C> next;
    for (const auto& c : out)
      for (int v : p.values) {
        C x = c;
        p.set(x, v);
        next.push_back(x);
      }
    out.swap(next);
  }
  return out;
}

// Calls keep_going(config) for every point of the grid, in space()'s order (the last parameter
// varies fastest), until it returns false, without building the grid: the 1D family's has ~22 M
// points, 1.3 GB as a vector. Returns false when stopped early.
template <class C, class F>
bool for_each(const std::vector<Param<C>>& t, F&& keep_going) {
  for (const auto& p : t)
    if (p.values.empty()) return true;
  std::vector<std::size_t> at(t.size(), 0);
  while (true) {
    C c;
    for (std::size_t k = 0; k < t.size(); ++k) t[k].set(c, t[k].values[at[k]]);
    if (!keep_going(c)) return false;
    std::size_t k = t.size();
    while (k > 0 && ++at[k - 1] == t[k - 1].values.size()) at[--k] = 0;
    if (k == 0) return true;
  }
}

}  // namespace params
}  // namespace histtune
