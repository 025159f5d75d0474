// histtune::nccl's calls: every shard checked, every shard's histogram launched, then the
// collectives that sum the counts (nccl.hpp says what each call does).
#include <cstdlib>
#include <string>

#include "collectives.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/nccl.hpp"

namespace histtune::nccl {
namespace {

Error invalid(const std::string& why) {
  return Error(StatusCode::invalid_argument, "histtune::nccl: " + why);
}

void check_combine(Combine how) {
  if (how != Combine::all_reduce && how != Combine::reduce_scatter)
    throw invalid("unknown Combine value " + std::to_string(static_cast<int>(how)) +
                  " (all_reduce 0, reduce_scatter 1)");
}

// Shard s's problem: p with the shard's n and levels.
Problem shard_problem(const Problem& p, const Shard& s) {
  Problem q = p;
  q.n = s.n;
  if (s.d_levels) q.d_levels = s.d_levels;
  return q;
}

std::string shard_name(std::size_t i, std::size_t count) {
  return "shard " + std::to_string(i) + " of " + std::to_string(count);
}

// The checks that need no GPU: the combine, every shard's problem and pointers, its comm.
void check_shards(const Problem& p, const std::vector<Shard>& shards, Combine how) {
  check_combine(how);
  if (shards.empty()) throw invalid("no shards: give one per GPU this thread drives");
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Shard& s = shards[i];
    const Problem q = shard_problem(p, s);
    // Each shard is one 1D histogram of its samples; rows and channels are not sharded here.
    if (q.family != Family::hist1d)
      throw invalid(shard_name(i, shards.size()) + " (" + q.describe() +
                    "): only 1D histograms are sharded, not " + to_string(q.family));
    if (std::string why = check_arguments64(q, s.d_samples, s.d_counts); !why.empty())
      throw invalid(shard_name(i, shards.size()) + " (" + q.describe() + "): " + why);
    if (!s.comm) throw invalid(shard_name(i, shards.size()) + ": comm is null");
    for (std::size_t j = 0; j < i; ++j)
      if (shards[j].comm == s.comm)
        throw invalid(shard_name(i, shards.size()) + " has the comm of shard " +
                      std::to_string(j) + ": each GPU needs its own comm (ncclCommInitAll)");
  }
}

// A comm's stream must be of its GPU (the default streams belong to whichever is current).
void check_stream(const detail::RankInfo& info, cudaStream_t stream, const std::string& who) {
  const int device = detail::stream_device(stream);
  if (device >= 0 && device != info.device)
    throw invalid(who + ": the stream is of GPU " + std::to_string(device) + " but the comm (" +
                  info.describe() + ") is of GPU " + std::to_string(info.device));
}

// What each shard's comm says of itself, checked against the others: one communicator (the same
// rank count), distinct ranks on distinct GPUs, streams of the comms' GPUs.
std::vector<detail::RankInfo> checked_ranks(const std::vector<Shard>& shards) {
  std::vector<detail::RankInfo> infos;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const detail::RankInfo info = detail::rank_info(shards[i].comm);
    const std::string who = shard_name(i, shards.size()) + " (" + info.describe() + ")";
    if (info.ranks < static_cast<int>(shards.size()))
      throw invalid(who + ": more shards than the communicator's " +
                    std::to_string(info.ranks) + " ranks");
    for (std::size_t j = 0; j < infos.size(); ++j) {
      const std::string other = " than shard " + std::to_string(j) + " (" + infos[j].describe() + ")";
      if (info.ranks != infos[j].ranks) throw invalid(who + ": another communicator" + other);
      if (info.rank == infos[j].rank) throw invalid(who + ": the same rank" + other);
      if (info.device == infos[j].device) throw invalid(who + ": the same GPU" + other);
    }
    check_stream(info, shards[i].stream, who);
    infos.push_back(info);
  }
  return infos;
}

