// Shared by the histogram kernel templates (included through NVRTC's header list): the sample
// type, the sample-to-bin mapping and the vector-load helpers. Compile-time parameters used here:
//   HT_SAMPLE_T          unsigned char | unsigned short | unsigned int | int | float |
//                        signed char | short (f16 and bf16 samples: unsigned short, their bits) |
//                        long long | unsigned long long | double (8-byte samples: two words each;
//                        their even bounds come in the 64-bit arguments, see ht_even64)
//   HT_SAMPLE_HALF       0 (default); 1: the samples are IEEE binary16 bits; 2: bfloat16 bits.
//                        The bin rules compare the sample converted to float; NaN and infinities
//                        are never counted. Range levels are half bits too, compared as floats.
//   HT_BINNING           0: the sample value is the bin; 1: even bins over [lower, upper);
//                        2: bins between caller-given ascending levels (binary search)
//   HT_SAMPLE_IS_FLOAT   1 for float samples (even binning in float arithmetic)
//   HT_EVERY_VALUE_A_BIN 1 when binning is direct and num_bins covers every value of the type
//   HT_EVEN_NARROW       1: even binning of integer samples in 32-bit arithmetic (the host's
//                        histtune::even_narrow says when it is exact)
//   HT_RANGE_MODE        binning 2 only: 0 search the levels in global memory; 1 stage them in
//                        shared memory and search there; 2 (u8, i8) a 256-entry byte -> bin table
//                        in shared memory; 3 an index of every 2^shift-th level in shared memory,
//                        then a window of levels in global memory (histtune::range_mode says when
//                        each is used; mode 3 also takes HT_RANGE_INDEX_BYTES, the index's limit,
//                        or HT_RANGE_SHIFT, the shift itself: hist1d.cuh's HT_PART_VALUES,
//                        whose index a grid of HT_RANGE_GRID_CELLS cells bounds: HtGrid)
//   HT_VECTOR_BYTES      bytes per load: 0 (one sample), 4, 8 or 16
//   HT_UNROLL            unroll depth of the kernels' tile loops (0: the compiler's choice)
#pragma once

#ifndef HT_SAMPLE_T
#error "HT_SAMPLE_T must be defined"
#endif

typedef HT_SAMPLE_T SampleT;

#ifndef HT_SAMPLE_HALF
#define HT_SAMPLE_HALF 0
#endif

// What the bin rules compare: the sample itself, or a half's value as a float.
#if HT_SAMPLE_HALF
typedef float HtValueT;
#else
typedef SampleT HtValueT;
#endif

// The value of a sample (or a range level). No cuda_fp16.h (NVRTC has no include path for it):
// binary16 converts exactly with one PTX cvt; bfloat16 is a float's upper 16 bits.
__device__ __forceinline__ HtValueT ht_value(SampleT s) {
#if HT_SAMPLE_HALF == 1
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(s));
  return f;
#elif HT_SAMPLE_HALF == 2
  return __uint_as_float((unsigned int)s << 16);
#else
  return s;
#endif
}

// "#pragma unroll HT_UNROLL" would not expand the macro: _Pragma with the value stringified does.
#define HT_PRAGMA(x) _Pragma(#x)
#define HT_UNROLL_LOOP(n) HT_PRAGMA(unroll n)

// Range binning through an index in shared memory (levels too many to stage there).
#if HT_BINNING == 2 && HT_RANGE_MODE == 3
#define HT_RANGE_INDEXED 1
#ifndef HT_RANGE_INDEX_BYTES
#error "range mode 3 needs HT_RANGE_INDEX_BYTES (histtune::sample_defines)"
#endif
#else
#define HT_RANGE_INDEXED 0
#endif

// The grid serves range binning of 4-byte samples with partitioned storage only (hist1d.cuh's
// HT_PART_VALUES; its partition pass also has HT_RANGE_SHIFT).
#if HT_BINNING == 2 && (defined(HT_RANGE_SHIFT) || HT_PART_VALUES)
static_assert(sizeof(HtValueT) == 4 && !HT_SAMPLE_HALF, "HtGrid is for u32, i32 and f32 samples");
// A value's offset above `base` as a float, non-decreasing in the value (what HtGrid needs): f32
// by one rounded subtraction, u32 and i32 by their exact 32-bit difference, rounded. Values below
// `base` give any offset.
__device__ __forceinline__ float ht_grid_offset(HtValueT x, HtValueT base) {
#if HT_SAMPLE_IS_FLOAT
  return __fsub_rn(x, base);
#else
  return __uint2float_rn((unsigned int)x - (unsigned int)base);
#endif
}

