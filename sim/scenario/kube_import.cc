#include "sim/scenario/kube_import.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <limits>
#include <sstream>
#include <string_view>

#include "sim/scenario/snapshot_reader.h"
#include "workloads/bounded_json.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/kube/kube_gfd_products.h"
#include "workloads/trace_writer.h"

namespace slicelab {
namespace {

constexpr int kMaxPriority = 1'000'000;  // the trace format's range (workloads/inputs/pod_yaml.cc)

using NodeFacts = KubeNodeFacts;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// HAMi's nvidia.com/use-gputype / nouse-gputype: a GPU whose type contains one of the
// comma-separated names (case-insensitive) is in / out. The catalog models of the cluster's
// GPU nodes that pass, by their GFD product and their catalog name; empty input: no limit.
std::vector<std::string> gputype_models(const std::string& use, const std::string& nouse,
                                        std::span<const NodeFacts> facts,
                                        const GpuCatalog& catalog) {
  const auto names = [](const std::string& list) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= list.size()) {
      const size_t comma = std::min(list.find(',', at), list.size());
      std::string t = list.substr(at, comma - at);
      t.erase(0, t.find_first_not_of(' '));
      t.erase(t.find_last_not_of(' ') + 1);
      if (!t.empty()) out.push_back(upper(t));
      at = comma + 1;
    }
    return out;
  };
  const std::vector<std::string> in = names(use), out = names(nouse);
  std::vector<std::string> models;
  for (const NodeFacts& f : facts) {
    if (f.gpus == 0) continue;
    const std::string model = catalog.models()[f.model].name;
    const auto matches = [&](const std::string& t) {
      return f.product.find(t) != std::string::npos || upper(model).find(t) != std::string::npos;
    };
    const bool ok = (in.empty() || std::any_of(in.begin(), in.end(), matches)) &&
                    std::none_of(out.begin(), out.end(), matches);
    if (ok && std::find(models.begin(), models.end(), model) == models.end())
      models.push_back(model);
  }
  return models;
}

// The catalog's model names in its order, for GFD's product table.
std::vector<std::string> model_names(const GpuCatalog& catalog) {
  std::vector<std::string> names;
  names.reserve(catalog.models().size());
  for (const GpuModel& m : catalog.models()) names.push_back(m.name);
  return names;
}

std::string label_where(const KubeNode& n, const std::string& label) {
  const auto it = n.label_where.find(label);
  return it != n.label_where.end() ? it->second : n.where;
}

// The node group's name: the model and GPU count ("a100-80gb-x8"), or "cpu".
std::string group_base_name(const NodeFacts& f, const GpuCatalog& catalog) {
  if (f.gpus == 0) return "cpu";
  return fmt::format("{}-x{}", lower(catalog.models()[f.model].name), f.gpus);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// kNeverRan: a history import's pod that ended without having run (deleted while pending).
enum class Role { kDaemon, kPinned, kQueued, kFinished, kNeverRan };

// The pod as `import` writes it into trace.yaml, read back by the trace format's own reader
// (read_pod, which `validate` runs on every trace pod), so that the import refuses what the
// scenario would, and says so at the pod's place in the export rather than in a file it wrote.
void check_as_trace_pod(const PodSpec& s, const KubePod& p) {
  std::ostringstream text;
  write_trace_yaml(text, {s}, "");
  const YAML::Node root = YAML::Load(text.str());
  constexpr std::string_view kSource = "trace";
  try {
    (void)read_pod(YamlReader(std::string(kSource)), root["pods"][0], "", 0);
  } catch (const InputError& e) {
    // "trace:LINE:COL: FIELD: WHAT" without its position in the text written here.
    std::string_view what = e.what();
    for (int part = 0; part < 3; ++part) {
      const size_t colon = what.find(':');
      if (colon == std::string_view::npos) break;
      what.remove_prefix(colon + 1);
    }
    while (what.starts_with(' ')) what.remove_prefix(1);
    throw InputError(
        fmt::format("{}: pod '{}' becomes a trace pod that slicelab's scenario format refuses: {} "
                    "(docs/kubernetes-import.md#limits)",
                    p.where, p.name, what));
  }
}

}  // namespace

