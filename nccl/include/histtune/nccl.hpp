// histtune::nccl: one histogram of data sharded across GPUs and machines. Include this header and
// link histtune::nccl (built where CMake finds NCCL).
//
//   // Each rank (one process per GPU, from mpirun, torchrun or any launcher that hands the ranks
//   // a ncclUniqueId): its shard of n samples, num_bins uint64 counters, its comm and stream.
//   histtune::Status s = histtune::nccl::histogram_direct(d_shard, n, 256, d_counts, comm, stream);
//   // d_counts now holds the counts of every rank's samples, on every rank.
//
// Each rank histograms its shard with the tuned kernel (the 1D calls with 64-bit counts of
// histtune.hpp: any n up to 2^60, totals over many ranks cannot overflow), then NCCL sums the
// counts (ncclUint64, ncclSum) on the same stream. Stream-ordered: nothing synchronises.
// Arguments are checked on every shard before anything is launched (invalid_argument); a NCCL
// call that fails is reported with its arguments, its comm's rank and device, and NCCL's text.
//
// Keep NCCL's NVLink multicast off (NCCL_NVLS_ENABLE=0) on shared machines: it can take the GPUs
// out of service. keep_nvls_off() sets it, unless it is set, before the comms are made.
#pragma once

#include <nccl.h>

#include <cstdint>
#include <vector>

#include "histtune/histtune.hpp"

namespace histtune::nccl {

// How the ranks' counts are combined.
enum class Combine {
  // Every rank gets all num_bins totals in d_counts (ncclAllReduce, in place).
  all_reduce,
  // Rank r gets the totals of its bins only, bin_slice(num_bins, r, ranks), at their place in
  // d_counts; its other bins keep its own shard's counts. Half the traffic of all_reduce, for
  // bin counts too large to replicate downstream (ncclReduceScatter where the ranks divide
  // num_bins, else one ncclReduce per rank's slice, grouped).
  reduce_scatter,
};
const char* to_string(Combine how);

// The bins rank `rank` of `ranks` holds under reduce_scatter: [rank x B / R, (rank + 1) x B / R),
// contiguous, in rank order, every bin in one slice, sizes apart by at most one (a slice is empty
// when B < R). Throws Error(invalid_argument) unless 0 <= rank < ranks.
struct BinSlice {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool operator==(const BinSlice& o) const { return first == o.first && count == o.count; }
};
BinSlice bin_slice(std::uint32_t num_bins, int rank, int ranks);

// One rank's part: n samples at d_samples and num_bins uint64 counters at d_counts (overwritten),
// in memory of the comm's GPU; the stream is that GPU's (or the default stream).
struct Shard {
  const void* d_samples = nullptr;
  std::uint64_t n = 0;
  std::uint64_t* d_counts = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  // Range binning: this GPU's copy of the num_bins + 1 levels (else the problem's d_levels).
  const void* d_levels = nullptr;
};

// The general form: the 1D problem `p` (flat_problem(type, binning, num_bins, 0, lower, upper);
// its n and d_levels come from each shard) over one or several shards. One shard: a rank of a
// process per GPU. Several: one thread driving several GPUs, one comm each (ncclCommInitAll, or
// ncclCommInitRank in a group); the call makes each GPU current in turn, restores the caller's
// device, and groups the collectives (ncclGroupStart/End) itself. Every shard's histogram is
// launched before any collective is enqueued, so a shard refused at launch leaves no collective
// waiting in this process. The shards' comms are distinct ranks of one communicator (the same
// rank count) on distinct GPUs.
Status histogram(const Problem& p, const std::vector<Shard>& shards,
                 Combine how = Combine::all_reduce);

// The typed per-rank calls: the 1D calls of histtune.hpp with 64-bit counts (the same sample
// types, binnings and rules), plus the rank's comm. One thread driving several GPUs may call
// them between its own ncclGroupStart() and ncclGroupEnd(), one call per GPU with that GPU
// current (NCCL's rule for several devices per thread), or use histogram(p, shards) above.
template <class T>
Status histogram_even(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                      std::uint64_t* d_counts, ncclComm_t comm, cudaStream_t stream = nullptr,
                      Combine how = Combine::all_reduce);
// Integer sample types.
template <class T>
Status histogram_direct(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, ncclComm_t comm, cudaStream_t stream = nullptr,
                        Combine how = Combine::all_reduce);
// d_levels: num_bins + 1 ascending levels on this rank's GPU.
template <class T>
Status histogram_range(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const T* d_levels, std::uint64_t* d_counts, ncclComm_t comm,
                       cudaStream_t stream = nullptr, Combine how = Combine::all_reduce);

// Counts the caller already has on each rank (num_bins uint64 at d_counts, in place), combined
// as above: the collective half of the calls above, for counts made some other way.
Status combine_counts(std::uint64_t* d_counts, std::uint32_t num_bins, ncclComm_t comm,
                      cudaStream_t stream = nullptr, Combine how = Combine::all_reduce);

namespace detail {
// The checks of a typed per-rank call that its histogram call does not make: the combine, comm
// and counts not null, the comm's GPU current, the stream of that GPU.
Status check_rank(ncclComm_t comm, const std::uint64_t* d_counts, cudaStream_t stream,
                  Combine how);
// A typed per-rank call: the checks, `local` (the rank's histogram, which checks the rest before
// it launches), then the collective.
template <class Local>
Status on_rank(std::uint32_t num_bins, std::uint64_t* d_counts, ncclComm_t comm,
               cudaStream_t stream, Combine how, const Local& local) {
  if (Status s = check_rank(comm, d_counts, stream, how); !s.ok()) return s;
  if (Status s = local(); !s.ok()) return s;
  return combine_counts(d_counts, num_bins, comm, stream, how);
}
}  // namespace detail

template <class T>
Status histogram_even(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                      typename EvenBound<T>::type lower, typename EvenBound<T>::type upper,
                      std::uint64_t* d_counts, ncclComm_t comm, cudaStream_t stream, Combine how) {
  return detail::on_rank(num_bins, d_counts, comm, stream, how, [&] {
    return histtune::histogram_even(d_samples, n, num_bins, lower, upper, d_counts, stream);
  });
}

template <class T>
Status histogram_direct(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                        std::uint64_t* d_counts, ncclComm_t comm, cudaStream_t stream,
                        Combine how) {
  return detail::on_rank(num_bins, d_counts, comm, stream, how, [&] {
    return histtune::histogram_direct(d_samples, n, num_bins, d_counts, stream);
  });
}

template <class T>
Status histogram_range(const T* d_samples, std::uint64_t n, std::uint32_t num_bins,
                       const T* d_levels, std::uint64_t* d_counts, ncclComm_t comm,
                       cudaStream_t stream, Combine how) {
  return detail::on_rank(num_bins, d_counts, comm, stream, how, [&] {
    return histtune::histogram_range(d_samples, n, num_bins, d_levels, d_counts, stream);
  });
}

// Sets NCCL_NVLS_ENABLE=0 unless the environment sets it: call before making the comms (NCCL
// reads it then). Returns the value in force.
const char* keep_nvls_off();

}  // namespace histtune::nccl
