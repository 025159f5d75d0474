// Weighted rows, segments and pixels of channels without a GPU: the form a problem takes, its key
// and its inverse, its defines and geometry, the checks of bad shapes and pointers before any
// launch (C++ and C, output untouched), and the host reference of each form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/families.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

// Device addresses that pass the alignment checks (never dereferenced here).
const void* kSamples = reinterpret_cast<const void*>(0x10000);
std::uint32_t* const kBins = reinterpret_cast<std::uint32_t*>(0x20000);
const void* kWeights = reinterpret_cast<const void*>(0x40000);
const std::int64_t* kOffsets = reinterpret_cast<const std::int64_t*>(0x80000);

Problem rows_of(std::uint64_t rows, std::uint64_t n, bool det = false,
                WeightType w = WeightType::f32) {
  Problem p = weighted_problem(SampleType::f32, w, Binning::even, 256, n, det, 0, 100);
  p.rows = rows;
  return p;
}

Problem segments_of(std::uint64_t segments, std::uint64_t n, bool det = false) {
  Problem p = rows_of(segments, n, det);
  p.segments = true;
  return p;
}

Problem pixels_of(std::uint32_t channels, std::uint32_t active, std::uint64_t pixels,
                  bool det = false) {
  Problem p = weighted_problem(SampleType::u8, WeightType::f64, Binning::direct, 256, pixels, det);
  p.channels = channels;
  p.active_channels = active;
  return p;
}

bool has(const CompileRequest& r, const std::string& def) {
  return std::find(r.defines.begin(), r.defines.end(), def) != r.defines.end();
}

}  // namespace

TEST(WeightedShapes, FormFollowsTheProblemAndKeysRoundTrip) {
  const Problem flat = rows_of(1, 1000);
  EXPECT_EQ(weighted::form(flat), WeightedForm::flat);
  EXPECT_EQ(flat.key().channels, 1u) << "a 1D key as before";
  EXPECT_EQ(flat.key().active_channels, 0u);
  const Problem rows = rows_of(4096, 65536);
  EXPECT_EQ(weighted::form(rows), WeightedForm::rows);
  const Problem seg = segments_of(100000, 1 << 20, true);
  EXPECT_EQ(weighted::form(seg), WeightedForm::segments);
  const Problem pix = pixels_of(4, 3, 1 << 20);
  EXPECT_EQ(weighted::form(pix), WeightedForm::channels);
  for (const Problem& p : {flat, rows, seg, pix}) {
    const db::ProblemRow key = p.key();
    Problem back = tuner::problem_of_key(key);
    EXPECT_EQ(back.key(), key) << p.describe();
    EXPECT_EQ(weighted::form(back), weighted::form(p)) << p.describe();
    EXPECT_EQ(back.weight_type, p.weight_type) << p.describe();
    EXPECT_EQ(back.rows, p.rows) << p.describe();
    EXPECT_EQ(back.channels, p.channels) << p.describe();
    EXPECT_EQ(back.active_channels, p.active_channels) << p.describe();
  }
  EXPECT_EQ(rows.key().channels, 1u + 8 * 1 + 32 * 4096);
  EXPECT_EQ(rows.key().active_channels, 0u);
  for (const Problem& p : {flat, rows, seg, pix})
    EXPECT_LE(p.key().active_channels, p.key().channels) << "the database's rule";
  EXPECT_EQ(pix.key().channels, 2u + 8 * 3 + 32 * 4);
  EXPECT_EQ(pix.key().active_channels, 3u);
  EXPECT_EQ(rows.describe(), "weighted f32 even bins=256 n=2^16 weights=f32 rows=4096 [0, 100)");
  EXPECT_NE(seg.describe().find("weights=f32 segments=100000"), std::string::npos);
  EXPECT_NE(pix.describe().find("weights=f64 channels=3/4"), std::string::npos);
  // Dense rows and segments of the same rows are different kernels.
  EXPECT_NE(shape_key(rows_of(100000, 1 << 20)), shape_key(segments_of(100000, 1 << 20)));
  EXPECT_EQ(rows.total_samples(), 4096u * 65536);
  EXPECT_EQ(rows.weight_count(), 4096u * 65536);
  EXPECT_EQ(seg.total_samples(), 1u << 20);
  EXPECT_EQ(pix.total_samples(), 4u << 20);
  EXPECT_EQ(pix.weight_count(), 1u << 20) << "one weight a pixel";
  EXPECT_EQ(pix.input_bytes(), (4u << 20) + (8u << 20));
  EXPECT_EQ(family_of(rows).counters(rows), 4096u * 256);
  EXPECT_EQ(family_of(pix).counters(pix), 3u * 256 * 2) << "double bins: two words each";
}

