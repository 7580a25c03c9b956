#include "backends/k8s/decision_log.h"

#include <nlohmann/json.hpp>

#include <string>

namespace slicelab::k8s {

void DecisionLog::add(const std::string& key, const PlacementExplanation& e) {
  nlohmann::ordered_json j = explanation_json(e);
  std::string text = j.dump();
  if (text.size() > kMaxLoggedDecisionBytes) {
    PlacementExplanation smaller = e;
    smaller.options = {1, 0};
    j = explanation_json(smaller);
    text = j.dump();
  }
  if (text.size() > kMaxLoggedDecisionBytes) {
    j["attempts"] = nlohmann::ordered_json::array();
    j["truncated"] = true;
    text = j.dump();
  }
  std::lock_guard lock(mu_);
  entries_.emplace_back(
      key, R"({"decision":)" + std::to_string(next_++) + R"(,"explanation":)" + text + "}");
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::optional<std::string> DecisionLog::lookup(std::string_view key) const {
  std::lock_guard lock(mu_);
  std::string decisions;
  for (const auto& [k, text] : entries_) {
    if (k != key) continue;
    decisions += decisions.empty() ? "" : ",";
    decisions += text;
  }
  if (decisions.empty()) return std::nullopt;
  return R"({"format":"slicelab.explain-log/1","pod":)" + nlohmann::json(std::string(key)).dump() +
         R"(,"decisions":[)" + decisions + "]}";
}

size_t DecisionLog::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace slicelab::k8s
