#include "workloads/kube/kube_json_objects.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <string>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

// The object reader works on yaml-cpp trees (what YAML and JSON files give); a JSON body becomes
// one. Scalars keep their text, as a JSON file read by yaml-cpp would. Recursive, so bounded:
// every JSON that reaches here was parsed with its depth bounded at the same limit
// (workloads/bounded_json.h), and a deeper one is refused here before it can recurse further.
YAML::Node yaml_of(const nlohmann::json& j, int depth) {
  if (depth > kKubeMaxObjectDepth) {
    throw InputError("object nests deeper than " + std::to_string(kKubeMaxObjectDepth) + " levels");
  }
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      // JSON keys are unique: force_insert appends, where map[key] would search yaml-cpp's
      // list of pairs first (quadratic in a hostile object's 100,000 labels).
      YAML::Node map(YAML::NodeType::Map);
      for (const auto& [key, value] : j.items()) map.force_insert(key, yaml_of(value, depth + 1));
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

// Watch events and extender bodies may omit kind (a NodeList's items, an informer's Pod carry
// none): it is added to the converted tree, not to a copy of the JSON.
KubeObjects read_one(const nlohmann::json& object, const char* kind, const std::string& source) {
  if (!object.is_object()) throw InputError(source + ": not a JSON object");
  YAML::Node tree = yaml_of(object, 0);
  if (!object.contains("kind")) tree["kind"] = kind;
  KubeObjects objects;
  read_kube_object_tree(tree, source, objects);
  return objects;
}

}  // namespace

KubeNode kube_node_from_json(const nlohmann::json& object, const std::string& source) {
  KubeObjects objects = read_one(object, "Node", source);
  if (objects.nodes.size() != 1) throw InputError(source + ": not a Node object");
  return std::move(objects.nodes.front());
}

KubePod kube_pod_from_json(const nlohmann::json& object, const std::string& source) {
  KubeObjects objects = read_one(object, "Pod", source);
  if (objects.pods.size() != 1) throw InputError(source + ": not a Pod object");
  return std::move(objects.pods.front());
}

}  // namespace slicelab
