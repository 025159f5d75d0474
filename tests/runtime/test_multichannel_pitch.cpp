// The multi-channel row pitch without a GPU: the problem's checks, the host reference over
// padded image rows, the pitched kernel variant's compile request and launch arguments, the
// public API's refusals, and NVRTC compiles of the pitched variant over the family's space.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "fake_device.hpp"
#include "histtune/db/database.hpp"
#include "histtune/histtune.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/reference.hpp"

using namespace histtune;
using histtune::test::h100_like;

namespace {

Problem image(SampleType t, std::uint32_t channels, std::uint32_t active, std::uint64_t row_pixels,
              std::uint64_t num_rows, std::uint64_t pitch_bytes, std::uint32_t bins = 256) {
  Problem p = multichannel_problem(t, channels, active, row_pixels * num_rows, bins);
  p.row_pixels = row_pixels;
  p.row_pitch_bytes = pitch_bytes;
  return p;
}

template <class T>
std::vector<T> copy_packed(const std::vector<T>& pitched, const Problem& p) {
  std::vector<T> out;
  const std::size_t row = p.row_pixels * p.channels, pitch = p.row_pitch_bytes / sizeof(T);
  for (std::uint64_t r = 0; r < p.image_rows(); ++r)
    out.insert(out.end(), pitched.begin() + r * pitch, pitched.begin() + r * pitch + row);
  return out;
}

Problem packed_of(const Problem& p) {
  Problem q = p;
  q.row_pixels = 0;
  q.row_pitch_bytes = 0;
  return q;
}

}  // namespace

TEST(MultiChannelPitchProblem, ValidateNamesWhatIsWrong) {
  // RGBA u8, 5 pixels a row: 20 bytes a row.
  EXPECT_EQ(validate(image(SampleType::u8, 4, 3, 5, 3, 23)), "");
  EXPECT_EQ(validate(image(SampleType::u8, 4, 3, 5, 3, 20)), "") << "a pitch of one row: packed";
  EXPECT_EQ(validate(image(SampleType::u8, 4, 3, 5, 3, 0)), "") << "0: packed";
  EXPECT_EQ(validate(image(SampleType::u8, 4, 3, 5, 0, 64)), "") << "no rows";
  const std::string small = validate(image(SampleType::u8, 4, 3, 5, 3, 19));
  EXPECT_NE(small.find("row_pitch_bytes = 19 is less than an image row's 20 bytes"),
            std::string::npos)
      << small;
  const std::string odd = validate(image(SampleType::u16, 4, 4, 5, 3, 41));
  EXPECT_NE(odd.find("row_pitch_bytes = 41 is not a multiple of the 2-byte u16 samples"),
            std::string::npos)
      << odd;
  Problem ragged = image(SampleType::u8, 4, 3, 5, 3, 32);
  ragged.n = 16;
  const std::string rows = validate(ragged);
  EXPECT_NE(rows.find("n = 16 is not a whole number of image rows of row_pixels = 5"),
            std::string::npos)
      << rows;
  Problem no_width = image(SampleType::u8, 4, 3, 5, 3, 32);
  no_width.row_pixels = 0;
  EXPECT_NE(validate(no_width).find("needs row_pixels"), std::string::npos) << validate(no_width);
  Problem flat;
  flat.n = 100;
  flat.row_pixels = 10;
  flat.row_pitch_bytes = 16;
  EXPECT_NE(validate(flat).find("multichannel family only"), std::string::npos) << validate(flat);
  flat.row_pitch_bytes = 0;
  EXPECT_NE(validate(flat).find("multichannel family only"), std::string::npos) << validate(flat);
  Problem far = image(SampleType::u8, 4, 3, 1, 1000, 1ull << 62);
  EXPECT_NE(validate(far).find("overflows"), std::string::npos) << validate(far);
}

