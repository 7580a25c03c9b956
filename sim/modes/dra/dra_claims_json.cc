#include "sim/modes/dra/dra_claims_json.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

ojson requirements_json(const std::vector<DraNodeSelectorRequirement>& list) {
  ojson out = ojson::array();
  for (const DraNodeSelectorRequirement& r : list) {
    out.push_back({{"key", r.key}, {"operator", r.op}, {"values", r.values}});
  }
  return out;
}

ojson opaque_json(const DraOpaqueDeviceConfiguration& o) {
  ojson params = ojson::object();
  if (!o.parameters_json.empty()) params = ojson::parse(o.parameters_json);
  return {{"driver", o.driver}, {"parameters", std::move(params)}};
}

}  // namespace

ojson allocation_json(const DraAllocationResult& a) {
  ojson results = ojson::array();
  for (const DraDeviceRequestAllocationResult& r : a.results) {
    ojson j = {
        {"request", r.request}, {"driver", r.driver}, {"pool", r.pool}, {"device", r.device}};
    if (r.admin_access) j["adminAccess"] = true;
    if (r.share_id) j["shareID"] = *r.share_id;
    if (!r.consumed_capacity.empty()) {
      ojson used = ojson::object();
      for (const DraNamedQuantity& q : r.consumed_capacity) used[q.name] = q.value.text;
      j["consumedCapacity"] = std::move(used);
    }
    results.push_back(std::move(j));
  }
  ojson devices = {{"results", std::move(results)}};
  if (!a.config.empty()) {
    ojson config = ojson::array();
    for (const DraDeviceAllocationConfiguration& c : a.config) {
      ojson j = {{"source", c.source}};
      if (!c.requests.empty()) j["requests"] = c.requests;
      j["opaque"] = opaque_json(c.opaque);
      config.push_back(std::move(j));
    }
    devices["config"] = std::move(config);
  }
  ojson out = {{"devices", std::move(devices)}};
  if (a.node_selector) {
    ojson terms = ojson::array();
    for (const DraNodeSelectorTerm& t : a.node_selector->node_selector_terms) {
      ojson term = ojson::object();
      if (!t.match_expressions.empty())
        term["matchExpressions"] = requirements_json(t.match_expressions);
      if (!t.match_fields.empty()) term["matchFields"] = requirements_json(t.match_fields);
      terms.push_back(std::move(term));
    }
    out["nodeSelector"] = {{"nodeSelectorTerms", std::move(terms)}};
  }
  return out;
}

namespace {

ojson claim_json(const DraClaimRecord& c) {
  return {{"pod", c.pod},
          {"namespace", c.namespace_name},
          {"name", c.claim},
          {"node", c.node},
          {"allocated_s", c.allocated_s},
          {"status", {{"allocation", allocation_json(c.allocation)}}}};
}

}  // namespace

ojson dra_claims_json(std::span<const DraClaimRecord> records) {
  ojson claims = ojson::array();
  for (const DraClaimRecord& c : records) claims.push_back(claim_json(c));
  return claims;
}

std::string dra_claims_json_text(std::span<const DraClaimRecord> records) {
  // A compact dump writes an array as '[' elements joined by ',' ']'.
  std::string out = "[";
  for (const DraClaimRecord& c : records) {
    if (out.size() > 1) out += ',';
    out += claim_json(c).dump();
  }
  out += ']';
  return out;
}

}  // namespace slicelab