TEST(WeightedShapes, DefinesAndGeometryOfEachForm) {
  const DeviceInfo d = h100_like();
  EXPECT_TRUE(has(weighted::request(WeightedConfig{}, segments_of(1000, 1 << 20), 90),
                  "-DHT_SEGMENTED=1"));
  EXPECT_FALSE(has(weighted::request(WeightedConfig{}, rows_of(1000, 1 << 20), 90),
                   "-DHT_SEGMENTED=1"));
  // Many short rows: the grid's y walks the rows (at most 65535 at once), x about a row's tiles.
  const WeightedGeometry g = weighted::geometry(WeightedConfig{}, rows_of(100000, 1000), d);
  EXPECT_EQ(g.grid.y, 65535u);
  EXPECT_EQ(g.grid.x, 1u);
  const WeightedGeometry few = weighted::geometry(WeightedConfig{}, rows_of(4, 1 << 24), d);
  EXPECT_EQ(few.grid.y, 4u);
  EXPECT_EQ(few.grid.x, 132u * 2 / 4) << "the resident blocks shared by the rows";
  // Channels: a copy holds every active channel's bins and sink.
  const WeightedGeometry pg = weighted::geometry(WeightedConfig{}, pixels_of(4, 3, 1 << 20), d);
  EXPECT_EQ(pg.smem_bytes, 3u * 257 * 8);
  for (const Problem& p : {rows_of(4096, 65536), segments_of(100000, 1 << 26, true),
                           pixels_of(4, 3, 1 << 24)}) {
    EXPECT_EQ(validate(p), "") << p.describe();
    EXPECT_TRUE(weighted::check(weighted::default_for(p, d), p, d).holds()) << p.describe();
  }
}

TEST(WeightedShapes, BadShapesAreRefused) {
  Problem overlap = rows_of(10, 1000);
  overlap.row_stride = 999;
  EXPECT_NE(validate(overlap).find("rows would overlap"), std::string::npos);
  EXPECT_NE(validate(rows_of(0, 1000)).find("rows = 0"), std::string::npos);
  EXPECT_EQ(validate(rows_of(kMaxWeightedRows, 1)), "");
  EXPECT_NE(validate(rows_of(kMaxWeightedRows + 1, 1)).find("the most weighted rows"),
            std::string::npos);
  EXPECT_EQ(validate(rows_of(0, 0)), "") << "nothing to do";
  Problem strided_seg = segments_of(10, 1000);
  strided_seg.row_stride = 2000;
  EXPECT_NE(validate(strided_seg).find("not a row_stride"), std::string::npos);
  EXPECT_NE(validate(pixels_of(4, 5, 100)).find("active_channels must be 1 .. channels"),
            std::string::npos);
  EXPECT_NE(validate(pixels_of(5000, 1, 100)).find("channels must be 1 .. 4096"),
            std::string::npos);
  Problem rows_and_channels = pixels_of(4, 3, 100);
  rows_and_channels.rows = 2;
  EXPECT_NE(validate(rows_and_channels).find("one row"), std::string::npos);
  Problem pitched = pixels_of(4, 3, 100);
  pitched.row_pixels = 10;
  EXPECT_NE(validate(pitched).find("no row pitch"), std::string::npos);
  Problem unweighted = flat_problem(SampleType::u8, Binning::direct, 256, 100);
  unweighted.segments = true;
  EXPECT_NE(validate(unweighted).find("segments"), std::string::npos);
}

TEST(WeightedShapes, NullPointersAreRefusedBeforeAnyLaunch) {
  Problem seg = segments_of(10, 1000);
  seg.d_weights = kWeights;
  EXPECT_NE(check_arguments(seg, kSamples, kBins).find("d_offsets is null with 10 segments"),
            std::string::npos);
  seg.d_offsets = kOffsets;
  EXPECT_EQ(check_arguments(seg, kSamples, kBins), "");
  Problem pix = pixels_of(4, 3, 1000);
  EXPECT_NE(check_arguments(pix, kSamples, kBins).find("reads 1000 weights"), std::string::npos);
  Problem rows = rows_of(8, 1000);
  EXPECT_NE(check_arguments(rows, kSamples, kBins).find("reads 8000 weights"), std::string::npos);
}

