// Joint histograms (numpy.histogram2d, numpy.histogramdd): each sample is a tuple of HT_JOINT_DIMS
// values. Dimension d bins its value by ht_common.cuh's rules (HtBinning), exactly as the 1D call
// of that dimension's bins and bounds does, and the tuple counts once in the joint bin
// (b0 x bins1 + b1) x bins2 + b2 ..., row-major as NumPy's. A tuple with a value in no bin
// (outside its bounds or levels, NaN, infinite) is not counted, as numpy.histogramdd with range=.
//
// Technique: as weighted.cuh, each block keeps HT_PRIVATE_COPIES private joint histograms in
// shared memory (one per group of warps), walks the tuples in tiles of
// HT_BLOCK_THREADS x HT_ITEMS_PER_THREAD (every load of a tile issued before any add), then adds
// its non-zero bins to the zeroed output with one global atomic each. Two ways past shared
// memory (u8 256 x 256 is 65536 bins, 256 KiB of 32-bit counters, beyond the H100's 227 KiB a
// block):
//   - HT_COUNTER_BITS 16: two 16-bit counters a word, half the bytes (256 x 256 fits, 128 KiB).
//     A counter that wraps hands 65536 to the output at once (ht_add16), so the counts stay
//     exact whatever a block counts; wins while the bins fit this way.
//   - HT_PRIVATE_COPIES 0: no private histogram, every tuple an atomic on the output in L2. No
//     flush and no limit on bins; each atomic costs more than a shared one.
// Loads: the interleaved form ([n, dims]) loads a tuple as one vector where its bytes are 2, 4, 8
// or 16 and the array is aligned to them (the launch's tuple_loads), else one load per value;
// the separate form reads each dimension's array (coalesced either way). HT_TUPLE_VECTORS 1
// (tuples of 2, 4 or 8 bytes) loads 16 bytes at a time instead, 8, 4 or 2 tuples: a u8 pair a
// load kept too few bytes in flight to cover the memory's latency (docs/kernels.md).
//
// Compile-time parameters: those of ht_common.cuh (sample type, binning; range binning searches
// each dimension's levels in global memory, HT_RANGE_MODE 0), HT_JOINT_DIMS (1 .. 4),
// HT_BLOCK_THREADS, HT_ITEMS_PER_THREAD, HT_PRIVATE_COPIES, HT_COUNTER_BITS (32 or 16),
// HT_TUPLE_VECTORS (0 or 1), HT_JOINT_UNIT_BINS (1: integer even bins one value wide in every
// dimension, so a bin is the value's offset from the lower bound; 2: and every value of the type
// in a bin, u8 or i8 256 bins over the whole type, so no compare either),
// HT_BLOCKS_PER_SM (the launch bounds' resident blocks per SM) and HT_HIST_STRIDE (counters per
// copy: the joint bins and, for 32-bit counters, a sink for tuples in no bin).
#ifndef HT_VECTOR_BYTES
#define HT_VECTOR_BYTES 0
#endif
#include "ht_common.cuh"

enum : unsigned int {
  kDims = HT_JOINT_DIMS,
  kThreads = HT_BLOCK_THREADS,
  kItems = HT_ITEMS_PER_THREAD,
  kCopies = HT_PRIVATE_COPIES,
  kStride = HT_HIST_STRIDE,
  kTile = kThreads * kItems,
  kTupleBytes = kDims * sizeof(SampleT),
  // Tuples a 16-byte load holds under HT_TUPLE_VECTORS (1: the tuple alone).
  kVecTuples = HT_TUPLE_VECTORS && (kTupleBytes == 2 || kTupleBytes == 4 || kTupleBytes == 8)
                   ? 16 / kTupleBytes
                   : 1,
};

// The arguments of one call, in one parameter (joint.cpp's JointArgs: the same fields in the same
// order). Dimension d's binning scalars are BinningArgs' (kernel_args.hpp) of its 1D problem.
struct HtJointArgs {
  const SampleT* cols[4];    // dimension d's first value: the separate arrays, or d_samples + d
  const SampleT* levels[4];  // range binning's levels per dimension
  long long lower_i[4];
  unsigned long long range_i[4];
  unsigned long long recip_i[4];
  unsigned long long n;       // tuples
  unsigned long long stride;  // values between one tuple's value and the next's: dims or 1
  unsigned int* counts;       // the product of the bins, zeroed
  float lower_f[4], upper_f[4], scale_f[4];
  unsigned int bins[4];
  unsigned int total_bins;
  unsigned int tuple_loads;  // 1: interleaved tuples of 2, 4, 8 or 16 bytes, aligned to them
  unsigned int vec_head;     // with tuple_loads: the tuples before the first 16-byte boundary
};

