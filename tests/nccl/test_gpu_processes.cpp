// One process per GPU, as mpirun or torchrun would start them: the parent makes a ncclUniqueId
// and runs this binary twice, rank 0 and rank 1 (run_nccl_worker), each of which histograms its
// own shard with the typed per-rank call and checks the combined counts. Skips without 2 GPUs.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>

#include "nccl_gpus.hpp"
#include "worker.hpp"

extern char** environ;

namespace histtune::test {
namespace {

constexpr int kRanks = 2;
constexpr std::uint64_t kShard = (std::uint64_t{1} << 22) + 5;

std::string to_hex(const ncclUniqueId& id) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (char c : id.internal) {
    hex += digits[static_cast<unsigned char>(c) >> 4];
    hex += digits[static_cast<unsigned char>(c) & 15];
  }
  return hex;
}

ncclUniqueId from_hex(const std::string& hex) {
  ncclUniqueId id{};
  for (std::size_t i = 0; i < sizeof id.internal && 2 * i + 1 < hex.size(); ++i)
    id.internal[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return id;
}

// This rank's check of one combine; false (and a line on stderr) on a difference.
bool rank_matches(ncclComm_t comm, int rank, nccl::Combine how) {
  const Problem p = flat_problem(SampleType::u8, Binning::direct, 255, 0);
  std::vector<std::vector<std::uint8_t>> host;
  for (int r = 0; r < kRanks; ++r) host.push_back(shard_samples(p, kShard, r));
  const auto d_samples = upload(rank, host[rank]);
  DeviceBytes counts(rank, p.num_bins * sizeof(std::uint64_t));
  const Status s = nccl::histogram_direct(d_samples->get<std::uint8_t>(), kShard, p.num_bins,
                                          counts.get<std::uint64_t>(), comm, nullptr, how);
  if (!s.ok()) {
    std::cerr << "rank " << rank << ": " << s.message() << "\n";
    return false;
  }
  const auto got = download(rank, counts.get<std::uint64_t>(), p.num_bins);
  const auto want = reference_of(p, host);
  const nccl::BinSlice mine = how == nccl::Combine::all_reduce
                                  ? nccl::BinSlice{0, p.num_bins}
                                  : nccl::bin_slice(p.num_bins, rank, kRanks);
  for (std::uint32_t b = mine.first; b < mine.first + mine.count; ++b) {
    if (got[b] != want[b]) {
      std::cerr << "rank " << rank << ", " << nccl::to_string(how) << ": bin " << b << " holds "
                << got[b] << ", the concatenation's histogram " << want[b] << "\n";
      return false;
    }
  }
  return true;
}

std::vector<std::string> environment_with(int rank, const std::string& id) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.push_back(std::string(kWorkerRank) + "=" + std::to_string(rank));
  env.push_back(std::string(kWorkerId) + "=" + id);
  return env;
}

pid_t spawn_rank(int rank, const std::string& id) {
  std::vector<std::string> env = environment_with(rank, id);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char self[] = "/proc/self/exe";
  char* argv[] = {self, nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, self, nullptr, nullptr, argv, envp.data()) != 0) return -1;
  return pid;
}

TEST(NcclProcesses, OneProcessPerGpuGetsTheConcatenationsHistogram) {
  HT_REQUIRE_TWO_GPUS();
  nccl::keep_nvls_off();  // inherited by the ranks
  ncclUniqueId id;
  HT_NCCL(ncclGetUniqueId(&id));
  pid_t pids[kRanks];
  for (int r = 0; r < kRanks; ++r) {
    pids[r] = spawn_rank(r, to_hex(id));
    ASSERT_GT(pids[r], 0) << "could not start rank " << r;
  }
  for (int r = 0; r < kRanks; ++r) {
    int status = 0;
    ASSERT_EQ(waitpid(pids[r], &status, 0), pids[r]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << r << " ended with status " << status << " (its stderr says why)";
  }
}

}  // namespace

int run_nccl_worker() {
  alarm(300);  // a rank whose peer never came ends instead of waiting forever
  const int rank = std::atoi(std::getenv(kWorkerRank));
  const char* id = std::getenv(kWorkerId);
  nccl::keep_nvls_off();
  try {
    HT_CUDA(cudaSetDevice(rank));
    ncclComm_t comm = nullptr;
    if (ncclResult_t r = ncclCommInitRank(&comm, kRanks, from_hex(id ? id : ""), rank);
        r != ncclSuccess) {
      std::cerr << "rank " << rank << ": ncclCommInitRank: " << ncclGetErrorString(r) << "\n";
      return 2;
    }
    const bool ok = rank_matches(comm, rank, nccl::Combine::all_reduce) &&
                    rank_matches(comm, rank, nccl::Combine::reduce_scatter);
    ncclCommDestroy(comm);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "rank " << rank << ": " << e.what() << "\n";
    return 3;
  }
}

}  // namespace histtune::test
