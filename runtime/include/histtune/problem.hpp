// What a histogram call asks for, independent of how it is computed: the problem key under
// which tuning results are stored and looked up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace histtune {
namespace db {
struct ProblemRow;
}

// The kernel families (family.hpp). The database stores a family by its name.
enum class Family { hist1d, multichannel, batched, segmented, weighted, weighted_det, joint };
const char* to_string(Family f);
std::optional<Family> parse_family(const std::string& s);

// The enumerators' values are the C API's and Python's type codes: new types go at the end. The
// database stores a type by its name (to_string). f16 (IEEE binary16) and bf16 (bfloat16) are
// 16-bit patterns in memory; their bin rules run in float on the converted sample, and NaN and
// infinities are never counted. i8, i16 and i64 are two's complement. f64 bins in double
// arithmetic, and its NaN and infinities are never counted either.
enum class SampleType { u8, u16, u32, i32, f32, i8, i16, f16, bf16, i64, u64, f64 };
// Every sample type, in the enumerators' order.
constexpr SampleType kSampleTypes[] = {
    SampleType::u8,  SampleType::u16, SampleType::u32,  SampleType::i32,
    SampleType::f32, SampleType::i8,  SampleType::i16,  SampleType::f16,
    SampleType::bf16, SampleType::i64, SampleType::u64, SampleType::f64};
// direct: the sample value is the bin (integer samples; values >= num_bins, and negative
// values, are ignored). even: num_bins equal-width bins over [lower, upper); samples outside,
// and NaN, are ignored. range: num_bins + 1 ascending levels given by the caller (CUB's
// HistogramRange): bin i counts levels[i] <= s < levels[i + 1]; samples outside
// [levels[0], levels[num_bins]), and NaN, are ignored.
enum class Binning { direct, even, range };

const char* to_string(SampleType t);
const char* to_string(Binning b);
std::optional<SampleType> parse_sample_type(const std::string& s);
std::optional<Binning> parse_binning(const std::string& s);
std::size_t sample_bytes(SampleType t);
// f32, f16, bf16 and f64: even binning in floating point (double for f64, float for the others),
// no direct binning.
bool is_float(SampleType t);
// i64 and u64: 64-bit integers, whose even bounds a double cannot always hold (Problem's
// lower_bits and upper_bits hold them exactly).
bool is_int64(SampleType t);
// f16 and bf16: 16-bit patterns converted to float before binning (HT_SAMPLE_HALF).
bool is_half(SampleType t);
// How many distinct values the type holds, where that is at most 2^16 (u8, i8: 256; u16, i16:
// 65536; f16: 63489 and bf16: 65281, +-0 one value, infinities included, NaN excluded); else 0.
// Range binning's num_bins + 1 strictly ascending levels must exist among them.
std::uint32_t distinct_values(SampleType t);

// The weights of a weighted problem (families "weighted" and "weighted_det"): each sample adds
// its weight to its bin instead of 1. f32 weights sum into float bins, f64 into double bins, i32
// and i64 into 64-bit signed integer bins (bin_bytes()). Unweighted problems have none. The
// enumerators' values are the C API's and Python's weight codes, and a weighted problem's key
// stores them in the channels column (Problem::key()).
enum class WeightType { none, f32, f64, i32, i64 };
const char* to_string(WeightType w);
std::optional<WeightType> parse_weight_type(const std::string& s);
std::size_t weight_bytes(WeightType w);  // 0 for none

// Counts are uint32; n <= 2^32 - 1 means no counter, private or global, can overflow.
constexpr std::uint64_t kMaxSamples = 0xFFFFFFFFull;

// Joint histograms (family "joint", joint.hpp): up to this many dimensions, and fewer joint bins
// (the product of every dimension's) than 2^31, the kernels' 32-bit bin index with its sink.
constexpr std::uint32_t kMaxJointDims = 4;
constexpr std::uint64_t kMaxJointBins = 0x7FFFFFFFull;

// Each dimension's binning of a joint problem: call arguments like the even bounds (the key holds
// the dimensions and the product of their bins only). Dimension d bins exactly as a 1D call of
// bins[d] bins over [lower[d], upper[d]) (even) or of bins[d] + 1 levels d_levels[d] (range).
// d_columns: the separate form's arrays, one per dimension, n samples each; all null for the
// interleaved form, whose d_samples is row-major [n, dims].
struct JointBins {
  std::uint32_t bins[kMaxJointDims] = {};
  double lower[kMaxJointDims] = {};
  double upper[kMaxJointDims] = {};
  const void* d_levels[kMaxJointDims] = {};
  const void* d_columns[kMaxJointDims] = {};
};

