#include "workloads/dra_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "workloads/input_error.h"
#include "workloads/kubernetes_objects.h"
#include "workloads/yaml_reader.h"
#include "workloads/yaml_stream.h"

namespace slicelab {
namespace {

constexpr std::string_view kNvidiaDriver = "gpu.nvidia.com";

bool present(const YAML::Node& n) {
  return n.IsDefined() && !n.IsNull();
}
YAML::Node child(const YAML::Node& map, const char* key) {
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

// Where each byte of a scalar's value sits in `text`, the text the parser read: quoted and
// plain scalars map byte for byte (escapes and folded line breaks to where they start), block
// scalars line by line. Returns false when the decoding does not reproduce `value` (a form this
// walk does not follow); the caller then points every byte at the scalar's start.
bool map_scalar(std::string_view text, size_t start, std::string_view value,
                std::vector<size_t>& at) {
  at.clear();
  if (start >= text.size()) return false;
  std::string decoded;
  const auto put = [&](char c, size_t pos) {
    decoded += c;
    at.push_back(pos);
  };
  const auto fold = [&](size_t& p) {  // a line break inside a flow scalar: one space
    const size_t nl = p;
    ++p;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
    put(' ', nl);
  };
  const char first = text[start];
  size_t p = start;
  if (first == '"' || first == '\'') {
    ++p;
    while (p < text.size()) {
      const char c = text[p];
      if (c == first) {
        if (first == '\'' && p + 1 < text.size() && text[p + 1] == '\'') {
          put('\'', p);
          p += 2;
          continue;
        }
        break;
      }
      if (c == '\n') {
        fold(p);
        continue;
      }
      if (first == '"' && c == '\\' && p + 1 < text.size()) {
        const char e = text[p + 1];
        const char out = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
        if (e == 'u' || e == 'x' || e == 'U') return false;
        put(out, p);
        p += 2;
        continue;
      }
      put(c, p);
      ++p;
    }
  } else if (first == '|' || first == '>') {
    while (p < text.size() && text[p] != '\n') ++p;  // the header line
    ++p;
    size_t indent = std::string::npos;
    while (p < text.size()) {
      size_t q = p, spaces = 0;
      while (q < text.size() && text[q] == ' ') ++q, ++spaces;
      if (q < text.size() && text[q] == '\n') {  // an empty line
        put('\n', q);
        p = q + 1;
        continue;
      }
      if (indent == std::string::npos) indent = spaces;
      if (spaces < indent || q >= text.size()) break;
      p += indent;
      while (p < text.size() && text[p] != '\n') put(text[p], p), ++p;
      put(first == '|' ? '\n' : ' ', p);
      ++p;
    }
    // Chomping and folding details: compare without the trailing line breaks.
    while (!decoded.empty() && (decoded.back() == '\n' || decoded.back() == ' '))
      decoded.pop_back(), at.pop_back();
    std::string_view v = value;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    if (decoded != v) return false;
    while (at.size() < value.size()) at.push_back(at.empty() ? start : at.back());
    at.push_back(at.empty() ? start : at.back());
    return true;
  } else {
    while (p < text.size() && decoded.size() < value.size()) {
      if (text[p] == '\n') {
        fold(p);
        continue;
      }
      put(text[p], p);
      ++p;
    }
  }
  if (decoded != value) return false;
  at.push_back(p);
  return true;
}

class DraReader {
 public:
  DraReader(const std::string& path, std::string text, DraObjects& into)
      : yaml_(path), text_(std::move(text)), into_(into) {}

  void document(const YAML::Node& doc, const std::string& path) {
    if (doc.IsSequence()) {
      items(doc, path);
      return;
    }
    yaml_.require_map(doc, path.empty() ? "top level" : path);
    const std::string kind =
        yaml_.string(yaml_.required(doc, path, "kind"), join_path(path, "kind"));
    if (kind == "List" || kind.ends_with("List")) {
      const YAML::Node list = doc["items"];
      if (!present(list)) return;
      items(list, join_path(path, "items"));
      return;
    }
    if (kind == "Pod") {
      pod(doc, path);
      return;
    }
    if (kind != "DeviceClass" && kind != "ResourceSlice" && kind != "ResourceClaim" &&
        kind != "ResourceClaimTemplate") {
      ++into_.skipped_kinds[kind];
      return;
    }
    api_version(doc, path);
    yaml_.check_keys(doc, path.empty() ? "top level" : path,
                     {"apiVersion", "kind", "metadata", "spec", "status"});
    meta(doc, path);
    if (kind == "DeviceClass") device_class(doc, path);
    if (kind == "ResourceSlice") slice(doc, path);
    if (kind == "ResourceClaim" || kind == "ResourceClaimTemplate")
      claim(doc, path, kind == "ResourceClaimTemplate");
  }

 private:
  void items(const YAML::Node& list, const std::string& path) {
    yaml_.require_seq(list, path);
    for (size_t i = 0; i < list.size(); ++i) document(list[i], index_path(path, i));
  }

  void api_version(const YAML::Node& obj, const std::string& path) {
    const std::string p = join_path(path, "apiVersion");
    const YAML::Node n = yaml_.required(obj, path, "apiVersion");
    const std::string v = yaml_.string(n, p);
    if (v == "resource.k8s.io/v1" || v == "resource.k8s.io/v1beta2") return;
    if (v == "resource.k8s.io/v1beta1" || v == "resource.k8s.io/v1alpha3")
      yaml_.fail(
          n, p,
          fmt::format("{} nests fields differently from resource.k8s.io/v1 (devices[].basic, "
                      "requests without 'exactly'); slicelab reads v1 and v1beta2: "
                      "export with `kubectl get -o yaml` from a 1.34+ cluster",
                      v));
    yaml_.fail(n, p, fmt::format("expected resource.k8s.io/v1 (or v1beta2), found '{}'", v));
  }

  void meta(const YAML::Node& obj, const std::string& path) {
    const std::string mp = join_path(path, "metadata");
    // ObjectMeta's fields: an exported object carries any of them, and none changes allocation.
    yaml_.check_keys(
        yaml_.required(obj, path, "metadata"), mp,
        {"name", "namespace", "generateName", "uid", "resourceVersion", "generation",
         "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels",
         "annotations", "ownerReferences", "finalizers", "managedFields", "selfLink"});
  }
  std::string object_name(const YAML::Node& obj, const std::string& path, bool namespaced) {
    const std::string mp = join_path(path, "metadata");
    const YAML::Node m = obj["metadata"];
    const std::string name = yaml_.string(yaml_.required(m, mp, "name"), join_path(mp, "name"));
    if (!namespaced) return name;
    const auto ns = yaml_.opt_string(m, mp, "namespace");
    return fmt::format("{}/{}", ns.value_or("default"), name);
  }
  std::string where(const YAML::Node& n, const std::string& path) const {
    return yaml_.where(n, path.empty() ? "top level" : path);
  }

  // A real resource.k8s.io/v1 field that the simulation does not model.
  [[noreturn]] void unsupported(const YAML::Node& map, const std::string& path,
                                const char* key) const {
    yaml_.fail(map[key], join_path(path, key),
               "a resource.k8s.io/v1 field that slicelab does not simulate (docs/dra.md#fields)");
  }
  void refuse(const YAML::Node& map, const std::string& path,
              std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (present(child(map, k))) unsupported(map, path, k);
  }
  // A boolean field slicelab supports only as false (its default).
  void refuse_true(const YAML::Node& map, const std::string& path, const char* key) const {
    if (const YAML::Node v = child(map, key); present(v) && yaml_.boolean(v, join_path(path, key)))
      unsupported(map, path, key);
  }

  Quantity quantity(const YAML::Node& n, const std::string& path) const {
    std::string error;
    if (!n.IsScalar()) yaml_.fail_expected(n, path, "a quantity");
    const auto q = parse_quantity(n.Scalar(), error);
    if (!q) yaml_.fail(n, path, fmt::format("not a quantity: {}", error));
    if (q->negative) yaml_.fail(n, path, "a negative quantity");
    return *q;
  }
  std::vector<std::string> strings(const YAML::Node& map, const std::string& path,
                                   const char* key) const {
    const YAML::Node n = child(map, key);
    if (!present(n)) return {};
    return yaml_.string_list(n, join_path(path, key));
  }

  DraCelText cel(const YAML::Node& n, const std::string& path) {
    DraCelText c;
    c.expression = yaml_.string(n, path);
    c.file = yaml_.file();
    c.where = where(n, path);
    std::vector<size_t> at;
    const YAML::Mark mark = n.Mark();
    if (!map_scalar(text_, static_cast<size_t>(mark.pos), c.expression, at))
      at.assign(c.expression.size() + 1, static_cast<size_t>(mark.pos));
    // Offsets to lines and columns in one pass over the text up to the last one.
    c.line.reserve(at.size());
    c.column.reserve(at.size());
    uint32_t line = static_cast<uint32_t>(mark.line) + 1;
    size_t line_start = static_cast<size_t>(mark.pos) - static_cast<size_t>(mark.column);
    size_t scanned = line_start;
    for (const size_t a : at) {
      for (; scanned < a && scanned < text_.size(); ++scanned)
        if (text_[scanned] == '\n') ++line, line_start = scanned + 1;
      c.line.push_back(line);
      c.column.push_back(static_cast<uint32_t>(a - line_start + 1));
    }
    return c;
  }
  std::vector<DraCelText> selectors(const YAML::Node& map, const std::string& path) {
    std::vector<DraCelText> out;
    const YAML::Node list = child(map, "selectors");
    if (!present(list)) return out;
    const std::string lp = join_path(path, "selectors");
    yaml_.require_seq(list, lp);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path(lp, i);
      yaml_.check_keys(list[i], p, {"cel"});
      const YAML::Node c = yaml_.required(list[i], p, "cel");
      const std::string cp = join_path(p, "cel");
      yaml_.check_keys(c, cp, {"expression"});
      out.push_back(cel(yaml_.required(c, cp, "expression"), join_path(cp, "expression")));
    }
    return out;
  }

  std::vector<DraOpaqueConfig> configs(const YAML::Node& map, const std::string& path,
                                       bool with_requests) {
    std::vector<DraOpaqueConfig> out;
    const YAML::Node list = child(map, "config");
    if (!present(list)) return out;
    const std::string lp = join_path(path, "config");
    yaml_.require_seq(list, lp);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path(lp, i);
      if (with_requests)
        yaml_.check_keys(list[i], p, {"requests", "opaque"});
      else
        yaml_.check_keys(list[i], p, {"opaque"});
      DraOpaqueConfig c;
      c.where = where(list[i], p);
      if (with_requests) c.requests = strings(list[i], p, "requests");
      const YAML::Node o = yaml_.required(list[i], p, "opaque");
      const std::string op = join_path(p, "opaque");
      yaml_.check_keys(o, op, {"driver", "parameters"});
      c.driver = yaml_.string(yaml_.required(o, op, "driver"), join_path(op, "driver"));
      const YAML::Node params = yaml_.required(o, op, "parameters");
      const std::string pp = join_path(op, "parameters");
      yaml_.require_map(params, pp);
      if (const auto k = yaml_.opt_string(params, pp, "kind")) c.kind = *k;
      if (c.driver == kNvidiaDriver) nvidia_config(params, pp, c);
      out.push_back(std::move(c));
    }
    return out;
  }

