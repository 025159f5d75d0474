// histtune_overhead: what histtune adds to a launch, on the GPU at hand. Not a test: prints a
// table (and exits 3, saying so, without a GPU).
//
//   host time of a warm call (lookup + launch) against a bare cudaLaunchKernel of the same kernel
//     with the same arguments: medians of many calls, interleaved in blocks so drift hits all;
//     for direct binning (the problem of --n and --bins), range binning of the same samples (u8
//     levels in device memory, whose check asks cudaPointerGetAttributes on every call; that
//     check is also timed alone) and the multi-channel path (the samples as rows of 4 channels);
//   GPU time per call of calls back to back, eagerly and replayed from a graph, for a memset and
//     a launch, the zeroing kernel and a dependent launch (sm_90), and histtune's call;
//   the first call in a fresh process whose tuning database already holds the CUBIN (and the
//     winner), median of several processes; the CUDA context is created before the clock starts;
//   the first call in a fresh process with nothing cached: NVRTC compiles once, and the library
//     says so on stderr.
//
// Usage: histtune_overhead [--n N] [--bins B] [--calls C] [--processes P]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/detail/upload.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/jit.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/version.hpp"

using namespace histtune;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::uint64_t n = 1 << 20;
  std::uint32_t bins = 256;
  int calls = 20000;    // per variant, warm
  int processes = 5;    // fresh processes for the cached cold call
};

double since_us(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

struct Stats {
  double median = 0, p10 = 0, p90 = 0;
};

Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))]; };
  return {at(0.5), at(0.1), at(0.9)};
}

Problem problem_of(const Options& o) {
  Problem p;
  p.sample_type = SampleType::u8;
  p.binning = Binning::direct;
  p.num_bins = o.bins;
  p.n = o.n;
  return p;
}

// ---- the child: one first call in a fresh process, $HISTTUNE_DB set by the parent ----

int child(const Options& o) {
  HT_CUDA(cudaFree(nullptr));  // the context: not histtune's cost
  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_samples, o.n));
  HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * o.bins));
  HT_CUDA(cudaMemset(d_samples, 7, o.n));
  cudaStream_t stream = nullptr;
  HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  HT_CUDA(cudaStreamSynchronize(stream));

  // The first call of the free functions also opens the database (the default dispatcher).
  const auto t0 = Clock::now();
  Status s = histogram_direct(d_samples, o.n, o.bins, d_counts, stream);
  const double call_us = since_us(t0);
  HT_CUDA(cudaStreamSynchronize(stream));
  const double done_us = since_us(t0);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  const Choice c = last_choice();
  std::printf("call_us=%.1f done_us=%.1f compiles=%zu store_hits=%zu level=%s\n", call_us, done_us,
              default_dispatcher().cache().compiles(), default_dispatcher().cache().store_hits(),
              to_string(c.level));
  return 0;
}

struct ChildResult {
  double call_ms = 0, done_ms = 0;
  std::size_t compiles = 0, store_hits = 0;
  std::string level;
  bool ok = false;
};

ChildResult run_child(const std::string& self, const Options& o) {
  const std::string cmd = "'" + self + "' --child --n " + std::to_string(o.n) + " --bins " +
                          std::to_string(o.bins);
  ChildResult r;
  std::FILE* pipe = ::popen(cmd.c_str(), "r");  // the child's stderr (its compile line) shows
  if (!pipe) return r;
  char line[512] = {0};
  std::string out;
  while (std::fgets(line, sizeof line, pipe)) out += line;
  if (::pclose(pipe) != 0) return r;
  char level[64] = {0};
  double call_us = 0, done_us = 0;
  if (std::sscanf(out.c_str(), "call_us=%lf done_us=%lf compiles=%zu store_hits=%zu level=%63s",
                  &call_us, &done_us, &r.compiles, &r.store_hits, level) == 5) {
    r.call_ms = call_us / 1e3;
    r.done_ms = done_us / 1e3;
    r.level = level;
    r.ok = true;
  }
  return r;
}

