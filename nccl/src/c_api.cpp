// histtune::nccl's C API: thin wrappers over the C++ calls, status codes and a per-thread message.
#include "histtune/nccl.h"

#include <string>

#include "histtune/nccl.hpp"

namespace {

thread_local std::string t_error;

histtune_status finish(const histtune::Status& s) {
  if (s.ok())
    t_error.clear();
  else
    t_error = s.message();
  return static_cast<histtune_status>(s.code());
}

histtune_status refuse(const std::string& why) {
  return finish(histtune::Status(histtune::StatusCode::invalid_argument, "histtune::nccl: " + why));
}

}  // namespace

extern "C" {

histtune_status histtune_nccl_histogram(int sample_type, int binning, const void* d_samples,
                                        uint64_t n, uint32_t num_bins, double lower, double upper,
                                        const void* d_levels, uint64_t* d_counts, int combine,
                                        ncclComm_t comm, cudaStream_t stream) {
  using namespace histtune;
  // Codes outside the enumerations are refused here: the casts below would name no value.
  if (sample_type < 0 || sample_type > static_cast<int>(SampleType::f64))
    return refuse("unknown sample type code " + std::to_string(sample_type));
  if (binning < 0 || binning > static_cast<int>(Binning::range))
    return refuse("unknown binning code " + std::to_string(binning) +
                  " (direct 0, even 1, range 2)");
  const auto how = static_cast<nccl::Combine>(combine);
  Problem p = flat_problem(static_cast<SampleType>(sample_type), static_cast<Binning>(binning),
                           num_bins, n, lower, upper);
  return finish(nccl::histogram(p, {nccl::Shard{d_samples, n, d_counts, comm, stream, d_levels}},
                                how));
}

histtune_status histtune_nccl_combine_counts(uint64_t* d_counts, uint32_t num_bins, int combine,
                                             ncclComm_t comm, cudaStream_t stream) {
  return finish(histtune::nccl::combine_counts(d_counts, num_bins, comm, stream,
                                               static_cast<histtune::nccl::Combine>(combine)));
}

histtune_status histtune_nccl_bin_slice(uint32_t num_bins, int rank, int ranks, uint32_t* first,
                                        uint32_t* count) {
  if (!first || !count) return refuse("bin_slice: first and count must not be null");
  try {
    const histtune::nccl::BinSlice s = histtune::nccl::bin_slice(num_bins, rank, ranks);
    *first = s.first;
    *count = s.count;
    return finish(histtune::Status());
  } catch (const histtune::Error& e) {
    return finish(histtune::Status(e.code(), e.what()));
  }
}

const char* histtune_nccl_last_error(void) { return t_error.c_str(); }

}  // extern "C"