// A grid of cells over ascending keys k_0 .. k_(m-1) (range levels, or an index of them) and the
// span [k_0, top], in shared memory, that bounds a value's search among the keys: cell c holds
// F(c) | F(c + 1) << 16, F(c) the number of keys whose cell is below c, so the last key <= x is
// among keys F(c) - 1 .. F(c + 1) - 1 of x's cell c. Where the keys spread evenly a cell holds
// about one, and the search takes a step or none. Only the cells' order matters (a value's cell is
// non-decreasing in the value), and whatever the keys hold, every bound is a key's index.
template <unsigned int Cells>
struct HtGrid {
  const unsigned int* cells;
  HtValueT base;       // k_0
  float per_unit;      // cells per unit of offset above k_0
  __device__ __forceinline__ unsigned int cell_of(HtValueT x) const {
    return min(Cells - 1u, __float2uint_rz(__fmul_rn(ht_grid_offset(x, base), per_unit)));
  }
  // The keys lo .. hi (below m) among which the last key <= x lies, for x in [k_0, top).
  __device__ __forceinline__ void bounds(HtValueT x, unsigned int& lo, unsigned int& hi) const {
    const unsigned int f = cells[cell_of(x)];
    lo = max(f & 0xFFFFu, 1u) - 1u;
    hi = max(max(f >> 16, 1u) - 1u, lo);
  }
};

// The last key <= v[i] among keys lo[i] .. hi[i] (HtGrid::bounds), into lo[i], for N values at
// once: their steps interleaved, each value's until its bounds meet.
template <unsigned int N, class KeyAt>
__device__ __forceinline__ void ht_grid_search(const HtValueT* v, unsigned int* lo,
                                               unsigned int* hi, KeyAt key_at) {
  for (bool more = true; more;) {
    more = false;
#pragma unroll
    for (unsigned int i = 0; i < N; ++i)
      if (lo[i] < hi[i]) {
        const unsigned int mid = (lo[i] + hi[i] + 1u) / 2u;
        if (v[i] >= key_at(mid)) lo[i] = mid;
        else hi[i] = mid - 1u;
        more |= lo[i] < hi[i];
      }
  }
}

// Builds a grid of Cells cells over the m = `keys` keys key_at(i) (fewer than 2^16) and [first,
// top] in `cells` (Cells words), `scratch` (Threads / 32 words) for its scan: each key adds one to
// its cell, then an exclusive scan of consecutive cells a thread. All Threads threads of the block
// call it, the keys already visible to them; it synchronises the block before returning.
template <unsigned int Cells, unsigned int Threads, class KeyAt>
__device__ __forceinline__ HtGrid<Cells> ht_grid_build(unsigned int* cells, unsigned int* scratch,
                                                       unsigned int keys, HtValueT first,
                                                       HtValueT top, KeyAt key_at) {
  constexpr unsigned int kPer = (Cells + Threads - 1u) / Threads;  // cells a thread scans
  const HtGrid<Cells> g = {cells, first, __fdiv_rn((float)Cells, ht_grid_offset(top, first))};
  for (unsigned int i = threadIdx.x; i < Cells; i += Threads) cells[i] = 0u;
  __syncthreads();
  for (unsigned int i = threadIdx.x; i < keys; i += Threads)
    atomicAdd(&cells[g.cell_of(key_at(i))], 1u);
  __syncthreads();
  const unsigned int at = threadIdx.x * kPer, lane = threadIdx.x % 32u;
  unsigned int in_cell[kPer], sum = 0;
#pragma unroll
  for (unsigned int k = 0; k < kPer; ++k) {
    in_cell[k] = at + k < Cells ? cells[at + k] : 0u;
    sum += in_cell[k];
  }
  unsigned int incl = sum;
#pragma unroll
  for (unsigned int o = 1; o < 32u; o <<= 1) {
    const unsigned int y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
    if (lane >= o) incl += y;
  }
  if (lane == 31u) scratch[threadIdx.x / 32u] = incl;
  __syncthreads();
  unsigned int run = incl - sum;
  for (unsigned int w = 0; w < threadIdx.x / 32u; ++w) run += scratch[w];
#pragma unroll
  for (unsigned int k = 0; k < kPer; ++k)
    if (at + k < Cells) {
      cells[at + k] = run | (run + in_cell[k]) << 16;
      run += in_cell[k];
    }
  __syncthreads();
  return g;
}
#endif

