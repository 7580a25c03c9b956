// The extender's decisions: the simulator's placement replayed pod by pod, filter and
// prioritize answers, bind's annotation and writes, the watch's accounting, concurrent binds,
// and shadow mode's figures on a hand-worked case.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "backends/k8s/extender_server.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/gpu_assignment.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/snapshot_reader.h"
#include "tests/k8s/extender_fixtures.h"
#include "tests/support/temp_files.h"
#include "workloads/rng.h"

namespace slicelab::k8s {
namespace extender_state_test {

using slicelab::testing::FakeWriter;
using slicelab::testing::node_object;
using slicelab::testing::pod_object;

// 2 A100-80GB x8 and 3 L4 x4 nodes; pods of 1, 2 and 4 GPUs and GPU shares, arriving 10 s apart,
// running long enough that nothing departs while they arrive.
struct PodShape {
  int gpus;
  int cores;  // percent of each GPU; 100 = whole cards
};
constexpr PodShape kShapes[] = {{1, 50},  {1, 25}, {2, 100}, {1, 100}, {1, 75},
                                {4, 100}, {1, 50}, {1, 30},  {2, 100}, {1, 60}};
constexpr int kPods = 40;

std::string scenario_text(const std::string& pods, const std::string& policies) {
  return R"(name: extender
cluster:
  node_groups:
    - {name: a100, count: 2, gpu_model: A100-80GB, gpus_per_node: 8, cpu_milli: 64000, memory_mib: 262144, node_names: [a100-0, a100-1]}
    - {name: l4, count: 3, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 262144, node_names: [l4-0, l4-1, l4-2]}
engine:
  queue: backfill
workload:
  pods:
)" + pods +
         "policies:\n" + policies;
}

class ExtenderState : public slicelab::testing::TempFilesTest {
 public:
  Scenario load(const std::string& pods, const std::string& policies) {
    return load_scenario(write("s.yaml", scenario_text(pods, policies)));
  }
  static void add_nodes(k8s::ExtenderState& st) {
    st.list_started(WatchKind::Node);
    for (int i = 0; i < 2; ++i)
      st.apply(WatchKind::Node, WatchEvent::Added,
               node_object("a100-" + std::to_string(i), "NVIDIA-A100-SXM4-80GB", 8));
    for (int i = 0; i < 3; ++i)
      st.apply(WatchKind::Node, WatchEvent::Added,
               node_object("l4-" + std::to_string(i), "NVIDIA-L4", 4));
    st.synced(WatchKind::Node);
    st.list_started(WatchKind::Pod);
    st.synced(WatchKind::Pod);
  }
  static ExtenderArgs args_for(const nlohmann::json& pod, std::vector<std::string> names) {
    ExtenderArgs a;
    a.pod = pod;
    a.node_names = std::move(names);
    return a;
  }
  static std::vector<std::string> all_nodes() {
    return {"a100-0", "a100-1", "l4-0", "l4-1", "l4-2"};
  }
};

std::string replay_pods() {
  std::string out;
  for (int i = 0; i < kPods; ++i) {
    const PodShape s = kShapes[i % std::size(kShapes)];
    out += "    - {name: p" + std::to_string(i) + ", arrival: " + std::to_string(10 * i) +
           "s, duration: 100h, cpu_milli: 1000, memory_mib: 1024, gpu_count: " +
           std::to_string(s.gpus) + ", gpu_milli: " + std::to_string(s.cores * 10) + "}\n";
  }
  return out;
}

// Every pod, offered in arrival order with every node, goes to the node and GPUs the
// simulator's run of the same policy chose (and is refused where the simulator left it waiting).
void expect_simulator_decisions(const Scenario& sc, const std::string& policy_name) {
  const PolicySpec* policy = nullptr;
  for (const PolicySpec& p : sc.policies)
    if (p.name == policy_name) policy = &p;
  ASSERT_NE(policy, nullptr);
  const RunResult sim = run_policy(sc, *policy);
  k8s::ExtenderState st(sc, *policy, derive_seed(sc.seed, policy->name), {});
  ExtenderState::add_nodes(st);
  const std::vector<std::string> names = cluster_node_names(sc.cluster);
  FakeWriter writer;
  int placed = 0, refused = 0;
  for (int i = 0; i < kPods; ++i) {
    const PodShape s = kShapes[i % std::size(kShapes)];
    const nlohmann::json pod = pod_object("p" + std::to_string(i), s.gpus, s.cores);
    const ExtenderFilterResult f =
        st.filter(ExtenderState::args_for(pod, ExtenderState::all_nodes()));
    const PodOutcome& o = sim.pods[static_cast<size_t>(i)];
    const bool at_arrival = o.node >= 0 && o.start_s == sc.pods[static_cast<size_t>(i)].arrival_s;
    ASSERT_TRUE(f.node_names.has_value());
    if (!at_arrival) {
      EXPECT_TRUE(f.node_names->empty()) << policy_name << " pod " << i;
      ++refused;
      continue;
    }
    ASSERT_EQ(f.node_names->size(), 1U) << policy_name << " pod " << i;
    const std::string& node = names[static_cast<size_t>(o.node)];
    EXPECT_EQ(f.node_names->front(), node) << policy_name << " pod " << i;
    const ExtenderBindingResult b =
        st.bind({"p" + std::to_string(i), "default", "uid-p" + std::to_string(i), node}, writer);
    ASSERT_EQ(b.error, "") << policy_name << " pod " << i;
    const auto bound = st.bound("default/p" + std::to_string(i));
    ASSERT_TRUE(bound.has_value());
    std::vector<int> sim_gpus;
    for (uint32_t k = o.gpu_begin; k < o.gpu_end(); ++k) sim_gpus.push_back(sim.pod_gpus[k]);
    EXPECT_EQ(bound->gpus, sim_gpus) << policy_name << " pod " << i;
    ++placed;
  }
  // The case must exercise both outcomes to mean anything.
  EXPECT_GT(placed, 10) << policy_name;
  EXPECT_GT(refused, 0) << policy_name;
}

constexpr const char* kReplayPolicies =
    R"(  - {name: best-fit, placement: best-fit, sharing: gpu-share}
  - {name: fgd, placement: fgd, sharing: gpu-share}
  - {name: hami-binpack, placement: hami-binpack, sharing: {mode: hami}}
)";

