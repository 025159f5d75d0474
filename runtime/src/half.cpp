#include "histtune/half.hpp"

#include <cmath>
#include <cstring>

namespace histtune {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::uint32_t to_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

float f16_to_float(std::uint16_t bits) {
  const float sign = (bits & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  if (exponent == 0x1F) return mantissa ? std::nanf("") : sign * INFINITY;
  // Subnormals are mantissa x 2^-24; normals (1024 + mantissa) x 2^(exponent - 25). Both exact.
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

float bf16_to_float(std::uint16_t bits) { return from_bits(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t float_to_f16(float v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000u : 0u;
  if (std::isnan(v)) return 0x7E00u;
  const float a = std::fabs(v);
  if (a >= 65520.0f) return sign | 0x7C00u;  // halfway past 65504 and beyond: infinity
  // Scale to units of the result's last place and round there (ties to even, the default
  // rounding mode of nearbyint); subnormals have the fixed unit 2^-24.
  int e = 0;
  std::frexp(a, &e);                 // a = m x 2^e, m in [0.5, 1)
  const int unit = e - 11 < -24 ? -24 : e - 11;  // 11 significant bits
  const auto q = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(a, -unit)));
  if (q == 0) return sign;  // zero, or below half the smallest subnormal
  // q x 2^unit is (1024 + mantissa) x 2^(biased - 25) for a normal, mantissa x 2^-24 for a
  // subnormal (biased 1, q < 1024): both encode as ((biased - 1) << 10) + q. A q of 2^11 after
  // rounding up carries into the exponent field, as the next binade's encoding wants.
  const auto biased = static_cast<std::uint32_t>(unit + 25);
  return static_cast<std::uint16_t>(sign | (((biased - 1) << 10) + q));
}

std::uint16_t float_to_bf16(float v) {
  if (std::isnan(v)) return static_cast<std::uint16_t>((to_bits(v) >> 16) | 0x0040u);
  const std::uint32_t u = to_bits(v);
  // Round the 16 dropped bits to nearest, ties to even; a carry moves into the exponent (and
  // past the largest finite value into infinity), as the format intends.
  const std::uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}

}  // namespace histtune
