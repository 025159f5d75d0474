// The HTML report renders every section from fixture data, self-contained, and escapes text; and
// `histtune report` on the H100 plan-l fixture reads the per-shape default, spreads and stale rows.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>

#include "cli_runner.hpp"
#include "histtune/family.hpp"
#include "report.hpp"
#include "report_svg.hpp"

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
    r.family = "hist1d";
    r.sample_type = "u8";
    r.series = "u8 direct, 256 bins";
    r.log2_n = log2_n;
    r.log2_bins = 8;
    r.lookup = "exact";
    r.by_distribution = {{"uniform", 0.01 * (i + 1)}, {"constant", 0.008 * (i + 1)}};
    r.label = "tpb1024.vpt2.vec16.pc1.lay1.agg0.u1.pad0.bps2";
    r.params = {{"block_threads", "tpb", 256 << i}, {"vector_bytes", "vec", i * 8},
                {"layout", "lay", i == 2}};
    r.tuned_ms = 0.01 * (i + 1);
    r.tuned_range = ReportRange{0.009 * (i + 1), 0.012 * (i + 1)};
    r.default_ms = 0.02 * (i + 1);
    r.default_source = "tuning run";
    if (i) r.cub_ms = 0.015 * (i + 1);
    if (i) r.floor_ms = 0.008 * (i + 1);
    dev.rows.push_back(r);
    ++i;
  }
  ReportRow u32;
  u32.problem = "u32 direct bins=4096 n=2^26";
  u32.family = "hist1d";
  u32.sample_type = "u32";
  u32.series = "u32 direct, 4096 bins";
  u32.log2_n = 26;
  u32.log2_bins = 12;
  u32.lookup = "exact";
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

// The part of `html` from `<svg class="CLS"` to its `</svg>`.
std::string svg_of(const std::string& html, const std::string& cls) {
  const auto a = html.find("<svg class=\"" + cls + "\"");
  if (a == std::string::npos) return "";
  return html.substr(a, html.find("</svg>", a) - a);
}

TEST(Report, HasTimesWithSpreadFloorAndConfigurationPerProblem) {
  const std::string html = render_report(fixture());
  const std::string problems = svg_of(html, "problems");
  EXPECT_EQ(count(problems, "class=\"name\""), 4u);
  EXPECT_EQ(count(problems, "class=\"mark tuned\""), 4u);
  // The default and CUB: a time and tuned's speedup over it.
  EXPECT_EQ(count(problems, "class=\"mark default\""), 2 * 3u);
  EXPECT_EQ(count(problems, "class=\"mark cub\""), 2 * 2u);
  EXPECT_EQ(count(problems, "class=\"mark floor\""), 2u);
  EXPECT_EQ(count(problems, "class=\"mark range"), 3u) << "whiskers where the spread is known";
  EXPECT_NE(html.find("80.0% of floor"), std::string::npos) << "floor 0.016 / tuned 0.02";
  EXPECT_NE(html.find("<td>tpb512.vpt1.vec0"), std::string::npos) << "the choice";
}

TEST(Report, CubWhiskerWhereCompareStoredItsSpread) {
  ReportData d = fixture();
  d.devices[0].rows[1].cub_range = ReportRange{0.025, 0.04};
  const std::string problems = svg_of(render_report(d), "problems");
  // Its time and tuned's speedup over it; the row of CUB without a spread has neither.
  EXPECT_EQ(count(problems, "class=\"mark range cub\""), 2u);
  EXPECT_NE(problems.find("CUB 0.0300 ms (calls 0.0250..0.0400)"), std::string::npos) << problems;
  EXPECT_NE(problems.find("vs CUB over the calls"), std::string::npos);
}

TEST(Report, SpeedupAndDistributionsPerProblem) {
  const std::string html = render_report(fixture());
  const std::string problems = svg_of(html, "problems");
  EXPECT_NE(problems.find("tuned is 2x the default"), std::string::npos);
  EXPECT_NE(problems.find("tuned is 1.5x CUB"), std::string::npos) << "0.03 / 0.02";
  // The winner on uniform is the 1x line; the others are marks relative to it.
  EXPECT_EQ(count(problems, "class=\"mark dist\""), 3u);
  EXPECT_NE(problems.find("constant 0.0080 ms (0.8x of uniform)"), std::string::npos);
}

TEST(Report, FloorChartsPlotPercentAgainstBinsAndSize) {
  const std::string roofline = svg_of(render_report(fixture()), "roofline");
  EXPECT_EQ(count(roofline, "class=\"chart\""), 2u);
  EXPECT_EQ(count(roofline, "class=\"mark pct\""), 2 * 2u) << "rows with a floor, twice";
  ReportData d = fixture();
  for (auto& r : d.devices[0].rows) r.floor_ms.reset();
  EXPECT_NE(render_report(d).find("No read floor"), std::string::npos);
}