// Range levels the shard's GPU can read (the dispatcher checks that too, but at its launch:
// after the shards before it have launched).
void check_levels_of(const Problem& p, const std::vector<Shard>& shards,
                     const std::vector<detail::RankInfo>& infos) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Problem q = shard_problem(p, shards[i]);
    if (std::string why = check_levels(q, infos[i].device); !why.empty())
      throw invalid(shard_name(i, shards.size()) + " (" + infos[i].describe() + "): " + why);
  }
}

// Enqueues every shard's collective in one group, on its GPU.
void combine_all(const Problem& p, const std::vector<Shard>& shards,
                 const std::vector<detail::RankInfo>& infos, Combine how,
                 detail::CurrentDevice& current) {
  detail::group_start();
  try {
    for (std::size_t i = 0; i < shards.size(); ++i) {
      current.set(infos[i].device);
      detail::combine(shards[i].d_counts, p.num_bins, shards[i].comm, infos[i],
                      shards[i].stream, how);
    }
  } catch (...) {
    try {  // close the group NCCL already marked failed; the first error is the one to report
      detail::group_end("a failed enqueue");
    } catch (const Error&) {
    }
    throw;
  }
  detail::group_end(std::to_string(shards.size()) + " shards' " + to_string(how));
}

Status as_status(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& error) {
    return Status(error.code(), error.what());
  } catch (const std::exception& error) {
    return Status(StatusCode::internal, error.what());
  }
}

}  // namespace

const char* to_string(Combine how) {
  return how == Combine::all_reduce ? "all_reduce" : "reduce_scatter";
}

BinSlice bin_slice(std::uint32_t num_bins, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw invalid("bin_slice: rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                  " ranks (needs 0 <= rank < ranks)");
  const auto edge = [&](int r) {
    return static_cast<std::uint32_t>(std::uint64_t{num_bins} * static_cast<std::uint64_t>(r) /
                                      static_cast<std::uint64_t>(ranks));
  };
  return BinSlice{edge(rank), edge(rank + 1) - edge(rank)};
}

Status histogram(const Problem& p, const std::vector<Shard>& shards, Combine how) {
  try {
    check_shards(p, shards, how);
    const std::vector<detail::RankInfo> infos = checked_ranks(shards);
    check_levels_of(p, shards, infos);
    detail::CurrentDevice current;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      const Shard& s = shards[i];
      current.set(infos[i].device);
      Status local = default_dispatcher().run(shard_problem(p, s), s.d_samples, s.d_counts,
                                              s.stream);
      if (!local.ok())
        throw Error(local.code(), "histtune::nccl: " + shard_name(i, shards.size()) + " (" +
                                      infos[i].describe() + "): " + local.message());
    }
    combine_all(p, shards, infos, how, current);
    return Status();
  } catch (...) {
    return as_status(std::current_exception());
  }
}

Status detail::check_rank(ncclComm_t comm, const std::uint64_t* d_counts, cudaStream_t stream,
                          Combine how) {
  try {
    check_combine(how);
    if (!comm) throw invalid("comm is null");
    if (!d_counts) throw invalid("d_counts is null");
    const RankInfo info = rank_info(comm);
    int current = -1;
    HT_CUDA(cudaGetDevice(&current));
    if (current != info.device)
      throw invalid("the comm (" + info.describe() + ") is of GPU " +
                    std::to_string(info.device) + " but GPU " + std::to_string(current) +
                    " is current: make the comm's GPU current (cudaSetDevice) first");
    check_stream(info, stream, "the call");
    return Status();
  } catch (...) {
    return as_status(std::current_exception());
  }
}

Status combine_counts(std::uint64_t* d_counts, std::uint32_t num_bins, ncclComm_t comm,
                      cudaStream_t stream, Combine how) {
  try {
    if (num_bins == 0) throw invalid("num_bins is 0");
    if (Status s = detail::check_rank(comm, d_counts, stream, how); !s.ok()) return s;
    detail::combine(d_counts, num_bins, comm, detail::rank_info(comm), stream, how);
    return Status();
  } catch (...) {
    return as_status(std::current_exception());
  }
}

const char* keep_nvls_off() {
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  return std::getenv("NCCL_NVLS_ENABLE");
}

}  // namespace histtune::nccl