// ---- the parent ----

// A bare launch of the kernel `launch` prepared, with the same arguments as histtune's call;
// `dependent`: as the programmatic dependent of the launch before it (the zeroing kernel). The
// same CUDA calls as Hist1DLaunch's, written out here on purpose: the baseline must not run any
// of the library's code, which is what it measures.
void bare_hist1d(const Hist1DLaunch& launch, int cluster, const Problem& p, const void* d_samples,
                 std::uint32_t* d_counts, cudaStream_t stream, bool dependent = false) {
  const LaunchGeometry& g = launch.geometry();
  Hist1DArgs a = launch.args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  if (cluster == 1 && !dependent) {
    HT_CUDA(cudaLaunchKernel(launch.kernel().func(), dim3(g.grid), dim3(g.block), ptrs.data(),
                             g.smem_bytes, stream));
    return;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(g.grid);
  cfg.blockDim = dim3(g.block);
  cfg.dynamicSmemBytes = g.smem_bytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2] = {};
  unsigned n = 0;
  if (cluster > 1) {
    attr[n].id = cudaLaunchAttributeClusterDimension;
    attr[n++].val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  }
  if (dependent) {
    attr[n].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n++].val.programmaticStreamSerializationAllowed = 1;
  }
  cfg.attrs = attr;
  cfg.numAttrs = n;
  HT_CUDA(cudaLaunchKernelExC(&cfg, launch.kernel().func(), ptrs.data()));
}

// The multi-channel counterpart, with the memset of the active channels' counts that every
// multi-channel call makes.
void bare_multichannel(const MultiChannelLaunch& launch, const Problem& p, const void* d_samples,
                       std::uint32_t* d_counts, cudaStream_t stream) {
  HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * p.num_bins * p.active_channels,
                          stream));
  const MultiChannelGeometry& g = launch.geometry();
  MultiChannelArgs a = launch.args(p, d_samples, d_counts);
  auto ptrs = a.pointers();
  HT_CUDA(cudaLaunchKernel(launch.kernel().func(), g.grid, dim3(g.block), ptrs.data(),
                           g.smem_bytes, stream));
}

// The zeroing kernel of `launch`'s module, then the kernel as its programmatic dependent: what a
// call does where hist1d::zeroing takes the kernel (hist1d_launch.cpp), bare.
void bare_zero_then_dependent(const Hist1DLaunch& launch, int cluster, const Kernel& zero_kernel,
                              const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                              cudaStream_t stream) {
  unsigned int words = p.num_bins;
  void* zero_args[] = {&d_counts, &words};
  const unsigned blocks = std::min(1024u, (words + 1023) / 1024);  // as Hist1DLaunch::zero
  HT_CUDA(cudaLaunchKernel(zero_kernel.func(), dim3(blocks), dim3(256), zero_args, 0, stream));
  bare_hist1d(launch, cluster, p, d_samples, d_counts, stream, /*dependent=*/true);
}

// GPU time per call of calls queued back to back, eagerly (the host's time per call counts
// where it is the longer) and replayed from a graph of the same calls (the host's does not):
// medians of 7 repetitions of 1000 calls.
struct Throughput {
  std::string name;
  std::function<void()> call;
  double eager_us = 0, graph_us = 0;
};

