#include "workloads/inputs/openb_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "workloads/csv_reader.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/pod_value_interner.h"

namespace slicelab {
namespace {

// No upper bound of our own: the messages then read "an integer of at least 0".
constexpr int64_t kMaxResource = std::numeric_limits<int64_t>::max();

// "A|B|A" -> the mapped names, each once, in order of first mention. `written` gets the spec as
// the paper's simulator annotates the pod with it (data/pod_csv_to_yaml.py: the names as the
// trace writes them, repeats kept, empty ones dropped, joined with '|'), which is the GPU type
// its target workload keys on (ModelList::written).
std::vector<std::string> split_models(std::string_view spec, std::string& written) {
  std::vector<std::string> out;
  written.clear();
  while (!spec.empty()) {
    const size_t bar = spec.find('|');
    std::string_view part = spec.substr(0, bar);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) {
      written.append(written.empty() ? "" : "|").append(part);
      std::string name = openb_model_name(part);
      // The trace repeats types inside one spec ("V100M16|V100M32|V100M32"); once is enough.
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
    if (bar == std::string_view::npos) break;
    spec.remove_prefix(bar + 1);
  }
  return out;
}

}  // namespace

std::string openb_model_name(std::string_view openb_type) {
  if (openb_type == "V100M16") return "V100-16GB";
  if (openb_type == "V100M32") return "V100-32GB";
  return std::string(openb_type);
}

std::vector<OpenbNodeGroup> read_openb_nodes(const std::string& path) {
  CsvReader csv(path);
  const size_t c_cpu = csv.require_column("cpu_milli");
  const size_t c_mem = csv.require_column("memory_mib");
  const size_t c_gpu = csv.require_column("gpu");
  const size_t c_model = csv.require_column("model");
  csv.require_column("sn");  // read to confirm the file is a node list; names are regenerated

  std::vector<OpenbNodeGroup> groups;
  std::map<std::tuple<int64_t, int64_t, int, std::string>, size_t> index;
  std::unordered_map<std::string, int> name_uses;
  while (csv.next()) {
    OpenbNodeGroup node;
    node.cpu_milli = csv.integer(c_cpu, 1, kMaxResource);
    node.memory_mib = csv.integer(c_mem, 1, kMaxResource);
    node.gpus_per_node = static_cast<int>(csv.integer(c_gpu, 0, 64));
    const std::string& model = csv.field(c_model);
    if (node.gpus_per_node > 0 && model.empty())
      csv.fail_field(c_model,
                     fmt::format("a GPU type for a node with {} GPUs", node.gpus_per_node));
    if (node.gpus_per_node == 0 && !model.empty())
      csv.fail_field(c_model, "no GPU type for a node with 0 GPUs");
    node.gpu_model = openb_model_name(model);
    const auto key =
        std::make_tuple(node.cpu_milli, node.memory_mib, node.gpus_per_node, node.gpu_model);
    if (auto it = index.find(key); it != index.end()) {
      ++groups[it->second].count;
      continue;
    }
    const std::string base = node.gpus_per_node == 0
                                 ? std::string("openb-cpu")
                                 : fmt::format("openb-{}-{}gpu", model, node.gpus_per_node);
    const int uses = ++name_uses[base];
    node.name = uses == 1 ? base : fmt::format("{}-{}", base, uses);
    node.count = 1;
    index.emplace(key, groups.size());
    groups.push_back(std::move(node));
  }
  if (groups.empty()) throw InputError(fmt::format("{}: no nodes after the header", path));
  return groups;
}

std::vector<PodSpec> read_openb_pods(const std::string& path, const OpenbPodOptions& options,
                                     const ModelCheck& check_model) {
  CsvReader csv(path);
  const size_t c_name = csv.require_column("name");
  const size_t c_cpu = csv.require_column("cpu_milli");
  const size_t c_mem = csv.require_column("memory_mib");
  const size_t c_gpu = csv.require_column("num_gpu");
  const size_t c_milli = csv.require_column("gpu_milli");
  const auto c_spec = csv.column("gpu_spec");
  const auto c_qos = csv.column("qos");
  const auto c_created = csv.column("creation_time");
  const auto c_deleted = csv.column("deletion_time");
  if (c_created.has_value() != c_deleted.has_value())
    throw InputError(fmt::format(
        "{}:1: missing column '{}': creation_time and deletion_time come together (the header "
        "has: {})",
        path, c_created ? "deletion_time" : "creation_time", csv.header_text()));

  std::vector<PodSpec> pods;
  std::unordered_map<std::string, size_t> lines;
  PodValueInterner shared;
  while (csv.next()) {
    PodSpec pod;
    pod.name = csv.field(c_name);
    if (pod.name.empty()) csv.fail_field(c_name, "a pod name");
    if (auto [it, fresh] = lines.emplace(pod.name, csv.line()); !fresh)
      csv.fail_field(c_name, fmt::format("a unique pod name (also on line {})", it->second));
    pod.cpu_milli = csv.integer(c_cpu, 0, kMaxResource);
    pod.memory_mib = csv.integer(c_mem, 0, kMaxResource);
    pod.gpu_count = static_cast<int>(csv.integer(c_gpu, 0, 64));
    if (pod.gpu_count == 0) {
      // CPU-only pods carry 0 (or nothing) in gpu_milli; PodSpec keeps its default of 1000.
      if (!csv.field(c_milli).empty() && csv.integer(c_milli, 0, 0) != 0)
        csv.fail_field(c_milli, "0");
    } else if (pod.gpu_count == 1) {
      pod.gpu_milli = static_cast<int16_t>(csv.integer(c_milli, 1, 1000));
    } else if (csv.integer(c_milli, 1000, 1000) != 1000) {
      csv.fail_field(c_milli, "1000");
    }
    if (c_spec && !csv.field(*c_spec).empty()) {
      if (pod.gpu_count == 0) csv.fail_field(*c_spec, "no GPU types for a pod with 0 GPUs");
      std::string written;
      std::vector<std::string> models = split_models(csv.field(*c_spec), written);
      pod.allowed_models = shared.models(std::move(models), written);
      for (const std::string& m : pod.allowed_models)
        if (auto err = check_model ? check_model(m) : std::nullopt)
          csv.fail(fmt::format("column 'gpu_spec': {}", *err));
    }
    pod.workload_class =
        shared.text(c_qos && !csv.field(*c_qos).empty() ? csv.field(*c_qos) : "default");
    if (c_created) {
      // Times within the simulation horizon (workloads/input_limits.h), in seconds.
      const auto time_of = [&csv](size_t c) {
        double v = 0;
        if (!parse_csv_number(csv.field(c), v) || v < 0 || v > kHorizonS)
          csv.fail_field(c, fmt::format("a time in 0..{} (the simulation horizon of {}, in "
                                        "seconds)",
                                        kHorizonS, kHorizonText));
        return v;
      };
      pod.arrival_s = time_of(*c_created);
      const double deleted = time_of(*c_deleted);
      if (deleted < pod.arrival_s)
        csv.fail_field(*c_deleted,
                       fmt::format("a time at or after creation_time ({})", csv.field(*c_created)));
      // A pod deleted the second it was created (the trace has a few, all Pending) never ran;
      // it keeps the shortest duration the engine accepts rather than being dropped, so that
      // the pod counts match the trace's documentation.
      pod.duration_s = std::max(deleted - pod.arrival_s, 0.001);
    } else {
      pod.duration_s = options.default_duration_s;
    }
    if (pods.size() == static_cast<size_t>(kMaxPods))
      csv.fail(fmt::format("more than {} pods (the limit of one workload)", kMaxPods));
    pods.push_back(std::move(pod));
  }
  if (pods.empty()) throw InputError(fmt::format("{}: no pods after the header", path));
  return pods;
}

}  // namespace slicelab