// What range binning reads per sample, set up once per block by ht_range_setup. Unused (and
// compiled away) by the other binnings.
struct HtRange {
  const SampleT* levels;       // num_bins + 1 levels: shared (mode 1) or global (modes 0, 2, 3)
  const unsigned char* table;  // mode 2: bin of each byte value (u8, i8), 0xFF for none
  HtValueT first, last;        // levels[0], levels[num_bins]
  const SampleT* index;        // mode 3: levels[j << shift] for j < windows, in shared memory
  unsigned int shift, windows;
#ifdef HT_RANGE_SHIFT
  float per_unit;  // with HT_RANGE_SHIFT: the scale of the grid over the index (ht_range_setup)
#endif
};

#if HT_BINNING == 2
template <bool Shared>
__device__ __forceinline__ HtValueT ht_level(const SampleT* levels, unsigned int i) {
  if (Shared) return ht_value(levels[i]);
  // read-only path: the levels stay in L1 across the block's searches
  return ht_value(__ldg(levels + i));
}

// The bin of s, or false outside [first, last) or NaN. A branch-free lower search over a shrinking
// window [lo, lo + len) with lo + len <= num_bins: every read index is below num_bins and the
// result lies in [0, num_bins) whatever the levels hold (unsorted levels give unspecified counts,
// never an out-of-bounds access). The step count depends on num_bins only: no divergence.
template <bool Shared>
__device__ __forceinline__ bool ht_range_search(const HtRange& r, HtValueT s, unsigned int num_bins,
                                                unsigned int& bin) {
  if (!(s >= r.first && s < r.last)) return false;
  unsigned int lo = 0, len = num_bins;
  while (len > 1) {
    const unsigned int half = len / 2;
    if (s >= ht_level<Shared>(r.levels, lo + half)) lo += half;
    len -= half;
  }
  bin = lo;
  return true;
}

// Mode 3: the last window whose first level is <= s (the index, in shared memory), then within it
// (2^shift levels, in global memory) the last level <= s: the bin ht_range_search finds. A read
// past the last window is clamped to levels[num_bins] (> s), so every read index is at most
// num_bins and the bin below num_bins whatever the levels hold.
__device__ __forceinline__ unsigned int ht_range_window(const HtRange& r, HtValueT s) {
  unsigned int j = 0;
  for (unsigned int len = r.windows; len > 1;) {
    const unsigned int half = len / 2;
    if (s >= ht_value(r.index[j + half])) j += half;
    len -= half;
  }
  return j << r.shift;
}
__device__ __forceinline__ bool ht_range_search_indexed(const HtRange& r, HtValueT s,
                                                        unsigned int num_bins, unsigned int& bin) {
  if (!(s >= r.first && s < r.last)) return false;
  unsigned int lo = ht_range_window(r, s);
  for (unsigned int half = (1u << r.shift) / 2u; half; half /= 2u)
    if (s >= ht_level<false>(r.levels, min(lo + half, num_bins))) lo += half;
  bin = lo;
  return true;
}
#endif