// The node's physical GPUs and their model. GFD's nvidia.com/gpu.count is the physical count;
// without it, allocatable nvidia.com/gpu divided by GFD's replicas label (time-slicing).
KubeNodeFacts kube_node_facts(const KubeNode& n, const GpuCatalog& catalog) {
  NodeFacts f;
  f.cpu_milli = n.cpu_milli;
  f.memory_mib = n.memory_mib;
  // The scenario format's ranges for a node group's cpu_milli and memory_mib.
  constexpr int64_t kMaxCpuMilli = int64_t{1} << 40;
  constexpr int64_t kMaxMemoryMib = 1'000'000'000'000;
  if (n.cpu_milli <= 0 || n.cpu_milli > kMaxCpuMilli)
    throw InputError(fmt::format(
        "{}: node '{}': allocatable cpu of {} millicores; a scenario's node has 1 to {}", n.where,
        n.name, n.cpu_milli, kMaxCpuMilli));
  if (n.memory_mib <= 0 || n.memory_mib > kMaxMemoryMib)
    throw InputError(fmt::format(
        "{}: node '{}': allocatable memory of {} MiB; a scenario's node has 1 to {} MiB", n.where,
        n.name, n.memory_mib, kMaxMemoryMib));
  int64_t gpus = 0;
  if (n.gpu_count) {
    gpus = *n.gpu_count;
  } else if (!n.mig.empty()) {
    throw InputError(fmt::format(
        "{}: node '{}' exposes MIG instances ({}) but has no nvidia.com/gpu.count label (GPU "
        "feature discovery's) to say how many physical GPUs hold them",
        n.where, n.name, fmt::format("nvidia.com/mig-{}", n.mig.front().first)));
  } else {
    gpus = n.gpu_resources / n.replicas;
  }
  if (gpus > kMaxGpusPerNode)
    throw InputError(fmt::format(
        "{}: node '{}' has {} GPUs (allocatable nvidia.com/gpu{}), more than {} per node; a "
        "device plugin that shares GPUs (HAMi's split count) needs the nvidia.com/gpu.count "
        "label for the physical count",
        n.where, n.name, gpus, n.replicas > 1 ? " / nvidia.com/gpu.replicas" : "",
        kMaxGpusPerNode));
  f.gpus = static_cast<int>(gpus);
  if (f.gpus == 0) return f;
  if (!n.product)
    throw InputError(fmt::format(
        "{}: node '{}' has {} GPUs but no label nvidia.com/gpu.product (GPU feature discovery's) "
        "to tell their model; label it, e.g. nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB",
        n.where, n.name, f.gpus));
  std::string error;
  const auto model =
      kube_gfd_product_model(*n.product, n.gpu_memory_mib, model_names(catalog), error);
  if (!model)
    throw InputError(fmt::format("{}: node '{}': label nvidia.com/gpu.product: {}",
                                 label_where(n, "nvidia.com/gpu.product"), n.name, error));
  f.model = *model;
  f.product = upper(*n.product);
  return f;
}

