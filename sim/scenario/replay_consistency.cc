#include "sim/scenario/replay_consistency.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "sim/scenario/snapshot_reader.h"

namespace slicelab {
namespace {

struct ConsistencyNodeRoom {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpus = 0;
};

// What the replay ran on `node` at time `t` (started, not yet finished), other than `self`.
ConsistencyNodeRoom consistency_used_at(const Scenario& sc, const RunResult& run,
                                        std::span<const uint32_t> on_node, uint32_t self,
                                        double t) {
  ConsistencyNodeRoom used;
  for (const uint32_t q : on_node) {
    const PodOutcome& o = run.pods[q];
    if (q == self || o.start_s < 0 || o.start_s > t || (o.finish_s >= 0 && o.finish_s <= t))
      continue;
    const PodSpec& s = sc.pods[q];
    used.cpu_milli += s.cpu_milli;
    used.memory_mib += s.memory_mib;
    used.gpus += s.gpu_count;
  }
  return used;
}

}  // namespace

ReplayConsistency check_replay_consistency(const Scenario& sc, const RunResult& run,
                                           const KubernetesImport& imported) {
  ReplayConsistency out;
  out.unbound = static_cast<size_t>(imported.unbound);
  const std::span<const RecordedPlacement> unknown_nodes = imported.unknown_nodes;
  std::unordered_map<std::string_view, double> started;  // pod -> when the cluster started it
  for (const RecordedPlacement& r : imported.placements)
    if (r.started_s) started.emplace(r.pod, *r.started_s);
  std::vector<ConsistencyNodeRoom> capacity;
  for (const NodeGroup& g : sc.cluster.groups)
    for (int i = 0; i < g.count; ++i)
      capacity.push_back({g.cpu_milli, g.memory_mib, g.gpus_per_node});
  const std::vector<std::string> names = cluster_node_names(sc.cluster);
  std::vector<std::vector<uint32_t>> on_node(capacity.size());
  for (size_t p = 0; p < run.pods.size(); ++p)
    if (run.pods[p].node >= 0)
      on_node[static_cast<size_t>(run.pods[p].node)].push_back(uint32_t(p));

  for (const RecordedPlacement& u : unknown_nodes)
    out.mismatches["node-missing"].push_back(
        {u.pod, u.node, "the recording has no Node object of that name"});
  out.recorded = unknown_nodes.size() + sc.recorded.size();
  std::vector<const std::vector<int>*> gpus_of(sc.pods.size(), nullptr);
  for (const RecordedGpus& g : sc.recorded_gpus) gpus_of[g.pod] = &g.gpus;
  const auto gpu_list = [](const auto& gpus) {
    std::string s;
    for (const auto g : gpus) s += fmt::format("{}{}", s.empty() ? "" : ",", g);
    return s;
  };
  std::vector<PinnedPod> recorded(sc.recorded.begin(), sc.recorded.end());
  std::sort(recorded.begin(), recorded.end(),
            [](const PinnedPod& a, const PinnedPod& b) { return a.pod < b.pod; });
  for (const PinnedPod& r : recorded) {
    const PodOutcome& o = run.pods[r.pod];
    const PodSpec& s = sc.pods[r.pod];
    const std::string& node = names[r.node];
    const std::string pod(s.name.view());
    const auto st = started.find(s.name.view());
    const double deadline = std::max(s.arrival_s, st != started.end() ? st->second : 0.0);
    if (o.node == static_cast<int32_t>(r.node) && o.start_s >= 0 && o.start_s <= deadline) {
      const std::vector<int>* want = gpus_of[r.pod];
      std::vector<int> got(run.pod_gpus.begin() + o.gpu_begin, run.pod_gpus.begin() + o.gpu_end());
      std::vector<int> sorted_want = want != nullptr ? *want : std::vector<int>{};
      std::sort(got.begin(), got.end());
      std::sort(sorted_want.begin(), sorted_want.end());
      if (want == nullptr || want->empty() || got == sorted_want) {
        ++out.reproduced;
      } else {
        out.mismatches["recorded-gpus-taken"].push_back(
            {pod, node,
             fmt::format("recorded on GPU(s) {}, which were taken at {:g}s: ran on {}",
                         gpu_list(*want), o.start_s, gpu_list(got))});
      }
      continue;
    }
    if (o.node >= 0 && o.node != static_cast<int32_t>(r.node)) {
      out.mismatches["other-node"].push_back(
          {pod, node, fmt::format("ran on {}", names[static_cast<size_t>(o.node)])});
      continue;
    }
    const std::string when =
        o.start_s < 0 ? "never ran"
                      : fmt::format("started {:g}s after the cluster did", o.start_s - deadline);
    const ConsistencyNodeRoom used = consistency_used_at(sc, run, on_node[r.node], r.pod, deadline);
    const ConsistencyNodeRoom& cap = capacity[r.node];
    const auto full = [&](const char* reason, const char* unit, int64_t asks, int64_t in_use,
                          int64_t total) {
      out.mismatches[reason].push_back({pod, node,
                                        fmt::format("asks {} {}, {} of {} in use at {:g}s; {}",
                                                    asks, unit, in_use, total, deadline, when)});
    };
    if (used.cpu_milli + s.cpu_milli > cap.cpu_milli)
      full("node-full-cpu", "millicores", s.cpu_milli, used.cpu_milli, cap.cpu_milli);
    else if (used.memory_mib + s.memory_mib > cap.memory_mib)
      full("node-full-memory", "MiB", s.memory_mib, used.memory_mib, cap.memory_mib);
    else if (used.gpus + s.gpu_count > cap.gpus)
      full("node-full-gpus", "GPUs", s.gpu_count, used.gpus, cap.gpus);
    else
      out.mismatches["not-placed"].push_back({pod, node, when});
  }
  return out;
}

}  // namespace slicelab
