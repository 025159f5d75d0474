// Multi-channel histogram: samples are rows of HT_CHANNELS interleaved channels (row-major
// [rows, C], which is also the layout of RGBA-style pixels); the first HT_ACTIVE channels each
// get a histogram, written channel after channel: counts[c * num_bins + bin].
//
// Technique: a block owns HT_CPB consecutive channels (grid x) and a share of the rows (grid y,
// grid-stride), and keeps one private histogram per owned channel in shared memory, rows padded
// by a launch argument so the channels of one vector load land on different banks (a row is the
// bins, a sink bin unless every value is a bin, then the padding). Few channels
// per block (and more blocks side by side) keep the histograms small for many channels
// ([1048576, 512]); one block owning every channel (HT_CPB == HT_CHANNELS) reads the input as
// one flat stream of vectors (pixels). HT_PRIVATE_COPIES copies, one per warp group, spread hot
// bins. Flushed with one global atomic per non-zero bin.
//
// Layouts (HT_LAYOUT) against bank conflicts, which bound a block on uniform data (and one
// without shared memory):
//  0 rows: channel c's bin b at word c * row_stride + b; the padding shifts channels by banks.
//  1 lane-striped: bin b of lane l at word (c * row_stride + b) * 32 + l, so a warp's 32 adds
//    always hit 32 banks, at 32x the memory: for few channels (pixels).
//  2 channel-interleaved: bin b of channel c at word (c / 32) * row_stride * 32 + b * 32 + c % 32,
//    and lane l takes its vector's samples starting at sample rot(l): a warp's 32 adds then hit
//    32 channels that differ mod 32, so 32 banks, at no extra memory: for 32 channels a block
//    or more.
//  3 global: no private copy, every count an atomic on the output: channel histograms beyond a
//    block's shared memory, so that no valid call is refused for want of it.
//
// Row pitch (HT_PITCHED): the rows are image rows of row_pixels rows each, row_pitch samples
// apart (CUB's row_stride_bytes, launch arguments), the samples between them never read. A
// variant of its own so the packed kernel's code stays what it was (a branch in one kernel
// re-allocated its registers; HT_PITCHED 0 ignores the two arguments). It runs the packed
// loops' tiles over the image rows' vectors. The flat stream peels each image row's misaligned
// head and its tail (< 2 vectors of samples) and reads the rest in whole vectors; channel groups
// cannot be peeled, so the vectors of an image row that starts off the vector alignment are
// assembled from word or sample loads (packed input off the alignment is read one sample at a
// time). HT_PREFETCH and HT_UNROLL shape the packed loops only.
//
// Code: the layout is an HtLayout chosen by HT_LAYOUT (where a counter lives, how the flush and
// the lanes walk the counters); HtChannelHists holds the block's copies (setup, zero, begin,
// count, flush); one kernel per HT_PITCHED reads the input and counts through them.
//
// Compile-time parameters: those of ht_common.cuh (range binning's levels, shared by all
// channels, come after the counts), and HT_CHANNELS, HT_ACTIVE, HT_CPB (divides HT_CHANNELS),
// HT_ROW_STRIDE (words per channel histogram: bins, the sink unless every value is a bin, padding),
// HT_BLOCK_THREADS, HT_VECTORS_PER_THREAD, HT_VECTOR_BYTES (0: one sample per load),
// HT_PRIVATE_COPIES, HT_UNROLL (0: the compiler's choice), HT_LAYOUT, HT_PREFETCH (packed
// input only), HT_TWO_PHASE (counts is then the partials: grid row y's blocks store every count
// of their channels in row y of gridDim.y x HT_ACTIVE x num_bins words; reduce.cuh sums the rows
// into the output), HT_PITCHED (0 when not defined).
#include "ht_common.cuh"

#ifndef HT_PITCHED
#define HT_PITCHED 0
#endif
#ifndef HT_TWO_PHASE
#define HT_TWO_PHASE 0
#endif

enum : unsigned int {
  kC = HT_CHANNELS,
  kA = HT_ACTIVE,
  kCpb = HT_CPB,
  kThreads = HT_BLOCK_THREADS,
  kVecs = HT_VECTORS_PER_THREAD,
  kCopies = HT_PRIVATE_COPIES,
  // Words per channel histogram, known at compile time (the launch's row_stride is the same
  // value), so a sample's channel offset is an immediate of its atomic's address.
  kRowStride = HT_ROW_STRIDE,
};
// Grid x covers the groups holding an active channel; only when kA is not a multiple of kCpb
// can a block own an inactive channel.
enum : bool { kCheckActive = kA % kCpb != 0 };