void time_throughput(std::vector<Throughput>& ways, cudaStream_t stream) {
  constexpr int kCalls = 1000, kGraphCalls = 100, kReps = 7;
  cudaEvent_t start, stop;
  HT_CUDA(cudaEventCreate(&start));
  HT_CUDA(cudaEventCreate(&stop));
  auto per_call_us = [&](const std::function<void()>& queue) {
    std::vector<double> us;
    for (int r = 0; r <= kReps; ++r) {  // the first is a warm-up
      HT_CUDA(cudaStreamSynchronize(stream));
      HT_CUDA(cudaEventRecord(start, stream));
      queue();
      HT_CUDA(cudaEventRecord(stop, stream));
      HT_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      HT_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (r > 0) us.push_back(1e3 * ms / kCalls);
    }
    return stats(us).median;
  };
  for (Throughput& w : ways) {
    w.eager_us = per_call_us([&] {
      for (int i = 0; i < kCalls; ++i) w.call();
    });
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kGraphCalls; ++i) w.call();
    HT_CUDA(cudaStreamEndCapture(stream, &graph));
    HT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    w.graph_us = per_call_us([&] {
      for (int i = 0; i < kCalls / kGraphCalls; ++i) HT_CUDA(cudaGraphLaunch(exec, stream));
    });
    HT_CUDA(cudaGraphExecDestroy(exec));
    HT_CUDA(cudaGraphDestroy(graph));
  }
  HT_CUDA(cudaEventDestroy(start));
  HT_CUDA(cudaEventDestroy(stop));
}

void print_throughput(const std::vector<Throughput>& ways) {
  std::printf("\n%-55s %9s %9s\n", "GPU time per call, calls back to back", "eager us",
              "graph us");
  for (const Throughput& w : ways)
    std::printf("%-55s %9.2f %9.2f\n", w.name.c_str(), w.eager_us, w.graph_us);
}

// A fresh database in `dir` with a winner for p on d (the built-in choice, stored as if tuned):
// the cached cold call then goes through an exact lookup. Returns its path.
std::string database_in(const std::filesystem::path& dir, const DeviceInfo& d, const Problem& p) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db_path = (dir / "overhead.db").string();
  db::Database db(db_path);
  const Hist1DConfig c = hist1d::default_for(p, d);
  db.set_winner(d.row(), p.key(), c.label(), 0.0, current_toolchain(d).template_hash, version());
  return db_path;
}

// The first calls in fresh processes: one with nothing cached, then o.processes with the CUBIN
// and the winner in the database.
struct ColdRuns {
  ChildResult uncached;
  std::vector<double> call_ms, done_ms;
  std::size_t compiles = 0, store_hits = 0;
  std::string level;
};

ColdRuns cold_runs(const std::string& self, const Options& o) {
  ColdRuns c;
  // Cold, nothing cached: compiles, stores the CUBIN in the database. Its stderr line shows.
  std::fprintf(stderr, "[first fresh process: nothing cached, expect one 'compiled' line]\n");
  c.uncached = run_child(self, o);
  for (int i = 0; i < o.processes; ++i) {
    const ChildResult r = run_child(self, o);
    if (!r.ok) continue;
    c.call_ms.push_back(r.call_ms);
    c.done_ms.push_back(r.done_ms);
    c.compiles += r.compiles;
    c.store_hits += r.store_hits;
    c.level = r.level;
  }
  return c;
}

void print_cold(const ColdRuns& cold) {
  std::printf("\n%-52s %9s %9s\n", "first call in a fresh process (context up)", "call ms",
              "done ms");
  const ChildResult& u = cold.uncached;
  if (u.ok)
    std::printf("%-52s %9.2f %9.2f   (NVRTC compiles: %zu, lookup %s)\n",
                "nothing cached (compiles; see the stderr line)", u.call_ms, u.done_ms, u.compiles,
                u.level.c_str());
  else
    std::printf("%-52s failed (see stderr)\n", "nothing cached");
  if (cold.call_ms.empty()) {
    std::printf("%-52s failed (see stderr)\n", "CUBIN in the database");
    return;
  }
  const Stats c = stats(cold.call_ms), cd = stats(cold.done_ms);
  std::printf("%-52s %9.2f %9.2f   (median of %zu; min %.2f max %.2f; compiles %zu, CUBINs "
              "from the database %zu, lookup %s)\n",
              "CUBIN and winner in the database", c.median, cd.median, cold.call_ms.size(),
              *std::min_element(cold.call_ms.begin(), cold.call_ms.end()),
              *std::max_element(cold.call_ms.begin(), cold.call_ms.end()), cold.compiles,
              cold.store_hits, cold.level.c_str());
  std::printf("%-52s %9s   (target <= 5 ms: %s)\n", "", "", c.median <= 5.0 ? "met" : "MISSED");
}

