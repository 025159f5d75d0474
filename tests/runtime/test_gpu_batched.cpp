// On the GPU: the batched and segmented families, a sample of their space bit-exact against the
// host reference for every sample type and binning over odd shapes (one row, one sample, rows
// not a multiple of the vector width, misaligned row starts through row_stride, empty, unordered
// and out-of-range segments) and every distribution the tuner draws; and the public API, its
// refusals (output untouched) and issue 25's target shapes.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "gpu.hpp"
#include "sample_values.hpp"
#include "sampled_kernels.hpp"
#include "histtune/batched.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using tuner::Distribution;

namespace {

struct Case {
  const char* name;
  SampleType type;
  Binning binning;
  std::uint32_t bins;
  double lower = 0, upper = 0;  // even bounds; range: 0, 0 for the tuner's default span
};

const Case kCases[] = {
    {"u8_direct_256", SampleType::u8, Binning::direct, 256},
    {"u8_even_64", SampleType::u8, Binning::even, 64, 0, 256},
    {"u16_direct_1000", SampleType::u16, Binning::direct, 1000},
    {"u32_direct_20000", SampleType::u32, Binning::direct, 20000},  // atomics on the output too
    {"i32_even_256", SampleType::i32, Binning::even, 256, -1000, 1000},
    {"f32_even_64", SampleType::f32, Binning::even, 64, -4, 4},
    {"f32_range_1024", SampleType::f32, Binning::range, 1024},
    {"u16_range_5000", SampleType::u16, Binning::range, 5000},
    {"i8_range_100", SampleType::i8, Binning::range, 100},
    {"i16_even_100", SampleType::i16, Binning::even, 100, -32768, 32768},
    {"f16_even_256", SampleType::f16, Binning::even, 256, -1, 1},
    {"bf16_range_300", SampleType::bf16, Binning::range, 300},
};

// The 8-byte samples (i64, u64, f64): two to a 16-byte vector, even in 32-bit arithmetic, with
// 128-bit products and in double, range levels staged and searched in global memory.
const Case k64BitCases[] = {
    {"i64_direct_256", SampleType::i64, Binning::direct, 256},
    {"i64_even_256", SampleType::i64, Binning::even, 256, -1000, 1000},
    {"i64_even_whole_range_1000", SampleType::i64, Binning::even, 1000, -0x1p63, 0x1p63},
    {"u64_even_whole_range_7", SampleType::u64, Binning::even, 7, 0, 0x1p64},
    {"u64_direct_4096", SampleType::u64, Binning::direct, 4096},
    {"i64_range_1000", SampleType::i64, Binning::range, 1000},
    {"f64_even_256", SampleType::f64, Binning::even, 256, -1, 1},
    {"f64_range_5000", SampleType::f64, Binning::range, 5000},
};

// One shape: rows, samples per row (batched) or in all (segmented), the row stride (0: packed),
// the samples skipped before the first row (a misaligned start), and for segmented problems how
// the offsets are cut.
enum class Cuts { random, with_empty, wild };
struct Shape {
  std::uint64_t rows, n, stride, skip;
  Cuts cuts = Cuts::random;
};

const Shape kDense[] = {{1, 1, 0, 0},    {1, 100003, 0, 1}, {3, 1000, 1003, 1},
                        {7, 4097, 0, 0}, {64, 33, 35, 3},   {5, 0, 0, 0}};
const Shape kSegments[] = {{1, 1, 0, 0, Cuts::random},        {37, 100003, 0, 1, Cuts::random},
                           {64, 5000, 0, 0, Cuts::with_empty}, {6, 1000, 0, 3, Cuts::wild},
                           {3, 0, 0, 0, Cuts::random}};

Problem problem_of(const Case& k, Family f, const Shape& s) {
  Problem p = f == Family::batched ? batched_problem(k.type, k.binning, k.bins, s.rows, s.n, s.stride)
                                   : segmented_problem(k.type, k.binning, k.bins, s.rows, s.n);
  p.lower = k.lower;
  p.upper = k.upper;
  bounds_from_doubles(p);  // i64 and u64: the exact bounds
  if (k.binning == Binning::range) tuner::set_default_level_span(p);
  return p;
}

std::vector<std::int64_t> offsets_of(const Problem& p, Cuts cuts) {
  std::vector<std::int64_t> o = tuner::make_offsets(p, 5);
  const auto n = static_cast<std::int64_t>(p.n);
  if (cuts == Cuts::with_empty)  // every third segment empty
    for (std::size_t r = 1; r + 1 < o.size(); r += 3) o[r + 1] = o[r];
  if (cuts == Cuts::wild && o.size() >= 7) {  // what the kernel must survive: clamped, not read
    o[1] = -5;        // below 0
    o[2] = n + 100;   // beyond n
    o[3] = n / 2;     // before the one above: an empty segment
    o[4] = n / 4;     // out of order
  }
  return o;
}

// One shape's inputs on the device and its expected counts, drawn once for every configuration.
struct Input {
  Problem p;
  std::string name;
  std::vector<std::uint8_t> levels;
  std::vector<std::int64_t> offsets;
  std::unique_ptr<tuner::DeviceInputs> device;
  std::vector<std::uint32_t> expect;
  const void* samples = nullptr;  // the first row's sample on the device
};

std::unique_ptr<Input> input_of(const Case& k, Family f, const Shape& s, Distribution dist) {
  auto in = std::make_unique<Input>();
  in->p = problem_of(k, f, s);
  Problem& p = in->p;
  const std::uint64_t stride = s.stride ? s.stride : s.n;
  const std::uint64_t total =
      f == Family::segmented ? s.n : (s.rows == 0 || s.n == 0 ? 0 : (s.rows - 1) * stride + s.n);
  Problem flat = as_one_stream(p);
  flat.n = total + s.skip;
  const auto host = tuner::make_samples(flat, 1000 + s.rows, dist);
  if (p.binning == Binning::range) in->levels = tuner::make_levels(p);
  if (f == Family::segmented) in->offsets = offsets_of(p, s.cuts);
  Problem sized = flat;
  sized.num_bins = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, p.rows * p.num_bins));
  in->device = std::make_unique<tuner::DeviceInputs>(sized, host, 0, in->levels, in->offsets);
  p.d_levels = in->device->levels();
  p.d_offsets = in->device->offsets();
  const std::size_t skip_bytes = s.skip * sample_bytes(p.sample_type);
  in->samples = static_cast<const std::uint8_t*>(in->device->samples(0)) + skip_bytes;
  in->expect = reference_histogram(p, host.data() + skip_bytes,
                                   in->levels.empty() ? nullptr : in->levels.data(),
                                   in->offsets.empty() ? nullptr : in->offsets.data());
  in->name = p.describe() + " skip " + std::to_string(s.skip) + " " + tuner::to_string(dist);
  return in;
}

