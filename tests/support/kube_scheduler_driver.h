// A stand-in for kube-scheduler's side of the extender protocol (pkg/scheduler/extender.go and
// schedule_one.go): POSTs ExtenderArgs to urlPrefix/filterVerb and /prioritizeVerb, adds the
// scores as the scheduler does, selects the host, then asks the extender to bind.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "backends/k8s/cluster_io.h"

namespace slicelab::testing {

// One `extenders:` entry of a KubeSchedulerConfiguration.
struct ExtenderStanza {
  std::string url_prefix;  // "http://127.0.0.1:8888/scheduler"
  std::string filter_verb = "filter";
  std::string prioritize_verb = "prioritize";
  std::string bind_verb = "bind";
  int64_t weight = 1;
  bool node_cache_capable = false;
  bool ignorable = false;
  std::vector<std::string> managed_resources;  // empty: interested in every pod
  int http_timeout_s = 5;                      // DefaultExtenderTimeout
};

struct CycleResult {
  std::string node;                           // the selected host; "" when the pod stays pending
  std::string error;                          // why: a filter error, no feasible node, a bind error
  std::vector<std::string> feasible;          // after the extender's filter
  std::map<std::string, std::string> failed;  // FailedNodes and FailedAndUnresolvable
  std::map<std::string, int64_t> extender_scores;  // as the extender answered (0..10)
  std::map<std::string, int64_t> totals;           // what selectHost compared
  int tied_at_top = 0;
  bool bound = false;
};

class KubeSchedulerDriver {
 public:
  // kube-scheduler's MaxNodeScore and the extender's MaxExtenderPriority.
  static constexpr int64_t kMaxNodeScore = 100;
  static constexpr int64_t kMaxExtenderPriority = 10;

  // `default_binder` binds when the extender has no bindVerb (the scheduler's own
  // DefaultBinder posting the Binding); may be null when the extender binds.
  KubeSchedulerDriver(ExtenderStanza stanza, uint64_t seed,
                      k8s::ClusterWriter* default_binder = nullptr);

  // One scheduling cycle of `pod` (a v1.Pod as the API server serves it) over `nodes` (v1.Node
  // objects). The scheduler's in-tree plugins are taken to pass every node and score 0, so the
  // extender decides. When `forced_host` is given, the cycle still calls filter and prioritize
  // but binds there (a replay of decisions another scheduler made). `bind` false stops after
  // selecting the host.
  CycleResult schedule(const nlohmann::json& pod, const std::vector<nlohmann::json>& nodes,
                       const std::string& forced_host = "", bool bind = true);

  // Whether the stanza's managedResources make the scheduler call this extender for `pod`.
  bool interested(const nlohmann::json& pod) const;

  // The request bodies as kube-scheduler marshals them (Go's encoding/json of extender/v1).
  nlohmann::json extender_args(const nlohmann::json& pod,
                               const std::vector<nlohmann::json>& nodes) const;
  static nlohmann::json binding_args(const nlohmann::json& pod, const std::string& node);

  // The last raw request of each verb (for tests of the wire shape).
  const std::map<std::string, std::string>& last_bodies() const { return last_bodies_; }

 private:
  // POSTs `body` to urlPrefix/verb; throws std::runtime_error as HTTPExtender.send returns
  // errors (transport, non-200 status, undecodable answer).
  nlohmann::json send(const std::string& verb, const nlohmann::json& body);

  ExtenderStanza stanza_;
  std::mt19937_64 rng_;
  k8s::ClusterWriter* default_binder_;
  std::map<std::string, std::string> last_bodies_;
};

// A v1 object as a client-go informer hands it to the scheduler: TypeMeta (kind, apiVersion)
// is empty there, so Go's encoding omits it.
nlohmann::json as_informer_object(nlohmann::json object);

}  // namespace slicelab::testing
