/* histtune::nccl's C API (histtune/nccl.hpp): one histogram of data sharded across GPUs and
 * machines, each rank's shard histogrammed by the tuned kernel into num_bins uint64 counts and
 * the counts summed by NCCL on the same stream. Status codes as histtune.h's; on failure
 * histtune_nccl_last_error() (per thread) says what failed and with what. */
#ifndef HISTTUNE_NCCL_H
#define HISTTUNE_NCCL_H

#include <nccl.h>
#include <stdint.h>

#include "histtune/histtune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Same values as histtune::nccl::Combine. */
typedef enum histtune_nccl_combine {
  HISTTUNE_NCCL_ALL_REDUCE = 0,    /* every rank gets every bin's total */
  HISTTUNE_NCCL_REDUCE_SCATTER = 1 /* rank r gets the totals of its slice of the bins only */
} histtune_nccl_combine;

/* One rank's call: n samples of sample_type (histtune's type codes: u8 0, u16 1, u32 2, i32 3,
 * f32 4, i8 5, i16 6, f16 7, bf16 8, i64 9, u64 10, f64 11) at d_samples, binned by `binning`
 * (direct 0, even 1 over [lower, upper), range 2 by the num_bins + 1 levels at d_levels, of the
 * samples' type) into num_bins uint64 counters at d_counts, then combined over comm's ranks.
 * The call runs on the comm's GPU (the caller's current GPU is restored); the stream is of it. Even bounds of i64 and u64 samples are
 * exact up to 2^53 here (the C++ calls take any). */
histtune_status histtune_nccl_histogram(int sample_type, int binning, const void* d_samples,
                                        uint64_t n, uint32_t num_bins, double lower, double upper,
                                        const void* d_levels, uint64_t* d_counts, int combine,
                                        ncclComm_t comm, cudaStream_t stream);

/* Counts already on each rank (num_bins uint64 at d_counts), combined in place. */
histtune_status histtune_nccl_combine_counts(uint64_t* d_counts, uint32_t num_bins,
                                             int combine, ncclComm_t comm, cudaStream_t stream);

/* Rank `rank` of `ranks`'s bins under HISTTUNE_NCCL_REDUCE_SCATTER: *first .. *first + *count -
 * 1, [rank x num_bins / ranks, (rank + 1) x num_bins / ranks). */
histtune_status histtune_nccl_bin_slice(uint32_t num_bins, int rank, int ranks, uint32_t* first,
                                        uint32_t* count);

/* Why the last failed call of this thread failed ("" after a success). */
const char* histtune_nccl_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HISTTUNE_NCCL_H */