PodSpec kube_pod_spec(const KubePod& p, std::span<const KubeNodeFacts> facts,
                      const GpuCatalog& catalog, KubePodConversion& conversion) {
  PodSpec s;
  s.name = p.name;
  s.workload_class = "default";
  s.cpu_milli = p.cpu_milli;
  s.memory_mib = p.memory_mib;
  if (p.priority > kMaxPriority || p.priority < -kMaxPriority) conversion.priority_clamped = true;
  s.priority = static_cast<int>(std::clamp<int64_t>(p.priority, -kMaxPriority, kMaxPriority));
  // Clamped to int, where the trace format's range check (check_as_trace_pod) refuses it.
  s.gpu_count = p.mig_profile.empty()
                    ? static_cast<int>(std::min<int64_t>(p.gpus, std::numeric_limits<int>::max()))
                    : 1;
  s.mig_profile = p.mig_profile;
  if (s.gpu_count > 0) {
    if (p.gpucores > 0 && p.gpucores < 100) {
      if (s.gpu_count == 1)
        s.gpu_milli = static_cast<int16_t>(p.gpucores * 10);
      else
        conversion.cores_multi = true;
    }
    s.gpu_memory_mib = p.gpumem_mib;
    // HAMi resolves the percentage on the GPU it picks (its `hami` sharing mode does too);
    // nvidia.com/gpumem wins when both are given, as in HAMi.
    if (p.gpumem_mib == 0) s.gpu_memory_percent = static_cast<int16_t>(p.gpumem_percent);
    if (!p.selector_product.empty()) {
      std::string error;
      const auto m = kube_gfd_product_model(p.selector_product, 0, model_names(catalog), error);
      if (!m)
        throw InputError(fmt::format("{}: pod '{}': spec.nodeSelector nvidia.com/gpu.product: {}",
                                     p.where, p.name, error));
      s.allowed_models = std::vector<std::string>{catalog.models()[*m].name};
    }
    if (!p.use_gputype.empty() || !p.nouse_gputype.empty()) {
      std::vector<std::string> models =
          gputype_models(p.use_gputype, p.nouse_gputype, facts, catalog);
      if (models.empty())
        throw InputError(fmt::format(
            "{}: pod '{}': annotations nvidia.com/use-gputype '{}' / nouse-gputype '{}' leave "
            "no GPU model of the cluster",
            p.where, p.name, p.use_gputype, p.nouse_gputype));
      if (!s.allowed_models.empty()) {
        const std::string selected = s.allowed_models[0];
        if (std::find(models.begin(), models.end(), selected) == models.end())
          throw InputError(
              fmt::format("{}: pod '{}': its nodeSelector's {} is excluded by its "
                          "nvidia.com/use-gputype or nouse-gputype annotation",
                          p.where, p.name, selected));
      } else {
        s.allowed_models = models;
      }
    }
  }
  return s;
}

