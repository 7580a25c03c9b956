// Fuzzes the scheduler extender's whole request path, body to decision: the body parsed as the
// server parses it (depth and memory bounded, charged to a budget), then filter, prioritize and
// bind on an ExtenderState over a small fixed cluster, with an in-memory ClusterWriter whose
// fresh read of the pod is what the body's Pod says. Checks what bind promises: it writes only
// for a pod filter decided, with the request's UID, to a node filter passed.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/k8s/cluster_io.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/extender_wire.h"
#include "sim/scenario/scenario.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/bounded_json.h"

namespace {

using nlohmann::json;
using namespace slicelab;

constexpr const char* kScenario = R"(name: fuzz
cluster:
  node_groups:
    - {name: l4, count: 2, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 262144, node_names: [n0, n1]}
    - {name: a100, count: 1, gpu_model: A100-80GB, gpus_per_node: 8, cpu_milli: 64000, memory_mib: 262144, node_names: [a0]}
workload:
  pods:
    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 500}
policies:
  - {name: hami, placement: hami-binpack, sharing: {mode: hami}}
)";

const Scenario& scenario() {
  static const Scenario s = load_scenario(fuzz::write_input("extender/scenario.yaml", kScenario));
  return s;
}

json node(const std::string& name, const std::string& product, int gpus) {
  return {{"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels", {{"nvidia.com/gpu.product", product}, {"nvidia.com/gpu.count", "4"}}}}},
          {"status",
           {{"allocatable",
             {{"cpu", "64"}, {"memory", "256Gi"}, {"nvidia.com/gpu", std::to_string(gpus)}}}}}};
}

// Records the writes; its fresh read answers what `live` holds (the body's own Pod).
class MemoryWriter final : public k8s::ClusterWriter {
 public:
  k8s::WriteResult patch_pod_annotations(const std::string& ns, const std::string& name,
                                         const std::map<std::string, std::string>&) override {
    writes.push_back("patch " + ns + "/" + name);
    return {};
  }
  k8s::WriteResult annotate_pod(const std::string& ns, const std::string& name,
                                const std::string& uid, const std::string& /*resource_version*/,
                                const std::map<std::string, std::string>&) override {
    writes.push_back("annotate " + ns + "/" + name + " " + uid);
    return {};
  }
  k8s::WriteResult bind_pod(const std::string& ns, const std::string& name, const std::string& uid,
                            const std::string& to) override {
    writes.push_back("bind " + ns + "/" + name + " " + uid + " " + to);
    return {};
  }
  k8s::LivePodRead read_pod(const std::string& ns, const std::string& name) override {
    k8s::LivePodRead r;
    r.live = true;
    const auto it = live.find(ns + "/" + name);
    if (it == live.end()) {
      r.error = "not found";
    } else {
      r.pod = it->second;
    }
    return r;
  }
  std::map<std::string, k8s::LivePod> live;
  std::vector<std::string> writes;
};

std::string text_at(const json& j, const char* a, const char* b) {
  if (!j.is_object() || !j.contains(a) || !j[a].is_object() || !j[a].contains(b)) return "";
  return j[a][b].is_string() ? j[a][b].get<std::string>() : "";
}

