// One histogram per row: B rows of samples give B histograms, row r's bins at counts[r * num_bins].
// Dense rows (a [B, N] tensor or a strided view of one: row r starts r * row_stride samples in)
// or, with HT_SEGMENTED, CSR segments (row r spans offsets[r] .. offsets[r + 1] - 1).
//
// Technique: a block's threads form HT_ROWS_PER_BLOCK groups, one row each, every group with its
// own private histograms (HT_PRIVATE_COPIES copies, one per warp group) in shared memory. Short
// rows ([65536, 1024]) put several rows in one block so that a block still has enough samples
// in flight; long rows ([4096, 65536]) use the whole block for one row, and rows longer still
// (or too few rows to fill the GPU) split a row over blocks_per_row blocks. A row owned by one
// block is stored bin by bin (no zeroing of the output, no global atomics); a row shared by
// blocks is added with one global atomic per non-zero bin to the zeroed output. Copies 0 keep no
// private histogram: every count is an atomic on the output (bins beyond shared memory).
// HT_LAYOUT 1 stripes a copy over the lanes (bin b of lane l at word b * 32 + l), as hist1d's
// layout 1: a warp's atomics never meet in a bank, for 32 times the memory (few bins).
//
// A row starts anywhere (a row_stride or an offset need not keep the vector alignment): each
// group reads its span's misaligned head and its tail one sample at a time and the rest in
// whole vectors. Segment bounds are read as they are: each is clamped to [0, n] and an end
// before its begin is an empty segment, so bad offsets give unspecified counts, never an access
// outside the n samples.
//
// Compile-time parameters: those of ht_common.cuh (sample type, binning, HT_VECTOR_BYTES,
// HT_UNROLL), and HT_BLOCK_THREADS, HT_VECTORS_PER_THREAD, HT_ROWS_PER_BLOCK (divides the
// block's warps), HT_PRIVATE_COPIES (0: atomics on the output), HT_HIST_STRIDE (bins per copy:
// the bins, and a sink word for samples in no bin unless every value is a bin), HT_LAYOUT (0 or
// 1, above), HT_SEGMENTED.
#include "ht_common.cuh"

#ifndef HT_SEGMENTED
#define HT_SEGMENTED 0
#endif
#ifndef HT_LAYOUT
#define HT_LAYOUT 0
#endif

enum : unsigned int {
  kThreads = HT_BLOCK_THREADS,
  kVecs = HT_VECTORS_PER_THREAD,
  kRowsPerBlock = HT_ROWS_PER_BLOCK,
  kGroup = kThreads / kRowsPerBlock,  // threads per row
  kCopies = HT_PRIVATE_COPIES,
  kStride = HT_HIST_STRIDE,
  kLanes = HT_LAYOUT == 1 ? 32 : 1,  // words per bin of a copy
  kCopyWords = kStride * kLanes,
  kCounterWords = kRowsPerBlock * kCopies * kCopyWords,  // a block's counters
};

// Row bin b of a group's copies (hist), summed. Layout 1 sums the bin's 32 lane words starting
// at lane b % 32, so that a warp's threads (consecutive bins) read 32 different banks.
__device__ __forceinline__ unsigned int ht_row_bin(const unsigned int* hist, unsigned int b) {
  unsigned int sum = 0;
#pragma unroll
  for (unsigned int c = 0; c < kCopies; ++c) {
    const unsigned int* bin = hist + c * kCopyWords + b * kLanes;
#pragma unroll
    for (unsigned int l = 0; l < kLanes; ++l) sum += bin[(l + b) % kLanes];
  }
  return sum;
}

// The samples of row r: its first sample and its length. Segment offsets count from sample
// `base` (a chunk of a call with 64-bit counts starts there; 0 otherwise), each clamped to the
// n samples from it.
__device__ __forceinline__ void ht_row_span(const SampleT* samples, unsigned long long n,
                                            unsigned long long r, unsigned long long row_stride,
                                            const long long* offsets, unsigned long long base,
                                            const SampleT*& first, unsigned long long& len) {
#if HT_SEGMENTED
  auto clamped = [&](long long o) {
    return o < 0 || (unsigned long long)o < base ? 0ull : min((unsigned long long)o - base, n);
  };
  const unsigned long long begin = clamped(__ldg(offsets + r));
  const unsigned long long end = clamped(__ldg(offsets + r + 1));
  first = samples + begin;
  len = end > begin ? end - begin : 0ull;
#else
  first = samples + r * row_stride;
  len = n;
#endif
}

