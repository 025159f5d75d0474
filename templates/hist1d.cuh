// 1D privatized histogram.
//
// Technique: each block keeps private histograms in shared memory and flushes their non-zero
// bins to the output with one global atomic each. What the tunables trade:
//  - Loads: each thread loads HT_VECTORS_PER_THREAD vectors of HT_VECTOR_BYTES per tile (strided
//    by the block, so a warp's loads stay coalesced), all before it counts them: 16-byte loads
//    move small samples at full bandwidth, several in flight hide memory latency.
//  - Layout 0 (warp rows): HT_PRIVATE_COPIES copies, warp w updates copy w % copies; contended
//    bins spread over copies; rows padded by a launch argument so copies start on other banks.
//  - Layout 1 (lane-striped): bin b of lane l lives at word b * 32 + l, so the 32 lanes of a
//    warp always hit 32 different banks: no bank conflicts whatever the data, at 32x the memory.
//  - Aggregation (HT_AGGREGATE): 1, a thread merges runs of equal bins in what it reads and adds
//    a run with one atomic: a large win on constant, skewed or image-like data, a compare per
//    sample on uniform data; 2 (packed counters), the lanes of a warp holding one bin add
//    together (__match_any_sync).
//  - Storage 1 (per-thread counters): every thread owns 16-bit counters, packed two per word,
//    bin pair q of thread t at word q * threads + t: a thread's update is a plain load and store
//    (no atomic unit, always on bank t % 32), so a block is bound by load/store throughput,
//    twice the shared atomic rate. HT_BATCH samples load their counters together (ILP; equal
//    words in a batch are merged). Warps sum the counters into one block histogram before a
//    16-bit counter can overflow and at the end. Costs bins x threads x 2 bytes: few bins only.
//  - Storage 2 (global atomics): no private copy, every count (or run) is an atomic on the output
//    in L2. For bin counts far beyond shared memory (n/16 bins), where privatising cannot fit.
//  - Storage 3 (cluster, sm_90): the HT_CLUSTER blocks of a thread-block cluster share one
//    histogram spread over their shared memories (bin b lives in block b % HT_CLUSTER, word
//    b / HT_CLUSTER), updated through distributed shared memory: up to 8 x 227 KB of bins on chip.
//  - Storage 4 (packed shared counters): like storage 0, but 16-bit counters two per word, so a
//    copy takes half the memory: 65536 bins fit one block. Each add returns the word, and the
//    one add that wraps a counter adds what the wrap moved to the output (ht_packed_carry).
//  - Bin-range slices (HT_SLICED, storages 0 and 4): when a block's copies cannot hold every
//    bin, the host splits the bins into the fewest slices whose copies fit (the `slices` launch
//    argument) and gives each slice its own blocks; the blocks of one tile group, one per slice,
//    read the same tiles at the same time, so the input comes from DRAM about once and from L2
//    `slices` times, and each block counts only the samples of its slice.
//  - Byte decoding (HT_BYTE_DECODE, hist1d::byte_decoded: u8 even or range binning with fewer
//    than 256 bins, i8 with up to 256, storage 0 or 1 adding to zeroed counts): the counters
//    count the 256 byte values, the sample's byte, as CUB does; the flush maps each value with a
//    count to its bin (values in no bin are dropped), the lanes of a warp whose values share a
//    bin adding together.
//    No binning arithmetic and no sink per sample, and a few hot bins spread over their byte
//    values' counters.
//  - Single block (HT_SINGLE_BLOCK): one block does all the work and stores the counts, so no
//    memset and no global atomics: the shortest path for small inputs. With HT_CLUSTER > 1
//    (storage 0), one cluster: its blocks count into their own copies, then block r sums bins
//    r, r + HT_CLUSTER, ... over every block's copies through distributed shared memory and
//    stores them: still one launch and no memset, with HT_CLUSTER SMs reading.
//  - Two-phase flush (HT_TWO_PHASE, storage 0 and 1): block b stores its whole histogram as row b
//    of `counts`, which is then a temporary buffer of grid x num_bins words; reduce.cuh sums the
//    rows into the output. No zeroing of the output and no global atomics.
// The tile loop runs grid-stride over a grid sized per SM (a launch argument), unrolled HT_UNROLL
// deep; with HT_PREFETCH it loads the next tile before it counts this one (into registers; 2, in
// the partition pass on sm_90: by a bulk copy into shared memory). A misaligned head
// and the tail that fills no whole tile are handled by all blocks.
//
// Code: each storage is an HtCounters with the same steps (setup, zero, begin, count, end_of_tile,
// end_of_tiles, flush), chosen by HT_STORAGE; the kernel zeroes, loops over the tiles and
// flushes through them.
//
// Compile-time parameters (-D, all derived from histtune::Hist1DConfig and the Problem): those
// of ht_common.cuh (sample type, binning, HT_VECTOR_BYTES, HT_UNROLL; range binning's levels
// come after the counts), and HT_BLOCK_THREADS, HT_VECTORS_PER_THREAD, HT_PRIVATE_COPIES,
// HT_LAYOUT, HT_AGGREGATE, HT_STORAGE, HT_BATCH, HT_SINGLE_BLOCK, HT_CLUSTER, HT_PREFETCH,
// HT_TWO_PHASE, HT_SINK, HT_SLICED, HT_BYTE_DECODE; tests may set HT_TEST_COUNTER_START (where
// storage 4's counters start, < 2^16) and HT_TEST_FLUSH_TILES (storage 1's flush interval).
//
// With HT_COUNT_PASSES (hist1d::count_request) the program is partitioned storage's sizes and
// count passes alone, given only HT_TILE and HT_PARTITION_BITS (and with HT_PART_VALUES, range
// binning of 4-byte samples, the sample defines): they depend on nothing else, so one program
// serves every configuration of a tile size and partition width, and the partition pass's
// program leaves them out (they were a third of its compile).

#ifndef HT_PART_VALUES
#define HT_PART_VALUES 0
#endif
#if !HT_COUNT_PASSES || HT_PART_VALUES
#include "ht_common.cuh"
#endif
#if !HT_COUNT_PASSES

// HT_SINK (hist1d::has_sink: storage 0 unless every value is a bin): samples that fall in no bin
// count in a sink bin (word num_bins of every copy, never flushed) rather than behind a branch:
// then every count is an unconditional +1, which compiles to ATOMS.POPC.INC (the predicated add
// does not, and was 35% slower on u8; docs/kernels.md). The host's geometry sizes the rows by it.
#ifndef HT_TWO_PHASE
#define HT_TWO_PHASE 0
#endif
#ifndef HT_SINK
#error "HT_SINK must be defined (hist1d::defines)"
#endif
// HT_SLICED (hist1d::sliced: storage 0 or 4 over many bins): the kernel counts the bin-range
// slice its launch's `slices` argument gives it; 0 compiles the slicing out.
#ifndef HT_SLICED
#error "HT_SLICED must be defined (hist1d::defines)"
#endif
// HT_BYTE_DECODE (hist1d::byte_decoded): the counters count byte values, flushed to their bins.
#ifndef HT_BYTE_DECODE
#error "HT_BYTE_DECODE must be defined (hist1d::defines)"
#endif
#if HT_BYTE_DECODE && (HT_STORAGE > 1 || HT_SINGLE_BLOCK || HT_TWO_PHASE || HT_SINK)
#error "HT_BYTE_DECODE adds the counts of storage 0 or 1 to zeroed counts (no sink)"
#endif
#if HT_PREFETCH == 2 && HT_STORAGE != 5
#error "HT_PREFETCH 2 (bulk copies) is the partition pass's (storage 5)"
#endif

enum : unsigned int {
  kThreads = HT_BLOCK_THREADS,
  kVecs = HT_VECTORS_PER_THREAD,
  kCopies = HT_PRIVATE_COPIES,
  kPerTile = kVecs * kPerVec,  // samples per thread per tile
};
enum : unsigned long long { kTileVecs = (unsigned long long)kThreads * kVecs };

// ---- what the counter storages share -------------------------------------------------------

// Zeroes `words` counts and lets the histogram kernel launched after it start at once (it waits
// in ht_wait_zeroed): the zeroing's launch and run hide behind the counting.
extern "C" __global__ void __launch_bounds__(256)
histtune_hist1d_zero(unsigned int* __restrict__ counts, unsigned int words) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
  for (unsigned int i = blockIdx.x * 256u + threadIdx.x; i < words; i += gridDim.x * 256u)
    counts[i] = 0u;
}

#if HT_BYTE_DECODE
// Adds the count of byte value v to v's bin (none: dropped). The lanes of a warp flush 32
// consecutive values (256 and the block are multiples of 32), which mostly share a bin: on sm_80
// and newer the lanes of one bin add together, so the few output words a block adds to see up to
// 32x fewer global atomics.
__device__ __forceinline__ void ht_store_decoded(unsigned int* counts, unsigned int v,
                                                 unsigned int sum, const HtBinning& binning) {
  unsigned int bin;
  const bool ok = binning.bin_of((SampleT)v, bin);
#if __CUDA_ARCH__ >= 800
  const unsigned int peers = __match_any_sync(0xFFFFFFFFu, ok ? bin : 0xFFFFFFFFu);
  sum = __reduce_add_sync(peers, sum);
  if (threadIdx.x % 32u != __ffs(peers) - 1u) return;
#endif
  if (ok && sum) atomicAdd(&counts[bin], sum);
}
#endif

// Stores bin b's block total: the only block stores every count (HT_SINGLE_BLOCK), a two-phase
// block its row of the partials (zeros too), any other block adds what it counted (a
// byte-decoding block: b is a byte value, added to its bin).
__device__ __forceinline__ void ht_store_total(unsigned int* counts, unsigned int num_bins,
                                               unsigned int b, unsigned int sum,
                                               const HtBinning& binning) {
#if HT_SINGLE_BLOCK
  counts[b] = sum;
#elif HT_TWO_PHASE
  counts[(unsigned long long)blockIdx.x * num_bins + b] = sum;
#elif HT_BYTE_DECODE
  ht_store_decoded(counts, b, sum, binning);
#else
  if (sum) atomicAdd(&counts[b], sum);
#endif
}

