// Shared by every kernel template (included through NVRTC's header list): the sample type, the
// sample-to-bin mapping and the vector-load helpers. Compile-time parameters used here:
//   HT_SAMPLE_T          unsigned char | unsigned short | unsigned int | int | float
//   HT_BINNING           0: the sample value is the bin; 1: even bins over [lower, upper)
//   HT_SAMPLE_IS_FLOAT   1 for float samples (even binning in float arithmetic)
//   HT_EVERY_VALUE_A_BIN 1 when binning is direct and num_bins covers every value of the type
#pragma once

#ifndef HT_SAMPLE_T
#error "HT_SAMPLE_T must be defined"
#endif

typedef HT_SAMPLE_T SampleT;

// "#pragma unroll HT_UNROLL" would not expand the macro: _Pragma with the value stringified does.
#define HT_PRAGMA(x) _Pragma(#x)
#define HT_UNROLL_LOOP(n) HT_PRAGMA(unroll n)

// Maps one sample to its bin; returns false for samples that fall in no bin. The host
// reference (runtime/src/reference.cpp) computes exactly the same arithmetic.
__device__ __forceinline__ bool ht_bin_of(SampleT s, unsigned int num_bins, long long lower_i,
                                          unsigned long long range_i, unsigned long long recip_i,
                                          float lower_f, float upper_f, float scale_f,
                                          unsigned int& bin) {
#if HT_BINNING == 0
  // Negative int32 samples become huge unsigned values and are ignored like values >= bins.
  bin = (unsigned int)s;
#if HT_EVERY_VALUE_A_BIN
  return true;  // num_bins covers the sample type (u8 with 256 bins): no compare per sample
#else
  return bin < num_bins;
#endif
#elif HT_SAMPLE_IS_FLOAT
  if (!(s >= lower_f && s < upper_f)) return false;  // also rejects NaN
  unsigned int b = (unsigned int)((s - lower_f) * scale_f);
  bin = b < num_bins ? b : num_bins - 1;  // rounding can land on num_bins just below upper
  return true;
#else
  long long d = (long long)s - lower_i;
  if (d < 0 || (unsigned long long)d >= range_i) return false;
  // bin = x / range exactly, without a division: x < 2^64 (d < 2^32, num_bins < 2^32) and
  // recip_i = floor((2^64 - 1) / range), so umulhi(x, recip_i) is at most 2 below the quotient;
  // two remainder corrections (which cannot overflow) finish it.
  const unsigned long long x = (unsigned long long)d * num_bins;
  unsigned long long q = __umul64hi(x, recip_i);
  unsigned long long r = x - q * range_i;
  if (r >= range_i) { ++q; r -= range_i; }
  if (r >= range_i) ++q;
  bin = (unsigned int)q;
  return true;
#endif
}

// Sample k (0 .. 4/sizeof(SampleT) - 1) of a 32-bit word, little-endian like memory.
template <int K>
__device__ __forceinline__ SampleT ht_sample_of(unsigned int w) {
  if (sizeof(SampleT) == 1) return (SampleT)((w >> (8 * K)) & 0xFFu);
  if (sizeof(SampleT) == 2) return (SampleT)((w >> (16 * K)) & 0xFFFFu);
  union {
    unsigned int u;
    SampleT s;
  } x;
  x.u = w;
  return x.s;
}

template <int Words> struct HtVec;
template <> struct HtVec<0> { typedef SampleT T; };  // sample-sized loads
template <> struct HtVec<1> { typedef unsigned int T; };
template <> struct HtVec<2> { typedef uint2 T; };
template <> struct HtVec<4> { typedef uint4 T; };

__device__ __forceinline__ unsigned int ht_word(unsigned int v, int) { return v; }
__device__ __forceinline__ unsigned int ht_word(unsigned short v, int) { return v; }
__device__ __forceinline__ unsigned int ht_word(unsigned char v, int) { return v; }
__device__ __forceinline__ unsigned int ht_word(int v, int) { return (unsigned int)v; }
__device__ __forceinline__ unsigned int ht_word(float v, int) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned int ht_word(uint2 v, int i) { return i == 0 ? v.x : v.y; }
__device__ __forceinline__ unsigned int ht_word(uint4 v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

