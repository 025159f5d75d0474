// Every value of a small sample type, for the tests of issue 25's types (host and GPU).
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
