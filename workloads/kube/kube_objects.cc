#include "workloads/kube/kube_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "workloads/edit_distance.h"
#include "workloads/hardware/mig_profiles.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_names.h"
#include "workloads/kube/kube_quantity.h"
#include "workloads/rfc3339.h"
#include "workloads/yaml_reader.h"

namespace slicelab {
namespace {

// The nvidia.com resources slicelab reads (the device plugin's and HAMi's); any other
// nvidia.com name is a mistake worth naming ("nvidia.com/gpumemory").
constexpr std::string_view kNvidiaResources[] = {
    "nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/gpumem", "nvidia.com/gpumem-percentage",
    "nvidia.com/gpucores"};

// Sums of requests saturate rather than overflow: a pod of many huge containers is refused
// later, by the pod format's range, not wrapped into a small number.
int64_t add_saturating(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

// Kubernetes' own resources that do not enter the simulation.
bool is_ignored_builtin(std::string_view name) {
  return name == "ephemeral-storage" || name == "pods" || name.starts_with("hugepages-") ||
         name.starts_with("attachable-volumes-") || name.starts_with("kubernetes.io/");
}

class ObjectReader {
 public:
  ObjectReader(const YamlReader& yaml, KubeObjects& into) : yaml_(yaml), into_(into) {}

  // One document: a List of objects, a top-level list of them, or one object.
  void document(const YAML::Node& doc, const std::string& path) {
    if (doc.IsSequence()) {
      items(doc, path);
      return;
    }
    yaml_.require_map(doc, path.empty() ? "top level" : path);
    const YAML::Node kind_node = yaml_.required(doc, path, "kind");
    const std::string kind = yaml_.string(kind_node, join_path(path, "kind"));
    if (kind == "List" || kind.ends_with("List")) {
      const YAML::Node list = doc["items"];
      // `kubectl get` prints "items": [] for nothing found, and yaml-cpp reads JSON's null.
      if (!list.IsDefined() || list.IsNull()) return;
      items(list, join_path(path, "items"));
    } else if (kind == "Node") {
      node(doc, path);
    } else if (kind == "Pod") {
      pod(doc, path);
    } else {
      ++into_.skipped_kinds[kind];
    }
  }

 private:
  void items(const YAML::Node& list, const std::string& path) {
    yaml_.require_seq(list, path);
    for (size_t i = 0; i < list.size(); ++i) document(list[i], index_path(path, i));
  }

  static YAML::Node child(const YAML::Node& map, const char* key) {
    if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    return map[key];
  }
  static bool present(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }

  std::string scalar(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) yaml_.fail_expected(n, path, "a string");
    return n.Scalar();
  }

  std::string object_name(const YAML::Node& obj, const std::string& path) const {
    const YAML::Node meta = yaml_.required(obj, path, "metadata");
    const std::string mp = join_path(path, "metadata");
    return scalar(yaml_.required(meta, mp, "name"), join_path(mp, "name"));
  }

  int64_t cpu(const YAML::Node& n, const std::string& path) const {
    std::string error;
    const auto v = parse_cpu_milli(scalar(n, path), error);
    if (!v) yaml_.fail(n, path, fmt::format("not a CPU quantity: {}", error));
    return *v;
  }
  int64_t memory(const YAML::Node& n, const std::string& path) const {
    std::string error;
    const auto v = parse_memory_mib(scalar(n, path), error);
    if (!v) yaml_.fail(n, path, fmt::format("not a memory quantity: {}", error));
    return *v;
  }
  // A count (an extended resource, a label): a whole non-negative number.
  int64_t count(const YAML::Node& n, const std::string& path, int64_t max) const {
    std::string error;
    const std::string text = scalar(n, path);
    const auto q = parse_quantity(text, error);
    if (!q) yaml_.fail(n, path, fmt::format("not a number: {}", error));
    const auto v = q->scaled_up(0);
    if (q->negative || !v || *v > max || q->scaled_up(3).value_or(0) != *v * 1000)
      yaml_.fail(n, path,
                 fmt::format("expected a whole number from 0 to {}, found '{}'", max, text));
    return *v;
  }
  double timestamp(const YAML::Node& n, const std::string& path) const {
    std::string error;
    const auto v = parse_rfc3339_seconds(scalar(n, path), error);
    if (!v) yaml_.fail(n, path, fmt::format("not an RFC 3339 time: {}", error));
    return *v;
  }

  [[noreturn]] void unknown_resource(const YAML::Node& at, const std::string& path,
                                     const std::string& name, const std::string& owner) const {
    std::string best;
    size_t best_d = SIZE_MAX;
    for (const std::string_view known : kNvidiaResources)
      if (const size_t d = edit_distance(name, known); d < best_d) best_d = d, best = known;
    yaml_.fail(
        at, path,
        fmt::format("unknown resource '{}' of {}{} (slicelab reads cpu, memory, "
                    "nvidia.com/gpu, nvidia.com/gpumem, nvidia.com/gpumem-percentage, "
                    "nvidia.com/gpucores and nvidia.com/mig-<profile>)",
                    name, owner, best_d <= 3 ? fmt::format(" (did you mean '{}'?)", best) : ""));
  }

  std::string mig_profile(const YAML::Node& at, const std::string& path, const std::string& name,
                          const std::string& owner) const {
    std::string profile = name.substr(kKubeMigResourcePrefix.size());
    if (!is_known_mig_profile(profile))
      yaml_.fail(at, path,
                 fmt::format("unknown MIG profile '{}' in resource '{}' of {} (known: {})", profile,
                             name, owner, known_mig_profile_names()));
    return profile;
  }

  void node(const YAML::Node& obj, const std::string& path) {
    KubeNode n;
    n.name = object_name(obj, path);
    n.where = yaml_.where(obj, path.empty() ? "top level" : path);
    const std::string owner = fmt::format("node '{}'", n.name);
    const std::string sp = join_path(path, "status");
    const YAML::Node status = yaml_.required(obj, path, "status");
    const std::string ap = join_path(sp, "allocatable");
    const YAML::Node alloc = yaml_.required(status, sp, "allocatable");
    yaml_.require_map(alloc, ap);
    n.cpu_milli = cpu(yaml_.required(alloc, ap, "cpu"), join_path(ap, "cpu"));
    n.memory_mib = memory(yaml_.required(alloc, ap, "memory"), join_path(ap, "memory"));
    for (const auto& kv : alloc) {
      const std::string name = kv.first.Scalar();
      const std::string p = join_path(ap, name);
      if (name == "cpu" || name == "memory" || is_ignored_builtin(name)) continue;
      if (name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared") {
        n.gpu_resources += count(kv.second, p, 1 << 20);
      } else if (name.starts_with(kKubeMigResourcePrefix)) {
        n.mig.emplace_back(mig_profile(kv.second, p, name, owner), count(kv.second, p, 1024));
      } else if (name.starts_with("nvidia.com/")) {
        // HAMi's node resources are counted by its device plugin, not here.
        if (name == "nvidia.com/gpumem" || name == "nvidia.com/gpucores") continue;
        unknown_resource(kv.second, p, name, owner);
      }
    }
    const std::string mp = join_path(path, "metadata");
    const YAML::Node labels = child(obj["metadata"], "labels");
    const std::string lp = join_path(mp, "labels");
    if (present(labels)) {
      yaml_.require_map(labels, lp);
      for (const auto& kv : labels) {
        const std::string key = kv.first.Scalar();
        if (!key.starts_with("nvidia.com/")) continue;
        const std::string p = join_path(lp, key);
        n.label_where[key] = yaml_.where(kv.second, p);
        if (key == "nvidia.com/gpu.product") {
          n.product = scalar(kv.second, p);
        } else if (key == "nvidia.com/gpu.memory") {
          n.gpu_memory_mib = count(kv.second, p, int64_t{1} << 30);
        } else if (key == "nvidia.com/gpu.count") {
          n.gpu_count = count(kv.second, p, 1024);
        } else if (key == "nvidia.com/gpu.replicas") {
          n.replicas = std::max<int64_t>(1, count(kv.second, p, 1024));
        } else if (key == "nvidia.com/mig.strategy") {
          n.mig_strategy = scalar(kv.second, p);
          if (n.mig_strategy != "none" && n.mig_strategy != "single" && n.mig_strategy != "mixed")
            yaml_.fail(kv.second, p,
                       fmt::format("node '{}': expected none, single or mixed, found '{}'", n.name,
                                   n.mig_strategy));
        }
      }
    }
    into_.nodes.push_back(std::move(n));
  }

  // A container's requests (defaulting to its limits) into `sums`; HAMi's per-GPU values are
  // per container, and the pod's are the largest.
  struct Requests {
    int64_t cpu = 0, memory = 0, gpus = 0, gpumem = 0, gpumem_percent = 0, gpucores = 0, mig = 0;
    std::string mig_profile;
  };
  Requests container(const YAML::Node& c, const std::string& path, KubePod& pod) const {
    Requests r;
    const YAML::Node res = child(c, "resources");
    if (!present(res)) return r;
    const std::string rp = join_path(path, "resources");
    const YAML::Node requests = child(res, "requests");
    const YAML::Node limits = child(res, "limits");
    // Kubernetes defaults a request that is not given to its limit.
    std::map<std::string, std::pair<YAML::Node, std::string>> merged;
    for (const auto& [part, name] :
         {std::pair{limits, "limits"}, std::pair{requests, "requests"}}) {
      if (!present(part)) continue;
      const std::string pp = join_path(rp, name);
      yaml_.require_map(part, pp);
      for (const auto& kv : part)
        merged[kv.first.Scalar()] = {kv.second, join_path(pp, kv.first.Scalar())};
    }
    const std::string owner = fmt::format("pod '{}'", pod.name);
    for (const auto& [name, value] : merged) {
      const auto& [v, p] = value;
      if (name == "cpu") {
        r.cpu = cpu(v, p);
      } else if (name == "memory") {
        r.memory = memory(v, p);
      } else if (name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared") {
        r.gpus = count(v, p, 64);
      } else if (name == "nvidia.com/gpumem") {
        r.gpumem = count(v, p, int64_t{1} << 30);  // HAMi: MiB per GPU
      } else if (name == "nvidia.com/gpumem-percentage") {
        r.gpumem_percent = count(v, p, 100);
      } else if (name == "nvidia.com/gpucores") {
        r.gpucores = count(v, p, 100);
      } else if (name.starts_with(kKubeMigResourcePrefix)) {
        r.mig_profile = mig_profile(v, p, name, owner);
        r.mig = count(v, p, 64);
      } else if (name.starts_with("nvidia.com/")) {
        unknown_resource(v, p, name, owner);
      } else if (!is_ignored_builtin(name)) {
        if (std::find(pod.ignored_resources.begin(), pod.ignored_resources.end(), name) ==
            pod.ignored_resources.end())
          pod.ignored_resources.push_back(name);
      }
    }
    return r;
  }

  void resources(const YAML::Node& spec, const std::string& sp, KubePod& pod) const {
    Requests sum, init;
    std::vector<std::pair<std::string, std::string>> migs;  // profile, where
    const auto add_mig = [&](const Requests& r, const std::string& where) {
      if (r.mig > 0) migs.emplace_back(r.mig_profile, where);
      if (r.mig > 1)
        throw InputError(
            fmt::format("{}: pod '{}' asks for {} MIG instances of {}; slicelab's "
                        "pods take one instance",
                        where, pod.name, r.mig, r.mig_profile));
    };
    const YAML::Node containers = yaml_.required(spec, sp, "containers");
    const std::string cp = join_path(sp, "containers");
    yaml_.require_seq(containers, cp);
    for (size_t i = 0; i < containers.size(); ++i) {
      const Requests r = container(containers[i], index_path(cp, i), pod);
      sum.cpu = add_saturating(sum.cpu, r.cpu);
      sum.memory = add_saturating(sum.memory, r.memory);
      sum.gpus = add_saturating(sum.gpus, r.gpus);
      sum.gpumem = std::max(sum.gpumem, r.gpumem);
      sum.gpumem_percent = std::max(sum.gpumem_percent, r.gpumem_percent);
      sum.gpucores = std::max(sum.gpucores, r.gpucores);
      add_mig(r, yaml_.where(containers[i], index_path(cp, i)));
    }
    if (const YAML::Node ic = child(spec, "initContainers"); present(ic)) {
      const std::string ip = join_path(sp, "initContainers");
      yaml_.require_seq(ic, ip);
      // Init containers run one at a time before the others: the pod needs the largest.
      for (size_t i = 0; i < ic.size(); ++i) {
        const Requests r = container(ic[i], index_path(ip, i), pod);
        init.cpu = std::max(init.cpu, r.cpu);
        init.memory = std::max(init.memory, r.memory);
        init.gpus = std::max(init.gpus, r.gpus);
        if (r.mig > 0 && migs.empty()) add_mig(r, yaml_.where(ic[i], index_path(ip, i)));
      }
    }
    pod.cpu_milli = std::max(sum.cpu, init.cpu);
    pod.memory_mib = std::max(sum.memory, init.memory);
    pod.gpus = std::max(sum.gpus, init.gpus);
    if (const YAML::Node oh = child(spec, "overhead"); present(oh)) {
      const std::string op = join_path(sp, "overhead");
      if (const YAML::Node v = child(oh, "cpu"); present(v))
        pod.cpu_milli = add_saturating(pod.cpu_milli, cpu(v, join_path(op, "cpu")));
      if (const YAML::Node v = child(oh, "memory"); present(v))
        pod.memory_mib = add_saturating(pod.memory_mib, memory(v, join_path(op, "memory")));
    }
    pod.gpumem_mib = sum.gpumem;
    pod.gpumem_percent = sum.gpumem_percent;
    pod.gpucores = sum.gpucores;
    if (migs.size() > 1)
      throw InputError(
          fmt::format("{}: pod '{}' asks for MIG instances in {} containers ({} and "
                      "{}); slicelab's pods take one instance",
                      migs[1].second, pod.name, migs.size(), migs[0].first, migs[1].first));
    if (!migs.empty()) {
      if (pod.gpus > 0)
        throw InputError(
            fmt::format("{}: pod '{}' asks for both nvidia.com/gpu and a MIG "
                        "instance; slicelab's pods take one or the other",
                        migs[0].second, pod.name));
      pod.mig_profile = migs[0].first;
    }
  }

  void pod(const YAML::Node& obj, const std::string& path) {
    KubePod pod;
    const std::string mp = join_path(path, "metadata");
    const YAML::Node meta = yaml_.required(obj, path, "metadata");
    const std::string name = object_name(obj, path);
    const YAML::Node ns = child(meta, "namespace");
    pod.name = fmt::format("{}/{}",
                           present(ns) ? scalar(ns, join_path(mp, "namespace")) : "default", name);
    pod.where = yaml_.where(obj, path.empty() ? "top level" : path);
    if (const YAML::Node uid = child(meta, "uid"); present(uid))
      pod.uid = scalar(uid, join_path(mp, "uid"));
    pod.created_s = timestamp(yaml_.required(meta, mp, "creationTimestamp"),
                              join_path(mp, "creationTimestamp"));
    pod.owner = name;
    if (const YAML::Node g = child(meta, "generateName"); present(g))
      pod.owner = scalar(g, join_path(mp, "generateName"));
    if (const YAML::Node refs = child(meta, "ownerReferences");
        present(refs) && refs.IsSequence() && refs.size() > 0) {
      const std::string rp = index_path(join_path(mp, "ownerReferences"), 0);
      pod.owner_kind = scalar(yaml_.required(refs[0], rp, "kind"), join_path(rp, "kind"));
      pod.owner = fmt::format("{}/{}", pod.owner_kind,
                              scalar(yaml_.required(refs[0], rp, "name"), join_path(rp, "name")));
    }
    if (const YAML::Node ann = child(meta, "annotations"); present(ann)) {
      const std::string ap = join_path(mp, "annotations");
      if (const YAML::Node v = child(ann, "nvidia.com/use-gputype"); present(v))
        pod.use_gputype = scalar(v, join_path(ap, "nvidia.com/use-gputype"));
      if (const YAML::Node v = child(ann, "nvidia.com/nouse-gputype"); present(v))
        pod.nouse_gputype = scalar(v, join_path(ap, "nvidia.com/nouse-gputype"));
      if (const YAML::Node v = child(ann, "slicelab.io/gpu-assignment"); present(v))
        pod.gpu_assignment = scalar(v, join_path(ap, "slicelab.io/gpu-assignment"));
    }
    const std::string sp = join_path(path, "spec");
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    resources(spec, sp, pod);
    if (const YAML::Node v = child(spec, "nodeName"); present(v))
      pod.node_name = scalar(v, join_path(sp, "nodeName"));
    if (const YAML::Node v = child(spec, "priority"); present(v))
      pod.priority =
          yaml_.integer(v, join_path(sp, "priority"), std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max());
    if (const YAML::Node sel = child(spec, "nodeSelector"); present(sel))
      if (const YAML::Node v = child(sel, "nvidia.com/gpu.product"); present(v))
        pod.selector_product =
            scalar(v, join_path(join_path(sp, "nodeSelector"), "nvidia.com/gpu.product"));
    const std::string stp = join_path(path, "status");
    const YAML::Node status = obj["status"];
    pod.phase = "Pending";
    if (const YAML::Node v = child(status, "phase"); present(v))
      pod.phase = scalar(v, join_path(stp, "phase"));
    if (const YAML::Node v = child(status, "startTime"); present(v))
      pod.started_s = timestamp(v, join_path(stp, "startTime"));
    if (const YAML::Node cs = child(status, "containerStatuses"); present(cs)) {
      const std::string cp = join_path(stp, "containerStatuses");
      yaml_.require_seq(cs, cp);
      std::optional<double> started, finished;
      bool all_terminated = cs.size() > 0;
      for (size_t i = 0; i < cs.size(); ++i) {
        const std::string p = join_path(index_path(cp, i), "state");
        const YAML::Node state = child(cs[i], "state");
        const YAML::Node running = child(state, "running");
        const YAML::Node terminated = child(state, "terminated");
        all_terminated = all_terminated && present(terminated);
        for (const auto& [s, sname] :
             {std::pair{running, "running"}, std::pair{terminated, "terminated"}}) {
          if (!present(s)) continue;
          const std::string ps = join_path(p, sname);
          if (const YAML::Node v = child(s, "startedAt"); present(v)) {
            const double t = timestamp(v, join_path(ps, "startedAt"));
            started = started ? std::min(*started, t) : t;
          }
          if (const YAML::Node v = child(s, "finishedAt"); present(v)) {
            const double t = timestamp(v, join_path(ps, "finishedAt"));
            finished = finished ? std::max(*finished, t) : t;
          }
        }
      }
      if (started) pod.started_s = started;
      if (all_terminated) pod.finished_s = finished;
    }
    into_.pods.push_back(std::move(pod));
  }

  const YamlReader& yaml_;
  KubeObjects& into_;
};

}  // namespace

void read_kube_objects(const std::string& path, KubeObjects& into) try {
  read_kubernetes_export(path, [&](const KubeExportObject& o) {
    try {
      ObjectReader(o.yaml, into).document(o.node, o.path);
    } catch (const YAML::Exception& e) {  // a conversion no check above caught, in the file
      throw YAML::Exception(o.yaml.in_file(e.mark), e.msg);
    }
  });
} catch (const YAML::Exception& e) {
  throw located_yaml_error(path, e);
}

void read_kube_object_tree(const YAML::Node& doc, const std::string& source,
                           KubeObjects& into) try {
  const YamlReader yaml(source);
  ObjectReader(yaml, into).document(doc, "");
} catch (const YAML::Exception& e) {
  throw located_yaml_error(source, e);
}

}  // namespace slicelab
