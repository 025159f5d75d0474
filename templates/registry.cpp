#include "histtune/templates/registry.hpp"

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>

namespace histtune::templates {

// Generated sources define these; calling them keeps a static-library link from dropping the
// translation units whose only job is to register themselves.
void link_ht_common_cuh();
void link_hist1d_cuh();
void link_multichannel_cuh();
void link_batched_cuh();
void link_read_floor_cuh();
void link_reduce_cuh();
void link_weighted_cuh();
void link_joint_cuh();
void link_counts64_cuh();

namespace {

std::map<std::string, Template, std::less<>>& table() {
  static std::map<std::string, Template, std::less<>> t;
  return t;
}

std::string fnv1a_hex(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool is_header(std::string_view name) { return name.substr(0, 3) == "ht_"; }

// Links every generated source, then keys each template by its source and every shared header's
// (a change to ht_common.cuh changes every kernel), once.
void ensure_linked() {
  static std::once_flag once;
  std::call_once(once, [] {
    link_ht_common_cuh();
    link_hist1d_cuh();
    link_multichannel_cuh();
    link_batched_cuh();
    link_read_floor_cuh();
    link_reduce_cuh();
    link_weighted_cuh();
    link_joint_cuh();
    link_counts64_cuh();
    std::string shared;
    for (const auto& [k, v] : table())
      if (is_header(k)) shared += std::string(v.source);
    for (auto& [k, v] : table()) v.hash = fnv1a_hex(std::string(v.source) + shared);
  });
}

}  // namespace

Registrar::Registrar(const char* name, const char* text, std::size_t size) {
  std::string_view src(text, size);
  table()[name] = Template{name, src, {}};  // hashed by ensure_linked, once all are registered
}

const Template& get(std::string_view name) {
  ensure_linked();
  auto it = table().find(name);
  if (it == table().end()) {
    std::string known;
    for (const auto& [k, v] : table()) known += (known.empty() ? "" : ", ") + k;
    throw std::out_of_range("histtune: no embedded kernel template '" + std::string(name) +
                            "' (embedded: " + known + ")");
  }
  return it->second;
}

std::vector<std::string> headers() {
  ensure_linked();
  std::vector<std::string> out;
  for (const auto& [k, v] : table())
    if (is_header(k)) out.push_back(k);
  return out;
}

std::vector<std::string> names() {
  ensure_linked();
  std::vector<std::string> out;
  for (const auto& [k, v] : table()) out.push_back(k);
  return out;
}

}  // namespace histtune::templates
