// 16-bit floating-point samples on the host: IEEE binary16 (f16) and bfloat16 (bf16) held as
// their bit patterns in std::uint16_t, as the f16 and bf16 calls take them (histtune.hpp). The
// host reference bins from these conversions; the kernels convert on their own (ht_common.cuh).
#pragma once

#include <cstdint>

namespace histtune {

// Exact: every binary16 and bfloat16 value is a float (NaN stays NaN, infinities stay infinite).
float f16_to_float(std::uint16_t bits);
float bf16_to_float(std::uint16_t bits);
// Round to nearest, ties to even (CUDA's __float2half_rn and __float2bfloat16_rn); values beyond
// the largest finite one round to infinity, NaN stays a (quiet) NaN.
std::uint16_t float_to_f16(float v);
std::uint16_t float_to_bf16(float v);

}  // namespace histtune
