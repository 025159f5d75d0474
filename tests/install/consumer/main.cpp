// The README's example: histogram of bytes on the GPU through the installed histtune package.
#include <histtune/histtune.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<std::uint8_t> h_samples(1 << 20);
  for (std::size_t i = 0; i < h_samples.size(); ++i) h_samples[i] = static_cast<std::uint8_t>(i * 7 % 251);
  std::uint8_t* d_samples = nullptr;
  std::uint32_t* d_counts = nullptr;
  if (cudaMalloc(&d_samples, h_samples.size()) != cudaSuccess ||
      cudaMalloc(&d_counts, 256 * sizeof(std::uint32_t)) != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: cudaMalloc failed\n");
    return 3;
  }
  cudaMemcpy(d_samples, h_samples.data(), h_samples.size(), cudaMemcpyHostToDevice);

  histtune::Status s = histtune::histogram_direct(d_samples, h_samples.size(), 256, d_counts);
  if (!s.ok()) {
    std::fprintf(stderr, "histtune: %s\n", s.message().c_str());
    return 1;
  }
  std::vector<std::uint32_t> counts(256);
  cudaMemcpy(counts.data(), d_counts, sizeof(std::uint32_t) * 256, cudaMemcpyDeviceToHost);
  const histtune::Choice used = histtune::last_choice();
  std::printf("configuration %s (lookup: %s)\n", used.config.label().c_str(),
              histtune::to_string(used.level));
  for (int b = 0; b < 8; ++b) std::printf("bin %d: %u\n", b, counts[b]);
  cudaFree(d_samples);
  cudaFree(d_counts);
  return 0;
}
