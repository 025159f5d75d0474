// The multi-channel entry points: validate, look the configuration up in the default
// dispatcher's database (Dispatcher::explain_multichannel: graded, down to the family's built-in
// default), compile or load and prepare the launch once per (device, problem shape), then launch.
// Stream-ordered, no host sync on the warm path.
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"

namespace histtune {
namespace {

thread_local MultiChannelChoice t_last_choice;

// What the first call of a shape resolves, so that later calls only launch.
struct Prepared {
  MultiChannelChoice choice;
  MultiChannelLaunch launch;
};

class MultiChannelRunner {
 public:
  Status run(const Problem& p, const void* d_samples, std::uint32_t* d_counts, cudaStream_t stream) {
    try {
      // The same checks as the 1D entry points, before anything is launched.
      if (std::string why = check_arguments(p, d_samples, d_counts); !why.empty())
        return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
      const int ordinal = current_device();
      bool capturing = false;
      if (std::string why = check_stream(stream, ordinal, capturing); !why.empty())
        return Status(StatusCode::invalid_argument, "histtune: " + why);
      if (std::string why = check_levels(p, ordinal); !why.empty())
        return Status(StatusCode::invalid_argument, "histtune: " + p.describe() + ": " + why);
      // The rows are in the key: the lookup (nearest shape) and the grid depend on them; so are
      // whether they are pitched and whether the bounds allow 32-bit even binning (other kernel
      // variants), not the pitch or the bounds themselves.
      const auto key = std::make_tuple(ordinal, static_cast<int>(p.sample_type),
                                       static_cast<int>(p.binning), p.num_bins, p.n, p.channels,
                                       p.active_channels, p.pitched(), even_narrow(p));
      const Prepared* ready = nullptr;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = prepared_.find(key); it != prepared_.end()) ready = &it->second;
      }
      if (!ready && capturing)
        return Status(StatusCode::invalid_argument,
                      "histtune: " + p.describe() +
                          ": the first call of a shape compiles and loads its kernel, which a "
                          "stream capture cannot hold; call it once before capturing");
      if (!ready) {
        Prepared fresh;
        const DeviceInfo device = query_device(ordinal);
        // A stored configuration passed the restrictions in the lookup; the default is checked
        // here, since no configuration may fit at all (too many bins for shared memory).
        fresh.choice = default_dispatcher().explain_multichannel(device, p);
        const MultiChannelConfig& c = fresh.choice.config;
        if (std::string why = multichannel::check(c, p, device); !why.empty())
          return Status(StatusCode::invalid_argument,
                        "histtune: " + p.describe() + " cannot run on " + device.name + ": " + why);
        const Kernel k = cache().get(multichannel::request(c, p, device.arch()),
                                     multichannel::kKernel);
        fresh.launch = MultiChannelLaunch(cache(), k, c, p, device);
        log_first_call(p, device, fresh.choice.summary(), fresh.choice.detail,
                       fresh.choice.unverified);
        std::lock_guard<std::mutex> lock(mutex_);
        ready = &prepared_.emplace(key, std::move(fresh)).first->second;  // map nodes are stable
      }
      // The bounds, levels and pitch are not in the key: passed here.
      ready->launch(p, d_samples, d_counts, stream);
      t_last_choice = ready->choice;
      return Status();
    } catch (const Error& e) {
      return Status(e.code(), e.what());
    } catch (const std::exception& e) {
      return Status(StatusCode::internal, e.what());
    }
  }

 private:
  // The default dispatcher's kernel cache: one set of loaded libraries per process, and its
  // database CUBIN store, so a new process loads multi-channel kernels instead of compiling them.
  static KernelCache& cache() { return default_dispatcher().cache(); }

  std::mutex mutex_;
  std::map<std::tuple<int, int, int, std::uint32_t, std::uint64_t, std::uint32_t, std::uint32_t,
                      bool, bool>,
           Prepared>
      prepared_;
};

MultiChannelRunner& runner() {
  static MultiChannelRunner r;
  return r;
}

// The rows of an image: packed (row_pixels 0: the whole input is one image row of `rows`) or
// num_rows image rows of row_pixels, row_pitch_bytes apart.
struct Rows {
  std::uint64_t rows = 0;  // packed; unused for an image
  std::uint64_t row_pixels = 0;
  std::uint64_t num_rows = 0;
  std::uint64_t row_pitch_bytes = 0;
};

Rows packed(std::uint64_t rows) { return Rows{rows, 0, 0, 0}; }
Rows image(std::uint64_t row_pixels, std::uint64_t num_rows, std::uint64_t row_pitch_bytes) {
  return Rows{0, row_pixels, num_rows, row_pitch_bytes};
}