template <unsigned int Bytes> struct HtTuple { typedef SampleT T; };  // never loaded as one
template <> struct HtTuple<2> { typedef unsigned short T; };
template <> struct HtTuple<4> { typedef unsigned int T; };
template <> struct HtTuple<8> { typedef uint2 T; };
template <> struct HtTuple<16> { typedef uint4 T; };
typedef HtTuple<kTupleBytes>::T TupleT;
enum : unsigned int {
  kTupleVector = kTupleBytes == 2 || kTupleBytes == 4 || kTupleBytes == 8 || kTupleBytes == 16,
};

// Tuple i's values.
__device__ __forceinline__ void ht_load_tuple(const HtJointArgs& a, unsigned long long i,
                                              SampleT (&v)[kDims]) {
  if constexpr (kTupleVector) {
    if (a.tuple_loads) {
      union {
        TupleT t;
        SampleT s[kDims];
      } u;
      u.t = reinterpret_cast<const TupleT*>(a.cols[0])[i];
#pragma unroll
      for (unsigned int d = 0; d < kDims; ++d) v[d] = u.s[d];
      return;
    }
  }
#pragma unroll
  for (unsigned int d = 0; d < kDims; ++d) v[d] = a.cols[d][i * a.stride];
}

// One 16-bit counter of `words` (two a word, bin b in half b & 1, a shared-window address) plus
// one: one atomic for either half, so the lanes of a warp stay together whichever halves their bins
// are; a wrap's carry goes to the output (ht_packed_carry), and the words' flush adds what remains.
__device__ __forceinline__ void ht_add16(unsigned int words, unsigned int* out, unsigned int bin,
                                         unsigned int total_bins) {
  const unsigned int old = ht_shared_fetch_add(words + bin / 2 * 4u, 1u << ((bin & 1u) * 16u));
  ht_packed_carry(out, total_bins, bin, 1u, old);
}

// Each tuple's joint bin, counted in `mine` (or the output): the steps every load path shares.
struct HtJointCounter {
  HtBinning binning[kDims];
  unsigned int mine;  // this warp's copy, as a shared-window address
  unsigned int* out;
  unsigned int total_bins;

  // The joint bin of tuple v; false when a value is in no bin of its dimension.
  __device__ __forceinline__ bool bin_of(const SampleT (&v)[kDims], unsigned int& joint) const {
    joint = 0;
    bool in = true;
#pragma unroll
    for (unsigned int d = 0; d < kDims; ++d) {
      unsigned int b = 0;
      if constexpr (HT_JOINT_UNIT_BINS) {
        b = (unsigned int)v[d] - (unsigned int)binning[d].lower_i;  // negatives wrap past bins
        if constexpr (HT_JOINT_UNIT_BINS == 1) in &= b < binning[d].num_bins;
      } else {
        in &= binning[d].bin_of(v[d], b);
      }
      joint = joint * binning[d].num_bins + b;
    }
    return in;
  }

  // Counts N tuples, each at once (issuing every add before any wrap check was slower).
  template <unsigned int N>
  __device__ __forceinline__ void count(const SampleT (&v)[N][kDims]) const {
#pragma unroll
    for (unsigned int j = 0; j < N; ++j) {
      unsigned int joint;
      const bool in = bin_of(v[j], joint);
      if constexpr (kCopies == 0) {
        if (in) atomicAdd(out + joint, 1u);
      } else if constexpr (HT_COUNTER_BITS == 16) {
        if (in) ht_add16(mine, out, joint, total_bins);
      } else {
        ht_shared_add(mine + (in ? joint : total_bins) * 4u, 1u);  // the sink: tuples in no bin
      }
    }
  }

