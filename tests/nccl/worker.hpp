// One process per GPU: the test binary runs itself once per rank (test_gpu_processes.cpp), and
// main() sends such a run here instead of to the tests.
#pragma once

namespace histtune::test {

// Set in a rank's environment: its rank, and the ncclUniqueId the parent made, in hex.
inline constexpr const char* kWorkerRank = "HISTTUNE_NCCL_TEST_RANK";
inline constexpr const char* kWorkerId = "HISTTUNE_NCCL_TEST_ID";

// A rank's work: histogram its shard, combine over the two ranks, check against the host
// histogram of both shards. Returns the process's exit status (0: all equal).
int run_nccl_worker();

}  // namespace histtune::test