struct Problem {
  Family family = Family::hist1d;
  SampleType sample_type = SampleType::u8;
  Binning binning = Binning::direct;
  std::uint32_t num_bins = 256;
  std::uint64_t n = 0;
  // Bounds of even binning (not part of the key). Integer samples need integral bounds, exact
  // in a double for every sample type up to 32 bits.
  double lower = 0;
  double upper = 0;
  // i64 and u64 even binning: the bounds exactly, as 64-bit patterns (two's complement for
  // i64), of which lower and upper are the nearest doubles. flat_problem derives them from lower
  // and upper (a double beyond the type saturates: 2^63 is i64's largest value); set_even_bounds
  // sets all four from exact integers. Other types ignore them.
  std::uint64_t lower_bits = 0;
  std::uint64_t upper_bits = 0;
  // Multi-channel problems (family "multichannel"): n rows of `channels` interleaved samples
  // (row-major [n, channels]; RGBA pixels are [pixels, 4]); the first `active_channels` each
  // get a histogram, stored one after another. 1D problems have 1 and 1.
  std::uint32_t channels = 1;
  std::uint32_t active_channels = 1;
  // Row pitch of multi-channel input (CUB's num_row_pixels and row_stride_bytes): the n rows are
  // image rows of `row_pixels` rows each (n a multiple of it), image row r starting
  // r x row_pitch_bytes bytes after the first; the bytes between one image row's last sample and
  // the next one's first are never read. row_pixels 0: the input is one packed image row.
  // row_pitch_bytes 0: packed, row_pixels x channels x sample bytes, which is also what a pitch
  // of exactly that means. Call arguments, not part of the key (like the even bounds): a pitched
  // image runs the configuration tuned for the packed one. 1D problems have 0 and 0.
  std::uint64_t row_pixels = 0;
  std::uint64_t row_pitch_bytes = 0;
  // Range binning: num_bins + 1 strictly ascending levels of the sample's type (float for f32,
  // 16-bit patterns for f16 and bf16, compared as floats) in device memory, read by the kernel (not part of the key, like the even bounds). The tuner
  // draws them over [lower, upper] (see tuner::make_levels).
  const void* d_levels = nullptr;
  // Rows of histograms (families "batched" and "segmented"): `rows` histograms of num_bins each,
  // row r's at r x num_bins of the output. Batched: each row holds n samples, row r starting
  // r x row_stride samples after the first (row_stride 0: n, a packed [rows, n] tensor; at least
  // n otherwise). Segmented: n samples in all, row r counts samples d_offsets[r] ..
  // d_offsets[r + 1] - 1 (rows + 1 offsets in device memory, CSR offsets). rows is part of the
  // key; row_stride and d_offsets are call arguments (like the even bounds). Other families: 1,
  // 0 and null.
  std::uint64_t rows = 1;
  std::uint64_t row_stride = 0;
  const std::int64_t* d_offsets = nullptr;
  // Segmented: the sample the offsets count from (a chunk of a call with 64-bit counts, whose n
  // samples start there; counts64.hpp). A call argument; 0 for whole calls.
  std::uint64_t offsets_base = 0;
  // Weighted problems of rows (weighted.hpp's WeightedForm): the rows are CSR segments (d_offsets,
  // n samples in all, as family "segmented"'s) rather than dense rows of n. Part of the key.
  // Other families: false (family "segmented" is its own family).
  bool segments = false;
  // Weighted problems (families "weighted" and "weighted_det"): the weights' type (part of the
  // key) and, as call arguments like the even bounds, weight_count() weights in device memory
  // laid out as the samples (sample i adds d_weights[i]; rows: the samples' row stride; pixels of
  // channels: one weight per pixel, d_weights[i] for every channel of pixel i) and, for the
  // deterministic family, the caller's bound on |weight| that sets the fixed-point scale (0:
  // measured by a pass over the weights; weighted.hpp). Other families: none, null and 0.
  WeightType weight_type = WeightType::none;
  const void* d_weights = nullptr;
  double weight_bound = 0;
  // Joint problems (family "joint"): `channels` holds the dimensions (part of the key), num_bins
  // the product of their bins (the key's), and `joint` each dimension's binning and, in the
  // separate form, its array. lower and upper are dimension 0's bounds (the span the tuner draws
  // every dimension's samples over). Other families: empty.
  JointBins joint;

