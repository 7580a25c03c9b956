// KubeSchedulerDriver (kube_scheduler_driver.h): HTTPExtender's send/Filter/Prioritize/Bind and
// the scheduling cycle's use of them (findNodesThatPassExtenders, prioritizeNodes, selectHost).
#include "tests/support/kube_scheduler_driver.h"

#include <httplib.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace slicelab::testing {

using nlohmann::json;

json as_informer_object(json object) {
  object.erase("kind");
  object.erase("apiVersion");
  return object;
}

KubeSchedulerDriver::KubeSchedulerDriver(ExtenderStanza stanza, uint64_t seed,
                                         k8s::ClusterWriter* default_binder)
    : stanza_(std::move(stanza)), rng_(seed), default_binder_(default_binder) {}

bool KubeSchedulerDriver::interested(const json& pod) const {
  if (stanza_.managed_resources.empty()) return true;
  const std::set<std::string> managed(stanza_.managed_resources.begin(),
                                      stanza_.managed_resources.end());
  const json& spec = pod.at("spec");
  for (const char* list : {"containers", "initContainers"}) {
    if (!spec.contains(list)) continue;
    for (const json& c : spec[list]) {
      if (!c.contains("resources")) continue;
      for (const char* part : {"requests", "limits"}) {
        if (!c["resources"].contains(part)) continue;
        for (const auto& [name, value] : c["resources"][part].items()) {
          if (managed.contains(name)) return true;
        }
      }
    }
  }
  return false;
}

json KubeSchedulerDriver::extender_args(const json& pod, const std::vector<json>& nodes) const {
  // Go marshals nil pointers as null: exactly one of Nodes and NodeNames is set.
  json args = {{"Pod", as_informer_object(pod)}, {"Nodes", nullptr}, {"NodeNames", nullptr}};
  if (stanza_.node_cache_capable) {
    json names = json::array();
    for (const json& n : nodes) names.push_back(n.at("metadata").at("name"));
    args["NodeNames"] = std::move(names);
  } else {
    json items = json::array();
    for (const json& n : nodes) items.push_back(as_informer_object(n));
    // v1.NodeList: TypeMeta empty (omitted), ListMeta marshals as {}.
    args["Nodes"] = {{"metadata", json::object()}, {"items", std::move(items)}};
  }
  return args;
}

json KubeSchedulerDriver::binding_args(const json& pod, const std::string& node) {
  const json& meta = pod.at("metadata");
  return {{"PodName", meta.at("name")},
          {"PodNamespace", meta.value("namespace", "default")},
          {"PodUID", meta.value("uid", "")},
          {"Node", node}};
}

json KubeSchedulerDriver::send(const std::string& verb, const json& body) {
  std::string prefix = stanza_.url_prefix;
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  const size_t scheme = prefix.find("://");
  const size_t path_at = prefix.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  const std::string origin = path_at == std::string::npos ? prefix : prefix.substr(0, path_at);
  const std::string path =
      (path_at == std::string::npos ? std::string() : prefix.substr(path_at)) + "/" + verb;
  httplib::Client client(origin);
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(stanza_.http_timeout_s, 0);
  client.set_read_timeout(stanza_.http_timeout_s, 0);
  client.set_write_timeout(stanza_.http_timeout_s, 0);
  std::string text = body.dump();
  last_bodies_[verb] = text;
  const httplib::Result res = client.Post(path, text, "application/json");
  const std::string url = prefix + "/" + verb;
  if (!res) {
    throw std::runtime_error("Post \"" + url + "\": " + httplib::to_string(res.error()));
  }
  if (res->status != 200) {
    throw std::runtime_error("failed " + verb + " with extender at URL " + url + ", code " +
                             std::to_string(res->status));
  }
  json answer = json::parse(res->body, nullptr, false);
  if (answer.is_discarded()) {
    throw std::runtime_error(verb + " at " + url + ": the answer is not JSON");
  }
  return answer;
}