namespace {

// The import's steps, in the order import_kubernetes calls them. Each reads what the steps
// before it produced and throws InputError at the node or pod that the scenario would refuse.

// Step 1, nodes: each export node's facts (GFD's product mapped to a catalog model), by name.
struct ImportedNodes {
  std::unordered_map<std::string, size_t> index;  // node name -> index into `facts`
  std::vector<NodeFacts> facts;                   // in the export's order
};

ImportedNodes read_nodes(const std::vector<KubeNode>& nodes, const GpuCatalog& catalog,
                         std::vector<std::string>& notes) {
  ImportedNodes out;
  int64_t gpus = 0;
  for (const KubeNode& n : nodes) {
    // What the scenario's cluster section refuses, refused here at the node.
    if (n.name.empty()) throw InputError(fmt::format("{}: a node name cannot be empty", n.where));
    if (!out.index.emplace(n.name, out.facts.size()).second)
      throw InputError(fmt::format("{}: node '{}' appears twice", n.where, n.name));
    if (static_cast<int64_t>(out.facts.size()) >= kMaxNodes)
      throw InputError(
          fmt::format("{}: node '{}': the export has more than the {} nodes a "
                      "scenario's cluster may have",
                      n.where, n.name, kMaxNodes));
    out.facts.push_back(kube_node_facts(n, catalog));
    if ((gpus += out.facts.back().gpus) > kMaxGpus)
      throw InputError(
          fmt::format("{}: node '{}': the export's nodes have more than the {} GPUs "
                      "a scenario's cluster may have",
                      n.where, n.name, kMaxGpus));
    if (!n.mig.empty())
      notes.push_back(fmt::format(
          "node '{}' exposes MIG instances (strategy {}): imported as {} whole GPUs; a mig policy "
          "models the partitions",
          n.name, n.mig_strategy.empty() ? "unknown" : n.mig_strategy, out.facts.back().gpus));
  }
  if (out.facts.empty()) throw InputError("the export has no Node objects: give --nodes");
  return out;
}

// Step 2, the snapshot's moment: the export's latest timestamp (0 when it has none).
double latest_timestamp(const std::vector<KubePod>& pods) {
  double snapshot = -std::numeric_limits<double>::infinity();
  for (const KubePod& p : pods) {
    snapshot = std::max(
        {snapshot, p.created_s, p.started_s.value_or(snapshot), p.finished_s.value_or(snapshot)});
  }
  return std::isfinite(snapshot) ? snapshot : 0.0;
}

// A history import's origin: the export's earliest timestamp (0 when it has none).
double earliest_timestamp(const std::vector<KubePod>& pods) {
  double origin = std::numeric_limits<double>::infinity();
  for (const KubePod& p : pods)
    origin = std::min(
        {origin, p.created_s, p.started_s.value_or(origin), p.finished_s.value_or(origin)});
  return std::isfinite(origin) ? origin : 0.0;
}

// What a pod is in a history import, whose time 0 is `origin_s`: pods are not finished because
// they finished before the export was taken but only when they ended before the origin.
Role history_role(const KubePod& p, double origin_s, const ImportedNodes& nodes) {
  const bool bound = !p.node_name.empty();
  if (p.finished_s && (!p.started_s || !bound)) return Role::kNeverRan;
  if (p.finished_s && *p.finished_s <= origin_s) return Role::kFinished;
  if (p.created_s < origin_s && bound && nodes.index.contains(p.node_name)) return Role::kPinned;
  return Role::kQueued;
}

// Step 3, pods: what each pod is at the snapshot, and how long each owner's pods ran.
struct PodRoles {
  std::vector<Role> role;                                // one per export pod
  std::unordered_map<std::string, size_t> index;         // pod name -> export index
  std::unordered_map<std::string, double> owner_median;  // owner -> median of finished runs
};

PodRoles classify_pods(const std::vector<KubePod>& pods, const ImportedNodes& nodes,
                       double snapshot_s, bool history, std::map<std::string, int>& phases) {
  PodRoles out;
  out.role.resize(pods.size());
  std::unordered_map<std::string, std::vector<double>> finished_by_owner;
  for (size_t i = 0; i < pods.size(); ++i) {
    const KubePod& p = pods[i];
    if (!out.index.emplace(p.name, i).second)
      throw InputError(fmt::format("{}: pod '{}' appears twice", p.where, p.name));
    ++phases[p.phase];
    const bool done = p.phase == "Succeeded" || p.phase == "Failed";
    const bool future = p.created_s > snapshot_s;
    Role& role = out.role[i];
    if (p.owner_kind == "DaemonSet") {
      role = Role::kDaemon;
    } else if (history) {
      role = history_role(p, snapshot_s, nodes);
    } else if (future) {
      role = Role::kQueued;
    } else if (done) {
      role = Role::kFinished;
    } else {
      role = p.node_name.empty() ? Role::kQueued : Role::kPinned;
    }
    // A finished pod's node may be long gone (scaled down); a running pod's must be there.
    if (role == Role::kPinned && !nodes.index.contains(p.node_name))
      throw InputError(
          fmt::format("{}: pod '{}' runs on node '{}' (spec.nodeName), which the "
                      "export's nodes lack",
                      p.where, p.name, p.node_name));
    // Only pods that ran to success say how long the owner's pods run.
    if (p.phase == "Succeeded" && p.started_s && p.finished_s && *p.finished_s >= *p.started_s &&
        (!future || history))
      finished_by_owner[p.owner].push_back(*p.finished_s - *p.started_s);
  }
  for (auto& [owner, durations] : finished_by_owner) out.owner_median[owner] = median(durations);
  return out;
}

// Step 4, DaemonSet pods run on every node for as long as it exists: their requests are the
// node's, taken off its allocatable, not pods of the trace. Returns how many there are.
int take_daemon_pods_off_nodes(const std::vector<KubePod>& pods, const PodRoles& roles,
                               ImportedNodes& nodes) {
  int daemons = 0;
  for (size_t i = 0; i < pods.size(); ++i) {
    const KubePod& p = pods[i];
    if (roles.role[i] != Role::kDaemon) continue;
    ++daemons;
    if (!nodes.index.contains(p.node_name) || p.phase == "Succeeded" || p.phase == "Failed")
      continue;
    NodeFacts& f = nodes.facts[nodes.index.at(p.node_name)];
    f.cpu_milli -= p.cpu_milli;
    f.memory_mib -= p.memory_mib;
    if (f.cpu_milli <= 0 || f.memory_mib <= 0)
      throw InputError(fmt::format("{}: DaemonSet pod '{}' leaves node '{}' no CPU or memory",
                                   p.where, p.name, p.node_name));
  }
  return daemons;
}

// Step 5, node groups: identical nodes share one, which keeps their names in node_names.
// Returns the simulator's node index of each export node (groups in order, nodes in group
// order).
std::vector<NodeId> group_nodes(const std::vector<KubeNode>& nodes,
                                const std::vector<NodeFacts>& facts, const GpuCatalog& catalog,
                                ClusterSpec& cluster) {
  std::vector<std::tuple<int64_t, int64_t, size_t, int>> keys;
  std::vector<size_t> group_of(facts.size());
  std::unordered_map<std::string, int> name_uses;
  for (size_t k = 0; k < facts.size(); ++k) {
    const NodeFacts& f = facts[k];
    const auto key = std::make_tuple(f.cpu_milli, f.memory_mib, f.gpus > 0 ? f.model : 0, f.gpus);
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it != keys.end()) {
      group_of[k] = static_cast<size_t>(it - keys.begin());
    } else {
      group_of[k] = keys.size();
      keys.push_back(key);
      NodeGroup g;
      const std::string base = group_base_name(f, catalog);
      const int uses = ++name_uses[base];
      g.name = uses == 1 ? base : fmt::format("{}-{}", base, uses);
      g.count = 0;
      g.cpu_milli = f.cpu_milli;
      g.memory_mib = f.memory_mib;
      g.gpus_per_node = f.gpus;
      g.gpu_model = f.gpus > 0 ? f.model : 0;
      cluster.groups.push_back(std::move(g));
    }
    NodeGroup& g = cluster.groups[group_of[k]];
    ++g.count;
    g.node_names.push_back(nodes[k].name);
  }
  std::vector<NodeId> first(cluster.groups.size());
  NodeId at = 0;
  for (size_t g = 0; g < first.size(); ++g) {
    first[g] = at;
    at += static_cast<NodeId>(cluster.groups[g].count);
  }
  std::vector<NodeId> sim_node(facts.size());
  std::vector<NodeId> used(first.size(), 0);
  for (size_t k = 0; k < facts.size(); ++k) sim_node[k] = first[group_of[k]] + used[group_of[k]]++;
  return sim_node;
}

