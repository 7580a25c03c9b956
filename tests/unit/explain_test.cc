// Pins down `slicelab explain` (docs/explain.md) on hand-worked placements: best-fit's
// binpack scores and min-max normalisation, FGD's fragmentation scores, HAMi binpack's node
// score, and a MIG pod blocked by its layout; that explaining a pod changes nothing in the run;
// the JSON document's shape; and the errors for an unknown pod or policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "reports/results_writer.h"
#include "sim/scenario/explain_run.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace explain_test {

namespace fs = std::filesystem;
using testing::message_of;

class Explain : public testing::TempFilesTest {
 protected:
  Scenario scenario(const std::string& yaml) { return load_scenario(write("s.yaml", yaml)); }

  static const PassExplanation& last_pass(const AttemptExplanation& a) { return a.passes.back(); }
  static const CandidateScores& scores_of(const PassExplanation& p, const PlacementExplanation& e,
                                          const std::string& node) {
    for (const CandidateScores& s : p.top)
      if (e.node_names[s.node] == node) return s;
    ADD_FAILURE() << "no scores for " << node;
    static const CandidateScores none;
    return none;
  }
  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

// --- (1) best-fit: binpack's raw scores, min-max normalised, the fullest node wins ---

// Three nodes of 4 GPUs and 32 CPUs. a (2 GPUs, 8 CPUs) goes to n-0 (an empty cluster ties at 0;
// tie_break first), b (3 GPUs, 16 CPUs) to n-1 (n-0 has 2 GPUs free). Then c (1 GPU, 4 CPUs):
// free after placing c, as ½ CPU/32000 + ½ GPUs/4 (the largest node's):
//   n-0: ½ (24000 - 4000)/32000 + ½ (2 - 1)/4 = 0.3125 + 0.125 = 0.4375 → raw ⌊100 × 0.5625⌋ = 56
//   n-1: ½ (16000 - 4000)/32000 + ½ (1 - 1)/4 = 0.1875           → raw ⌊100 × 0.8125⌋ = 81
//   n-2: ½ (32000 - 4000)/32000 + ½ (4 - 1)/4 = 0.4375 + 0.375 = 0.8125 → raw ⌊18.75⌋ = 18
// min-max over [18, 81] (range 63): n-0 (56 - 18) × 100 / 63 = 60, n-1 100, n-2 0. n-1 wins
// alone; binpack's picker takes its one idle GPU, index 3 (b holds 0, 1, 2).
constexpr const char* kBestFit = R"(name: best-fit-explained
cluster:
  node_groups:
    - {name: n, count: 3, gpu_model: A100-80GB, gpus_per_node: 4, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 1h, gpu_count: 2, cpu_milli: 8000, memory_mib: 1Gi}
    - {name: b, arrival: 1s, duration: 1h, gpu_count: 3, cpu_milli: 16000, memory_mib: 1Gi}
    - {name: c, arrival: 2s, duration: 1h, gpu_count: 1, cpu_milli: 4000, memory_mib: 1Gi}
policies:
  - {name: best-fit, placement: {preset: best-fit, tie_break: first}}
)";