// The warm calls' problems and device memory, beside the direct binning of problem_of(o): range
// binning of the same samples (pr: at most 255 bins of u8 levels, evenly spread, in device memory) and multi-channel
// (pm: the same samples as rows of 4 channels, all active, at most 256 direct bins).
struct WarmData {
  Problem pr, pm;
  std::uint8_t* d_samples = nullptr;
  std::uint8_t* d_levels = nullptr;
  std::uint32_t* d_counts = nullptr;
  cudaStream_t stream = nullptr;

  explicit WarmData(const Options& o) : pr(problem_of(o)), pm(problem_of(o)) {
    pr.binning = Binning::range;
    pr.num_bins = std::min<std::uint32_t>(o.bins, 255);
    pm.family = multichannel::kFamily;
    pm.num_bins = std::min<std::uint32_t>(o.bins, 256);
    pm.channels = pm.active_channels = 4;
    pm.n = o.n / 4;
    const std::size_t count_words =
        std::max<std::size_t>(o.bins, pm.num_bins * pm.active_channels);
    HT_CUDA(cudaMalloc(&d_samples, o.n));
    HT_CUDA(cudaMalloc(&d_levels, pr.num_bins + 1));
    HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * count_words));
    HT_CUDA(cudaMemset(d_samples, 7, o.n));
    std::vector<std::uint8_t> levels(pr.num_bins + 1);
    for (std::uint32_t i = 0; i <= pr.num_bins; ++i)
      levels[i] = static_cast<std::uint8_t>(i * 255 / pr.num_bins);  // ascending: 255 / bins >= 1
    histtune::detail::upload_and_wait(d_levels, levels.data(), levels.size());
    pr.d_levels = d_levels;
    HT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~WarmData() {
    (void)cudaFree(d_samples);
    (void)cudaFree(d_levels);
    (void)cudaFree(d_counts);
    (void)cudaStreamDestroy(stream);
  }
  WarmData(const WarmData&) = delete;
  WarmData& operator=(const WarmData&) = delete;
};

struct Variant {
  std::string name;
  std::function<void()> call;
  std::vector<double> us;
};
enum Row { kBare, kBareMemset, kRun, kFree, kC, kRangeBare, kRangeCheck, kRangeFree, kMcBare, kMcFree };

// Each variant's host time per call, in blocks of kBlock calls interleaved so drift hits all,
// after a warm-up block each (first-call work, caches, clocks).
void time_variants(std::vector<Variant>& variants, cudaStream_t stream, int calls) {
  // Sync every kBatch calls, outside the clock, so the launch queue never fills and blocks.
  constexpr int kBatch = 64, kBlock = 1024;
  auto timed_block = [&](Variant& v, bool record) {
    for (int i = 0; i < kBlock; ++i) {
      if (i % kBatch == 0) HT_CUDA(cudaStreamSynchronize(stream));
      const auto t0 = Clock::now();
      v.call();
      const double us = since_us(t0);
      if (record) v.us.push_back(us);
    }
    HT_CUDA(cudaStreamSynchronize(stream));
  };
  for (auto& v : variants) timed_block(v, false);
  for (int round = 0; round * kBlock < calls; ++round)
    for (auto& v : variants) timed_block(v, true);
}