  // NVIDIA's driver-specific parameters: GpuConfig's sharing; the other kinds are read as
  // opaque (they change preparation on the node, not allocation).
  void nvidia_config(const YAML::Node& params, const std::string& pp, DraOpaqueConfig& c) {
    if (c.kind != "GpuConfig" && c.kind != "MigDeviceConfig") return;
    yaml_.check_keys(params, pp, {"apiVersion", "kind", "sharing"});
    const YAML::Node s = child(params, "sharing");
    if (!present(s)) return;
    const std::string sp = join_path(pp, "sharing");
    yaml_.check_keys(s, sp, {"strategy", "timeSlicingConfig", "mpsConfig"});
    DraGpuSharing g;
    const YAML::Node strat = yaml_.required(s, sp, "strategy");
    const std::string strategy = yaml_.string(strat, join_path(sp, "strategy"));
    if (strategy == "TimeSlicing") {
      g.strategy = DraGpuSharing::Strategy::kTimeSlicing;
    } else if (strategy == "MPS") {
      g.strategy = DraGpuSharing::Strategy::kMps;
    } else {
      yaml_.fail(strat, join_path(sp, "strategy"),
                 fmt::format("expected TimeSlicing or MPS, found '{}'", strategy));
    }
    if (const YAML::Node t = child(s, "timeSlicingConfig"); present(t)) {
      const std::string tp = join_path(sp, "timeSlicingConfig");
      yaml_.check_keys(t, tp, {"interval"});
      if (const auto iv = yaml_.opt_string(t, tp, "interval")) {
        if (*iv != "Default" && *iv != "Short" && *iv != "Medium" && *iv != "Long")
          yaml_.fail(t["interval"], join_path(tp, "interval"),
                     fmt::format("expected Default, Short, Medium or Long, found '{}'", *iv));
        g.interval = *iv;
      }
    }
    if (const YAML::Node m = child(s, "mpsConfig"); present(m)) {
      const std::string mp = join_path(sp, "mpsConfig");
      yaml_.check_keys(m, mp,
                       {"defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit",
                        "defaultPerDevicePinnedMemoryLimit"});
      g.active_thread_percentage =
          yaml_.opt_integer(m, mp, "defaultActiveThreadPercentage", 1, 100);
      g.pinned_memory_limit_mib =
          yaml_.opt_memory_bytes_as_mib(m, mp, "defaultPinnedDeviceMemoryLimit");
      if (const YAML::Node per = child(m, "defaultPerDevicePinnedMemoryLimit"); present(per)) {
        const std::string pp2 = join_path(mp, "defaultPerDevicePinnedMemoryLimit");
        yaml_.require_map(per, pp2);
        for (const auto& kv : per)
          g.per_device_pinned_memory_limit_mib[kv.first.Scalar()] =
              yaml_.memory_bytes_as_mib(kv.second, join_path(pp2, kv.first.Scalar()));
      }
    }
    c.gpu_sharing = g;
  }

