// histtune_nccl_tests: the tests, or, run by test_gpu_processes.cpp with a rank in its
// environment, one rank of a two-process communicator.
#include <gtest/gtest.h>

#include <cstdlib>

#include "worker.hpp"

int main(int argc, char** argv) {
  if (std::getenv(histtune::test::kWorkerRank)) return histtune::test::run_nccl_worker();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