// Prepares range binning for this block: `smem` is the block's dynamic shared memory after its
// counters (histtune::range_smem_bytes of it). The caller synchronises the block before use.
__device__ __forceinline__ HtRange ht_range_setup(const SampleT* levels, unsigned int num_bins,
                                                  void* smem) {
  HtRange r;
  r.levels = levels;
  r.table = nullptr;
#if HT_BINNING == 2
  r.first = ht_value(__ldg(levels));
  r.last = ht_value(__ldg(levels + num_bins));
#if HT_RANGE_MODE == 1
  // 8-byte levels on an 8-byte boundary (range_smem_bytes leaves the 4 bytes this may skip).
  if constexpr (sizeof(SampleT) == 8)
    smem = reinterpret_cast<void*>((reinterpret_cast<unsigned long long>(smem) + 7u) & ~7ull);
  SampleT* staged = static_cast<SampleT*>(smem);
  for (unsigned int i = threadIdx.x; i <= num_bins; i += blockDim.x) staged[i] = __ldg(levels + i);
  r.levels = staged;
#elif HT_RANGE_MODE == 3
  // Every 2^shift-th level, the fewest windows whose first levels fit HT_RANGE_INDEX_BYTES
  // (histtune::range_index_shift, range_smem_bytes).
  if constexpr (sizeof(SampleT) == 8)
    smem = reinterpret_cast<void*>((reinterpret_cast<unsigned long long>(smem) + 7u) & ~7ull);
#ifdef HT_RANGE_SHIFT
  r.shift = HT_RANGE_SHIFT;  // hist1d.cuh's partition pass of samples: the partitions' first levels
#else
  r.shift = 0;
  while (((num_bins - 1u) >> r.shift) + 1u > HT_RANGE_INDEX_BYTES / sizeof(SampleT)) ++r.shift;
#endif
  r.windows = ((num_bins - 1u) >> r.shift) + 1u;
  SampleT* index = static_cast<SampleT*>(smem);
  for (unsigned int j = threadIdx.x; j < r.windows; j += blockDim.x)
    index[j] = __ldg(levels + (j << r.shift));
  r.index = index;
#ifdef HT_RANGE_SHIFT
  // The windows' first levels are a grid's keys, its cells after them, then its scan's scratch
  // (hist1d.cpp's range_bytes). HtRange keeps the grid's scale, not the grid: NVRTC 13.0
  // compiled the loads through a kept pointer to the cells as global loads of shared offsets.
  unsigned int* cells = reinterpret_cast<unsigned int*>(index + r.windows);
  r.per_unit = ht_grid_build<HT_RANGE_GRID_CELLS, HT_BLOCK_THREADS>(
                   cells, cells + HT_RANGE_GRID_CELLS, r.windows, r.first, r.last,
                   [&](unsigned int j) { return ht_value(index[j]); })
                   .per_unit;
#endif
#elif HT_RANGE_MODE == 2
  unsigned char* table = static_cast<unsigned char*>(smem);
  for (unsigned int v = threadIdx.x; v < 256u; v += blockDim.x) {
    unsigned int b;
    table[v] = ht_range_search<false>(r, (SampleT)v, num_bins, b) ? (unsigned char)b : 0xFFu;
  }
  r.table = table;
#endif
#endif
  return r;
}

// floor(x / range) for x < 2^32, range in [2, 2^32) (HT_EVEN_NARROW, histtune::even_narrow): 1 is
// one multiply-high by m = ceil(2^32 / range), where even_narrow found that exact for every x of
// the call; 2 is x times M = recip_i + 1 (2^64 / range rounded up), high 64 bits, exact for every
// x < 2^32: its error x * (M * range - 2^64) / (range * 2^64) is below 2^-32 <= 1 / range.
__device__ __forceinline__ unsigned int ht_div_narrow(unsigned int x, unsigned long long recip_i) {
#if HT_EVEN_NARROW == 1
  return __umulhi(x, (unsigned int)(recip_i >> 32) + 1u);
#else
  const unsigned long long m = recip_i + 1ull;
  return (unsigned int)(((unsigned long long)x * (unsigned int)(m >> 32) +
                         __umulhi(x, (unsigned int)m)) >> 32);
#endif
}