// The flush of a block histogram held in shared memory: bin b's total is sum_of(b).
template <class SumOf>
__device__ __forceinline__ void ht_flush_totals(unsigned int* counts, unsigned int num_bins,
                                                const HtBinning& binning, SumOf sum_of) {
  ht_wait_zeroed();
  for (unsigned int b = threadIdx.x; b < num_bins; b += kThreads)
    ht_store_total(counts, num_bins, b, sum_of(b), binning);
}

// Storages 0, 2, 3 and 4 count with atomics: Storage::add_to(bin, count) at `base`. A sample's
// count is first merged with the thread's run of equal bins (HT_AGGREGATE 1) or with the lanes of
// its warp that hold the same bin (2); with HT_SINK a sample in no bin counts in the sink bin.
template <class Storage>
struct HtAtomicCounting {
  unsigned int* base;  // where this thread adds: its copy, the output or the block's share
  unsigned int run_bin;
  unsigned int run_len;
  unsigned int num_bins;  // the sink bin (HT_SINK); storage 4's carries stay below it
  unsigned int* out;  // the output counts (storage 4's carries)

  __device__ __forceinline__ void add(unsigned int bin, unsigned int count) {
    static_cast<Storage*>(this)->add_to(bin, count);
  }
  // +1 at bin when ok, without aggregation (storage 0 hides this with one predicated add).
  __device__ __forceinline__ void inc_if(bool ok, unsigned int bin) {
    if (ok) add(bin, 1u);
  }
  // After `base` is set.
  __device__ __forceinline__ void start_runs(unsigned int bins, unsigned int* counts) {
    num_bins = bins;
    out = counts;
    run_bin = 0xFFFFFFFFu;
    run_len = 0;
  }
  __device__ __forceinline__ void count_one(unsigned int bin) {
#if HT_AGGREGATE == 1
    if (bin == run_bin) {
      ++run_len;
    } else {
      if (run_len) add(run_bin, run_len);
      run_bin = bin;
      run_len = 1;
    }
#else
    add(bin, 1u);
#endif
  }
  // Adds the open run; called before the barrier that ends the counting.
  __device__ __forceinline__ void close() {
#if HT_AGGREGATE == 1
    if (run_len) add(run_bin, run_len);
    run_len = 0;
#endif
  }
  // Counts M samples whose bins are computed (bin[i] when ok[i]).
  template <unsigned int M>
  __device__ __forceinline__ void count(const unsigned int* bin, const bool* ok) {
#if HT_AGGREGATE == 2
    // Warp aggregation: the lanes holding one bin elect their lowest lane, which adds their
    // number. The hardware merges equal-address +1s (ATOMS.POPC.INC) but not the variable adds
    // of packed counters, which otherwise serialise when a warp reads a run of one value.
#pragma unroll
    for (unsigned int i = 0; i < M; ++i) {
      const unsigned int peers = __match_any_sync(__activemask(), ok[i] ? bin[i] : 0xFFFFFFFFu);
      if (ok[i] && threadIdx.x % 32u == __ffs(peers) - 1u) add(bin[i], __popc(peers));
    }
#elif HT_SINK
#pragma unroll
    for (unsigned int i = 0; i < M; ++i) count_one(ok[i] ? bin[i] : num_bins);
#elif HT_AGGREGATE == 0
#pragma unroll
    for (unsigned int i = 0; i < M; ++i) static_cast<Storage*>(this)->inc_if(ok[i], bin[i]);
#else
#pragma unroll
    for (unsigned int i = 0; i < M; ++i)
      if (ok[i]) count_one(bin[i]);
#endif
  }
};

// Storages 0 and 4: kCopies private copies of copy_words words each in shared memory, warp w on
// copy w % kCopies (lane-striped: each lane on its own words of it).
template <class Storage>
struct HtCopies : HtAtomicCounting<Storage> {
  unsigned int* copy0;
  unsigned int copy_words, words;
  unsigned int base_s;  // base as a shared-window address

  // Every word starts at Storage::kZeroWord (packed counters under a test hook start near a carry).
  __device__ __forceinline__ void zero() {
    for (unsigned int i = threadIdx.x; i < words; i += kThreads) copy0[i] = Storage::kZeroWord;
  }
  __device__ __forceinline__ void begin(unsigned int num_bins, unsigned int* counts) {
    __syncthreads();
    this->base = copy0 + ((threadIdx.x / 32u) % kCopies) * copy_words;
    if constexpr (HT_LAYOUT == 1) this->base += threadIdx.x % 32u;
    base_s = ht_smem_addr(this->base);
    this->start_runs(num_bins, counts);
  }
};

#if HT_CLUSTER > 1
__device__ __forceinline__ unsigned int ht_cluster_rank() {
  unsigned int r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Every thread of every block of the cluster; orders shared-memory writes across the cluster.
__device__ __forceinline__ void ht_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}
// The address of `local` (in this block's shared memory) in block `rank`'s, for plain loads.
__device__ __forceinline__ const unsigned int* ht_cluster_map(const unsigned int* local,
                                                              unsigned int rank) {
  unsigned long long remote;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(local), "r"(rank));
  return reinterpret_cast<const unsigned int*>(remote);
}
#endif

// ---- the counter storages (HT_STORAGE) -------------------------------------------------------
// Each is an HtCounters with the same steps: setup() places the counters in the block's shared
// memory (`words` words; range binning's data follows them), zero() clears them, begin() waits
// for the block (or cluster) and starts this thread's counting, count<M>() counts M binned
// samples, end_of_tile() and end_of_tiles() close what a tile or the tile loop needs closed, and
// flush() moves the block's counts to the output.

#if HT_STORAGE == 0
// Private copies updated by shared atomics, warp w on copy w % kCopies. Layout 0: rows of
// row_stride words (the bins, the sink, the padding); layout 1: bin b of lane l at word b * 32 + l.
struct HtCounters : HtCopies<HtCounters> {
  static constexpr unsigned int kZeroWord = 0u;
  __device__ __forceinline__ void setup(unsigned int* smem, unsigned int num_bins,
                                        unsigned int row_stride) {
#if HT_LAYOUT == 0
    copy_words = row_stride;
#else
    copy_words = (num_bins + HT_SINK) * 32u;
#endif
    words = kCopies * copy_words;
    copy0 = smem;
  }
  // Bin b's word in this thread's copy, as a shared-window address.
  __device__ __forceinline__ unsigned int addr_of(unsigned int bin) const {
    return base_s + (HT_LAYOUT == 0 ? bin : bin * 32u) * 4u;
  }
  __device__ __forceinline__ void add_to(unsigned int bin, unsigned int count) {
    ht_shared_add(addr_of(bin), count);
  }
  __device__ __forceinline__ void inc_if(bool ok, unsigned int bin) {
    ht_shared_inc_if(ok, addr_of(bin));
  }
  __device__ __forceinline__ void end_of_tile(unsigned int& /*tiles*/) {}
  __device__ __forceinline__ void end_of_tiles() {}
  // Bin b summed over the copies starting at `first` (this block's copy0, or another's).
  __device__ __forceinline__ unsigned int sum_of(const unsigned int* first, unsigned int b) const {
    unsigned int sum = 0;
#pragma unroll
    for (unsigned int c = 0; c < kCopies; ++c) {
#if HT_LAYOUT == 0
      sum += first[c * copy_words + b];
#else
      const unsigned int* row = first + c * copy_words + b * 32u;
#pragma unroll 8
      for (unsigned int l = 0; l < 32u; ++l) sum += row[(l + b) % 32u];  // rotate: no conflicts
#endif
    }
    return sum;
  }
  __device__ __forceinline__ void flush(unsigned int* counts, unsigned int num_bins,
                                        const HtBinning& binning) {
    close();
#if HT_SINGLE_BLOCK && HT_CLUSTER > 1
    ht_cluster_sync();  // every block's copies are complete
    const unsigned int rank = ht_cluster_rank();
    for (unsigned int b = rank + threadIdx.x * HT_CLUSTER; b < num_bins; b += kThreads * HT_CLUSTER) {
      unsigned int sum = 0;
#pragma unroll
      for (unsigned int q = 0; q < HT_CLUSTER; ++q) sum += sum_of(ht_cluster_map(copy0, q), b);
      counts[b] = sum;
    }
    ht_cluster_sync();  // no block leaves while another reads its copies
#else
    __syncthreads();
    ht_flush_totals(counts, num_bins, binning, [&](unsigned int b) { return sum_of(copy0, b); });
#endif
  }
};

#elif HT_STORAGE == 1
// A thread adds at most kPerTile samples per tile, and at most kPerTile + 2 after the last (the
// leftover vectors, the head and the tail): summing the counters into the block histogram every
// kFlushTiles tiles keeps every 16-bit counter below 2^16.
#ifdef HT_TEST_FLUSH_TILES
enum : unsigned int { kFlushTiles = HT_TEST_FLUSH_TILES };  // tests exercise frequent flushes
#else
enum : unsigned int { kFlushTiles = (0xFFFFu - kPerTile - 2u) / kPerTile };
#endif

// Per-thread 16-bit counters, two per word (bin pair q of thread t at word q * kThreads + t),
// updated by plain loads and stores; then the block histogram (num_bins words) they are summed
// into, which the final flush reads as its one copy.
struct HtCounters {
  unsigned int* area;   // words_per_thread rows of kThreads words
  unsigned int* block;  // num_bins words
  unsigned int words_per_thread;
  unsigned int num_bins;
  unsigned int words;