// NodeNames read without the document (bounded_json's taps): the same document once the taken
// arrays are put back, or the same failure at the same offset with the same message.
void tapped_parse_is_the_documents(std::string_view body) {
  JsonLimits limits;
  limits.max_depth = k8s::kMaxExtenderDepth;
  std::string plain_error, tapped_error;
  json plain, tapped;
  try {
    plain = parse_bounded_json(body, limits);
  } catch (const JsonLimitError& e) {
    plain_error = std::to_string(e.offset()) + e.what();
  }
  JsonStringArrayTaps taps{{"NodeNames", "nodeNames"}, {}};
  try {
    tapped = parse_bounded_json(body, limits, taps);
    for (size_t i = 0; i < taps.keys.size(); ++i) {
      if (!taps.arrays[i]) continue;
      if (tapped.contains(taps.keys[i])) std::abort();
      tapped[taps.keys[i]] = *taps.arrays[i];
    }
  } catch (const JsonLimitError& e) {
    tapped_error = std::to_string(e.offset()) + e.what();
  }
  if (plain_error != tapped_error || (plain_error.empty() && plain != tapped)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = fuzz::as_text(data, size);
  const Scenario& sc = scenario();
  k8s::ExtenderState state(sc, sc.policies[0], 1, {});
  state.list_started(k8s::WatchKind::Node);
  state.apply(k8s::WatchKind::Node, k8s::WatchEvent::Added, node("n0", "NVIDIA-L4", 4));
  state.apply(k8s::WatchKind::Node, k8s::WatchEvent::Added, node("n1", "NVIDIA-L4", 4));
  state.apply(k8s::WatchKind::Node, k8s::WatchEvent::Added, node("a0", "NVIDIA-A100-SXM4-80GB", 8));
  state.synced(k8s::WatchKind::Node);
  state.list_started(k8s::WatchKind::Pod);
  state.synced(k8s::WatchKind::Pod);
  MemoryWriter writer;
  MemoryBudget budget(size_t{8} << 20);  // the server's shared budget, small
  BudgetCharge charge(budget);
  k8s::WireLimits limits;
  limits.charge = &charge;

  std::string bind_ns, bind_name, bind_uid, bind_node;
  std::vector<std::string> passed;
  try {
    const k8s::ExtenderArgs args = k8s::parse_extender_args(body, limits);
    const k8s::ExtenderFilterResult f = state.filter(args);
    // The answers' text is the documents' dump, byte for byte.
    const auto dump = [](const json& j) {
      return j.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    if (k8s::answer_text(f) != dump(k8s::to_json(f))) std::abort();
    const std::vector<k8s::HostPriority> scores = state.prioritize(args);
    if (k8s::answer_text(scores) != dump(k8s::to_json(scores))) std::abort();
    if (f.node_names) passed = *f.node_names;
    if (f.nodes) {
      for (const json& n : *f.nodes) passed.push_back(text_at(n, "metadata", "name"));
    }
    // The live pod is what the body says; bind asks for the filtered pod on its first node.
    bind_name = text_at(args.pod, "metadata", "name");
    bind_ns = text_at(args.pod, "metadata", "namespace");
    if (bind_ns.empty()) bind_ns = "default";
    bind_uid = text_at(args.pod, "metadata", "uid");
    k8s::LivePod live;
    live.uid = bind_uid;
    live.phase = text_at(args.pod, "status", "phase");
    live.node_name = text_at(args.pod, "spec", "nodeName");
    writer.live[bind_ns + "/" + bind_name] = live;
    if (!passed.empty()) bind_node = passed.front();
  } catch (const k8s::WireError&) {
  } catch (const k8s::WireOverBudget&) {
  }
  if (budget.used() != charge.bytes()) std::abort();  // the charge is the holder's only
  tapped_parse_is_the_documents(body);
  // The body as a binding request too (what anyone may send), then the filtered pod's own bind.
  std::vector<k8s::ExtenderBindingArgs> binds;
  try {
    binds.push_back(k8s::parse_binding_args(body, limits));
  } catch (const k8s::WireError&) {
  } catch (const k8s::WireOverBudget&) {
  }
  if (!bind_name.empty() && !bind_node.empty()) {
    binds.push_back({bind_name, bind_ns, bind_uid, bind_node});
  }
  for (const k8s::ExtenderBindingArgs& b : binds) {
    const size_t before = writer.writes.size();
    const k8s::ExtenderBindingResult r = state.bind(b, writer);
    const bool wrote = writer.writes.size() > before;
    if (!r.error.empty() && r.error.find("bind refused") != std::string::npos && wrote) {
      std::abort();  // a refused bind wrote something
    }
    if (r.error.empty()) {
      // Bound: filter decided this pod, with this UID, on this node, and the writes carry it.
      const bool filtered = b.pod_name == bind_name && b.pod_namespace == bind_ns &&
                            !b.pod_uid.empty() && b.pod_uid == bind_uid &&
                            std::find(passed.begin(), passed.end(), b.node) != passed.end();
      if (!filtered || writer.writes.empty() ||
          writer.writes.back() !=
              "bind " + b.pod_namespace + "/" + b.pod_name + " " + b.pod_uid + " " + b.node) {
        std::abort();
      }
    }
  }
  return 0;
}
