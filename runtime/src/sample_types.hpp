// The sample types of the public calls, once, as X-macro lists: X(TAG, C_TYPE, CPP_TYPE, BOUND)
// with the C API's type (C has no half types: f16 and bf16 are their 16-bit patterns), the C++
// type and the type of even bins' bounds. The C++ and C entry points instantiate their wrappers
// from these lists, so a type is added in one place.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "histtune/problem.hpp"

#define HT_INTEGERS_UP_TO_4_BYTES(X)                   \
  X(u8, std::uint8_t, std::uint8_t, std::int64_t)      \
  X(u16, std::uint16_t, std::uint16_t, std::int64_t)   \
  X(u32, std::uint32_t, std::uint32_t, std::int64_t)   \
  X(i32, std::int32_t, std::int32_t, std::int64_t)     \
  X(i8, std::int8_t, std::int8_t, std::int64_t)        \
  X(i16, std::int16_t, std::int16_t, std::int64_t)

#define HT_INTEGERS_8_BYTES(X)                         \
  X(i64, std::int64_t, std::int64_t, std::int64_t)     \
  X(u64, std::uint64_t, std::uint64_t, std::uint64_t)

#define HT_FLOATS_UP_TO_4_BYTES(X)                     \
  X(f32, float, float, float)                          \
  X(f16, std::uint16_t, __half, float)                 \
  X(bf16, std::uint16_t, __nv_bfloat16, float)

// Every type of at most 4 bytes (the batched and segmented families take these).
#define HT_TYPES_UP_TO_4_BYTES(X) HT_INTEGERS_UP_TO_4_BYTES(X) HT_FLOATS_UP_TO_4_BYTES(X)
#define HT_INTEGER_TYPES(X) HT_INTEGERS_UP_TO_4_BYTES(X) HT_INTEGERS_8_BYTES(X)
#define HT_ALL_TYPES(X) \
  HT_TYPES_UP_TO_4_BYTES(X) HT_INTEGERS_8_BYTES(X) X(f64, double, double, double)

namespace histtune {
// The SampleType of a C++ sample type, for the templated entry points.
template <class T> constexpr SampleType sample_type_of();
#define HT_TYPE_OF(TAG, C, T, BOUND) \
  template <> constexpr SampleType sample_type_of<T>() { return SampleType::TAG; }
HT_ALL_TYPES(HT_TYPE_OF)
#undef HT_TYPE_OF
}  // namespace histtune
