#include "backends/k8s/extender_wire.h"

#include <string>

namespace slicelab::k8s {

namespace {

using nlohmann::json;

// Go's encoding/json matches keys case-insensitively; kube-scheduler sends the exact Go names,
// other clients (tests, curl users) often send lowerCamel. Accept both spellings.
const json* member(const json& object, const char* go_name) {
  auto it = object.find(go_name);
  if (it != object.end()) return &*it;
  std::string lower(go_name);
  lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
  it = object.find(lower);
  if (it != object.end()) return &*it;
  return nullptr;
}

json parse_object(std::string_view body, const char* what) {
  if (body.size() > kMaxExtenderBodyBytes) {
    throw WireError(std::string(what) + ": body larger than the limit");
  }
  json parsed = json::parse(body.begin(), body.end(), nullptr, false);
  if (parsed.is_discarded()) throw WireError(std::string(what) + ": body is not valid JSON");
  if (!parsed.is_object()) throw WireError(std::string(what) + ": body is not a JSON object");
  return parsed;
}

std::string string_member(const json& object, const char* name, const char* what, bool required) {
  const json* value = member(object, name);
  if (value == nullptr || value->is_null()) {
    if (required) throw WireError(std::string(what) + ": " + name + " is missing");
    return {};
  }
  if (!value->is_string()) throw WireError(std::string(what) + ": " + name + " is not a string");
  return value->get<std::string>();
}

std::vector<std::string> string_array(const json& value, const char* what, const char* name) {
  if (!value.is_array()) throw WireError(std::string(what) + ": " + name + " is not an array");
  std::vector<std::string> out;
  out.reserve(value.size());
  for (const json& item : value) {
    if (!item.is_string()) {
      throw WireError(std::string(what) + ": " + name + " holds a non-string");
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<json> node_items(const json& list, const char* what) {
  if (!list.is_object()) throw WireError(std::string(what) + ": Nodes is not a NodeList object");
  auto items = list.find("items");
  std::vector<json> out;
  if (items == list.end() || items->is_null()) return out;
  if (!items->is_array()) throw WireError(std::string(what) + ": Nodes.items is not an array");
  out.reserve(items->size());
  for (const json& node : *items) {
    if (!node.is_object()) throw WireError(std::string(what) + ": a node is not an object");
    out.push_back(node);
  }
  return out;
}

json node_list(const std::vector<json>& nodes) {
  return json{
      {"kind", "NodeList"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"items", nodes}};
}

std::map<std::string, std::string> string_map(const json* value, const char* what) {
  std::map<std::string, std::string> out;
  if (value == nullptr || value->is_null()) return out;
  if (!value->is_object()) throw WireError(std::string(what) + ": FailedNodes is not a map");
  for (const auto& [key, reason] : value->items()) {
    if (!reason.is_string()) throw WireError(std::string(what) + ": a reason is not a string");
    out.emplace(key, reason.get<std::string>());
  }
  return out;
}

}  // namespace

ExtenderArgs parse_extender_args(std::string_view body) {
  constexpr const char* what = "ExtenderArgs";
  json parsed = parse_object(body, what);
  ExtenderArgs args;
  const json* pod = member(parsed, "Pod");
  if (pod == nullptr || !pod->is_object()) throw WireError("ExtenderArgs: Pod is missing");
  args.pod = *pod;
  if (const json* nodes = member(parsed, "Nodes"); nodes != nullptr && !nodes->is_null()) {
    args.nodes = node_items(*nodes, what);
  }
  if (const json* names = member(parsed, "NodeNames"); names != nullptr && !names->is_null()) {
    args.node_names = string_array(*names, what, "NodeNames");
  }
  if (!args.nodes && !args.node_names) {
    throw WireError("ExtenderArgs: neither Nodes nor NodeNames is given");
  }
  return args;
}

ExtenderBindingArgs parse_binding_args(std::string_view body) {
  constexpr const char* what = "ExtenderBindingArgs";
  json parsed = parse_object(body, what);
  ExtenderBindingArgs args;
  args.pod_name = string_member(parsed, "PodName", what, true);
  args.pod_namespace = string_member(parsed, "PodNamespace", what, false);
  if (args.pod_namespace.empty()) args.pod_namespace = "default";
  args.pod_uid = string_member(parsed, "PodUID", what, false);
  args.node = string_member(parsed, "Node", what, true);
  if (args.pod_name.empty() || args.node.empty()) {
    throw WireError("ExtenderBindingArgs: PodName and Node must not be empty");
  }
  return args;
}

nlohmann::json to_json(const ExtenderFilterResult& result) {
  json out = json::object();
  out["Nodes"] = result.nodes ? node_list(*result.nodes) : json(nullptr);
  out["NodeNames"] = result.node_names ? json(*result.node_names) : json(nullptr);
  out["FailedNodes"] = result.failed_nodes;
  out["FailedAndUnresolvableNodes"] = result.failed_and_unresolvable_nodes;
  out["Error"] = result.error;
  return out;
}

nlohmann::json to_json(const std::vector<HostPriority>& priorities) {
  json out = json::array();
  for (const HostPriority& p : priorities)
    out.push_back(json{{"Host", p.host}, {"Score", p.score}});
  return out;
}

nlohmann::json to_json(const ExtenderBindingResult& result) {
  return json{{"Error", result.error}};
}

nlohmann::json to_json(const ExtenderArgs& args) {
  json out = json::object();
  out["Pod"] = args.pod;
  out["Nodes"] = args.nodes ? node_list(*args.nodes) : json(nullptr);
  out["NodeNames"] = args.node_names ? json(*args.node_names) : json(nullptr);
  return out;
}

nlohmann::json to_json(const ExtenderBindingArgs& args) {
  return json{{"PodName", args.pod_name},
              {"PodNamespace", args.pod_namespace},
              {"PodUID", args.pod_uid},
              {"Node", args.node}};
}

ExtenderFilterResult parse_filter_result(std::string_view body) {
  constexpr const char* what = "ExtenderFilterResult";
  json parsed = parse_object(body, what);
  ExtenderFilterResult result;
  if (const json* nodes = member(parsed, "Nodes"); nodes != nullptr && !nodes->is_null()) {
    result.nodes = node_items(*nodes, what);
  }
  if (const json* names = member(parsed, "NodeNames"); names != nullptr && !names->is_null()) {
    result.node_names = string_array(*names, what, "NodeNames");
  }
  result.failed_nodes = string_map(member(parsed, "FailedNodes"), what);
  result.failed_and_unresolvable_nodes =
      string_map(member(parsed, "FailedAndUnresolvableNodes"), what);
  result.error = string_member(parsed, "Error", what, false);
  return result;
}

std::vector<HostPriority> parse_host_priorities(std::string_view body) {
  if (body.size() > kMaxExtenderBodyBytes) throw WireError("HostPriorityList: body too large");
  json parsed = json::parse(body.begin(), body.end(), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_array()) {
    throw WireError("HostPriorityList: body is not a JSON array");
  }
  std::vector<HostPriority> out;
  for (const json& item : parsed) {
    if (!item.is_object()) throw WireError("HostPriorityList: an item is not an object");
    HostPriority p;
    p.host = string_member(item, "Host", "HostPriority", true);
    const json* score = member(item, "Score");
    if (score == nullptr || !score->is_number_integer()) {
      throw WireError("HostPriority: Score is not an integer");
    }
    p.score = score->get<std::int64_t>();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace slicelab::k8s