class BatchedEveryConfiguration
    : public ::testing::TestWithParam<std::tuple<Case, Family>> {};

// Every configuration of every stride-th distinct kernel (HT_GPU_STRIDE; 17 by default), on
// every shape and distribution.
template <class F>
void run_sample(const Case& k, const std::vector<std::unique_ptr<Input>>& inputs) {
  const DeviceInfo d = query_device(current_device());
  const Family f = F::kId;
  const Shape valid_for{64, 100003, 0, 0};
  std::vector<typename F::Config> space;
  for (const BatchedConfig& c : batched::space()) space.push_back(typename F::Config{c});
  const auto sample = test::sample_kernels<F>(space, problem_of(k, f, valid_for),
                                              problem_of(k, f, valid_for), d, test::gpu_stride(17));
  const auto& [configs, req_of, reqs] = sample;
  ASSERT_FALSE(configs.empty());
  tuner::CompilePool pool(reqs, 0);
  KernelCache cache;
  int ran = 0, wrong = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Kernel kern = cache.load(reqs[req_of[i]], pool.get(req_of[i]), batched::kKernel);
    // A third of the inputs each, in turn: every input meets many configurations.
    for (std::size_t j = i % 3; j < inputs.size(); j += 3) {
      const auto& in = inputs[j];
      if (!batched::check(configs[i], in->p, d).holds()) continue;
      const BatchedLaunch launch(cache, kern, configs[i], in->p, d);
      const std::uint64_t counters = in->p.rows * in->p.num_bins;
      HT_CUDA(cudaMemset(in->device->counts(), 0xFF, std::max<std::uint64_t>(counters, 1) * 4));
      launch(in->p, in->samples, in->device->counts(), nullptr);
      HT_CUDA(cudaDeviceSynchronize());
      if (in->device->read_counts(static_cast<std::uint32_t>(counters)) != in->expect &&
          ++wrong <= 5)
        ADD_FAILURE() << configs[i].label() << " wrong for " << in->name;
      ++ran;
    }
  }
  EXPECT_EQ(wrong, 0) << k.name;
  // Over 100 launches at the default stride; a sparser HT_GPU_STRIDE samples fewer kernels.
  EXPECT_GT(ran, test::gpu_stride(17) > 17 ? 20 : 100) << k.name;
  ::testing::Test::RecordProperty("launches", ran);
}

}  // namespace

