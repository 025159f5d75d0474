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
// Layouts (HT_LAYOUT) against bank conflicts, which bound a block on uniform data:
//  0 rows: channel c's bin b at word c * row_stride + b; the padding shifts channels by banks.
//  1 lane-striped: bin b of lane l at word (c * row_stride + b) * 32 + l, so a warp's 32 adds
//    always hit 32 banks, at 32x the memory: for few channels (pixels).
//  2 channel-interleaved: bin b of channel c at word (c / 32) * row_stride * 32 + b * 32 + c % 32,
//    and lane l takes its vector's samples starting at sample rot(l): a warp's 32 adds then hit
//    32 channels that differ mod 32, so 32 banks, at no extra memory: for 32 channels a block
//    or more.
//
// Compile-time parameters: those of ht_common.cuh (range binning's levels, shared by all
// channels, come as the last argument), and HT_CHANNELS, HT_ACTIVE, HT_CPB (divides
// HT_CHANNELS), HT_BLOCK_THREADS, HT_VECTORS_PER_THREAD, HT_VECTOR_BYTES (0: one sample per
// load), HT_PRIVATE_COPIES, HT_UNROLL (0: the compiler's choice), HT_LAYOUT, HT_PREFETCH (flat
// stream only).
#include "ht_common.cuh"

// The kWords words of x rotated by rot samples (kPerWord to a word): sample m of `out` is
// sample (m + rot) % (kWords * kPerWord) of x. Selects and funnel shifts, no local memory.
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
  const unsigned int rw = rot / kPerWord, bits = (rot % kPerWord) * (32u / kPerWord);
  unsigned int lo = pick(rw);
#pragma unroll
  for (unsigned int q = 0; q < kWords; ++q) {
    const unsigned int hi = pick(rw + q + 1);
    out[q] = __funnelshift_r(lo, hi, bits);
    lo = hi;
  }
}

extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_multichannel(const SampleT* __restrict__ samples, unsigned long long rows,
                      unsigned int num_bins, unsigned int row_stride, long long lower_i,
                      unsigned long long range_i, unsigned long long recip_i, float lower_f,
                      float upper_f, float scale_f, unsigned int* __restrict__ counts,
                      const SampleT* __restrict__ levels) {
  constexpr unsigned int kC = HT_CHANNELS, kA = HT_ACTIVE, kCpb = HT_CPB;
  constexpr unsigned int kThreads = HT_BLOCK_THREADS, kVecs = HT_VECTORS_PER_THREAD;
  constexpr unsigned int kCopies = HT_PRIVATE_COPIES;
  constexpr unsigned int kWords = HT_VECTOR_BYTES / 4;
  constexpr unsigned int kVecBytes = kWords ? HT_VECTOR_BYTES : sizeof(SampleT);
  constexpr unsigned int kPerWord = kWords ? 4 / sizeof(SampleT) : 1;
  constexpr unsigned int kE = kWords ? kWords * kPerWord : 1;  // samples per vector
  typedef typename HtVec<kWords>::T VecT;

  // Histograms a copy holds: layout 1 keeps only the active ones when the block owns every
  // channel (then lc < kA for every counted sample).
  constexpr unsigned int kH = HT_LAYOUT == 1 && kCpb == kC ? kA : kCpb;
  constexpr unsigned int kLanes = HT_LAYOUT == 1 ? 32 : 1;
  const unsigned int lane = threadIdx.x % 32u;
  extern __shared__ unsigned int hist[];  // [copy][kH channels, laid out by HT_LAYOUT]
  const unsigned int copy_words = kH * row_stride * kLanes;
  const unsigned int words = kCopies * copy_words;
  for (unsigned int i = threadIdx.x; i < words; i += kThreads) hist[i] = 0u;
  // Range binning: levels or the u8 table after the histograms, shared by every channel.
  const HtRange range = ht_range_setup(levels, num_bins, hist + words);
  __syncthreads();
  unsigned int* const mine =
      hist + ((threadIdx.x / 32u) % kCopies) * copy_words + (HT_LAYOUT == 1 ? lane : 0u);
  const unsigned int first = blockIdx.x * kCpb;  // this block's first channel

  // lc: the channel among this block's; inactive channels are read (they share the vector)
  // but not counted.
  auto count = [&](SampleT s, unsigned int lc) {
    if (first + lc >= kA) return;
    unsigned int bin;
    const bool ok =
        ht_bin_of(s, num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, range, bin);
#if !HT_EVERY_VALUE_A_BIN
    // A sample in no bin counts in the row's sink (word num_bins, never flushed): an
    // unconditional +1 compiles to ATOMS.POPC.INC, a predicated one does not.
    if (!ok) bin = num_bins;
#else
    (void)ok;
#endif
#if HT_LAYOUT == 0
    atomicAdd(mine + lc * row_stride + bin, 1u);
#elif HT_LAYOUT == 1
    atomicAdd(mine + (lc * row_stride + bin) * 32u, 1u);
#else
    atomicAdd(mine + (lc / 32u) * row_stride * 32u + bin * 32u + lc % 32u, 1u);
#endif
  };
  // The samples of vector x, the first of which is in channel c0 (of the block's channels).
  auto count_vec = [&](VecT x, unsigned int c0) {
    if (kWords == 0) {
      count(ht_sample_of<0>(ht_word(x, 0)), c0);
      return;
    }
#if HT_LAYOUT == 2
    // A vector's first channel is kE x (lane mod 32 / kE) mod 32, the same for 32 / kE lanes;
    // those start at different samples, so their channels differ mod 32 at every step.
    const unsigned int rot = (lane / (32u / kE)) % kE;
    unsigned int rotated[kWords ? kWords : 1];
    ht_rotate<kWords ? kWords : 1, kPerWord>(x, rot, rotated);
    auto word_of = [&](unsigned int w) { return rotated[w]; };
    auto at = [&](unsigned int j) { return (c0 + ((j + rot) & (kE - 1u))) % kCpb; };
#else
    auto word_of = [&](unsigned int w) { return ht_word(x, w); };
    auto at = [&](unsigned int j) { return (c0 + j) % kCpb; };
#endif
#pragma unroll
    for (unsigned int w = 0; w < kWords; ++w) {
      const unsigned int word = word_of(w);
      const unsigned int j = w * kPerWord;
      count(ht_sample_of<0>(word), at(j));
      if (kPerWord > 1) count(ht_sample_of<1>(word), at(j + 1));
      if (kPerWord > 2) {
        count(ht_sample_of<2>(word), at(j + 2));
        count(ht_sample_of<3>(word), at(j + 3));
      }
    }
  };

  const bool aligned = (unsigned long long)samples % kVecBytes == 0;
  const unsigned long long step = (unsigned long long)gridDim.y * kThreads * kVecs;
  if (kCpb == kC) {
    // One flat stream: vector i holds samples i*kE .. i*kE + kE - 1, sample f in channel f % kC.
    const unsigned long long total = rows * kC;
    const unsigned long long vecs = aligned ? total / kE : 0;
    const VecT* v = reinterpret_cast<const VecT*>(samples);
    constexpr unsigned long long kTile = (unsigned long long)kThreads * kVecs;
    unsigned long long first_base = (unsigned long long)blockIdx.y * kTile;
#if HT_PREFETCH
    // Whole tiles with the next tile's loads in flight while this one is counted (as hist1d's
    // pf1); the partial last tile is left to the loop below.
    const unsigned long long full = vecs / kTile;
    VecT next[kVecs];
    if (blockIdx.y < full) {
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) next[k] = v[blockIdx.y * kTile + k * kThreads + threadIdx.x];
    }
    for (unsigned long long t = blockIdx.y; t < full; t += gridDim.y) {
      VecT x[kVecs];
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) x[k] = next[k];
      if (t + gridDim.y < full) {
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k)
          next[k] = v[(t + gridDim.y) * kTile + k * kThreads + threadIdx.x];
      }
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) {
        const unsigned long long i = t * kTile + k * kThreads + threadIdx.x;
        count_vec(x[k], kE % kC == 0 ? 0u : (unsigned int)(i * kE % kC));
      }
    }
    first_base = (full + blockIdx.y) * kTile;