// i64 and u64 even binning (kernel_args.cpp's wide_bounds): lower_i holds lower's 64 bits and
// range_i the exact range (up to 2^64 - 1), so d = s - lower is exact in 64 bits once s >= lower
// in the type's own order. bin = floor(d * num_bins / range), where d * num_bins has up to 96
// bits: with HT_EVEN_NARROW in 32 bits as for the small types; else recip_i holds the double
// num_bins / range, whose estimate is within one of the quotient (relative error below 2^-50 on
// a quotient below 2^32), and one comparison of 128-bit products (__umul64hi for their high
// words) corrects it.
__device__ __forceinline__ bool ht_even64(SampleT s, unsigned int num_bins, long long lower_i,
                                          unsigned long long range_i, unsigned long long recip_i,
                                          unsigned int& bin) {
  if (s < (SampleT)lower_i) return false;
  const unsigned long long d = (unsigned long long)s - (unsigned long long)lower_i;
  if (d >= range_i) return false;
#if HT_EVEN_NARROW
  bin = ht_div_narrow((unsigned int)d * num_bins, recip_i);
#else
  const unsigned long long x_lo = d * num_bins, x_hi = __umul64hi(d, num_bins);
  const double est = (double)d * __longlong_as_double((long long)recip_i);
  unsigned int q = est < (double)num_bins ? (unsigned int)est : num_bins - 1u;
  unsigned long long t_lo = q * range_i, t_hi = __umul64hi(q, range_i);  // q * range
  if (t_hi > x_hi || (t_hi == x_hi && t_lo > x_lo)) {
    --q;  // q * range > x: one too many
  } else {
    t_lo += range_i;  // (q + 1) * range
    t_hi += t_lo < range_i;
    if (t_hi < x_hi || (t_hi == x_hi && t_lo <= x_lo)) ++q;  // one too few
  }
  bin = q;
#endif
  return true;
}

// f64 even binning, in double: lower_i, range_i and recip_i hold the doubles lower, upper and
// num_bins / (upper - lower) (kernel_args.cpp). NaN and infinities fail the first test (the
// bounds are finite).
__device__ __forceinline__ bool ht_even_double(double v, unsigned int num_bins, long long lower_i,
                                               unsigned long long range_i,
                                               unsigned long long recip_i, unsigned int& bin) {
  const double lower = __longlong_as_double(lower_i);
  const double upper = __longlong_as_double((long long)range_i);
  if (!(v >= lower && v < upper)) return false;
  const unsigned int b = (unsigned int)((v - lower) * __longlong_as_double((long long)recip_i));
  bin = b < num_bins ? b : num_bins - 1;  // rounding can land on num_bins just below upper
  return true;
}

#if HT_BINNING == 2
// Whether range binning may count s at all: a half's or an f64's infinities and NaNs never count,
// even between infinite levels.
__device__ __forceinline__ bool ht_range_finite(SampleT s) {
#if HT_SAMPLE_HALF
  const unsigned int exponent = HT_SAMPLE_HALF == 1 ? 0x7C00u : 0x7F80u;  // all ones: inf, NaN
  if ((s & exponent) == exponent) return false;
#endif
  if constexpr (sizeof(SampleT) == 8 && HT_SAMPLE_IS_FLOAT) {
    const unsigned long long exponent = 0x7FF0000000000000ull;
    if (((unsigned long long)__double_as_longlong((double)s) & exponent) == exponent) return false;
  }
  return true;
}
#endif

// Maps one sample to its bin; returns false for samples that fall in no bin. The host
// reference (runtime/src/reference.cpp) computes exactly the same arithmetic.
__device__ __forceinline__ bool ht_bin_of(SampleT s, unsigned int num_bins, long long lower_i,
                                          unsigned long long range_i, unsigned long long recip_i,
                                          float lower_f, float upper_f, float scale_f,
                                          const HtRange& range, unsigned int& bin) {
#if HT_BINNING == 2
#if HT_RANGE_MODE == 2
  // u8 and i8 range binning have at most 255 bins (validate()), so 0xFF is never a bin.
  bin = range.table[(unsigned char)s];  // i8: the table is indexed by the byte, not the value
  return bin < num_bins;
#else
  if (!ht_range_finite(s)) return false;
#if HT_RANGE_MODE == 3
  return ht_range_search_indexed(range, ht_value(s), num_bins, bin);
#else
  return ht_range_search<HT_RANGE_MODE == 1>(range, ht_value(s), num_bins, bin);
#endif
#endif
#elif HT_BINNING == 0
  // Negative samples (i8, i16, i32, i64) become huge unsigned values, ignored like values >= bins.
  if constexpr (sizeof(SampleT) == 8) {
    bin = (unsigned int)s;
    return (unsigned long long)s < num_bins;
  }
  bin = (unsigned int)s;
#if HT_EVERY_VALUE_A_BIN
  return true;  // num_bins covers the sample type (u8 with 256 bins): no compare per sample
#else
  return bin < num_bins;
#endif
#elif HT_SAMPLE_IS_FLOAT
  if constexpr (sizeof(SampleT) == 8)
    return ht_even_double((double)s, num_bins, lower_i, range_i, recip_i, bin);
  // Also rejects NaN, and a half's infinities: the bounds are finite floats (validate()).
  const float v = ht_value(s);
  if (!(v >= lower_f && v < upper_f)) return false;
  unsigned int b = (unsigned int)((v - lower_f) * scale_f);
  bin = b < num_bins ? b : num_bins - 1;  // rounding can land on num_bins just below upper
  return true;
#else
  if constexpr (sizeof(SampleT) == 8)
    return ht_even64(s, num_bins, lower_i, range_i, recip_i, bin);
#if HT_EVEN_NARROW
  // The offset modulo 2^32 is below the range exactly for the samples in it (even_narrow checks
  // the type's values against the bounds), and d * num_bins < 2^32: a few 32-bit instructions
  // instead of ~20 in 64 bits.
  const unsigned int d = (unsigned int)s - (unsigned int)lower_i;
  if (d >= (unsigned int)range_i) return false;
  bin = ht_div_narrow(d * num_bins, recip_i);  // recip_i = floor((2^64-1) / range)
  return true;
#else
  // 64-bit offsets from the bound: i8 and i16 over their whole range are exact too.
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
#endif
}

