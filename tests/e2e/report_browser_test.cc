// report.html in a real browser: headless Chromium opens the page offline, and the test reads
// the rendered DOM: every chart drew an SVG with marks, the page counted all its Vega views as
// rendered, and no error, console error or Vega warning was recorded. Skipped, with the reason,
// where no Chromium is installed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "sim/metrics/seed_statistics.h"
#include "tests/support/cli_run.h"
#include "tests/support/report_fixtures.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kBinary = SLICELAB_BINARY;

using testing::read_file;
using testing::run_shell;
using quote_fn = std::string (*)(const std::string&);
constexpr quote_fn quote = testing::shell_quote;

// $SLICELAB_CHROMIUM, else the first of Debian's and others' names found on PATH.
std::string find_browser() {
  if (const char* env = std::getenv("SLICELAB_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::vector<std::string> on_path;
  for (std::string d; std::getline(dirs, d, ':');) on_path.push_back(d);
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "chrome"})
    for (const auto& d : on_path) {
      const fs::path p = fs::path(d) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return "";
}

struct Rendered {
  int status = -1;
  std::string dom;
  std::string attr(const std::string& name) const {
    std::smatch m;
    if (std::regex_search(dom, m, std::regex("<body[^>]*\\s" + name + "=\"([^\"]*)\"")))
      return m[1];
    return "";
  }
  std::string errors() const {
    std::smatch m;
    if (std::regex_search(dom, m, std::regex("<pre id=\"report-errors\"[^>]*>([^<]*)</pre>")))
      return m[1];
    return "(no error element)";
  }
};

class ReportBrowser : public testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    browser_ = find_browser();
    if (browser_.empty())
      GTEST_SKIP() << "no Chromium found (install Debian's chromium package, which "
                      "scripts/setup does, or set SLICELAB_CHROMIUM)";
  }

  // Opens `page` headless (root needs --no-sandbox; a private profile keeps runs apart) and
  // returns the DOM once the page's scripts have run (virtual time lets them finish first).
  Rendered render(const fs::path& page) {
    const fs::path dom = dir_ / "dom.html";
    const std::string cmd =
        "timeout 180 " + quote(browser_) +
        " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
        " --user-data-dir=" +
        quote((dir_ / "profile").string()) + " --virtual-time-budget=30000 --dump-dom " +
        quote("file://" + fs::absolute(page).string()) + " >" + quote(dom.string()) + " 2>" +
        quote((dir_ / "browser.log").string());
    Rendered r;
    r.status = run_shell(cmd);
    r.dom = read_file(dom);
    return r;
  }

  // Every chart container holds an SVG with at least one drawn mark (a path, line or text
  // inside a Vega mark group), and the page's own counters agree.
  void expect_all_charts_drawn(const Rendered& r) {
    ASSERT_EQ(r.status, 0) << read_file(dir_ / "browser.log");
    const std::string expected = r.attr("data-charts-expected");
    ASSERT_FALSE(expected.empty()) << r.dom.substr(0, 500);
    EXPECT_EQ(r.attr("data-charts-rendered"), expected) << r.errors();
    EXPECT_EQ(r.attr("data-chart-errors"), "0") << r.errors();
    EXPECT_EQ(r.errors(), "");
    const int n = std::stoi(expected);
    EXPECT_GT(n, 0);
    // One SVG per chart spec, counted in the DOM rather than by the page's own counter.
    const std::regex svg("<svg[\\s>]");
    EXPECT_EQ(std::distance(std::sregex_iterator(r.dom.begin(), r.dom.end(), svg),
                            std::sregex_iterator()),
              n);
    for (int i = 1; i <= n; ++i) {
      const std::string open = "id=\"chart-" + std::to_string(i) + "\"";
      const size_t at = r.dom.find(open);
      ASSERT_NE(at, std::string::npos) << open;
      const size_t end = r.dom.find("id=\"chart-" + std::to_string(i + 1) + "\"", at);
      const std::string chart =
          r.dom.substr(at, end == std::string::npos ? std::string::npos : end - at);
      EXPECT_NE(chart.find("<svg"), std::string::npos) << open;
      EXPECT_TRUE(std::regex_search(
          chart, std::regex("class=\"mark-(rect|line|symbol) role-mark[^\"]*\"[^>]*><path")))
          << open << " has no drawn bar, line or point";
    }
  }

  std::string browser_;
};

// How many error bars the page's chart specs hold, and how many the browser drew: the rule
// lines inside the "error-bars" mark groups of the rendered SVG.
size_t error_bars_in_specs(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"chart-specs\">";
  const size_t at = html.find(open);
  if (at == std::string::npos) return 0;
  const size_t end = html.find("</script>", at);
  const auto specs = nlohmann::json::parse(html.substr(at + open.size(), end - at - open.size()));
  size_t n = 0;
  for (const auto& c : specs)
    for (const auto& d : c["spec"].value("data", nlohmann::json::array()))
      if (d.value("name", "") == "intervals") n += d["values"].size();
  return n;
}