TEST(WeightedShapes, PublicCallsRefuseBadInputWithoutTouchingTheOutput) {
  float bins[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  double dbins[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  const auto* x = static_cast<const float*>(kSamples);
  const auto* w = static_cast<const float*>(kWeights);
  const auto* u8 = static_cast<const std::uint8_t*>(kSamples);
  const auto* wd = static_cast<const double*>(kWeights);
  const float* no_weights = nullptr;
  Status s = histogram_batched_even(x, no_weights, 2, 100, 0, 4, 0.0f, 1.0f, bins);
  EXPECT_NE(s.message().find("d_weights is null"), std::string::npos) << s.message();
  s = histogram_batched_even(x, w, 2, 100, 50, 4, 0.0f, 1.0f, bins);
  EXPECT_NE(s.message().find("rows would overlap"), std::string::npos) << s.message();
  s = histogram_batched_even(x, w, 2, 100, 0, 4, 1.0f, 0.0f, bins);
  EXPECT_NE(s.message().find("lower < upper"), std::string::npos) << s.message();
  s = histogram_segmented_even(x, w, 100, 2, nullptr, 4, 0.0f, 1.0f, bins);
  EXPECT_NE(s.message().find("d_offsets is null"), std::string::npos) << s.message();
  s = histogram_segmented_range(x, w, 100, 2, kOffsets, 4, static_cast<const float*>(nullptr),
                                bins);
  EXPECT_NE(s.message().find("d_levels is null"), std::string::npos) << s.message();
  s = histogram_multichannel_direct(u8, wd, 100, 4, 5, 2, dbins);
  EXPECT_NE(s.message().find("active_channels must be 1 .. channels"), std::string::npos)
      << s.message();
  s = histogram_multichannel_direct(u8, reinterpret_cast<const double*>(0x40004), 100, 4, 3, 2,
                                    dbins);
  EXPECT_NE(s.message().find("not aligned to its 8-byte f64 weights"), std::string::npos)
      << s.message();
  s = histogram_multichannel_even(u8, static_cast<const std::int32_t*>(kWeights), 100, 4, 3, 2,
                                  std::int64_t{0}, std::int64_t{256},
                                  reinterpret_cast<std::int64_t*>(dbins), nullptr,
                                  WeightedOptions{true, 0});
  EXPECT_NE(s.message().find("f32 or f64 weights"), std::string::npos) << s.message();
  for (float b : bins) EXPECT_EQ(b, 7.0f);
  for (double b : dbins) EXPECT_EQ(b, 7.0);
}

TEST(WeightedShapes, CApiRefusesBadInputWithoutTouchingTheOutput) {
  float bins[8] = {7, 7, 7, 7, 7, 7, 7, 7};
  EXPECT_EQ(histtune_histogram_weighted_batched(4, kSamples, 1, nullptr, 2, 100, 0, 1, 4, 0, 1,
                                                nullptr, bins, 0, 0, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_weights is null"), std::string::npos);
  EXPECT_EQ(histtune_histogram_weighted_batched(4, kSamples, 9, kWeights, 2, 100, 0, 1, 4, 0, 1,
                                                nullptr, bins, 0, 0, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("unknown weight type code 9"),
            std::string::npos);
  EXPECT_EQ(histtune_histogram_weighted_segmented(4, kSamples, 1, kWeights, 100, 3, nullptr, 1, 4,
                                                  0, 1, nullptr, bins, 0, 0, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("d_offsets is null"), std::string::npos);
  EXPECT_EQ(histtune_histogram_weighted_multichannel(0, kSamples, 1, kWeights, 100, 4, 0, 0, 4, 0,
                                                     0, nullptr, bins, 0, 0, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(histtune_last_error()).find("active_channels"), std::string::npos);
  for (float b : bins) EXPECT_EQ(b, 7.0f);
}

TEST(WeightedShapes, ReferenceOfRowsSegmentsAndChannels) {
  // Two dense rows of 3, 4 apart (the gap's sample and weight never read).
  const float x[] = {0.5f, 1.5f, 1.5f, 99.0f, 3.5f, 0.5f, 9.0f, 99.0f};
  const float w[] = {1.0f, 2.0f, 4.0f, 1e30f, 8.0f, 16.0f, 32.0f, 1e30f};
  Problem rows = rows_of(2, 3);
  rows.num_bins = 4;
  rows.lower = 0;
  rows.upper = 4;
  rows.row_stride = 4;
  EXPECT_EQ(reference_weighted(rows, x, w),
            (std::vector<double>{1, 6, 0, 0, 16, 0, 0, 8}));
  // Segments [0, 2), [2, 2) (empty), [2, 9 clamped to 7): offsets past n clamp.
  Problem seg = rows;
  seg.segments = true;
  seg.rows = 3;
  seg.row_stride = 0;
  seg.n = 7;
  const std::int64_t offsets[] = {0, 2, 2, 9};
  EXPECT_EQ(reference_weighted(seg, x, w, nullptr, offsets),
            (std::vector<double>{1, 2, 0, 0, 0, 0, 0, 0, 16, 4, 0, 8}));
  // Pixels of 3 channels, 2 counted, one weight a pixel.
  const std::uint8_t px[] = {0, 1, 2, 1, 1, 0};
  const double pw[] = {10, 0.5};
  Problem pix = pixels_of(3, 2, 2);
  pix.num_bins = 2;
  EXPECT_EQ(reference_weighted(pix, px, pw), (std::vector<double>{10, 0.5, 0, 10.5}));
}
