// 64-bit counts: adds one chunk's uint32 counts into the uint64 output (the dispatcher splits a
// call with 64-bit counts into chunks of at most 2^31 samples, each counted by the tuned 32-bit
// path into a temporary buffer; runtime/src/counts64.cpp). The first chunk stores instead of
// adding, so the output needs no zeroing. A plain grid-stride loop: it touches 12 bytes a bin,
// nothing beside a chunk's samples.
extern "C" __global__ void __launch_bounds__(256)
histtune_counts64_add(const unsigned int* __restrict__ chunk, unsigned long long num_bins,
                      unsigned int first, unsigned long long* __restrict__ counts) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long b = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
       b < num_bins; b += stride)
    counts[b] = (first ? 0ull : counts[b]) + chunk[b];
}
