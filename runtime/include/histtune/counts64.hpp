// 64-bit counts: how a call with uint64 counters is split into calls of the tuned 32-bit path.
//
// The kernels count in uint32, so one launch may put at most 2^32 - 1 samples in a counter. A
// call with 64-bit counts is cut into chunks of at most kCount64Chunk of what it is made of: 1D
// and segmented calls along their samples, batched calls along each row's samples (every row in
// each chunk), multi-channel calls along their rows (whole image rows when pitched). Each chunk
// runs the configuration looked up for its own size (what the kernel actually runs) into a
// temporary uint32 buffer, and templates/counts64.cuh adds that buffer into the uint64 output
// (the first chunk stores, so the output needs no zeroing). Every tuned winner is reused as it
// is.
#pragma once

#include <cstdint>

#include "histtune/jit.hpp"
#include "histtune/problem.hpp"

namespace histtune {

// Samples per chunk: 2^31. A power of two, as the plan's sizes are (a chunk's lookup lands on
// them), a whole number of 16-byte vectors for every sample size (a chunk starts as misaligned
// as d_samples, so each chunk's head and body split as the whole call's would), and below 2^31
// samples no index of a chunk passes a signed 32-bit int, wherever a kernel or the host might
// form one. Its byte offsets pass 2^32 for samples of more than one byte: they are 64-bit.
constexpr std::uint64_t kCount64Chunk = std::uint64_t{1} << 31;
// The most samples a call with 64-bit counts takes: 2^60, so that n x sample bytes (at most 8)
// stays below 2^63 and every byte offset fits a signed 64-bit integer.
constexpr std::uint64_t kMaxSamples64 = std::uint64_t{1} << 60;

// One chunk: samples first .. first + n - 1 of the call.
struct SampleChunk {
  std::uint64_t first = 0;
  std::uint64_t n = 0;
  bool operator==(const SampleChunk& o) const { return first == o.first && n == o.n; }
};

// How many chunks a call of n samples makes: ceil(n / chunk), and 1 for n = 0 (an empty chunk,
// whose counts are zeros: the output is written all the same).
constexpr std::uint64_t count64_chunks(std::uint64_t n, std::uint64_t chunk = kCount64Chunk) {
  return n == 0 ? 1 : n / chunk + (n % chunk != 0);
}

// Chunk i (< count64_chunks(n)): every chunk holds `chunk` samples but the last, which holds
// the rest.
constexpr SampleChunk count64_chunk(std::uint64_t n, std::uint64_t i,
                                    std::uint64_t chunk = kCount64Chunk) {
  const std::uint64_t first = i * chunk;
  const std::uint64_t rest = n > first ? n - first : 0;
  return SampleChunk{first, rest < chunk ? rest : chunk};
}

// How a call with 64-bit counts is cut (the family's dimension above): `extent` units (samples,
// samples per row, or rows), at most `chunk` of them a chunk.
struct Count64Cut {
  std::uint64_t extent = 0;
  std::uint64_t chunk = kCount64Chunk;
};
Count64Cut count64_cut(const Problem& p);
// Chunk i of p as the problem its kernel runs (its n; a batched chunk keeps the whole call's row
// stride, a segmented one counts its offsets from its first sample), and where its samples start,
// in bytes after d_samples.
Problem count64_chunk_problem(const Problem& p, std::uint64_t i);
std::uint64_t count64_chunk_bytes(const Problem& p, std::uint64_t i);

namespace counts64 {
constexpr const char* kTemplate = "counts64.cuh";
constexpr const char* kKernel = "histtune_counts64_add";
// The add kernel for an architecture (no defines).
CompileRequest request(int arch);
}  // namespace counts64

}  // namespace histtune
