// On the GPU: multi-channel images with a row pitch. Every sampled configuration's pitched
// kernel, and the public and C APIs, bit-exact against the host reference over images whose
// padding (and the bytes after the last row) hold samples that would count if read: odd widths,
// pitches off every vector alignment, misaligned starts, 1 and 0 rows, and a pitch of exactly
// one row, which must give the packed result.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "gpu.hpp"
#include "sampled_kernels.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/compile_pool.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

struct Shape {
  SampleType type;
  Binning binning;
  std::uint32_t channels, active, bins;
  double upper = 0;  // even: [0, upper); range: the levels' span [0, upper]
};

std::string shape_name(const Shape& s) {
  return std::string(to_string(s.type)) + "_" + to_string(s.binning) + "_c" +
         std::to_string(s.channels) + "a" + std::to_string(s.active) + "_" + std::to_string(s.bins);
}

// row_pixels x num_rows pixels; `pad` samples after each image row's (0: a pitch of one row);
// the data starts `offset` samples after an aligned address.
struct Image {
  std::uint64_t row_pixels, num_rows, pad;
  unsigned int offset;
};

std::string image_name(const Image& im) {
  return std::to_string(im.row_pixels) + "x" + std::to_string(im.num_rows) + " pad " +
         std::to_string(im.pad) + " offset " + std::to_string(im.offset);
}

Problem problem_of(const Shape& s, const Image& im) {
  Problem p;
  p.family = multichannel::kFamily;
  p.sample_type = s.type;
  p.binning = s.binning;
  p.channels = s.channels;
  p.active_channels = s.active;
  p.num_bins = s.bins;
  p.n = im.row_pixels * im.num_rows;
  p.row_pixels = im.row_pixels;
  p.row_pitch_bytes = (im.row_pixels * s.channels + im.pad) * sample_bytes(s.type);
  p.upper = s.upper;
  return p;
}

// The one-stream problem the samples and levels are drawn for: the same type, binning and bins.
Problem flat_of(const Problem& p, std::uint64_t n) {
  Problem flat;
  flat.sample_type = p.sample_type;
  flat.binning = p.binning;
  flat.num_bins = p.num_bins;
  flat.lower = p.lower;
  flat.upper = p.upper;
  flat.n = n;
  return flat;
}

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

// Bytes after the last image row, also samples: a read past the image counts them.
constexpr std::size_t kTrailBytes = 64;

