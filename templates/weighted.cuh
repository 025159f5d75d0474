// Weighted histograms: sample i adds weights[i] to its bin instead of 1 (numpy.histogram's
// weights=). The bin of a sample is ht_common.cuh's (HtBinning), the same as every family's.
// One kernel for every form (weighted.hpp's WeightedForm): grid y walks rows (dense rows, or
// CSR segments with HT_SEGMENTED=1), grid x a row's samples; pixels of `channels` interleaved
// samples add their one weight to each active channel's histogram.
//
// Technique: each block keeps HT_PRIVATE_COPIES private histograms of accumulators in shared
// memory (one per group of warps, for hot bins), walks the samples in tiles of
// HT_BLOCK_THREADS x HT_ITEMS_PER_THREAD (each thread loads its items' samples and weights,
// coalesced, before it adds any, so that 2 x items loads are in flight), then adds its
// non-zero bins to the zeroed output with one global atomic each. Copies 0 keep no private
// histogram: every weight is an atomic on the output (bins beyond shared memory).
//
// Accumulators (HT_ACC):
//   0  float: f32 weights into float bins. Fast; the sum's order (warps, copies, blocks) varies
//      from run to run and from configuration to configuration, so the last bits do too.
//   1  double: f64 weights into double bins; as 0.
//   2  64-bit integers: i32 and i64 weights into int64 bins (two's complement, exact; a sum
//      beyond int64 wraps).
//   3  64-bit fixed point (the deterministic family): each weight becomes the integer
//      rint(w x 2^s), whose adds are associative, so every order gives the same bits; the
//      finish kernel converts the sums to float or double. s = 62 - e - ceil(log2 n) where
//      2^(e-1) <= B < 2^e for B the caller's bound on |w| (or, when the caller gives 0, the
//      largest finite |w|, found by histtune_weighted_maxabs first): n weights of at most 2^e
//      each cannot reach 2^62. A weight that is NaN, infinite or beyond B marks its bin, which
//      the finish kernel writes as NaN.
//
// Compile-time parameters: those of ht_common.cuh (sample type, binning), HT_WEIGHT_T (float,
// double, int, long long), HT_ACC, HT_BLOCK_THREADS, HT_ITEMS_PER_THREAD, HT_PRIVATE_COPIES,
// HT_BLOCKS_PER_SM (the launch bounds' resident blocks per SM), HT_HIST_STRIDE (accumulators per
// channel of a copy: the bins and a sink for samples in no bin), HT_OUT_DOUBLE (fixed point: the
// finish kernel writes double, else float), HT_SEGMENTED (rows are CSR segments) and
// HT_ONE_CHANNEL (every form but pixels of channels: one sample a weight, compiled in, so the
// flat form's loop is that of a kernel without channels).
#ifndef HT_VECTOR_BYTES
#define HT_VECTOR_BYTES 0  // sample-sized loads: the weights' loads line up with the samples'
#endif
#include "ht_common.cuh"

#ifndef HT_OUT_DOUBLE
#define HT_OUT_DOUBLE 0
#endif
#ifndef HT_SEGMENTED
#define HT_SEGMENTED 0
#endif
#ifndef HT_ONE_CHANNEL
#define HT_ONE_CHANNEL 0
#endif

typedef HT_WEIGHT_T WeightT;
#if HT_ACC == 0
typedef float AccT;
#elif HT_ACC == 1
typedef double AccT;
#else
typedef unsigned long long AccT;  // two's complement sums
#endif

enum : unsigned int {
  kThreads = HT_BLOCK_THREADS,
  kItems = HT_ITEMS_PER_THREAD,
  kCopies = HT_PRIVATE_COPIES,
  kStride = HT_HIST_STRIDE,
  kTile = kThreads * kItems,
};

// The fixed-point exponent s (HT_ACC 3): B is the bound (the caller's, else the measured max).
__device__ __forceinline__ int ht_fixed_shift(double bound, unsigned long long n) {
  int e = 0;
  if (bound > 0) frexp(bound, &e);  // bound = f x 2^e, f in [0.5, 1): bound < 2^e
  const int lg = n > 1 ? 64 - __clzll((long long)(n - 1)) : 0;  // ceil(log2 n)
  return 62 - e - lg;
}

