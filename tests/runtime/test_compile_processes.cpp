// Compiles in child processes (runtime/src/compile_processes.cpp), the histtune CLI being the
// child as in a tuning run: the same CUBIN as a compile in this process, NVRTC's rejection as
// the same error, and a child that cannot start or dies costs a compile here, never a kernel.
// Needs no GPU.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "gpu.hpp"
#include "histtune/compile_processes.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/status.hpp"

using namespace histtune;

namespace {

CompileRequest request_with_threads(int block_threads) {
  Hist1DConfig c = hist1d::default_config();
  c.block_threads = block_threads;
  return hist1d::request(c, Problem{}, 90);
}

// Turns children off whatever a test's end, so no other test compiles through them.
struct ChildrenOff {
  ~ChildrenOff() { compile_processes::disable(); }
};

}  // namespace

TEST(CompileProcesses, AChildCompilesTheSameCubinAsThisProcess) {
  ChildrenOff off;
  const auto before = compile_processes::stats();
  compile_processes::enable({test::cli_path(), compile_processes::kServeArgument}, 2);
  for (int threads : {256, 512}) {
    const CompileRequest req = request_with_threads(threads);
    const CompiledKernel child = compile(req);
    const CompiledKernel here = compile_here(req);
    ASSERT_FALSE(here.cubin.empty());
    EXPECT_EQ(child.cubin, here.cubin) << req.label;
  }
  const auto after = compile_processes::stats();
  EXPECT_EQ(after.served - before.served, 2u);
  EXPECT_EQ(after.started - before.started, 1u) << "the idle child serves the second request";
  EXPECT_EQ(after.here, before.here);
}

TEST(CompileProcesses, NvrtcsRejectionComesBackAsTheSameError) {
  ChildrenOff off;
  compile_processes::enable({test::cli_path(), compile_processes::kServeArgument}, 1);
  const auto before = compile_processes::stats();
  const CompileRequest req{hist1d::kTemplate, {"-DHT_BLOCK_THREADS=256"}, 90, "broken-config"};
  // What a compile here throws (tests/templates/test_compile.cpp checks its message).
  const auto rejection = [&req](const auto& how) -> std::string {
    try {
      how(req);
    } catch (const Error& e) {
      const std::string what = e.what();
      return e.code() == StatusCode::compile_error ? what : "another error: " + what;
    }
    return "no error";
  };
  const std::string here = rejection(compile_here);
  ASSERT_NE(here.find("HT_SAMPLE_T must be defined"), std::string::npos) << here;
  EXPECT_EQ(rejection(compile), here);
  EXPECT_EQ(compile_processes::stats().served - before.served, 1u) << "the child answered";
  EXPECT_TRUE(compile_processes::enabled()) << "a rejected kernel is no reason to stop";
}

TEST(CompileProcesses, AChildThatDiesCostsACompileHereNotTheKernel) {
  ChildrenOff off;
  compile_processes::enable({"/bin/sh", "-c", "exit 0"}, 2);  // ends before it answers
  const auto before = compile_processes::stats();
  const CompileRequest req = request_with_threads(256);
  const CompiledKernel k = compile(req);
  EXPECT_EQ(k.cubin, compile_here(req).cubin);
  const auto after = compile_processes::stats();
  EXPECT_EQ(after.lost - before.lost, 1u);
  EXPECT_EQ(after.here - before.here, 1u);
  EXPECT_EQ(after.served, before.served);
}

TEST(CompileProcesses, AProgramThatCannotStartTurnsChildrenOff) {
  ChildrenOff off;
  compile_processes::enable({"/nonexistent/histtune", compile_processes::kServeArgument}, 2);
  const CompileRequest req = request_with_threads(512);
  EXPECT_EQ(compile(req).cubin, compile_here(req).cubin);
  EXPECT_FALSE(compile_processes::enabled()) << "it would not start next time either";
}

TEST(CompileProcesses, RequestsFromManyThreadsEachGetTheirOwnKernel) {
  ChildrenOff off;
  compile_processes::enable({test::cli_path(), compile_processes::kServeArgument}, 3);
  const auto before = compile_processes::stats();
  const std::vector<int> threads = {128, 256, 512, 1024, 128, 256};
  std::vector<CompiledKernel> got(threads.size());
  std::vector<std::thread> pool;
  for (std::size_t i = 0; i < threads.size(); ++i)
    pool.emplace_back([&, i] { got[i] = compile(request_with_threads(threads[i])); });
  for (auto& t : pool) t.join();
  for (std::size_t i = 0; i < threads.size(); ++i)
    EXPECT_EQ(got[i].cubin, compile_here(request_with_threads(threads[i])).cubin) << i;
  const auto after = compile_processes::stats();
  EXPECT_LE(after.started - before.started, 3u) << "at most max children at once";
  EXPECT_EQ((after.served - before.served) + (after.here - before.here), threads.size())
      << "beyond the children's number a request compiles here";
  EXPECT_GE(after.served - before.served, 1u);
}
