// The scheduler extender's wire types (k8s.io/kube-scheduler/extender/v1) and their JSON form:
// Go field names as keys (the Go structs carry no json tags), hostile input rejected cleanly.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {

// The scheduler's requests are small (a pod and node names) unless the extender is not
// nodeCacheCapable, when every node object travels: 1,000 full nodes are ~5 MB. Bodies above
// this are refused with 413 before parsing.
inline constexpr std::size_t kMaxExtenderBodyBytes = std::size_t{32} << 20;
// extender/v1 MaxExtenderPriority: prioritize scores are 0..10.
inline constexpr std::int64_t kMaxExtenderPriority = 10;

// A request body that is not what the protocol says (bad JSON, wrong types). The server answers
// 400 with the message.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExtenderArgs {
  nlohmann::json pod;                                  // Pod (a v1.Pod object)
  std::optional<std::vector<nlohmann::json>> nodes;    // Nodes.items (when not nodeCacheCapable)
  std::optional<std::vector<std::string>> node_names;  // NodeNames (when nodeCacheCapable)
};

struct ExtenderFilterResult {
  std::optional<std::vector<nlohmann::json>> nodes;    // Nodes: echoed node objects (NodeList)
  std::optional<std::vector<std::string>> node_names;  // NodeNames
  std::map<std::string, std::string> failed_nodes;     // FailedNodes: name -> reason
  std::map<std::string, std::string> failed_and_unresolvable_nodes;
  std::string error;
};

struct HostPriority {
  std::string host;
  std::int64_t score = 0;  // 0..kMaxExtenderPriority
};

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};

struct ExtenderBindingResult {
  std::string error;
};

// Parsing: throws WireError on malformed JSON, wrong types or missing required fields.
ExtenderArgs parse_extender_args(std::string_view body);
ExtenderBindingArgs parse_binding_args(std::string_view body);

nlohmann::json to_json(const ExtenderFilterResult& result);
nlohmann::json to_json(const std::vector<HostPriority>& priorities);
nlohmann::json to_json(const ExtenderBindingResult& result);
// The reverse directions, for tests and for clients (the benchmark acts as kube-scheduler).
nlohmann::json to_json(const ExtenderArgs& args);
nlohmann::json to_json(const ExtenderBindingArgs& args);
ExtenderFilterResult parse_filter_result(std::string_view body);
std::vector<HostPriority> parse_host_priorities(std::string_view body);

}  // namespace slicelab::k8s