TEST(MultiChannelPitchProblem, OnlyAPitchBeyondTheRowIsPitchedAndTheKeyHasNone) {
  const Problem p = image(SampleType::u16, 4, 3, 5, 3, 48);
  EXPECT_EQ(p.row_bytes(), 40u);
  EXPECT_EQ(p.image_rows(), 3u);
  EXPECT_TRUE(p.pitched());
  EXPECT_FALSE(image(SampleType::u16, 4, 3, 5, 3, 40).pitched());
  EXPECT_FALSE(image(SampleType::u16, 4, 3, 5, 3, 0).pitched());
  EXPECT_TRUE(p.key() == packed_of(p).key());
  EXPECT_NE(p.describe().find("image=3x5 pitch=48B"), std::string::npos) << p.describe();
  EXPECT_EQ(packed_of(p).describe().find("image="), std::string::npos) << "packed: as before";
}

TEST(MultiChannelPitchReference, PaddingIsNeverCounted) {
  // Two image rows of 3 RGBA pixels (12 bytes) 15 bytes apart; the padding holds 1s, which
  // would count in bin 1 of every channel if read.
  const std::vector<std::uint8_t> px = {0, 1, 2, 3,  1, 1, 2, 9,  3, 0, 0, 0,  1, 1, 1,
                                        2, 2, 2, 2,  0, 3, 3, 3,  3, 2, 1, 0,  1, 1, 1};
  const Problem p = image(SampleType::u8, 4, 3, 3, 2, 15, 4);
  // R: 0 1 3 2 0 3 -> bins 0:2 1:1 2:1 3:2; G: 1 1 0 2 3 2; B: 2 2 0 2 3 1.
  const std::vector<std::uint32_t> want = {2, 1, 1, 2,  1, 2, 2, 1,  1, 1, 3, 1};
  EXPECT_EQ(reference_histogram(p, px.data()), want);
  EXPECT_EQ(reference_histogram(packed_of(p), copy_packed(px, p).data()), want);
}

TEST(MultiChannelPitchReference, EveryBinningMatchesThePackedCopy) {
  std::mt19937 rng(7);
  const std::uint16_t levels[] = {0, 3, 10, 100, 1000, 40000};
  for (const Binning b : {Binning::direct, Binning::even, Binning::range}) {
    Problem p = image(SampleType::u16, 4, 4, 7, 5, 7 * 8 + 6, b == Binning::range ? 5 : 1000);
    p.binning = b;
    p.upper = b == Binning::even ? 3000 : 0;
    std::vector<std::uint16_t> buf((p.image_rows() - 1) * p.row_pitch_bytes / 2 + 7 * 4);
    for (auto& v : buf) v = static_cast<std::uint16_t>(rng() % 2000);
    const auto packed = copy_packed(buf, p);
    const auto got = reference_histogram(p, buf.data(), levels);
    EXPECT_EQ(got, reference_histogram(packed_of(p), packed.data(), levels)) << to_string(b);
    // Something was counted, and not the padding: every channel holds 35 samples at most.
    std::uint64_t total = 0;
    for (auto c : got) total += c;
    EXPECT_GT(total, 0u);
    EXPECT_LE(total, 4u * 35u);
  }
}

TEST(MultiChannelPitchReference, RefusesAPitchValidateRefuses) {
  const std::uint8_t px[64] = {};
  EXPECT_THROW(reference_histogram(image(SampleType::u8, 4, 3, 5, 3, 19), px),
               std::invalid_argument);
  EXPECT_EQ(reference_histogram(image(SampleType::u8, 4, 3, 5, 0, 64), px),
            std::vector<std::uint32_t>(3 * 256, 0));
}

TEST(MultiChannelPitchLaunch, PitchedProblemsCompileTheirOwnVariant) {
  const MultiChannelConfig c;
  const Problem pitched = image(SampleType::u8, 4, 3, 1921, 1080, 1921 * 4 + 12);
  const CompileRequest a = multichannel::request(c, packed_of(pitched), 90);
  const CompileRequest b = multichannel::request(c, pitched, 90);
  const CompileRequest tight = multichannel::request(c, image(SampleType::u8, 4, 3, 1921, 1080, 1921 * 4), 90);
  EXPECT_EQ(std::count(a.defines.begin(), a.defines.end(), "-DHT_PITCHED=1"), 0);
  EXPECT_EQ(b.defines.back(), "-DHT_PITCHED=1");
  EXPECT_EQ(std::vector<std::string>(b.defines.begin(), b.defines.end() - 1), a.defines);
  EXPECT_EQ(tight.defines, a.defines) << "a pitch of one row is packed";
  EXPECT_EQ(a.label, b.label);
  EXPECT_NE(cache_key(a), cache_key(b));
}