TEST_F(Explain, BestFitScoresAreBinpacksNormalisedOverTheCandidates) {
  const PlacementExplanation e = explain_run(scenario(kBestFit), "best-fit", "c");
  ASSERT_EQ(e.attempts.size(), 1U);
  const AttemptExplanation& a = e.attempts[0];
  EXPECT_DOUBLE_EQ(a.time_s, 2.0);
  ASSERT_TRUE(a.placed);
  EXPECT_EQ(e.node_names[*a.node], "n-1");
  ASSERT_EQ(a.passes.size(), 1U);
  const PassExplanation& p = a.passes[0];
  EXPECT_EQ(p.feasible, 3U);
  ASSERT_EQ(e.scorers.size(), 1U);
  EXPECT_EQ(e.scorers[0].name, "binpack");
  EXPECT_TRUE(e.scorers[0].normalizes);
  ASSERT_EQ(p.top.size(), 3U);
  // Best first.
  EXPECT_EQ(e.node_names[p.top[0].node], "n-1");
  EXPECT_EQ(e.node_names[p.top[1].node], "n-0");
  EXPECT_EQ(e.node_names[p.top[2].node], "n-2");
  EXPECT_EQ(scores_of(p, e, "n-0").raw[0], 56);
  EXPECT_EQ(scores_of(p, e, "n-1").raw[0], 81);
  EXPECT_EQ(scores_of(p, e, "n-2").raw[0], 18);
  EXPECT_EQ(scores_of(p, e, "n-0").normalized[0], 60);
  EXPECT_EQ(scores_of(p, e, "n-1").normalized[0], 100);
  EXPECT_EQ(scores_of(p, e, "n-2").normalized[0], 0);
  EXPECT_EQ(scores_of(p, e, "n-1").total, 100);
  EXPECT_EQ(p.top_total, 100);
  EXPECT_EQ(p.tied_at_top, 1U);
  EXPECT_TRUE(a.node_in_top_ties);
  EXPECT_EQ(e.tie_break, "first");
  EXPECT_EQ(a.device.gpus, std::vector<int>{3});
  EXPECT_EQ(a.device.claim_units, a.device.capacity_units);  // a whole GPU
  // Every node fits: each filter's verdict, per node (3 nodes <= --nodes 20).
  ASSERT_EQ(p.nodes.size(), 3U);
  for (const NodeVerdicts& nv : p.nodes) {
    EXPECT_TRUE(nv.feasible);
    ASSERT_EQ(nv.verdicts.size(), 3U);  // gpu-capacity, resources, gpu-model
    for (const PluginVerdict& v : nv.verdicts) EXPECT_TRUE(v.passed) << v.plugin;
  }
}

TEST_F(Explain, TopKKeepsTheBestCandidates) {
  const PlacementExplanation e = explain_run(scenario(kBestFit), "best-fit", "c", {1, 20});
  ASSERT_EQ(e.attempts[0].passes[0].top.size(), 1U);
  EXPECT_EQ(e.node_names[e.attempts[0].passes[0].top[0].node], "n-1");
  EXPECT_EQ(e.attempts[0].passes[0].tied_at_top, 1U);
}

// A filter's rejection names its reason, per node, and counts it above --nodes: b (3 GPUs) at
// t=1 finds n-0 with 2 idle GPUs.
TEST_F(Explain, RejectionsNameTheReasonPerNodeOrCounted) {
  const PlacementExplanation listed = explain_run(scenario(kBestFit), "best-fit", "b");
  const PassExplanation& p = listed.attempts.at(0).passes.at(0);
  EXPECT_EQ(p.feasible, 2U);
  ASSERT_EQ(p.rejections.size(), 1U);
  EXPECT_EQ(p.rejections[0].plugin, "gpu-capacity");
  EXPECT_EQ(p.rejections[0].reason, "too few idle GPUs");
  EXPECT_EQ(p.rejections[0].nodes, 1U);
  const NodeVerdicts& n0 = p.nodes.at(0);
  EXPECT_FALSE(n0.feasible);
  const auto capacity = std::find_if(n0.verdicts.begin(), n0.verdicts.end(),
                                     [](const PluginVerdict& v) { return !v.passed; });
  ASSERT_NE(capacity, n0.verdicts.end());
  EXPECT_EQ(capacity->plugin, "gpu-capacity");
  EXPECT_NE(capacity->detail.find("2 of 4 GPUs"), std::string::npos) << capacity->detail;

  // --nodes 2 < 3 nodes: counted only.
  const PlacementExplanation counted = explain_run(scenario(kBestFit), "best-fit", "b", {5, 2});
  const PassExplanation& q = counted.attempts.at(0).passes.at(0);
  EXPECT_TRUE(q.nodes.empty());
  ASSERT_EQ(q.rejections.size(), 1U);
  EXPECT_EQ(q.rejections[0].nodes, 1U);
  const std::string text = explanation_text(counted);
  EXPECT_NE(text.find("filters: fits: 2 nodes; gpu-capacity: 1 node: too few idle GPUs"),
            std::string::npos)
      << text;
}

// --- (2) fgd: the fragmentation each candidate would add, for the workload's own shapes ---