size_t error_bars_drawn(const std::string& dom) {
  size_t n = 0;
  const std::regex group("class=\"mark-rule role-mark error-bars\"[^>]*>(.*?)</g>");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), group); it != std::sregex_iterator();
       ++it) {
    const std::string inside = (*it)[1];
    const std::regex line("<line[\\s>]");
    n += static_cast<size_t>(std::distance(std::sregex_iterator(inside.begin(), inside.end(), line),
                                           std::sregex_iterator()));
  }
  return n;
}

// Adds the "uncertainty" block (docs/results-format.md) to a multi-seed summary.json that does
// not carry one yet, computed from its seed-<n>/summary.json files, for a few headline keys.
void add_uncertainty_if_missing(const fs::path& folder) {
  auto summary = nlohmann::ordered_json::parse(read_file(folder / "summary.json"));
  for (const auto& p : summary["policies"])
    if (p.contains("uncertainty")) return;
  std::vector<nlohmann::ordered_json> seeds;
  for (const auto& seed : summary["seeds"])
    seeds.push_back(nlohmann::ordered_json::parse(
        read_file(folder / ("seed-" + std::to_string(seed.get<uint64_t>())) / "summary.json")));
  const auto at = [](const nlohmann::ordered_json& policy, const std::string& key) {
    const auto ptr =
        nlohmann::ordered_json::json_pointer("/" + std::regex_replace(key, std::regex("\\."), "/"));
    return policy.contains(ptr) && policy[ptr].is_number()
               ? std::optional(policy[ptr].get<double>())
               : std::nullopt;
  };
  for (size_t i = 0; i < summary["policies"].size(); ++i) {
    auto& policy = summary["policies"][i];
    nlohmann::ordered_json block = nlohmann::ordered_json::object();
    for (const std::string key :
         {"allocation_ratio.time_weighted", "utilization.sm", "queue_delay_s.p99", "jct_s.p99",
          "slo.attainment", "gpu_hours.allocated", "cost_usd"}) {
      std::vector<double> values;
      for (const auto& s : seeds)
        if (const auto v = at(s["policies"][i], key)) values.push_back(*v);
      if (values.empty()) continue;
      const Estimate e = estimate(values);
      block[key] = {{"n", e.n},
                    {"ci95", e.half_width ? nlohmann::ordered_json::array({e.low(), e.high()})
                                          : nlohmann::ordered_json(nullptr)},
                    {"min", e.min},
                    {"max", e.max}};
    }
    policy["uncertainty"] = block;
  }
  summary["uncertainty"] = "ci95: the 95% confidence interval of the mean over the seeds";
  std::ofstream(folder / "summary.json", std::ios::binary) << summary.dump(2);
}

TEST_F(ReportBrowser, QuickstartReportRendersEveryChartWithoutErrors) {
  const fs::path out = dir_ / "quickstart";
  ASSERT_EQ(run_shell(quote(kBinary) + " compare " + quote(kSource + "/scenarios/quickstart.yaml") +
                      " -q --report --out " + quote(out.string())),
            0);
  expect_all_charts_drawn(render(out / "report.html"));
}

TEST_F(ReportBrowser, MultiSeedCompareReportDrawsErrorBars) {
  // Quickstart over three seeds; its summary.json with the per-policy "uncertainty" block.
  std::string yaml = read_file(kSource + "/scenarios/quickstart.yaml");
  yaml = std::regex_replace(yaml, std::regex("\nseed: 42\n"), "\nseeds: [1, 2, 3]\n");
  testing::write_text(dir_ / "seeds.yaml", yaml);
  const fs::path out = dir_ / "seeds";
  ASSERT_EQ(run_shell(quote(kBinary) + " compare " + quote((dir_ / "seeds.yaml").string()) +
                      " -q --out " + quote(out.string())),
            0);
  add_uncertainty_if_missing(out);
  ASSERT_EQ(run_shell(quote(kBinary) + " report -q " + quote(out.string())), 0);
  const std::string html = read_file(out / "report.html");
  const size_t in_specs = error_bars_in_specs(html);
  EXPECT_GT(in_specs, 0u);
  EXPECT_NE(html.find("95% confidence interval of the mean over 3 seeds"), std::string::npos);
  const Rendered r = render(out / "report.html");
  expect_all_charts_drawn(r);
  EXPECT_EQ(error_bars_drawn(r.dom), in_specs);
}

TEST_F(ReportBrowser, ReportWithEveryOptionalPartRenders) {
  // Isolation column, extra keys, fill curves and the planner's capacity curves.
  testing::write_full_fixture(dir_ / "full");
  ASSERT_EQ(run_shell(quote(kBinary) + " report -q " + quote((dir_ / "full").string())), 0);
  const Rendered r = render(dir_ / "full" / "report.html");
  expect_all_charts_drawn(r);
  EXPECT_EQ(r.attr("data-charts-expected"), "18");
}