TEST(MultiChannelPitchLaunch, ArgumentsCarryThePitchInSamples) {
  const MultiChannelConfig c;
  KernelCache cache;
  const Problem pitched = image(SampleType::u16, 4, 3, 33, 9, 33 * 8 + 6, 100);
  const MultiChannelLaunch launch(cache, Kernel{}, c, pitched, h100_like());
  ASSERT_LE(launch.geometry().smem_bytes, 48u * 1024);  // prepared without a GPU
  const auto* samples = reinterpret_cast<const void*>(0x1000);
  auto* counts = reinterpret_cast<std::uint32_t*>(0x2000);
  MultiChannelArgs a = launch.args(pitched, samples, counts);
  EXPECT_EQ(a.n, 33u * 9u);
  EXPECT_EQ(a.row_pixels, 33u);
  EXPECT_EQ(a.row_pitch, (33u * 8 + 6) / 2) << "samples, not bytes";
  const auto ptrs = a.pointers();
  EXPECT_EQ(ptrs[12], static_cast<void*>(&a.row_pixels)) << "after the levels, as the kernels";
  EXPECT_EQ(ptrs[13], static_cast<void*>(&a.row_pitch));
  for (const std::uint64_t packed_pitch : {0ull, 33ull * 8}) {
    Problem p = pitched;
    p.row_pitch_bytes = packed_pitch;
    const MultiChannelArgs b = launch.args(p, samples, counts);
    EXPECT_EQ(b.row_pixels, 0u);
    EXPECT_EQ(b.row_pitch, 0u) << "the packed kernel's arguments";
  }
}

TEST(MultiChannelPitchLaunch, AVariantRefusesTheOtherKindOfRows) {
  // Checked before any CUDA call, so this holds without a GPU.
  const MultiChannelConfig c;
  KernelCache cache;
  const Problem pitched = image(SampleType::u8, 4, 3, 7, 3, 40, 16);
  const MultiChannelLaunch packed_launch(cache, Kernel{}, c, packed_of(pitched), h100_like());
  std::uint32_t counts[48];
  try {
    packed_launch(pitched, reinterpret_cast<const void*>(0x1000), counts, nullptr);
    FAIL() << "a packed launch ran pitched rows";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("prepared for packed rows called with pitched"),
              std::string::npos)
        << e.what();
  }
  const MultiChannelLaunch pitched_launch(cache, Kernel{}, c, pitched, h100_like());
  EXPECT_THROW(pitched_launch(packed_of(pitched), reinterpret_cast<const void*>(0x1000), counts,
                              nullptr),
               Error);
}

// Refused before any device call, so this holds without a GPU too.
TEST(MultiChannelPitchApiArguments, BadPitchesAreRefusedBeforeAnythingRuns) {
  std::uint32_t counts[1024];
  const auto* px = reinterpret_cast<const std::uint8_t*>(0x1000);
  const auto* px16 = reinterpret_cast<const std::uint16_t*>(0x1000);
  auto refused = [](const Status& s, const std::string& what) {
    EXPECT_EQ(s.code(), StatusCode::invalid_argument) << s.message();
    EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  };
  refused(histogram_multichannel_direct(px, 5, 3, 19, 4, 3, 256, counts),
          "row_pitch_bytes = 19 is less than an image row's 20 bytes");
  refused(histogram_multichannel_even(px16, 5, 3, 43, 4, 4, 16, 0, 100, counts),
          "not a multiple of the 2-byte u16 samples");
  refused(histogram_multichannel_direct(px, 1ull << 20, 1ull << 20, 1ull << 22, 4, 3, 256, counts),
          "row_pixels = 1048576 x num_rows = 1048576 exceeds 2^32 - 1");
  refused(histogram_multichannel_range(px, 5, 3, 24, 4, 3, 16, nullptr, counts),
          "d_levels is null");
  refused(histogram_multichannel_direct(px16, 5, 3, 48, 4, 5, 16, counts), "active_channels");
  // The packed overloads are what they were.
  refused(histogram_multichannel_direct(px, 10, 4, 5, 2, counts), "active_channels");
}