// A call's binning: the kernel's binning arguments, gathered into one value at the top of the
// kernel (range binning's `range` is set up per block by ht_range_setup, after the counters).
struct HtBinning {
  unsigned int num_bins;
  long long lower_i;
  unsigned long long range_i, recip_i;
  float lower_f, upper_f, scale_f;
  HtRange range;

  __device__ bool bin_of(SampleT s, unsigned int& bin) const {
    return ht_bin_of(s, num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, range, bin);
  }
#if HT_RANGE_INDEXED
  // The bins of M samples (bin[i] when ok[i]) by bin_of's arithmetic, their searches interleaved
  // kRangeGroup at a time: one search waits for each of its loads in turn, a group's searches
  // have a step's loads in flight together. A sample outside the levels is searched too: its
  // bin is then unspecified (it may pass num_bins), but every read stays within the levels.
  // Without Levels the search stops at the window: bin[i] is its first bin.
  template <unsigned int M, bool Levels = true>
  __device__ __forceinline__ void bins_of(const SampleT* s, unsigned int* bin, bool* ok) const {
#ifdef HT_RANGE_SHIFT
    constexpr unsigned int kRangeGroup = 4;  // a step or none each: less to interleave
#else
    constexpr unsigned int kRangeGroup = 8;
#endif
#pragma unroll
    for (unsigned int g = 0; g < M; g += kRangeGroup) {
      HtValueT v[kRangeGroup];
#pragma unroll
      for (unsigned int i = 0; i < kRangeGroup && g + i < M; ++i) {
        v[i] = ht_value(s[g + i]);
        ok[g + i] = ht_range_finite(s[g + i]) && v[i] >= range.first && v[i] < range.last;
        bin[g + i] = 0;
      }
#ifdef HT_RANGE_SHIFT
      // The window among those of the sample's grid cell (none past the M samples).
      const HtGrid<HT_RANGE_GRID_CELLS> grid = {
          reinterpret_cast<const unsigned int*>(range.index + range.windows), range.first,
          range.per_unit};
      unsigned int lo[kRangeGroup], hi[kRangeGroup];
#pragma unroll
      for (unsigned int i = 0; i < kRangeGroup; ++i) {
        lo[i] = hi[i] = 0u;
        if (g + i < M) grid.bounds(v[i], lo[i], hi[i]);
      }
      ht_grid_search<kRangeGroup>(v, lo, hi,
                                  [&](unsigned int j) { return ht_value(range.index[j]); });
#pragma unroll
      for (unsigned int i = 0; i < kRangeGroup && g + i < M; ++i) bin[g + i] = lo[i];
#else
      for (unsigned int len = range.windows; len > 1;) {  // ht_range_window's steps
        const unsigned int half = len / 2;
#pragma unroll
        for (unsigned int i = 0; i < kRangeGroup && g + i < M; ++i)
          if (v[i] >= ht_value(range.index[bin[g + i] + half])) bin[g + i] += half;
        len -= half;
      }
#endif
#pragma unroll
      for (unsigned int i = 0; i < kRangeGroup && g + i < M; ++i) bin[g + i] <<= range.shift;
      if (!Levels) continue;
      for (unsigned int half = (1u << range.shift) / 2u; half; half /= 2u) {
#pragma unroll
        for (unsigned int i = 0; i < kRangeGroup && g + i < M; ++i)
          if (v[i] >= ht_level<false>(range.levels, min(bin[g + i] + half, num_bins)))
            bin[g + i] += half;
      }
    }
  }
#endif
};

