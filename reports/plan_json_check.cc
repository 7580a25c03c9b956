#include "reports/plan_json_check.h"

#include <fmt/format.h>

#include "reports/plan_files.h"

namespace slicelab {
namespace {

// A whole number at least 0, or null (no size).
void count_or_null(const JsonFile& f, const JsonAt& at) {
  if (!at->is_null()) f.count(at);
}

// An object whose members are numbers or null (a metric by name).
void figures(const JsonFile& f, const JsonAt& at) {
  f.require_object(at);
  for (const auto& [k, v] : at->items()) f.number_or_null(at.child(k, v));
}

// An estimate over seeds ({n, mean, ci95: [low, high] or null, min, max}) or null.
void estimate(const JsonFile& f, const JsonAt& at) {
  if (at->is_null()) return;
  f.require_object(at);
  f.count(f.required(at, "n"));
  for (const char* key : {"mean", "min", "max"}) f.number(f.required(at, key));
  const JsonAt ci = f.required(at, "ci95");
  if (ci->is_null()) return;
  f.require_array(ci);
  if (ci->size() != 2) f.fail_expected(ci, "[low, high]");
  for (size_t i = 0; i < 2; ++i) f.number(ci.element(i));
}

// An object whose members are estimates (a metric by name).
void estimates(const JsonFile& f, const JsonAt& at) {
  f.require_object(at);
  for (const auto& [k, v] : at->items()) estimate(f, at.child(k, v));
}

void curve_point(const JsonFile& f, const JsonAt& c) {
  f.require_object(c);
  for (const char* key : {"group_nodes", "gpus", "nodes", "seeds_meeting"})
    with_member(c, key, [&](const JsonAt& v) { f.count(v); });
  with_member(c, "value", [&](const JsonAt& v) { f.number_or_null(v); });
  with_member(c, "meets", [&](const JsonAt& v) { f.boolean(v); });
  with_member(c, "values", [&](const JsonAt& v) { figures(f, v); });
  with_member(c, "estimates", [&](const JsonAt& v) { estimates(f, v); });
}

void fit(const JsonFile& f, const JsonAt& at) {
  if (at->is_null()) return;
  f.require_object(at);
  with_member(at, "model", [&](const JsonAt& v) { f.string(v); });
  with_member(at, "r2", [&](const JsonAt& v) { f.number_or_null(v); });
  with_member(at, "coefficients", [&](const JsonAt& v) {
    f.require_array(v);
    for (size_t i = 0; i < v->size(); ++i) f.number_or_null(v.element(i));
  });
  with_member(at, "points", [&](const JsonAt& v) {
    f.require_array(v);
    for (size_t i = 0; i < v->size(); ++i) {
      const JsonAt p = v.element(i);
      f.require_object(p);
      for (const char* key : {"gpus", "value"})
        with_member(p, key, [&](const JsonAt& x) { f.number_or_null(x); });
    }
  });
}

void policy(const JsonFile& f, const JsonAt& p) {
  f.require_object(p);
  f.string(f.required(p, "policy"));
  with_member(p, "feasible", [&](const JsonAt& v) { f.boolean(v); });
  for (const char* key : {"group_nodes", "gpus", "nodes"})
    with_member(p, key, [&](const JsonAt& v) { count_or_null(f, v); });
  with_member(p, "cost_per_hour", [&](const JsonAt& v) { f.number_or_null(v); });
  with_member(p, "reason", [&](const JsonAt& v) { f.string(v); });
  with_member(p, "metrics", [&](const JsonAt& v) { figures(f, v); });
  with_member(p, "estimates", [&](const JsonAt& v) { estimates(f, v); });
  with_member(p, "seed_sizes", [&](const JsonAt& v) {
    f.require_array(v);
    for (size_t i = 0; i < v->size(); ++i) {
      const JsonAt z = v.element(i);
      f.require_object(z);
      f.count(f.required(z, "seed"));
      count_or_null(f, f.required(z, "group_nodes"));
    }
  });
  with_member(p, "seed_size_range", [&](const JsonAt& v) {
    if (v->is_null()) return;
    f.require_object(v);
    const uint64_t lo = f.count(f.required(v, "min"));
    const JsonAt hi = f.required(v, "max");
    if (f.count(hi) < lo) f.fail_expected(hi, "a maximum of at least the minimum");
  });
  with_member(p, "curve", [&](const JsonAt& v) {
    f.require_array(v);
    for (size_t i = 0; i < v->size(); ++i) curve_point(f, v.element(i));
  });
  with_member(p, "fit", [&](const JsonAt& v) { fit(f, v); });
}

}  // namespace

void check_plan_json(const JsonFile& f) {
  const JsonAt root = f.at_root();
  f.require_object(root);
  const JsonAt kind = f.required(root, "kind");
  if (kind.value() != "plan") f.fail_expected(kind, "\"plan\" (a plan.json of slicelab plan)");
  // Version 1 (no "format") and 2 read alike: 2 adds keys and makes the figures seed means.
  with_member(root, "format", [&](const JsonAt& v) {
    if (v.value() != kPlanFormat && v.value() != "slicelab.plan/1")
      f.fail_expected(v, fmt::format("\"{}\" (a format this slicelab reads)", kPlanFormat));
  });
  with_member(root, "seeds", [&](const JsonAt& v) {
    f.require_array(v);
    for (size_t i = 0; i < v->size(); ++i) f.count(v.element(i));
  });
  for (const char* key : {"scenario", "scaled", "recommendation"})
    with_member(root, key, [&](const JsonAt& v) { f.string(v); });
  with_member(root, "growth", [&](const JsonAt& v) { f.number_or_null(v); });
  with_member(root, "targets", [&](const JsonAt& t) {
    f.require_array(t);
    for (size_t i = 0; i < t->size(); ++i) {
      const JsonAt target = t.element(i);
      f.require_object(target);
      f.string(f.required(target, "metric"));
      f.string(f.required(target, "op"));
      f.number_or_null(f.required(target, "value"));
    }
  });
  const JsonAt policies = f.required(root, "policies");
  f.require_array(policies);
  for (size_t i = 0; i < policies->size(); ++i) policy(f, policies.element(i));
}

}  // namespace slicelab