namespace {

struct PitchCompileCase {
  SampleType type;
  Binning binning;
  std::uint32_t channels, active, bins;
};

std::string pitch_case_name(const PitchCompileCase& c) {
  return std::string(to_string(c.type)) + "_" + to_string(c.binning) + "_c" +
         std::to_string(c.channels) + "a" + std::to_string(c.active);
}

class MultiChannelPitchCompile : public ::testing::TestWithParam<PitchCompileCase> {};

}  // namespace

// The pitched variant of the space's distinct kernels: one kernel of every code path the
// variant has (flat stream or channel groups, vector width, layout), and beyond those enough
// that every value of every compile-time parameter is compiled at least once.
TEST_P(MultiChannelPitchCompile, EveryCodePathAndValueCompilesToACubin) {
  const PitchCompileCase k = GetParam();
  Problem p = image(k.type, k.channels, k.active, 1920, 1080,
                    1920ull * k.channels * sample_bytes(k.type) + 6, k.bins);
  p.binning = k.binning;
  p.upper = k.binning == Binning::even ? k.bins : 0;
  ASSERT_TRUE(p.pitched());
  std::map<std::string, std::pair<MultiChannelConfig, CompileRequest>> kernels;
  for (const auto& c : multichannel::space()) {
    if (!multichannel::check(c, p, h100_like()).holds()) continue;
    const CompileRequest req = multichannel::request(c, p, 90);
    ASSERT_EQ(req.defines.back(), "-DHT_PITCHED=1");
    kernels.emplace(cache_key(req), std::make_pair(c, req));
  }
  ASSERT_GT(kernels.size(), 20u);
  // Pick: the first kernel of each path, then any kernel bringing a value not yet picked.
  std::set<std::string> paths, values;
  std::vector<const CompileRequest*> picked;
  auto value_keys = [](const MultiChannelConfig& c) {
    return std::vector<std::string>{
        "tpb" + std::to_string(c.block_threads), "vpt" + std::to_string(c.vectors_per_thread),
        "pc" + std::to_string(c.private_copies), "u" + std::to_string(c.unroll),
        "pf" + std::to_string(c.prefetch),       "cpb" + std::to_string(c.channels_per_block)};
  };
  std::set<std::string> all_values;
  for (const auto& [key, entry] : kernels)
    for (const auto& v : value_keys(entry.first)) all_values.insert(v);
  for (const auto& [key, entry] : kernels) {
    const MultiChannelConfig& c = entry.first;
    const std::string path = std::string(c.channels_per_block == 0 ? "flat" : "groups") + ".vec" +
                             std::to_string(c.vector_bytes) + ".lay" + std::to_string(static_cast<int>(c.layout));
    bool brings = paths.insert(path).second;
    for (const auto& v : value_keys(c)) brings = values.insert(v).second || brings;
    if (brings) picked.push_back(&entry.second);
  }
  EXPECT_EQ(values, all_values);
  for (const CompileRequest* req : picked) {
    CompiledKernel out;
    ASSERT_NO_THROW(out = compile(*req)) << req->label;
    EXPECT_EQ(std::string(out.cubin.data() + 1, 3), "ELF") << req->label;
  }
  RecordProperty("kernels", static_cast<int>(kernels.size()));
  RecordProperty("paths", static_cast<int>(paths.size()));
  RecordProperty("compiled", static_cast<int>(picked.size()));
}

INSTANTIATE_TEST_SUITE_P(
    MultiChannel, MultiChannelPitchCompile,
    ::testing::Values(PitchCompileCase{SampleType::u8, Binning::direct, 4, 3, 256},
                      PitchCompileCase{SampleType::u16, Binning::even, 3, 3, 1000},
                      PitchCompileCase{SampleType::u8, Binning::direct, 64, 40, 256},
                      PitchCompileCase{SampleType::u8, Binning::range, 512, 512, 200},
                      PitchCompileCase{SampleType::u16, Binning::direct, 64, 64, 1024}),
    [](const auto& info) { return pitch_case_name(info.param); });