TEST_F(ExtenderState, BestFitDecisionsEqualTheSimulators) {
  expect_simulator_decisions(load(replay_pods(), kReplayPolicies), "best-fit");
}

TEST_F(ExtenderState, FgdDecisionsEqualTheSimulators) {
  expect_simulator_decisions(load(replay_pods(), kReplayPolicies), "fgd");
}

TEST_F(ExtenderState, HamiBinpackDecisionsEqualTheSimulators) {
  expect_simulator_decisions(load(replay_pods(), kReplayPolicies), "hami-binpack");
}

constexpr const char* kOnePod =
    "    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 1000}\n";
constexpr const char* kBestFit = "  - {name: best-fit, placement: best-fit, sharing: gpu-share}\n";

TEST_F(ExtenderState, FilterReturnsTheChosenNodeAndExplainsTheRest) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  // Fill l4-1 half: best fit (the fullest node that fits) must choose it.
  FakeWriter w;
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("other", 2, 100, 0, "l4-1"));
  std::vector<std::string> names = all_nodes();
  names.push_back("ghost");
  const ExtenderFilterResult f = st.filter(args_for(pod_object("q", 1), names));
  ASSERT_TRUE(f.node_names.has_value());
  EXPECT_EQ(*f.node_names, std::vector<std::string>{"l4-1"});
  EXPECT_NE(f.failed_nodes.at("ghost").find("not known"), std::string::npos);
  // The other feasible nodes are neither passed nor failed (as HAMi's extender); only ghost failed.
  EXPECT_EQ(f.failed_nodes.size(), 1U);
  const std::vector<HostPriority> p = st.prioritize(args_for(pod_object("q", 1), names));
  ASSERT_EQ(p.size(), names.size());
  for (const HostPriority& h : p) {
    if (h.host == "l4-1") {
      EXPECT_EQ(h.score, kMaxExtenderPriority);
    } else {
      EXPECT_LT(h.score, kMaxExtenderPriority) << h.host;
      EXPECT_GE(h.score, 0);
    }
  }
  // bind: the annotation names the GPU (l4-1's GPUs 0 and 1 hold "other") and posts the Binding.
  ASSERT_EQ(st.bind({"q", "default", "uid-q", "l4-1"}, w).error, "");
  EXPECT_EQ(w.bindings.at("default/q"), "l4-1");
  std::string error;
  const auto a =
      parse_gpu_assignment(w.annotations.at("default/q").at("slicelab.io/gpu-assignment"), error);
  ASSERT_TRUE(a.has_value()) << error;
  EXPECT_EQ(a->node, "l4-1");
  EXPECT_EQ(a->policy, "best-fit");
  ASSERT_EQ(a->gpus.size(), 1U);
  const auto other = st.bound("default/other");
  ASSERT_TRUE(other.has_value());
  for (const int g : other->gpus) EXPECT_NE(a->gpus[0].index, g);
  EXPECT_EQ(a->gpus[0].cores, 100);
}