  // The samples read: n x channels (1D, multi-channel), n x rows (batched), n (segmented).
  std::uint64_t total_samples() const;
  // The weights read: total_samples() / channels (a weight a pixel of channels), 0 unweighted.
  std::uint64_t weight_count() const;
  // The bytes a call reads at least (its read floor): the samples, and the weights if any.
  std::uint64_t input_bytes() const;
  // Bytes of an image row's samples: row_pixels x channels x sample bytes.
  std::uint64_t row_bytes() const;
  // Image rows: n / row_pixels, or 1 when row_pixels is 0 and n > 0.
  std::uint64_t image_rows() const;
  // Whether the image rows are apart by more than their bytes: only then does a kernel read
  // them as pitched (a pitch of row_bytes() is packed).
  bool pitched() const;

  db::ProblemRow key() const;
  std::string describe() const;  // "hist1d u8 direct bins=256 n=2^24"
};

// A 1D problem: n samples of type t into num_bins bins (lower and upper bound even and range
// binning). The public API, the default plan and the tests build problems through these two.
Problem flat_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t n,
                     double lower = 0, double upper = 0);
// i64 and u64 problems: lower_bits and upper_bits from lower and upper (saturating at the type's
// ends); what flat_problem does, for code that sets the doubles itself. Other types: nothing.
void bounds_from_doubles(Problem& p);
// Even bounds of an i64 or u64 problem, exactly: lower_bits and upper_bits, and lower and upper
// as their nearest doubles.
void set_even_bounds(Problem& p, std::int64_t lower, std::int64_t upper);
void set_even_bounds(Problem& p, std::uint64_t lower, std::uint64_t upper);
// i64 and u64 even binning: upper - lower of the exact bounds (1 .. 2^64 - 1; 0 unless upper is
// above lower in the type's order).
std::uint64_t even_range64(const Problem& p);
// A multi-channel problem: `rows` rows of `channels` interleaved samples, the first `active` of
// them counted ("value is bin" unless b says otherwise; even bounds, pitch and levels are set by
// the caller where it needs them).
Problem multichannel_problem(SampleType t, std::uint32_t channels, std::uint32_t active,
                             std::uint64_t rows, std::uint32_t num_bins = 256,
                             Binning b = Binning::direct);

// A batched problem: `rows` rows of n samples each, row_stride samples apart (0: packed).
Problem batched_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t rows,
                        std::uint64_t n, std::uint64_t row_stride = 0);
// A weighted problem: n samples of type t, each adding its weight of type w to its bin;
// deterministic picks the family "weighted_det" (bit-identical sums, weighted.hpp).
Problem weighted_problem(SampleType t, WeightType w, Binning b, std::uint32_t num_bins,
                         std::uint64_t n, bool deterministic = false, double lower = 0,
                         double upper = 0);
// Bytes of one output bin: 4 (uint32 counts, float sums of f32 weights) or 8 (double sums of f64
// weights, int64 sums of integer weights).
std::size_t bin_bytes(const Problem& p);

// A joint problem of `dims` dimensions over n samples (tuples): bins[d] bins in dimension d, each
// over [lower, upper) (even; range: the levels are set by the caller), interleaved [n, dims].
// num_bins is the product (saturating at 2^32 - 1; validate() refuses beyond kMaxJointBins).
Problem joint_problem(SampleType t, Binning b, std::uint32_t dims, const std::uint32_t* bins,
                      std::uint64_t n, double lower = 0, double upper = 0);
// Dimension d of a joint problem as the 1D problem whose binning it shares (its bins, bounds and
// levels; n samples).
Problem joint_dim(const Problem& p, std::uint32_t d);
// A joint problem's bins from its key alone (the dimensions and their product): the product's
// D-th root in each dimension where it is a whole number, else the product in dimension 0 and 1 in
// the others.
void split_joint_bins(Problem& p);
// Each dimension's bounds: [p.lower, p.upper) when `given`, else [0, its bins) as a 1D problem's
// default (lower and upper then dimension 0's, the span the tuner draws values over).
void set_joint_bounds(Problem& p, bool given);

// A segmented problem: n samples cut into `rows` segments by rows + 1 offsets (set d_offsets).
Problem segmented_problem(SampleType t, Binning b, std::uint32_t num_bins, std::uint64_t rows,
                          std::uint64_t n);

// p's samples as one 1D stream of p.total_samples() samples (a multi-channel problem's rows
// drawn as flat samples, so that each channel follows their distribution); a 1D problem is its
// own. What the tuner and `compare` draw inputs for.
Problem as_one_stream(const Problem& p);