  __device__ __forceinline__ void setup(unsigned int* smem, unsigned int bins,
                                        unsigned int /*row_stride*/) {
    words_per_thread = (bins + 1u) / 2u;
    num_bins = bins;
    area = smem;
    block = smem + words_per_thread * kThreads;
    words = words_per_thread * kThreads + bins;
  }
  __device__ __forceinline__ void zero() {
    for (unsigned int i = threadIdx.x; i < words; i += kThreads) area[i] = 0u;
  }
  __device__ __forceinline__ void begin(unsigned int /*num_bins*/, unsigned int* /*counts*/) {
    __syncthreads();
  }
  // Adds B samples (bin[i] counted when ok[i]) to this thread's counters: all loads first, so
  // their latencies overlap; samples on one word are merged, so equal words store equal values
  // and the order of the stores does not matter.
  template <int B>
  __device__ __forceinline__ void add(const unsigned int* bin, const bool* ok) {
    unsigned int* a[B];
    unsigned int inc[B], v[B], w[B];
#pragma unroll
    for (int i = 0; i < B; ++i) {
      w[i] = ok[i] ? bin[i] >> 1 : 0u;
      inc[i] = ok[i] ? 1u << ((bin[i] & 1u) * 16u) : 0u;
      a[i] = area + w[i] * HT_BLOCK_THREADS + threadIdx.x;
    }
#pragma unroll
    for (int i = 0; i < B; ++i) v[i] = *a[i];
#pragma unroll
    for (int i = 0; i < B; ++i) {
      unsigned int t = inc[i];
#pragma unroll
      for (int j = 0; j < B; ++j)
        if (j != i && w[j] == w[i]) t += inc[j];
      *a[i] = v[i] + t;
    }
  }
  // HT_BATCH samples load their counters together.
  template <unsigned int M>
  __device__ __forceinline__ void count(const unsigned int* bin, const bool* ok) {
    constexpr unsigned int b = M % HT_BATCH == 0 ? HT_BATCH : 1;
#pragma unroll
    for (unsigned int i = 0; i < M; i += b) add<b>(bin + i, ok + i);
  }
  // Every warp sums whole rows (one bin pair over all threads) into the block histogram and
  // clears them; a row belongs to one warp, so the block histogram needs no atomics here.
  __device__ void sum_into_block() {
    __syncthreads();
    const unsigned int lane = threadIdx.x % 32u;
    for (unsigned int q = threadIdx.x / 32u; q < words_per_thread; q += HT_BLOCK_THREADS / 32) {
      unsigned int lo = 0, hi = 0;
      unsigned int* row = area + q * HT_BLOCK_THREADS;
#pragma unroll 4
      for (unsigned int j = lane; j < HT_BLOCK_THREADS; j += 32u) {
        const unsigned int x = row[j];
        row[j] = 0u;
        lo += x & 0xFFFFu;
        hi += x >> 16;
      }
#pragma unroll
      for (unsigned int o = 16; o > 0; o >>= 1) {
        lo += __shfl_down_sync(0xFFFFFFFFu, lo, o);
        hi += __shfl_down_sync(0xFFFFFFFFu, hi, o);
      }
      if (lane == 0) {
        block[2u * q] += lo;
        if (2u * q + 1u < num_bins) block[2u * q + 1u] += hi;
      }
    }
    __syncthreads();
  }
  __device__ __forceinline__ void end_of_tile(unsigned int& tiles) {
    if (++tiles == kFlushTiles) {  // the same count in every thread of the block
      sum_into_block();
      tiles = 0;
    }
  }
  __device__ __forceinline__ void end_of_tiles() {}
  __device__ __forceinline__ void flush(unsigned int* counts, unsigned int /*num_bins*/,
                                        const HtBinning& binning) {
    sum_into_block();
    ht_flush_totals(counts, num_bins, binning, [&](unsigned int b) { return block[b]; });
  }
};

#elif HT_STORAGE == 2
// No private counters: every count (or run) is an atomic on the output, in L2.
struct HtCounters : HtAtomicCounting<HtCounters> {
  unsigned int words;  // 0

  __device__ __forceinline__ void setup(unsigned int* /*smem*/, unsigned int /*num_bins*/,
                                        unsigned int /*row_stride*/) {
    words = 0;
  }
  __device__ __forceinline__ void zero() {}
  __device__ __forceinline__ void begin(unsigned int num_bins, unsigned int* counts) {
    __syncthreads();  // range binning's shared data
    ht_wait_zeroed();  // every count is an atomic on the output
    base = counts;
    start_runs(num_bins, counts);
  }
  __device__ __forceinline__ void add_to(unsigned int bin, unsigned int count) {
    atomicAdd(base + bin, count);
  }
  __device__ __forceinline__ void end_of_tile(unsigned int& /*tiles*/) {}
  __device__ __forceinline__ void end_of_tiles() {}
  __device__ __forceinline__ void flush(unsigned int* /*counts*/, unsigned int /*num_bins*/,
                                        const HtBinning& /*binning*/) {
    close();  // every count is already in the output
  }
};

#elif HT_STORAGE == 3
// Adds v to the word at `local` (an address in this block's shared memory) of block `rank`.
__device__ __forceinline__ void ht_cluster_add(const unsigned int* local, unsigned int rank,
                                               unsigned int v) {
  const unsigned int a = ht_smem_addr(local);
  unsigned int remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(a), "r"(rank));
  asm volatile("red.relaxed.cluster.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(v)
               : "memory");
}

// One histogram spread over the cluster's blocks: bin b lives in block b % HT_CLUSTER, word
// b / HT_CLUSTER, updated through distributed shared memory.
struct HtCounters : HtAtomicCounting<HtCounters> {
  unsigned int* share;  // this block's bins: rank, rank + HT_CLUSTER, ...
  unsigned int rank, words;

  __device__ __forceinline__ void setup(unsigned int* smem, unsigned int num_bins,
                                        unsigned int /*row_stride*/) {
    rank = ht_cluster_rank();
    words = (num_bins + HT_CLUSTER - 1u) / HT_CLUSTER;
    share = smem;
  }
  __device__ __forceinline__ void zero() {
    for (unsigned int i = threadIdx.x; i < words; i += kThreads) share[i] = 0u;
  }
  __device__ __forceinline__ void begin(unsigned int num_bins, unsigned int* counts) {
    ht_cluster_sync();  // no block may add to another's share before that one is zeroed
    base = share;
    start_runs(num_bins, counts);
  }
  __device__ __forceinline__ void add_to(unsigned int bin, unsigned int count) {
    ht_cluster_add(base + bin / HT_CLUSTER, bin % HT_CLUSTER, count);
  }
  __device__ __forceinline__ void end_of_tile(unsigned int& /*tiles*/) {}
  __device__ __forceinline__ void end_of_tiles() {}
  __device__ __forceinline__ void flush(unsigned int* counts, unsigned int num_bins,
                                        const HtBinning& /*binning*/) {
    close();
    ht_cluster_sync();  // every block's adds to this share are done; nobody reads it afterwards
    ht_wait_zeroed();
    for (unsigned int w = threadIdx.x; w < words; w += kThreads) {
      const unsigned int b = w * HT_CLUSTER + rank;
      const unsigned int sum = share[w];
      if (b < num_bins && sum) atomicAdd(&counts[b], sum);
    }
  }
};

#elif HT_STORAGE == 4
#ifdef HT_TEST_COUNTER_START
constexpr unsigned int kStart = HT_TEST_COUNTER_START;  // tests start counters near a carry
#else
constexpr unsigned int kStart = 0u;
#endif

// Private copies of packed 16-bit counters (rows of row_stride words: (num_bins + 1) / 2, the
// padding), updated by shared atomics that return the word, warp w on copy w % kCopies.
struct HtCounters : HtCopies<HtCounters> {
  static constexpr unsigned int kZeroWord = kStart * 0x10001u;
  __device__ __forceinline__ void setup(unsigned int* smem, unsigned int /*num_bins*/,
                                        unsigned int row_stride) {
    copy_words = row_stride;
    words = kCopies * copy_words;
    copy0 = smem;
  }
  // count < 2^16: a merged run (HT_AGGREGATE 1) is at most the samples a thread counts, which
  // hist1d::check bounds for packed counters.
  __device__ __forceinline__ void add_to(unsigned int bin, unsigned int count) {
    const unsigned int old =
        ht_shared_fetch_add(base_s + (bin / 2u) * 4u, count << ((bin & 1u) * 16u));
    ht_packed_carry(out, num_bins, bin, count, old);
  }
  __device__ __forceinline__ void end_of_tile(unsigned int& /*tiles*/) {}
  __device__ __forceinline__ void end_of_tiles() {}
  __device__ __forceinline__ void flush(unsigned int* counts, unsigned int num_bins,
                                        const HtBinning& binning) {
    close();
    __syncthreads();
    ht_flush_totals(counts, num_bins, binning, [&](unsigned int b) {
      unsigned int sum = 0u - kCopies * kStart;
#pragma unroll
      for (unsigned int c = 0; c < kCopies; ++c)
        sum += (copy0[c * copy_words + b / 2u] >> ((b & 1u) * 16u)) & 0xFFFFu;
      return sum;
    });
  }
};
#endif

// ---- reading the input -----------------------------------------------------------------------

// The input as the tile loops read it: the samples before the first vector-aligned one (the
// head), the aligned body's whole vectors and its whole tiles.
struct HtInput {
  unsigned long long head, body_vecs, full_tiles;
  const VecT* body;
};
__device__ __forceinline__ HtInput ht_input(const SampleT* samples, unsigned long long n) {
  HtInput in;
  const unsigned long long misalign = ((unsigned long long)samples % kVecBytes) / sizeof(SampleT);
  in.head = misalign ? kPerVec - misalign : 0;
  if (in.head > n) in.head = n;
  in.body = reinterpret_cast<const VecT*>(samples + in.head);
  in.body_vecs = (n - in.head) / kPerVec;
  in.full_tiles = in.body_vecs / kTileVecs;
  return in;
}

// Vector k of this thread's kVecs vectors of tile t, strided by the block (a warp's loads stay
// coalesced). By value: a copy through a pointer compiles to other loads.
__device__ __forceinline__ VecT ht_tile_vec(const VecT* body, unsigned long long t,
                                            unsigned int k) {
  const VecT* p = body + t * kTileVecs + threadIdx.x;
  return p[k * kThreads];
}

// This thread's samples of a tile, vector by vector in memory order: range binning through an
// index bins them together (HtBinning::bins_of interleaves their searches).
__device__ __forceinline__ void ht_tile_samples(const VecT* v, SampleT* s) {
#pragma unroll
  for (unsigned int k = 0; k < kVecs; ++k)
    ht_for_each_sample([&](unsigned int w) { return ht_word(v[k], w); },
                       [&](SampleT x, unsigned int j) { s[k * kPerVec + j] = x; });
}