TEST_P(BatchedEveryConfiguration, BitExact) {
  HT_REQUIRE_GPU();
  const auto& [k, f] = GetParam();
  std::vector<std::unique_ptr<Input>> inputs;
  for (const Distribution dist : {Distribution::uniform, Distribution::skewed, Distribution::constant,
                                  Distribution::runs, Distribution::mixed}) {
    if (f == Family::batched)
      for (const Shape& s : kDense) inputs.push_back(input_of(k, f, s, dist));
    else
      for (const Shape& s : kSegments) inputs.push_back(input_of(k, f, s, dist));
  }
  if (f == Family::batched)
    run_sample<BatchedFamily>(k, inputs);
  else
    run_sample<SegmentedFamily>(k, inputs);
}

namespace {
std::string case_name(const ::testing::TestParamInfo<std::tuple<Case, Family>>& info) {
  return std::string(std::get<0>(info.param).name) + "_" + to_string(std::get<1>(info.param));
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(TypesAndBinnings, BatchedEveryConfiguration,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Family::batched, Family::segmented)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(SixtyFourBit, BatchedEveryConfiguration,
                         ::testing::Combine(::testing::ValuesIn(k64BitCases),
                                            ::testing::Values(Family::batched, Family::segmented)),
                         case_name);

namespace {

// Device memory that frees itself.
template <class T>
struct DeviceArray {
  T* ptr = nullptr;
  explicit DeviceArray(std::size_t count) {
    HT_CUDA(cudaMalloc(&ptr, std::max<std::size_t>(count, 1) * sizeof(T)));
  }
  DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    HT_CUDA(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(ptr); }
  std::vector<T> read(std::size_t count) const {
    std::vector<T> h(count);
    HT_CUDA(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

template <class T>
std::vector<T> samples_of(const Problem& p, std::uint64_t total, Distribution dist) {
  Problem flat = as_one_stream(p);
  flat.n = total;
  const auto bytes = tuner::make_samples(flat, 42, dist);
  std::vector<T> out(total);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace

TEST(BatchedApi, DenseAndSegmentedCallsAreExact) {
  HT_REQUIRE_GPU();
  {  // [300, 5000] u8 in rows 5003 apart, direct 256
    Problem p = batched_problem(SampleType::u8, Binning::direct, 256, 300, 5000, 5003);
    const auto host = samples_of<std::uint8_t>(p, 299 * 5003 + 5000, Distribution::runs);
    DeviceArray<std::uint8_t> d(host);
    DeviceArray<std::uint32_t> counts(300 * 256);
    ASSERT_TRUE(histogram_batched_direct(d.ptr, 300, 5000, 5003, 256, counts.ptr).ok());
    EXPECT_EQ(counts.read(300 * 256), reference_histogram(p, host.data()));
    EXPECT_EQ(last_batched_choice().config.label().rfind("rows.", 0), 0u);
  }
  {  // [1000, 1024] f32, 64 even bins over [-4, 4)
    Problem p = batched_problem(SampleType::f32, Binning::even, 64, 1000, 1024);
    p.lower = -4;
    p.upper = 4;
    const auto host = samples_of<float>(p, 1000 * 1024, Distribution::mixed);
    DeviceArray<float> d(host);
    DeviceArray<std::uint32_t> counts(1000 * 64);
    ASSERT_TRUE(histogram_batched_even(d.ptr, 1000, 1024, 0, 64, -4.0f, 4.0f, counts.ptr).ok());
    EXPECT_EQ(counts.read(1000 * 64), reference_histogram(p, host.data()));
  }
  {  // 1000 segments of 2^20 u32 samples, direct 256, through the C API
    Problem p = segmented_problem(SampleType::u32, Binning::direct, 256, 1000, 1 << 20);
    const auto host = samples_of<std::uint32_t>(p, 1 << 20, Distribution::skewed);
    const auto offsets = tuner::make_offsets(p);
    DeviceArray<std::uint32_t> d(host);
    DeviceArray<std::int64_t> d_offsets(offsets);
    DeviceArray<std::uint32_t> counts(1000 * 256);
    ASSERT_EQ(histtune_histogram_segmented_direct_u32(d.ptr, 1 << 20, 1000, d_offsets.ptr, 256,
                                                      counts.ptr, nullptr),
              HISTTUNE_OK)
        << histtune_last_error();
    EXPECT_EQ(counts.read(1000 * 256), reference_histogram(p, host.data(), nullptr, offsets.data()));
    EXPECT_EQ(std::string(histtune_last_configuration()).rfind("seg.", 0), 0u)
        << histtune_last_configuration();
  }
}

TEST(BatchedApi, RefusalsLeaveTheOutputUntouchedAndEmptyCallsAreExact) {
  HT_REQUIRE_GPU();
  const std::vector<std::uint8_t> host(4 * 100, 7);
  DeviceArray<std::uint8_t> d(host);
  DeviceArray<std::uint32_t> counts(4 * 16);
  HT_CUDA(cudaMemset(counts.ptr, 0xAB, 4 * 16 * 4));
  const std::vector<std::uint32_t> untouched(4 * 16, 0xABABABABu);
  EXPECT_EQ(histogram_batched_direct(d.ptr, 4, 100, 99, 16, counts.ptr).code(),
            StatusCode::invalid_argument);
  EXPECT_EQ(histogram_batched_direct(d.ptr, 0, 100, 0, 16, counts.ptr).code(),
            StatusCode::invalid_argument);
  EXPECT_EQ(histogram_segmented_direct(d.ptr, 400, 4, nullptr, 16, counts.ptr).code(),
            StatusCode::invalid_argument);
  const std::vector<std::int64_t> host_offsets = {0, 100, 200, 300, 400};
  const Status pageable = histogram_segmented_direct(d.ptr, 400, 4, host_offsets.data(), 16, counts.ptr);
  EXPECT_EQ(pageable.code(), StatusCode::invalid_argument);
  EXPECT_NE(pageable.message().find("copy the offsets to device memory"), std::string::npos)
      << pageable.message();
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(counts.read(4 * 16), untouched);
  // No rows and no samples: nothing is written.
  ASSERT_TRUE(histogram_batched_direct(d.ptr, 0, 0, 0, 16, counts.ptr).ok());
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(counts.read(4 * 16), untouched);
  // Rows of no samples: every row's counts are zeroes.
  ASSERT_TRUE(histogram_batched_direct(d.ptr, 4, 0, 0, 16, counts.ptr).ok());
  EXPECT_EQ(counts.read(4 * 16), std::vector<std::uint32_t>(4 * 16, 0));
  // Segments over rows of 100: row r counts 100 sevens.
  DeviceArray<std::int64_t> d_offsets(host_offsets);
  ASSERT_TRUE(histogram_segmented_direct(d.ptr, 400, 4, d_offsets.ptr, 16, counts.ptr).ok());
  std::vector<std::uint32_t> sevens(4 * 16, 0);
  for (int r = 0; r < 4; ++r) sevens[r * 16 + 7] = 100;
  EXPECT_EQ(counts.read(4 * 16), sevens);
}

// The three targets of issue 25 at full size, through the public API, exact.
TEST(BatchedApi, IssueTargetShapesAreExact) {
  HT_REQUIRE_GPU();
  {
    Problem p = batched_problem(SampleType::u8, Binning::direct, 256, 4096, 65536);
    const auto host = samples_of<std::uint8_t>(p, 4096ull * 65536, Distribution::uniform);
    DeviceArray<std::uint8_t> d(host);
    DeviceArray<std::uint32_t> counts(4096 * 256);
    ASSERT_TRUE(histogram_batched_direct(d.ptr, 4096, 65536, 0, 256, counts.ptr).ok());
    EXPECT_EQ(counts.read(4096 * 256), reference_histogram(p, host.data()));
  }
  {
    Problem p = batched_problem(SampleType::f32, Binning::even, 64, 65536, 1024);
    p.lower = -4;
    p.upper = 4;
    const auto host = samples_of<float>(p, 65536ull * 1024, Distribution::uniform);
    DeviceArray<float> d(host);
    DeviceArray<std::uint32_t> counts(65536 * 64);
    ASSERT_TRUE(histogram_batched_even(d.ptr, 65536, 1024, 0, 64, -4.0f, 4.0f, counts.ptr).ok());
    EXPECT_EQ(counts.read(65536 * 64), reference_histogram(p, host.data()));
  }
  {
    Problem p = segmented_problem(SampleType::u32, Binning::direct, 256, 100000, 102400000);
    const auto host = samples_of<std::uint32_t>(p, 102400000, Distribution::uniform);
    const auto offsets = tuner::make_offsets(p);
    DeviceArray<std::uint32_t> d(host);
    DeviceArray<std::int64_t> d_offsets(offsets);
    DeviceArray<std::uint32_t> counts(100000 * 256);
    ASSERT_TRUE(
        histogram_segmented_direct(d.ptr, 102400000, 100000, d_offsets.ptr, 256, counts.ptr).ok());
    EXPECT_EQ(counts.read(100000 * 256),
              reference_histogram(p, host.data(), nullptr, offsets.data()));
  }
}

// 8-byte samples through the C++ and C calls: even bins' edges over the whole i64 range in every
// row, f64's NaN, infinities and extremes in segments, u64 direct bins compared in 64 bits.
TEST(BatchedApi, SixtyFourBitSamplesThroughTheApi) {
  HT_REQUIRE_GPU();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  {  // 3 rows of the edges of 1000 bins, 5 samples apart past each row
    const auto e = test::even_edges64<std::int64_t>(static_cast<std::uint64_t>(kMin),
                                                    ~std::uint64_t{0}, 1000, test::edge_bins(1000));
    const std::uint64_t n = e.samples.size(), stride = n + 5;
    std::vector<std::int64_t> host(2 * stride + n, 42);
    for (std::uint64_t r = 0; r < 3; ++r)
      std::copy(e.samples.begin(), e.samples.end(), host.begin() + r * stride);
    Problem p = batched_problem(SampleType::i64, Binning::even, 1000, 3, n, stride);
    set_even_bounds(p, kMin, kMax);
    DeviceArray<std::int64_t> d(host);
    DeviceArray<std::uint32_t> counts(3 * 1000);
    ASSERT_TRUE(histogram_batched_even(d.ptr, 3, n, stride, 1000, kMin, kMax, counts.ptr).ok());
    const auto expect = reference_histogram(p, host.data());
    EXPECT_EQ(counts.read(3 * 1000), expect);
    EXPECT_EQ(std::vector<std::uint32_t>(expect.begin(), expect.begin() + 1000), e.counts);
  }
  {  // f64 specials in two segments, through the C API
    const double tiny = std::numeric_limits<double>::denorm_min();
    const std::vector<double> host = {NAN,  INFINITY, -INFINITY, -1.0, -0.5, -0.0, 0.0,
                                      0.5,  1.0,      std::nextafter(1.0, 0.0), -tiny, tiny,
                                      DBL_MAX, -DBL_MAX};
    const std::vector<std::int64_t> offsets = {0, 5, 14};
    Problem p = segmented_problem(SampleType::f64, Binning::even, 2, 2, host.size());
    p.lower = -1;
    p.upper = 1;
    DeviceArray<double> d(host);
    DeviceArray<std::int64_t> d_offsets(offsets);
    DeviceArray<std::uint32_t> counts(2 * 2);
    ASSERT_EQ(histtune_histogram_segmented_even_f64(d.ptr, host.size(), 2, d_offsets.ptr, 2, -1.0,
                                                    1.0, counts.ptr, nullptr),
              HISTTUNE_OK)
        << histtune_last_error();
    EXPECT_EQ(counts.read(4), reference_histogram(p, host.data(), nullptr, offsets.data()));
  }
  {  // u64 direct: 2^32 + 1 is not bin 1
    const std::vector<std::uint64_t> host = {~0ull, 1ull << 32, (1ull << 32) + 1, 1, 7, 7};
    Problem p = batched_problem(SampleType::u64, Binning::direct, 8, 2, 3);
    DeviceArray<std::uint64_t> d(host);
    DeviceArray<std::uint32_t> counts(2 * 8);
    ASSERT_EQ(histtune_histogram_batched_direct_u64(d.ptr, 2, 3, 0, 8, counts.ptr, nullptr),
              HISTTUNE_OK)
        << histtune_last_error();
    EXPECT_EQ(counts.read(16), reference_histogram(p, host.data()));
  }
}
