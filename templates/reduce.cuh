// Two-phase flush, second phase: counts[i] = the sum over r < rows of partials[r * width + i].
// The first phase (HT_TWO_PHASE in hist1d.cuh and multichannel.cuh) stores every block's
// histogram as one row of `partials` instead of adding it to the output with atomics, so the
// output needs no zeroing and no bin sees more than one write.
//
// A block sums 32 columns: warp w takes rows w, w + 32, ... of its lane's column (coalesced 128-
// byte rows), and the 32 warps' sums meet in shared memory. Grid-stride over column tiles.
extern "C" __global__ void __launch_bounds__(1024)
histtune_reduce(const unsigned int* __restrict__ partials, unsigned int rows,
                unsigned long long width, unsigned int* __restrict__ counts) {
  __shared__ unsigned int part[32][33];  // [warp][lane], padded: the column sums read no conflict
  const unsigned int lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
  for (unsigned long long tile = (unsigned long long)blockIdx.x * 32u; tile < width;
       tile += (unsigned long long)gridDim.x * 32u) {
    const unsigned long long col = tile + lane;
    unsigned int sum = 0;
    if (col < width) {
#pragma unroll 4
      for (unsigned int r = warp; r < rows; r += 32u) sum += partials[r * width + col];
    }
    part[warp][lane] = sum;
    __syncthreads();
    if (warp == 0) {
      unsigned int total = 0;
#pragma unroll 8
      for (unsigned int w = 0; w < 32u; ++w) total += part[w][lane];
      if (col < width) counts[col] = total;
    }
    __syncthreads();
  }
}