// The image in host memory, every byte a sample drawn like the image's (the padding too, so a
// kernel reading it miscounts), and on the device at the same offset from an aligned address.
struct PaddedImage {
  std::vector<std::uint8_t> host;
  std::uint8_t* d = nullptr;
  std::size_t start = 0;  // bytes before the image
  PaddedImage(const Problem& p, const Image& im, std::uint64_t seed, tuner::Distribution dist) {
    const std::size_t sb = sample_bytes(p.sample_type);
    start = im.offset * sb;
    const std::uint64_t span =
        p.n == 0 ? 0 : (p.image_rows() - 1) * p.row_pitch_bytes + p.row_bytes();
    host = tuner::make_samples(flat_of(p, (start + span + kTrailBytes) / sb), seed, dist);
    HT_CUDA(cudaMalloc(&d, host.size()));
    HT_CUDA(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  ~PaddedImage() { cudaFree(d); }
  PaddedImage(const PaddedImage&) = delete;
  PaddedImage& operator=(const PaddedImage&) = delete;
  const std::uint8_t* image() const { return host.data() + start; }
  const std::uint8_t* d_image() const { return d + start; }
};

std::vector<std::uint32_t> read_counts(const std::uint32_t* d_counts, std::size_t n) {
  std::vector<std::uint32_t> got(n);
  if (n) HT_CUDA(cudaMemcpy(got.data(), d_counts, 4 * n, cudaMemcpyDeviceToHost));
  return got;
}

class MultiChannelPitchEveryConfiguration : public ::testing::TestWithParam<Shape> {};

}  // namespace

TEST_P(MultiChannelPitchEveryConfiguration, BitExact) {
  HT_REQUIRE_GPU();
  const Shape s = GetParam();
  const DeviceInfo d = query_device(current_device());
  const Problem shape = problem_of(s, Image{37, 5, 3, 0});
  ASSERT_TRUE(shape.pitched());
  // Every configuration of every stride-th distinct pitched kernel (the request does not depend
  // on the rows or the pitch: one compile serves every image below).
  const auto sample = test::sample_kernels<MultiChannelFamily>(multichannel::space(), shape,
                                                               shape, d, test::gpu_stride(7));
  const auto& [configs, req_of, reqs] = sample;
  ASSERT_FALSE(configs.empty());
  tuner::CompilePool pool(reqs, 0);
  KernelCache cache;
  // Odd widths and pads (u8 pitches odd, u16 pitches 2 mod 4), rows of whole vectors with a
  // pitch of 16 more bytes or so, rows shorter than a vector (all edges), rows longer than the
  // largest tile (8192 vectors), 1 row, 0 rows; some starting one sample off the alignment.
  const Image images[] = {{37, 5, 3, 0},     {37, 5, 3, 1},   {1, 1, 1, 1},      {12, 50, 16, 0},
                          {5, 1000, 1, 0},   {3, 700, 7, 1},  {2049, 3, 5, 0},   {2049, 3, 5, 1},
                          {40000, 2, 13, 1}, {17, 0, 2, 0},   {999, 1, 2, 0}};
  const tuner::Distribution dists[] = {tuner::Distribution::mixed, tuner::Distribution::runs,
                                       tuner::Distribution::uniform};
  std::size_t tried = 0;
  for (const Image& im : images) {
    const Problem p = problem_of(s, im);
    if (p.total_samples() > (1u << 21)) continue;  // keep many-channel shapes small
    ++tried;
    const tuner::Distribution dist = dists[tried % 3];
    const std::uint64_t seed = fresh_seed();
    const PaddedImage in(p, im, seed, dist);
    const auto expect = reference_histogram(p, in.image());
    std::uint32_t* d_counts = nullptr;
    HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * expect.size()));
    int wrong = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Kernel k = cache.load(reqs[req_of[i]], pool.get(req_of[i]), multichannel::kKernel);
      multichannel::launch(cache, k, configs[i], p, d, in.d_image(), d_counts, nullptr);
      HT_CUDA(cudaDeviceSynchronize());
      if (read_counts(d_counts, expect.size()) != expect && ++wrong <= 5)
        ADD_FAILURE() << configs[i].label() << " wrong for " << p.describe() << " ("
                      << image_name(im) << ") " << tuner::to_string(dist) << " seed " << seed;
    }
    EXPECT_EQ(wrong, 0) << p.describe() << " (" << image_name(im) << ")";
    HT_CUDA(cudaFree(d_counts));
  }
  EXPECT_GE(tried, 5u);
  RecordProperty("configurations", static_cast<int>(configs.size()));
}

INSTANTIATE_TEST_SUITE_P(
    MultiChannel, MultiChannelPitchEveryConfiguration,
    ::testing::Values(Shape{SampleType::u8, Binning::direct, 4, 3, 256},
                      Shape{SampleType::u8, Binning::direct, 4, 4, 256},
                      Shape{SampleType::u8, Binning::even, 3, 3, 100, 300},
                      Shape{SampleType::u16, Binning::direct, 4, 4, 1024},
                      Shape{SampleType::u16, Binning::even, 4, 3, 64, 5000},
                      Shape{SampleType::u8, Binning::direct, 64, 40, 256},
                      Shape{SampleType::u8, Binning::direct, 512, 512, 256}),
    [](const auto& info) { return shape_name(info.param); });