#if HT_STORAGE != 5
extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS)
histtune_hist1d(const SampleT* __restrict__ samples, unsigned long long n, unsigned int num_bins,
                unsigned int row_stride, long long lower_i, unsigned long long range_i,
                unsigned long long recip_i, float lower_f, float upper_f, float scale_f,
                unsigned int* __restrict__ counts, const SampleT* __restrict__ levels,
                unsigned long long /*row_pixels*/, unsigned long long /*row_pitch*/,
                unsigned int slices) {
  // The row pitch is the multi-channel family's (multichannel.cuh): both families take one
  // argument list (histtune::KernelArgs); 1D samples are always packed.
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  // Bin-range slices (HT_SLICED kernels; slices > 1 when one block's copies cannot hold every
  // bin): block b counts only the bins of slice b % slices, and the `slices` blocks of group
  // b / slices read the same tiles side by side, so L2 serves all but the first read of a tile.
  if (!HT_SLICED) slices = 1u;
  const unsigned int width = (num_bins + slices - 1u) / slices;
  const unsigned int lo = min(num_bins, (blockIdx.x % slices) * width);
  const unsigned int bins = min(width, num_bins - lo);
  const unsigned int group = blockIdx.x / slices, groups = gridDim.x / slices;
  counts += lo;
  // Byte decoding: the counters hold the 256 byte values (never sliced: fewer than 256 bins).
  const unsigned int counted = HT_BYTE_DECODE ? 256u : bins;
  extern __shared__ unsigned int private_bins[];
  HtCounters ctr;
  ctr.setup(private_bins, counted, row_stride);
  ctr.zero();
  // Range binning: levels or the u8 table after the counters (begin()'s barrier publishes them).
  binning.range = ht_range_setup(levels, num_bins, private_bins + ctr.words);
  ctr.begin(counted, counts);

  // Counting: lambdas, not functions (as functions they compile to other code).
  // Sample s's bin within this block's slice, when it has one (one unsigned compare); a
  // byte-decoding kernel counts every sample at its value.
  auto bin_of = [&](SampleT s, unsigned int& bin) {
    if constexpr (HT_BYTE_DECODE) {
      bin = (unsigned int)(unsigned char)s;  // the byte: i8's -1 counts at 255
      return true;
    }
#if HT_SLICED && HT_BINNING == 0
    // Direct bins of 32 bits or fewer: lo + bins <= num_bins, so s - lo < bins (unsigned) holds
    // exactly for the samples of this slice, one compare where two were (docs/kernels.md).
    if constexpr (sizeof(SampleT) < 8) {
      bin = (unsigned int)s - lo;
      return bin < bins;
    }
#endif
    const bool ok = binning.bin_of(s, bin);
    if (!HT_SLICED) return ok;
    bin -= lo;
    return ok && bin < bins;
  };
  auto count_sample = [&](SampleT s) {
    unsigned int bin[1];
    bool ok[1];
    ok[0] = bin_of(s, bin[0]);
    ctr.template count<1>(bin, ok);
  };
  // The bins of one vector's samples (bin[j] when ok[j]).
  auto bins_of_vec = [&](VecT v, unsigned int* bin, bool* ok) {
    if constexpr (sizeof(SampleT) == 8) {  // i64, u64, f64: two words a sample
      ht_for_each_sample([&](unsigned int w) { return ht_word(v, w); },
                         [&](SampleT s, unsigned int j) { ok[j] = bin_of(s, bin[j]); });
      return;
    }
    if (kWords == 0) {
      ok[0] = bin_of(ht_sample_of<0>(ht_word(v, 0)), bin[0]);
      return;
    }
#pragma unroll
    for (unsigned int w = 0; w < kWords; ++w) {
      const unsigned int word = ht_word(v, w);
      unsigned int* b = bin + w * kPerWord;
      bool* o = ok + w * kPerWord;
      o[0] = bin_of(ht_sample_of<0>(word), b[0]);
      if (kPerWord > 1) o[1] = bin_of(ht_sample_of<1>(word), b[1]);
      if (kPerWord > 2) {
        o[2] = bin_of(ht_sample_of<2>(word), b[2]);
        o[3] = bin_of(ht_sample_of<3>(word), b[3]);
      }
    }
  };
  auto count_vec = [&](VecT v) {
    unsigned int bin[kPerVec];
    bool ok[kPerVec];
    bins_of_vec(v, bin, ok);
    ctr.template count<kPerVec>(bin, ok);
  };

  const HtInput in = ht_input(samples, n);
  const unsigned long long head = in.head, body_vecs = in.body_vecs, full_tiles = in.full_tiles;
  const VecT* body = in.body;
  unsigned int tiles = 0;  // since the last counter flush (storage 1)
  // HT_PREFETCH: each thread keeps the next tile's loads in flight while it counts the current
  // one (with few resident threads, per-thread counters, or many samples to count per byte, u8,
  // the loads otherwise stop while a warp counts).
  VecT next[kVecs];
  if (HT_PREFETCH && group < full_tiles) {
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) next[k] = ht_tile_vec(body, group, k);
  }
  HT_UNROLL_TILES
  for (unsigned long long t = group; t < full_tiles; t += groups) {
    VecT v[kVecs];
    if constexpr (HT_PREFETCH) {
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) v[k] = next[k];
      if (t + groups < full_tiles) {
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k)
          next[k] = ht_tile_vec(body, t + groups, k);
      }
    } else {
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k) v[k] = ht_tile_vec(body, t, k);
    }
    unsigned int bin[kPerTile];
    bool ok[kPerTile];
#if HT_RANGE_INDEXED
    SampleT s[kPerTile];
    ht_tile_samples(v, s);
    binning.template bins_of<kPerTile>(s, bin, ok);
#pragma unroll
    for (unsigned int i = 0; i < kPerTile; ++i) {  // bin_of's slice
      bin[i] -= lo;
      ok[i] = ok[i] && (!HT_SLICED || bin[i] < bins);
    }
#else
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k)
      bins_of_vec(v[k], bin + k * kPerVec, ok + k * kPerVec);
#endif
    ctr.template count<kPerTile>(bin, ok);
    ctr.end_of_tile(tiles);
  }
  ctr.end_of_tiles();
  // What the tiles leave, spread over every thread of a slice's blocks: the whole vectors after
  // the last full tile, then the head and the last partial vector (fewer than 2 x kPerVec samples).
  const unsigned long long gtid = (unsigned long long)group * kThreads + threadIdx.x;
  const unsigned long long gthreads = (unsigned long long)groups * kThreads;
  for (unsigned long long i = full_tiles * kTileVecs + gtid; i < body_vecs; i += gthreads)
    count_vec(body[i]);
  const unsigned long long tail_start = head + body_vecs * kPerVec;
  if (gtid < head) count_sample(samples[gtid]);
  if (gtid < n - tail_start) count_sample(samples[tail_start + gtid]);
  ctr.flush(counts, counted, binning);
}
#endif  // HT_STORAGE != 5
#endif  // !HT_COUNT_PASSES

#if HT_STORAGE == 5 || HT_COUNT_PASSES
// ---- storage 5: partition, then count ---------------------------------------------------------
// Bins far beyond shared memory (hist1d::partitioned). Two kernels per chunk of the input:
//  - histtune_hist1d (the partition pass) bins every sample of a tile of kTile samples and
//    sorts the tile by partition (the bin's high bits, 2^HT_PARTITION_BITS bins each) in shared
//    memory: it writes the tile's slots (16-bit in-partition bins, or the samples themselves:
//    HtSlot), grouped by partition, and one table word per partition (the group's start | its
//    length << 16). Coalesced writes of 2 (or 4) bytes a sample instead of one L2 atomic a sample.
//  - histtune_hist1d_sizes sums each partition's lengths, and histtune_hist1d_count gives each
//    partition one block of kCountThreads threads (a hot partition several), which counts the
//    partition's groups of its tiles in shared memory and stores (or, after the first round,
//    adds) its bins: a partition's only block writes its bins with no zeroing and no atomics.
// The workspace (`counts` of the partition pass) holds the table, tile-major per partition
// (word p * stride + t, stride = ht_part_stride(n)), then the tiles' slots from a 16-byte
// boundary, then the partitions' sizes. Tiles 0 .. full - 1 are the aligned body's whole tiles; tile `full` holds the body's
// last partial tile and tile full + 1 the misaligned head and the tail; any later tile is empty.
#if HT_COUNT_PASSES
#if !defined(HT_TILE) || !defined(HT_PARTITION_BITS)
#error "HT_TILE and HT_PARTITION_BITS must be defined with HT_COUNT_PASSES (hist1d::count_request)"
#endif
#else
#if !defined(HT_PARTITION_BITS) || !defined(HT_MIN_BLOCKS) || !defined(HT_BULK_OUT)
#error "storage 5 needs HT_PARTITION_BITS, HT_MIN_BLOCKS and HT_BULK_OUT (hist1d::defines)"
#endif
#if HT_BULK_OUT && __CUDA_ARCH__ < 900
#error "the partition pass's bulk copy out (HT_BULK_OUT) needs sm_90: hist1d::partition_bulk_out"
#endif
#if HT_AGGREGATE == 1 || HT_PRIVATE_COPIES != 1 || HT_LAYOUT != 0 || HT_SINK || HT_TWO_PHASE
#error "storage 5 takes no copies, runs, sink or two-phase flush"
#endif
#endif
enum : unsigned int {
#if HT_COUNT_PASSES
  kTile = HT_TILE,
#else
  kTile = kThreads * kPerTile,  // samples per tile (<= 32768: starts and lengths fit 16 bits)
#endif
  kPartBins = 1u << HT_PARTITION_BITS,
  kNoPart = 0xFFFFFFFFu,
  kCountThreads = 1024,
  // Chunk loads a round in the count pass: the next round's 4 are in flight while this round's 4
  // are added (57-60 registers; 6 spill); docs/kernels.md.
  kCountLoads = 4,
};

