// A histogram of 2^20 bytes into 256 bins on the GPU, through the installed histtune package.
#include <histtune/histtune.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  const std::size_t n = std::size_t{1} << 20;
  std::vector<std::uint8_t> samples(n);
  for (std::size_t i = 0; i < n; ++i) samples[i] = static_cast<std::uint8_t>(i * 7 % 251);

  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_counts = nullptr;
  if (cudaMalloc(&d_samples, n) != cudaSuccess ||
      cudaMalloc(&d_counts, 256 * sizeof(std::uint32_t)) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 3;
  }
  cudaMemcpy(d_samples, samples.data(), n, cudaMemcpyHostToDevice);

  // Stream-ordered on the default stream; d_counts is overwritten.
  histtune::Status s = histtune::histogram_direct(d_samples, n, 256, d_counts);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::vector<std::uint32_t> counts(256);
  cudaMemcpy(counts.data(), d_counts, 256 * sizeof(std::uint32_t), cudaMemcpyDeviceToHost);

  const histtune::Choice used = histtune::last_choice();  // what ran, and how it was found
  std::printf("configuration %s (lookup: %s)\n", used.config.label().c_str(),
              histtune::to_string(used.level));
  std::uint64_t total = 0;
  for (int b = 0; b < 256; ++b) {
    total += counts[b];
    if (b < 4 || b > 249) std::printf("bin %3d: %u\n", b, counts[b]);
  }
  std::printf("%llu of %zu samples counted\n", static_cast<unsigned long long>(total), n);
  cudaFree(d_samples);
  cudaFree(d_counts);
  return total == n ? 0 : 1;
}
