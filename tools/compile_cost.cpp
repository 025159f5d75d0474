// histtune_compile_cost: what NVRTC costs the default plan, measured without a GPU. For each
// problem of the plan it compiles the built-in default and a seeded random sample of valid points
// of the problem's search space (for an architecture's limits, sm_90 by default) and prints the
// CPU seconds per compile by problem and by family. A cold plan's compile time is about the
// kernels its searches time times these seconds (docs/tuning.md, "A cold plan").
//
//   histtune_compile_cost [--samples N] [--seed S] [--arch 90] [--threads T] [--only TEXT]
//                         [--labels] [--dump DIR] [--search] [--processes] [--phases]
//
// --search counts instead the kernels a cold plan's searches ask for (compile_cost_search.cpp),
// and compiles the ones timed of the problems --only names (none without --only).
// --labels prints every compile (label, seconds, CUBIN bytes); --dump writes each CUBIN to
// DIR/<problem index>.<label>.cubin, so two builds' kernels can be compared with cuobjdump -sass.
// --processes compiles in up to T child processes of this program (compile_processes.hpp), as a
// tuning run does; the seconds are then each compile's wall time, the child's CPU being its own.
// --phases adds NVRTC's own timing of each compile (its `--time` option, into the compile's log)
// and prints the seconds by phase (front end, NVVM optimizer, PTX to SASS) per family: which
// part of the compiling a change to the kernels or the options could cut.
#include "compile_cost.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "histtune/compile_processes.hpp"
#include "histtune/device.hpp"
#include "histtune/family.hpp"
#include "histtune/jit.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/tuner.hpp"

namespace histtune::compile_cost {
namespace {

using tuner::Point;
using tuner::SearchSpace;

struct Options {
  std::size_t samples = 6;  // per problem, the default configuration included
  std::uint64_t seed = 1;
  int arch = 90;
  int threads = 1;
  std::string only;  // problems whose description contains it
  bool labels = false;
  bool search = false;  // the kernels of a cold plan's searches instead of a random sample
  bool processes = false;  // compile in child processes
  bool phases = false;     // NVRTC's timing of its phases, per family
  std::string dump;
};

struct Job {
  std::size_t problem = 0;
  CompileRequest req;
  // What the report sums: the compiling thread's CPU seconds, or under --processes the compile's
  // wall time (the child's CPU is its own process's).
  double cost_s = 0, wall_s = 0;
  std::size_t bytes = 0;
  std::string error;
  std::vector<char> cubin;  // kept for --dump
  std::map<std::string, double> phase_s;  // --phases: NVRTC's seconds by phase
};

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--labels") o.labels = true;
    else if (a == "--search") o.search = true;
    else if (a == "--processes") o.processes = true;
    else if (a == "--phases") o.phases = true;
    else if (a == "--samples" && has_value) o.samples = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--seed" && has_value) o.seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--arch" && has_value) o.arch = std::atoi(argv[++i]);
    else if (a == "--threads" && has_value) o.threads = std::max(1, std::atoi(argv[++i]));
    else if (a == "--only" && has_value) o.only = argv[++i];
    else if (a == "--dump" && has_value) o.dump = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: histtune_compile_cost [--samples N] [--seed S] [--arch 90] "
                   "[--threads T] [--only TEXT] [--labels] [--dump DIR] [--search] "
                   "[--processes] [--phases]\n");
      return false;
    }
  }
  return o.samples > 0;
}

// The built-in default of p, then random valid points of its space (drawn by rejection, as the
// annealing search draws them: the grids have millions of points), `count` distinct in all.
std::vector<Point> sample_points(const Problem& p, const DeviceInfo& d, std::size_t count,
                                 std::mt19937_64& rng) {
  const SearchSpace space = tuner::search_space(p, d);
  std::vector<Point> out;
  const KernelFamily& f = family_of(p);
  if (auto pt = tuner::point_of_label(f.label(f.fallback(p, d)), p, d)) out.push_back(*pt);
  Point q(space.sizes.size());
  for (int tries = 0; out.size() < count && tries < 1000000; ++tries) {
    for (std::size_t k = 0; k < q.size(); ++k)
      q[k] = static_cast<int>(rng() % static_cast<std::uint64_t>(space.sizes[k]));
    if ((!space.valid || space.valid(q)) && std::find(out.begin(), out.end(), q) == out.end())
      out.push_back(q);
  }
  return out;
}

// NVRTC's `--time=-` rows in a compile's log ("file, phase, metric, unit", milliseconds), summed
// by phase.
std::map<std::string, double> phases_of(const std::string& log) {
  std::map<std::string, double> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) {
      const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(" \r");
      f.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    if (f.size() == 4 && f[3] == "ms") out[f[1]] += std::atof(f[2].c_str()) / 1000;
  }
  return out;
}

void compile_all(std::vector<Job>& jobs, int threads, bool keep, bool processes) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      Job& j = jobs[i];
      const double c0 = thread_cpu_s();
      const auto w0 = std::chrono::steady_clock::now();
      try {
        CompiledKernel k = compile(j.req);
        j.phase_s = phases_of(k.log);
        j.bytes = k.cubin.size();
        if (keep) j.cubin = std::move(k.cubin);
      } catch (const std::exception& e) {
        j.error = e.what();
      }
      j.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      j.cost_s = processes ? j.wall_s : thread_cpu_s() - c0;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

void dump(const Options& o, const Job& j) {
  if (o.dump.empty() || !j.error.empty()) return;
  std::ofstream(o.dump + "/" + std::to_string(j.problem) + "." + j.req.label + ".cubin",
                std::ios::binary)
      .write(j.cubin.data(), static_cast<std::streamsize>(j.cubin.size()));
}