// Not nodeCacheCapable and no watch: the request's nodes are read before anything is decided,
// each once (a repeated one too), so the decision sees every node the request carries; a node
// that cannot be read is counted each time it comes and left out.
TEST_F(ExtenderState, RequestNodesAreReadBeforeTheDecision) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  ExtenderArgs args;
  args.pod = pod_object("q", 8);
  const nlohmann::json unknown = node_object("odd-0", "NVIDIA-L40S", 4);
  args.nodes =
      std::vector<nlohmann::json>{node_object("l4-0", "NVIDIA-L4", 4), unknown,
                                  node_object("a100-0", "NVIDIA-A100-SXM4-80GB", 8), unknown,
                                  node_object("a100-0", "NVIDIA-A100-SXM4-80GB", 8)};
  const ExtenderFilterResult f = st.filter(args);
  EXPECT_EQ(f.error, "");
  ASSERT_TRUE(f.nodes.has_value());
  // Only a100-0 has 8 GPUs; both of its copies are echoed.
  ASSERT_EQ(f.nodes->size(), 2U);
  for (const nlohmann::json& n : *f.nodes) EXPECT_EQ(n["metadata"]["name"], "a100-0");
  EXPECT_NE(f.failed_nodes.at("odd-0").find("not known"), std::string::npos);
  EXPECT_EQ(st.snapshot().nodes, 2U);
  EXPECT_EQ(st.snapshot().objects_rejected, 2U);
  // The view keeps them: a request naming the nodes decides the same.
  const ExtenderFilterResult again = st.filter(args_for(pod_object("r", 8), {"l4-0", "a100-0"}));
  ASSERT_TRUE(again.node_names.has_value());
  EXPECT_EQ(*again.node_names, std::vector<std::string>{"a100-0"});
}

