// The NCCL half of histtune::nccl: what a comm says of itself, and the collectives that sum the
// ranks' counts, each failure reported with the call's arguments and NCCL's text.
#pragma once

#include <nccl.h>

#include <cstdint>
#include <string>

#include "histtune/nccl.hpp"

namespace histtune::nccl::detail {

// What a comm says of itself: its rank, the communicator's rank count, and its CUDA device.
struct RankInfo {
  int rank = 0;
  int ranks = 0;
  int device = -1;
  std::string describe() const;  // "rank 1 of 2, GPU 1"
};
RankInfo rank_info(ncclComm_t comm);

// Enqueues the collective that combines this rank's num_bins counts at d_counts, in place, on
// `stream`: all_reduce, or reduce_scatter by bin_slice. Several calls (several comms in one
// thread) go between group_start() and group_end().
void combine(std::uint64_t* d_counts, std::uint32_t num_bins, ncclComm_t comm,
             const RankInfo& info, cudaStream_t stream, Combine how);
void group_start();
// `what` names the group's members in the message of a failure.
void group_end(const std::string& what);

// The CUDA device a stream belongs to, or -1 for the null, legacy and per-thread default streams
// (those of whichever device is current).
int stream_device(cudaStream_t stream);

// Makes `device` current while it lives (a no-op where it already is), then restores the
// caller's device. Logs, never throws, when restoring fails.
class CurrentDevice {
 public:
  CurrentDevice();
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;
  void set(int device);

 private:
  int caller_ = -1;
  int current_ = -1;
};

}  // namespace histtune::nccl::detail
