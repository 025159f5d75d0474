// Tests of sharing a database: two connections on one file, threads sharing one connection,
// several processes writing one file.
#include "db/db_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using histtune::db::Database;
using histtune::db::DeviceRow;
using histtune::db::MeasurementRow;
using histtune::db::ProblemRow;
using namespace histtune::db::test;

TEST_F(TempDirTest, TwoConnectionsOnOneFileShareData) {
  const fs::path path = dir_ / "h.db";
  Database first(path.string());
  Database second(path.string());
  first.upsert_device(make_device("GPU-a"));
  EXPECT_TRUE(second.device("GPU-a").has_value());
}

// The tuner's compile threads store CUBINs through the connection the main thread uses for
// measurements: their transactions must not interleave (it failed so on the H100).
TEST_F(DatabaseV2File, DatabaseConcurrencyThreadsShareOneConnection) {
  Database db((dir_ / "threads.db").string());
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&db, t] {
      for (int i = 0; i < 50; ++i)
        db.put_cubin("k" + std::to_string(t) + "_" + std::to_string(i), 90, "13.0", "h", "l",
                     std::vector<char>(2000, static_cast<char>(i)));
    });
  }
  for (int i = 0; i < 50; ++i) {
    MeasurementRow m;
    m.config_label = "cfg" + std::to_string(i);
    m.median_ms = m.min_ms = m.max_ms = 0.1;
    m.samples = 5;
    m.verified = true;
    ASSERT_NO_THROW(db.record_measurements(make_device("GPU-a"), make_problem(256, 1 << 20), {m}));
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(db.measurements("GPU-a", make_problem(256, 1 << 20)).size(), 50u);
  EXPECT_TRUE(db.get_cubin("k3_49").has_value());
}

TEST_F(DatabaseV2File, DatabaseConcurrencyFourProcessesWriteOneFileWithoutBusyErrors) {
  const fs::path path = dir_ / "shared.db";
  constexpr int kChildren = 4;
  constexpr int kBatches = 30;
  std::vector<pid_t> children;
  for (int c = 0; c < kChildren; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        // Every child opens (and perhaps creates) the file itself, at about the same time.
        Database db(path.string());
        const DeviceRow shared = make_device("GPU-shared");
        for (int b = 0; b < kBatches; ++b) {
          const ProblemRow p = make_problem(256, static_cast<std::uint64_t>(c * 1000 + b));
          db.record_measurements(shared, p, {make_measurement("tpb256", 0.5 + b),
                                             make_measurement("tpb128", 0.6 + b)});
          db.set_winner(shared, p, "tpb256", 0.5 + b, "abc123", "0.2.0");
        }
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "a writer failed";
  }
  Database db(path.string());
  EXPECT_EQ(db.winners("GPU-shared").size(), static_cast<std::size_t>(kChildren * kBatches));
  for (int c = 0; c < kChildren; ++c) {
    for (int b = 0; b < kBatches; ++b) {
      const ProblemRow p = make_problem(256, static_cast<std::uint64_t>(c * 1000 + b));
      EXPECT_EQ(db.measurements("GPU-shared", p).size(), 2u) << c << "/" << b;
    }
  }
}
