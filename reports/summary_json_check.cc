#include "reports/summary_json_check.h"

#include <fmt/format.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sim/metrics/run_metrics.h"

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

class SummaryChecker {
 public:
  explicit SummaryChecker(const JsonFile& f) : f_(f) {
    // The run-metrics rows by their dotted key, and every key above one ("pods", "fill",
    // "fill.at_full"): one table lookup per member of a policy keeps the check linear.
    for (const RunMetric& m : run_metrics()) {
      if (m.json.empty()) continue;
      rows_.emplace(m.json, &m);
      for (size_t dot = m.json.find('.'); dot != std::string_view::npos;
           dot = m.json.find('.', dot + 1))
        groups_.insert(m.json.substr(0, dot));
    }
  }

  void check() const {
    const JsonAt root = f_.at_root();
    f_.require_object(root);
    with_member(root, "format", [&](const JsonAt& v) {
      if (!v->is_string() || (v.value() != kSummaryFormat && v.value() != kSeedsFormat))
        f_.fail_expected(v, fmt::format("'{}' or '{}' (the formats this slicelab reads)",
                                        kSummaryFormat, kSeedsFormat));
    });
    for (const char* key : {"scenario", "note"})
      with_member(root, key, [&](const JsonAt& v) { f_.string(v); });
    with_member(root, "seed", [&](const JsonAt& v) { f_.count(v); });
    with_member(root, "seeds", [&](const JsonAt& v) {
      f_.require_array(v);
      for (size_t i = 0; i < v->size(); ++i) f_.count(v.element(i));
    });
    with_member(root, "workload", [&](const JsonAt& w) {
      f_.require_object(w);
      with_member(w, "source", [&](const JsonAt& v) { f_.string(v); });
      with_member(w, "pods", [&](const JsonAt& v) { f_.count(v); });
    });
    with_member(root, "cluster", [&](const JsonAt& c) {
      f_.require_object(c);
      for (const char* key : {"nodes", "gpus"})
        with_member(c, key, [&](const JsonAt& v) { f_.count(v); });
    });
    with_member(root, "decision", [&](const JsonAt& d) { decision(d); });
    const JsonAt policies = f_.required(root, "policies");
    f_.require_array(policies);
    std::unordered_map<std::string, size_t> names;
    names.reserve(policies->size());
    for (size_t i = 0; i < policies->size(); ++i) {
      const JsonAt p = policies.element(i);
      f_.require_object(p);
      const JsonAt name = f_.required(p, "name");
      if (const auto [it, fresh] = names.emplace(f_.string(name), i); !fresh)
        f_.fail(name, fmt::format("policy '{}' is also policies[{}]: names must differ",
                                  f_.string(name), it->second));
      policy(p);
    }
  }

 private:
  void decision(const JsonAt& d) const {
    f_.require_object(d);
    for (const char* key : {"basis", "text"})
      with_member(d, key, [&](const JsonAt& v) { f_.string(v); });
    for (const char* key : {"recommended", "runner_up"})
      with_member(d, key, [&](const JsonAt& v) { f_.string_or_null(v); });
    with_member(d, "breaks_constraints", [&](const JsonAt& b) {
      f_.require_object(b);
      for (const auto& [k, v] : b->items()) string_list(b.child(k, v));
    });
    with_member(d, "warnings", [&](const JsonAt& v) { string_list(v); });
  }

  void string_list(const JsonAt& at) const {
    f_.require_array(at);
    for (size_t i = 0; i < at->size(); ++i) f_.string(at.element(i));
  }

  void policy(const JsonAt& p) const {
    for (const char* key : {"placement", "sharing"})
      with_member(p, key, [&](const JsonAt& v) { f_.string(v); });
    std::string key;
    for (const auto& [k, v] : p->items()) members(p.child(k, v), k, key);
  }

  // A member of a policy (or of a group in it) whose dotted key is `key`.
  void members(const JsonAt& at, const std::string& name, std::string& key) const {
    const size_t parent_size = key.size();
    if (!key.empty()) key += '.';
    key += name;
    if (const auto row = rows_.find(key); row != rows_.end()) {
      figure(at, *row->second);
    } else if (groups_.contains(key)) {
      f_.require_object(at);
      for (const auto& [k, v] : at->items()) members(at.child(k, v), k, key);
    }
    key.resize(parent_size);
  }

  void figure(const JsonAt& at, const RunMetric& m) const {
    switch (m.block) {
      case MetricBlock::kNotPlacedReasons:
        f_.require_object(at);
        for (const auto& [k, v] : at->items()) f_.count(at.child(k, v));
        return;
      case MetricBlock::kPerModel:
        f_.require_array(at);
        for (size_t i = 0; i < at->size(); ++i) per_model(at.element(i));
        return;
      case MetricBlock::kPerClass:
        f_.require_array(at);
        for (size_t i = 0; i < at->size(); ++i) per_class(at.element(i));
        return;
      case MetricBlock::kPerQueue:
        f_.require_array(at);
        for (size_t i = 0; i < at->size(); ++i) per_queue(at.element(i), "queue", "cohort");
        return;
      case MetricBlock::kPerService:
        f_.require_array(at);
        for (size_t i = 0; i < at->size(); ++i) per_queue(at.element(i), "service", nullptr);
        return;
      case MetricBlock::kNumber:
        break;
    }
    if (at->is_null()) return;
    if (is_whole(m.unit))
      f_.count(at);
    else
      f_.number(at);
  }

  void per_model(const JsonAt& at) const {
    f_.require_object(at);
    f_.string(f_.required(at, "model"));
    for (const auto& [k, v] : at->items()) {
      if (k == "model") continue;
      const JsonAt x = at.child(k, v);
      if (x->is_null()) continue;
      if (f_.number(x) < 0) f_.fail_expected(x, "a number of at least 0");
    }
  }

  // A class's figures sit at the policy's own keys (sim/metrics/class_metrics.h).
  void per_class(const JsonAt& at) const {
    f_.require_object(at);
    f_.string(f_.required(at, "class"));
    std::string key;
    for (const auto& [k, v] : at->items())
      if (k != "class") members(at.child(k, v), k, key);
  }

  // A queue's or a service's figures: its names, then numbers at least 0 (or null, or a
  // boolean), and its distributions.
  void per_queue(const JsonAt& at, const char* name, const char* group) const {
    f_.require_object(at);
    f_.string(f_.required(at, name));
    if (group != nullptr) f_.string(f_.required(at, group));
    for (const auto& [k, v] : at->items()) {
      if (k == name || (group != nullptr && k == group)) continue;
      if (v.is_boolean()) continue;
      const JsonAt x = at.child(k, v);
      if (x->is_object()) {
        for (const auto& [dk, dv] : x->items()) {
          const JsonAt d = x.child(dk, dv);
          if (!d->is_null() && f_.number(d) < 0) f_.fail_expected(d, "a number of at least 0");
        }
      } else if (!x->is_null() && f_.number(x) < 0) {
        f_.fail_expected(x, "a number of at least 0");
      }
    }
  }

  const JsonFile& f_;
  std::unordered_map<std::string_view, const RunMetric*> rows_;
  std::unordered_set<std::string_view> groups_;
};

}  // namespace

void check_summary_json(const JsonFile& f) {
  SummaryChecker(f).check();
}

}  // namespace slicelab