// A request's names are looked up once, against the view as it stands (the unknown ones failed
// as such), and again when the decision's refresh rebuilds the view: during a relist a removed
// node shifts every later node's id, and the decision must allow the nodes named, not the ids
// they had. Prioritize scores by the decision's ids, and by name once the view is rebuilt again.
TEST_F(ExtenderState, NamesAreResolvedAgainstTheViewTheDecisionUses) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {.filter_returns_all = true});
  add_nodes(st);  // ids: a100-0 0, a100-1 1, l4-0 2, l4-1 3, l4-2 4
  st.list_started(WatchKind::Node);
  st.apply(WatchKind::Node, WatchEvent::Deleted,
           node_object("a100-0", "NVIDIA-A100-SXM4-80GB", 8));  // no rebuild while listing
  const std::vector<std::string> names = {"a100-0", "l4-2", "l4-2", "ghost"};
  const ExtenderFilterResult f = st.filter(args_for(pod_object("q", 1), names));
  ASSERT_TRUE(f.node_names.has_value());
  // The rebuilt view: a100-1 0, l4-0 1, l4-1 2, l4-2 3; only l4-2 is named and known. Old ids
  // would have allowed 0 (a100-1) and 4 (none).
  EXPECT_EQ(*f.node_names, std::vector<std::string>{"l4-2"});
  // a100-0 was in the view the names were first checked against: not "not known" (as before).
  ASSERT_EQ(f.failed_nodes.size(), 1U);
  EXPECT_NE(f.failed_nodes.at("ghost").find("not known"), std::string::npos);
  const auto scores = [&](const std::vector<std::string>& hosts) {
    std::vector<int64_t> out;
    for (const HostPriority& p : st.prioritize(args_for(pod_object("q", 1), hosts)))
      out.push_back(p.score);
    return out;
  };
  // The chosen node scores 10, each time it is named; the others 0.
  EXPECT_EQ(scores(names), (std::vector<int64_t>{0, 10, 10, 0}));
  // A node added since: the view is rebuilt, the decision's ids are no longer its ids.
  st.synced(WatchKind::Node);
  st.apply(WatchKind::Node, WatchEvent::Added, node_object("l4-3", "NVIDIA-L4", 4));
  EXPECT_EQ(scores({"l4-3", "l4-2", "a100-1"}), (std::vector<int64_t>{0, 10, 0}));
}

// The same names pod after pod (kube-scheduler's usual request) are resolved once per view: a
// node deleted in between leaves the next requests' answers, and once the view is rebuilt the
// names resolve against it (ids from the old view would name the next node over).
TEST_F(ExtenderState, RepeatedNamesFollowTheView) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {.filter_returns_all = true});
  add_nodes(st);  // ids: a100-0 0, a100-1 1, l4-0 2, l4-1 3, l4-2 4
  const std::vector<std::string> names = {"l4-1", "l4-2"};
  const auto feasible = [&](const char* pod) {
    const ExtenderFilterResult f = st.filter(args_for(pod_object(pod, 1), names));
    EXPECT_TRUE(f.node_names.has_value());
    return f.node_names.value_or(std::vector<std::string>{});
  };
  EXPECT_EQ(feasible("p"), names);
  EXPECT_EQ(feasible("q"), names);
  st.apply(WatchKind::Node, WatchEvent::Deleted, node_object("l4-1", "NVIDIA-L4", 4));
  EXPECT_EQ(feasible("r"), std::vector<std::string>{"l4-2"});
  EXPECT_EQ(feasible("s"), std::vector<std::string>{"l4-2"});
  const ExtenderFilterResult t = st.filter(args_for(pod_object("t", 1), names));
  ASSERT_EQ(t.failed_nodes.count("l4-1"), 1U);
  EXPECT_NE(t.failed_nodes.at("l4-1").find("not known"), std::string::npos);
}

TEST_F(ExtenderState, FilterReturnsAllWhenAsked) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {.filter_returns_all = true});
  add_nodes(st);
  const ExtenderFilterResult f = st.filter(args_for(pod_object("q", 8), all_nodes()));
  ASSERT_TRUE(f.node_names.has_value());
  // Only the A100 nodes have 8 GPUs.
  EXPECT_EQ(*f.node_names, (std::vector<std::string>{"a100-0", "a100-1"}));
  EXPECT_EQ(f.failed_nodes.size(), 3U);
}

TEST_F(ExtenderState, PodWithoutGpusPassesEverywhereAndBindsWithoutAnnotation) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  std::vector<std::string> names = all_nodes();
  names.push_back("cpu-only-node");
  const nlohmann::json pod = pod_object("web", 0);
  const ExtenderFilterResult f = st.filter(args_for(pod, names));
  EXPECT_EQ(*f.node_names, names);
  EXPECT_TRUE(f.failed_nodes.empty());
  for (const HostPriority& h : st.prioritize(args_for(pod, names))) EXPECT_EQ(h.score, 0);
  FakeWriter w;
  EXPECT_EQ(st.bind({"web", "default", "uid-web", "cpu-only-node"}, w).error, "");
  EXPECT_EQ(w.bindings.at("default/web"), "cpu-only-node");
  EXPECT_TRUE(w.annotations.empty());
}