// Calls back to back (time_throughput): a memset and a launch, the zeroing kernel and a dependent
// launch, and histtune's call; where a call zeroes and the zeroing kernel exists (sm_90), else
// none.
std::vector<Throughput> back_to_back(Dispatcher& disp, const Hist1DLaunch& launch,
                                     const Choice& used, const Problem& p, const DeviceInfo& d,
                                     const std::vector<Variant>& variants,
                                     const std::uint8_t* d_samples, std::uint32_t* d_counts,
                                     cudaStream_t stream) {
  if (!launch.zeroes_counts() || d.cc_major < 9) return {};
  const Kernel zero_kernel =
      disp.cache().get(hist1d_request(used.config, p, d.arch()), hist1d::kZeroKernel);
  const int cluster = used.config.cluster;
  std::vector<Throughput> ways = {
      {"bare cudaMemsetAsync + cudaLaunchKernel", variants[kBareMemset].call},
      {"bare zeroing kernel + dependent launch (PDL)",
       [&launch, &p, cluster, zero_kernel, d_samples, d_counts, stream] {
         bare_zero_then_dependent(launch, cluster, zero_kernel, p, d_samples, d_counts, stream);
       }},
      {"histtune::histogram_direct", variants[kFree].call},
  };
  time_throughput(ways, stream);
  return ways;
}

// Each variant's times, then what a histtune call does beyond the bare launch of the same
// kernel: the bare baseline includes the memset when the configuration needs one (the call
// cannot be correct without it).
void print_warm(const std::vector<Variant>& variants, bool zeroes_counts) {
  std::printf("\n%-55s %9s %9s %9s\n", "host time per call (warm)", "median us", "p10", "p90");
  std::vector<Stats> st;
  for (const auto& v : variants) {
    st.push_back(stats(v.us));
    std::printf("%-55s %9.2f %9.2f %9.2f\n", v.name.c_str(), st.back().median, st.back().p10,
                st.back().p90);
  }
  const double bare = zeroes_counts ? st[kBareMemset].median : st[kBare].median;
  const double added_free = st[kFree].median - bare;
  const double added_run = st[kRun].median - bare;
  std::printf("%-55s %9.2f   (target <= 2 us: %s)\n",
              "added by histogram_direct over the bare call", added_free,
              added_free <= 2.0 ? "met" : "MISSED");
  std::printf("%-55s %9.2f\n", "added by Dispatcher::run over the bare call", added_run);
  std::printf("  (bare call = %s)\n",
              zeroes_counts ? "memset + launch: this configuration adds to zeroed counts"
                            : "launch: this configuration stores the counts, no memset");
  std::printf("%-55s %9.2f   (of which check_levels: %.2f)\n",
              "added by histogram_range over its bare call",
              st[kRangeFree].median - st[kRangeBare].median, st[kRangeCheck].median);
  std::printf("%-55s %9.2f\n", "added by histogram_multichannel_direct over its bare",
              st[kMcFree].median - st[kMcBare].median);
}

// A bare launch is one kernel; a two-phase call is two and a temporary buffer, a partitioned
// one three a round, so the added cost of histtune's call would not be what this measures.
void require_one_kernel(const Choice& used, const Hist1DLaunch& launch, const Choice& used_range,
                        const Hist1DLaunch& launch_range, const MultiChannelChoice& used_mc,
                        const MultiChannelLaunch& launch_mc) {
  if (launch.two_phase() || launch.partitioned() || launch_range.two_phase() ||
      launch_range.partitioned() || launch_mc.two_phase())
    throw Error(StatusCode::invalid_argument,
                "bench_overhead: the database chose a multi-kernel configuration (" +
                    used.config.label() + ", " + used_range.config.label() + ", " +
                    used_mc.config.label() +
                    "); measure the overhead with single-kernel configurations (HISTTUNE_DB "
                    "pointing at no database runs the built-in defaults)");
}

