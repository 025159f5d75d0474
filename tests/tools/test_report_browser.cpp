// The report as a browser shows it: `histtune report` renders the fixture database (H100 tune and
// compare results, git show 450c83b:docs/results/h100/compare.log), headless Chromium lays the
// page out, and a test-only script (the report itself has none) measures every chart's SVG with
// getBBox() and writes what it found into the DOM, which --dump-dom hands back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "cli_runner.hpp"
#include "histtune/hist1d.hpp"

namespace {

using histtune::test::fixture;
using histtune::test::read_text;
using histtune::test::run_cli;
using histtune::test::run_shell;
using histtune::test::ScratchDir;

// $HISTTUNE_CHROMIUM, else Debian's chromium; empty when there is none.
std::string chromium_path() {
  const char* env = std::getenv("HISTTUNE_CHROMIUM");
  const std::string path = env && *env ? env : "/usr/bin/chromium";
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

// Appended to a copy of the page: one line per SVG (its bounding box and its charts) and one per
// kind of mark (how many, how many with a non-empty box), then how many resources were fetched.
const char* const kProbe = R"(<script>
(function () {
  var out = [];
  document.querySelectorAll('svg').forEach(function (svg) {
    var b = svg.getBBox(), charts = svg.querySelectorAll('g.chart'), filled = 0;
    charts.forEach(function (g) {
      var gb = g.getBBox();
      if (g.querySelectorAll('circle.dot').length > 0 && gb.width > 0 && gb.height > 0) filled++;
    });
    out.push('svg ' + svg.getAttribute('class') + ' w=' + Math.round(b.width) + ' h=' +
             Math.round(b.height) + ' charts=' + charts.length + ' filled=' + filled);
  });
  ['rect.bar.tuned', 'rect.bar.default', 'rect.bar.cub', 'line.floor', 'path.range',
   'circle.dot', 'path.trend', 'text.cfg'].forEach(function (sel) {
    var all = document.querySelectorAll(sel), shown = 0;
    all.forEach(function (m) {
      var mb = m.getBBox();
      if (mb.width > 0 || mb.height > 0) shown++;
    });
    out.push('mark ' + sel + ' total=' + all.length + ' shown=' + shown);
  });
  out.push('resources ' + performance.getEntriesByType('resource').length);
  var pre = document.createElement('pre');
  pre.id = 'chart-summary';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
})();
</script>
)";

struct Marks {
  int total = -1, shown = -1;
};

TEST(ReportBrowser, ChartsRenderAndAreNotEmptyInHeadlessChromium) {
  const std::string chromium = chromium_path();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (Debian package `chromium`, which README's test "
                    "command installs; or set $HISTTUNE_CHROMIUM)";
  ScratchDir dir("histtune_report_browser");
  const std::string db = dir / "h100.db";
  ASSERT_EQ(run_cli("import " + fixture("h100_compare.json") + " --db " + db).rc, 0);
  const std::string page = dir / "report.html";
  auto r = run_cli("report --html " + page + " --db " + db);
  ASSERT_EQ(r.rc, 0) << r.out;

  std::string html = read_text(page);
  const auto body_end = html.rfind("</body>");
  ASSERT_NE(body_end, std::string::npos);
  html.insert(body_end, kProbe);
  const std::string probed = dir / "probed.html";
  {
    std::ofstream(probed) << html;
  }
  // Its own profile folder: tests run in parallel. timeout: a hung browser fails, not blocks.
  r = run_shell("timeout 60 " + chromium +
                " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run "
                "--user-data-dir=" + (dir / "profile") + " --window-size=1200,1600 --dump-dom "
                "file://" + probed + " 2>/dev/null");
  ASSERT_EQ(r.rc, 0) << "chromium failed\n" << r.out.substr(0, 2000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(<pre id="chart-summary">([^<]*)</pre>)")))
      << "the probe did not run\n" << r.out.substr(0, 2000);
  const std::string summary = m[1];

  std::map<std::string, std::smatch> svgs;
  const std::regex svg_line(R"(svg (\w+) w=(\d+) h=(\d+) charts=(\d+) filled=(\d+))");
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), svg_line);
       it != std::sregex_iterator(); ++it)
    svgs[(*it)[1]] = *it;
  std::map<std::string, Marks> marks;
  const std::regex mark_line(R"(mark (\S+) total=(\d+) shown=(\d+))");
  for (auto it = std::sregex_iterator(summary.begin(), summary.end(), mark_line);
       it != std::sregex_iterator(); ++it)
    marks[(*it)[1]] = {std::stoi((*it)[2]), std::stoi((*it)[3])};

  ASSERT_EQ(svgs.count("bars"), 1u) << summary;
  ASSERT_EQ(svgs.count("params"), 1u) << summary;
  for (const char* which : {"bars", "params"}) {
    EXPECT_GT(std::stoi(svgs[which][2]), 300) << which << " chart width\n" << summary;
    EXPECT_GT(std::stoi(svgs[which][3]), 200) << which << " chart height\n" << summary;
  }
  // Six problems: each has a tuned, default and CUB bar, a floor and a whisker (the winner's
  // spread), and its configuration under the bars.
  for (const char* sel : {"rect.bar.tuned", "rect.bar.default", "rect.bar.cub", "line.floor",
                          "path.range", "text.cfg"}) {
    EXPECT_EQ(marks[sel].total, 6) << sel << "\n" << summary;
    EXPECT_EQ(marks[sel].shown, 6) << sel << " drawn with a non-empty box\n" << summary;
  }
  // One chart per tunable, each with a dot per problem and a line per series (three here).
  const int params = static_cast<int>(histtune::hist1d::params().size());
  EXPECT_EQ(std::stoi(svgs["params"][4]), params) << summary;
  EXPECT_EQ(std::stoi(svgs["params"][5]), params) << "every chart has dots\n" << summary;
  EXPECT_EQ(marks["circle.dot"].total, 6 * params) << summary;
  EXPECT_EQ(marks["circle.dot"].shown, 6 * params) << summary;
  EXPECT_EQ(marks["path.trend"].total, 3 * params) << summary;
  EXPECT_NE(summary.find("resources 0"), std::string::npos) << "nothing fetched\n" << summary;
}

}  // namespace
