#include "backends/k8s/kube_json_objects.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "workloads/input_error.h"

namespace slicelab::k8s {
namespace {

// The object reader works on yaml-cpp trees (what YAML and JSON files give); a JSON body becomes
// one. Scalars keep their text, as a JSON file read by yaml-cpp would.
YAML::Node yaml_of(const nlohmann::json& j, int depth) {
  // Kubernetes objects nest a dozen levels; a deeper body is hostile and would recurse deep.
  if (depth > 64) throw InputError("object nests deeper than 64 levels");
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items()) map[key] = yaml_of(value, depth + 1);
      return map;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& value : j) seq.push_back(yaml_of(value, depth + 1));
      return seq;
    }
    case nlohmann::json::value_t::null:
      return YAML::Node(YAML::NodeType::Null);
    case nlohmann::json::value_t::string:
      return YAML::Node(j.get_ref<const std::string&>());
    default:
      return YAML::Node(j.dump());
  }
}

KubeObjects read_one(const nlohmann::json& object, const std::string& source) {
  if (!object.is_object()) throw InputError(source + ": not a JSON object");
  KubeObjects objects;
  read_kube_object_tree(yaml_of(object, 0), source, objects);
  return objects;
}

}  // namespace

KubeNode kube_node_from_json(const nlohmann::json& object, const std::string& source) {
  nlohmann::json node = object;
  // Watch events and extender bodies may omit kind (a NodeList's items carry none).
  if (!node.contains("kind")) node["kind"] = "Node";
  KubeObjects objects = read_one(node, source);
  if (objects.nodes.size() != 1) throw InputError(source + ": not a Node object");
  return std::move(objects.nodes.front());
}

KubePod kube_pod_from_json(const nlohmann::json& object, const std::string& source) {
  const nlohmann::json* pod = &object;
  nlohmann::json with_kind;
  if (object.is_object() && !object.contains("kind")) {
    with_kind = object;
    with_kind["kind"] = "Pod";
    pod = &with_kind;
  }
  KubeObjects objects = read_one(*pod, source);
  if (objects.pods.size() != 1) throw InputError(source + ": not a Pod object");
  return std::move(objects.pods.front());
}

}  // namespace slicelab::k8s