// The three configurations timed, where the lookup found them, and their launch shapes.
void print_configurations(const Choice& used, const Hist1DLaunch& launch, const Problem& pr,
                          const Choice& used_range, const Hist1DLaunch& launch_range,
                          const Problem& pm, const MultiChannelChoice& used_mc,
                          const MultiChannelLaunch& launch_mc) {
  const LaunchGeometry& g = launch.geometry();
  std::printf("configuration %s (lookup: %s%s), grid %u x %u threads, %zu B shared\n",
              used.config.label().c_str(), to_string(used.level),
              used.unverified ? ", unverified" : "", g.grid, g.block, g.smem_bytes);
  const LaunchGeometry& gr = launch_range.geometry();
  std::printf("range: %s: configuration %s (lookup: %s), grid %u x %u threads, %zu B shared\n",
              pr.describe().c_str(), used_range.config.label().c_str(),
              to_string(used_range.level), gr.grid, gr.block, gr.smem_bytes);
  const MultiChannelGeometry& gm = launch_mc.geometry();
  std::printf("multi-channel: %s: configuration %s (lookup: %s), grid %u x %u x %u threads, "
              "%zu B shared\n",
              pm.describe().c_str(), used_mc.config.label().c_str(), to_string(used_mc.level),
              gm.grid.x, gm.grid.y, gm.block, gm.smem_bytes);
}