  void device_class(const YAML::Node& obj, const std::string& path) {
    DraDeviceClass c;
    c.name = object_name(obj, path, false);
    c.where = where(obj, path);
    const std::string sp = join_path(path, "spec");
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    yaml_.check_keys(spec, sp, {"selectors", "config", "extendedResourceName"});
    if (const auto e = yaml_.opt_string(spec, sp, "extendedResourceName"))
      c.extended_resource_name = *e;
    c.selectors = selectors(spec, sp);
    c.config = configs(spec, sp, false);
    into_.classes.push_back(std::move(c));
  }

  std::vector<DraCounterSet> counter_sets(const YAML::Node& map, const std::string& path,
                                          const char* key, const char* name_key) {
    std::vector<DraCounterSet> out;
    const YAML::Node list = child(map, key);
    if (!present(list)) return out;
    const std::string lp = join_path(path, key);
    yaml_.require_seq(list, lp);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path(lp, i);
      yaml_.check_keys(list[i], p, {name_key, "counters"});
      DraCounterSet s;
      s.name = yaml_.string(yaml_.required(list[i], p, name_key), join_path(p, name_key));
      const YAML::Node cs = yaml_.required(list[i], p, "counters");
      const std::string cp = join_path(p, "counters");
      yaml_.require_map(cs, cp);
      for (const auto& kv : cs) {
        const std::string np = join_path(cp, kv.first.Scalar());
        yaml_.check_keys(kv.second, np, {"value"});
        s.counters[kv.first.Scalar()] =
            quantity(yaml_.required(kv.second, np, "value"), join_path(np, "value"));
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  DraAttribute attribute(const YAML::Node& n, const std::string& path) const {
    yaml_.require_map(n, path);
    refuse(n, path, {"ints", "bools", "strings", "versions"});
    yaml_.check_keys(n, path,
                     {"int", "bool", "string", "version", "ints", "bools", "strings", "versions"});
    if (n.size() != 1)
      yaml_.fail(n, path, "an attribute has exactly one of int, bool, string or version");
    DraAttribute a;
    if (const YAML::Node v = n["int"]; v.IsDefined()) {
      a.kind = DraAttribute::Kind::kInt;
      a.int_value = yaml_.integer(v, join_path(path, "int"), std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max());
    } else if (const YAML::Node b = n["bool"]; b.IsDefined()) {
      a.kind = DraAttribute::Kind::kBool;
      a.bool_value = yaml_.boolean(b, join_path(path, "bool"));
    } else if (const YAML::Node s = n["string"]; s.IsDefined()) {
      a.kind = DraAttribute::Kind::kString;
      a.text = yaml_.string(s, join_path(path, "string"));
    } else {
      a.kind = DraAttribute::Kind::kVersion;
      a.text = yaml_.string(n["version"], join_path(path, "version"));
    }
    return a;
  }

  DraDeviceCapacity capacity(const YAML::Node& n, const std::string& path) const {
    yaml_.check_keys(n, path, {"value", "requestPolicy"});
    DraDeviceCapacity c;
    c.value = quantity(yaml_.required(n, path, "value"), join_path(path, "value"));
    const YAML::Node rp = child(n, "requestPolicy");
    if (!present(rp)) return c;
    const std::string pp = join_path(path, "requestPolicy");
    yaml_.check_keys(rp, pp, {"default", "validValues", "validRange"});
    DraCapacityPolicy policy;
    if (const YAML::Node d = child(rp, "default"); present(d))
      policy.default_value = quantity(d, join_path(pp, "default"));
    if (const YAML::Node vv = child(rp, "validValues"); present(vv)) {
      const std::string vp = join_path(pp, "validValues");
      yaml_.require_seq(vv, vp);
      for (size_t i = 0; i < vv.size(); ++i)
        policy.valid_values.push_back(quantity(vv[i], index_path(vp, i)));
    }
    if (const YAML::Node r = child(rp, "validRange"); present(r)) {
      const std::string vp = join_path(pp, "validRange");
      yaml_.check_keys(r, vp, {"min", "max", "step"});
      policy.min = quantity(yaml_.required(r, vp, "min"), join_path(vp, "min"));
      if (const YAML::Node x = child(r, "max"); present(x))
        policy.max = quantity(x, join_path(vp, "max"));
      if (const YAML::Node x = child(r, "step"); present(x))
        policy.step = quantity(x, join_path(vp, "step"));
    }
    c.request_policy = policy;
    return c;
  }

  DraDevice device(const YAML::Node& n, const std::string& p) {
    // A device's own node selection, taints and binding conditions are beta or alpha
    // features slicelab does not simulate.
    refuse(n, p,
           {"nodeName", "nodeSelector", "taints", "bindingConditions", "bindingFailureConditions",
            "nodeAllocatableResources"});
    refuse_true(n, p, "allNodes");
    refuse_true(n, p, "bindsToNode");
    yaml_.check_keys(
        n, p,
        {"name", "attributes", "capacity", "consumesCounters", "allowMultipleAllocations",
         "nodeName", "nodeSelector", "allNodes", "taints", "bindsToNode", "bindingConditions",
         "bindingFailureConditions", "nodeAllocatableResources"});
    DraDevice d;
    d.name = yaml_.string(yaml_.required(n, p, "name"), join_path(p, "name"));
    d.where = where(n, p);
    if (const YAML::Node a = child(n, "attributes"); present(a)) {
      const std::string ap = join_path(p, "attributes");
      yaml_.require_map(a, ap);
      for (const auto& kv : a)
        d.attributes[kv.first.Scalar()] = attribute(kv.second, join_path(ap, kv.first.Scalar()));
    }
    if (const YAML::Node c = child(n, "capacity"); present(c)) {
      const std::string cp = join_path(p, "capacity");
      yaml_.require_map(c, cp);
      for (const auto& kv : c)
        d.capacity[kv.first.Scalar()] = capacity(kv.second, join_path(cp, kv.first.Scalar()));
    }
    d.consumes_counters = counter_sets(n, p, "consumesCounters", "counterSet");
    if (const YAML::Node m = child(n, "allowMultipleAllocations"); present(m))
      d.allow_multiple_allocations = yaml_.boolean(m, join_path(p, "allowMultipleAllocations"));
    return d;
  }

  void slice(const YAML::Node& obj, const std::string& path) {
    DraResourceSlice s;
    s.name = object_name(obj, path, false);
    s.where = where(obj, path);
    const std::string sp = join_path(path, "spec");
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    refuse(spec, sp, {"nodeSelector", "partitionTypeAttribute", "skipNodeOperations"});
    refuse_true(spec, sp, "perDeviceNodeSelection");
    yaml_.check_keys(spec, sp,
                     {"driver", "pool", "nodeName", "nodeSelector", "allNodes", "devices",
                      "perDeviceNodeSelection", "sharedCounters", "partitionTypeAttribute",
                      "skipNodeOperations"});
    s.driver = yaml_.string(yaml_.required(spec, sp, "driver"), join_path(sp, "driver"));
    const YAML::Node pool = yaml_.required(spec, sp, "pool");
    const std::string pp = join_path(sp, "pool");
    yaml_.check_keys(pool, pp, {"name", "generation", "resourceSliceCount"});
    s.pool = yaml_.string(yaml_.required(pool, pp, "name"), join_path(pp, "name"));
    s.pool_generation =
        yaml_.integer(yaml_.required(pool, pp, "generation"), join_path(pp, "generation"), 0,
                      std::numeric_limits<int64_t>::max());
    s.pool_slice_count =
        yaml_.integer(yaml_.required(pool, pp, "resourceSliceCount"),
                      join_path(pp, "resourceSliceCount"), 1, std::numeric_limits<int32_t>::max());
    if (const auto n = yaml_.opt_string(spec, sp, "nodeName")) s.node_name = *n;
    if (const YAML::Node a = child(spec, "allNodes"); present(a))
      s.all_nodes = yaml_.boolean(a, join_path(sp, "allNodes"));
    if (s.node_name.empty() == !s.all_nodes)
      yaml_.fail(spec, sp, "a ResourceSlice names exactly one of nodeName or allNodes: true");
    if (const YAML::Node devs = child(spec, "devices"); present(devs)) {
      const std::string dp = join_path(sp, "devices");
      yaml_.require_seq(devs, dp);
      for (size_t i = 0; i < devs.size(); ++i)
        s.devices.push_back(device(devs[i], index_path(dp, i)));
    }
    s.shared_counters = counter_sets(spec, sp, "sharedCounters", "name");
    into_.slices.push_back(std::move(s));
  }

  DraExactRequest exact(const YAML::Node& n, const std::string& p, bool sub) {
    refuse(n, p, {"tolerations"});
    if (!sub) refuse_true(n, p, "adminAccess");
    if (sub)
      yaml_.check_keys(n, p,
                       {"name", "deviceClassName", "selectors", "allocationMode", "count",
                        "tolerations", "capacity"});
    else
      yaml_.check_keys(n, p,
                       {"deviceClassName", "selectors", "allocationMode", "count", "adminAccess",
                        "tolerations", "capacity"});
    DraExactRequest r;
    r.device_class_name =
        yaml_.string(yaml_.required(n, p, "deviceClassName"), join_path(p, "deviceClassName"));
    r.selectors = selectors(n, p);
    if (const YAML::Node m = child(n, "allocationMode"); present(m)) {
      const std::string mode = yaml_.string(m, join_path(p, "allocationMode"));
      if (mode != "ExactCount" && mode != "All")
        yaml_.fail(m, join_path(p, "allocationMode"),
                   fmt::format("expected ExactCount or All, found '{}'", mode));
      r.all = mode == "All";
    }
    if (const auto c = yaml_.opt_integer(n, p, "count", 1, 128)) {
      if (r.all) yaml_.fail(n["count"], join_path(p, "count"), "count is for ExactCount only");
      r.count = *c;
    }
    if (const YAML::Node cap = child(n, "capacity"); present(cap)) {
      const std::string cp = join_path(p, "capacity");
      yaml_.check_keys(cap, cp, {"requests"});
      const YAML::Node reqs = yaml_.required(cap, cp, "requests");
      const std::string rp = join_path(cp, "requests");
      yaml_.require_map(reqs, rp);
      for (const auto& kv : reqs)
        r.capacity_requests[kv.first.Scalar()] =
            quantity(kv.second, join_path(rp, kv.first.Scalar()));
    }
    return r;
  }

  void claim(const YAML::Node& obj, const std::string& path, bool is_template) {
    DraClaim c;
    c.name = object_name(obj, path, true);
    c.where = where(obj, path);
    c.is_template = is_template;
    YAML::Node spec = yaml_.required(obj, path, "spec");
    std::string sp = join_path(path, "spec");
    if (is_template) {
      yaml_.check_keys(spec, sp, {"metadata", "spec"});
      const YAML::Node inner = yaml_.required(spec, sp, "spec");
      sp = join_path(sp, "spec");
      spec = inner;
    }
    refuse(spec, sp, {"controller"});
    yaml_.check_keys(spec, sp, {"devices"});
    const YAML::Node devs = yaml_.required(spec, sp, "devices");
    const std::string dp = join_path(sp, "devices");
    yaml_.check_keys(devs, dp, {"requests", "constraints", "config"});
    const YAML::Node reqs = yaml_.required(devs, dp, "requests");
    const std::string rp = join_path(dp, "requests");
    yaml_.require_seq(reqs, rp);
    for (size_t i = 0; i < reqs.size(); ++i) {
      const std::string p = index_path(rp, i);
      yaml_.check_keys(reqs[i], p, {"name", "exactly", "firstAvailable"});
      DraRequest r;
      r.name = yaml_.string(yaml_.required(reqs[i], p, "name"), join_path(p, "name"));
      r.where = where(reqs[i], p);
      const YAML::Node ex = child(reqs[i], "exactly");
      const YAML::Node fa = child(reqs[i], "firstAvailable");
      if (present(ex) == present(fa))
        yaml_.fail(reqs[i], p, "a request has exactly one of 'exactly' or 'firstAvailable'");
      if (present(ex)) r.exactly = exact(ex, join_path(p, "exactly"), false);
      if (present(fa)) {
        const std::string fp = join_path(p, "firstAvailable");
        yaml_.require_seq(fa, fp);
        for (size_t k = 0; k < fa.size(); ++k) {
          const std::string sub = index_path(fp, k);
          DraSubRequest s;
          s.name = yaml_.string(yaml_.required(fa[k], sub, "name"), join_path(sub, "name"));
          s.request = exact(fa[k], sub, true);
          r.first_available.push_back(std::move(s));
        }
      }
      c.spec.requests.push_back(std::move(r));
    }
    if (const YAML::Node cons = child(devs, "constraints"); present(cons)) {
      const std::string cp = join_path(dp, "constraints");
      yaml_.require_seq(cons, cp);
      for (size_t i = 0; i < cons.size(); ++i) {
        const std::string p = index_path(cp, i);
        refuse(cons[i], p, {"distinctAttribute"});
        yaml_.check_keys(cons[i], p, {"requests", "matchAttribute", "distinctAttribute"});
        DraConstraint k;
        k.requests = strings(cons[i], p, "requests");
        k.match_attribute = yaml_.string(yaml_.required(cons[i], p, "matchAttribute"),
                                         join_path(p, "matchAttribute"));
        if (k.match_attribute.find('/') == std::string::npos)
          yaml_.fail(cons[i]["matchAttribute"], join_path(p, "matchAttribute"),
                     "matchAttribute is fully qualified: 'domain/name'");
        c.spec.constraints.push_back(std::move(k));
      }
    }
    c.spec.config = configs(devs, dp, true);
    into_.claims.push_back(std::move(c));
  }

  // A pod's spec.resourceClaims; the rest of the pod is read by the Kubernetes importer.
  void pod(const YAML::Node& obj, const std::string& path) {
    const YAML::Node spec = child(obj, "spec");
    const YAML::Node rc = child(spec, "resourceClaims");
    if (!present(rc)) return;
    DraPod p;
    p.name = object_name(obj, path, true);
    p.where = where(obj, path);
    const std::string lp = join_path(join_path(path, "spec"), "resourceClaims");
    yaml_.require_seq(rc, lp);
    for (size_t i = 0; i < rc.size(); ++i) {
      const std::string ip = index_path(lp, i);
      yaml_.check_keys(rc[i], ip, {"name", "resourceClaimName", "resourceClaimTemplateName"});
      DraPodClaim c;
      c.name = yaml_.string(yaml_.required(rc[i], ip, "name"), join_path(ip, "name"));
      if (const auto n = yaml_.opt_string(rc[i], ip, "resourceClaimName")) c.claim_name = *n;
      if (const auto n = yaml_.opt_string(rc[i], ip, "resourceClaimTemplateName"))
        c.template_name = *n;
      if (c.claim_name.empty() == c.template_name.empty())
        yaml_.fail(rc[i], ip,
                   "a pod's claim names exactly one of resourceClaimName or "
                   "resourceClaimTemplateName");
      p.claims.push_back(std::move(c));
    }
    into_.pods.push_back(std::move(p));
  }

  YamlReader yaml_;
  std::string text_;
  DraObjects& into_;
};

}  // namespace

std::string DraCelText::locate(size_t offset) const {
  if (line.empty()) return file;
  const size_t i = std::min(offset, line.size() - 1);
  return fmt::format("{}:{}:{}", file, line[i], column[i]);
}

void read_dra_objects(const std::string& path, DraObjects& into) try {
  std::string text;
  const std::vector<YAML::Node> docs = load_yaml_documents(path, kMaxKubernetesExportBytes, &text);
  DraReader reader(path, std::move(text), into);
  for (size_t i = 0; i < docs.size(); ++i)
    reader.document(docs[i], docs.size() == 1 ? "" : fmt::format("(document {})", i + 1));
} catch (const YAML::Exception& e) {
  throw located_yaml_error(path, e);
}

}  // namespace slicelab
