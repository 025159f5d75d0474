// The shared compile slots under a tuning run's load, without NVRTC or a GPU: 8 pools (problems
// tuned at once) of 16 workers share 16 slots, and each pool's asking thread adds 250 requests
// and waits for them; a "compile" sleeps 2 ms, as a worker waits for a compile child. Prints the
// wall time against the ideal (every slot always busy) and the process's context switches and
// system time: what the slots' hand-over costs. Not a test (it prints a line); run it anywhere:
// build-dir/tests/histtune_slots_bench.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "histtune/tuner/compile_pool.hpp"

using namespace histtune;
using namespace histtune::tuner;

namespace {

constexpr int kPools = 8, kSlots = 16, kRequests = 250;
constexpr auto kCompile = std::chrono::milliseconds(2);

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; }

void ask(CompilePool& pool) {
  std::vector<std::size_t> ids;
  for (int j = 0; j < kRequests; ++j)
    ids.push_back(pool.add(CompileRequest{"bench", {std::to_string(j)}, 90, ""}));
  for (std::size_t id : ids) pool.get(id);
}

}  // namespace

int main() {
  CompileSlots slots(kSlots);
  rusage r0{}, r1{};
  getrusage(RUSAGE_SELF, &r0);
  const auto t0 = std::chrono::steady_clock::now();
  {
    std::vector<std::unique_ptr<CompilePool>> pools;
    for (int i = 0; i < kPools; ++i)
      pools.push_back(std::make_unique<CompilePool>(
          0,
          [](const CompileRequest&) {
            std::this_thread::sleep_for(kCompile);
            return CompiledKernel{};
          },
          &slots));
    std::vector<std::thread> askers;
    for (auto& pool : pools) askers.emplace_back([&pool] { ask(*pool); });
    for (auto& t : askers) t.join();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  getrusage(RUSAGE_SELF, &r1);
  const double ideal = kPools * kRequests * std::chrono::duration<double>(kCompile).count() / kSlots;
  std::printf("%d compiles of %lld ms on %d slots: %.2f s wall (ideal %.2f s), %ld voluntary and "
              "%ld involuntary context switches, %.2f s system, %.2f s user\n",
              kPools * kRequests, static_cast<long long>(kCompile.count()), kSlots, wall, ideal,
              r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw,
              seconds(r1.ru_stime) - seconds(r0.ru_stime),
              seconds(r1.ru_utime) - seconds(r0.ru_utime));
  return 0;
}
