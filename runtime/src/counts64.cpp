// 64-bit counts: a call cut into chunks of the tuned 32-bit path, each chunk's uint32 counts
// added into the uint64 output by templates/counts64.cuh (counts64.hpp says why this way).
#include <algorithm>

#include "histtune/counts64.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"
#include "histtune/two_phase.hpp"

namespace histtune {

CompileRequest counts64::request(int arch) {
  return CompileRequest{kTemplate, {}, arch, "counts64"};
}

Count64Cut count64_cut(const Problem& p) {
  if (p.family == Family::multichannel && p.row_pixels != 0)  // whole image rows a chunk
    return {p.n, std::max(p.row_pixels, kCount64Chunk / p.row_pixels * p.row_pixels)};
  return {p.n, kCount64Chunk};
}

Problem count64_chunk_problem(const Problem& p, std::uint64_t i) {
  const Count64Cut cut = count64_cut(p);
  const SampleChunk c = count64_chunk(cut.extent, i, cut.chunk);
  Problem q = p;
  q.n = c.n;
  if (p.family == Family::batched && p.row_stride == 0) q.row_stride = p.n;  // the whole rows'
  if (p.family == Family::segmented) q.offsets_base = p.offsets_base + c.first;
  return q;
}

std::uint64_t count64_chunk_bytes(const Problem& p, std::uint64_t i) {
  const Count64Cut cut = count64_cut(p);
  const std::uint64_t first = count64_chunk(cut.extent, i, cut.chunk).first;
  const std::uint64_t bytes = sample_bytes(p.sample_type);
  if (p.family != Family::multichannel) return first * bytes;
  if (p.row_pixels == 0) return first * p.channels * bytes;
  const std::uint64_t pitch = p.row_pitch_bytes ? p.row_pitch_bytes : p.row_bytes();
  return first / p.row_pixels * pitch;
}

namespace {

// counts (+)= partial over `counters`: stores when `first`, adds otherwise.
void add_chunk(const Kernel& add, const std::uint32_t* partial, std::uint64_t counters, bool first,
               std::uint64_t* counts, cudaStream_t stream) {
  unsigned long long bins = counters;
  unsigned int store = first ? 1u : 0u;
  void* args[] = {&partial, &bins, &store, &counts};
  const unsigned int grid =
      static_cast<unsigned int>(std::min<std::uint64_t>((bins + 255) / 256, 1024));
  HT_CUDA(cudaLaunchKernel(add.func(), dim3(grid), dim3(256), args, 0, stream));
}

}  // namespace

Kernel Dispatcher::counts64_kernel(int ordinal, bool capturing) {
  {
    std::shared_lock<std::shared_mutex> lock(memo_mutex_);
    if (auto it = counts64_kernels_.find(ordinal); it != counts64_kernels_.end()) return it->second;
  }
  if (capturing)
    throw Error(StatusCode::invalid_argument,
                "histtune: first call with 64-bit counts on GPU " + std::to_string(ordinal) +
                    " made during stream capture; it loads a kernel, which capture does not "
                    "allow: make one call outside the capture first");
  const Kernel k = cache_.get(counts64::request(device_info(ordinal).arch()), counts64::kKernel);
  std::unique_lock<std::shared_mutex> lock(memo_mutex_);
  return counts64_kernels_.emplace(ordinal, k).first->second;
}

Status Dispatcher::run(const Problem& p, const void* d_samples, std::uint64_t* d_counts,
                       cudaStream_t stream, const FamilyChoice** used) {
  try {
    if (std::string why = check_arguments64(p, d_samples, d_counts); !why.empty())
      throw refused(p, why);
    bool capturing = false;
    const int ordinal = checked_device(p, stream, capturing);
    // Every chunk but the last has the first one's shape: at most two resolves, and the add
    // kernel, all before anything is launched.
    const Count64Cut cut = count64_cut(p);
    const std::uint64_t chunks = count64_chunks(cut.extent, cut.chunk);
    const Resolved& whole = resolved(ordinal, count64_chunk_problem(p, 0), capturing);
    const Resolved& last = resolved(ordinal, count64_chunk_problem(p, chunks - 1), capturing);
    const Kernel add = counts64_kernel(ordinal, capturing);
    const std::uint64_t counters = family_of(p).counters(p);
    if (counters == 0) {  // no rows: nothing to write
      if (used) *used = &whole.choice;
      return Status();
    }

    const auto* samples = static_cast<const std::uint8_t*>(d_samples);
    auto* partial = static_cast<std::uint32_t*>(
        two_phase::allocate_workspace(counters * sizeof(std::uint32_t), ordinal, stream));
    try {
      for (std::uint64_t i = 0; i < chunks; ++i) {
        const Resolved& r = i + 1 < chunks ? whole : last;
        // 64-bit byte offsets: a chunk of 8-byte samples starts 2^34 bytes after the last.
        (*r.launch)(count64_chunk_problem(p, i), samples + count64_chunk_bytes(p, i), partial,
                    stream);
        add_chunk(add, partial, counters, i == 0, d_counts, stream);
      }
    } catch (...) {
      two_phase::release_workspace(partial, stream, /*quiet=*/true);
      throw;
    }
    two_phase::release_workspace(partial, stream, /*quiet=*/false);
    if (used) *used = &whole.choice;
    return Status();
  } catch (const Error& e) {
    return Status(e.code(), e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::internal, e.what());
  }
}

}  // namespace histtune
