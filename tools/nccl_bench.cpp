// histtune_nccl_bench: one histogram of 2 x 2^k u8 samples on two GPUs of one process (2^k each,
// histtune::nccl, one comm per GPU) against one GPU counting all of them, and whether the
// two-GPU counts equal the one-GPU histogram of the concatenated data exactly.
//
// Timing: CUDA events around each call on each GPU's stream after both GPUs are idle; a call's
// time is the later GPU's; warm-up calls first (the first one compiles or loads the kernel),
// then the median of the repetitions. The inputs (1 GiB per GPU at k = 30) are far beyond L2,
// so no flush is needed. NCCL_NVLS_ENABLE=0 is set unless the environment sets it (NVLink
// multicast can take shared machines' GPUs out of service).
//
//   histtune_nccl_bench [--log2-n 30] [--bins 256] [--reps 20] [--warmup 3]
//                       [--combine all_reduce|reduce_scatter]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/detail/upload.hpp"
#include "histtune/nccl.hpp"

namespace {

using histtune::nccl::Combine;
constexpr int kGpus = 2;

struct Options {
  int log2_n = 30;  // samples per GPU: 2^log2_n
  std::uint32_t bins = 256;
  int reps = 20;
  int warmup = 3;
  Combine how = Combine::all_reduce;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--help" || a == "-h" || !v) {
      std::cout << "usage: histtune_nccl_bench [--log2-n K] [--bins B] [--reps R] [--warmup W] "
                   "[--combine all_reduce|reduce_scatter]\n";
      std::exit(a == "--help" || a == "-h" ? 0 : 2);
    }
    ++i;
    if (a == "--log2-n") o.log2_n = std::stoi(v);
    else if (a == "--bins") o.bins = static_cast<std::uint32_t>(std::stoul(v));
    else if (a == "--reps") o.reps = std::stoi(v);
    else if (a == "--warmup") o.warmup = std::stoi(v);
    else if (a == "--combine" && std::strcmp(v, "reduce_scatter") == 0) o.how = Combine::reduce_scatter;
    else if (a == "--combine" && std::strcmp(v, "all_reduce") == 0) o.how = Combine::all_reduce;
    else throw std::invalid_argument("unknown option or value: " + a + " " + v);
  }
  if (o.log2_n < 10 || o.log2_n > 32 || o.reps < 1 || o.warmup < 1 || o.bins < 1 || o.bins > 256)
    throw std::invalid_argument("needs 10 <= --log2-n <= 32, --reps and --warmup >= 1, "
                                "1 <= --bins <= 256");
  return o;
}

// Uniform random bytes, drawn by several threads (2 GiB at k = 30 takes a while on one).
std::vector<std::uint8_t> random_bytes(std::uint64_t n) {
  std::vector<std::uint8_t> bytes(n);
  const unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 gen(30 + t);
      for (std::uint64_t i = n * t / threads & ~7ull; i < (n * (t + 1) / threads & ~7ull); i += 8) {
        const std::uint64_t r = gen();
        std::memcpy(&bytes[i], &r, 8);
      }
    });
  for (auto& th : pool) th.join();
  for (std::uint64_t i = n & ~7ull; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(i);
  return bytes;
}