namespace {

// The pitched public call for s (range binning reads d_levels).
Status call_pitched(const Shape& s, const Image& im, const Problem& p, const std::uint8_t* d_image,
                    const void* d_levels, std::uint32_t* d_counts) {
  const auto* u8 = d_image;
  const auto* u16 = reinterpret_cast<const std::uint16_t*>(d_image);
  const std::uint64_t w = im.row_pixels, h = im.num_rows, pitch = p.row_pitch_bytes;
  const auto lower = static_cast<std::int64_t>(p.lower), upper = static_cast<std::int64_t>(p.upper);
  switch (s.binning) {
    case Binning::direct:
      return s.type == SampleType::u8
                 ? histogram_multichannel_direct(u8, w, h, pitch, s.channels, s.active, s.bins, d_counts)
                 : histogram_multichannel_direct(u16, w, h, pitch, s.channels, s.active, s.bins, d_counts);
    case Binning::even:
      return s.type == SampleType::u8
                 ? histogram_multichannel_even(u8, w, h, pitch, s.channels, s.active, s.bins, lower,
                                               upper, d_counts)
                 : histogram_multichannel_even(u16, w, h, pitch, s.channels, s.active, s.bins, lower,
                                               upper, d_counts);
    case Binning::range:
      return s.type == SampleType::u8
                 ? histogram_multichannel_range(u8, w, h, pitch, s.channels, s.active, s.bins,
                                                static_cast<const std::uint8_t*>(d_levels), d_counts)
                 : histogram_multichannel_range(u16, w, h, pitch, s.channels, s.active, s.bins,
                                                static_cast<const std::uint16_t*>(d_levels), d_counts);
  }
  return Status(StatusCode::internal, "unknown binning");
}

// The packed public call over the same rows (a pitch of one row is packed).
Status call_packed(const Shape& s, const Problem& p, const std::uint8_t* d_image,
                   const void* d_levels, std::uint32_t* d_counts) {
  const auto* u8 = d_image;
  const auto* u16 = reinterpret_cast<const std::uint16_t*>(d_image);
  const auto lower = static_cast<std::int64_t>(p.lower), upper = static_cast<std::int64_t>(p.upper);
  switch (s.binning) {
    case Binning::direct:
      return s.type == SampleType::u8
                 ? histogram_multichannel_direct(u8, p.n, s.channels, s.active, s.bins, d_counts)
                 : histogram_multichannel_direct(u16, p.n, s.channels, s.active, s.bins, d_counts);
    case Binning::even:
      return s.type == SampleType::u8
                 ? histogram_multichannel_even(u8, p.n, s.channels, s.active, s.bins, lower, upper,
                                               d_counts)
                 : histogram_multichannel_even(u16, p.n, s.channels, s.active, s.bins, lower, upper,
                                               d_counts);
    case Binning::range:
      return s.type == SampleType::u8
                 ? histogram_multichannel_range(u8, p.n, s.channels, s.active, s.bins,
                                                static_cast<const std::uint8_t*>(d_levels), d_counts)
                 : histogram_multichannel_range(u16, p.n, s.channels, s.active, s.bins,
                                                static_cast<const std::uint16_t*>(d_levels), d_counts);
  }
  return Status(StatusCode::internal, "unknown binning");
}

}  // namespace