// The workspace's slots: a sample's bin within its partition (16 bits), or with HT_PART_VALUES
// (range binning of 4-byte samples, hist1d::values_partitioned) the sample itself: the partition
// pass then finds only its partition (a search of the partitions' first levels, in shared
// memory) and the count pass its bin (a search of its partition's levels, staged in shared
// memory), so no search reads levels from global memory.
#if HT_PART_VALUES
typedef SampleT HtSlot;
#else
typedef unsigned short HtSlot;
#endif
enum : unsigned int { kChunkSlots = 16u / sizeof(HtSlot) };  // slots a 16-byte chunk
// The 32-bit words of `slots` slots (a whole number).
__device__ __forceinline__ unsigned long long ht_slot_words(unsigned long long slots) {
  return sizeof(HtSlot) < 4u ? slots / (4u / sizeof(HtSlot)) : slots * (sizeof(HtSlot) / 4u);
}

// A slot no bin counts, which pads each group to whole chunks: bin kPartBins of its partition
// (the count pass's sink word), or a value outside every partition's levels: NaN, or the type's
// largest value, which is never below the last level.
#if HT_PART_VALUES
static_assert(sizeof(SampleT) == 4 && !HT_SAMPLE_HALF,
              "HT_PART_VALUES carries 4-byte samples (hist1d::values_partitioned)");
__device__ __forceinline__ float ht_sink_of(float) { return __int_as_float(0x7FFFFFFF); }
template <typename T>
__device__ __forceinline__ T ht_sink_of(T) {  // the largest unsigned or signed value
  return (T)-1 > (T)0 ? (T)~0u : (T)(~0u >> 1);
}
#endif
__device__ __forceinline__ uint4 ht_sink_chunk() {
#if HT_PART_VALUES
  union {
    HtSlot slot[kChunkSlots];
    uint4 chunk;
  } c;
#pragma unroll
  for (unsigned int i = 0; i < kChunkSlots; ++i) c.slot[i] = ht_sink_of(SampleT());
  return c.chunk;
#else
  const unsigned int two = kPartBins | (kPartBins << 16);
  return make_uint4(two, two, two, two);
#endif
}

__device__ __forceinline__ unsigned long long ht_part_stride(unsigned long long n) {
  return n / kTile + 2u;
}
__device__ __forceinline__ unsigned int ht_partitions(unsigned int num_bins) {
  return (num_bins + kPartBins - 1u) >> HT_PARTITION_BITS;
}
// The partition pass's scan gives each of a warp's lanes whole uint4s of counts: rows of 128
// partitions, the padding's counts 0.
__device__ __forceinline__ unsigned int ht_scan_rows(unsigned int parts) {
  return (parts + 127u) / 128u;
}
// The table's words, rounded up so that the bins after it start on a 16-byte boundary.
__device__ __forceinline__ unsigned long long ht_table_words(unsigned int parts,
                                                             unsigned long long stride) {
  return (parts * stride + 3u) & ~3ull;
}
// A tile's slots in the workspace: its samples, each partition's group padded to whole chunks
// (16 bytes) with the sink, so the count pass loads whole chunks of one group.
__device__ __forceinline__ unsigned long long ht_tile_slots(unsigned int parts) {
  return kTile + (unsigned long long)kChunkSlots * parts;
}
// The partitions' sizes (the sizes pass's output): after the tiles' bins.
__device__ __forceinline__ unsigned int* ht_part_sizes(const unsigned int* work,
                                                       unsigned int parts,
                                                       unsigned long long stride) {
  return const_cast<unsigned int*>(work) + ht_table_words(parts, stride) +
         ht_slot_words(stride * ht_tile_slots(parts));
}

// The three passes launch as programmatic dependents of the kernel before them (sm_90,
// Hist1DLaunch::launch_partitioned): their blocks start while it drains, and wait here before
// their first global access to what it may have written (the partition pass: the samples, and
// the workspace, which the previous call's count pass may still read). Without that launch
// attribute the wait returns at once.
__device__ __forceinline__ void ht_wait_prior_pass() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the kernel launched after this one as a programmatic dependent start its blocks once every
// block of this one has started (it waits in ht_wait_prior_pass before it reads what this one
// writes): its launch and set-up hide behind this kernel's last blocks.
__device__ __forceinline__ void ht_start_next_pass() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

#if !HT_COUNT_PASSES
// HT_BULK_OUT (sm_90 and newer, hist1d::partition_bulk_out): a tile's grouped bins leave the
// stage by one bulk copy (TMA) that thread 0 issues, instead of every thread's 16-byte loads and
// stores; two stages take turns, so the copy reads one while the next tile fills the other.
enum : unsigned int { kStages = HT_BULK_OUT ? 2u : 1u };

// The partition pass's shared memory (after prefetch 2's tiles); hist1d::counter_bytes gives its
// size. Counts and starts are padded to whole scan rows (ht_scan_rows), and `groups` takes four
// words, so the stages start 16-byte aligned.
struct HtPartSmem {
  unsigned int* cnt;        // kStages copies of each partition's samples in the tile, one a
                            // stage (zero between tiles)
  unsigned short* start16;  // each partition's start in the stage, two a word
  unsigned int* groups;     // [0] the slots the tile's groups take, [1] the hot-tile flag,
                            // [2 + s] the slots stage s's last tile took (HT_BULK_OUT)
  HtSlot* stage;            // kStages stages of ht_tile_slots(parts) slots
  unsigned int* after;      // the words after the stages (range binning's levels)
};
__device__ __forceinline__ HtPartSmem ht_part_smem(unsigned int* smem, unsigned int parts) {
  const unsigned int padded = ht_scan_rows(parts) * 128u, counts = kStages * padded;
  const unsigned int stage_at = counts + padded / 2u + 4u;
  return {smem, reinterpret_cast<unsigned short*>(smem + counts), smem + counts + padded / 2u,
          reinterpret_cast<HtSlot*>(smem + stage_at),
          smem + stage_at + ht_slot_words(kStages * ht_tile_slots(parts))};
}

// The tile's stage, its groups complete, to the workspace at `out` (thread 0; HT_BULK_OUT).
__device__ __forceinline__ void ht_bulk_out(HtSlot* out, const HtSlot* stage, unsigned int slots) {
#if HT_BULK_OUT
  if (slots)
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out),
                 "r"(ht_smem_addr(stage)), "r"(slots * (unsigned int)sizeof(HtSlot))
                 : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
// Thread 0: wait until every copy issued has read its stage (`all`: has written the workspace,
// before the kernel ends).
__device__ __forceinline__ void ht_bulk_out_wait(bool all) {
#if HT_BULK_OUT
  if (all)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
}
// Thread 0: the copy of tile t (the block's previous one, or its last), staged in stage `buf`,
// once every thread has staged it and fenced; its slots are kept for the stage's refill.
__device__ __forceinline__ void ht_bulk_out_tile(unsigned long long t, unsigned int parts,
                                                 const HtPartSmem& sm, unsigned int buf,
                                                 HtSlot* bins) {
  ht_bulk_out(bins + t * ht_tile_slots(parts), sm.stage + buf * ht_tile_slots(parts),
              sm.groups[0]);
  sm.groups[2u + buf] = sm.groups[0];
}

