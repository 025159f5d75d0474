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
// Compile-time parameters: those of ht_common.cuh (range binning's levels, shared by all
// channels, come as the last argument), and HT_CHANNELS, HT_ACTIVE, HT_CPB (divides
// HT_CHANNELS), HT_BLOCK_THREADS, HT_VECTORS_PER_THREAD, HT_VECTOR_BYTES (0: one sample per
// load), HT_PRIVATE_COPIES, HT_UNROLL (0: the compiler's choice).
#include "ht_common.cuh"

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

  extern __shared__ unsigned int hist[];  // [copy][owned channel][row_stride]
  const unsigned int words = kCopies * kCpb * row_stride;
  for (unsigned int i = threadIdx.x; i < words; i += kThreads) hist[i] = 0u;
  // Range binning: levels or the u8 table after the histograms, shared by every channel.
  const HtRange range = ht_range_setup(levels, num_bins, hist + words);
  __syncthreads();
  unsigned int* const mine = hist + ((threadIdx.x / 32u) % kCopies) * kCpb * row_stride;
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
    atomicAdd(mine + lc * row_stride + bin, 1u);
  };
  // The samples of vector x, the first of which is in channel c0 (of the block's channels).
  auto count_vec = [&](VecT x, unsigned int c0) {
    if (kWords == 0) {
      count(ht_sample_of<0>(ht_word(x, 0)), c0);
      return;
    }
#pragma unroll
    for (unsigned int w = 0; w < kWords; ++w) {
      const unsigned int word = ht_word(x, w);
      const unsigned int j = w * kPerWord;
      count(ht_sample_of<0>(word), (c0 + j) % kCpb);
      if (kPerWord > 1) count(ht_sample_of<1>(word), (c0 + j + 1) % kCpb);
      if (kPerWord > 2) {
        count(ht_sample_of<2>(word), (c0 + j + 2) % kCpb);
        count(ht_sample_of<3>(word), (c0 + j + 3) % kCpb);
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
#if HT_UNROLL > 0
    HT_UNROLL_LOOP(HT_UNROLL)
#endif
    for (unsigned long long base = (unsigned long long)blockIdx.y * kThreads * kVecs; base < vecs;
         base += step) {
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

  for (unsigned int i = threadIdx.x; i < kCpb * num_bins; i += kThreads) {
    const unsigned int lc = i / num_bins, b = i % num_bins;
    if (first + lc >= kA) continue;
    unsigned int sum = 0;
#pragma unroll
    for (unsigned int c = 0; c < kCopies; ++c) sum += hist[(c * kCpb + lc) * row_stride + b];
    if (sum) atomicAdd(&counts[(first + lc) * num_bins + b], sum);
  }
}