// Counts samples [lo, hi) of a row starting at `row` with the group's kGroup threads (this one
// is t): the head up to the vector alignment and the tail one sample at a time, the rest as
// vectors, kVecs loads of a thread in flight before it counts them.
template <class Count>
__device__ __forceinline__ void ht_count_span(const SampleT* row, unsigned long long lo,
                                              unsigned long long hi, unsigned int t, Count count) {
  unsigned long long head = 0;
  if (kWords != 0) {
    const unsigned long long misaligned = (unsigned long long)(row + lo) % kVecBytes;
    head = misaligned ? (kVecBytes - misaligned) / sizeof(SampleT) : 0;
    head = min(head, hi - lo);
  }
  for (unsigned long long i = lo + t; i < lo + head; i += kGroup) count(row[i]);
  const unsigned long long body = lo + head;
  const unsigned long long vecs = (hi - body) / kPerVec;
  const VecT* v = reinterpret_cast<const VecT*>(row + body);
  HT_UNROLL_TILES
  for (unsigned long long base = 0; base < vecs; base += kGroup * kVecs) {
    VecT x[kVecs];
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) {
      const unsigned long long i = base + k * kGroup + t;
      if (i < vecs) x[k] = v[i];
    }
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) {
      if (base + k * kGroup + t < vecs)
        ht_for_each_sample([&](unsigned int w) { return ht_word(x[k], w); },
                           [&](SampleT s, unsigned int) { count(s); });
    }
  }
  for (unsigned long long i = body + vecs * kPerVec + t; i < hi; i += kGroup) count(row[i]);
}

extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_batched(const SampleT* __restrict__ samples, unsigned long long n,
                 unsigned long long rows, unsigned long long row_stride,
                 const long long* __restrict__ offsets, unsigned long long offsets_base,
                 unsigned int blocks_per_row,
                 unsigned int num_bins, long long lower_i, unsigned long long range_i,
                 unsigned long long recip_i, float lower_f, float upper_f, float scale_f,
                 unsigned int* __restrict__ counts, const SampleT* __restrict__ levels) {
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  extern __shared__ unsigned int smem[];
  const unsigned int group = threadIdx.x / kGroup, t = threadIdx.x % kGroup;
  unsigned int* hist = smem + group * kCopies * kCopyWords;
  // Range binning's levels or u8 table after the counters (synchronised by the loop's first).
  binning.range = ht_range_setup(levels, num_bins, smem + kCounterWords);
  const unsigned long long units = (rows + kRowsPerBlock - 1) / kRowsPerBlock * blocks_per_row;
  for (unsigned long long unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const unsigned long long r = unit / blocks_per_row * kRowsPerBlock + group;
    const unsigned int part = (unsigned int)(unit % blocks_per_row);
    if constexpr (kCopies != 0)
      for (unsigned int i = threadIdx.x; i < kCounterWords; i += kThreads) smem[i] = 0;
    __syncthreads();
    if (r < rows) {
      const SampleT* row;
      unsigned long long len;
      ht_row_span(samples, n, r, row_stride, offsets, offsets_base, row, len);
      // The part's share: whole runs of 64 samples, so that parts start vector-aligned when the
      // row does.
      const unsigned long long chunk = ((len + blocks_per_row - 1) / blocks_per_row + 63) / 64 * 64;
      const unsigned long long lo = min(len, part * chunk), hi = min(len, lo + chunk);
      if constexpr (kCopies != 0) {
        const unsigned int mine =
            ht_smem_addr(hist + (t / 32) % kCopies * kCopyWords + (kLanes == 1 ? 0 : t % 32));
        ht_count_span(row, lo, hi, t, [&](SampleT s) {
          unsigned int bin;
#if HT_EVERY_VALUE_A_BIN
          binning.bin_of(s, bin);
#else
          if (!binning.bin_of(s, bin)) bin = num_bins;  // the sink word
#endif
          ht_shared_add(mine + bin * kLanes * 4u, 1u);
        });
      } else {
        unsigned int* out = counts + r * num_bins;
        ht_count_span(row, lo, hi, t, [&](SampleT s) {
          unsigned int bin;
          if (binning.bin_of(s, bin)) atomicAdd(out + bin, 1u);
        });
      }
    }
    __syncthreads();
    if constexpr (kCopies != 0) {
      if (r < rows) {
        unsigned int* out = counts + r * num_bins;
        for (unsigned int b = t; b < num_bins; b += kGroup) {
          const unsigned int sum = ht_row_bin(hist, b);
          if (blocks_per_row == 1)
            out[b] = sum;  // the row is this block's alone: every bin stored
          else if (sum != 0)
            atomicAdd(out + b, sum);
        }
      }
    }
    __syncthreads();  // the next unit zeroes what this one flushed
  }
}