// One tile's samples (bin[i], kNoPart when in no bin) to the workspace: each sample's
// rank within its partition (a shared atomic, or with HT_AGGREGATE 2 one per warp and partition),
// the partitions' starts (a scan), the table words, the grouped bins staged in shared memory
// stage `buf` and stored whole: below sm_90 by 16-byte writes after a third barrier; from sm_90
// by a bulk copy that thread 0 issues after the next tile's first barrier (or the kernel's
// last), so a tile takes two barriers. Stage `buf`'s copy of `cnt` starts and ends zeroed. The
// starts are 16-bit values (they fit: hist1d.cuh's tile bound), two a word: fewer words for each
// sample's gather to conflict on.
__device__ __forceinline__ void ht_place_tile(unsigned long long t, unsigned long long stride,
                                              unsigned int parts, const unsigned int* bin,
                                              const SampleT* val, const HtPartSmem& sm,
                                              unsigned int buf, unsigned int* table,
                                              HtSlot* bins) {
  unsigned int* cnt = sm.cnt + buf * ht_scan_rows(parts) * 128u;
  unsigned short* start16 = sm.start16;
  unsigned int* groups = sm.groups;
  HtSlot* stage = sm.stage + buf * ht_tile_slots(parts);
  if (HT_BULK_OUT && threadIdx.x == 0) ht_bulk_out_wait(false);
  unsigned int rank[kPerTile];
  auto part_of = [&](unsigned int i) {
    return bin[i] == kNoPart ? kNoPart : bin[i] >> HT_PARTITION_BITS;
  };
#if HT_AGGREGATE != 2
  // A tile after one whose largest partition held no more than four times the average (the scan
  // below sets groups[1]; uniform data) takes each rank with a plain returning atomic:
  // the uniform-warp test of the other tiles costs a shuffle and a branch a sample.
  if (groups[1] == 0u) {
#pragma unroll
    for (unsigned int i = 0; i < kPerTile; ++i) {
      const unsigned int part = part_of(i);
      rank[i] = part != kNoPart ? atomicAdd(&cnt[part], 1u) : 0u;
    }
  } else
#endif
  {
#pragma unroll
    for (unsigned int i = 0; i < kPerTile; ++i) {
      const unsigned int part = part_of(i);
      const unsigned int lane = threadIdx.x % 32u;
      // A warp whose lanes share one partition (constant data, long runs) takes its ranks with
      // one atomic: 32 returning atomics on one word serialise. HT_AGGREGATE 2 merges every
      // group of lanes that share a partition (__match_any_sync), at a match per sample.
#if HT_AGGREGATE == 2
      const unsigned int peers = __match_any_sync(0xFFFFFFFFu, part);
      const unsigned int first = __ffs(peers) - 1u;
      unsigned int base = 0;
      if (lane == first && part != kNoPart) base = atomicAdd(&cnt[part], __popc(peers));
      rank[i] = __shfl_sync(0xFFFFFFFFu, base, first) + __popc(peers & ((1u << lane) - 1u));
#else
      // The test is a warp-uniform branch, so a warp of several partitions (skewed data) pays a
      // vote and its own atomic, not the group arithmetic (about 12 instructions a sample).
      if (__all_sync(0xFFFFFFFFu, part == __shfl_sync(0xFFFFFFFFu, part, 0))) {
        unsigned int base = 0;
        if (lane == 0 && part != kNoPart) base = atomicAdd(&cnt[part], 32u);
        rank[i] = __shfl_sync(0xFFFFFFFFu, base, 0) + lane;
      } else {
        rank[i] = part != kNoPart ? atomicAdd(&cnt[part], 1u) : 0u;
      }
#endif
    }
  }
#if HT_PART_VALUES
  // Each sample's partition and rank in one word (the rank is below 2^15), so that across the
  // barriers below the samples take the registers the ranks took.
  unsigned int at[kPerTile];
#pragma unroll
  for (unsigned int i = 0; i < kPerTile; ++i)
    at[i] = bin[i] == kNoPart ? kNoPart : (bin[i] >> HT_PARTITION_BITS) << 16 | rank[i];
#endif
  __syncthreads();
#if HT_BULK_OUT
  // Every thread has staged the block's previous tile (and fenced): its copy goes out now, before
  // the scan below overwrites groups[0] (hence the warp's sync).
  if (threadIdx.x == 0 && t >= blockIdx.x + gridDim.x)
    ht_bulk_out_tile(t - gridDim.x, parts, sm, buf ^ 1u, bins);
  if (threadIdx.x < 32u) __syncwarp();
  // The copy of this stage's last tile (two tiles ago) has read it (thread 0 waited above): the
  // warps the scan leaves idle put the sink back in its chunks, as the loop below does at once.
  if (threadIdx.x >= 32u)
    for (unsigned int i = threadIdx.x - 32u; i < groups[2u + buf] / kChunkSlots;
         i += kThreads - 32u)
      reinterpret_cast<uint4*>(stage)[i] = ht_sink_chunk();
#endif
  if (threadIdx.x < 32u) {  // exclusive scan of the counts: a lane per run of whole uint4s
    // cnt and the starts are padded to whole rows of 128 partitions (ht_scan_rows), whose
    // padding stays 0: a lane loads its counts four at a time and keeps them for its starts.
    const unsigned int rows = ht_scan_rows(parts);
    const uint4* mine = reinterpret_cast<const uint4*>(cnt) + threadIdx.x * rows;
    uint2* starts = reinterpret_cast<uint2*>(start16) + threadIdx.x * rows;
    auto pad = [](unsigned int c) { return (c + kChunkSlots - 1u) & ~(kChunkSlots - 1u); };
    auto slots = [&](uint4 c) { return pad(c.x) + pad(c.y) + pad(c.z) + pad(c.w); };
    auto put = [&](unsigned int r, uint4 c, unsigned int& run) {  // four starts, two words
      const unsigned int a = run, b = a + pad(c.x), d = b + pad(c.y), e = d + pad(c.z);
      run = e + pad(c.w);
      starts[r] = make_uint2(a | (b << 16), d | (e << 16));
    };
    const uint4 first = mine[0];  // kept in registers from the sum to the starts
    unsigned int sum = slots(first), most = max(max(first.x, first.y), max(first.z, first.w));
    for (unsigned int r = 1; r < rows; ++r) {
      const uint4 c = mine[r];
      sum += slots(c);
      most = max(most, max(max(c.x, c.y), max(c.z, c.w)));
    }
    const bool hot = __any_sync(0xFFFFFFFFu, most * parts > 4u * kTile);
    unsigned int incl = sum;
#pragma unroll
    for (unsigned int o = 1; o < 32u; o <<= 1) {
      const unsigned int y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
      if (threadIdx.x >= o) incl += y;
    }
    unsigned int run = incl - sum;
    put(0, first, run);
    for (unsigned int r = 1; r < rows; ++r) put(r, mine[r], run);
    if (threadIdx.x == 31u) {
      groups[0] = run;  // the slots the tile's groups take
      groups[1] = hot;  // a partition above four times the average: the next tile tests
    }
  }
  __syncthreads();
  for (unsigned int j = threadIdx.x; j < parts; j += kThreads) {
    table[j * stride + t] = start16[j] | (cnt[j] << 16);
    cnt[j] = 0u;
  }
#if HT_PART_VALUES
#pragma unroll
  for (unsigned int i = 0; i < kPerTile; ++i)
    if (at[i] != kNoPart) stage[start16[at[i] >> 16] + (at[i] & 0xFFFFu)] = val[i];
#else
#pragma unroll
  for (unsigned int i = 0; i < kPerTile; ++i)
    if (bin[i] != kNoPart)
      stage[start16[bin[i] >> HT_PARTITION_BITS] + rank[i]] = bin[i] & (kPartBins - 1u);
#endif
#if HT_BULK_OUT
  // The stage's writes (generic proxy) made visible to the bulk copy's reads (async proxy); the
  // next tile's first barrier orders them before the copy, which its thread 0 issues. Its ranks
  // count into the other copy of `cnt`, so no barrier here waits for this one's zeroing.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __syncthreads();
  uint4* out = reinterpret_cast<uint4*>(bins + t * ht_tile_slots(parts));
  uint4* in = reinterpret_cast<uint4*>(stage);
  // Each chunk copied out is refilled with the sink, so the next tile's group padding (the slots
  // between a group's samples and its next chunk) is already there: no per-partition padding loop.
  for (unsigned int i = threadIdx.x; i < groups[0] / kChunkSlots; i += kThreads) {
    out[i] = in[i];
    in[i] = ht_sink_chunk();
  }
  // No barrier here: the next tile's ranks touch only `cnt` (zeroed above, before the last
  // barrier), and its scan and stage writes come after its first barrier, which every thread
  // reaches only once its copy above is done. A thread done early loads its next tile meanwhile.
#endif
}