TEST_F(ExtenderState, FailedWriteGivesTheGpuBack) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  FakeWriter w;
  w.fail_bind = true;
  const nlohmann::json pod = pod_object("q", 8);
  const ExtenderFilterResult f = st.filter(args_for(pod, {"a100-0"}));
  ASSERT_EQ(*f.node_names, std::vector<std::string>{"a100-0"});
  EXPECT_NE(st.bind({"q", "default", "uid-q", "a100-0"}, w).error.find("binding refused"),
            std::string::npos);
  EXPECT_FALSE(st.bound("default/q").has_value());
  // All 8 GPUs are free again.
  EXPECT_EQ(*st.filter(args_for(pod_object("r", 8), {"a100-0"})).node_names,
            std::vector<std::string>{"a100-0"});
}

TEST_F(ExtenderState, WatchAccountsOthersBindingsAndReleasesFinishedPods) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  // Bound by another scheduler, no annotation: the device picker's 4 GPUs of l4-0 are held.
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("big", 4, 100, 0, "l4-0"));
  EXPECT_TRUE(st.filter(args_for(pod_object("q", 1), {"l4-0"})).node_names->empty());
  // It succeeds: released.
  nlohmann::json done = pod_object("big", 4, 100, 0, "l4-0");
  done["status"]["phase"] = "Succeeded";
  st.apply(WatchKind::Pod, WatchEvent::Modified, done);
  EXPECT_FALSE(st.bound("default/big").has_value());
  EXPECT_EQ(*st.filter(args_for(pod_object("q", 1), {"l4-0"})).node_names,
            std::vector<std::string>{"l4-0"});
  // An annotated binding is honoured: GPU 2 exactly.
  nlohmann::json annotated = pod_object("a", 1, 100, 0, "l4-2");
  annotated["metadata"]["annotations"]["slicelab.io/gpu-assignment"] =
      R"({"node":"l4-2","policy":"best-fit","sharing":"gpu-share","gpus":[{"index":2,"memoryMiB":1,"cores":100}]})";
  st.apply(WatchKind::Pod, WatchEvent::Added, annotated);
  ASSERT_TRUE(st.bound("default/a").has_value());
  EXPECT_EQ(st.bound("default/a")->gpus, std::vector<int>{2});
  // A re-list that no longer holds it drops it; a deleted node takes its pods' holdings along.
  st.list_started(WatchKind::Pod);
  st.synced(WatchKind::Pod);
  EXPECT_FALSE(st.bound("default/a").has_value());
  st.apply(WatchKind::Node, WatchEvent::Deleted, node_object("l4-2", "NVIDIA-L4", 4));
  EXPECT_EQ(st.snapshot().nodes, 4U);
  // A pod listed before its node: accounted once the node arrives.
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("early", 4, 100, 0, "l4-9"));
  EXPECT_FALSE(st.bound("default/early").has_value());
  st.apply(WatchKind::Node, WatchEvent::Added, node_object("l4-9", "NVIDIA-L4", 4));
  ASSERT_TRUE(st.bound("default/early").has_value());
  EXPECT_EQ(st.bound("default/early")->gpus.size(), 4U);
  st.apply(WatchKind::Node, WatchEvent::Deleted, node_object("l4-9", "NVIDIA-L4", 4));
  // Unreadable objects are counted, not fatal.
  nlohmann::json bad = pod_object("bad", 1);
  bad["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "lots";
  st.apply(WatchKind::Pod, WatchEvent::Added, bad);
  EXPECT_EQ(st.snapshot().objects_rejected, 1U);
  const ExtenderFilterResult f = st.filter(args_for(bad, {"l4-0"}));
  EXPECT_NE(f.error.find("nvidia.com/gpu"), std::string::npos) << f.error;
}

