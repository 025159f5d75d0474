// The HTML report renders every section from fixture data, self-contained, and escapes text.
#include <gtest/gtest.h>

#include <regex>

#include "report.hpp"

using namespace histtune::cli;

namespace {

ReportData fixture() {
  ReportData d;
  d.histtune_version = "0.1.0";
  d.generated_at = "2026-11-21 12:00";
  d.db_path = "/tmp/x.db";
  ReportDevice dev{"NVIDIA H100 80GB HBM3", "GPU-1234", "sm_90", "13000", "13000", "13.0", {}};
  int i = 0;
  for (const char* p : {"u8 direct bins=256 n=2^16", "u8 direct bins=256 n=2^24",
                        "u8 direct bins=256 n=2^28"}) {
    ReportRow r;
    r.problem = p;
    r.label = "tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2";
    r.params = {{"tpb", 256 << i}, {"vec", i * 8}, {"lay", i == 2}};
    r.tuned_ms = 0.01 * (i + 1);
    r.default_ms = 0.02 * (i + 1);
    if (i) r.cub_ms = 0.015 * (i + 1);
    if (i) r.floor_ms = 0.008 * (i + 1);
    dev.rows.push_back(r);
    ++i;
  }
  d.devices.push_back(dev);
  return d;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Report, HasBarsParameterChartsTableAndToolchain) {
  const std::string html = render_report(fixture());
  EXPECT_EQ(count(html, "class=\"bar tuned\""), 3u);
  EXPECT_EQ(count(html, "class=\"bar default\""), 3u);
  EXPECT_EQ(count(html, "class=\"bar cub\""), 2u);
  EXPECT_EQ(count(html, "class=\"floor\""), 2u);
  EXPECT_EQ(count(html, "class=\"chart\""), 3u) << "one chart per parameter";
  EXPECT_EQ(count(html, "class=\"dot\""), 9u);
  EXPECT_NE(html.find("NVRTC 13.0"), std::string::npos);
  EXPECT_NE(html.find("sm_90"), std::string::npos);
  EXPECT_NE(html.find("80.0%"), std::string::npos) << "floor 0.016 / tuned 0.02";
}

TEST(Report, IsSelfContained) {
  const std::string html = render_report(fixture());
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg\"") != std::string::npos, true);
  // The SVG namespace is an identifier, not a fetch; nothing else may point outside.
  const std::regex external(R"((src|href)\s*=\s*"(https?:)?//)");
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(Report, EscapesText) {
  ReportData d = fixture();
  d.devices[0].name = "<b>&evil\"";
  const std::string html = render_report(d);
  EXPECT_EQ(html.find("<b>&evil"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;&amp;evil&quot;"), std::string::npos);
}

TEST(Report, EmptyDatabaseSaysSo) {
  ReportData d = fixture();
  d.devices.clear();
  EXPECT_NE(render_report(d).find("no tuned problems"), std::string::npos);
}

}  // namespace