// Sample k (0 .. 4/sizeof(SampleT) - 1) of a 32-bit word, little-endian like memory. Signed
// samples (i8, i16) are sign-extended: their top bit shifted to the word's, then shifted back.
template <int K>
__device__ __forceinline__ SampleT ht_sample_of(unsigned int w) {
  const bool is_signed = (SampleT)(-1) < (SampleT)0;
  if (sizeof(SampleT) == 1 && is_signed) return (SampleT)((int)(w << (24 - 8 * K)) >> 24);
  if (sizeof(SampleT) == 2 && is_signed) return (SampleT)((int)(w << ((16 - 16 * K) & 31)) >> 16);
  if (sizeof(SampleT) == 1) return (SampleT)((w >> (8 * K)) & 0xFFu);
  if (sizeof(SampleT) == 2) return (SampleT)((w >> (16 * K)) & 0xFFFFu);
  union {
    unsigned int u;
    SampleT s;
  } x;
  x.u = w;
  return x.s;
}

// An 8-byte sample (i64, u64, f64) from its two words, little-endian like memory.
__device__ __forceinline__ SampleT ht_sample_of_words(unsigned int lo, unsigned int hi) {
  union {
    unsigned long long u;
    SampleT s;
  } x;
  x.u = ((unsigned long long)hi << 32) | lo;
  return x.s;
}

template <int Words> struct HtVec;
template <> struct HtVec<0> { typedef SampleT T; };  // sample-sized loads
template <> struct HtVec<1> { typedef unsigned int T; };
template <> struct HtVec<2> { typedef uint2 T; };
template <> struct HtVec<4> { typedef uint4 T; };

// The vector a thread loads (HT_VECTOR_BYTES 0: one sample per load; else 4, 8 or 16 bytes,
// whole 32-bit words): its words, bytes and samples. Enumerators rather than constexpr
// variables: NVRTC gives every namespace-scope constexpr variable a device global.
enum : unsigned int {
  kWords = HT_VECTOR_BYTES / 4,
  kVecBytes = kWords ? HT_VECTOR_BYTES : sizeof(SampleT),
  kPerWord = kWords ? 4 / sizeof(SampleT) : 1,  // 0 for 8-byte samples: two words a sample
  kPerVec = kWords ? HT_VECTOR_BYTES / sizeof(SampleT) : 1,  // samples per vector
};
typedef HtVec<kWords>::T VecT;
static_assert(kPerVec >= 1, "a vector holds at least one sample (hist1d::check)");

