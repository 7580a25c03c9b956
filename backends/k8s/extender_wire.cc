#include "backends/k8s/extender_wire.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>

#include "workloads/bounded_json.h"

namespace slicelab::k8s {

namespace {

using nlohmann::json;

// Go's encoding/json matches keys case-insensitively; kube-scheduler sends the exact Go names,
// other clients (tests, curl users) often send lowerCamel. Accept both spellings.
template <typename Json>
Json* member(Json& object, const char* go_name) {
  auto it = object.find(go_name);
  if (it != object.end()) return &*it;
  std::string lower(go_name);
  lower[0] = static_cast<char>(lower[0] - 'A' + 'a');
  it = object.find(lower);
  if (it != object.end()) return &*it;
  return nullptr;
}

// The parser's message quotes what it last read, which may be any bytes: kept to printable ASCII,
// so that the message can go into a JSON answer.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) c = '?';
  }
  return out;
}

// Depth and memory are bounded while parsing (workloads/bounded_json.h): a body nested 100,000
// levels deep is refused at level 65, before anything recursive sees it.
json parse_bounded(std::string_view body, const char* what, const WireLimits& limits,
                   JsonStringArrayTaps* taps = nullptr) {
  if (body.size() > kMaxExtenderBodyBytes) {
    throw WireError(std::string(what) + ": body larger than the limit");
  }
  JsonLimits bounds;
  bounds.max_depth = kMaxExtenderDepth;
  bounds.max_document_bytes = limits.max_document_bytes;
  bounds.charge = limits.charge;
  try {
    if (taps != nullptr) return parse_bounded_json(body, bounds, *taps);
    return parse_bounded_json(body, bounds);
  } catch (const JsonLimitError& e) {
    if (e.failure() == JsonFailure::kTooLarge) {
      throw WireOverBudget(fmt::format("{}: {} (at byte {})", what, e.what(), e.offset()));
    }
    if (e.failure() == JsonFailure::kTooDeep) {
      throw WireError(fmt::format("{}: body nested deeper than {} levels at byte {}", what,
                                  kMaxExtenderDepth, e.offset()));
    }
    throw WireError(fmt::format("{}: body is not valid JSON: {}", what, printable(e.what())));
  }
}

json parse_object(std::string_view body, const char* what, const WireLimits& limits = {},
                  JsonStringArrayTaps* taps = nullptr) {
  json parsed = parse_bounded(body, what, limits, taps);
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

// The items are moved out of `list` (which the caller discards), not copied.
std::vector<json> node_items(json& list, const char* what) {
  if (!list.is_object()) throw WireError(std::string(what) + ": Nodes is not a NodeList object");
  auto items = list.find("items");
  std::vector<json> out;
  if (items == list.end() || items->is_null()) return out;
  if (!items->is_array()) throw WireError(std::string(what) + ": Nodes.items is not an array");
  out.reserve(items->size());
  for (json& node : *items) {
    if (!node.is_object()) throw WireError(std::string(what) + ": a node is not an object");
    out.push_back(std::move(node));
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

ExtenderArgs parse_extender_args(std::string_view body, const WireLimits& limits) {
  constexpr const char* what = "ExtenderArgs";
  // NodeNames (thousands of names with nodeCacheCapable) is read straight into strings, not into
  // a json node each; a NodeNames that is not an array of strings stays in the document and is
  // refused below as before. Both spellings, as member() looks them up: the Go name first.
  JsonStringArrayTaps taps{{"NodeNames", "nodeNames"}, {}};
  json parsed = parse_object(body, what, limits, &taps);
  ExtenderArgs args;
  json* pod = member(parsed, "Pod");
  if (pod == nullptr || !pod->is_object()) throw WireError("ExtenderArgs: Pod is missing");
  args.pod = std::move(*pod);
  if (json* nodes = member(parsed, "Nodes"); nodes != nullptr && !nodes->is_null()) {
    args.nodes = node_items(*nodes, what);
  }
  if (taps.arrays[0]) {
    args.node_names = std::move(taps.arrays[0]);
  } else if (const json* names = member(parsed, "NodeNames"); names != nullptr) {
    if (!names->is_null()) args.node_names = string_array(*names, what, "NodeNames");
  } else if (taps.arrays[1]) {
    args.node_names = std::move(taps.arrays[1]);
  }
  if (!args.nodes && !args.node_names) {
    throw WireError("ExtenderArgs: neither Nodes nor NodeNames is given");
  }
  return args;
}

ExtenderBindingArgs parse_binding_args(std::string_view body, const WireLimits& limits) {
  constexpr const char* what = "ExtenderBindingArgs";
  const json parsed = parse_object(body, what, limits);
  ExtenderBindingArgs args;
  args.pod_name = string_member(parsed, "PodName", what, true);
  args.pod_namespace = string_member(parsed, "PodNamespace", what, false);
  if (args.pod_namespace.empty()) args.pod_namespace = "default";
  args.pod_uid = string_member(parsed, "PodUID", what, false);
  args.node = string_member(parsed, "Node", what, true);
  if (args.pod_name.empty() || args.node.empty()) {
    throw WireError("ExtenderBindingArgs: PodName and Node must not be empty");
  }
  // Kubernetes names have no '/': "a/b" in "ns" must not be read as the pod "b" in "ns/a".
  if (args.pod_name.find('/') != std::string::npos ||
      args.pod_namespace.find('/') != std::string::npos) {
    throw WireError("ExtenderBindingArgs: PodName and PodNamespace must not contain '/'");
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
  if (json* nodes = member(parsed, "Nodes"); nodes != nullptr && !nodes->is_null()) {
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
  const json parsed = parse_bounded(body, "HostPriorityList", {});
  if (!parsed.is_array()) throw WireError("HostPriorityList: body is not a JSON array");
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

namespace {

// A JSON string as nlohmann's dump writes it (ensure_ascii off, invalid UTF-8 replaced): text
// that needs no escape is copied as it is, anything else goes through nlohmann itself.
void append_string(std::string& out, const std::string& s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += s;
    out += '"';
  } else {
    out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

void append_map(std::string& out, const std::map<std::string, std::string>& map) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : map) {
    if (!first) out += ',';
    first = false;
    append_string(out, key);
    out += ':';
    append_string(out, value);
  }
  out += '}';
}

}  // namespace

// Keys in nlohmann's order (its objects are std::maps): Error, FailedAndUnresolvableNodes,
// FailedNodes, NodeNames, Nodes.
std::string answer_text(const ExtenderFilterResult& result) {
  std::string out = "{\"Error\":";
  append_string(out, result.error);
  out += ",\"FailedAndUnresolvableNodes\":";
  append_map(out, result.failed_and_unresolvable_nodes);
  out += ",\"FailedNodes\":";
  append_map(out, result.failed_nodes);
  out += ",\"NodeNames\":";
  if (result.node_names) {
    out += '[';
    for (size_t i = 0; i < result.node_names->size(); ++i) {
      if (i > 0) out += ',';
      append_string(out, (*result.node_names)[i]);
    }
    out += ']';
  } else {
    out += "null";
  }
  out += ",\"Nodes\":";
  out += result.nodes
             ? node_list(*result.nodes).dump(-1, ' ', false, json::error_handler_t::replace)
             : std::string("null");
  out += '}';
  return out;
}

std::string answer_text(const std::vector<HostPriority>& priorities) {
  std::string out;
  out.reserve(priorities.size() * 32 + 2);
  out += '[';
  for (size_t i = 0; i < priorities.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"Host\":";
    append_string(out, priorities[i].host);
    out += ",\"Score\":";
    out += std::to_string(priorities[i].score);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace slicelab::k8s