TEST_F(ExtenderState, ConcurrentBindsNeverDoubleBookAGpu) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  constexpr int kThreads = 16;
  // Each pod filtered on its own (nothing is reserved until bind): every one gets l4-0.
  for (int i = 0; i < kThreads; ++i) {
    const nlohmann::json pod = pod_object("c" + std::to_string(i), 3);
    st.apply(WatchKind::Pod, WatchEvent::Added, pod);
    ASSERT_EQ(*st.filter(args_for(pod, {"l4-0"})).node_names, std::vector<std::string>{"l4-0"});
  }
  // l4-0 has 4 GPUs: one 3-GPU pod fits, never two.
  FakeWriter w;
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      const std::string name = "c" + std::to_string(i);
      if (st.bind({name, "default", "uid-" + name, "l4-0"}, w).error.empty()) ++ok;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(w.bindings.size(), 1U);
  EXPECT_EQ(st.snapshot().pods_bound, 1U);
}

// --- bind binds only what filter decided, checked before anything is written ---

TEST_F(ExtenderState, BindRefusesWhatFilterDidNotGrant) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  FakeWriter w;
  const auto refused = [&](const ExtenderBindingArgs& a, const std::string& why) {
    const std::string error = st.bind(a, w).error;
    EXPECT_NE(error.find("bind refused"), std::string::npos) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
  };
  // Seen on the watch, pending, but never filtered.
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("seen", 1));
  refused({"seen", "default", "uid-seen", "l4-0"}, "no decision of this extender's filter");
  // A Running pod of the watch (the issue's forged bind: GPU 7 of a 4-GPU node).
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("running", 1, 100, 0, "l4-1"));
  refused({"running", "default", "uid-running", "l4-2"}, "no decision");
  // Filtered, then a bind with another UID, to a node filter did not pass, with no UID.
  const nlohmann::json q = pod_object("q", 1);
  ASSERT_EQ(st.filter(args_for(q, all_nodes())).node_names->size(), 1U);
  refused({"q", "default", "uid-other", "l4-0"}, "not the UID uid-q");
  ASSERT_EQ(st.filter(args_for(q, {"l4-0"})).node_names->size(), 1U);
  refused({"q", "default", "uid-q", "a100-0"}, "filter did not pass node a100-0");
  ASSERT_EQ(st.filter(args_for(q, {"l4-0"})).node_names->size(), 1U);
  refused({"q", "default", "", "l4-0"}, "has no PodUID");
  // A decision binds once: the legitimate bind, then the same again.
  ASSERT_EQ(st.filter(args_for(q, {"l4-0"})).node_names->size(), 1U);
  ASSERT_EQ(st.bind({"q", "default", "uid-q", "l4-0"}, w).error, "");
  refused({"q", "default", "uid-q", "l4-0"}, "no decision");
  // Filter of a pod that is not pending (bound, Running, being deleted) grants nothing.
  const nlohmann::json bound = pod_object("b", 1, 100, 0, "l4-2");
  (void)st.filter(args_for(bound, {"l4-2"}));
  refused({"b", "default", "uid-b", "l4-2"}, "no decision");
  nlohmann::json leaving = pod_object("d", 1);
  leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:01Z";
  (void)st.filter(args_for(leaving, {"l4-2"}));
  refused({"d", "default", "uid-d", "l4-2"}, "no decision");
  // Only q's bind wrote anything; the refused ones wrote nothing.
  EXPECT_EQ(w.annotations.size(), 1U);
  EXPECT_EQ(w.bindings, (std::map<std::string, std::string>{{"default/q", "l4-0"}}));
  EXPECT_EQ(w.annotated_uids.at("default/q"), "uid-q");
  EXPECT_EQ(w.bound_uids.at("default/q"), "uid-q");
  EXPECT_EQ(st.snapshot().binds_refused, 8U);
}