// The bound the fixed point is scaled for: the caller's, or the measured largest finite |w|.
__device__ __forceinline__ double ht_weight_bound(double bound, const unsigned long long* max_word) {
  return bound > 0 ? bound : __longlong_as_double((long long)*max_word);
}

// What one weight adds to an accumulator of AccT; `ok` false when it cannot (fixed point: NaN,
// infinite or beyond the bound).
__device__ __forceinline__ AccT ht_acc_of(WeightT w, double limit, int shift, bool& ok) {
  ok = true;
#if HT_ACC == 0 || HT_ACC == 1
  return (AccT)w;
#elif HT_ACC == 2
  return (AccT)(long long)w;
#else
  const double v = (double)w;
  ok = fabs(v) <= limit;  // false for NaN too
  return ok ? (AccT)__double2ll_rn(ldexp(v, shift)) : (AccT)0;
#endif
}

// The first sample (and weight) of row `row` and how many follow: dense rows at row x stride, n
// each; CSR segments from offsets[row] to offsets[row + 1] (less offsets_base), each clamped to
// [0, n] (a segment ending before it begins is empty), as the batched family's.
__device__ __forceinline__ unsigned long long ht_row_span(unsigned long long row,
                                                          unsigned long long n,
                                                          unsigned long long stride,
                                                          const long long* offsets,
                                                          unsigned long long base,
                                                          unsigned long long& len) {
#if HT_SEGMENTED
  auto clamp = [&](long long o) -> unsigned long long {
    const long long rel = o - (long long)base;
    return rel < 0 ? 0ull : ((unsigned long long)rel > n ? n : (unsigned long long)rel);
  };
  const unsigned long long first = clamp(offsets[row]), end = clamp(offsets[row + 1]);
  len = end > first ? end - first : 0;
  return first;
#else
  len = n;
  return row * stride;
#endif
}

// Rows (grid y, each walked by grid x's blocks) of samples, each sample element i of a row adding
// the row's weight i; with channels, element i is a pixel whose `active` first samples of
// `channels` each add the pixel's weight to their channel's histogram. The output (and the
// marks) hold rows x active x num_bins bins, row after row, channel after channel.
extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS, HT_BLOCKS_PER_SM)
histtune_weighted(const SampleT* __restrict__ samples, const WeightT* __restrict__ weights,
                  unsigned long long n, unsigned int num_bins, long long lower_i,
                  unsigned long long range_i, unsigned long long recip_i, float lower_f,
                  float upper_f, float scale_f, AccT* __restrict__ out,
                  const SampleT* __restrict__ levels, double bound,
                  const unsigned long long* __restrict__ max_word,
                  unsigned int* __restrict__ marks, unsigned long long rows,
                  unsigned long long row_stride, const long long* __restrict__ offsets,
                  unsigned long long offsets_base, unsigned int channels, unsigned int active) {
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  if (HT_ONE_CHANNEL) channels = active = 1u;  // constants from here on: no per-sample loop
  extern __shared__ unsigned long long smem_words[];  // 8-byte aligned for double and int64
  AccT* hist = reinterpret_cast<AccT*>(smem_words);
  const unsigned int copy_words = active * kStride;  // one copy: every channel's bins and sink
  binning.range = ht_range_setup(levels, num_bins, hist + kCopies * copy_words);
  double limit = 0;
  int shift = 0;
#if HT_ACC == 3
  limit = ht_weight_bound(bound, max_word);
  shift = ht_fixed_shift(limit, n);
#endif
  AccT* mine = hist + (threadIdx.x / 32) % (kCopies ? kCopies : 1) * copy_words;
  for (unsigned long long row = blockIdx.y; row < rows; row += gridDim.y) {
    unsigned long long len;
    const unsigned long long first = ht_row_span(row, n, row_stride, offsets, offsets_base, len);
    const SampleT* row_samples = samples + first * channels;
    const WeightT* row_weights = weights + first;
    const unsigned long long out_at = row * active * num_bins;
    if constexpr (kCopies != 0)
      for (unsigned int i = threadIdx.x; i < kCopies * copy_words; i += kThreads) hist[i] = 0;
    __syncthreads();
    for (unsigned long long base = (unsigned long long)blockIdx.x * kTile; base < len;
         base += (unsigned long long)gridDim.x * kTile) {
      SampleT s[kItems];
      WeightT w[kItems];
#pragma unroll
      for (unsigned int k = 0; k < kItems; ++k) {
        const unsigned long long i = base + k * kThreads + threadIdx.x;
        if (i < len) {
          s[k] = row_samples[i * channels];
          w[k] = row_weights[i];
        }
      }
#pragma unroll
      for (unsigned int k = 0; k < kItems; ++k) {
        const unsigned long long i = base + k * kThreads + threadIdx.x;
        if (i >= len) continue;
        bool ok;
        const AccT a = ht_acc_of(w[k], limit, shift, ok);
        for (unsigned int c = 0; c < active; ++c) {
          unsigned int bin;
          const bool in = binning.bin_of(c == 0 ? s[k] : row_samples[i * channels + c], bin);
          if (!ok) {
            // rare: a NaN, infinite or out-of-bound weight
            if (in) atomicOr(marks + out_at + c * num_bins + bin, 1u);
            continue;
          }
          if constexpr (kCopies != 0)
            atomicAdd(mine + c * kStride + (in ? bin : num_bins), a);  // the sink: in no bin
          else if (in)
            atomicAdd(out + out_at + c * num_bins + bin, a);
        }
      }
    }
    if constexpr (kCopies != 0) {
      __syncthreads();
      for (unsigned int b = threadIdx.x; b < active * num_bins; b += kThreads) {
        const unsigned int at = b / num_bins * kStride + b % num_bins;
        AccT sum = 0;
#pragma unroll
        for (unsigned int c = 0; c < kCopies; ++c) sum += hist[c * copy_words + at];
        // A zero adds nothing, and skipping it keeps a NaN's or -0's bits as they are.
        if (sum != 0) atomicAdd(out + out_at + b, sum);
      }
      __syncthreads();  // before the next row zeroes the copies
    }
  }
}

