// Nothing lost: a child process tunes into a file database through resume_from, the storage path
// of `histtune tune` (each measurement committed as it is taken), with a fake bench slow enough to
// be caught mid-way, and reports each measurement once it is stored. The parent interrupts it
// (SIGINT, as Ctrl-C; SIGKILL, as kill -9) and checks that the database is consistent, holds every
// reported measurement, and that running again reuses all of them, measures only the rest and
// ends where an uninterrupted run ends. (tests/tuner/test_gpu_tuner.cpp does the same to the CLI
// on a GPU.)
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>

#include "fake_bench.hpp"
#include "histtune/db/database.hpp"
#include "histtune/tuner/tuner.hpp"

using namespace histtune;
using namespace histtune::tuner;
using histtune::test::FakeBench;
namespace fs = std::filesystem;

namespace {

Problem problem() {
  Problem p;
  p.num_bins = 256;
  p.n = 1u << 24;
  return p;
}

db::DeviceRow device() {
  db::DeviceRow d{"GPU-resume", "Fake H100", 9, 0, 132, 1, 1, 1, 1};
  return d;
}

SearchSpace grid() { return SearchSpace{{6, 6, 4}, [](const Point& p) { return p[0] + p[1] != 9; }}; }

std::optional<double> landscape(const Point& p, Distribution d) {
  double t = 1.0 + 0.03 * std::abs(p[0] - 4) + 0.02 * std::abs(p[1] - 2) + 0.01 * p[2];
  if (d == Distribution::constant && p[2] == 0) t *= 1.5;  // some points hate hot bins
  if (d == Distribution::skewed) t *= 1.0 + 0.01 * p[1];
  return t;
}

TuneOptions options() {
  TuneOptions o;
  o.strategy = "annealing";
  o.budget.max_evaluations = 60;
  o.finalists = 4;
  o.distribution_budget = 6;
  o.remeasure_rounds = 2;
  return o;
}

class ResumeFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "histtune_resume_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Starts a child that tunes into `path`, writing "distribution/label\n" to the pipe after each
  // measurement is stored. Returns the pid and the read end.
  std::pair<pid_t, int> spawn(const std::string& path) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      // A shell starts a background job with SIGINT ignored, and a child inherits that: the
      // test's SIGINT must end the child wherever the suite was started from.
      signal(SIGINT, SIG_DFL);
      int code = 0;
      try {
        db::Database database(path);
        TuneOptions o = options();
        const int out = fds[1];
        o.on_measurement = [out](const db::MeasurementRow& m) {
          const std::string line = m.distribution + "/" + m.config_label + "\n";
          if (write(out, line.data(), line.size()) < 0) _exit(4);
        };
        resume_from(database, device(), problem(), "fake-template", o);
        FakeBench bench(landscape, std::chrono::microseconds(3000));
        const TuneResult r = tune_with(problem(), grid(), bench, o);
        store(database, device(), r, /*measurements=*/false);
      } catch (...) {
        code = 3;
      }
      _exit(code);
    }
    close(fds[1]);
    return {pid, fds[0]};
  }

  fs::path dir_;
};

// Reads lines from fd until `count` have come (or EOF); returns them.
std::vector<std::string> read_lines(int fd, std::size_t count, std::string& partial) {
  std::vector<std::string> lines;
  char buf[256];
  while (lines.size() < count) {
    const ssize_t got = read(fd, buf, sizeof buf);
    if (got <= 0) break;
    partial.append(buf, static_cast<std::size_t>(got));
    std::size_t nl;
    while ((nl = partial.find('\n')) != std::string::npos) {
      lines.push_back(partial.substr(0, nl));
      partial.erase(0, nl + 1);
    }
  }
  return lines;
}

struct Interruption {
  const char* name;
  int signal;
  std::size_t after;  // measurements reported before the signal
};

void PrintTo(const Interruption& k, std::ostream* os) { *os << k.name; }

class ResumeAfterInterruption : public ResumeFile,
                                public ::testing::WithParamInterface<Interruption> {};

TEST_P(ResumeAfterInterruption, LosesNothingFinishedAndResumesWhereItStopped) {
  const Interruption k = GetParam();
  const std::string path = (dir_ / "tune.db").string();

  // What an uninterrupted run measures and chooses.
  FakeBench reference_bench(landscape);
  const TuneResult reference = tune_with(problem(), grid(), reference_bench, options());
  ASSERT_GT(reference.measurements.size(), k.after + 5);

  auto [pid, fd] = spawn(path);
  std::string partial;
  std::vector<std::string> reported = read_lines(fd, k.after, partial);
  ASSERT_EQ(reported.size(), k.after) << "the child stopped early";
  ASSERT_EQ(kill(pid, k.signal), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child finished before the signal: make it slower";
  EXPECT_EQ(WTERMSIG(status), k.signal);
  // Lines written before it died are still in the pipe.
  for (auto& l : read_lines(fd, SIZE_MAX, partial)) reported.push_back(l);
  close(fd);

  {  // Consistent: SQLite's own checks, on the file as the killed process left it.
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
    SQLite::Statement fk(raw, "PRAGMA foreign_key_check");
    EXPECT_FALSE(fk.executeStep()) << "a dangling reference";
  }
  db::Database database(path);
  const auto stored = database.measurements(device().uuid, problem().key());
  std::set<std::string> keys;
  for (const auto& m : stored) {
    EXPECT_TRUE(keys.insert(m.distribution + "/" + m.config_label).second) << "stored twice";
    EXPECT_TRUE(m.verified);
    EXPECT_EQ(m.template_hash, "fake-template");
    EXPECT_GT(m.samples, 0);
  }
  for (const auto& line : reported) EXPECT_TRUE(keys.count(line)) << "lost: " << line;
  EXPECT_GE(stored.size(), reported.size());
  EXPECT_LE(stored.size(), reported.size() + 1) << "at most the one being reported";
  EXPECT_FALSE(database.winner(device().uuid, problem().key())) << "it never finished";

  // Running again reuses every stored measurement and takes only the others.
  TuneOptions again = options();
  std::size_t taken = 0;
  again.on_measurement = [&](const db::MeasurementRow&) { ++taken; };
  resume_from(database, device(), problem(), "fake-template", again);
  EXPECT_EQ(again.known.size(), stored.size());
  FakeBench bench(landscape);
  const TuneResult r = tune_with(problem(), grid(), bench, again);
  EXPECT_EQ(r.reused, stored.size());
  EXPECT_EQ(taken + r.reused, reference.measurements.size());
  EXPECT_EQ(r.search_evaluations, reference.search_evaluations);
  EXPECT_EQ(r.winner, reference.winner) << "it ends where an uninterrupted run ends";
  store(database, device(), r, /*measurements=*/false);
  EXPECT_EQ(database.measurements(device().uuid, problem().key()).size(),
            reference.measurements.size())
      << "every measurement once";
  EXPECT_EQ(database.winner(device().uuid, problem().key())->config_label, reference.winner);
}

INSTANTIATE_TEST_SUITE_P(
    Signals, ResumeAfterInterruption,
    ::testing::Values(Interruption{"sigint_early", SIGINT, 5},
                      Interruption{"sigkill_in_the_search", SIGKILL, 30},
                      Interruption{"sigkill_among_distributions", SIGKILL, 62},
                      Interruption{"sigint_late", SIGINT, 70}),
    [](const ::testing::TestParamInfo<Interruption>& i) { return std::string(i.param.name); });

}  // namespace
