// What a histogram call asks for, independent of how it is computed: the problem key under
// which tuning results are stored and looked up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"

namespace histtune {

enum class SampleType { u8, u16, u32, i32, f32 };
// direct: the sample value is the bin (integer samples; values >= num_bins, and negative
// values, are ignored). even: num_bins equal-width bins over [lower, upper); samples outside,
// and NaN, are ignored.
enum class Binning { direct, even };

const char* to_string(SampleType t);
const char* to_string(Binning b);
std::optional<SampleType> parse_sample_type(const std::string& s);
std::optional<Binning> parse_binning(const std::string& s);
std::size_t sample_bytes(SampleType t);
bool is_float(SampleType t);

// Counts are uint32; n <= 2^32 - 1 means no counter, private or global, can overflow.
constexpr std::uint64_t kMaxSamples = 0xFFFFFFFFull;

struct Problem {
  std::string family = "hist1d";
  SampleType sample_type = SampleType::u8;
  Binning binning = Binning::direct;
  std::uint32_t num_bins = 256;
  std::uint64_t n = 0;
  // Bounds of even binning (not part of the key). Integer samples need integral bounds; both
  // are exact in a double for every supported sample type.
  double lower = 0;
  double upper = 0;
  // Multi-channel problems (family "multichannel"): n rows of `channels` interleaved samples
  // (row-major [n, channels]; RGBA pixels are [pixels, 4]); the first `active_channels` each
  // get a histogram, stored one after another. 1D problems have 1 and 1.
  std::uint32_t channels = 1;
  std::uint32_t active_channels = 1;

  std::uint64_t total_samples() const { return n * channels; }

  db::ProblemRow key() const;
  std::string describe() const;  // "hist1d u8 direct bins=256 n=2^24"
};

// The NVRTC defines of ht_common.cuh for p: HT_SAMPLE_T, HT_BINNING, HT_SAMPLE_IS_FLOAT,
// HT_EVERY_VALUE_A_BIN.
std::vector<std::string> sample_defines(const Problem& p);
// Direct binning whose bins cover every value of the sample type (u8 with 256 bins): no sample
// can miss, so kernels skip the range check (HT_EVERY_VALUE_A_BIN).
bool every_value_a_bin(const Problem& p);

// Checks the problem itself (bins, n, bounds); empty when valid, else the reason.
std::string validate(const Problem& p);

}  // namespace histtune