#endif
#if HT_UNROLL > 0
    HT_UNROLL_LOOP(HT_UNROLL)
#endif
    for (unsigned long long base = first_base; base < vecs; base += step) {
      VecT x[kVecs];
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) {
        const unsigned long long i = base + k * kThreads + threadIdx.x;
        if (i < vecs) x[k] = v[i];
      }
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) {
        const unsigned long long i = base + k * kThreads + threadIdx.x;
        if (i < vecs) count_vec(x[k], kE % kC == 0 ? 0u : (unsigned int)(i * kE % kC));
      }
    }
    for (unsigned long long f = vecs * kE + (unsigned long long)blockIdx.y * kThreads + threadIdx.x;
         f < total; f += (unsigned long long)gridDim.y * kThreads)
      count(samples[f], (unsigned int)(f % kC));
  } else {
    // Row by row: this block's kCpb samples of a row are kCpb / kE vectors (kCpb % kE == 0 and
    // kC % kE == 0, so they stay aligned); unaligned input is read one sample at a time.
    constexpr unsigned int kSeg = kCpb / kE;
    if (aligned) {
      const unsigned long long items = rows * kSeg;
#if HT_UNROLL > 0
      HT_UNROLL_LOOP(HT_UNROLL)
#endif
      for (unsigned long long base = (unsigned long long)blockIdx.y * kThreads * kVecs;
           base < items; base += step) {
        VecT x[kVecs];
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k) {
          const unsigned long long i = base + k * kThreads + threadIdx.x;
          if (i < items)
            x[k] = *reinterpret_cast<const VecT*>(samples + (i / kSeg) * kC + first + (i % kSeg) * kE);
        }
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k) {
          const unsigned long long i = base + k * kThreads + threadIdx.x;
          if (i < items) count_vec(x[k], (unsigned int)(i % kSeg) * kE);
        }
      }
    } else {
      const unsigned long long items = rows * kCpb;
      for (unsigned long long i = (unsigned long long)blockIdx.y * kThreads + threadIdx.x; i < items;
           i += (unsigned long long)gridDim.y * kThreads)
        count(samples[(i / kCpb) * kC + first + i % kCpb], (unsigned int)(i % kCpb));
    }
  }
  __syncthreads();

  for (unsigned int i = threadIdx.x; i < kH * num_bins; i += kThreads) {
#if HT_LAYOUT == 2
    // A warp reads 32 channels of one bin: 32 banks.
    const unsigned int lc = i % 32u + 32u * ((i / 32u) % (kCpb >= 32u ? kCpb / 32u : 1u)),
                       b = i / kCpb;
#else
    const unsigned int lc = i / num_bins, b = i % num_bins;
#endif
    if (first + lc >= kA) continue;
    unsigned int sum = 0;
#pragma unroll
    for (unsigned int c = 0; c < kCopies; ++c) {
      const unsigned int* h = hist + c * copy_words;
#if HT_LAYOUT == 0
      sum += h[lc * row_stride + b];
#elif HT_LAYOUT == 1
      const unsigned int* row = h + (lc * row_stride + b) * 32u;
#pragma unroll 8
      for (unsigned int l = 0; l < 32u; ++l) sum += row[(l + b) % 32u];  // rotate: no conflicts
#else
      sum += h[(lc / 32u) * row_stride * 32u + b * 32u + lc % 32u];
#endif
    }
    if (sum) atomicAdd(&counts[(first + lc) * num_bins + b], sum);
  }
}
