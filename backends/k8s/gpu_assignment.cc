#include "backends/k8s/gpu_assignment.h"

#include <nlohmann/json.hpp>

#include "workloads/bounded_json.h"

namespace slicelab::k8s {

std::string to_annotation(const GpuAssignment& a) {
  // Keys in the documented order (ordered_json keeps insertion order; json sorts them).
  nlohmann::ordered_json out;
  out["node"] = a.node;
  out["policy"] = a.policy;
  out["sharing"] = a.sharing;
  out["gpus"] = nlohmann::ordered_json::array();
  for (const AssignedGpu& g : a.gpus) {
    nlohmann::ordered_json one;
    one["index"] = g.index;
    if (!g.uuid.empty()) one["uuid"] = g.uuid;
    one["memoryMiB"] = g.memory_mib;
    one["cores"] = g.cores;
    out["gpus"].push_back(std::move(one));
  }
  return out.dump();
}

std::optional<GpuAssignment> parse_gpu_assignment(std::string_view text, std::string& error) {
  // The annotation is the pod's (anyone who can edit the pod can write it): read with its depth
  // and memory bounded; the format nests three levels.
  nlohmann::json j;
  try {
    JsonLimits limits;
    limits.max_depth = 8;
    j = parse_bounded_json(text, limits);
  } catch (const JsonLimitError& e) {
    error = std::string("not a JSON object: ") + e.what();
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = "not a JSON object";
    return std::nullopt;
  }
  GpuAssignment a;
  const auto str = [&](const char* key, std::string& into) {
    const auto it = j.find(key);
    if (it == j.end()) return true;
    if (!it->is_string()) return false;
    into = it->get<std::string>();
    return true;
  };
  if (!str("node", a.node) || !str("policy", a.policy) || !str("sharing", a.sharing)) {
    error = "node, policy and sharing must be strings";
    return std::nullopt;
  }
  const auto gpus = j.find("gpus");
  if (gpus == j.end() || !gpus->is_array()) {
    error = "gpus is not a list";
    return std::nullopt;
  }
  for (const nlohmann::json& g : *gpus) {
    const auto index = g.is_object() ? g.find("index") : g.end();
    if (!g.is_object() || index == g.end() || !index->is_number_integer() ||
        index->get<int64_t>() < 0 || index->get<int64_t>() > 1024) {
      error = "each GPU needs an integer index from 0 to 1024";
      return std::nullopt;
    }
    AssignedGpu one;
    one.index = index->get<int>();
    if (const auto u = g.find("uuid"); u != g.end() && u->is_string())
      one.uuid = u->get<std::string>();
    if (const auto m = g.find("memoryMiB"); m != g.end() && m->is_number_integer())
      one.memory_mib = m->get<int64_t>();
    if (const auto c = g.find("cores"); c != g.end() && c->is_number_integer())
      one.cores = c->get<int>();
    a.gpus.push_back(std::move(one));
  }
  return a;
}

}  // namespace slicelab::k8s
