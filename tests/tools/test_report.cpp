// The HTML report renders every section from fixture data, self-contained, and escapes text.
#include <gtest/gtest.h>

#include <regex>

#include "report.hpp"

using namespace histtune::cli;

namespace {

// Three u8 problems (2^16, 2^24, 2^28) and one u32 problem: two series in the parameter charts.
ReportData fixture() {
  ReportData d;
  d.histtune_version = "0.1.0";
  d.generated_at = "2026-11-21 12:00";
  d.db_path = "/tmp/x.db";
  ReportDevice dev;
  dev.name = "NVIDIA H100 80GB HBM3";
  dev.uuid = "GPU-1234";
  dev.arch = "sm_90";
  dev.driver = "13.0";
  dev.runtime = "12.8";
  dev.nvrtc = "13.0";
  dev.sm_count = 132;
  dev.measured_by = "histtune 0.1.0; kernel template abc";
  int i = 0;
  for (int log2_n : {16, 24, 28}) {
    ReportRow r;
    r.problem = "u8 direct bins=256 n=2^" + std::to_string(log2_n);
    r.series = "u8 direct, 256 bins";
    r.log2_n = log2_n;
    r.label = "tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2";
    r.params = {{"block_threads", "tpb", 256 << i}, {"vector_bytes", "vec", i * 8},
                {"layout", "lay", i == 2}};
    r.tuned_ms = 0.01 * (i + 1);
    r.tuned_range = ReportRange{0.009 * (i + 1), 0.012 * (i + 1)};
    r.default_ms = 0.02 * (i + 1);
    if (i) r.cub_ms = 0.015 * (i + 1);
    if (i) r.floor_ms = 0.008 * (i + 1);
    dev.rows.push_back(r);
    ++i;
  }
  ReportRow u32;
  u32.problem = "u32 direct bins=4096 n=2^26";
  u32.series = "u32 direct, 4096 bins";
  u32.log2_n = 26;
  u32.label = "tpb512.vpt1.vec0.pc1.lay0.agg0.u1.pad0.bps8";
  u32.params = {{"block_threads", "tpb", 512}, {"vector_bytes", "vec", 0}, {"layout", "lay", 0}};
  u32.tuned_ms = 0.09;
  dev.rows.push_back(u32);
  d.devices.push_back(dev);
  return d;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Report, HasBarsWithSpreadFloorAndConfigurationPerProblem) {
  const std::string html = render_report(fixture());
  EXPECT_EQ(count(html, "<g class=\"problem\">"), 4u);
  EXPECT_EQ(count(html, "class=\"bar tuned\""), 4u);
  EXPECT_EQ(count(html, "class=\"bar default\""), 3u);
  EXPECT_EQ(count(html, "class=\"bar cub\""), 2u);
  EXPECT_EQ(count(html, "class=\"floor\""), 2u);
  EXPECT_EQ(count(html, "class=\"range\""), 3u) << "whiskers where the spread is known";
  EXPECT_NE(html.find("80.0% of floor"), std::string::npos) << "floor 0.016 / tuned 0.02";
  EXPECT_NE(html.find("class=\"cfg\">tpb512.vpt1.vec0"), std::string::npos) << "the choice";
}

TEST(Report, ParameterChartsPlotEachSeriesAgainstSize) {
  const std::string html = render_report(fixture());
  EXPECT_EQ(count(html, "class=\"chart\""), 3u) << "one chart per parameter";
  EXPECT_EQ(count(html, "class=\"dot\""), 12u) << "3 parameters x 4 problems";
  EXPECT_EQ(count(html, "class=\"trend\""), 6u) << "one line per series and parameter";
  EXPECT_NE(html.find("u32 direct, 4096 bins"), std::string::npos) << "the legend";
  EXPECT_NE(html.find(">2^26<"), std::string::npos) << "x ticks are sizes";
  EXPECT_NE(html.find("block_threads (tpb)"), std::string::npos);
}

TEST(Report, NamesDeviceAndToolchain) {
  const std::string html = render_report(fixture());
  for (const char* s : {"NVIDIA H100 80GB HBM3", "sm_90", "132 SMs", "CUDA driver 13.0",
                        "CUDA runtime 12.8", "NVRTC 13.0", "kernel template abc"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
}

TEST(Report, IsSelfContained) {
  const std::string html = render_report(fixture());
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg\"") != std::string::npos, true);
  // The SVG namespace is an identifier, not a fetch; nothing else may point outside.
  const std::regex external(R"((src|href)\s*=\s*"(https?:)?//)");
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
}

TEST(Report, EscapesText) {
  ReportData d = fixture();
  d.devices[0].name = "<b>&evil\"";
  d.devices[0].rows[0].series = "<i>";
  const std::string html = render_report(d);
  EXPECT_EQ(html.find("<b>&evil"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;evil&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
}

TEST(Report, WithoutBaselinesSaysWhereTheyComeFrom) {
  ReportData d = fixture();
  for (auto& r : d.devices[0].rows) r.cub_ms.reset(), r.floor_ms.reset();
  EXPECT_NE(render_report(d).find("has not been run"), std::string::npos);
}

TEST(Report, UnparsableWinnersStillGiveBarsAndSaySo) {
  ReportData d = fixture();
  for (auto& r : d.devices[0].rows) r.params.clear();
  const std::string html = render_report(d);
  EXPECT_EQ(count(html, "class=\"bar tuned\""), 4u);
  EXPECT_NE(html.find("No winning configuration could be read"), std::string::npos);
}

TEST(Report, EmptyDatabaseSaysSo) {
  ReportData d = fixture();
  d.devices.clear();
  EXPECT_NE(render_report(d).find("no tuned problems"), std::string::npos);
}

}  // namespace
