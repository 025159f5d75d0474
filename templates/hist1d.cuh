// 1D privatized histogram (the foundation family).
//
// Technique: each block keeps HT_PRIVATE_COPIES private histograms in shared memory (warp w
// updates copy w % copies), so contended bins spread over several counters; each row is padded
// (a launch argument) so that the copies start on different banks. Threads are coarsened:
// every thread loads HT_ITEMS_PER_THREAD samples of a tile (strided by the block, so a warp's
// loads stay coalesced) before it issues their atomics, which keeps several loads in flight.
// The tile loop runs grid-stride over a grid sized per SM (a launch argument) and is unrolled
// HT_UNROLL deep. At the end each block adds its copies together and flushes the non-zero bins
// to the output with one global atomic each. Wins for bin counts that fit in shared memory;
// larger bin counts belong to other families.
//
// Compile-time parameters (-D, all derived from histtune::Hist1DConfig and the Problem):
//   HT_SAMPLE_T          unsigned char | unsigned short | unsigned int | int | float
//   HT_BINNING           0: the sample value is the bin; 1: even bins over [lower, upper)
//   HT_SAMPLE_IS_FLOAT   1 for float samples (even binning in float arithmetic)
//   HT_BLOCK_THREADS, HT_ITEMS_PER_THREAD, HT_PRIVATE_COPIES, HT_UNROLL

#ifndef HT_SAMPLE_T
#error "HT_SAMPLE_T must be defined"
#endif

typedef HT_SAMPLE_T SampleT;

// Maps one sample to its bin; returns false for samples that fall in no bin. The host
// reference (runtime/src/reference.cpp) computes exactly the same arithmetic.
__device__ __forceinline__ bool ht_bin_of(SampleT s, unsigned int num_bins, long long lower_i,
                                          unsigned long long range_i, float lower_f,
                                          float upper_f, float scale_f, unsigned int& bin) {
#if HT_BINNING == 0
  // Negative int32 samples become huge unsigned values and are ignored like values >= bins.
  bin = (unsigned int)s;
  return bin < num_bins;
#elif HT_SAMPLE_IS_FLOAT
  if (!(s >= lower_f && s < upper_f)) return false;  // also rejects NaN
  unsigned int b = (unsigned int)((s - lower_f) * scale_f);
  bin = b < num_bins ? b : num_bins - 1;  // rounding can land on num_bins just below upper
  return true;
#else
  long long d = (long long)s - lower_i;
  if (d < 0 || (unsigned long long)d >= range_i) return false;
  // d < 2^32 and num_bins < 2^32, so the product fits in 64 bits.
  bin = (unsigned int)(((unsigned long long)d * num_bins) / range_i);
  return true;
#endif
}

extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_hist1d(const SampleT* __restrict__ samples, unsigned long long n, unsigned int num_bins,
                unsigned int row_stride, long long lower_i, unsigned long long range_i,
                float lower_f, float upper_f, float scale_f, unsigned int* __restrict__ counts) {
  constexpr unsigned int kThreads = HT_BLOCK_THREADS;
  constexpr unsigned int kItems = HT_ITEMS_PER_THREAD;
  constexpr unsigned int kCopies = HT_PRIVATE_COPIES;
  constexpr unsigned long long kTile = (unsigned long long)kThreads * kItems;

  extern __shared__ unsigned int private_bins[];  // kCopies rows of row_stride words
  const unsigned int words = kCopies * row_stride;
  for (unsigned int i = threadIdx.x; i < words; i += kThreads) private_bins[i] = 0u;
  __syncthreads();

  unsigned int* mine = private_bins + ((threadIdx.x / 32u) % kCopies) * row_stride;
  const unsigned long long full_tiles = n / kTile;

#pragma unroll HT_UNROLL
  for (unsigned long long t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    const SampleT* p = samples + t * kTile + threadIdx.x;
    SampleT v[kItems];
#pragma unroll
    for (unsigned int k = 0; k < kItems; ++k) v[k] = p[k * kThreads];
#pragma unroll
    for (unsigned int k = 0; k < kItems; ++k) {
      unsigned int bin;
      if (ht_bin_of(v[k], num_bins, lower_i, range_i, lower_f, upper_f, scale_f, bin))
        atomicAdd(&mine[bin], 1u);
    }
  }

  // The partial last tile goes to the block that would have taken it next.
  if (blockIdx.x == (unsigned int)(full_tiles % gridDim.x)) {
    for (unsigned long long i = full_tiles * kTile + threadIdx.x; i < n; i += kThreads) {
      unsigned int bin;
      if (ht_bin_of(samples[i], num_bins, lower_i, range_i, lower_f, upper_f, scale_f, bin))
        atomicAdd(&mine[bin], 1u);
    }
  }
  __syncthreads();

  for (unsigned int b = threadIdx.x; b < num_bins; b += kThreads) {
    unsigned int sum = 0;
#pragma unroll
    for (unsigned int c = 0; c < kCopies; ++c) sum += private_bins[c * row_stride + b];
    if (sum) atomicAdd(&counts[b], sum);
  }
}