// The GPU indices of the extender's slicelab.io/gpu-assignment ({"gpus": [{"index": 0}, ...]});
// nullopt when the text is not that, or names an index twice or beyond `gpus_on_node`.
std::optional<std::vector<int>> assignment_gpus(const std::string& text, int gpus_on_node) {
  try {
    const nlohmann::json j = parse_bounded_json(text, JsonLimits{.max_depth = 8});
    const auto list = j.is_object() ? j.find("gpus") : j.end();
    if (!j.is_object() || list == j.end() || !list->is_array()) return std::nullopt;
    std::vector<int> out;
    for (const nlohmann::json& g : *list) {
      const auto index = g.is_object() ? g.find("index") : g.end();
      if (!g.is_object() || index == g.end() || !index->is_number_integer()) return std::nullopt;
      const int64_t i = index->get<int64_t>();
      if (i < 0 || i >= gpus_on_node ||
          std::find(out.begin(), out.end(), static_cast<int>(i)) != out.end())
        return std::nullopt;
      out.push_back(static_cast<int>(i));
    }
    return out;
  } catch (const JsonLimitError&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// Step 6, the workload: each running or waiting pod as a trace pod with its duration and
// arrival; the running ones pinned to their nodes.
struct ImportedWorkload {
  std::vector<PodSpec> pinned_pods;  // in export order, one per entry of `pinned`
  std::vector<PinnedPod> pinned;
  std::vector<PodSpec> queued;  // in export order
  KubePodConversion conversion;
  std::vector<std::string> ignored_resources;  // first seen first
};

// How long a pod runs: what it did (a pod that finished after the snapshot time), else what its
// owner's finished pods did, else the default.
double pod_duration(const KubePod& p, Role role, const PodRoles& roles,
                    const KubernetesImportOptions& options, KubernetesImport& out) {
  std::optional<double> learned;
  if (const auto it = roles.owner_median.find(p.owner); it != roles.owner_median.end())
    learned = it->second;
  if (options.history && (p.finished_s || (p.started_s && !p.node_name.empty()))) {
    if (p.finished_s) {  // it ran (history_role): from its start, or the origin when pinned
      const double from = role == Role::kPinned ? out.snapshot_s : *p.started_s;
      return *p.finished_s - std::max(from, *p.started_s);
    }
    ++out.unended;
    if (options.unended_duration_s) return *options.unended_duration_s;
    const double from = role == Role::kPinned ? out.snapshot_s : *p.started_s;
    return std::max(0.0, options.end_s.value_or(from) - std::max(from, *p.started_s)) +
           options.running_duration_s;
  }
  if (role == Role::kPinned) {
    const double elapsed = p.started_s ? std::max(0.0, out.snapshot_s - *p.started_s) : 0.0;
    if (learned && *learned > elapsed) {
      ++out.learned_durations;
      return *learned - elapsed;
    }
    ++out.default_durations;
    return options.running_duration_s;
  }
  if (p.started_s && p.finished_s && *p.finished_s >= *p.started_s)
    return *p.finished_s - *p.started_s;
  if (learned) {
    ++out.learned_durations;
    return *learned;
  }
  ++out.default_durations;
  return options.pending_duration_s;
}

ImportedWorkload pods_to_workload(const std::vector<KubePod>& pods, const PodRoles& roles,
                                  const ImportedNodes& nodes, const std::vector<NodeId>& sim_node,
                                  const GpuCatalog& catalog, const KubernetesImportOptions& options,
                                  KubernetesImport& out) {
  ImportedWorkload w;
  for (size_t i = 0; i < pods.size(); ++i) {
    const KubePod& p = pods[i];
    const Role role = roles.role[i];
    if (role == Role::kDaemon) continue;
    if (role == Role::kFinished) {
      ++out.finished_pods;
      continue;
    }
    if (role == Role::kNeverRan) {
      ++out.never_ran;
      continue;
    }
    PodSpec s = kube_pod_spec(p, nodes.facts, catalog, w.conversion);
    for (const std::string& r : p.ignored_resources)
      if (std::find(w.ignored_resources.begin(), w.ignored_resources.end(), r) ==
          w.ignored_resources.end())
        w.ignored_resources.push_back(r);
    const bool on_node = role == Role::kPinned;
    s.duration_s = std::clamp(pod_duration(p, role, roles, options, out), 0.001, kHorizonS);
    if (!on_node) {
      s.arrival_s = std::max(0.0, p.created_s - out.snapshot_s);
      if (s.arrival_s >= kHorizonS)
        throw InputError(
            fmt::format("{}: pod '{}' is created {:g}s after the snapshot time, "
                        "beyond the {} horizon",
                        p.where, p.name, s.arrival_s, kHorizonText));
    }
    check_as_trace_pod(s, p);
    if (options.history) {
      if (p.node_name.empty())
        ++out.unbound;
      else if (nodes.index.contains(p.node_name))
        out.placements.push_back({p.name, p.node_name, {}, std::nullopt});
      else
        out.unknown_nodes.push_back({p.name, p.node_name, {}, std::nullopt});
      if (!p.node_name.empty() && p.started_s) {
        auto& r = nodes.index.contains(p.node_name) ? out.placements : out.unknown_nodes;
        r.back().started_s = std::max(0.0, *p.started_s - out.snapshot_s);
      }
      if (!p.gpu_assignment.empty() && nodes.index.contains(p.node_name)) {
        const auto gpus =
            assignment_gpus(p.gpu_assignment, nodes.facts[nodes.index.at(p.node_name)].gpus);
        if (gpus && gpus->size() == static_cast<size_t>(s.gpu_count))
          out.placements.back().gpus = *gpus;
        else
          ++out.unread_assignments;
      }
    }
    if (on_node) {
      w.pinned.push_back(
          {static_cast<uint32_t>(w.pinned_pods.size()), sim_node[nodes.index.at(p.node_name)]});
      out.snapshot.emplace_back(p.name, p.node_name);
      w.pinned_pods.push_back(std::move(s));
    } else {
      w.queued.push_back(std::move(s));
    }
  }
  return w;
}

// Step 7, the snapshot must fit: refused at the first pod that over-commits its node.
void check_snapshot_fits(const KubernetesImport& out, const ImportedWorkload& w,
                         const std::vector<KubePod>& pods, const PodRoles& roles,
                         const GpuCatalog& catalog) {
  if (const auto over = find_snapshot_overcommit(out.cluster, catalog, w.pinned_pods, w.pinned)) {
    const std::string& name = out.snapshot[over->entry].first;
    throw InputError(fmt::format("{}: {}", pods[roles.index.at(name)].where, over->message));
  }
}

// Step 8, the scenario's pods: the snapshot's first (arrival 0), then the others by arrival.
void assemble_pods(ImportedWorkload& w, KubernetesImport& out) {
  std::stable_sort(w.queued.begin(), w.queued.end(),
                   [](const PodSpec& a, const PodSpec& b) { return a.arrival_s < b.arrival_s; });
  out.pods = std::move(w.pinned_pods);
  for (PodSpec& s : w.queued) out.pods.push_back(std::move(s));
  if (out.pods.size() > static_cast<size_t>(kMaxPods))
    throw InputError(fmt::format("the export has {} pods to simulate, more than the limit of {}",
                                 out.pods.size(), kMaxPods));
}

// Step 9, what was approximated, one sentence each.
void note_approximations(const ImportedWorkload& w, const KubeObjects& objects,
                         std::vector<std::string>& notes) {
  if (w.conversion.cores_multi)
    notes.push_back(
        "nvidia.com/gpucores of multi-GPU pods is not imported: slicelab's GPU shares are for "
        "one-GPU pods");
  if (w.conversion.priority_clamped)
    notes.push_back(fmt::format(
        "priorities beyond ±{} (system-node-critical, system-cluster-critical) are clamped to it",
        kMaxPriority));
  if (!w.ignored_resources.empty()) {
    std::string list;
    for (const std::string& r : w.ignored_resources) list += (list.empty() ? "" : ", ") + r;
    notes.push_back(fmt::format("resources not simulated: {}", list));
  }
  for (const auto& [kind, n] : objects.skipped_kinds)
    notes.push_back(fmt::format("{} {} object(s) skipped (only Node and Pod are read)", n, kind));
}

}  // namespace

KubernetesImport import_kubernetes(const KubeObjects& objects, const GpuCatalog& catalog,
                                   const KubernetesImportOptions& options) {
  KubernetesImport out;
  ImportedNodes nodes = read_nodes(objects.nodes, catalog, out.notes);
  out.history = options.history;
  // A history import counts from its origin: the snapshot is the pods running then.
  out.snapshot_s = options.history ? options.origin_s.value_or(earliest_timestamp(objects.pods))
                                   : options.snapshot_s.value_or(latest_timestamp(objects.pods));
  KubernetesImportOptions effective = options;
  if (options.history && !effective.end_s) effective.end_s = latest_timestamp(objects.pods);
  const PodRoles roles =
      classify_pods(objects.pods, nodes, out.snapshot_s, options.history, out.phases);
  out.daemon_pods = take_daemon_pods_off_nodes(objects.pods, roles, nodes);
  const std::vector<NodeId> sim_node =
      group_nodes(objects.nodes, nodes.facts, catalog, out.cluster);
  ImportedWorkload workload =
      pods_to_workload(objects.pods, roles, nodes, sim_node, catalog, effective, out);
  check_snapshot_fits(out, workload, objects.pods, roles, catalog);
  assemble_pods(workload, out);
  note_approximations(workload, objects, out.notes);
  if (out.unread_assignments > 0)
    out.notes.push_back(fmt::format(
        "{} pod(s) have a slicelab.io/gpu-assignment that is not a list of distinct GPU indices "
        "of their node, one per GPU asked: as-recorded picks their GPUs itself",
        out.unread_assignments));
  return out;
}

std::string kubernetes_cluster_yaml(const ClusterSpec& cluster, const GpuCatalog& catalog) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "node_groups" << YAML::Value << YAML::BeginSeq;
  for (const NodeGroup& g : cluster.groups) {
    e << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << g.name;
    e << YAML::Key << "count" << YAML::Value << g.count;
    e << YAML::Key << "cpu_milli" << YAML::Value << g.cpu_milli;
    e << YAML::Key << "memory_mib" << YAML::Value << g.memory_mib;
    if (g.gpus_per_node > 0) {
      e << YAML::Key << "gpu_model" << YAML::Value << catalog.models()[g.gpu_model].name;
      e << YAML::Key << "gpus_per_node" << YAML::Value << g.gpus_per_node;
    }
    e << YAML::Key << "node_names" << YAML::Value << YAML::Flow << g.node_names;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

std::string kubernetes_snapshot_yaml(const KubernetesImport& imported, const std::string& source) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "description" << YAML::Value
    << fmt::format("running pods of {} and their nodes at the snapshot", source);
  e << YAML::Key << "snapshot" << YAML::Value << YAML::BeginSeq;
  for (const auto& [pod, node] : imported.snapshot)
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "pod" << YAML::Value << pod << YAML::Key
      << "node" << YAML::Value << node << YAML::EndMap;
  e << YAML::EndSeq << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

std::string kubernetes_placements_yaml(const KubernetesImport& imported,
                                       const std::string& source) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "description" << YAML::Value
    << fmt::format("the nodes the pods of {} ran on (the as-recorded policy's)", source);
  e << YAML::Key << "placements" << YAML::Value << YAML::BeginSeq;
  for (const RecordedPlacement& r : imported.placements) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "pod" << YAML::Value << r.pod << YAML::Key
      << "node" << YAML::Value << r.node;
    if (!r.gpus.empty()) e << YAML::Key << "gpus" << YAML::Value << YAML::Flow << r.gpus;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

std::string kubernetes_scenario_yaml(const KubernetesImport& imported, const GpuCatalog& catalog,
                                     const std::string& name, const std::string& source,
                                     const std::string& command) {
  const bool history = imported.history;
  YAML::Emitter description;
  description << YAML::DoubleQuoted
              << fmt::format("What if this cluster shared its GPUs differently? (imported {})",
                             source);
  std::string comment = source;
  std::replace(comment.begin(), comment.end(), '\n', ' ');
  std::string cluster;
  // The cluster section indented under `cluster:`.
  const std::string text = kubernetes_cluster_yaml(imported.cluster, catalog);
  for (size_t at = 0; at < text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    if (nl > at) cluster += "  " + text.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return fmt::format(
      "# Written by `slicelab {command}` from {source}.\n"
      "# The running pods hold their nodes from time 0 (snapshot.yaml); pending and later pods\n"
      "# arrive as trace.yaml says. docs/kubernetes-import.md explains every number.\n"
      "name: {name}\n"
      "description: {description}\n"
      "cluster:\n{cluster}"
      "workload:\n"
      "  trace: trace.yaml\n"
      "  snapshot: snapshot.yaml\n"
      "{placements}"
      "engine:\n"
      "  queue: backfill\n"
      "  sample_interval: 60s\n"
      "policies:\n"
      "{as_recorded}"
      "  - name: as-is\n"
      "    placement: best-fit\n"
      "    sharing: whole-card\n"
      "  - name: time-slice-x4\n"
      "    placement: best-fit\n"
      "    sharing: {{mode: time-slice, replicas: 4}}\n"
      "  - name: hami-binpack\n"
      "    placement: hami-binpack\n"
      "    sharing: {{mode: hami}}\n"
      "  - name: fgd-gpu-share\n"
      "    placement: fgd\n"
      "    sharing: gpu-share\n",
      fmt::arg("source", comment), fmt::arg("name", name), fmt::arg("command", command),
      fmt::arg("placements", history ? "  placements: placements.yaml\n" : ""),
      fmt::arg("as_recorded", history ? "  - name: as-recorded\n"
                                        "    placement: as-recorded\n"
                                        "    sharing: whole-card\n"
                                      : ""),
      fmt::arg("description", description.c_str()), fmt::arg("cluster", cluster));
}

}  // namespace slicelab