std::vector<std::uint64_t> host_histogram(const std::vector<std::uint8_t>& bytes,
                                          std::uint32_t bins) {
  std::vector<std::uint64_t> counts(256, 0);
  for (std::uint8_t b : bytes) ++counts[b];
  counts.resize(bins);  // direct binning: values >= bins are not counted
  return counts;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// One GPU's stream and events.
struct Gpu {
  int device = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::uint8_t* d_samples = nullptr;
  std::uint64_t* d_counts = nullptr;
};

// Median time in ms of `call` over the GPUs in `gpus`: per repetition, the later GPU's events.
template <class Call>
double time_ms(std::vector<Gpu>& gpus, const Options& o, const Call& call) {
  std::vector<double> times;
  for (int r = 0; r < o.warmup + o.reps; ++r) {
    for (Gpu& g : gpus) {
      HT_CUDA(cudaSetDevice(g.device));
      HT_CUDA(cudaDeviceSynchronize());
    }
    for (Gpu& g : gpus) {
      HT_CUDA(cudaSetDevice(g.device));
      HT_CUDA(cudaEventRecord(g.start, g.stream));
    }
    if (histtune::Status s = call(); !s.ok()) throw histtune::Error(s.code(), s.message());
    double slowest = 0;
    for (Gpu& g : gpus) {
      HT_CUDA(cudaSetDevice(g.device));
      HT_CUDA(cudaEventRecord(g.stop, g.stream));
    }
    for (Gpu& g : gpus) {
      HT_CUDA(cudaEventSynchronize(g.stop));
      float ms = 0;
      HT_CUDA(cudaEventElapsedTime(&ms, g.start, g.stop));
      slowest = std::max(slowest, static_cast<double>(ms));
    }
    if (r >= o.warmup) times.push_back(slowest);
  }
  return median(times);
}

std::vector<std::uint64_t> read_counts(const Gpu& g, std::uint32_t bins) {
  std::vector<std::uint64_t> host(bins);
  HT_CUDA(cudaSetDevice(g.device));
  HT_CUDA(cudaDeviceSynchronize());
  HT_CUDA(cudaMemcpy(host.data(), g.d_counts, bins * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  return host;
}

Gpu make_gpu(int device, std::uint32_t bins) {
  Gpu g;
  g.device = device;
  HT_CUDA(cudaSetDevice(device));
  HT_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  HT_CUDA(cudaEventCreate(&g.start));
  HT_CUDA(cudaEventCreate(&g.stop));
  HT_CUDA(cudaMalloc(&g.d_counts, bins * sizeof(std::uint64_t)));
  return g;
}

void print_row(const char* what, double ms, std::uint64_t samples) {
  std::printf("  %-34s %9.3f ms  %8.4f ps/sample  %7.1f GB/s\n", what, ms,
              ms * 1e9 / static_cast<double>(samples), static_cast<double>(samples) / ms / 1e6);
}

int run(const Options& o) {
  std::printf("NCCL_NVLS_ENABLE=%s\n", histtune::nccl::keep_nvls_off());
  if (const int count = histtune::device_count(); count < kGpus)
    throw std::runtime_error("needs 2 GPUs, this machine has " + std::to_string(count));
  const std::uint64_t per_gpu = std::uint64_t{1} << o.log2_n, total = kGpus * per_gpu;
  const std::vector<std::uint8_t> host = random_bytes(total);
  const std::vector<std::uint64_t> want = host_histogram(host, o.bins);

  // GPU 0 holds all the data (the one-GPU run) and its first half is GPU 0's shard.
  std::vector<Gpu> gpus = {make_gpu(0, o.bins), make_gpu(1, o.bins)};
  HT_CUDA(cudaSetDevice(0));
  HT_CUDA(cudaMalloc(&gpus[0].d_samples, total));
  histtune::detail::upload_and_wait(gpus[0].d_samples, host.data(), total);
  HT_CUDA(cudaSetDevice(1));
  HT_CUDA(cudaMalloc(&gpus[1].d_samples, per_gpu));
  histtune::detail::upload_and_wait(gpus[1].d_samples, host.data() + per_gpu, per_gpu);
  ncclComm_t comms[kGpus];
  const int devices[kGpus] = {0, 1};
  if (ncclResult_t r = ncclCommInitAll(comms, kGpus, devices); r != ncclSuccess)
    throw std::runtime_error(std::string("ncclCommInitAll: ") + ncclGetErrorString(r));

  std::vector<Gpu> one = {gpus[0]};
  const double one_ms = time_ms(one, o, [&] {
    HT_CUDA(cudaSetDevice(0));
    return histtune::histogram_direct(gpus[0].d_samples, total, o.bins, gpus[0].d_counts, gpus[0].stream);
  });
  const std::string one_choice = histtune::last_choice().summary();
  const std::vector<std::uint64_t> one_counts = read_counts(gpus[0], o.bins);
  const double local_ms = time_ms(gpus, o, [&] {
    histtune::Status s;
    for (int g = 0; g < kGpus && s.ok(); ++g) {
      HT_CUDA(cudaSetDevice(g));
      s = histtune::histogram_direct(gpus[g].d_samples, per_gpu, o.bins, gpus[g].d_counts, gpus[g].stream);
    }
    return s;
  });
  const std::string shard_choice = histtune::last_choice().summary();
  const histtune::Problem p = histtune::flat_problem(histtune::SampleType::u8,
                                                     histtune::Binning::direct, o.bins, 0);
  std::vector<histtune::nccl::Shard> shards;
  for (int g = 0; g < kGpus; ++g)
    shards.push_back({gpus[g].d_samples, per_gpu, gpus[g].d_counts, comms[g], gpus[g].stream});
  const double two_ms = time_ms(gpus, o, [&] { return histtune::nccl::histogram(p, shards, o.how); });

  std::printf("u8 direct, %u bins, 2^%d samples per GPU, %s, median of %d after %d warm-up\n",
              o.bins, o.log2_n, histtune::nccl::to_string(o.how), o.reps, o.warmup);
  std::printf("  configuration: one GPU %s; per shard %s\n", one_choice.c_str(), shard_choice.c_str());
  print_row("one GPU, all 2^(k+1) samples", one_ms, total);
  print_row("two GPUs, histograms only", local_ms, total);
  print_row("two GPUs, histogram + NCCL", two_ms, total);
  std::printf("  speedup of two GPUs over one: %.2fx (NCCL's part: %.3f ms)\n", one_ms / two_ms,
              two_ms - local_ms);

  bool exact = one_counts == want;
  for (int g = 0; g < kGpus; ++g) {
    std::vector<std::uint64_t> got = read_counts(gpus[g], o.bins);
    const histtune::nccl::BinSlice mine = o.how == Combine::all_reduce
        ? histtune::nccl::BinSlice{0, o.bins} : histtune::nccl::bin_slice(o.bins, g, kGpus);
    exact = exact && std::equal(got.begin() + mine.first, got.begin() + mine.first + mine.count,
                                one_counts.begin() + mine.first);
  }
  std::printf("  exact: %s (two-GPU counts %s the one-GPU histogram of the concatenation, "
              "which %s the host's)\n", exact ? "yes" : "NO", exact ? "equal" : "differ from",
              one_counts == want ? "equals" : "DIFFERS from");
  for (int g = 0; g < kGpus; ++g) ncclCommDestroy(comms[g]);
  return exact ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "histtune_nccl_bench: " << e.what() << "\n";
    return 2;
  }
}
