// The report as a browser shows it: `histtune report` renders a fixture database, headless
// Chromium lays the page out, and a test-only script (the report itself has none) measures it and
// writes a JSON summary into the DOM, which --dump-dom hands back. Besides "every chart has
// marks", it checks the geometry the eye would: every mark inside its chart's frame, no legend
// and no text past its SVG's edges.
//  - h100_compare.json: H100 tune and compare results of 6 problems (git show
//    450c83b:docs/results/h100/compare.log);
//  - h100_plan_l.json: the 34 problems of the session-17 H100 plan l (docs/results/h100/
//    plan-l.json.gz, each problem's winner on every distribution and its per-shape default) with
//    the baselines of compare-l.log: 21 series in the parameter charts, multi-channel names.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli_runner.hpp"
#include "histtune/hist1d.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_shell;
using histtune::test::ScratchDir;
using nlohmann::json;

// $HISTTUNE_CHROMIUM, else Debian's chromium; empty when there is none.
std::string chromium_path() {
  const char* env = std::getenv("HISTTUNE_CHROMIUM");
  const std::string path = env && *env ? env : "/usr/bin/chromium";
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

// Appended to a copy of the page. Boxes are getBoundingClientRect() (getBBox() in page
// coordinates: transforms and nesting included). A mark is an element of class "mark" (or a dot of
// the older pages' charts) inside a g.chart; its frame is that chart's rect.frame.
const char* const kProbe = R"(<script>
(function () {
  var tol = 0.75, out = {svgs: [], empty_charts: [], outside: [], legend_overflow: [],
                         text_outside: [], marks: {}};
  function box(e) { var b = e.getBoundingClientRect();
                    return {l: b.left, t: b.top, r: b.right, b: b.bottom}; }
  function inside(a, f) { return a.l >= f.l - tol && a.r <= f.r + tol && a.t >= f.t - tol &&
                                 a.b <= f.b + tol; }
  function text(b) { return [b.l, b.t, b.r, b.b].map(Math.round).join(','); }
  function what(e) { return e.tagName + '.' + (e.getAttribute('class') || '').replace(/ /g, '.'); }
  document.querySelectorAll('svg').forEach(function (svg) {
    var sb = box(svg), charts = svg.querySelectorAll('g.chart'), name = svg.getAttribute('class');
    out.svgs.push({cls: name, w: Math.round(sb.r - sb.l), h: Math.round(sb.b - sb.t),
                   charts: charts.length});
    charts.forEach(function (g, i) {
      var id = name + '/' + (g.getAttribute('data-name') || i);
      var frame = g.querySelector('rect.frame'), marks = g.querySelectorAll('.mark, circle.dot');
      if (marks.length === 0 || !frame) { out.empty_charts.push(id); return; }
      var fb = box(frame);
      marks.forEach(function (m) {
        var mb = box(m);
        if (!inside(mb, fb))
          out.outside.push(id + ': ' + what(m) + ' at ' + text(mb) + ', frame ' + text(fb));
      });
    });
    svg.querySelectorAll('g.legend').forEach(function (g) {
      var lb = box(g);
      if (!inside(lb, sb)) out.legend_overflow.push(name + ': legend ' + text(lb) + ', svg ' +
                                                    text(sb));
    });
    svg.querySelectorAll('text').forEach(function (t) {
      var tb = box(t);
      if (!inside(tb, sb)) out.text_outside.push(name + ': "' + t.textContent + '" ' + text(tb));
    });
  });
  ['circle.mark.tuned', 'circle.mark.default', 'circle.mark.cub', 'line.mark.floor',
   'path.mark.range', 'circle.dot', '.mark.dot', 'path.trend', 'text.name', 'rect.cell',
   'table tr'].forEach(function (sel) {
    var all = document.querySelectorAll(sel), shown = 0;
    all.forEach(function (m) { var b = m.getBoundingClientRect();
                               if (b.width > 0 || b.height > 0) shown++; });
    out.marks[sel] = {total: all.length, shown: shown};
  });
  out.time_marks = document.querySelectorAll('g.chart[data-name="time"] circle.mark').length;
  out.resources = performance.getEntriesByType('resource').length;
  var pre = document.createElement('pre');
  pre.id = 'chart-summary';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
)";

// The probe's summary of `page` as laid out by Chromium at 1200 px.
json probe_page(const std::string& chromium, const ScratchDir& dir, const std::string& page) {
  std::string html = read_text(page);
  const auto body_end = html.rfind("</body>");
  if (body_end == std::string::npos) throw std::runtime_error("no </body> in " + page);
  html.insert(body_end, kProbe);
  const std::string probed = dir / "probed.html";
  {
    std::ofstream(probed) << html;
  }
  // Its own profile folder: tests run in parallel. timeout: a hung browser fails, not blocks.
  const auto r = run_shell("timeout 60 " + chromium +
                           " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
                           "--no-first-run --user-data-dir=" + (dir / "profile") +
                           " --window-size=1200,1600 --dump-dom file://" + probed +
                           " 2>/dev/null");
  if (r.rc != 0) throw std::runtime_error("chromium failed\n" + r.out.substr(0, 2000));
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex(R"(<pre id="chart-summary">([^<]*)</pre>)")))
    throw std::runtime_error("the probe did not run\n" + r.out.substr(0, 2000));
  std::string text = m[1];
  // --dump-dom escapes &, < and > in text.
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                                 {"&gt;", ">"},
                                 {"&quot;", "\""},
                                 {"&amp;", "&"}})
    for (auto p = text.find(from); p != std::string::npos; p = text.find(from, p + 1))
      text.replace(p, from.size(), to);
  return json::parse(text);
}