CycleResult KubeSchedulerDriver::schedule(const json& pod, const std::vector<json>& nodes,
                                          const std::string& forced_host, bool bind) {
  CycleResult r;
  std::vector<json> feasible = nodes;
  const bool wanted = interested(pod);
  if (wanted && !stanza_.filter_verb.empty() && !feasible.empty()) {
    try {
      const json answer = send(stanza_.filter_verb, extender_args(pod, feasible));
      if (answer.contains("Error") && answer["Error"].is_string() &&
          !answer["Error"].get<std::string>().empty()) {
        throw std::runtime_error(answer["Error"].get<std::string>());
      }
      std::map<std::string, const json*> by_name;
      for (const json& n : feasible) by_name[n["metadata"]["name"].get<std::string>()] = &n;
      std::vector<json> kept;  // Go: a nil result list leaves no node
      if (stanza_.node_cache_capable && answer.contains("NodeNames") &&
          answer["NodeNames"].is_array()) {
        for (const json& name : answer["NodeNames"]) {
          const auto it = by_name.find(name.get<std::string>());
          if (it == by_name.end()) {
            throw std::runtime_error("extender claims a filtered node " + name.dump() +
                                     " which is not found in the input node list");
          }
          kept.push_back(*it->second);
        }
      } else if (answer.contains("Nodes") && answer["Nodes"].is_object() &&
                 answer["Nodes"].contains("items")) {
        for (const json& n : answer["Nodes"]["items"]) kept.push_back(n);
      }
      for (const char* key : {"FailedNodes", "FailedAndUnresolvableNodes"}) {
        if (answer.contains(key) && answer[key].is_object()) {
          for (const auto& [name, why] : answer[key].items()) {
            r.failed[name] = why.is_string() ? why.get<std::string>() : why.dump();
          }
        }
      }
      feasible = std::move(kept);
    } catch (const std::exception& e) {
      if (!stanza_.ignorable) {
        r.error = e.what();
        return r;
      }
    }
  }
  for (const json& n : feasible) r.feasible.push_back(n["metadata"]["name"].get<std::string>());
  if (feasible.empty()) {
    r.error = "0/" + std::to_string(nodes.size()) + " nodes are available";
    return r;
  }
  std::string host;
  if (feasible.size() == 1) {
    host = r.feasible.front();  // schedulePod: one feasible node is used without scoring
  } else {
    for (const std::string& n : r.feasible) r.totals[n] = 0;
    if (wanted && !stanza_.prioritize_verb.empty()) {
      try {  // prioritizeNodes: an extender's prioritize error is ignored
        const json answer = send(stanza_.prioritize_verb, extender_args(pod, feasible));
        if (answer.is_array()) {
          for (const json& hp : answer) {
            const std::string name = hp.value("Host", "");
            const int64_t score = hp.value("Score", int64_t{0});
            r.extender_scores[name] = score;
            if (r.totals.contains(name)) {
              r.totals[name] += score * stanza_.weight * (kMaxNodeScore / kMaxExtenderPriority);
            }
          }
        }
      } catch (const std::exception&) {
      }
    }
    // selectHost: the highest total, ties broken by reservoir sampling.
    int64_t best = -1;
    for (const std::string& n : r.feasible) {
      const int64_t t = r.totals[n];
      if (t > best) {
        best = t;
        host = n;
        r.tied_at_top = 1;
      } else if (t == best) {
        ++r.tied_at_top;
        if (std::uniform_int_distribution<int>(0, r.tied_at_top - 1)(rng_) == 0) host = n;
      }
    }
  }
  r.node = forced_host.empty() ? host : forced_host;
  if (!bind) return r;
  if (wanted && !stanza_.bind_verb.empty()) {
    try {
      const json answer = send(stanza_.bind_verb, binding_args(pod, r.node));
      if (answer.contains("Error") && answer["Error"].is_string() &&
          !answer["Error"].get<std::string>().empty()) {
        r.error = answer["Error"].get<std::string>();
        return r;
      }
    } catch (const std::exception& e) {
      r.error = e.what();
      return r;
    }
  } else if (default_binder_ != nullptr) {
    const json& meta = pod.at("metadata");
    const k8s::WriteResult w = default_binder_->bind_pod(
        meta.value("namespace", "default"), meta.at("name"), meta.value("uid", ""), r.node);
    if (!w.ok()) {
      r.error = w.error;
      return r;
    }
  } else {
    r.error = "no binder: the extender has no bindVerb and no default binder was given";
    return r;
  }
  r.bound = true;
  return r;
}

}  // namespace slicelab::testing