struct Sum {
  std::size_t n = 0;
  double seconds = 0, max = 0;
  void add(const Job& j) {
    ++n;
    seconds += j.cost_s;
    max = std::max(max, j.cost_s);
  }
};

// Per family, NVRTC's seconds a compile by phase, and each phase's share of them all.
void report_phases(const std::vector<Problem>& plan, const std::vector<Job>& jobs) {
  std::map<std::string, std::map<std::string, double>> by_family;
  std::map<std::string, std::size_t> compiles;
  std::map<std::string, double> all;
  for (const Job& j : jobs) {
    const std::string family = family_of(plan[j.problem]).name();
    ++compiles[family];
    for (const auto& [phase, s] : j.phase_s) {
      by_family[family][phase] += s;
      all[phase] += s;
    }
  }
  double total = 0;
  for (const auto& [phase, s] : all) total += s;
  std::printf("\nNVRTC's phases, seconds a compile (--phases):\n%-20s", "family");
  for (const auto& [phase, s] : all) std::printf(" %18s", phase.c_str());
  std::printf("\n");
  for (const auto& [family, phases] : by_family) {
    std::printf("%-20s", family.c_str());
    for (const auto& [phase, s] : all) {
      const auto it = phases.find(phase);
      std::printf(" %18.3f", it == phases.end() ? 0.0 : it->second / compiles[family]);
    }
    std::printf("\n");
  }
  std::printf("%-20s", "share of all");
  for (const auto& [phase, s] : all) std::printf(" %17.0f%%", total > 0 ? 100 * s / total : 0.0);
  std::printf("\n");
}

void report(const Options& o, const std::vector<Problem>& plan, const std::vector<Job>& jobs) {
  std::map<std::size_t, Sum> by_problem;
  std::map<std::string, Sum> by_family;
  Sum all;
  for (const Job& j : jobs) {
    if (o.labels)
      std::printf("  %3zu %-60s %6.2f s (wall %6.2f s) %7zu B%s%s\n", j.problem,
                  j.req.label.c_str(), j.cost_s, j.wall_s, j.bytes,
                  j.error.empty() ? "" : "  FAILED: ", j.error.substr(0, 200).c_str());
    by_problem[j.problem].add(j);
    by_family[family_of(plan[j.problem]).name()].add(j);
    all.add(j);
  }
  std::printf("%-4s %-58s %8s %10s %8s\n", "#", "problem", "compiles", "s/compile", "max s");
  for (const auto& [i, s] : by_problem)
    std::printf("%-4zu %-58s %8zu %10.2f %8.2f\n", i, plan[i].describe().c_str(), s.n,
                s.seconds / static_cast<double>(s.n), s.max);
  std::printf("\n%-20s %8s %10s %8s\n", "family", "compiles", "s/compile", "max s");
  for (const auto& [name, s] : by_family)
    std::printf("%-20s %8zu %10.2f %8.2f\n", name.c_str(), s.n, s.seconds / static_cast<double>(s.n),
                s.max);
  std::printf("%-20s %8zu %10.2f %8.2f  (%s, NVRTC %s)\n", "all", all.n,
              all.seconds / static_cast<double>(std::max<std::size_t>(all.n, 1)), all.max,
              o.processes ? "wall seconds of a compile in a child process"
                          : "CPU seconds of the compiling thread",
              nvrtc_version().c_str());
  if (o.phases) report_phases(plan, jobs);
}

std::vector<Job> sampled_jobs(const Options& o, const std::vector<Problem>& plan,
                              const DeviceInfo& d) {
  std::mt19937_64 rng(o.seed);
  std::vector<Job> jobs;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!o.only.empty() && plan[i].describe().find(o.only) == std::string::npos) continue;
    for (const Point& pt : sample_points(plan[i], d, o.samples, rng)) {
      const KernelFamily& f = family_of(plan[i]);
      jobs.push_back({i, f.request(tuner::values_of(f, pt), plan[i], o.arch), 0, 0, 0, {}, {}, {}});
    }
  }
  return jobs;
}

int run(const Options& o) {
  const std::optional<DeviceInfo> d = describe_arch(o.arch / 10, o.arch % 10);
  if (!d) {
    std::fprintf(stderr, "histtune_compile_cost: no limits known for sm_%d\n", o.arch);
    return 2;
  }
  const std::vector<Problem> plan = tuner::default_plan();
  std::vector<Job> jobs;
  if (o.search) {
    const std::vector<SearchedProblem> searched = searched_kernels(plan, *d, o.arch, o.only);
    print_searched(plan, searched);
    for (const SearchedProblem& s : searched)
      for (const CompileRequest& req : s.compile) jobs.push_back({s.problem, req, 0, 0, 0, {}, {}, {}});
    if (jobs.empty()) return 0;
  } else {
    jobs = sampled_jobs(o, plan, *d);
  }
  if (o.phases)
    for (Job& j : jobs) j.req.defines.push_back("--time=-");  // NVRTC's options, into its log
  if (o.processes)
    compile_processes::enable(compile_processes::this_program(), static_cast<unsigned>(o.threads));
  compile_all(jobs, o.threads, !o.dump.empty(), o.processes);
  report(o, plan, jobs);
  for (const Job& j : jobs) dump(o, j);
  return std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return !j.error.empty(); });
}

}  // namespace
}  // namespace histtune::compile_cost

int main(int argc, char** argv) {
  namespace cp = histtune::compile_processes;
  if (cp::asked_to_serve(argc, argv)) return cp::serve();
  histtune::compile_cost::Options o;
  if (!histtune::compile_cost::parse(argc, argv, o)) return 2;
  return histtune::compile_cost::run(o);
}