// A row tile's vector load that asks L2 to fetch the 256-byte block around it
// (ld.global.nc.L2::256B): a channel group reads a narrow piece of each row, and the blocks of
// the other groups read the rest of those rows soon after, so the fetch puts their bytes in flight
// early. H100, [1048576, 512] cpb64: 0.2227 -> 0.2087 ms; the contiguous flat stream gains
// nothing (RGBA 0.0495 / 0.0497 ms) and keeps plain loads
// (docs/results/h100/session6/probe-mc-l2-256B-hint.log).
#if __CUDA_ARCH__ >= 800  // the prefetch-size qualifier is sm_80's
__device__ __forceinline__ uint4 ht_load_l2_256(const uint4* p) {
  uint4 r;
  asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "l"(p));
  return r;
}
__device__ __forceinline__ uint2 ht_load_l2_256(const uint2* p) {
  uint2 r;
  asm("ld.global.nc.L2::256B.v2.u32 {%0, %1}, [%2];" : "=r"(r.x), "=r"(r.y) : "l"(p));
  return r;
}
__device__ __forceinline__ unsigned int ht_load_l2_256(const unsigned int* p) {
  unsigned int r;
  asm("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(r) : "l"(p));
  return r;
}
#endif
template <typename T>
__device__ __forceinline__ T ht_load_l2_256(const T* p) {
  return *p;  // one sample of 1 or 2 bytes, a float, or a GPU before sm_80: a plain load
}

// The kWords words of x rotated by rot samples (kPerWord to a word; 0: a sample is two words):
// sample m of `out` is sample (m + rot) % kPerVec of x. Selects and funnel shifts, no local
// memory.
template <unsigned int kWords, unsigned int kPerWord, typename VecT>
__device__ __forceinline__ void ht_rotate(VecT x, unsigned int rot, unsigned int* out) {
  unsigned int in[kWords];
#pragma unroll
  for (unsigned int q = 0; q < kWords; ++q) in[q] = ht_word(x, q);
  auto pick = [&](unsigned int k) {
    k %= kWords;
    unsigned int r = in[0];
#pragma unroll
    for (unsigned int q = 1; q < kWords; ++q) r = k == q ? in[q] : r;
    return r;
  };
  unsigned int rw, bits;
  if constexpr (kPerWord == 0) {
    rw = rot * 2u, bits = 0u;  // 8-byte samples move by whole words
  } else {
    rw = rot / kPerWord, bits = (rot % kPerWord) * (32u / kPerWord);
  }
  unsigned int lo = pick(rw);
#pragma unroll
  for (unsigned int q = 0; q < kWords; ++q) {
    const unsigned int hi = pick(rw + q + 1);
    out[q] = __funnelshift_r(lo, hi, bits);
    lo = hi;
  }
}

#if HT_PITCHED
__device__ __forceinline__ void ht_set_words(unsigned int& v, const unsigned int* w) { v = w[0]; }
__device__ __forceinline__ void ht_set_words(uint2& v, const unsigned int* w) {
  v = make_uint2(w[0], w[1]);
}
__device__ __forceinline__ void ht_set_words(uint4& v, const unsigned int* w) {
  v = make_uint4(w[0], w[1], w[2], w[3]);
}

// The vector at p, which is aligned to its samples only: whole words where p is 4-byte aligned,
// else one sample at a time, little-endian like memory.
template <unsigned int kWords, unsigned int kPerWord, typename VecT>
__device__ __forceinline__ VecT ht_load_narrow(const SampleT* p) {
  if constexpr (kWords == 0) {
    return *p;
  } else {
    unsigned int w[kWords];
    // 8-byte samples (kPerWord 0) are always 4-byte aligned.
    if (kPerWord == 0 || (unsigned long long)p % 4u == 0) {
#pragma unroll
      for (unsigned int q = 0; q < kWords; ++q) w[q] = reinterpret_cast<const unsigned int*>(p)[q];
    } else if constexpr (kPerWord != 0) {
#pragma unroll
      for (unsigned int q = 0; q < kWords; ++q) {
        unsigned int word = 0;
#pragma unroll
        for (unsigned int s = 0; s < kPerWord; ++s)
          word |= ht_word(p[q * kPerWord + s], 0) << (s * (32u / kPerWord));
        w[q] = word;
      }
    }
    VecT v;
    ht_set_words(v, w);
    return v;
  }
}
#endif

// ---- the layouts (HT_LAYOUT): where a copy keeps bin b of the block's channel lc -------------
// Each is an HtLayout: a copy holds kHists channel histograms in kHists x kRowStride x kLanes
// words; add_one() counts a sample from `mine` (this thread's copy, and lane); add_total() adds
// a counter's words of one copy to a sum; flush_item() is the (channel, bin) of the flush's i-th
// counter; for_each_sample() passes a vector's samples with their channels, in the order the
// lanes count them.

// What layouts 0 and 1 share: the flush takes the counters channel after channel, and the lanes
// take a vector's samples (kWords > 0) in memory order, sample j in channel c0 + j. Only the
// flat stream (kCpb == kC) wraps: a channel group's vector starts at a multiple of kPerVec below
// kCpb, a multiple of kPerVec.
struct HtRowOrder {
  __device__ __forceinline__ static void flush_item(unsigned int i, unsigned int num_bins,
                                                    unsigned int& lc, unsigned int& b) {
    lc = i / num_bins, b = i % num_bins;
  }
  template <class F>
  __device__ __forceinline__ static void for_each_sample(VecT x, unsigned int c0,
                                                         unsigned int /*lane*/, F f) {
    ht_for_each_sample([&](unsigned int w) { return ht_word(x, w); },
                       [&](SampleT s, unsigned int j) {
                         f(s, kCpb == kC ? (c0 + j) % kCpb : c0 + j);
                       });
  }
};

#if HT_LAYOUT == 0 || HT_LAYOUT == 3
// Rows: channel c's bin b at word c * kRowStride + b; the padding shifts channels by banks. The
// global layout (3) is the same rows on the output instead of shared memory (HT_ROW_STRIDE is
// num_bins, no sink, no padding; `mine` is the output row of the block's first channel, every
// count an atomic in L2, no flush): channel histograms beyond a block's shared memory.
struct HtLayout : HtRowOrder {
  enum : unsigned int { kHists = kCpb, kLanes = 1 };
  __device__ __forceinline__ static void add_one(unsigned int* mine, unsigned int lc,
                                                 unsigned int bin) {
    atomicAdd(mine + lc * kRowStride + bin, 1u);
  }
  __device__ __forceinline__ static void add_total(unsigned int& sum, const unsigned int* h,
                                                   unsigned int lc, unsigned int b) {
    sum += h[lc * kRowStride + b];
  }
};

#elif HT_LAYOUT == 1
// Lane-striped: bin b of lane l at word (c * kRowStride + b) * 32 + l, so a warp's 32 adds always
// hit 32 banks, at 32x the memory. A copy keeps only the active channels' histograms when the
// block owns every channel (then lc < kA for every counted sample).
struct HtLayout : HtRowOrder {
  enum : unsigned int { kHists = kCpb == kC ? kA : kCpb, kLanes = 32 };
  __device__ __forceinline__ static void add_one(unsigned int* mine, unsigned int lc,
                                                 unsigned int bin) {
    atomicAdd(mine + (lc * kRowStride + bin) * 32u, 1u);
  }
  __device__ __forceinline__ static void add_total(unsigned int& sum, const unsigned int* h,
                                                   unsigned int lc, unsigned int b) {
    const unsigned int* row = h + (lc * kRowStride + b) * 32u;
#pragma unroll 8
    for (unsigned int l = 0; l < 32u; ++l) sum += row[(l + b) % 32u];  // rotate: no conflicts
  }
};

#elif HT_LAYOUT == 2
// Channel-interleaved: bin b of channel c at word (c / 32) * kRowStride * 32 + b * 32 + c % 32,
// and lane l takes its vector's samples starting at sample rot(l): a warp's 32 adds then hit 32
// channels that differ mod 32, so 32 banks, at no extra memory.
struct HtLayout {
  enum : unsigned int { kHists = kCpb, kLanes = 1 };
  __device__ __forceinline__ static void add_one(unsigned int* mine, unsigned int lc,
                                                 unsigned int bin) {
    atomicAdd(mine + (lc / 32u) * kRowStride * 32u + bin * 32u + lc % 32u, 1u);
  }
  __device__ __forceinline__ static void add_total(unsigned int& sum, const unsigned int* h,
                                                   unsigned int lc, unsigned int b) {
    sum += h[(lc / 32u) * kRowStride * 32u + b * 32u + lc % 32u];
  }
  // A warp reads 32 channels of one bin: 32 banks.
  __device__ __forceinline__ static void flush_item(unsigned int i, unsigned int /*num_bins*/,
                                                    unsigned int& lc, unsigned int& b) {
    lc = i % 32u + 32u * ((i / 32u) % (kCpb >= 32u ? kCpb / 32u : 1u)), b = i / kCpb;
  }
  // A vector's first channel is kPerVec x (lane mod 32 / kPerVec) mod 32, the same for
  // 32 / kPerVec lanes; those start at different samples, so their channels differ mod 32 at
  // every step.
  template <class F>
  __device__ __forceinline__ static void for_each_sample(VecT x, unsigned int c0,
                                                         unsigned int lane, F f) {
    const unsigned int rot = (lane / (32u / kPerVec)) % kPerVec;
    unsigned int rotated[kWords ? kWords : 1];
    ht_rotate<kWords ? kWords : 1, kPerWord>(x, rot, rotated);
    ht_for_each_sample([&](unsigned int w) { return rotated[w]; },
                       [&](SampleT s, unsigned int j) {
                         f(s, (c0 + ((j + rot) & (kPerVec - 1u))) % kCpb);
                       });
  }
};

#endif
// Private copies in shared memory (every layout but the global one).
enum : bool { kPrivate = HT_LAYOUT != 3 };

// ---- the block's histograms ------------------------------------------------------------------

// kCopies copies of the block's channel histograms in shared memory, one per warp group, laid
// out by HtLayout; a sample in no bin counts in its row's sink (word num_bins, never flushed)
// unless every value is a bin.
struct HtChannelHists {
  enum : unsigned int { kCopyWords = HtLayout::kHists * kRowStride * HtLayout::kLanes };
  unsigned int lane;
  unsigned int* hist;  // [copy][HtLayout::kHists channels]
  unsigned int words;
  unsigned int* mine;  // this thread's copy (lane-striped: plus its lane)
  // This block's first channel: 0 when one block owns every channel (grid x is 1), so the
  // activity of a vector's samples is known at compile time.
  unsigned int first;

  __device__ __forceinline__ void setup(unsigned int* smem) {
    lane = threadIdx.x % 32u;
    hist = smem;
    words = kPrivate ? kCopies * kCopyWords : 0u;
  }
  __device__ __forceinline__ void zero() {
    for (unsigned int i = threadIdx.x; i < words; i += kThreads) hist[i] = 0u;
  }
  __device__ __forceinline__ void begin(unsigned int* counts) {
    __syncthreads();
    first = kCpb == kC ? 0u : blockIdx.x * kCpb;
    mine = kPrivate ? hist + ((threadIdx.x / 32u) % kCopies) * kCopyWords + (HT_LAYOUT == 1 ? lane : 0u)
                    : counts + first * kRowStride;
  }
  // Sample s of the block's channel lc; inactive channels are read (they share the vector) but
  // not counted.
  __device__ void count(const HtBinning& binning, SampleT s, unsigned int lc) {
    if (kCheckActive && first + lc >= kA) return;
    unsigned int bin;
    const bool ok = binning.bin_of(s, bin);
    // An unconditional +1 compiles to ATOMS.POPC.INC, a predicated one does not; the output
    // has no sink.
    if constexpr (!HT_EVERY_VALUE_A_BIN) {
      if (!kPrivate && !ok) return;
      if (!ok) bin = binning.num_bins;
    }
    HtLayout::add_one(mine, lc, bin);
  }
  // The samples of vector x, the first of which is in the block's channel c0.
  __device__ void count_vec(const HtBinning& binning, VecT x, unsigned int c0) {
    if (kWords == 0) {  // x is one sample (an 8-byte one is its two words)
      count(binning,
            sizeof(SampleT) == 8 ? ht_sample_of_words(ht_word(x, 0), ht_word(x, 1))
                                 : ht_sample_of<0>(ht_word(x, 0)),
            c0);
      return;
    }
    HtLayout::for_each_sample(x, c0, lane,
                              [&](SampleT s, unsigned int lc) { count(binning, s, lc); });
  }
  // Adds every count to the output (two-phase: stores grid row y's partials).
  __device__ __forceinline__ void flush(unsigned int* counts, unsigned int num_bins) {
#if HT_LAYOUT != 3  // the global layout's counts are already in the output
    __syncthreads();
    for (unsigned int i = threadIdx.x; i < HtLayout::kHists * num_bins; i += kThreads) {
      unsigned int lc, b;
      HtLayout::flush_item(i, num_bins, lc, b);
      if (kCheckActive && first + lc >= kA) continue;
      unsigned int sum = 0;
#pragma unroll
      for (unsigned int c = 0; c < kCopies; ++c)
        HtLayout::add_total(sum, hist + c * kCopyWords, lc, b);
      if constexpr (HT_TWO_PHASE) {
        // Grid row y's blocks own disjoint channels: together they store row y of the partials.
        counts[((unsigned long long)blockIdx.y * kA + first + lc) * num_bins + b] = sum;
      } else {
        if (sum) atomicAdd(&counts[(first + lc) * num_bins + b], sum);
      }
    }
#endif
  }
};

// ---- the kernel: one for pitched rows, one for packed (HT_PITCHED) -----------------------------
// The loops over the input stay in the kernel body: moved into functions they compile to other
// code.

#if HT_PITCHED
// Pitched: `rows` is image rows x row_pixels, image row r starts at samples + r * row_pitch.
// The tiles of the packed loops, over the image rows' vectors (per_row to a row). No division
// in the loop (its registers would be the kernel's, and the grid assumes the packed kernel's
// occupancy): a thread's vector is (image row, vector in row), advanced by the steps between
// its vectors (kThreads) and its tiles (the grid's), each split into rows and a remainder once;
// remainders are below per_row, so one wrap per step. rows < 2^32 (validate()).
//
// Flat stream: an image row is len samples, sample f in channel f % kC. Its first `head`
// samples (< kPerVec) reach the vector alignment; per_row vectors follow, as many as every head
// leaves room for; the head and the rest, `edge` samples, are read one by one. Channel groups:
// kSeg vectors per pixel, every vector of an image row with its row start's alignment (kC and
// kCpb are multiples of kPerVec).
extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_multichannel(const SampleT* __restrict__ samples, unsigned long long rows,
                      unsigned int num_bins, unsigned int row_stride, long long lower_i,
                      unsigned long long range_i, unsigned long long recip_i, float lower_f,
                      float upper_f, float scale_f, unsigned int* __restrict__ counts,
                      const SampleT* __restrict__ levels, unsigned long long row_pixels,
                      unsigned long long row_pitch, unsigned int /*slices*/) {
  (void)row_stride;  // HT_ROW_STRIDE
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  extern __shared__ unsigned int hist[];
  HtChannelHists hists;
  hists.setup(hist);
  hists.zero();
  // Range binning: levels or the u8 table after the histograms, shared by every channel.
  binning.range = ht_range_setup(levels, num_bins, hist + hists.words);
  hists.begin(counts);
  const unsigned int first = hists.first;
  constexpr unsigned int kTile = kThreads * kVecs;
  const unsigned long long image_rows = (unsigned int)rows / (unsigned int)row_pixels;
  constexpr unsigned int kSeg = kCpb / kPerVec;
  const unsigned long long len = row_pixels * kC;
  const unsigned long long per_row =
      kCpb == kC ? (len + 1u > kPerVec ? (len + 1u - kPerVec) / kPerVec : 0) : row_pixels * kSeg;
  auto head_of = [&](const SampleT* row) {
    return (unsigned int)((kVecBytes - (unsigned long long)row % kVecBytes) % kVecBytes /
                          sizeof(SampleT));
  };
  // Vector v of image row r, and the block's channel of its first sample.
  auto load = [&](unsigned long long r, unsigned long long v, VecT& x, unsigned int& c0) {
    const SampleT* row = samples + r * row_pitch;
    if (kCpb == kC) {
      const unsigned int head = head_of(row);
      x = *reinterpret_cast<const VecT*>(row + head + v * kPerVec);
      c0 = kPerVec % kC == 0 ? head % kC : (unsigned int)((head + v * kPerVec) % kC);
    } else {
      const SampleT* at = row + (v / kSeg) * kC + first + (v % kSeg) * kPerVec;
      x = (unsigned long long)row % kVecBytes == 0 ? *reinterpret_cast<const VecT*>(at)
                                                  : ht_load_narrow<kWords, kPerWord, VecT>(at);
      c0 = (unsigned int)(v % kSeg) * kPerVec;
    }
  };
  if (per_row != 0) {
    // a = q x per_row + m for a < 2^32: q and m fit 32 bits.
    auto split = [&](unsigned int a, unsigned int& q, unsigned int& m) {
      q = per_row > a ? 0u : a / (unsigned int)per_row;
      m = a - q * (unsigned int)per_row;
    };
    auto advance = [&](unsigned long long& r, unsigned long long& v, unsigned int q,
                       unsigned int m) {
      r += q;
      v += m;
      if (v >= per_row) {
        v -= per_row;
        ++r;
      }
    };
    unsigned int thread_q, thread_m, vec_q, vec_m, tile_q, tile_m, first_q, first_m;
    split(threadIdx.x, thread_q, thread_m);
    split(kThreads, vec_q, vec_m);
    split(gridDim.y * kTile, tile_q, tile_m);
    split(blockIdx.y * kTile, first_q, first_m);
    for (unsigned long long r0 = first_q, v0 = first_m; r0 < image_rows;
         advance(r0, v0, tile_q, tile_m)) {
      VecT x[kVecs];
      unsigned int c0[kVecs];
      bool in[kVecs];
      unsigned long long r = r0, v = v0;
      advance(r, v, thread_q, thread_m);
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) {
        if (k > 0) advance(r, v, vec_q, vec_m);
        in[k] = r < image_rows;
        if (in[k]) load(r, v, x[k], c0[k]);
      }
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k)
        if (in[k]) hists.count_vec(binning, x[k], c0[k]);
    }
  }
  // The flat stream's edges (each image row's head and rest, < 2 kPerVec samples), one sample per
  // thread over the grid: a thread per row read its edge's samples one after another, a chain of
  // dependent loads (H100, RGBA 7680x4320: 75 us a call against 50 us packed).
  const unsigned int edge = (unsigned int)(len - per_row * kPerVec);  // < 2 kPerVec
  if (kCpb == kC && edge != 0) {
    const unsigned long long items = image_rows * edge;
    for (unsigned long long i = (unsigned long long)blockIdx.y * kThreads + threadIdx.x; i < items;
         i += (unsigned long long)gridDim.y * kThreads) {
      const unsigned long long r = i / edge;
      const unsigned int q = (unsigned int)(i - r * edge);
      const SampleT* row = samples + r * row_pitch;
      const unsigned int head = head_of(row);
      const unsigned long long f = q < head ? q : q + per_row * kPerVec;
      hists.count(binning, row[f], (unsigned int)(f % kC));
    }
  }
  hists.flush(counts, num_bins);
}