// The report of `fixture_file` imported into a fresh database, probed.
json probe_report(const std::string& chromium, const ScratchDir& dir,
                  const std::string& fixture_file) {
  const std::string db = dir / "h100.db";
  auto r = run_cli("import " + fixture(fixture_file) + " --db " + db);
  if (r.rc != 0) throw std::runtime_error("import failed: " + r.out);
  const std::string page = dir / "report.html";
  r = run_cli("report --html " + page + " --db " + db);
  if (r.rc != 0) throw std::runtime_error("report failed: " + r.out);
  return probe_page(chromium, dir, page);
}

// What the eye checks on any report: charts have marks, inside their frames; legends and text
// stay inside their SVG; nothing is fetched.
void expect_laid_out_well(const json& s) {
  EXPECT_TRUE(s["empty_charts"].empty()) << "charts without marks: " << s["empty_charts"].dump(1);
  EXPECT_TRUE(s["outside"].empty()) << s["outside"].size() << " marks outside their frame, e.g. "
                                    << s["outside"][0];
  EXPECT_TRUE(s["legend_overflow"].empty()) << s["legend_overflow"].dump(1);
  EXPECT_TRUE(s["text_outside"].empty()) << s["text_outside"].size()
                                         << " texts past their SVG, e.g. " << s["text_outside"][0];
  EXPECT_EQ(s["resources"], 0) << "nothing fetched";
}

int total(const json& s, const char* sel) { return s["marks"][sel]["total"]; }
int shown(const json& s, const char* sel) { return s["marks"][sel]["shown"]; }

#define SKIP_WITHOUT_CHROMIUM(chromium)                                                         \
  if ((chromium).empty())                                                                       \
  GTEST_SKIP() << "chromium is not installed (Debian package `chromium`, which README's test " \
                  "command installs; or set $HISTTUNE_CHROMIUM)"

TEST(ReportBrowser, ChartsRenderAndAreNotEmptyInHeadlessChromium) {
  const std::string chromium = chromium_path();
  SKIP_WITHOUT_CHROMIUM(chromium);
  ScratchDir dir("histtune_report_browser");
  const json s = probe_report(chromium, dir, "h100_compare.json");
  std::map<std::string, json> svgs;
  for (const auto& svg : s["svgs"]) svgs[svg["cls"]] = svg;
  for (const char* which : {"problems", "roofline", "coverage", "params"}) {
    ASSERT_EQ(svgs.count(which), 1u) << which << "\n" << s.dump(1);
    EXPECT_GT(svgs[which]["w"].get<int>(), 300) << which << " chart width";
    EXPECT_GT(svgs[which]["h"].get<int>(), 200) << which << " chart height";
  }
  // Six problems: each has a tuned, default and CUB time, a floor and a whisker (the winner's
  // spread), and its configuration in the table (a header row and six).
  EXPECT_EQ(s["time_marks"], 18) << "tuned, default and CUB per problem in the time panel";
  for (const char* sel : {"circle.mark.tuned", "line.mark.floor", "text.name"}) {
    EXPECT_EQ(total(s, sel), 6) << sel;
    EXPECT_EQ(shown(s, sel), 6) << sel << " drawn with a non-empty box";
  }
  // The default and CUB appear twice per problem: their time, and tuned's speedup over them.
  for (const char* sel : {"circle.mark.default", "circle.mark.cub"}) {
    EXPECT_EQ(total(s, sel), 12) << sel;
    EXPECT_EQ(shown(s, sel), 12) << sel;
  }
  EXPECT_GE(shown(s, "path.mark.range"), 6) << "a whisker per problem at least";
  EXPECT_EQ(total(s, "table tr"), 7);
  // One chart per tunable, each with a dot per problem and a line per series (three here).
  const int params = static_cast<int>(histtune::hist1d::params().size());
  EXPECT_EQ(svgs["params"]["charts"], params);
  EXPECT_EQ(total(s, "circle.dot"), 6 * params);
  EXPECT_EQ(total(s, "path.trend"), 3 * params);
  expect_laid_out_well(s);
}

// The full H100 plan: 34 problems, 21 series of 1D problems, 3 multi-channel ones, 17 coverage
// grids. The old report failed here: its legend ran to x = 3267 in a 900 px SVG and its jitter
// put dots outside their frames.
TEST(ReportBrowser, FullH100PlanFitsItsFramesAndWidth) {
  const std::string chromium = chromium_path();
  SKIP_WITHOUT_CHROMIUM(chromium);
  ScratchDir dir("histtune_report_browser_plan");
  const json s = probe_report(chromium, dir, "h100_plan_l.json");
  EXPECT_EQ(shown(s, "text.name"), 34);
  EXPECT_EQ(shown(s, "circle.mark.tuned"), 34);
  EXPECT_EQ(shown(s, "circle.mark.default"), 68) << "per-shape default timed by the tuning run";
  EXPECT_EQ(shown(s, "circle.mark.cub"), 66) << "CUB runs 33 of the 34 (not 512 channels)";
  EXPECT_GT(total(s, "rect.cell"), 500) << "coverage grids";
  expect_laid_out_well(s);
}

}  // namespace
