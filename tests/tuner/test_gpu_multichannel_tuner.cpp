// On the GPU: the CLI tunes a small multi-channel problem end to end into a fresh database; the
// dispatcher finds the stored winner, which runs bit-exact against the host reference, and so do
// the C++ and C multi-channel calls (through the default dispatcher when it reads that database).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "gpu.hpp"
#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/histtune.h"
#include "histtune/histtune.hpp"
#include "histtune/reference.hpp"
#include "histtune/tuner/inputs.hpp"

using namespace histtune;

namespace {

std::string run_cli(const std::string& args) {
  const std::string cmd = histtune::test::cli_path() + " " + args + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return "popen failed";
  std::string out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  const int rc = ::pclose(pipe);
  return rc == 0 ? out : "exit " + std::to_string(rc) + ":\n" + out;
}

// p's rows drawn as flat samples (every channel mixed: values beyond the bins too) on the device.
struct Inputs {
  explicit Inputs(const Problem& p) {
    Problem flat = p;
    flat.family = hist1d::kFamily;
    flat.channels = flat.active_channels = 1;
    flat.n = p.total_samples();
    host = tuner::make_samples(flat, 17, tuner::Distribution::mixed);
    expect = reference_histogram(p, host.data());
    HT_CUDA(cudaMalloc(&d_in, host.size()));
    HT_CUDA(cudaMemcpy(d_in, host.data(), host.size(), cudaMemcpyHostToDevice));
    HT_CUDA(cudaMalloc(&d_counts, sizeof(std::uint32_t) * expect.size()));
  }
  ~Inputs() {
    cudaFree(d_in);
    cudaFree(d_counts);
  }
  std::vector<std::uint32_t> counts() const {
    std::vector<std::uint32_t> got(expect.size());
    HT_CUDA(cudaMemcpy(got.data(), d_counts, sizeof(std::uint32_t) * got.size(),
                       cudaMemcpyDeviceToHost));
    return got;
  }
  std::vector<std::uint8_t> host;
  std::vector<std::uint32_t> expect;
  std::uint8_t* d_in = nullptr;
  std::uint32_t* d_counts = nullptr;
};

TEST(MultiChannelEndToEnd, CliTunesThenDispatchRunsTheWinnerBitExact) {
  HT_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("histtune_mc_e2e_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string db_path = (dir / "tune.db").string();
  // RGBA rows, 3 of 4 channels counted, 2^16 pixels: small enough for a short run.
  const std::string out = run_cli("--gpu auto --db " + db_path +
                                  " --problem mc:3/4:u8:direct:256:2^16 --budget 24");
  ASSERT_EQ(out.find("exit "), std::string::npos) << out;
  EXPECT_NE(out.find("winner mc."), std::string::npos) << out;

  Problem p;
  p.family = multichannel::kFamily;
  p.num_bins = 256;
  p.n = 1u << 16;
  p.channels = 4;
  p.active_channels = 3;
  const DeviceInfo d = query_device(current_device());
  std::string winner;
  {
    db::Database db(db_path);
    const auto w = db.winner(d.uuid, p.key());
    ASSERT_TRUE(w) << out;
    winner = w->config_label;
    EXPECT_FALSE(db.measurements(d.uuid, p.key()).empty());
  }
  Dispatcher disp(db_path);
  const MultiChannelChoice c = disp.explain_multichannel(d, p);
  EXPECT_EQ(c.level, LookupLevel::exact) << c.detail;
  EXPECT_EQ(c.config.label(), winner);
  EXPECT_FALSE(c.unverified) << c.stale;
  // The chosen configuration, launched as the runtime launches it: bit-exact.
  Inputs in(p);
  KernelCache cache;
  const Kernel k = cache.get(multichannel::request(c.config, p, d.arch()), multichannel::kKernel);
  multichannel::launch(cache, k, c.config, p, d, in.d_in, in.d_counts, nullptr);
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(in.counts(), in.expect) << winner;
  // A larger frame takes the same winner as its nearest shape, and runs it bit-exact.
  Problem big = p;
  big.n = 1u << 18;
  const MultiChannelChoice near = disp.explain_multichannel(d, big);
  EXPECT_EQ(near.level, LookupLevel::nearest_shape) << near.detail;
  Inputs in_big(big);
  const Kernel kb = cache.get(multichannel::request(near.config, big, d.arch()),
                              multichannel::kKernel);
  multichannel::launch(cache, kb, near.config, big, d, in_big.d_in, in_big.d_counts, nullptr);
  HT_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(in_big.counts(), in_big.expect) << near.config.label();

  // The public calls, through the process's default dispatcher. It reads this database only when
  // this test creates it (ctest runs each test in its own process).
  ::setenv("HISTTUNE_DB", db_path.c_str(), 1);
  const bool reads_it = default_dispatcher().db_path() == db_path;
  ::unsetenv("HISTTUNE_DB");
  Status s = histogram_multichannel_direct(in.d_in, p.n, 4, 3, 256, in.d_counts);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(in.counts(), in.expect);
  const MultiChannelChoice used = last_multichannel_choice();
  if (reads_it) {
    EXPECT_EQ(used.level, LookupLevel::exact) << used.detail;
    EXPECT_EQ(used.config.label(), winner);
  }
  EXPECT_EQ(histtune_histogram_multichannel_direct_u8(in.d_in, p.n, 4, 3, 256, in.d_counts,
                                                      nullptr),
            HISTTUNE_OK)
      << histtune_last_error();
  EXPECT_EQ(in.counts(), in.expect);
  EXPECT_EQ(std::string(histtune_last_configuration()), used.config.label());
  EXPECT_EQ(std::string(histtune_last_lookup_level()), to_string(used.level));
  std::filesystem::remove_all(dir);
  if (!reads_it)
    GTEST_SKIP() << "the tuned lookup through the free functions was not checked: this process's "
                    "default dispatcher was created before the test (run it alone)";
}

TEST(MultiChannelCApi, EveryCallMatchesTheReference) {
  HT_REQUIRE_GPU();
  struct Shape {
    SampleType type;
    Binning binning;
    std::uint32_t channels, active, bins;
  };
  for (const Shape s : {Shape{SampleType::u8, Binning::direct, 4, 3, 256},
                        Shape{SampleType::u16, Binning::direct, 4, 4, 4096},
                        Shape{SampleType::u8, Binning::even, 3, 3, 64},
                        Shape{SampleType::u16, Binning::even, 4, 2, 100},
                        Shape{SampleType::u8, Binning::direct, 512, 512, 256}}) {
    Problem p;
    p.family = multichannel::kFamily;
    p.sample_type = s.type;
    p.binning = s.binning;
    p.num_bins = s.bins;
    p.n = s.channels > 4 ? 4099 : 100003;  // odd row counts
    p.channels = s.channels;
    p.active_channels = s.active;
    if (s.binning == Binning::even) {
      p.lower = 10;
      p.upper = s.type == SampleType::u8 ? 250 : 60000;
    }
    Inputs in(p);
    const auto lo = static_cast<std::int64_t>(p.lower), hi = static_cast<std::int64_t>(p.upper);
    const auto* u16 = reinterpret_cast<const std::uint16_t*>(in.d_in);
    histtune_status st = HISTTUNE_INTERNAL;
    if (s.type == SampleType::u8 && s.binning == Binning::direct)
      st = histtune_histogram_multichannel_direct_u8(in.d_in, p.n, s.channels, s.active, s.bins,
                                                     in.d_counts, nullptr);
    else if (s.type == SampleType::u16 && s.binning == Binning::direct)
      st = histtune_histogram_multichannel_direct_u16(u16, p.n, s.channels, s.active, s.bins,
                                                      in.d_counts, nullptr);
    else if (s.type == SampleType::u8)
      st = histtune_histogram_multichannel_even_u8(in.d_in, p.n, s.channels, s.active, s.bins,
                                                   lo, hi, in.d_counts, nullptr);
    else
      st = histtune_histogram_multichannel_even_u16(u16, p.n, s.channels, s.active, s.bins, lo,
                                                    hi, in.d_counts, nullptr);
    ASSERT_EQ(st, HISTTUNE_OK) << p.describe() << ": " << histtune_last_error();
    EXPECT_EQ(in.counts(), in.expect) << p.describe() << " " << histtune_last_configuration();
    EXPECT_EQ(std::string(histtune_last_configuration()).rfind("mc.", 0), 0u);
    EXPECT_STRNE(histtune_last_lookup_level(), "");
  }
  // Errors: the C++ call's message, and the getters keep the last success.
  const std::string before = histtune_last_configuration();
  std::uint32_t* d_counts = nullptr;
  HT_CUDA(cudaMalloc(&d_counts, 64));
  EXPECT_EQ(histtune_histogram_multichannel_direct_u8(nullptr, 0, 4, 5, 4, d_counts, nullptr),
            HISTTUNE_INVALID_ARGUMENT);
  EXPECT_NE(std::strstr(histtune_last_error(), "active_channels"), nullptr) << histtune_last_error();
  EXPECT_EQ(before, histtune_last_configuration());
  HT_CUDA(cudaFree(d_counts));
}

}  // namespace
