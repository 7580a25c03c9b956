// docs/examples/grafana-slicelab-extender.json: an importable Grafana dashboard whose every
// query reads only series the extender exports. The exported series are taken from a scrape of
// a shadow-mode extender in this process (every family is registered in both modes), so a
// renamed or removed series, or a dashboard typo, fails here rather than as an empty panel.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "backends/k8s/extender_state.h"
#include "backends/k8s/metrics_endpoint.h"
#include "sim/scenario/scenario.h"
#include "tests/support/prometheus_text_parser.h"
#include "tests/support/promql_series_names.h"
#include "workloads/kube/kube_objects.h"

namespace slicelab::k8s {
namespace {

using slicelab::testing::grafana_variable_expression;
using slicelab::testing::parse_prometheus_text;
using slicelab::testing::promql_selectors;

const std::string kDashboardSource = std::string(SLICELAB_SOURCE_DIR);
const std::string kDashboard = kDashboardSource + "/docs/examples/grafana-slicelab-extender.json";

nlohmann::json read_grafana_dashboard() {
  std::ifstream in(kDashboard);
  EXPECT_TRUE(in.good()) << kDashboard;
  return nlohmann::json::parse(in);
}

// What a scrape holds: the sample names a Prometheus server stores for its families (a
// counter's or gauge's name, a histogram's _bucket, _sum and _count, never its bare name), and
// for those with samples the label names they carry.
struct ExportedSeries {
  std::set<std::string> names;
  std::map<std::string, std::set<std::string>> labels;
};

void add_stored_names(const std::string& text, ExportedSeries& out) {
  for (const auto& family : parse_prometheus_text(text).families) {
    if (family.type == "histogram") {
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        out.names.insert(family.name + suffix);
    } else {
      out.names.insert(family.name);
    }
    for (const auto& sample : family.samples)
      for (const auto& [label, value] : sample.labels) out.labels[sample.name].insert(label);
  }
}

// What a shadow-mode extender over scenarios/kubernetes exports, with its watch and decision
// log sources wired as `serve extender --shadow --record` wires them.
ExportedSeries exported_series() {
  const Scenario scenario = load_scenario(kDashboardSource + "/scenarios/kubernetes.yaml");
  ExtenderOptions options;
  options.shadow = true;
  ExtenderState state(scenario, scenario.policies.front(), 7, options);
  KubeObjects objects;
  read_kube_objects(kDashboardSource + "/scenarios/kubernetes/nodes.json", objects);
  read_kube_objects(kDashboardSource + "/scenarios/kubernetes/pods.json", objects);
  state.load(objects);
  ExportedSeries series;
  MetricsEndpoint endpoint(state);
  endpoint.set_watch_source([](WatchKind) { return WatchStats{}; });
  endpoint.set_decision_log_source([] { return DecisionLogFigures{}; });
  // A request answered, as the server records it: the per-code series exist from the first one.
  endpoint.metrics().record_request("filter", 200, 0.001);
  const std::string whole = endpoint.scrape();
  add_stored_names(whole, series);
  // The dropped-families gauge appears only in a scrape over its limit: take one such scrape.
  MetricsEndpoint capped(state, whole.find("# HELP hami_"));
  add_stored_names(capped.scrape(), series);
  return series;
}

struct DashboardQuery {
  std::string where;  // "panel 'Title' target A", "variable job"
  std::string expr;
  bool panel = false;  // a panel's target (must select a series), not a variable
};

void collect_panel_queries(const nlohmann::json& panels, std::vector<DashboardQuery>& out) {
  for (const auto& p : panels) {
    if (p.contains("panels")) collect_panel_queries(p["panels"], out);  // rows' panels
    for (const auto& t : p.value("targets", nlohmann::json::array())) {
      out.push_back({"panel '" + p.value("title", "") + "' target " + t.value("refId", "?"),
                     t.value("expr", ""), true});
    }
  }
}

std::vector<DashboardQuery> dashboard_queries(const nlohmann::json& dashboard) {
  std::vector<DashboardQuery> out;
  collect_panel_queries(dashboard.value("panels", nlohmann::json::array()), out);
  for (const auto& v : dashboard["templating"].value("list", nlohmann::json::array())) {
    if (v.value("type", "") != "query") continue;
    const nlohmann::json& q = v["query"];
    const std::string text = q.is_string() ? q.get<std::string>() : q.value("query", "");
    out.push_back({"variable " + v.value("name", ""), grafana_variable_expression(text), false});
  }
  return out;
}

// Every problem of the dashboard's queries: a query that does not tokenize, a panel target that
// selects no series, a series the extender does not export, a matcher on a label its series do
// not carry (job and instance are the scrape's own).
std::vector<std::string> query_problems(const nlohmann::json& dashboard,
                                        const ExportedSeries& exported) {
  std::vector<std::string> problems;
  for (const DashboardQuery& q : dashboard_queries(dashboard)) {
    std::vector<slicelab::testing::PromqlSelector> selectors;
    try {
      selectors = promql_selectors(q.expr);
    } catch (const slicelab::testing::PromqlTokenError& e) {
      problems.push_back(q.where + ": " + e.what());
      continue;
    }
    if (q.panel && selectors.empty())
      problems.push_back(q.where + ": selects no series: " + q.expr);
    for (const auto& sel : selectors) {
      if (!exported.names.count(sel.name)) {
        problems.push_back(q.where + ": '" + sel.name + "' is not exported");
        continue;
      }
      const auto known = exported.labels.find(sel.name);
      if (known == exported.labels.end()) continue;  // no samples to learn its labels from
      for (const std::string& label : sel.labels) {
        if (label != "job" && label != "instance" && !known->second.count(label))
          problems.push_back(q.where + ": '" + sel.name + "' has no label '" + label + "'");
      }
    }
  }
  return problems;
}

class GrafanaDashboardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { exported_ = std::make_unique<ExportedSeries>(exported_series()); }
  static void TearDownTestSuite() { exported_.reset(); }
  static std::unique_ptr<ExportedSeries> exported_;
};
std::unique_ptr<ExportedSeries> GrafanaDashboardTest::exported_;

TEST_F(GrafanaDashboardTest, EveryQueriedSeriesIsExported) {
  const nlohmann::json dashboard = read_grafana_dashboard();
  const std::vector<DashboardQuery> queries = dashboard_queries(dashboard);
  ASSERT_GE(queries.size(), 20u);
  for (const std::string& p : query_problems(dashboard, *exported_)) ADD_FAILURE() << p;
  // The scrape itself holds what the panels chart: requests, latency, watch health, the shadow
  // figures, the decision log and the process's memory.
  for (const char* n : {"slicelab_extender_request_duration_seconds_bucket",
                        "slicelab_extender_watch_expired_total", "slicelab_shadow_bound_pods_total",
                        "slicelab_shadow_record_dropped_total", "process_resident_memory_bytes",
                        "slicelab_metrics_families_dropped"})
    EXPECT_TRUE(exported_->names.count(n)) << n;
}

TEST_F(GrafanaDashboardTest, AMadeUpOrMisspelledSeriesIsCaught) {
  nlohmann::json dashboard = read_grafana_dashboard();
  ASSERT_TRUE(query_problems(dashboard, *exported_).empty());
  nlohmann::json& first = dashboard["panels"][1]["targets"][0]["expr"];
  const std::string original = first.get<std::string>();
  // A series nobody exports, a histogram's bare name (Prometheus stores only its suffixed
  // series), an unclosed matcher, a misspelt label, a target without a series, a misspelt
  // variable query.
  first = "sum(rate(slicelab_extender_made_up_total{verb=\"filter\"}[5m]))";
  auto problems = query_problems(dashboard, *exported_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("'slicelab_extender_made_up_total' is not exported"),
            std::string::npos)
      << problems[0];
  first = "rate(slicelab_extender_request_duration_seconds[5m])";
  problems = query_problems(dashboard, *exported_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("slicelab_extender_request_duration_seconds'"), std::string::npos);
  first = "sum(rate(slicelab_extender_requests_total{verb=\"filter\"[5m]))";
  EXPECT_EQ(query_problems(dashboard, *exported_).size(), 1u);
  first = "sum(rate(slicelab_extender_requests_total{verb=\"filter\", vreb=\"x\"}[5m]))";
  problems = query_problems(dashboard, *exported_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("has no label 'vreb'"), std::string::npos) << problems[0];
  first = "sum(slicelab_shadow_fragmented_gpus{sid=\"actual\"})";
  EXPECT_EQ(query_problems(dashboard, *exported_).size(), 1u);
  first = "vector(1)";
  EXPECT_EQ(query_problems(dashboard, *exported_).size(), 1u);  // charts no series
  first = original;
  dashboard["templating"]["list"][1]["query"]["query"] =
      "label_values(slicelab_extender_redy, job)";
  problems = query_problems(dashboard, *exported_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("variable job"), std::string::npos);
}

// What Grafana's import needs: the schema, a uid, a Prometheus datasource variable that every
// panel and target reads through, panel ids unique, each on the 24-column grid, refIds unique
// per panel.
TEST_F(GrafanaDashboardTest, IsAnImportableDashboard) {
  const nlohmann::json d = read_grafana_dashboard();
  EXPECT_GE(d.value("schemaVersion", 0), 36);
  EXPECT_FALSE(d.value("uid", "").empty());
  EXPECT_FALSE(d.value("title", "").empty());
  bool datasource_variable = false;
  for (const auto& v : d["templating"]["list"]) {
    if (v.value("name", "") == "datasource") {
      EXPECT_EQ(v.value("type", ""), "datasource");
      EXPECT_EQ(v.value("query", ""), "prometheus");
      datasource_variable = true;
    }
  }
  EXPECT_TRUE(datasource_variable);
  const nlohmann::json ds = {{"type", "prometheus"}, {"uid", "${datasource}"}};
  std::set<int> ids;
  std::set<std::string> titles;
  for (const auto& p : d["panels"]) {
    const std::string title = p.value("title", "");
    EXPECT_TRUE(ids.insert(p.value("id", -1)).second) << "panel id twice: " << title;
    const auto& g = p["gridPos"];
    EXPECT_GE(g.value("x", -1), 0) << title;
    EXPECT_LE(g.value("x", 0) + g.value("w", 0), 24) << title;
    EXPECT_GT(g.value("h", 0), 0) << title;
    if (p.value("type", "") == "row") continue;
    EXPECT_TRUE(titles.insert(title).second) << "title twice: " << title;
    EXPECT_EQ(p["datasource"], ds) << title;
    std::set<std::string> refs;
    ASSERT_FALSE(p["targets"].empty()) << title;
    for (const auto& t : p["targets"]) {
      EXPECT_EQ(t["datasource"], ds) << title;
      EXPECT_TRUE(refs.insert(t.value("refId", "")).second) << title;
    }
  }
  // The panels the extender's docs list (docs/extender.md#dashboard).
  for (const char* t :
       {"Requests per second by verb", "Latency p99 by verb", "Bind outcomes", "Watch health",
        "Agreement", "Fragmented GPUs: actual and slicelab", "Resident memory"})
    EXPECT_TRUE(titles.count(t)) << t;
}

}  // namespace
}  // namespace slicelab::k8s