int parent(const std::string& self, const Options& o) {
  const DeviceInfo d = query_device(current_device());
  const Problem p = problem_of(o);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("histtune_overhead_" + std::to_string(::getpid()));
  const std::string db_path = database_in(dir, d, p);
  ::setenv("HISTTUNE_DB", db_path.c_str(), 1);

  std::printf("histtune %s overhead on GPU %d: %s (sm_%d), driver %d, runtime %d, NVRTC %s\n",
              version(), d.ordinal, d.name.c_str(), d.arch(), d.driver_version, d.runtime_version,
              nvrtc_version().c_str());
  std::printf("problem: %s\n\n", p.describe().c_str());
  std::fflush(stdout);
  const ColdRuns cold = cold_runs(self, o);

  // Warm: this process. The dispatcher and the free functions use the same database.
  Dispatcher disp(db_path);
  const WarmData w(o);
  const Problem &pr = w.pr, &pm = w.pm;
  std::uint8_t* const d_samples = w.d_samples;
  std::uint32_t* const d_counts = w.d_counts;
  const cudaStream_t stream = w.stream;
  const int ordinal = current_device();

  // The same kernel handles the dispatcher launches (cache hits), prepared the same way.
  Choice used, used_range;
  Status s = disp.run(p, d_samples, d_counts, stream, &used);
  if (s.ok()) s = disp.run(pr, d_samples, d_counts, stream, &used_range);
  if (!s.ok()) throw Error(s.code(), s.message());
  const Kernel k = disp.cache().get(hist1d_request(used.config, p, d.arch()), hist1d::kKernel);
  const Hist1DLaunch launch(disp.cache(), k, used.config, p, d);
  const Kernel k_range =
      disp.cache().get(hist1d_request(used_range.config, pr, d.arch()), hist1d::kKernel);
  const Hist1DLaunch launch_range(disp.cache(), k_range, used_range.config, pr, d);
  // The multi-channel entry points keep their prepared launches to themselves: the bare launch
  // loads the configuration they chose from the default dispatcher's cache they use.
  s = histogram_multichannel_direct(d_samples, pm.n, pm.channels, pm.active_channels, pm.num_bins,
                                    d_counts, stream);
  if (!s.ok()) throw Error(s.code(), s.message());
  const MultiChannelChoice used_mc = last_multichannel_choice();
  KernelCache& mc_cache = default_dispatcher().cache();
  const Kernel k_mc =
      mc_cache.get(multichannel::request(used_mc.config, pm, d.arch()), multichannel::kKernel);
  const MultiChannelLaunch launch_mc(mc_cache, k_mc, used_mc.config, pm, d);
  HT_CUDA(cudaStreamSynchronize(stream));
  require_one_kernel(used, launch, used_range, launch_range, used_mc, launch_mc);

  auto bare_launch = [&] { bare_hist1d(launch, used.config.cluster, p, d_samples, d_counts, stream); };
  std::vector<Variant> variants = {
      {"bare cudaLaunchKernel", bare_launch, {}},
      {"bare cudaMemsetAsync + cudaLaunchKernel",
       [&] {
         HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * o.bins, stream));
         bare_launch();
       },
       {}},
      {"Dispatcher::run",
       [&] {
         if (!disp.run(p, d_samples, d_counts, stream).ok()) throw Error(StatusCode::internal, "run");
       },
       {}},
      {"histtune::histogram_direct",
       [&] {
         if (!histogram_direct(d_samples, o.n, o.bins, d_counts, stream).ok())
           throw Error(StatusCode::internal, "histogram_direct");
       },
       {}},
      {"histtune_histogram_direct_u8 (C)",
       [&] {
         if (histtune_histogram_direct_u8(d_samples, o.n, o.bins, d_counts, stream) != HISTTUNE_OK)
           throw Error(StatusCode::internal, histtune_last_error());
       },
       {}},
      {std::string("range: bare ") +
           (launch_range.zeroes_counts() ? "cudaMemsetAsync + " : "") + "cudaLaunchKernel",
       [&] {
         if (launch_range.zeroes_counts())
           HT_CUDA(cudaMemsetAsync(d_counts, 0, sizeof(std::uint32_t) * pr.num_bins, stream));
         bare_hist1d(launch_range, used_range.config.cluster, pr, d_samples, d_counts, stream);
       },
       {}},
      {"range: check_levels alone (cudaPointerGetAttributes)",
       [&] {
         if (!check_levels(pr, ordinal).empty()) throw Error(StatusCode::internal, "check_levels");
       },
       {}},
      {"range: histtune::histogram_range",
       [&] {
         if (!histogram_range(d_samples, o.n, pr.num_bins, w.d_levels, d_counts, stream).ok())
           throw Error(StatusCode::internal, "histogram_range");
       },
       {}},
      {"multi-channel: bare cudaMemsetAsync + cudaLaunchKernel",
       [&] { bare_multichannel(launch_mc, pm, d_samples, d_counts, stream); },
       {}},
      {"multi-channel: histogram_multichannel_direct",
       [&] {
         if (!histogram_multichannel_direct(d_samples, pm.n, pm.channels, pm.active_channels,
                                            pm.num_bins, d_counts, stream)
                  .ok())
           throw Error(StatusCode::internal, "histogram_multichannel_direct");
       },
       {}},
  };
  time_variants(variants, stream, o.calls);
  const std::vector<Throughput> ways =
      back_to_back(disp, launch, used, p, d, variants, w.d_samples, w.d_counts, stream);

  print_configurations(used, launch, pr, used_range, launch_range, pm, used_mc, launch_mc);
  print_warm(variants, launch.zeroes_counts());
  if (!ways.empty()) print_throughput(ways);
  print_cold(cold);
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool is_child = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "histtune_overhead: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--child") is_child = true;
    else if (a == "--n") o.n = std::stoull(value());
    else if (a == "--bins") o.bins = static_cast<std::uint32_t>(std::stoul(value()));
    else if (a == "--calls") o.calls = std::stoi(value());
    else if (a == "--processes") o.processes = std::stoi(value());
    else {
      std::fprintf(stderr,
                   "usage: histtune_overhead [--n N] [--bins B] [--calls C] [--processes P]\n");
      return 2;
    }
  }
  try {
    device_count();
    if (is_child) return child(o);
    return parent(std::filesystem::read_symlink("/proc/self/exe").string(), o);
  } catch (const Error& e) {
    std::fprintf(stderr, "histtune_overhead: %s\n", e.what());
    return e.code() == StatusCode::no_device ? 3 : 1;
  }
}