TEST_F(ReportBrowser, SevenPoliciesDrawSmallMultiplesWithoutErrors) {
  // Seven policies: the time series are drawn as one panel per policy (a Vega layout of
  // faceted groups), which must render as completely as a single chart.
  const fs::path out = dir_ / "sharing-modes";
  ASSERT_EQ(
      run_shell(quote(kBinary) + " compare " + quote(kSource + "/scenarios/sharing-modes.yaml") +
                " -q --report --out " + quote(out.string())),
      0);
  const Rendered r = render(out / "report.html");
  expect_all_charts_drawn(r);
  // Every chart has a title; beyond those, each of the two time-series charts titles one
  // panel per policy (the scenario has seven).
  const std::regex title("aria-label=\"Title text '");
  const auto titles = std::distance(std::sregex_iterator(r.dom.begin(), r.dom.end(), title),
                                    std::sregex_iterator());
  EXPECT_EQ(titles - std::stoi(r.attr("data-charts-expected")), 2 * 7);
}

TEST_F(ReportBrowser, PlanReportDrawsEachTargetWithItsCrossings) {
  const fs::path out = dir_ / "plan";
  ASSERT_EQ(run_shell(quote(kBinary) + " plan " + quote(kSource + "/scenarios/capacity-plan.yaml") +
                      " -q --out " + quote(out.string())),
            0);
  ASSERT_EQ(run_shell(quote(kBinary) + " report -q " + quote(out.string())), 0);
  const Rendered r = render(out / "report.html");
  expect_all_charts_drawn(r);
  // One chart per target of the plan block (three), each with its crossing diamonds drawn.
  EXPECT_EQ(r.attr("data-charts-expected"), "3");
  const std::regex crossings("class=\"mark-symbol role-mark crossings\"[^>]*><path");
  const auto drawn = std::distance(std::sregex_iterator(r.dom.begin(), r.dom.end(), crossings),
                                   std::sregex_iterator());
  EXPECT_EQ(drawn, 3);
  // The plan sized over 5 seeds: each chart draws the seed range at its sizes as bars.
  const std::regex spreads("class=\"mark-rule role-mark spreads\"[^>]*><line");
  const auto bars = std::distance(std::sregex_iterator(r.dom.begin(), r.dom.end(), spreads),
                                  std::sregex_iterator());
  EXPECT_GE(bars, 1);
}

TEST_F(ReportBrowser, SweepReportRendersEveryHeatmap) {
  const fs::path out = dir_ / "sweep";
  ASSERT_EQ(run_shell(quote(kBinary) + " sweep " +
                      quote(kSource + "/scenarios/sweeps/example-sweep.yaml") + " -q --out " +
                      quote(out.string())),
            0);
  ASSERT_EQ(run_shell(quote(kBinary) + " report -q " + quote(out.string())), 0);
  const Rendered r = render(out / "report.html");
  expect_all_charts_drawn(r);
  EXPECT_NE(r.dom.find("Where each policy meets the targets"), std::string::npos);
}

TEST_F(ReportBrowser, DiffReportRendersEveryChart) {
  // Before and after: the same scenario under two seeds, so that the figures change.
  for (const char* seed : {"1", "2"})
    ASSERT_EQ(run_shell(quote(kBinary) + " compare " +
                        quote(kSource + "/scenarios/quickstart.yaml") + " -q --seed " + seed +
                        " --out " + quote((dir_ / (std::string("seed-") + seed)).string())),
              0);
  ASSERT_EQ(
      run_shell(quote(kBinary) + " diff -q " + quote((dir_ / "seed-1").string()) + " " +
                quote((dir_ / "seed-2").string()) + " --out " + quote((dir_ / "diff").string())),
      0);
  expect_all_charts_drawn(render(dir_ / "diff" / "diff.html"));
}

TEST_F(ReportBrowser, ABrokenChartIsCaught) {
  // The checks above can fail: a chart whose spec refers to a scale that does not exist must
  // show up as an error and as a chart that did not render.
  testing::write_full_fixture(dir_ / "broken", false);
  ASSERT_EQ(run_shell(quote(kBinary) + " report -q " + quote((dir_ / "broken").string())), 0);
  std::string html = read_file(dir_ / "broken" / "report.html");
  const std::string ref = "\"scale\":\"x\"";
  const size_t at = html.find(ref, html.find("id=\"chart-specs\""));
  ASSERT_NE(at, std::string::npos);
  html.replace(at, ref.size(), "\"scale\":\"nosuchscale\"");
  std::ofstream(dir_ / "broken" / "report.html", std::ios::binary) << html;
  const Rendered r = render(dir_ / "broken" / "report.html");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.attr("data-chart-errors"), "0");
  EXPECT_NE(r.errors(), "");
  EXPECT_EQ(std::stoi(r.attr("data-charts-rendered")),
            std::stoi(r.attr("data-charts-expected")) - 1)
      << r.errors();
}

}  // namespace
}  // namespace slicelab