  __device__ __forceinline__ void count_one(const SampleT (&v)[kDims]) const {
    SampleT one[1][kDims];
#pragma unroll
    for (unsigned int d = 0; d < kDims; ++d) one[0][d] = v[d];
    count<1>(one);
  }
};

// HT_TUPLE_VECTORS: the tuples of 16-byte-aligned vectors, kVecTuples each, in tiles of
// kThreads x kItems vectors (every load of a tile issued before any count); the tuples before
// the first vector and after the last, one a thread.
__device__ __forceinline__ void ht_count_vectors(const HtJointArgs& a, const HtJointCounter& c) {
  const unsigned long long head = a.vec_head < a.n ? a.vec_head : a.n;
  const unsigned long long vecs = (a.n - head) / kVecTuples;
  const uint4* body = reinterpret_cast<const uint4*>(a.cols[0] + head * kDims);
  for (unsigned long long base = (unsigned long long)blockIdx.x * kTile; base < vecs;
       base += (unsigned long long)gridDim.x * kTile) {
    uint4 v[kItems];
#pragma unroll
    for (unsigned int k = 0; k < kItems; ++k) {
      const unsigned long long i = base + k * kThreads + threadIdx.x;
      if (i < vecs) v[k] = body[i];
    }
#pragma unroll
    for (unsigned int k = 0; k < kItems; ++k) {
      if (base + k * kThreads + threadIdx.x >= vecs) continue;
      union {
        uint4 u;
        SampleT s[kVecTuples][kDims];
      } x;
      x.u = v[k];
      c.count<kVecTuples>(x.s);
    }
  }
  const unsigned long long gtid = (unsigned long long)blockIdx.x * kThreads + threadIdx.x;
  const unsigned long long rest = head + vecs * kVecTuples;  // the tail's first tuple
  SampleT t[kDims];
  if (gtid < head) {
    ht_load_tuple(a, gtid, t);
    c.count_one(t);
  }
  if (gtid < a.n - rest) {
    ht_load_tuple(a, rest + gtid, t);
    c.count_one(t);
  }
}

extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS, HT_BLOCKS_PER_SM)
histtune_joint(const HtJointArgs a) {
  extern __shared__ unsigned int smem[];
  HtJointCounter c;
#pragma unroll
  for (unsigned int d = 0; d < kDims; ++d)
    c.binning[d] = {a.bins[d],    a.lower_i[d], a.range_i[d], a.recip_i[d], a.lower_f[d],
                    a.upper_f[d], a.scale_f[d], ht_range_setup(a.levels[d], a.bins[d], nullptr)};
  const unsigned int words = HT_COUNTER_BITS == 16 ? (kStride + 1) / 2 : kStride;
  if constexpr (kCopies != 0)
    for (unsigned int i = threadIdx.x; i < kCopies * words; i += kThreads) smem[i] = 0;
  __syncthreads();
  c.mine = ht_smem_addr(smem + (threadIdx.x / 32) % (kCopies ? kCopies : 1) * words);
  c.out = a.counts;
  c.total_bins = a.total_bins;
  if (kVecTuples > 1 && a.tuple_loads) {
    ht_count_vectors(a, c);
  } else {
    for (unsigned long long base = (unsigned long long)blockIdx.x * kTile; base < a.n;
         base += (unsigned long long)gridDim.x * kTile) {
      SampleT v[kItems][kDims];
#pragma unroll
      for (unsigned int k = 0; k < kItems; ++k) {
        const unsigned long long i = base + k * kThreads + threadIdx.x;
        if (i < a.n) ht_load_tuple(a, i, v[k]);
      }
#pragma unroll
      for (unsigned int k = 0; k < kItems; ++k)
        if (base + k * kThreads + threadIdx.x < a.n) c.count_one(v[k]);
    }
  }
  if constexpr (kCopies != 0) {
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < a.total_bins; b += kThreads) {
      unsigned int sum = 0;
#pragma unroll
      for (unsigned int k = 0; k < kCopies; ++k) {
        const unsigned int word = smem[k * words + (HT_COUNTER_BITS == 16 ? b / 2 : b)];
        sum += HT_COUNTER_BITS == 16 ? (b & 1u ? word >> 16 : word & 0xFFFFu) : word;
      }
      if (sum != 0) atomicAdd(a.counts + b, sum);
    }
  }
}