// Two nodes of 2 GPUs (gpu-share: shares in milli-GPUs). The target workload is the pods' shapes:
// "500 of one GPU" (a, c: 2/3) and "one whole GPU" (b: 1/3), both kept by the 95% cut. A node's
// F sums, per shape, the free milli the shape cannot use (docs/fragmentation.md):
//   {500, 1000}: 500 fits (both GPUs; none has < 500 free) → 0; whole fits (GPU 1), GPU 0's 500
//                are left over → 500. F = 1/3 × 500 = 166.67.
//   {500, 0}:    500 fits → 0 (GPU 1 has 0 free); whole does not fit → all free milli, 500.
//                F = 166.67.
//   {0, 0}: 0.  {1000, 1000}: 0.
// a goes to n-0 GPU 0 (every node scores alike; tie_break first), b to n-0 GPU 1 (both nodes
// score 50: F unchanged). Then c (500):
//   n-0 {500, 0} → {0, 0}:       F 166.67 → 0,  score ⌊100 × sigmoid(+0.16667)⌋ = ⌊54.16⌋ = 54
//   n-1 {1000, 1000} → {500, 1000}: F 0 → 166.67, score ⌊100 × sigmoid(-0.16667)⌋ = ⌊45.84⌋ = 45
// fgd has no NormalizeScore: normalised = raw = total. n-0 wins; its GPU 0 (the only one with
// room) is the picker's.
constexpr const char* kFgd = R"(name: fgd-explained
cluster:
  node_groups:
    - {name: n, count: 2, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 1h, gpu_count: 1, gpu_milli: 500, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: b, arrival: 1s, duration: 1h, gpu_count: 1, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: c, arrival: 2s, duration: 1h, gpu_count: 1, gpu_milli: 500, cpu_milli: 1000, memory_mib: 1Gi}
policies:
  - {name: fgd, placement: {preset: fgd, tie_break: first}, sharing: gpu-share}
)";

TEST_F(Explain, FgdScoresAreTheFragmentationEachCandidateWouldAdd) {
  const PlacementExplanation e = explain_run(scenario(kFgd), "fgd", "c");
  ASSERT_EQ(e.attempts.size(), 1U);
  const AttemptExplanation& a = e.attempts[0];
  ASSERT_TRUE(a.placed);
  EXPECT_EQ(e.node_names[*a.node], "n-0");
  const PassExplanation& p = last_pass(a);
  ASSERT_EQ(p.top.size(), 2U);
  EXPECT_FALSE(e.scorers.at(0).normalizes);
  EXPECT_EQ(scores_of(p, e, "n-0").raw[0], 54);
  EXPECT_EQ(scores_of(p, e, "n-1").raw[0], 45);
  EXPECT_EQ(scores_of(p, e, "n-0").normalized[0], 54);
  EXPECT_EQ(scores_of(p, e, "n-0").total, 54);
  EXPECT_EQ(p.tied_at_top, 1U);
  EXPECT_EQ(a.device.gpus, std::vector<int>{0});
  EXPECT_EQ(a.device.claim_units * 2, a.device.capacity_units);  // half a GPU

  // a's attempt: an empty cluster, every node at sigmoid(-0.16667) → 45, tied; first: n-0.
  const PlacementExplanation first = explain_run(scenario(kFgd), "fgd", "a");
  const PassExplanation& q = last_pass(first.attempts.at(0));
  EXPECT_EQ(q.tied_at_top, 2U);
  EXPECT_EQ(q.top_total, 45);
  EXPECT_EQ(first.node_names[*first.attempts[0].node], "n-0");
}

// --- (3) hami-binpack: HAMi's node score, the highest wins ---