Status run(SampleType t, Binning b, const void* d_samples, const Rows& rows,
           std::uint32_t channels, std::uint32_t active, std::uint32_t num_bins, double lower,
           double upper, std::uint32_t* d_counts, cudaStream_t stream,
           const void* d_levels = nullptr) {
  // row_pixels x num_rows must not wrap before validate() sees n.
  if (rows.num_rows != 0 && rows.row_pixels > kMaxSamples / rows.num_rows)
    return Status(StatusCode::invalid_argument,
                  "histtune: row_pixels = " + std::to_string(rows.row_pixels) + " x num_rows = " +
                      std::to_string(rows.num_rows) +
                      " exceeds 2^32 - 1, the most samples uint32 counters can count without "
                      "overflow");
  Problem p = multichannel_problem(t, channels, active,
                                   rows.row_pixels ? rows.row_pixels * rows.num_rows : rows.rows,
                                   num_bins, b);
  p.row_pixels = rows.row_pixels;
  p.row_pitch_bytes = rows.row_pitch_bytes;
  p.lower = lower;
  p.upper = upper;
  p.d_levels = d_levels;
  return runner().run(p, d_samples, d_counts, stream);
}

}  // namespace

MultiChannelChoice last_multichannel_choice() { return t_last_choice; }

#define HT_MC(T, TAG)                                                                           \
  Status histogram_multichannel_direct(const T* d_samples, std::uint64_t rows,                  \
                                       std::uint32_t channels, std::uint32_t active_channels,   \
                                       std::uint32_t num_bins, std::uint32_t* d_counts,         \
                                       cudaStream_t stream) {                                   \
    return run(SampleType::TAG, Binning::direct, d_samples, packed(rows), channels,             \
               active_channels, num_bins, 0, 0, d_counts, stream);                              \
  }                                                                                             \
  Status histogram_multichannel_even(const T* d_samples, std::uint64_t rows,                    \
                                     std::uint32_t channels, std::uint32_t active_channels,     \
                                     std::uint32_t num_bins, std::int64_t lower,                \
                                     std::int64_t upper, std::uint32_t* d_counts,               \
                                     cudaStream_t stream) {                                     \
    return run(SampleType::TAG, Binning::even, d_samples, packed(rows), channels,               \
               active_channels, num_bins, static_cast<double>(lower),                           \
               static_cast<double>(upper), d_counts, stream);                                   \
  }                                                                                             \
  Status histogram_multichannel_range(const T* d_samples, std::uint64_t rows,                   \
                                      std::uint32_t channels, std::uint32_t active_channels,    \
                                      std::uint32_t num_bins, const T* d_levels,                \
                                      std::uint32_t* d_counts, cudaStream_t stream) {           \
    return run(SampleType::TAG, Binning::range, d_samples, packed(rows), channels,              \
               active_channels, num_bins, 0, 0, d_counts, stream, d_levels);                    \
  }                                                                                             \
  Status histogram_multichannel_direct(const T* d_samples, std::uint64_t row_pixels,            \
                                       std::uint64_t num_rows, std::uint64_t row_pitch_bytes,   \
                                       std::uint32_t channels, std::uint32_t active_channels,   \
                                       std::uint32_t num_bins, std::uint32_t* d_counts,         \
                                       cudaStream_t stream) {                                   \
    return run(SampleType::TAG, Binning::direct, d_samples,                                     \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, 0, 0, d_counts, stream);                                               \
  }                                                                                             \
  Status histogram_multichannel_even(const T* d_samples, std::uint64_t row_pixels,              \
                                     std::uint64_t num_rows, std::uint64_t row_pitch_bytes,     \
                                     std::uint32_t channels, std::uint32_t active_channels,     \
                                     std::uint32_t num_bins, std::int64_t lower,                \
                                     std::int64_t upper, std::uint32_t* d_counts,               \
                                     cudaStream_t stream) {                                     \
    return run(SampleType::TAG, Binning::even, d_samples,                                       \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, static_cast<double>(lower), static_cast<double>(upper), d_counts,      \
               stream);                                                                         \
  }                                                                                             \
  Status histogram_multichannel_range(const T* d_samples, std::uint64_t row_pixels,             \
                                      std::uint64_t num_rows, std::uint64_t row_pitch_bytes,    \
                                      std::uint32_t channels, std::uint32_t active_channels,    \
                                      std::uint32_t num_bins, const T* d_levels,                \
                                      std::uint32_t* d_counts, cudaStream_t stream) {           \
    return run(SampleType::TAG, Binning::range, d_samples,                                      \
               image(row_pixels, num_rows, row_pitch_bytes), channels, active_channels,         \
               num_bins, 0, 0, d_counts, stream, d_levels);                                     \
  }
HT_MC(std::uint8_t, u8)
HT_MC(std::uint16_t, u16)
#undef HT_MC

}  // namespace histtune