// The largest finite |w| of the weights a call reads (rows of n, row_stride apart; one row of n
// for the other forms), as the bits of a double (non-negative doubles order as their bits), into
// *max_word (zeroed by the caller): what the fixed point is scaled for when the caller gives no
// bound.
extern "C" __global__ void __launch_bounds__(256)
histtune_weighted_maxabs(const WeightT* __restrict__ weights, unsigned long long n,
                         unsigned long long rows, unsigned long long row_stride,
                         unsigned long long* __restrict__ max_word) {
  double m = 0;
  const unsigned long long count = rows * n;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const double v = fabs((double)weights[i / n * row_stride + i % n]);
    if (v <= 1.7976931348623157e308) m = fmax(m, v);  // NaN and infinities are marked instead
  }
  for (int d = 16; d > 0; d /= 2) m = fmax(m, __shfl_xor_sync(0xFFFFFFFFu, m, d));
  if (threadIdx.x % 32 == 0 && m > 0) atomicMax(max_word, (unsigned long long)__double_as_longlong(m));
}

// Fixed point to the output (num_bins: every bin of the call, of every row and channel): bin b is
// sums[b] x 2^-s (one rounding to double, then for float
// output one more, both to nearest: the same bits every time), or NaN where a weight marked it.
extern "C" __global__ void __launch_bounds__(256)
histtune_weighted_finish(const unsigned long long* __restrict__ sums,
                         const unsigned int* __restrict__ marks, unsigned long long num_bins,
                         unsigned long long n, double bound,
                         const unsigned long long* __restrict__ max_word, void* out) {
  const int shift = ht_fixed_shift(ht_weight_bound(bound, max_word), n);
  for (unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       b < num_bins; b += (unsigned long long)gridDim.x * blockDim.x) {
    const double v = marks[b] ? __longlong_as_double(0x7FF8000000000000ll)
                              : ldexp((double)(long long)sums[b], -shift);
#if HT_OUT_DOUBLE
    static_cast<double*>(out)[b] = v;
#else
    static_cast<float*>(out)[b] = (float)v;
#endif
  }
}
