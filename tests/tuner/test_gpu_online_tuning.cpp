// The problems programs call, on the tuner's side: a stored key (and a recorded call's bounds) as
// the problem tune times, and online tuning registered with the runtime: a first call of an
// untuned shape tunes it, stores the winner and runs it `exact` (GPU; skips without one).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
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