#else
// The packed input as a stream of vectors: vector i of the flat stream (kCpb == kC) holds samples
// i*kPerVec .. i*kPerVec + kPerVec - 1, sample f in channel f % kC; in rows, vector i is row
// i / kSeg's (i % kSeg)-th vector of this block's channels (kCpb and kC are multiples of kPerVec,
// so they stay aligned). Unaligned input has no vectors and is read one sample at a time.
enum : unsigned int { kSeg = kCpb >= kPerVec ? kCpb / kPerVec : 1u };
// In rows, i % kSeg is threadIdx.x % kSeg (tiles and kThreads are multiples of kSeg): a
// thread's channels are the same in every row, so their offsets are loop invariants.
static_assert(kCpb == kC || kThreads % kSeg == 0, "a thread's channels must not move");
enum : unsigned long long { kTile = (unsigned long long)kThreads * kVecs };

// What no vector holds: the flat stream's tail (all of it when unaligned), or unaligned rows.
__device__ __forceinline__ void ht_count_unvectored(HtChannelHists& h, const HtBinning& binning,
                                                    const SampleT* samples, unsigned long long rows,
                                                    unsigned long long vecs, bool aligned) {
  if (kCpb == kC) {
    const unsigned long long total = rows * kC;
    for (unsigned long long f =
             vecs * kPerVec + (unsigned long long)blockIdx.y * kThreads + threadIdx.x;
         f < total; f += (unsigned long long)gridDim.y * kThreads)
      h.count(binning, samples[f], (unsigned int)(f % kC));
  } else if (!aligned) {
    const unsigned long long items = rows * kCpb;
    for (unsigned long long i = (unsigned long long)blockIdx.y * kThreads + threadIdx.x; i < items;
         i += (unsigned long long)gridDim.y * kThreads)
      h.count(binning, samples[(i / kCpb) * kC + h.first + i % kCpb], (unsigned int)(i % kCpb));
  }
}

extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_multichannel(const SampleT* __restrict__ samples, unsigned long long rows,
                      unsigned int num_bins, unsigned int row_stride, long long lower_i,
                      unsigned long long range_i, unsigned long long recip_i, float lower_f,
                      float upper_f, float scale_f, unsigned int* __restrict__ counts,
                      const SampleT* __restrict__ levels, unsigned long long /*row_pixels*/,
                      unsigned long long /*row_pitch*/, unsigned int /*slices*/) {
  (void)row_stride;  // HT_ROW_STRIDE
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  extern __shared__ unsigned int hist[];
  HtChannelHists hists;
  hists.setup(hist);
  hists.zero();
  // Range binning: levels or the u8 table after the histograms, shared by every channel.
  binning.range = ht_range_setup(levels, num_bins, hist + hists.words);
  hists.begin(counts);
  const unsigned int first = hists.first;
  const bool aligned = (unsigned long long)samples % kVecBytes == 0;
  const unsigned long long vecs = !aligned ? 0 : kCpb == kC ? rows * kC / kPerVec : rows * kSeg;
  auto load_vec = [&](unsigned long long i) {
    return kCpb == kC ? reinterpret_cast<const VecT*>(samples)[i]
                      : ht_load_l2_256(reinterpret_cast<const VecT*>(
                            samples + (i / kSeg) * kC + first + (i % kSeg) * kPerVec));
  };
  auto channel_of = [&](unsigned long long i) {
    return kCpb == kC ? (kPerVec % kC == 0 ? 0u : (unsigned int)(i * kPerVec % kC))
                      : (threadIdx.x % kSeg) * kPerVec;
  };
  const unsigned long long step = gridDim.y * kTile;
  unsigned long long base = blockIdx.y * kTile;
  // HT_PREFETCH: the whole tiles with the next tile's loads in flight while this one is counted
  // (as hist1d's pf1); the partial last tile is left to the loop below.
  if constexpr (HT_PREFETCH) {
    const unsigned long long full = vecs / kTile;
    VecT next[kVecs];
    if (blockIdx.y < full) {
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k)
        next[k] = load_vec(blockIdx.y * kTile + k * kThreads + threadIdx.x);
    }
    for (unsigned long long t = blockIdx.y; t < full; t += gridDim.y) {
      VecT x[kVecs];
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) x[k] = next[k];
      if (t + gridDim.y < full) {
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k)
          next[k] = load_vec((t + gridDim.y) * kTile + k * kThreads + threadIdx.x);
      }
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k)
        hists.count_vec(binning, x[k], channel_of(t * kTile + k * kThreads + threadIdx.x));
    }
    base = (full + blockIdx.y) * kTile;
  }
  // The tiles (from the first the prefetch left), all loads of a tile before its counts.
  HT_UNROLL_TILES
  for (; base < vecs; base += step) {
    VecT x[kVecs];
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) {
      const unsigned long long i = base + k * kThreads + threadIdx.x;
      if (i < vecs) x[k] = load_vec(i);
    }
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) {
      const unsigned long long i = base + k * kThreads + threadIdx.x;
      if (i < vecs) hists.count_vec(binning, x[k], channel_of(i));
    }
  }
  ht_count_unvectored(hists, binning, samples, rows, vecs, aligned);
  hists.flush(counts, num_bins);
}
#endif  // HT_PITCHED