TEST(MultiChannelPitchApi, RgbaImagesMatchTheReference) {
  HT_REQUIRE_GPU();
  const Shape shapes[] = {{SampleType::u8, Binning::direct, 4, 3, 256},
                          {SampleType::u8, Binning::direct, 4, 4, 256},
                          {SampleType::u16, Binning::direct, 4, 3, 1024},
                          {SampleType::u16, Binning::even, 4, 4, 64, 4096},
                          {SampleType::u8, Binning::range, 4, 3, 200, 255},
                          {SampleType::u16, Binning::range, 4, 4, 500, 60000}};
  // Odd widths, pitches off 4 and 16 bytes (u8: odd; u16: 2 mod 4), a pitch of 16 more samples,
  // 1 row, 0 rows, a start one sample off, and pad 0: a pitch of exactly one row.
  const Image images[] = {{1921, 7, 3, 0},  {1921, 7, 3, 1}, {33, 129, 1, 0}, {16, 10, 16, 0},
                          {999, 1, 5, 1},   {640, 0, 16, 0}, {641, 9, 0, 0},  {641, 9, 0, 1}};
  std::uint32_t* d_counts = nullptr;
  std::uint32_t* d_packed = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * 4 * 1024));
  HT_CUDA(cudaMalloc(&d_packed, 4 * 4 * 1024));
  for (const Shape& s : shapes) {
    const Problem levels_for = flat_of(problem_of(s, images[0]), 1);
    const auto levels = s.binning == Binning::range ? tuner::make_levels(levels_for)
                                                    : std::vector<std::uint8_t>{};
    std::uint8_t* d_levels = nullptr;
    if (!levels.empty()) {
      HT_CUDA(cudaMalloc(&d_levels, levels.size()));
      HT_CUDA(cudaMemcpy(d_levels, levels.data(), levels.size(), cudaMemcpyHostToDevice));
    }
    for (const Image& im : images) {
      const Problem p = problem_of(s, im);
      const std::uint64_t seed = fresh_seed();
      const PaddedImage in(p, im, seed, tuner::Distribution::mixed);
      const auto expect = reference_histogram(p, in.image(), levels.data());
      const std::string what = shape_name(s) + " " + image_name(im) + " seed " + std::to_string(seed);
      const Status st = call_pitched(s, im, p, in.d_image(), d_levels, d_counts);
      ASSERT_TRUE(st.ok()) << what << ": " << st.message();
      EXPECT_EQ(read_counts(d_counts, expect.size()), expect) << what;
      if (im.pad == 0) {
        const Status packed = call_packed(s, p, in.d_image(), d_levels, d_packed);
        ASSERT_TRUE(packed.ok()) << what << ": " << packed.message();
        EXPECT_EQ(read_counts(d_packed, expect.size()), read_counts(d_counts, expect.size()))
            << what << ": a pitch of one row is the packed result";
      }
      if (im.num_rows > 0 && im.pad > 0) {
        const MultiChannelChoice used = last_multichannel_choice();
        EXPECT_EQ(used.config.label().rfind("mc.", 0), 0u) << used.config.label();
      }
    }
    if (d_levels) HT_CUDA(cudaFree(d_levels));
  }
  HT_CUDA(cudaFree(d_counts));
  HT_CUDA(cudaFree(d_packed));
}

TEST(MultiChannelPitchApi, PackedAndPitchedCallsOfOneShapeShareItsConfiguration) {
  HT_REQUIRE_GPU();
  const Shape s{SampleType::u8, Binning::direct, 4, 3, 256};
  const Image pitched{1001, 31, 9, 0}, packed{1001, 31, 0, 0};
  const PaddedImage a(problem_of(s, pitched), pitched, fresh_seed(), tuner::Distribution::mixed);
  const PaddedImage b(problem_of(s, packed), packed, fresh_seed(), tuner::Distribution::mixed);
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * 3 * 256));
  ASSERT_TRUE(call_pitched(s, packed, problem_of(s, packed), b.d_image(), nullptr, d_counts).ok());
  const std::string packed_config = last_multichannel_choice().config.label();
  const Status st = call_pitched(s, pitched, problem_of(s, pitched), a.d_image(), nullptr, d_counts);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(last_multichannel_choice().config.label(), packed_config)
      << "the pitch is not in the key";
  EXPECT_EQ(read_counts(d_counts, 3 * 256), reference_histogram(problem_of(s, pitched), a.image()));
  HT_CUDA(cudaFree(d_counts));
}

