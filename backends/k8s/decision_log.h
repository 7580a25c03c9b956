// The extender's decision log (docs/explain.md#the-extender-get-explain): the explanation of each
// of its last decisions, the same `slicelab explain` computes, answered by GET /explain?pod=.
// Bounded: kMaxLoggedDecisions entries, each at most kMaxLoggedDecisionBytes of JSON.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/placement/placement_explanation.h"

namespace slicelab::k8s {

inline constexpr size_t kMaxLoggedDecisions = 1000;
inline constexpr size_t kMaxLoggedDecisionBytes = size_t{64} * 1024;

// What each logged explanation shows: per-node verdicts up to 20 nodes, the top 5 candidates.
inline constexpr ExplainOptions kLoggedExplainOptions{5, 20};

// Thread-safe: decisions are logged under the extender state's lock, read by the HTTP workers.
class DecisionLog {
 public:
  explicit DecisionLog(size_t capacity = kMaxLoggedDecisions) : capacity_(capacity) {}

  // Keeps the explanation of one decision for pod `key` ("<namespace>/<name>"), evicting the
  // oldest past the capacity. An explanation whose JSON is over kMaxLoggedDecisionBytes is kept
  // with its verdicts counted instead of listed and its top candidate only; still over: its
  // attempts are dropped, `truncated` says so.
  void add(const std::string& key, const PlacementExplanation& e);
  // The pod's logged decisions, oldest first, as slicelab.explain-log/1; nullopt when none.
  std::optional<std::string> lookup(std::string_view key) const;
  size_t size() const;

 private:
  size_t capacity_;
  mutable std::mutex mu_;
  uint64_t next_ = 1;
  std::deque<std::pair<std::string, std::string>> entries_;  // (key, the decision's JSON)
};

}  // namespace slicelab::k8s