__device__ __forceinline__ unsigned int ht_word(unsigned int v, int) { return v; }
__device__ __forceinline__ unsigned int ht_word(unsigned short v, int) { return v; }
__device__ __forceinline__ unsigned int ht_word(unsigned char v, int) { return v; }
// Signed samples' words hold their bits, as memory does (not their sign-extended values).
__device__ __forceinline__ unsigned int ht_word(signed char v, int) { return (unsigned char)v; }
__device__ __forceinline__ unsigned int ht_word(short v, int) { return (unsigned short)v; }
__device__ __forceinline__ unsigned int ht_word(int v, int) { return (unsigned int)v; }
__device__ __forceinline__ unsigned int ht_word(float v, int) { return __float_as_uint(v); }
// An 8-byte sample loaded alone (HT_VECTOR_BYTES 0): word 0 its low half, word 1 its high half.
__device__ __forceinline__ unsigned int ht_word(unsigned long long v, int i) {
  return i == 0 ? (unsigned int)v : (unsigned int)(v >> 32);
}
__device__ __forceinline__ unsigned int ht_word(long long v, int i) {
  return ht_word((unsigned long long)v, i);
}
__device__ __forceinline__ unsigned int ht_word(double v, int i) {
  return ht_word((unsigned long long)__double_as_longlong(v), i);
}
__device__ __forceinline__ unsigned int ht_word(uint2 v, int i) { return i == 0 ? v.x : v.y; }
__device__ __forceinline__ unsigned int ht_word(uint4 v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// Calls f(sample, j) for the samples j = 0 .. kPerVec - 1 of a vector whose word w is
// word_of(w) (word_of(0) the sample itself when kWords is 0), in memory order.
template <class WordOf, class F>
__device__ __forceinline__ void ht_for_each_sample(WordOf word_of, F f) {
  if constexpr (sizeof(SampleT) == 8) {  // words 2j and 2j + 1 (a lone sample's two halves)
#pragma unroll
    for (unsigned int j = 0; j < kPerVec; ++j)
      f(ht_sample_of_words(word_of(2 * j), word_of(2 * j + 1)), j);
    return;
  }
  if (kWords == 0) {
    f(ht_sample_of<0>(word_of(0)), 0u);
    return;
  }
#pragma unroll
  for (unsigned int w = 0; w < kWords; ++w) {
    const unsigned int word = word_of(w);
    const unsigned int j = w * kPerWord;
    f(ht_sample_of<0>(word), j);
    if constexpr (kPerWord > 1) f(ht_sample_of<1>(word), j + 1);
    if constexpr (kPerWord > 2) {
      f(ht_sample_of<2>(word), j + 2);
      f(ht_sample_of<3>(word), j + 3);
    }
  }
}

// The tile loop's unrolling: HT_UNROLL deep, or the compiler's choice for 0.
#if HT_UNROLL > 0
#define HT_UNROLL_TILES HT_UNROLL_LOOP(HT_UNROLL)
#else
#define HT_UNROLL_TILES
#endif

// ---- shared-memory adds ----------------------------------------------------------------------

// A pointer into shared memory as a shared-window address (the operand of the adds below and of
// hist1d's bulk copies).
__device__ __forceinline__ unsigned int ht_smem_addr(const void* p) {
  return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}
// Adds to shared memory at a shared-window address held in a register: written as atomicAdd on
// a pointer, each add recomputed the block's window base (S2UR, UMOV, ULEA) inside its branch.
__device__ __forceinline__ void ht_shared_add(unsigned int addr, unsigned int v) {
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// +1 only when `on`: one predicated instruction, where `if (on)` branched around the add.
__device__ __forceinline__ void ht_shared_inc_if(bool on, unsigned int addr) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p red.shared.add.u32 [%0], 1;\n\t}" ::"r"(addr),
      "r"((unsigned int)on)
      : "memory");
}
// The word at a shared-window address before adding v to it.
__device__ __forceinline__ unsigned int ht_shared_fetch_add(unsigned int addr, unsigned int v) {
  unsigned int old;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(v) : "memory");
  return old;
}

// A launch that adds to zeroed counts may run after a zeroing kernel (hist1d's
// histtune_hist1d_zero) as a programmatic dependent (sm_90): it starts while the zeroing runs
// and waits here, before its first write to the counts, for the zeroing to complete and be
// visible. Without that launch attribute (or a zeroing kernel before it) it returns at once.
__device__ __forceinline__ void ht_wait_zeroed() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// What an add of `count` (< 2^16) to the 16-bit counter `bin` of a packed word moved out of it,
// from `old`, the word before the add: atomics order the adds, so exactly the add that carried
// sees it. A counter that wraps lost 2^16, which goes to its bin in the output; a low counter's
// carry landed in the high one (bin + 1), whose output bin gives that 1 back, or gains 2^16 - 1
// where the carry wrapped it too (a high counter's carry leaves the word). Corrections are adds,
// so their order does not matter: no barrier, nothing taken back in shared memory.
__device__ __forceinline__ void ht_packed_carry(unsigned int* out, unsigned int num_bins,
                                                unsigned int bin, unsigned int count,
                                                unsigned int old) {
  const unsigned int shift = (bin & 1u) * 16u;
  if (((old >> shift) & 0xFFFFu) + count < 0x10000u) return;
  ht_wait_zeroed();
  atomicAdd(out + bin, 0x10000u);
  if (shift == 0u && bin + 1u < num_bins)  // beyond num_bins: the padding's half, never flushed
    atomicAdd(out + bin + 1u, (old >> 16) == 0xFFFFu ? 0xFFFFu : 0xFFFFFFFFu);
}