// Two nodes of 2 A100-80GB (HAMi registers Count 10, Totalmem 81920, Totalcore 100 per GPU).
// a (25 cores, 20 GiB) goes to n-0 (both score 0; tie_break first), on GPU 1 (binpack: equal
// GPU scores take the higher index). Then c (50 cores, 10 GiB), node score before it
// (docs/hami.md): 10 × (Σ Used / Σ Count + Σ Usedcores / Σ Totalcore + Σ Usedmem / Σ Totalmem)
//   n-0: 10 × (1/20 + 25/200 + 20480/163840) = 10 × (0.05 + 0.125 + 0.125) = 3
//   n-1: 0
// Binpack takes the highest: n-0. The GPU scores with c added, 10 × ((1 + Used)/Count +
// (cores + Usedcores)/Totalcore + (memreq + Usedmem)/Totalmem):
//   GPU 0: 10 × (1/10 + 50/100 + 10240/81920) = 7.25;  GPU 1: 10 × (2/10 + 75/100 + 30720/81920)
//   = 13.25. Binpack takes the highest: GPU 1.
constexpr const char* kHami = R"(name: hami-explained
cluster:
  node_groups:
    - {name: n, count: 2, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  pods:
    - {name: a, arrival: 0, duration: 1h, gpu_count: 1, gpu_milli: 250, gpu_memory_mib: 20Gi, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: c, arrival: 1s, duration: 1h, gpu_count: 1, gpu_milli: 500, gpu_memory_mib: 10Gi, cpu_milli: 1000, memory_mib: 1Gi}
policies:
  - {name: hami-binpack, placement: {preset: hami-binpack, tie_break: first}, sharing: {mode: hami}}
)";

TEST_F(Explain, HamiBinpackScoresAreHamisNodeScore) {
  const PlacementExplanation e = explain_run(scenario(kHami), "hami-binpack", "c");
  ASSERT_EQ(e.attempts.size(), 1U);
  const AttemptExplanation& a = e.attempts[0];
  ASSERT_TRUE(a.placed);
  EXPECT_EQ(e.node_names[*a.node], "n-0");
  const PassExplanation& p = last_pass(a);
  ASSERT_EQ(p.top.size(), 2U);
  EXPECT_EQ(e.node_names[p.top[0].node], "n-0");
  ASSERT_TRUE(scores_of(p, e, "n-0").value[0].has_value());
  EXPECT_NEAR(*scores_of(p, e, "n-0").value[0], 3.0, 1e-5);
  EXPECT_NEAR(*scores_of(p, e, "n-1").value[0], 0.0, 1e-9);
  EXPECT_GT(scores_of(p, e, "n-0").total, scores_of(p, e, "n-1").total);
  EXPECT_EQ(p.tied_at_top, 1U);
  EXPECT_TRUE(a.node_in_top_ties);
  EXPECT_EQ(a.device.gpus, std::vector<int>{1});
  EXPECT_EQ(a.device.gpu_memory_mib, 10240);
  EXPECT_EQ(a.device.claim_units, 50);  // gpucores, of Totalcore 100
  EXPECT_EQ(a.device.capacity_units, 100);
}

// --- (4) MIG: a pod blocked by the layout, at each attempt ---

// Two nodes of one A100-80GB each, every GPU laid out as two 3g.40gb instances. a1 and a2 take
// n-0's, b1 and b2 n-1's at t=0; c (3g.40gb) comes at 60 s and finds no free instance: MIG's
// PreFilter drops both nodes, "every 3g.40gb instance of the layout is in use". It is tried again
// when a1 ends (a node was freed) and placed on n-0. `small` asks 1g.10gb, which no layout
// offers: it never reaches placement.
constexpr const char* kMig = R"(name: mig-explained
cluster:
  node_groups:
    - {name: n, count: 2, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  pods:
    - {name: a1, arrival: 0, duration: 1h, gpu_count: 1, mig_profile: 3g.40gb, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: a2, arrival: 0, duration: 3h, gpu_count: 1, mig_profile: 3g.40gb, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: b1, arrival: 0, duration: 3h, gpu_count: 1, mig_profile: 3g.40gb, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: b2, arrival: 0, duration: 3h, gpu_count: 1, mig_profile: 3g.40gb, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: c, arrival: 60s, duration: 1h, gpu_count: 1, mig_profile: 3g.40gb, cpu_milli: 1000, memory_mib: 1Gi}
    - {name: small, arrival: 60s, duration: 1h, gpu_count: 1, mig_profile: 1g.10gb, cpu_milli: 1000, memory_mib: 1Gi}
policies:
  - name: mig
    placement: {preset: best-fit, tie_break: first}
    sharing:
      mode: mig
      layout: halves
      mig_config:
        mig-configs:
          halves:
            - devices: all
              mig-enabled: true
              mig-devices: {"3g.40gb": 2}
)";

