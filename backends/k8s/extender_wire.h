// The scheduler extender's wire types (k8s.io/kube-scheduler/extender/v1) and their JSON form:
// Go field names as keys (the Go structs carry no json tags), hostile input rejected cleanly.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {
class BudgetCharge;
}

namespace slicelab::k8s {

// The scheduler's requests are small (a pod and node names) unless the extender is not
// nodeCacheCapable, when every node object travels: 1,000 full nodes are ~5 MB. Bodies above
// this are refused with 413 before parsing.
inline constexpr std::size_t kMaxExtenderBodyBytes = std::size_t{32} << 20;
// extender/v1 MaxExtenderPriority: prioritize scores are 0..10.
inline constexpr std::int64_t kMaxExtenderPriority = 10;

// A request body that is not what the protocol says (bad JSON, wrong types, nested deeper than
// kMaxExtenderDepth). The server answers 400 with the message.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A body that could not be parsed within its memory: the shared budget of the requests in flight
// is spent (WireLimits::charge), or the body alone would pass WireLimits::max_document_bytes. Not
// the client's fault as a WireError is: the server answers 503 and kube-scheduler tries again.
class WireOverBudget : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Containers nested deeper than this are refused while the body is parsed, before any copy or
// conversion (each of which would recurse) can see it: Kubernetes objects nest about 12 levels.
inline constexpr std::size_t kMaxExtenderDepth = 64;

// How much memory parsing one body may take. The parsed document is estimated as
// workloads/bounded_json.h does (at most 48 bytes per byte of text for any JSON).
struct WireLimits {
  std::size_t max_document_bytes = 0;  // 0: 56 times the body's size
  BudgetCharge* charge = nullptr;      // also charged here when given (kept by the caller)
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

// Parsing: throws WireError on malformed JSON, nesting past kMaxExtenderDepth, wrong types or
// missing required fields, and WireOverBudget when the limits' memory is spent. The Pod and
// Nodes are moved out of the parsed body, not copied.
ExtenderArgs parse_extender_args(std::string_view body, const WireLimits& limits = {});
ExtenderBindingArgs parse_binding_args(std::string_view body, const WireLimits& limits = {});

nlohmann::json to_json(const ExtenderFilterResult& result);
nlohmann::json to_json(const std::vector<HostPriority>& priorities);
nlohmann::json to_json(const ExtenderBindingResult& result);
// The reverse directions, for tests and for clients (the benchmark acts as kube-scheduler).
nlohmann::json to_json(const ExtenderArgs& args);
nlohmann::json to_json(const ExtenderBindingArgs& args);
ExtenderFilterResult parse_filter_result(std::string_view body);
std::vector<HostPriority> parse_host_priorities(std::string_view body);

// The answers as the server sends them: byte for byte to_json(x).dump() with invalid UTF-8
// replaced (U+FFFD), written straight into the text without building a document (a prioritize
// answer at 5,000 nodes is 5,000 objects otherwise).
std::string answer_text(const ExtenderFilterResult& result);
std::string answer_text(const std::vector<HostPriority>& priorities);

}  // namespace slicelab::k8s