// HT_PREFETCH 2 (the partition pass, sm_90): thread 0 issues a bulk copy (TMA) of the next
// whole tile into one of two shared buffers, so its loads stay in flight through this tile's
// ranks, scan and copy-out without registers (register prefetch, HT_PREFETCH 1, spills at two
// blocks an SM). mbarriers count the bytes.
#if HT_PREFETCH == 2 && __CUDA_ARCH__ < 900
#error "bulk prefetch (prefetch 2) needs sm_90: hist1d::check refuses it below"
#endif
#if HT_PREFETCH == 2
enum : unsigned int {
  kBulkTileBytes = (unsigned int)kTileVecs * kVecBytes,
  kBulkWords = (16u + 2u * kBulkTileBytes) / 4u,  // two mbarriers (16 bytes), two tiles
};
__device__ __forceinline__ void ht_bulk_init(unsigned long long* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(ht_smem_addr(bar)) : "memory");
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(ht_smem_addr(bar + 1)) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Thread 0: tile t's bytes into `dst`, counted on `bar`. The fence orders the block's earlier
// reads of `dst` (generic proxy, ordered by the barriers since) before the copy's writes.
__device__ __forceinline__ void ht_bulk_issue(void* dst, const void* src, unsigned long long* bar) {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(ht_smem_addr(bar)),
               "r"((unsigned int)kBulkTileBytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1], %2, [%3];" ::"r"(ht_smem_addr(dst)),
      "l"(src), "r"((unsigned int)kBulkTileBytes), "r"(ht_smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void ht_bulk_wait(unsigned long long* bar, unsigned int parity) {
  unsigned int done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
        " selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(ht_smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
#endif

// The partition pass. Same arguments as the other storages' kernel; `counts` is the workspace.
// HT_MIN_BLOCKS (blocks_per_sm, hist1d::defines) bounds its registers so that many blocks fit.
extern "C" __global__ void __launch_bounds__(HT_BLOCK_THREADS, HT_MIN_BLOCKS)
histtune_hist1d(const SampleT* __restrict__ samples, unsigned long long n, unsigned int num_bins,
                unsigned int /*row_stride*/, long long lower_i, unsigned long long range_i,
                unsigned long long recip_i, float lower_f, float upper_f, float scale_f,
                unsigned int* __restrict__ work, const SampleT* __restrict__ levels,
                unsigned long long /*row_pixels*/, unsigned long long /*row_pitch*/,
                unsigned int /*slices*/) {
  HtBinning binning = {num_bins, lower_i, range_i, recip_i, lower_f, upper_f, scale_f, {}};
  const unsigned int parts = ht_partitions(num_bins);
  const unsigned long long stride = ht_part_stride(n);
  unsigned int* table = work;
  HtSlot* bins = reinterpret_cast<HtSlot*>(work + ht_table_words(parts, stride));
#if HT_PREFETCH == 2
  extern __shared__ __align__(16) unsigned int smem_all[];
  unsigned int* smem = smem_all + kBulkWords;
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(smem_all);
  VecT* bulk_buf = reinterpret_cast<VecT*>(smem_all + 4);
  if (threadIdx.x == 0) ht_bulk_init(bar);
#else
  extern __shared__ unsigned int smem[];
#endif
  const HtPartSmem sm = ht_part_smem(smem, parts);
  for (unsigned int j = threadIdx.x; j < kStages * ht_scan_rows(parts) * 128u; j += kThreads)
    sm.cnt[j] = 0u;
  if (threadIdx.x == 0) {
    sm.groups[1] = 1u;                 // the first tile tests its warps (ht_place_tile)
    sm.groups[2] = sm.groups[3] = 0u;  // no slots to refill with the sink yet
  }
  // The stages start as all sink; ht_place_tile keeps them so (its padding needs no stores).
  for (unsigned int i = threadIdx.x; i < kStages * ht_tile_slots(parts) / kChunkSlots;
       i += kThreads)
    reinterpret_cast<uint4*>(sm.stage)[i] = ht_sink_chunk();
  ht_wait_prior_pass();
  binning.range = ht_range_setup(levels, num_bins, sm.after);
  __syncthreads();

  unsigned int bin[kPerTile];  // the sample's bin, or kNoPart (bins are < 2^32 - 1)
#if HT_PART_VALUES
  SampleT s[kPerTile];  // the samples themselves, the slots (bin[]: their partition's first bin)
#endif
  auto bin_sample = [&](SampleT x, unsigned int i) {
    unsigned int b;
#if HT_PART_VALUES
    bool ok;
    s[i] = x;
    binning.template bins_of<1, false>(&x, &b, &ok);
#else
    const bool ok = binning.bin_of(x, b);
#endif
    bin[i] = ok ? b : kNoPart;
  };
  const HtInput in = ht_input(samples, n);
  const unsigned long long head = in.head, body_vecs = in.body_vecs, full = in.full_tiles;
  const VecT* body = in.body;
  // Tiles past `full`, one sample per item: the body's partial tile, then the head and the tail.
  const unsigned long long rest = (body_vecs - full * kTileVecs) * kPerVec;
  const unsigned long long tail_start = head + body_vecs * kPerVec, tail = n - tail_start;
  VecT next[kVecs];
  if (HT_PREFETCH == 1 && blockIdx.x < full) {
#pragma unroll
    for (unsigned int k = 0; k < kVecs; ++k) next[k] = ht_tile_vec(body, blockIdx.x, k);
  }
#if HT_PREFETCH == 2
  // Bulk copies need a 16-byte aligned source (a tile's bytes are a multiple of 16); a body
  // aligned less (a misaligned start with narrow loads) is read by the threads themselves.
  const bool bulk = reinterpret_cast<unsigned long long>(body) % 16u == 0u;
  if (bulk && threadIdx.x == 0 && blockIdx.x < full)
    ht_bulk_issue(bulk_buf, body + blockIdx.x * kTileVecs, bar);
  unsigned int round = 0;  // whole tiles so far: buffer round % 2, its use round / 2
#endif
  // One loop over whole and last tiles, so that ht_place_tile is inlined once: a second loop for
  // the last tiles made the partition kernel's compile about twice as long.
  unsigned int buf = 0;  // the stage this tile fills: the tiles take turns (HT_BULK_OUT)
  HT_UNROLL_TILES
  for (unsigned long long t = blockIdx.x; t < stride; t += gridDim.x) {
    if (t < full) {
      VecT v[kVecs];
#if HT_PREFETCH == 2
      if (bulk) {
        // The other buffer held the tile before this one, which every thread has read (the
        // barriers of its placement since): the next tile goes there now.
        VecT* cur = bulk_buf + (round % 2u) * kTileVecs;
        if (threadIdx.x == 0 && t + gridDim.x < full)
          ht_bulk_issue(bulk_buf + ((round + 1u) % 2u) * kTileVecs,
                        body + (t + gridDim.x) * kTileVecs, bar + (round + 1u) % 2u);
        ht_bulk_wait(bar + round % 2u, (round / 2u) % 2u);
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k) v[k] = cur[k * kThreads + threadIdx.x];
        ++round;
      } else
#endif
      {
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k)
          v[k] = HT_PREFETCH == 1 ? next[k] : ht_tile_vec(body, t, k);
      }
      if (HT_PREFETCH == 1 && t + gridDim.x < full) {
#pragma unroll
        for (unsigned int k = 0; k < kVecs; ++k) next[k] = ht_tile_vec(body, t + gridDim.x, k);
      }
#if HT_RANGE_INDEXED
#if !HT_PART_VALUES
      SampleT s[kPerTile];
#endif
      bool ok[kPerTile];
      ht_tile_samples(v, s);
      binning.template bins_of<kPerTile, !HT_PART_VALUES>(s, bin, ok);
#pragma unroll
      for (unsigned int i = 0; i < kPerTile; ++i)
        if (!ok[i]) bin[i] = kNoPart;
#else
#pragma unroll
      for (unsigned int k = 0; k < kVecs; ++k)
        ht_for_each_sample([&](unsigned int w) { return ht_word(v[k], w); },
                           [&](SampleT s, unsigned int j) { bin_sample(s, k * kPerVec + j); });
#endif
    } else {
#pragma unroll
      for (unsigned int i = 0; i < kPerTile; ++i) {
        const unsigned long long e = (unsigned long long)i * kThreads + threadIdx.x;
        bin[i] = kNoPart;
        if (t == full && e < rest) bin_sample(samples[head + full * kTile + e], i);
        if (t == full + 1u && e < head) bin_sample(samples[e], i);
        if (t == full + 1u && e >= head && e - head < tail)
          bin_sample(samples[tail_start + e - head], i);
      }
    }
#if HT_PART_VALUES
    ht_place_tile(t, stride, parts, bin, s, sm, buf, table, bins);
#else
    ht_place_tile(t, stride, parts, bin, nullptr, sm, buf, table, bins);
#endif
    buf = (buf + 1u) % kStages;
  }
#if HT_BULK_OUT
  __syncthreads();  // the block's last tile staged: its copy, then every copy written
  if (threadIdx.x == 0) {
    if (blockIdx.x < stride)  // the last t of the loop above
      ht_bulk_out_tile(blockIdx.x + (stride - 1u - blockIdx.x) / gridDim.x * gridDim.x, parts, sm,
                       buf ^ 1u, bins);
    ht_bulk_out_wait(true);
  }
#endif
}

#else  // HT_COUNT_PASSES: the sizes and count passes

// The count blocks a partition of `size` samples gets (hist1d::partition_target): one for a
// partition of average size, more for a hot one, so skewed or constant data spread their count
// over as many SMs as uniform data does.
__device__ __forceinline__ unsigned int ht_count_blocks(unsigned int size, unsigned int target) {
  return size > target ? (size + target - 1u) / target : 1u;
}

// Sizes pass (one block per partition): the partition's samples in this round, into `sizes`
// (after the workspace's bins); in the first round a partition that several count blocks share
// has its bins zeroed for their atomics.
extern "C" __global__ void __launch_bounds__(256)
histtune_hist1d_sizes(unsigned int* __restrict__ work, unsigned long long n,
                      unsigned int num_bins, unsigned int* __restrict__ counts,
                      unsigned int accumulate, unsigned int target) {
  __shared__ unsigned int warp_sums[8];
  const unsigned int parts = ht_partitions(num_bins), p = blockIdx.x;
  const unsigned long long stride = ht_part_stride(n);
  const unsigned int* row = work + p * stride;
  ht_wait_prior_pass();
  // The partition pass is complete: the count pass's first blocks may start (they read only its
  // output until they wait for this pass, before their stores).
  ht_start_next_pass();
  // Eight loads in flight a thread: a row is a few KB, read at the loads' latency otherwise.
  unsigned int sum = 0, sums[8] = {};
  unsigned long long t = threadIdx.x;
  for (; t + 7u * 256u < stride; t += 8u * 256u) {
#pragma unroll
    for (unsigned int k = 0; k < 8u; ++k) sums[k] += row[t + k * 256u] >> 16;
  }
  for (; t < stride; t += 256u) sum += row[t] >> 16;
#pragma unroll
  for (unsigned int k = 0; k < 8u; ++k) sum += sums[k];
#pragma unroll
  for (unsigned int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xFFFFFFFFu, sum, o);
  if (threadIdx.x % 32u == 0) warp_sums[threadIdx.x / 32u] = sum;
  __syncthreads();
  unsigned int size = 0;
#pragma unroll
  for (unsigned int w = 0; w < 8u; ++w) size += warp_sums[w];
  if (threadIdx.x == 0) ht_part_sizes(work, parts, stride)[p] = size;
  if (!accumulate && ht_count_blocks(size, target) > 1u) {
    const unsigned int lo = p << HT_PARTITION_BITS;
    for (unsigned int i = threadIdx.x; i < kPartBins && lo + i < num_bins; i += 256u)
      counts[lo + i] = 0u;
  }
}

// A warp's bitwise OR (one REDUX from sm_80; five shuffles before).
__device__ __forceinline__ unsigned int ht_warp_or(unsigned int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_or_sync(0xFFFFFFFFu, v);
#else
#pragma unroll
  for (unsigned int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
#endif
}

// A partition's samples this round: its row of table words, summed by the whole block (every
// thread gets the sum; `warp_sums` is free again after the block's next barrier). Through L2:
// the count pass reads the partition pass's output before it waits (below).
__device__ __forceinline__ unsigned int ht_row_size(const unsigned int* row,
                                                    unsigned long long stride,
                                                    unsigned int* warp_sums) {
  unsigned int sums[4] = {};
  unsigned long long t = threadIdx.x;
  for (; t + 3u * kCountThreads < stride; t += 4u * kCountThreads) {
#pragma unroll
    for (unsigned int k = 0; k < 4u; ++k) sums[k] += __ldcg(row + t + k * kCountThreads) >> 16;
  }
  for (; t < stride; t += kCountThreads) sums[0] += __ldcg(row + t) >> 16;
  unsigned int sum = sums[0] + sums[1] + sums[2] + sums[3];
#pragma unroll
  for (unsigned int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, o);
  if (threadIdx.x % 32u == 0) warp_sums[threadIdx.x / 32u] = sum;
  __syncthreads();
  sum = warp_sums[threadIdx.x % 32u];
#pragma unroll
  for (unsigned int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, o);
  return sum;
}

// Count pass: block b finds its partition p and its share g of p's G count blocks, counts p's
// groups of tiles g, g + G, ... in shared memory (each warp a run of them, a few lanes a group),
// and stores (later rounds: adds) its bins, or with G > 1 adds them atomically to the bins the
// sizes pass zeroed. Block p < parts is p's first share: it sums its own row (as the sizes pass
// does) and starts without waiting for the sizes pass, which triggers this grid once the
// partition pass is complete; it reads the partition pass's output through L2 (.cg) and waits
// only before its stores. Later blocks wait for the sizes and take the hot partitions' further
// shares in partition order (a scan); blocks past the last share return.
extern "C" __global__ void __launch_bounds__(kCountThreads)
histtune_hist1d_count(const unsigned int* __restrict__ work, unsigned long long n,
                      unsigned int num_bins, unsigned int* __restrict__ counts,
                      unsigned int accumulate, unsigned int target, const void* levels) {
  extern __shared__ unsigned int hist[];
  __shared__ unsigned int warp_sums[kCountThreads / 32u];
  __shared__ unsigned int mine[3];  // p, g, G
  __shared__ unsigned int group_at[kCountThreads];  // a warp's window: its groups' chunk bases
  const unsigned int parts = ht_partitions(num_bins);
  const unsigned long long stride = ht_part_stride(n);
  const unsigned int lane = threadIdx.x % 32u, warp = threadIdx.x / 32u;
  constexpr unsigned int kWarps = kCountThreads / 32u;
  // The next round's or call's partition pass sets up behind this pass's last blocks. The
  // partition pass itself does not let the sizes pass start early: slower (docs/kernels.md).
  ht_start_next_pass();
  for (unsigned int i = threadIdx.x; i <= kPartBins; i += kCountThreads) hist[i] = 0u;
  if (blockIdx.x < parts) {  // partition p's first share: its size from its own row
    const unsigned int size = ht_row_size(work + blockIdx.x * stride, stride, warp_sums);
    if (threadIdx.x == 0) {
      mine[0] = blockIdx.x;
      mine[1] = 0u;
      mine[2] = ht_count_blocks(size, target);
    }
  } else {  // a further share: an inclusive scan of the partitions' further blocks
    ht_wait_prior_pass();
    const unsigned int j = threadIdx.x, extra = blockIdx.x - parts;
    const unsigned int blocks =
        j < parts ? ht_count_blocks(ht_part_sizes(work, parts, stride)[j], target) - 1u : 0u;
    unsigned int incl = blocks;
#pragma unroll
    for (unsigned int o = 1; o < 32u; o <<= 1) {
      const unsigned int y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
      if (lane >= o) incl += y;
    }
    if (lane == 31u) warp_sums[warp] = incl;
    if (threadIdx.x == 0) mine[0] = kNoPart;
    __syncthreads();
    for (unsigned int w = 0; w < warp; ++w) incl += warp_sums[w];
    if (j < parts && extra < incl && extra >= incl - blocks) {
      mine[0] = j;
      mine[1] = 1u + extra - (incl - blocks);
      mine[2] = blocks + 1u;
    }
  }
  __syncthreads();
  const unsigned int p = mine[0], g = mine[1], shares = mine[2];
  if (p == kNoPart) return;
  const HtSlot* bins = reinterpret_cast<const HtSlot*>(work + ht_table_words(parts, stride));
  const unsigned int* row = work + p * stride;
  // The block's tiles are g, g + G, ...; warp w takes a contiguous run of them and reads their
  // table words 32 at a time, a lane each (one coalesced load). The 32 groups' chunks of
  // kChunkSlots slots (16 bytes; the partition pass padded each group to whole chunks with the
  // sink) are numbered through the warp, and lane l loads chunks l, l + 32, ...: chunk k is the
  // last non-empty group's whose first chunk is <= k. Every lane then adds a chunk's slots a load,
  // unconditionally (+1s compile to ATOMS.POPC.INC, which merges a warp's adds to one word: the
  // sink, constant data); only the padding is wasted.
  const unsigned long long slots = ht_tile_slots(parts);
  const unsigned long long mine_tiles = g < stride ? (stride - g + shares - 1u) / shares : 0u;
  const unsigned long long per_warp = (mine_tiles + kWarps - 1u) / kWarps;
  const unsigned long long end = min(mine_tiles, (warp + 1u) * per_warp);
  const uint4* chunks16 = reinterpret_cast<const uint4*>(bins);
  unsigned int* bases = group_at + warp * 32u;
#if HT_PART_VALUES
  // The partition's levels after its counts (8-byte aligned), then a grid of kPartBins cells over
  // them (HtGrid), which bounds each sample's search to the levels of its cell: about one step
  // where the levels spread evenly over the partition (13 for 2^13 bins through the levels
  // alone, whose first steps fall on a few banks), the constant data's one cell a broadcast.
  // Level i sits at word i + i / 32 (a step's lanes read levels a multiple of its stride apart).
  // The sink and samples outside the partition's levels (unsorted levels) add to the sink word.
  const unsigned int lo_bin = p << HT_PARTITION_BITS, len = min(kPartBins, num_bins - lo_bin);
  SampleT* lvl = reinterpret_cast<SampleT*>(hist + kPartBins + 2u);
  auto level_at = [](unsigned int i) { return i + (i >> 5); };
  for (unsigned int i = threadIdx.x; i <= len; i += kCountThreads)
    lvl[level_at(i)] = static_cast<const SampleT*>(levels)[lo_bin + i];
  __syncthreads();
  const HtValueT bottom = ht_value(lvl[0]), top = ht_value(lvl[level_at(len)]);
  // The bins' first levels are the grid's keys (a sample's bin is the last one <= it).
  const HtGrid<kPartBins> grid = ht_grid_build<kPartBins, kCountThreads>(
      reinterpret_cast<unsigned int*>(lvl + kPartBins + kPartBins / 32u + 1u), warp_sums, len,
      bottom, top, [&](unsigned int i) { return ht_value(lvl[level_at(i)]); });
  auto add_chunk = [&](const uint4& w) {
    union {
      uint4 chunk;
      SampleT slot[kChunkSlots];
    } c;
    c.chunk = w;
    HtValueT v[kChunkSlots];
    unsigned int lo[kChunkSlots], hi[kChunkSlots];
#pragma unroll
    for (unsigned int j = 0; j < kChunkSlots; ++j) {
      v[j] = ht_value(c.slot[j]);
      grid.bounds(v[j], lo[j], hi[j]);
    }
    ht_grid_search<kChunkSlots>(v, lo, hi,
                                [&](unsigned int i) { return ht_value(lvl[level_at(i)]); });
#pragma unroll
    for (unsigned int j = 0; j < kChunkSlots; ++j)
      atomicAdd(&hist[v[j] >= bottom && v[j] < top ? lo[j] : kPartBins], 1u);
  };
#else
  (void)levels;
  auto add_chunk = [&](const uint4& w) {
    const unsigned int word[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (unsigned int j = 0; j < 4u; ++j) {
      atomicAdd(&hist[word[j] & 0xFFFFu], 1u);
      atomicAdd(&hist[word[j] >> 16], 1u);
    }
  };
#endif
  // Latency bounds this pass (one block an SM): a lane keeps kCountLoads chunks in flight, and
  // the next 32 tiles' table words load before this round's adds.
  auto words_at = [&](unsigned long long i) {  // a missing tile: length 0
    return i < end ? __ldcg(row + g + i * shares) : 0u;
  };
  unsigned int next = words_at(warp * per_warp + lane);
  for (unsigned long long i0 = warp * per_warp; i0 < end; i0 += 32u) {
    const unsigned int words = next;
    next = words_at(i0 + 32u + lane);
    const unsigned int chunks = ((words >> 16) + kChunkSlots - 1u) / kChunkSlots;
    unsigned int first = chunks;
#pragma unroll
    for (unsigned int o = 1; o < 32u; o <<= 1) {
      const unsigned int y = __shfl_up_sync(0xFFFFFFFFu, first, o);
      if (lane >= o) first += y;
    }
    const unsigned int total = __shfl_sync(0xFFFFFFFFu, first, 31);
    first -= chunks;
    // The non-empty groups' bases, in lane order: chunk k of group d is chunks16[bases[d] + k]
    // (a chunk index less the group's first; the workspace's 256 MB bound keeps it in 32 bits,
    // and unsigned wrap-around makes the sum right).
    const bool some = chunks > 0u;
    const unsigned int nonempty = __ballot_sync(0xFFFFFFFFu, some);
    __syncwarp();  // the window before has read its bases
    if (some)
      bases[__popc(nonempty & ((1u << lane) - 1u))] =
          (unsigned int)(((g + (i0 + lane) * shares) * slots + (words & 0xFFFFu)) / kChunkSlots) -
          first;
    __syncwarp();
    // Row R (chunks R..R + 31, lane l's R + l): the groups begun by R (a ballot), plus those
    // beginning within the row at or before l (their offsets' bits, one OR over the warp).
    auto chunk_at = [&](unsigned int row) {  // every lane calls it: the votes need them all
      const unsigned int before = __ballot_sync(0xFFFFFFFFu, some && first <= row);
      const unsigned int within =
          ht_warp_or(some && first > row && first - row < 32u ? 1u << (first - row) : 0u);
      const unsigned int d = __popc(before) - 1u + __popc(within & ((2u << lane) - 1u));
      return chunks16 + (bases[d] + row + lane);
    };
    // A window's last round often holds a few chunks: the rounds of 32 with none are skipped
    // (a warp-uniform test), not loaded as padding and added to the sink.
    auto load_round = [&](unsigned int k0, uint4(&w)[kCountLoads]) {
#pragma unroll
      for (unsigned int j = 0; j < kCountLoads; ++j) {
        w[j] = ht_sink_chunk();
        const unsigned int k = k0 + 32u * j + lane;
        if (k0 + 32u * j < total) {
          const uint4* a = chunk_at(k0 + 32u * j);
          if (k < total) w[j] = __ldcg(a);
        }
      }
    };
    // The next round's loads go out before this round's adds, so they are in flight meanwhile.
    uint4 w[kCountLoads];
    load_round(0u, w);
    for (unsigned int k0 = 0; k0 < total; k0 += 32u * kCountLoads) {
      uint4 v[kCountLoads];
#pragma unroll
      for (unsigned int j = 0; j < kCountLoads; ++j) v[j] = w[j];
      if (k0 + 32u * kCountLoads < total) load_round(k0 + 32u * kCountLoads, w);
#pragma unroll
      for (unsigned int j = 0; j < kCountLoads; ++j)
        if (k0 + 32u * j < total) add_chunk(v[j]);
    }
  }
  __syncthreads();
  ht_wait_prior_pass();  // a first share's: the sizes pass zeroed the bins that shares add to
  const unsigned int lo = p << HT_PARTITION_BITS;
  for (unsigned int i = threadIdx.x; i < kPartBins && lo + i < num_bins; i += kCountThreads) {
    const unsigned int sum = hist[i];
    if (shares > 1u) {
      if (sum) atomicAdd(&counts[lo + i], sum);
    } else {
      counts[lo + i] = accumulate ? counts[lo + i] + sum : sum;
    }
  }
}
#endif  // HT_COUNT_PASSES
#endif  // HT_STORAGE == 5 || HT_COUNT_PASSES
