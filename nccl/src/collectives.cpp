// The collectives of histtune::nccl and the messages of their failures (collectives.hpp).
#include "collectives.hpp"

#include <cstdio>
#include <iostream>

#include "histtune/detail/cuda_check.hpp"

namespace histtune::nccl::detail {
namespace {

const char* result_name(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "ncclResult";
  }
}

std::string pointer(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// Throws for a failed NCCL call: the call as `describe()` writes it (with its arguments), NCCL's
// error name and text, and what NCCL last logged for the comm. ncclInProgress is not a failure:
// a non-blocking comm's operation under way (its caller polls ncclCommGetAsyncError).
template <class Describe>
void check(ncclResult_t r, ncclComm_t comm, Describe&& describe) {
  if (r == ncclSuccess || r == ncclInProgress) return;
  std::string message = "histtune::nccl: " + describe() + " failed: " + result_name(r) + " (" +
                        ncclGetErrorString(r) + ")";
  const char* last = ncclGetLastError(comm);
  if (last && *last) message += ": " + std::string(last);
  throw Error(StatusCode::cuda_error, message);
}

std::string comm_text(ncclComm_t comm, const RankInfo& info) {
  return "comm=" + pointer(comm) + " [" + info.describe() + "]";
}

}  // namespace

std::string RankInfo::describe() const {
  return "rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ", GPU " +
         std::to_string(device);
}

RankInfo rank_info(ncclComm_t comm) {
  RankInfo info;
  check(ncclCommCount(comm, &info.ranks), comm,
        [&] { return "ncclCommCount(comm=" + pointer(comm) + ")"; });
  check(ncclCommUserRank(comm, &info.rank), comm,
        [&] { return "ncclCommUserRank(comm=" + pointer(comm) + ")"; });
  check(ncclCommCuDevice(comm, &info.device), comm,
        [&] { return "ncclCommCuDevice(comm=" + pointer(comm) + ")"; });
  return info;
}

void combine(std::uint64_t* d_counts, std::uint32_t num_bins, ncclComm_t comm,
             const RankInfo& info, cudaStream_t stream, Combine how) {
  const std::string tail = "ncclUint64, ncclSum, ";
  if (how == Combine::all_reduce) {
    check(ncclAllReduce(d_counts, d_counts, num_bins, ncclUint64, ncclSum, comm, stream), comm,
          [&] {
            return "ncclAllReduce(sendbuff=recvbuff=" + pointer(d_counts) +
                   ", count=" + std::to_string(num_bins) + ", " + tail + comm_text(comm, info) +
                   ", stream=" + pointer(stream) + ")";
          });
    return;
  }
  const std::uint32_t ranks = static_cast<std::uint32_t>(info.ranks);
  if (num_bins % ranks == 0) {  // equal slices: NCCL's own reduce-scatter, in place
    const std::size_t count = num_bins / ranks;
    std::uint64_t* mine = d_counts + count * static_cast<std::size_t>(info.rank);
    check(ncclReduceScatter(d_counts, mine, count, ncclUint64, ncclSum, comm, stream), comm, [&] {
      return "ncclReduceScatter(sendbuff=" + pointer(d_counts) + ", recvbuff=" + pointer(mine) +
             ", recvcount=" + std::to_string(count) + ", " + tail + comm_text(comm, info) +
             ", stream=" + pointer(stream) + ")";
    });
    return;
  }
  // Unequal slices: each slice reduced onto its rank, in place, the reduces grouped. Every rank
  // computes the same slices, so every rank makes the same calls.
  group_start();
  for (int root = 0; root < info.ranks; ++root) {
    const BinSlice s = bin_slice(num_bins, root, info.ranks);
    if (s.count == 0) continue;
    std::uint64_t* at = d_counts + s.first;
    check(ncclReduce(at, at, s.count, ncclUint64, ncclSum, root, comm, stream), comm, [&] {
      return "ncclReduce(sendbuff=recvbuff=" + pointer(at) + ", count=" +
             std::to_string(s.count) + ", " + tail + "root=" + std::to_string(root) + ", " +
             comm_text(comm, info) + ", stream=" + pointer(stream) + ")";
    });
  }
  group_end("the reduces of " + comm_text(comm, info) + "'s bin slices");
}

void group_start() {
  check(ncclGroupStart(), nullptr, [] { return std::string("ncclGroupStart()"); });
}

void group_end(const std::string& what) {
  check(ncclGroupEnd(), nullptr, [&] { return "ncclGroupEnd() of " + what; });
}

int stream_device(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return -1;
  int device = -1;
  HT_CUDA(cudaStreamGetDevice(stream, &device));
  return device;
}

CurrentDevice::CurrentDevice() {
  HT_CUDA(cudaGetDevice(&caller_));
  current_ = caller_;
}

CurrentDevice::~CurrentDevice() {
  if (current_ == caller_) return;
  if (cudaError_t e = cudaSetDevice(caller_); e != cudaSuccess)
    std::cerr << "histtune::nccl: could not make GPU " << caller_
              << " current again: " << cudaGetErrorString(e) << "\n";
}

void CurrentDevice::set(int device) {
  if (device == current_) return;
  HT_CUDA(cudaSetDevice(device));
  current_ = device;
}

}  // namespace histtune::nccl::detail