TEST(MultiChannelPitchCApi, PitchedCallsMatchTheReference) {
  HT_REQUIRE_GPU();
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 4 * 4 * 1024));
  {
    const Shape s{SampleType::u8, Binning::direct, 4, 3, 256};
    const Image im{1023, 17, 5, 1};
    const Problem p = problem_of(s, im);
    const PaddedImage in(p, im, fresh_seed(), tuner::Distribution::mixed);
    const histtune_status st = histtune_histogram_multichannel_direct_pitched_u8(
        in.d_image(), im.row_pixels, im.num_rows, p.row_pitch_bytes, 4, 3, 256, d_counts, nullptr);
    ASSERT_EQ(st, HISTTUNE_OK) << histtune_last_error();
    EXPECT_EQ(read_counts(d_counts, 3 * 256), reference_histogram(p, in.image()));
    EXPECT_EQ(std::string(histtune_last_configuration()).rfind("mc.", 0), 0u)
        << histtune_last_configuration();
    EXPECT_STRNE(histtune_last_lookup_level(), "");
  }
  {
    const Shape s{SampleType::u16, Binning::even, 4, 4, 64, 4096};
    const Image im{77, 13, 1, 0};
    const Problem p = problem_of(s, im);
    const PaddedImage in(p, im, fresh_seed(), tuner::Distribution::mixed);
    const histtune_status st = histtune_histogram_multichannel_even_pitched_u16(
        reinterpret_cast<const std::uint16_t*>(in.d_image()), im.row_pixels, im.num_rows,
        p.row_pitch_bytes, 4, 4, 64, 0, 4096, d_counts, nullptr);
    ASSERT_EQ(st, HISTTUNE_OK) << histtune_last_error();
    EXPECT_EQ(read_counts(d_counts, 4 * 64), reference_histogram(p, in.image()));
  }
  {
    const Shape s{SampleType::u8, Binning::range, 4, 3, 200, 255};
    const Image im{55, 21, 7, 0};
    const Problem p = problem_of(s, im);
    const auto levels = tuner::make_levels(flat_of(p, 1));
    std::uint8_t* d_levels = nullptr;
    HT_CUDA(cudaMalloc(&d_levels, levels.size()));
    HT_CUDA(cudaMemcpy(d_levels, levels.data(), levels.size(), cudaMemcpyHostToDevice));
    const PaddedImage in(p, im, fresh_seed(), tuner::Distribution::mixed);
    const histtune_status st = histtune_histogram_multichannel_range_pitched_u8(
        in.d_image(), im.row_pixels, im.num_rows, p.row_pitch_bytes, 4, 3, 200, d_levels,
        d_counts, nullptr);
    ASSERT_EQ(st, HISTTUNE_OK) << histtune_last_error();
    EXPECT_EQ(read_counts(d_counts, 3 * 200), reference_histogram(p, in.image(), levels.data()));
    HT_CUDA(cudaFree(d_levels));
  }
  // A packed multi-channel range call reports its own configuration (it once reported the last
  // 1D call's).
  {
    const Shape s{SampleType::u8, Binning::range, 4, 3, 200, 255};
    const Image im{640, 1, 0, 0};
    const Problem p = problem_of(s, im);
    const auto levels = tuner::make_levels(flat_of(p, 1));
    std::uint8_t* d_levels = nullptr;
    HT_CUDA(cudaMalloc(&d_levels, levels.size()));
    HT_CUDA(cudaMemcpy(d_levels, levels.data(), levels.size(), cudaMemcpyHostToDevice));
    const PaddedImage in(p, im, fresh_seed(), tuner::Distribution::mixed);
    ASSERT_EQ(histtune_histogram_direct_u8(in.d_image(), 100, 256, d_counts, nullptr), HISTTUNE_OK);
    const histtune_status st = histtune_histogram_multichannel_range_u8(
        in.d_image(), p.n, 4, 3, 200, d_levels, d_counts, nullptr);
    ASSERT_EQ(st, HISTTUNE_OK) << histtune_last_error();
    EXPECT_EQ(read_counts(d_counts, 3 * 200), reference_histogram(p, in.image(), levels.data()));
    EXPECT_EQ(std::string(histtune_last_configuration()).rfind("mc.", 0), 0u)
        << histtune_last_configuration();
    HT_CUDA(cudaFree(d_levels));
  }
  // A pitch shorter than a row: refused, with the reason.
  const histtune_status bad = histtune_histogram_multichannel_direct_pitched_u8(
      reinterpret_cast<const std::uint8_t*>(d_counts), 10, 2, 39, 4, 3, 256, d_counts, nullptr);
  EXPECT_EQ(bad, HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("less than an image row's 40 bytes"),
            std::string::npos)
      << histtune_last_error();
  HT_CUDA(cudaFree(d_counts));
}