TEST(Report, StaleRowsAreMarked) {
  ReportData d = fixture();
  d.devices[0].rows[1].stale = true;
  d.devices[0].rows[1].lookup = "default";
  d.devices[0].current_templates = "hist1d 0123abcd";
  const std::string html = render_report(d);
  EXPECT_NE(html.find("n=2^24 (stale)"), std::string::npos);
  EXPECT_NE(html.find("1 of 4 rows are stale"), std::string::npos);
  EXPECT_NE(html.find("hist1d 0123abcd"), std::string::npos) << "the template they differ from";
  EXPECT_NE(html.find("<tr class=\"stale\">"), std::string::npos);
  EXPECT_NE(html.find("stale: default"), std::string::npos) << "what the dispatcher does instead";
  EXPECT_EQ(render_report(fixture()).find("are stale"), std::string::npos);
}

TEST(Report, CoverageCellsByLookupLevel) {
  ReportData d = fixture();
  ReportCoverage g;
  g.title = "u8 direct";
  g.log2_ns = {16, 18};
  g.log2_bins = {6, 8};
  g.cells = {{16, 8, "exact", true, false, false, "exact tpb.."},
             {18, 8, "nearest_shape", false, false, true, "nearest_shape tpb.. (unverified)"},
             {16, 6, "default", true, true, false, "default tpb.."}};
  d.devices[0].coverage.push_back(g);
  const std::string coverage = svg_of(render_report(d), "coverage");
  EXPECT_EQ(count(coverage, "class=\"mark cell"), 3u) << "valid shapes only";
  EXPECT_NE(coverage.find("lvl-exact tuned\""), std::string::npos);
  EXPECT_NE(coverage.find("lvl-nearest_shape unverified\""), std::string::npos);
  EXPECT_NE(coverage.find("lvl-default tuned stale\""), std::string::npos);
  EXPECT_NE(coverage.find("bins=2^6 n=2^16: default tpb.."), std::string::npos);
}

TEST(Report, ParameterChartsPlotEachSeriesAgainstSize) {
  const std::string params = svg_of(render_report(fixture()), "params");
  EXPECT_EQ(count(params, "class=\"chart\""), 3u) << "one chart per parameter";
  EXPECT_EQ(count(params, "class=\"mark dot\""), 12u) << "3 parameters x 4 problems";
  EXPECT_EQ(count(params, "class=\"mark trend\""), 6u) << "one line per series and parameter";
  EXPECT_NE(params.find("u32 direct, 4096 bins"), std::string::npos) << "the legend";
  EXPECT_NE(params.find(">2^26<"), std::string::npos) << "x ticks are sizes";
  EXPECT_NE(params.find("block_threads (tpb)"), std::string::npos);
}

// 30 series: the legend wraps inside the 960 px SVG, and no two series look alike.
TEST(Report, LegendWrapsAndSeriesStayDistinct) {
  ReportData d = fixture();
  auto& rows = d.devices[0].rows;
  for (int i = 0; i < 30; ++i) {
    ReportRow r = rows.back();
    r.series = "f32 even, " + std::to_string(1000 + i) + " bins";
    r.problem = "f32 even bins=" + std::to_string(1000 + i) + " n=2^26";
    rows.push_back(r);
  }
  const std::string params = svg_of(render_report(d), "params");
  const std::regex item(R"re(<g transform="translate\(([0-9.]+),[0-9.]+\)">)re"
                        R"re((<[^>]*>)(?:</\w+>)?<text[^>]*>([^<]*)<)re");
  int items = 0;
  for (auto it = std::sregex_iterator(params.begin(), params.end(), item);
       it != std::sregex_iterator(); ++it, ++items) {
    const double x = std::stod((*it)[1]);
    EXPECT_LE(x + svg::text_width((*it)[3], 11) + 10, 960) << (*it)[3] << " past the width";
  }
  EXPECT_EQ(items, 32);
  std::set<std::string> fills;
  for (std::size_t i = 0; i < 32; ++i)
    fills.insert(svg::colour(i) + svg::marker(i, 0, 0, 1, "k", "").substr(0, 5));
  EXPECT_EQ(fills.size(), 32u) << "colour and shape differ for every series";
}

// A value past the scale's span is drawn at its edge, inside the frame.
TEST(Report, ScalesClampIntoTheirRange) {
  svg::Scale s;
  s.log = true;
  s.lo = 0.01, s.hi = 1, s.px0 = 100, s.px1 = 300;
  EXPECT_DOUBLE_EQ(s.at(0.1), 200);
  EXPECT_DOUBLE_EQ(s.at(1e-6), 100);
  EXPECT_DOUBLE_EQ(s.at(50), 300);
  EXPECT_LE(s.ticks(6).size(), 6u);
  EXPECT_GE(s.ticks(6).size(), 3u);
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

TEST(Report, UnparsableWinnersStillGiveTimesAndSaySo) {
  ReportData d = fixture();
  for (auto& r : d.devices[0].rows) r.params.clear();
  const std::string html = render_report(d);
  EXPECT_EQ(count(html, "class=\"mark tuned\""), 4u);
  EXPECT_NE(html.find("No winning configuration could be read"), std::string::npos);
}

TEST(Report, EmptyDatabaseSaysSo) {
  ReportData d = fixture();
  d.devices.clear();
  EXPECT_NE(render_report(d).find("no tuned problems"), std::string::npos);
}

}  // namespace

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::ScratchDir;

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (auto p = from.empty() ? std::string::npos : text.find(from); p != std::string::npos;
       p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
}