TEST_F(Explain, MigPodBlockedByItsLayoutNamesTheReasonAtEachAttempt) {
  const Scenario sc = scenario(kMig);
  const PlacementExplanation e = explain_run(sc, "mig", "c");
  ASSERT_GE(e.attempts.size(), 2U);
  for (size_t k = 0; k + 1 < e.attempts.size(); ++k) {
    const AttemptExplanation& a = e.attempts[k];
    EXPECT_FALSE(a.placed);
    ASSERT_FALSE(a.blocked.empty());
    const auto mig = std::find_if(a.blocked.begin(), a.blocked.end(),
                                  [](const RejectionCount& r) { return r.plugin == "mig"; });
    ASSERT_NE(mig, a.blocked.end());
    EXPECT_EQ(mig->reason,
              "too few GPUs with a free 3g.40gb instance: every 3g.40gb instance of the layout "
              "is in use");
    EXPECT_EQ(mig->nodes, 2U);
    EXPECT_EQ(last_pass(a).feasible, 0U);
    // Per node, the layout itself.
    const NodeVerdicts& n0 = last_pass(a).nodes.at(0);
    const auto v = std::find_if(n0.verdicts.begin(), n0.verdicts.end(),
                                [](const PluginVerdict& x) { return x.plugin == "mig"; });
    ASSERT_NE(v, n0.verdicts.end());
    EXPECT_TRUE(v->pre_filter);
    EXPECT_NE(v->detail.find("3g.40gb@4 in use"), std::string::npos) << v->detail;
  }
  EXPECT_DOUBLE_EQ(e.attempts[0].time_s, 60.0);
  const AttemptExplanation& last = e.attempts.back();
  ASSERT_TRUE(last.placed);
  EXPECT_EQ(e.node_names[*last.node], "n-0");
  EXPECT_GT(last.time_s, 60.0);
  const std::string text = explanation_text(e);
  EXPECT_NE(text.find("blocked: mig on 2 nodes: too few GPUs with a free 3g.40gb instance"),
            std::string::npos)
      << text;

  const PlacementExplanation small = explain_run(sc, "mig", "small");
  EXPECT_TRUE(small.attempts.empty());
  EXPECT_NE(small.outcome.find("1g.10gb"), std::string::npos) << small.outcome;
  EXPECT_NE(explanation_text(small).find("no scheduling attempt"), std::string::npos);
}

// --- the run is the run: explaining a pod changes nothing ---

// The written results of a run with and without a pod explained, byte for byte: under each
// shipped policy kind that draws (random ties, the random scorer), indexes or not.
TEST_F(Explain, ExplainingAPodChangesNothingInTheRun) {
  // The quickstart's cluster and workload, arriving 6x faster (pods wait and retry), under
  // policies that draw (random ties, the random scorer), take indexes, or keep mode state.
  std::string yaml = slurp(fs::path(SLICELAB_SOURCE_DIR) / "scenarios/quickstart.yaml");
  yaml = yaml.substr(0, yaml.find("\npolicies:"));
  yaml.replace(yaml.find("pods: 600"), 9, "pods: 300");
  yaml.replace(yaml.find("arrivals_per_hour: 9"), 20, "arrivals_per_hour: 60");
  yaml += R"(
policies:
  - {name: first-fit, placement: first-fit}
  - {name: best-fit, placement: best-fit}
  - {name: spread, placement: {preset: spread, tie_break: node-order}}
  - {name: random, placement: random}
  - {name: gpu-packing, placement: gpu-packing, sharing: gpu-share}
  - {name: fgd, placement: fgd, sharing: gpu-share}
  - {name: hami, placement: hami-binpack, sharing: {mode: hami}}
  - {name: mig-dynamic, placement: best-fit, sharing: {mode: mig, dynamic: true}}
)";
  const Scenario sc = scenario(yaml);
  ASSERT_EQ(sc.pods.size(), 300U);
  for (const PolicySpec& policy : sc.policies) {
    for (size_t pod = 0; pod < 300; pod += 37) {
      const RunResult plain = run_policy(sc, policy);
      PlacementExplainer explainer(static_cast<uint32_t>(pod), {});
      const RunResult explained = run_policy(sc, policy, {}, nullptr, &explainer);
      const auto& attempts = explainer.result().attempts;
      EXPECT_FALSE(attempts.empty()) << policy.name << " pod " << pod;
      // The node each attempt reports is the run's, and it has the top total the explanation
      // computed on the full pass (the run may have decided on an index).
      for (const AttemptExplanation& a : attempts) {
        if (a.placed) {
          EXPECT_TRUE(a.node_in_top_ties) << policy.name << " pod " << pod;
        }
      }
      if (!attempts.empty() && attempts.back().placed && plain.pods[pod].node >= 0) {
        EXPECT_EQ(static_cast<int32_t>(*attempts.back().node), plain.pods[pod].node)
            << policy.name << " pod " << pod;
      }
      const fs::path a = dir_ / (policy.name + "-plain"), b = dir_ / (policy.name + "-explained");
      RunResult ra = plain, rb = explained;
      ra.policy = rb.policy = policy.name;
      write_results(a.string(), sc, std::span<const RunResult>(&ra, 1), true);
      write_results(b.string(), sc, std::span<const RunResult>(&rb, 1), true);
      for (const char* file : {"pods.csv", "summary.json", "timeseries.csv"}) {
        const std::string x = slurp(a / file), y = slurp(b / file);
        EXPECT_FALSE(x.empty()) << file;
        EXPECT_TRUE(x == y) << policy.name << " pod " << pod << ": " << file << " differs";
      }
    }
  }
}