TEST_F(ExtenderState, BindChecksThePodAsTheApiServerHoldsItNow) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  FakeWriter w;
  const auto filter_then_bind = [&](const std::string& name, const k8s::LivePod* live) {
    ASSERT_EQ(st.filter(args_for(pod_object(name, 1), {"l4-0"})).node_names->size(), 1U);
    std::lock_guard lock(w.mu);
    w.live.erase("default/" + name);
    if (live != nullptr) w.live["default/" + name] = *live;
    w.live["default/unrelated"] = {};  // the writer reads live pods
  };
  const auto refused = [&](const std::string& name, const std::string& why) {
    const std::string error = st.bind({name, "default", "uid-" + name, "l4-0"}, w).error;
    EXPECT_NE(error.find(why), std::string::npos) << name << ": " << error;
  };
  // The watch still shows it pending, but it has been bound meanwhile (Running elsewhere).
  const k8s::LivePod running{"uid-r", "7", "Running", "l4-1", false};
  filter_then_bind("r", &running);
  refused("r", "already bound to node l4-1");
  const k8s::LivePod recreated{"uid-new", "7", "Pending", "", false};
  filter_then_bind("n", &recreated);
  refused("n", "its UID is uid-new");
  const k8s::LivePod leaving{"uid-l", "7", "Pending", "", true};
  filter_then_bind("l", &leaving);
  refused("l", "being deleted");
  const k8s::LivePod failed{"uid-f", "7", "Failed", "", false};
  filter_then_bind("f", &failed);
  refused("f", "its phase is Failed");
  filter_then_bind("gone", nullptr);
  refused("gone", "cannot read it: HTTP 404");
  EXPECT_EQ(w.writes(), 0U);  // nothing was patched or bound
  EXPECT_FALSE(st.bound("default/r").has_value());
  // Pending and unbound now: bound.
  const k8s::LivePod pending{"uid-ok", "42", "Pending", "", false};
  filter_then_bind("ok", &pending);
  EXPECT_EQ(st.bind({"ok", "default", "uid-ok", "l4-0"}, w).error, "");
  EXPECT_EQ(w.bindings.at("default/ok"), "l4-0");
  // The patch applies only to the pod as that read found it.
  EXPECT_EQ(w.annotated_uids.at("default/ok"), "uid-ok");
  EXPECT_EQ(w.annotated_versions.at("default/ok"), "42");
}

TEST_F(ExtenderState, FilterDecisionsExpireAndAreBoundedInNumber) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderOptions options;
  options.decision_ttl = std::chrono::milliseconds(50);
  k8s::ExtenderState st(sc, sc.policies[0], 1, options);
  add_nodes(st);
  FakeWriter w;
  ASSERT_EQ(st.filter(args_for(pod_object("late", 1), {"l4-0"})).node_names->size(), 1U);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_NE(st.bind({"late", "default", "uid-late", "l4-0"}, w).error.find("expired after"),
            std::string::npos);
  // A flood of filters for made-up pods keeps kMaxKeptDecisions: the oldest goes.
  k8s::ExtenderState flooded(sc, sc.policies[0], 1, {});
  add_nodes(flooded);
  for (size_t i = 0; i <= kMaxKeptDecisions; ++i)
    (void)flooded.filter(args_for(pod_object("f" + std::to_string(i), 0), {"l4-0"}));
  EXPECT_NE(flooded.bind({"f0", "default", "uid-f0", "l4-0"}, w).error.find("no decision"),
            std::string::npos);
  const std::string last = "f" + std::to_string(kMaxKeptDecisions);
  EXPECT_EQ(flooded.bind({last, "default", "uid-" + last, "l4-0"}, w).error, "");
}

// A Pod nested 100,000 levels deep (what no parse from the network lets through any more) is
// refused by the conversion's own bound, not recursed into.
nlohmann::json deeply_nested(int levels) {
  nlohmann::json deep = nlohmann::json::array();
  nlohmann::json* at = &deep;
  for (int i = 0; i < levels; ++i) {
    at->push_back(nlohmann::json::array());
    at = &at->back();
  }
  return deep;
}

TEST_F(ExtenderState, DeepObjectsAreRefusedWithoutRecursion) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  nlohmann::json pod = pod_object("deep", 1);
  pod["spec"]["affinity"] = deeply_nested(100000);
  st.apply(WatchKind::Pod, WatchEvent::Added, pod);
  EXPECT_EQ(st.snapshot().objects_rejected, 1U);
  ExtenderArgs args;
  args.pod = std::move(pod);
  args.node_names = all_nodes();
  const ExtenderFilterResult f = st.filter(args);
  EXPECT_NE(f.error.find("deeper than 64 levels"), std::string::npos) << f.error;
  // What the watch itself skipped is counted with the rest.
  st.rejected(WatchKind::Pod, "an event that cannot be read");
  EXPECT_EQ(st.snapshot().objects_rejected, 2U);
}

