// The problems programs call, on the tuner's side: a stored key (and a recorded call's bounds) as
// the problem tune times, and online tuning registered with the runtime: a first call of an
// untuned shape tunes it, stores the winner and runs it `exact` (GPU; skips without one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "gpu.hpp"
#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/tuner/online.hpp"

using namespace histtune;

TEST(TunerOnline, AKeyAndItsRecordedBoundsNameTheProblemTuneTimes) {
  const Problem even = flat_problem(SampleType::f32, Binning::even, 1024, 1 << 20, -4, 4);
  const Problem back = tuner::problem_of_key(even.key(), even.lower, even.upper);
  EXPECT_EQ(back.key(), even.key());
  EXPECT_EQ(back.lower, -4);
  EXPECT_EQ(back.upper, 4);
  EXPECT_EQ(tuner::problem_of_key(even.key()).upper, 1024) << "[0, bins) without bounds";
  const Problem rows = batched_problem(SampleType::u8, Binning::direct, 256, 4096, 65536);
  EXPECT_EQ(tuner::problem_of_key(rows.key()).rows, 4096u);
  db::ProblemRow unknown = even.key();
  unknown.family = "nosuch";
  EXPECT_THROW(tuner::problem_of_key(unknown), Error);
}

TEST(TunerOnline, OnlineOptionsAreASmallSearchOnUniformData) {
  const tuner::TuneOptions o = tuner::online_options(24);
  EXPECT_EQ(o.budget.max_evaluations, 24u);
  ASSERT_EQ(o.distributions.size(), 1u);
  EXPECT_EQ(o.distributions[0], tuner::Distribution::uniform);
  EXPECT_EQ(o.second_search_budget, 0u);
  EXPECT_EQ(o.worst_case_budget, 0u);
}

TEST(TunerOnline, AFirstCallTunesItsShapeStoresTheWinnerAndRunsItExact) {
  HT_REQUIRE_GPU();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("histtune_online_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "h.db").string();
  tuner::enable_online_tuning();
  DispatcherOptions o;
  o.db_path = path;
  o.tune = true;
  o.tune_budget = 4;
  o.record = true;
  const Problem p = flat_problem(SampleType::u8, Binning::direct, 256, 1 << 16);
  std::vector<std::uint8_t> h(p.n);
  std::mt19937 rng(7);
  for (auto& v : h) v = static_cast<std::uint8_t>(rng());
  std::vector<std::uint32_t> expect(256, 0);
  for (auto v : h) ++expect[v];
  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_samples, h.size()));
  HT_CUDA(cudaMalloc(&d_counts, 256 * sizeof(std::uint32_t)));
  HT_CUDA(cudaMemcpy(d_samples, h.data(), h.size(), cudaMemcpyHostToDevice));
  {
    Dispatcher disp(o);
    const FamilyChoice* used = nullptr;
    ASSERT_TRUE(disp.run(p, d_samples, d_counts, nullptr, &used).ok());
    EXPECT_EQ(used->level, LookupLevel::exact) << used->detail;
    std::vector<std::uint32_t> got(256);
    HT_CUDA(cudaMemcpy(got.data(), d_counts, got.size() * 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expect);
  }
  set_online_tuner(nullptr);
  (void)cudaFree(d_samples);
  (void)cudaFree(d_counts);
  db::Database database(path);
  EXPECT_TRUE(database.winner(query_device(0).uuid, p.key()));
  EXPECT_TRUE(database.pending().empty());
  std::filesystem::remove_all(dir);
}

// What online tuning costs the first call of a shape, with the default budget: printed (the
// figures docs/tuning.md quotes), and each call exact and `exact` after it. The second call is
// the warm path; a new dispatcher on the same database (as a later process) loads the stored
// kernel instead of compiling it.
TEST(TunerOnline, FirstCallCostsWithTheDefaultBudget) {
  HT_REQUIRE_GPU();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("histtune_online_cost_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  tuner::enable_online_tuning();
  DispatcherOptions o;
  o.db_path = (dir / "h.db").string();
  o.tune = true;
  const Problem shapes[] = {flat_problem(SampleType::u8, Binning::direct, 256, 1 << 20),
                            flat_problem(SampleType::i32, Binning::direct, 4096, 1 << 24),
                            flat_problem(SampleType::f32, Binning::even, 1000, 1 << 22, 0.0, 1.0)};
  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_samples, std::size_t{4} << 24));
  HT_CUDA(cudaMalloc(&d_counts, 4096 * sizeof(std::uint32_t)));
  HT_CUDA(cudaMemset(d_samples, 0, std::size_t{4} << 24));  // zeros: every sample in bin 0
  // One call, timed from the host (zeroing, lookup, tuning or loading, launch), checked.
  const auto timed_call = [&](Dispatcher& disp, const Problem& p) {
    HT_CUDA(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    const FamilyChoice* used = nullptr;
    const Status s = disp.run(p, d_samples, d_counts, nullptr, &used);
    HT_CUDA(cudaDeviceSynchronize());
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - t0;
    EXPECT_TRUE(s.ok()) << p.describe() << ": " << s.message();
    if (used) {
      EXPECT_EQ(used->level, LookupLevel::exact) << p.describe() << ": " << used->detail;
    }
    std::uint32_t bin0 = 0;
    HT_CUDA(cudaMemcpy(&bin0, d_counts, 4, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bin0, p.n) << p.describe();
    return took.count();
  };
  std::printf("online tuning, budget %zu: first call, second call, a new dispatcher's first call\n",
              o.tune_budget);
  for (const Problem& p : shapes) {
    double first = 0, second = 0, later = 0;
    {
      Dispatcher disp(o);
      first = timed_call(disp, p);
      second = timed_call(disp, p);
    }
    {
      Dispatcher disp(o);
      later = timed_call(disp, p);
    }
    std::printf("  %-44s %9.1f ms %8.3f ms %8.1f ms\n", p.describe().c_str(), first, second, later);
  }
  set_online_tuner(nullptr);
  (void)cudaFree(d_samples);
  (void)cudaFree(d_counts);
  std::filesystem::remove_all(dir);
}