// The template hashes plan l was tuned under, and the current ones: the report tests read the
// fixture as if it were tuned with the templates of this build.
const char* const kPlanLHist1D = "095e3fbf8a02a22c";
const char* const kPlanLMultichannel = "7795bf65c242c6db";
std::string current_hist1d() { return histtune::family(histtune::Family::hist1d).template_hash(); }

// The report of h100_plan_l.json (34 problems of the H100 plan l), after replacing `from` with
// `to` in its text.
std::string plan_report(const ScratchDir& dir, const std::string& from = "",
                        const std::string& to = "") {
  std::string text = read_text(fixture("h100_plan_l.json"));
  replace_all(text, kPlanLHist1D, current_hist1d());
  replace_all(text, kPlanLMultichannel,
              histtune::family(histtune::Family::multichannel).template_hash());
  replace_all(text, from, to);
  std::ofstream(dir / "plan.json") << text;
  const std::string db = dir / "plan.db";
  EXPECT_EQ(run_cli("import " + (dir / "plan.json") + " --db " + db).rc, 0);
  const auto r = run_cli("report --html " + (dir / "report.html") + " --db " + db);
  EXPECT_EQ(r.rc, 0) << r.out;
  return read_text(dir / "report.html");
}

// The default column was '-' on every row: the report looked for default_config(), which the
// tuner does not time; it times the family's per-shape default. The tuned whisker was on 1 row.
// Two rows' defaults changed after plan l (f32 even 2^20 bins over 2^24 samples, issue 27's
// global candidate; [1048576, 512] u8, session 47's 64-channel groups), so plan l timed today's
// default on 32 of its 34 rows.
TEST(ReportCli, DefaultIsThePerShapeDefaultTheTunerTimedAndEveryRowHasItsSpread) {
  ScratchDir dir("histtune_report_plan");
  const std::string html = plan_report(dir);
  EXPECT_EQ(count(html, "<td>tuning run</td>"), 32u);
  EXPECT_EQ(count(html, "class=\"mark range tuned\""), 34u);
  // The default's whisker: its time, and tuned's speedup over it.
  EXPECT_EQ(count(html, "class=\"mark range default\""), 2 * 32u);
  EXPECT_EQ(count(html, ">exact</td>"), 34u) << "the dispatcher answers each from its own row";
  EXPECT_EQ(count(html, "class=\"mark dist\""), 3 * 34u) << "skewed, constant, runs";
  EXPECT_NE(html.find("below CUB's on 32 of 33"), std::string::npos);
  EXPECT_EQ(html.find("are stale"), std::string::npos);
  for (const char* grid : {"u8 direct", "u32 range", "u8 direct 3/4 ch"})
    EXPECT_NE(html.find(std::string("class=\"ctitle\">") + grid + "<"), std::string::npos)
        << grid << " coverage grid";
  EXPECT_EQ(::access((dir / "plan.db-wal").c_str(), F_OK), -1) << "report leaves no -wal file";
}

// compare stores CUB's fastest and slowest call since schema 4: the two rows of that CUB median
// get its whisker (time and speedup); the export's other rows, medians only, still draw without.
TEST(ReportCli, CubHasAWhiskerWhereItsSpreadWasStored) {
  ScratchDir dir("histtune_report_cub_spread");
  const std::string html =
      plan_report(dir, "\"cub_ms\":0.0307,", "\"cub_ms\":0.0307,\"cub_min_ms\":0.0301,\"cub_max_ms\":0.032,");
  EXPECT_EQ(count(html, "class=\"mark range cub\""), 2 * 2u);
  EXPECT_EQ(count(html, "(calls 0.0301..0.0320)"), 2u);
  EXPECT_EQ(count(html, "class=\"mark range tuned\""), 34u);
  const ScratchDir plain("histtune_report_cub_medians");
  EXPECT_EQ(count(plan_report(plain), "class=\"mark range cub\""), 0u) << "medians only";
}

TEST(ReportCli, RowsOfAnotherKernelTemplateAreMarkedStale) {
  ScratchDir dir("histtune_report_stale");
  // The 31 1D rows as if tuned with an older template; the 3 multi-channel rows keep theirs.
  const std::string html = plan_report(dir, current_hist1d(), "0123456789abcdef");
  EXPECT_NE(html.find("31 of 34 rows are stale"), std::string::npos);
  EXPECT_EQ(count(html, " (stale)<title>"), 31u);
  EXPECT_EQ(count(html, "<tr class=\"stale\">"), 31u);
  EXPECT_EQ(count(html, ">exact</td>"), 3u);
  EXPECT_GT(count(html, " tuned stale\""), 0u) << "coverage outlines the skipped shapes";
}

}  // namespace