// --- the JSON document ---

TEST_F(Explain, JsonDocumentHasItsDocumentedShape) {
  const PlacementExplanation e = explain_run(scenario(kBestFit), "best-fit", "c");
  const nlohmann::ordered_json j = explanation_json(e);
  EXPECT_EQ(j["format"], "slicelab.explain/1");
  EXPECT_EQ(j["pod"], "c");
  EXPECT_EQ(j["policy"], "best-fit");
  EXPECT_EQ(j["nodes"], 3);
  EXPECT_EQ(j["nodes_listed"], true);
  EXPECT_EQ(j["tie_break"], "first");
  EXPECT_EQ(j["device_picker"], "binpack");
  EXPECT_EQ(j["scorers"][0]["name"], "binpack");
  const auto& a = j["attempts"][0];
  for (const char* key : {"time_s", "placed", "node", "indexed", "sampled", "passes", "chosen"})
    EXPECT_TRUE(a.contains(key)) << key;
  EXPECT_EQ(a["node"], "n-1");
  const auto& p = a["passes"][0];
  for (const char* key :
       {"pass", "pre_filters", "feasible", "rejections", "node_verdicts", "top", "tie_break"})
    EXPECT_TRUE(p.contains(key)) << key;
  EXPECT_EQ(p["top"][0]["node"], "n-1");
  EXPECT_EQ(p["top"][0]["scores"][0]["raw"], 81);
  EXPECT_EQ(p["top"][0]["scores"][0]["normalized"], 100);
  EXPECT_EQ(p["top"][0]["total"], 100);
  EXPECT_EQ(p["tie_break"]["tied"], 1);
  EXPECT_EQ(p["node_verdicts"][0]["verdicts"][0]["kind"], "filter");
  EXPECT_EQ(a["chosen"]["gpus"][0], 3);
  // Counted (more nodes than --nodes): no node_verdicts.
  const nlohmann::ordered_json c =
      explanation_json(explain_run(scenario(kBestFit), "best-fit", "c", {5, 1}));
  EXPECT_FALSE(c["attempts"][0]["passes"][0].contains("node_verdicts"));
  EXPECT_EQ(c["nodes_listed"], false);
}

// --- errors ---

TEST_F(Explain, UnknownPodSaysDidYouMean) {
  const Scenario sc = scenario(kBestFit);
  EXPECT_EQ(message_of([&] { explain_run(sc, "best-fit", "cc"); }),
            "best-fit-explained: no pod named 'cc' among its 3 pods (did you mean 'c'?)");
  EXPECT_EQ(message_of([&] { explain_run(sc, "best-fit", "zzzzzzzz"); }),
            "best-fit-explained: no pod named 'zzzzzzzz' among its 3 pods");
}

TEST_F(Explain, UnknownPolicyNamesThePolicies) {
  const Scenario sc = scenario(kBestFit);
  EXPECT_EQ(message_of([&] { explain_run(sc, "fgd", "c"); }),
            "best-fit-explained: no policy named 'fgd' (the scenario has: best-fit)");
}

}  // namespace explain_test
}  // namespace slicelab