// How a range-binning kernel reads the levels (HT_RANGE_MODE), derived from the problem alone so
// that the kernel source of a problem does not depend on the device:
//   0: binary search in global memory: the joint family's (one search per dimension), and levels
//      beyond kRangeStageMaxBytes of fewer than kRangeIndexFromBins bins, whose counters alone
//      can fill a block's shared memory (T4: 64 KiB for 16,383 bins and the sink): an index there
//      would leave a shape no valid default;
//   1: the block stages the levels in shared memory, then searches there;
//   2: u8 and i8 samples: the block builds a 256-entry byte -> bin table in shared memory (one
//      load per sample instead of a search; i8 indexes it by the sample's byte);
//   3: from kRangeIndexFromBins bins: the block stages every 2^range_index_shift-th level (at
//      most kRangeIndexMaxBytes of them) in shared memory; a search there picks the window of
//      2^shift levels that a search in global memory then covers (for 2^20 f32 levels, 11 steps
//      in shared memory and 9 in global memory where a plain search took 20 there).
// Not a tunable: 2 beats a search for every u8 problem, and staging is cheap below the limit.
// The index is smaller than the staging limit: with 16 KB the partition pass of 2^20 bins lost
// its bulk prefetch at two blocks an SM (shared memory).
constexpr std::size_t kRangeStageMaxBytes = 16384;
constexpr std::size_t kRangeIndexMaxBytes = 8192;
constexpr std::uint32_t kRangeIndexFromBins = 16384;
int range_mode(const Problem& p);
// Mode 3's window: the least shift with ceil(num_bins / 2^shift) levels within
// kRangeIndexMaxBytes (the kernel works it out alike from HT_RANGE_INDEX_BYTES).
int range_index_shift(const Problem& p);
// Shared memory the range binning adds to a block (0 for other binnings), after the counters.
std::size_t range_smem_bytes(const Problem& p);

// Even binning of integer samples in 32-bit arithmetic (HT_EVEN_NARROW), where
// x = (range - 1) * num_bins < 2^32: the bin floor(d * num_bins / range) of an offset d in
// [0, range) is then, exactly, 1: one 32-bit multiply and one multiply-high by
// m = ceil(2^32 / range), when x * (m * range - 2^32) < 2^32 too; 2: else a 64-bit reciprocal's
// two multiplies (ht_common.cuh's ht_div_narrow). 0: the kernel divides in 64 bits, several
// times the instructions per sample (u8 64 bins 2^24 on the H100: 38.1 us that way, 18.9 us in
// 32 bits). Derived from the call's bounds, not the shape: the dispatcher compiles for the
// bounds it is called with.
int even_narrow(const Problem& p);

// The NVRTC defines of ht_common.cuh for p: HT_SAMPLE_T, HT_BINNING, HT_SAMPLE_IS_FLOAT,
// HT_EVERY_VALUE_A_BIN, for range binning HT_RANGE_MODE, where even_narrow(p) HT_EVEN_NARROW
// and for f16 and bf16 samples HT_SAMPLE_HALF (1 and 2). i64, u64 and f64 samples are long long,
// unsigned long long and double (ht_common.cuh tells 8-byte samples by their size).
std::vector<std::string> sample_defines(const Problem& p);
// Direct binning whose bins cover every value of the sample type (u8 with 256 bins): no sample
// can miss, so kernels skip the range check (HT_EVERY_VALUE_A_BIN).
bool every_value_a_bin(const Problem& p);

// The part of a problem that its kernel is compiled and prepared for: family, sample type,
// binning, bins, n, channels, active channels, whether the rows are pitched, even_narrow() and
// the rows of a batched or segmented problem, the weights' type and a weighted problem's segments.
// Calls with equal keys share one prepared launch (the dispatcher's memo); everything else a
// call carries (the even bounds, the levels, the pitch) is an argument of each launch. Derived
// here alone, so that a property that changes the kernel is added to the one key.
using ShapeKey = std::tuple<Family, SampleType, Binning, std::uint32_t, std::uint64_t,
                            std::uint32_t, std::uint32_t, bool, int, std::uint64_t, WeightType,
                            bool>;
ShapeKey shape_key(const Problem& p);

// Checks the problem itself (bins, n, its family's checks of channels and row pitch, then the
// binning: even bounds must be finite numbers the kernels can bin in); empty when valid, else
// the reason.
std::string validate(const Problem& p);
// The row pitch's checks, shared by the families that take pitched rows; empty when valid.
std::string validate_pitch(const Problem& p);
// The checks of a problem of rows (batched, segmented): one channel, no pitch, rows and
// row_stride; empty when valid. The pointers are checked with the call's (check_arguments).
std::string validate_rows(const Problem& p);
// Whether its rows are CSR segments, read through d_offsets (family segmented, weighted segments).
inline bool reads_offsets(const Problem& p) { return p.family == Family::segmented || p.segments; }
// Whether the kernels keep a sink word after the bins for samples in no bin: unless every value is
// a bin. The one rule behind hist1d's HT_SINK (shared-memory copies) and the row strides.
inline bool needs_sink(const Problem& p) { return !every_value_a_bin(p); }

}  // namespace histtune