// The handlers: a body nested 100,000 levels deep inside the Pod (200 KB) is 400, not a crash.
TEST_F(ExtenderState, DeepBodiesAreAnswered400) {
  const Scenario sc = load(kOnePod, kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 1, {});
  add_nodes(st);
  FakeWriter w;
  ExtenderServer server(st, w, {});
  const std::string body = R"({"NodeNames":["l4-0"],"Pod":{"metadata":{"name":"x"},"spec":)" +
                           std::string(100000, '[') + std::string(100000, ']') + "}}";
  for (const auto& r : {server.handle_filter(body), server.handle_prioritize(body)}) {
    EXPECT_EQ(r.status, 400);
    EXPECT_NE(r.body.find("nested deeper than 64 levels"), std::string::npos) << r.body;
  }
  const std::string bind = R"({"PodName":"x","Node":"l4-0","PodUID":)" + std::string(100000, '[') +
                           std::string(100000, ']') + "}";
  EXPECT_EQ(server.handle_bind(bind).status, 400);
  EXPECT_EQ(server.handle_filter(R"({"NodeNames":["l4-0"],"Pod":{}})").status, 200);
}

// Shadow mode, worked by hand: two 1-GPU L4 nodes, a target workload of whole-GPU pods. Half-GPU
// pods p1 and p2: slicelab (best fit) stacks them on one GPU; the scheduler spreads them, so each
// node keeps half a GPU that no whole-GPU pod can use: 1.0 GPU fragmented against 0. A whole-GPU
// pod p3 then stays pending although slicelab placed it.
TEST_F(ExtenderState, ShadowFiguresOnAHandWorkedCase) {
  const Scenario sc = load(
      "    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 1000}\n", kBestFit);
  k8s::ExtenderState st(sc, sc.policies[0], 7, {.shadow = true});
  st.list_started(WatchKind::Node);
  st.apply(WatchKind::Node, WatchEvent::Added, node_object("x", "NVIDIA-L4", 1));
  st.apply(WatchKind::Node, WatchEvent::Added, node_object("y", "NVIDIA-L4", 1));
  st.synced(WatchKind::Node);
  st.synced(WatchKind::Pod);
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("p1", 1, 50));
  const auto cf1 = st.bound("default/p1", true);
  ASSERT_TRUE(cf1.has_value());
  const std::string mine = cf1->node, other = mine == "x" ? "y" : "x";
  st.apply(WatchKind::Pod, WatchEvent::Modified, pod_object("p1", 1, 50, 0, mine));
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("p2", 1, 50));
  ASSERT_EQ(st.bound("default/p2", true)->node, mine);  // best fit stacks it
  st.apply(WatchKind::Pod, WatchEvent::Modified, pod_object("p2", 1, 50, 0, other));
  st.apply(WatchKind::Pod, WatchEvent::Added, pod_object("p3", 1));
  // Shadow mode changes nothing: every node scores 0, bind refuses.
  for (const HostPriority& h : st.prioritize(args_for(pod_object("p3", 1), {"x", "y"})))
    EXPECT_EQ(h.score, 0);
  FakeWriter w;
  EXPECT_NE(st.bind({"p3", "default", "", "x"}, w).error, "");
  const ExtenderSnapshot s = st.snapshot();
  ASSERT_TRUE(s.shadow.has_value());
  EXPECT_EQ(s.shadow->decisions, 3U);
  EXPECT_EQ(s.shadow->same_node, 1U);
  EXPECT_EQ(s.shadow->different_node, 1U);
  EXPECT_EQ(s.shadow->pending_placeable, 1U);
  EXPECT_DOUBLE_EQ(s.shadow->fragmented_gpus_actual, 1.0);
  EXPECT_DOUBLE_EQ(s.shadow->fragmented_gpus_slicelab, 0.0);
}

}  // namespace extender_state_test
}  // namespace slicelab::k8s
