#include "workloads/inputs/dra_objects.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <tuple>

#include "workloads/input_error.h"
#include "workloads/inputs/dra_api_limits.h"
#include "workloads/inputs/dra_slice_events.h"
#include "workloads/kube/kube_export_stream.h"
#include "workloads/kube/kube_quantity.h"
#include "workloads/yaml_reader.h"

namespace slicelab {
namespace {

constexpr std::string_view kNvidiaDriver = "gpu.nvidia.com";
constexpr size_t kMaxAttributesAndCapacities = kDraMaxAttributesAndCapacities;
constexpr size_t kMaxClaimListEntries = kDraMaxClaimListEntries;
constexpr size_t kMaxAttributeValueBytes = kDraMaxAttributeValueBytes;
constexpr size_t kMaxDriverNameBytes = kDraMaxDriverNameBytes;

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

// A YAML mapping as compact JSON, for DraOpaqueDeviceConfiguration::parameters_json: quoted
// scalars stay strings; plain ones that read as JSON numbers, booleans or null stay bare.
void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  out += '"';
}
bool bare_json_scalar(const std::string& s) {
  if (s == "true" || s == "false" || s == "null") return true;
  size_t i = s.starts_with('-') ? 1 : 0;
  if (i >= s.size() || std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  if (s[i] == '0' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) != 0)
    return false;
  bool dot = false, exp = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) continue;
    if (c == '.' && !dot && !exp) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && !exp) {
      exp = true;
      if (i + 1 < s.size() && (s[i + 1] == '+' || s[i + 1] == '-')) ++i;
    } else {
      return false;
    }
  }
  return std::isdigit(static_cast<unsigned char>(s.back())) != 0;
}
void append_json(std::string& out, const YAML::Node& n) {
  if (n.IsMap()) {
    out += '{';
    bool first = true;
    for (const auto& kv : n) {
      if (!first) out += ',';
      first = false;
      append_json_string(out, kv.first.Scalar());
      out += ':';
      append_json(out, kv.second);
    }
    out += '}';
  } else if (n.IsSequence()) {
    out += '[';
    for (size_t i = 0; i < n.size(); ++i) {
      if (i > 0) out += ',';
      append_json(out, n[i]);
    }
    out += ']';
  } else if (n.IsNull()) {
    out += "null";
  } else if (n.Tag() == "?" && bare_json_scalar(n.Scalar())) {
    out += n.Scalar();
  } else {
    append_json_string(out, n.Scalar());
  }
}
std::string compact_json(const YAML::Node& n) {
  std::string out;
  append_json(out, n);
  return out;
}

class DraReader {
 public:
  // One object of an export: `text` is what the nodes' marks index, `yaml` locates them in the
  // file.
  DraReader(const YamlReader& yaml, std::string_view text, DraObjects& into)
      : yaml_(yaml), text_(text), into_(into) {}

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
  std::string object_name(const YAML::Node& obj, const std::string& path) {
    const std::string mp = join_path(path, "metadata");
    const YAML::Node m = obj["metadata"];
    return yaml_.string(yaml_.required(m, mp, "name"), join_path(mp, "name"));
  }
  std::string object_namespace(const YAML::Node& obj, const std::string& path) {
    const std::string mp = join_path(path, "metadata");
    return yaml_.opt_string(obj["metadata"], mp, "namespace").value_or("default");
  }
  DraSourceLocation location(const YAML::Node& n) const {
    const YAML::Mark m = yaml_.in_file(n.Mark());
    return {yaml_.file(), m.line + 1, m.column + 1};
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

  DraQuantity quantity(const YAML::Node& n, const std::string& path) const {
    std::string error;
    if (!n.IsScalar()) yaml_.fail_expected(n, path, "a quantity");
    const auto q = parse_quantity(n.Scalar(), error);
    if (!q) yaml_.fail(n, path, fmt::format("not a quantity: {}", error));
    if (q->negative) yaml_.fail(n, path, "a negative quantity");
    const auto v = q->scaled_up(0);
    if (!v) yaml_.fail(n, path, "a quantity too large for slicelab (above 9.2e18)");
    return {*v, n.Scalar()};
  }
  std::vector<std::string> strings(const YAML::Node& map, const std::string& path,
                                   const char* key) const {
    const YAML::Node n = child(map, key);
    if (!present(n)) return {};
    return yaml_.string_list(n, join_path(path, key));
  }

  // One CEL expression: into the model's selector table, with where each byte sits.
  DraSelectorId selector(const YAML::Node& n, const std::string& path) {
    DraSelector sel;
    sel.expression = yaml_.string(n, path);
    sel.location = location(n);
    DraSelectorText t;
    t.file = yaml_.file();
    std::vector<size_t> at;
    const YAML::Mark mark = n.Mark();
    if (!map_scalar(text_, static_cast<size_t>(mark.pos), sel.expression, at))
      at.assign(sel.expression.size() + 1, static_cast<size_t>(mark.pos));
    t.line.reserve(at.size());
    t.column.reserve(at.size());
    YAML::Mark here;  // in the object's text, then in the file
    here.line = mark.line;
    size_t line_start = static_cast<size_t>(mark.pos) - static_cast<size_t>(mark.column);
    size_t scanned = line_start;
    for (const size_t a : at) {
      for (; scanned < a && scanned < text_.size(); ++scanned)
        if (text_[scanned] == '\n') ++here.line, line_start = scanned + 1;
      here.column = static_cast<int>(a - line_start);
      const YAML::Mark f = yaml_.in_file(here);
      t.line.push_back(static_cast<uint32_t>(f.line) + 1);
      t.column.push_back(static_cast<uint32_t>(f.column) + 1);
    }
    into_.model.selectors.push_back(std::move(sel));
    into_.selector_text.push_back(std::move(t));
    return static_cast<DraSelectorId>(into_.model.selectors.size() - 1);
  }
  std::vector<DraSelectorId> selectors(const YAML::Node& map, const std::string& path) {
    std::vector<DraSelectorId> out;
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
      out.push_back(selector(yaml_.required(c, cp, "expression"), join_path(cp, "expression")));
    }
    return out;
  }

  DraOpaqueDeviceConfiguration opaque(const YAML::Node& o, const std::string& op) {
    yaml_.check_keys(o, op, {"driver", "parameters"});
    DraOpaqueDeviceConfiguration c;
    c.driver = yaml_.string(yaml_.required(o, op, "driver"), join_path(op, "driver"));
    const YAML::Node params = yaml_.required(o, op, "parameters");
    const std::string pp = join_path(op, "parameters");
    yaml_.require_map(params, pp);
    c.parameters_json = compact_json(params);
    if (c.driver == kNvidiaDriver) nvidia_config(params, pp, c);
    return c;
  }
  std::vector<DraOpaqueDeviceConfiguration> class_configs(const YAML::Node& map,
                                                          const std::string& path) {
    std::vector<DraOpaqueDeviceConfiguration> out;
    const YAML::Node list = child(map, "config");
    if (!present(list)) return out;
    const std::string lp = join_path(path, "config");
    yaml_.require_seq(list, lp);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path(lp, i);
      yaml_.check_keys(list[i], p, {"opaque"});
      out.push_back(opaque(yaml_.required(list[i], p, "opaque"), join_path(p, "opaque")));
    }
    return out;
  }
  std::vector<DraDeviceClaimConfiguration> claim_configs(const YAML::Node& map,
                                                         const std::string& path) {
    std::vector<DraDeviceClaimConfiguration> out;
    const YAML::Node list = child(map, "config");
    if (!present(list)) return out;
    const std::string lp = join_path(path, "config");
    yaml_.require_seq(list, lp);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = index_path(lp, i);
      yaml_.check_keys(list[i], p, {"requests", "opaque"});
      DraDeviceClaimConfiguration c;
      c.requests = strings(list[i], p, "requests");
      c.opaque = opaque(yaml_.required(list[i], p, "opaque"), join_path(p, "opaque"));
      out.push_back(std::move(c));
    }
    return out;
  }

  // NVIDIA's GpuConfig and MigDeviceConfig (resource.nvidia.com/v1beta1): their sharing
  // settings, checked field by field; other kinds stay opaque.
  void nvidia_config(const YAML::Node& params, const std::string& pp,
                     DraOpaqueDeviceConfiguration& c) {
    const auto kind = yaml_.opt_string(params, pp, "kind");
    if (kind != "GpuConfig" && kind != "MigDeviceConfig") return;
    yaml_.check_keys(params, pp, {"apiVersion", "kind", "sharing"});
    DraNvidiaGpuConfig g;
    const YAML::Node s = child(params, "sharing");
    if (!present(s)) {
      c.gpu_config = g;
      return;
    }
    const std::string sp = join_path(pp, "sharing");
    yaml_.check_keys(s, sp, {"strategy", "timeSlicingConfig", "mpsConfig"});
    DraNvidiaGpuSharing sh;
    const YAML::Node strat = yaml_.required(s, sp, "strategy");
    sh.strategy = yaml_.string(strat, join_path(sp, "strategy"));
    if (sh.strategy != "TimeSlicing" && sh.strategy != "MPS")
      yaml_.fail(strat, join_path(sp, "strategy"),
                 fmt::format("expected TimeSlicing or MPS, found '{}'", sh.strategy));
    if (const YAML::Node t = child(s, "timeSlicingConfig"); present(t)) {
      const std::string tp = join_path(sp, "timeSlicingConfig");
      yaml_.check_keys(t, tp, {"interval"});
      DraNvidiaTimeSlicingConfig ts;
      if (const auto iv = yaml_.opt_string(t, tp, "interval")) {
        if (*iv != "Default" && *iv != "Short" && *iv != "Medium" && *iv != "Long")
          yaml_.fail(t["interval"], join_path(tp, "interval"),
                     fmt::format("expected Default, Short, Medium or Long, found '{}'", *iv));
        ts.interval = *iv;
      }
      sh.time_slicing_config = ts;
    }
    if (const YAML::Node m = child(s, "mpsConfig"); present(m)) {
      const std::string mp = join_path(sp, "mpsConfig");
      yaml_.check_keys(m, mp,
                       {"defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit",
                        "defaultPerDevicePinnedMemoryLimit"});
      DraNvidiaMpsConfig mps;
      if (const auto pct = yaml_.opt_integer(m, mp, "defaultActiveThreadPercentage", 1, 100))
        mps.default_active_thread_percentage = static_cast<int>(*pct);
      if (const YAML::Node v = child(m, "defaultPinnedDeviceMemoryLimit"); present(v))
        mps.default_pinned_device_memory_limit =
            quantity(v, join_path(mp, "defaultPinnedDeviceMemoryLimit"));
      if (const YAML::Node per = child(m, "defaultPerDevicePinnedMemoryLimit"); present(per)) {
        const std::string dp = join_path(mp, "defaultPerDevicePinnedMemoryLimit");
        yaml_.require_map(per, dp);
        for (const auto& kv : per)
          mps.default_per_device_pinned_memory_limit.push_back(
              {kv.first.Scalar(), quantity(kv.second, join_path(dp, kv.first.Scalar()))});
      }
      sh.mps_config = mps;
    }
    g.sharing = sh;
    c.gpu_config = g;
  }

  void device_class(const YAML::Node& obj, const std::string& path) {
    DraDeviceClass c;
    c.name = object_name(obj, path);
    c.location = location(obj);
    const std::string sp = join_path(path, "spec");
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    // extendedResourceName is read and not simulated: a pod asking for the extended resource
    // takes slicelab's device-plugin path.
    yaml_.check_keys(spec, sp, {"selectors", "config", "extendedResourceName"});
    (void)yaml_.opt_string(spec, sp, "extendedResourceName");
    c.selectors = selectors(spec, sp);
    c.config = class_configs(spec, sp);
    into_.model.device_classes.push_back(std::move(c));
  }

  // {name: {value: q}} maps of counter sets and counter consumptions.
  std::vector<DraCounter> counters(const YAML::Node& entry, const std::string& p) const {
    std::vector<DraCounter> out;
    const YAML::Node cs = yaml_.required(entry, p, "counters");
    const std::string cp = join_path(p, "counters");
    yaml_.require_map(cs, cp);
    for (const auto& kv : cs) {
      const std::string np = join_path(cp, kv.first.Scalar());
      yaml_.check_keys(kv.second, np, {"value"});
      out.push_back({kv.first.Scalar(),
                     quantity(yaml_.required(kv.second, np, "value"), join_path(np, "value"))});
    }
    return out;
  }

  void value_length(const YAML::Node& at, const std::string& path, const std::string& v) const {
    if (v.size() > kMaxAttributeValueBytes)
      yaml_.fail(at, path,
                 fmt::format("expected at most {} bytes (the API's limit for an attribute), found "
                             "{}",
                             kMaxAttributeValueBytes, v.size()));
  }

  DraAttribute attribute(const std::string& name, const std::string& driver, const YAML::Node& n,
                         const std::string& path) const {
    yaml_.require_map(n, path);
    refuse(n, path, {"ints", "bools", "strings", "versions"});
    yaml_.check_keys(n, path,
                     {"int", "bool", "string", "version", "ints", "bools", "strings", "versions"});
    if (n.size() != 1)
      yaml_.fail(n, path, "an attribute has exactly one of int, bool, string or version");
    DraAttribute a;
    a.name = name;
    a.qualified = name.find('/') == std::string::npos ? driver + "/" + name : name;
    if (const YAML::Node v = n["int"]; v.IsDefined()) {
      a.type = DraAttributeType::Int;
      a.int_value = yaml_.integer(v, join_path(path, "int"), std::numeric_limits<int64_t>::min(),
                                  std::numeric_limits<int64_t>::max());
    } else if (const YAML::Node b = n["bool"]; b.IsDefined()) {
      a.type = DraAttributeType::Bool;
      a.bool_value = yaml_.boolean(b, join_path(path, "bool"));
    } else if (const YAML::Node s = n["string"]; s.IsDefined()) {
      a.type = DraAttributeType::String;
      a.string_value = yaml_.string(s, join_path(path, "string"));
      value_length(s, join_path(path, "string"), a.string_value);
    } else {
      a.type = DraAttributeType::Version;
      a.string_value = yaml_.string(n["version"], join_path(path, "version"));
      value_length(n["version"], join_path(path, "version"), a.string_value);
    }
    return a;
  }

  DraDeviceCapacity capacity(const std::string& name, const std::string& driver,
                             const YAML::Node& n, const std::string& path) const {
    yaml_.check_keys(n, path, {"value", "requestPolicy"});
    DraDeviceCapacity c;
    c.name = name;
    c.qualified = name.find('/') == std::string::npos ? driver + "/" + name : name;
    c.value = quantity(yaml_.required(n, path, "value"), join_path(path, "value"));
    const YAML::Node rp = child(n, "requestPolicy");
    if (!present(rp)) return c;
    const std::string pp = join_path(path, "requestPolicy");
    yaml_.check_keys(rp, pp, {"default", "validValues", "validRange"});
    DraCapacityRequestPolicy policy;
    const YAML::Node d = child(rp, "default");
    const std::string dp = join_path(pp, "default");
    if (present(d)) policy.default_value = quantity(d, dp);
    const YAML::Node vv = child(rp, "validValues");
    const YAML::Node r = child(rp, "validRange");
    if (present(vv) && present(r))
      yaml_.fail(r, join_path(pp, "validRange"),
                 "a requestPolicy has one of validValues or validRange, not both");
    if ((present(vv) || present(r)) && !policy.default_value)
      yaml_.fail(rp, pp,
                 fmt::format("missing required key 'default' (required with {})",
                             present(vv) ? "validValues" : "validRange"));
    // The API server's rules (validateCapacityRequestPolicy): each refusal names the value.
    const auto over_capacity = [&](const YAML::Node& at, const std::string& p, const DraQuantity& v,
                                   const char* what) {
      if (v.value > c.value.value)
        yaml_.fail(at, p,
                   fmt::format("expected {} at most the capacity's value {}, found {}", what,
                               c.value.text, v.text));
    };
    if (present(vv)) {
      const std::string vp = join_path(pp, "validValues");
      yaml_.require_seq(vv, vp);
      bool has_default = false;
      for (size_t i = 0; i < vv.size(); ++i) {
        const std::string ip = index_path(vp, i);
        DraQuantity v = quantity(vv[i], ip);
        if (!policy.valid_values.empty() && v.value <= policy.valid_values.back().value)
          yaml_.fail(vv[i], ip,
                     fmt::format("expected values in ascending order without repeats, found {} "
                                 "after {}",
                                 v.text, policy.valid_values.back().text));
        over_capacity(vv[i], ip, v, "a value");
        has_default = has_default || v.value == policy.default_value->value;
        policy.valid_values.push_back(std::move(v));
      }
      if (!has_default)
        yaml_.fail(
            d, dp,
            fmt::format("expected one of validValues, found {}", policy.default_value->text));
    }
    if (present(r)) {
      const std::string vp = join_path(pp, "validRange");
      yaml_.check_keys(r, vp, {"min", "max", "step"});
      DraCapacityRequestPolicyRange range;
      const YAML::Node mn = yaml_.required(r, vp, "min");
      range.min = quantity(mn, join_path(vp, "min"));
      over_capacity(mn, join_path(vp, "min"), *range.min, "min");
      const int64_t def = policy.default_value->value;
      if (def < range.min->value)
        yaml_.fail(d, dp,
                   fmt::format("expected a default within validRange (min {}), found {}",
                               range.min->text, policy.default_value->text));
      const YAML::Node mx = child(r, "max");
      const std::string mxp = join_path(vp, "max");
      if (present(mx)) {
        range.max = quantity(mx, mxp);
        if (range.max->value < range.min->value)
          yaml_.fail(mx, mxp,
                     fmt::format("expected max at least min ({}), found {}", range.min->text,
                                 range.max->text));
        over_capacity(mx, mxp, *range.max, "max");
        if (def > range.max->value)
          yaml_.fail(d, dp,
                     fmt::format("expected a default within validRange (max {}), found {}",
                                 range.max->text, policy.default_value->text));
      }
      if (const YAML::Node st = child(r, "step"); present(st)) {
        const std::string sp = join_path(vp, "step");
        range.step = quantity(st, sp);
        const int64_t step = range.step->value, lo = range.min->value;
        if (step <= 0)
          yaml_.fail(st, sp, fmt::format("expected a step above 0, found {}", range.step->text));
        if (step > c.value.value - lo)
          yaml_.fail(st, sp,
                     fmt::format("expected min + step at most the capacity's value {}, found "
                                 "{} + {}",
                                 c.value.text, range.min->text, range.step->text));
        if ((def - lo) % step != 0)
          yaml_.fail(d, dp,
                     fmt::format("expected min ({}) plus a whole number of steps ({}), found {}",
                                 range.min->text, range.step->text, policy.default_value->text));
        if (range.max && (range.max->value - lo) % step != 0)
          yaml_.fail(mx, mxp,
                     fmt::format("expected min ({}) plus a whole number of steps ({}), found {}",
                                 range.min->text, range.step->text, range.max->text));
      }
      policy.valid_range = range;
    }
    c.request_policy = policy;
    return c;
  }

  DraDevice device(const YAML::Node& n, const std::string& p, const std::string& driver,
                   uint32_t slice_index, uint32_t device_index) {
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
    d.location = location(n);
    if (const YAML::Node a = child(n, "attributes"); present(a)) {
      const std::string ap = join_path(p, "attributes");
      yaml_.require_map(a, ap);
      for (const auto& kv : a)
        d.attributes.push_back(
            attribute(kv.first.Scalar(), driver, kv.second, join_path(ap, kv.first.Scalar())));
    }
    if (const YAML::Node c = child(n, "capacity"); present(c)) {
      const std::string cp = join_path(p, "capacity");
      yaml_.require_map(c, cp);
      for (const auto& kv : c)
        d.capacity.push_back(
            capacity(kv.first.Scalar(), driver, kv.second, join_path(cp, kv.first.Scalar())));
    }
    if (const YAML::Node list = child(n, "consumesCounters"); present(list)) {
      const std::string lp = join_path(p, "consumesCounters");
      yaml_.require_seq(list, lp);
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string ip = index_path(lp, i);
        yaml_.check_keys(list[i], ip, {"counterSet", "counters"});
        DraDeviceCounterConsumption c;
        const YAML::Node set = yaml_.required(list[i], ip, "counterSet");
        c.counter_set = yaml_.string(set, join_path(ip, "counterSet"));
        c.counters = counters(list[i], ip);
        into_.counter_use_text.push_back({slice_index, device_index,
                                          static_cast<uint32_t>(d.consumes_counters.size()),
                                          location(set)});
        d.consumes_counters.push_back(std::move(c));
      }
    }
    if (const YAML::Node m = child(n, "allowMultipleAllocations"); present(m))
      d.allow_multiple_allocations = yaml_.boolean(m, join_path(p, "allowMultipleAllocations"));
    // The API's limit, which also bounds what the allocator checks per device.
    if (const size_t k = d.attributes.size() + d.capacity.size(); k > kMaxAttributesAndCapacities)
      yaml_.fail(n, p,
                 fmt::format("expected at most {} attributes and capacities together (the API's "
                             "limit per device), found {}",
                             kMaxAttributesAndCapacities, k));
    return d;
  }

  void slice(const YAML::Node& obj, const std::string& path) {
    DraResourceSlice s;
    s.name = object_name(obj, path);
    s.location = location(obj);
    const std::string sp = join_path(path, "spec");
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    refuse(spec, sp, {"nodeSelector", "partitionTypeAttribute", "skipNodeOperations"});
    refuse_true(spec, sp, "perDeviceNodeSelection");
    yaml_.check_keys(spec, sp,
                     {"driver", "pool", "nodeName", "nodeSelector", "allNodes", "devices",
                      "perDeviceNodeSelection", "sharedCounters", "partitionTypeAttribute",
                      "skipNodeOperations"});
    const YAML::Node driver = yaml_.required(spec, sp, "driver");
    s.driver = yaml_.string(driver, join_path(sp, "driver"));
    if (s.driver.size() > kMaxDriverNameBytes)
      yaml_.fail(driver, join_path(sp, "driver"),
                 fmt::format("expected at most {} bytes (the API's limit for a driver name), "
                             "found {}",
                             kMaxDriverNameBytes, s.driver.size()));
    const YAML::Node pool = yaml_.required(spec, sp, "pool");
    const std::string pp = join_path(sp, "pool");
    yaml_.check_keys(pool, pp, {"name", "generation", "resourceSliceCount"});
    s.pool.name = yaml_.string(yaml_.required(pool, pp, "name"), join_path(pp, "name"));
    s.pool.generation =
        yaml_.integer(yaml_.required(pool, pp, "generation"), join_path(pp, "generation"), 0,
                      std::numeric_limits<int64_t>::max());
    s.pool.resource_slice_count =
        yaml_.integer(yaml_.required(pool, pp, "resourceSliceCount"),
                      join_path(pp, "resourceSliceCount"), 1, std::numeric_limits<int32_t>::max());
    s.node_name = yaml_.opt_string(spec, sp, "nodeName");
    if (const YAML::Node a = child(spec, "allNodes"); present(a))
      s.all_nodes = yaml_.boolean(a, join_path(sp, "allNodes"));
    if (s.node_name.has_value() == s.all_nodes)
      yaml_.fail(spec, sp, "a ResourceSlice names exactly one of nodeName or allNodes: true");
    if (const YAML::Node devs = child(spec, "devices"); present(devs)) {
      const std::string dp = join_path(sp, "devices");
      yaml_.require_seq(devs, dp);
      const auto slice_index = static_cast<uint32_t>(into_.model.resource_slices.size());
      for (size_t i = 0; i < devs.size(); ++i)
        s.devices.push_back(
            device(devs[i], index_path(dp, i), s.driver, slice_index, static_cast<uint32_t>(i)));
    }
    if (const YAML::Node list = child(spec, "sharedCounters"); present(list)) {
      const std::string lp = join_path(sp, "sharedCounters");
      yaml_.require_seq(list, lp);
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string ip = index_path(lp, i);
        yaml_.check_keys(list[i], ip, {"name", "counters"});
        DraCounterSet c;
        c.name = yaml_.string(yaml_.required(list[i], ip, "name"), join_path(ip, "name"));
        c.counters = counters(list[i], ip);
        s.shared_counters.push_back(std::move(c));
      }
    }
    into_.model.resource_slices.push_back(std::move(s));
  }

  DraDeviceSubRequest exact(const YAML::Node& n, const std::string& p, bool sub) {
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
    DraDeviceSubRequest r;
    if (sub) r.name = yaml_.string(yaml_.required(n, p, "name"), join_path(p, "name"));
    r.device_class_name =
        yaml_.string(yaml_.required(n, p, "deviceClassName"), join_path(p, "deviceClassName"));
    r.selectors = selectors(n, p);
    if (const YAML::Node m = child(n, "allocationMode"); present(m)) {
      const std::string mode = yaml_.string(m, join_path(p, "allocationMode"));
      if (mode != "ExactCount" && mode != "All")
        yaml_.fail(m, join_path(p, "allocationMode"),
                   fmt::format("expected ExactCount or All, found '{}'", mode));
      r.allocation_mode = mode == "All" ? DraAllocationMode::All : DraAllocationMode::ExactCount;
    }
    if (const auto c = yaml_.opt_integer(n, p, "count", 1, 128)) {
      if (r.allocation_mode == DraAllocationMode::All)
        yaml_.fail(n["count"], join_path(p, "count"), "count is for ExactCount only");
      r.count = *c;
    }
    if (const YAML::Node cap = child(n, "capacity"); present(cap)) {
      const std::string cp = join_path(p, "capacity");
      yaml_.check_keys(cap, cp, {"requests"});
      const YAML::Node reqs = yaml_.required(cap, cp, "requests");
      const std::string rp = join_path(cp, "requests");
      yaml_.require_map(reqs, rp);
      for (const auto& kv : reqs)
        r.capacity_requests.push_back(
            {kv.first.Scalar(), quantity(kv.second, join_path(rp, kv.first.Scalar()))});
    }
    return r;
  }

  DraResourceClaimSpec claim_spec(const YAML::Node& spec, const std::string& sp) {
    refuse(spec, sp, {"controller"});
    yaml_.check_keys(spec, sp, {"devices"});
    DraResourceClaimSpec out;
    const YAML::Node devs = yaml_.required(spec, sp, "devices");
    const std::string dp = join_path(sp, "devices");
    yaml_.check_keys(devs, dp, {"requests", "constraints", "config"});
    const YAML::Node reqs = yaml_.required(devs, dp, "requests");
    const std::string rp = join_path(dp, "requests");
    yaml_.require_seq(reqs, rp);
    if (reqs.size() > kMaxClaimListEntries)
      yaml_.fail(reqs, rp,
                 fmt::format("expected at most {} requests (the API's limit), found {}",
                             kMaxClaimListEntries, reqs.size()));
    for (size_t i = 0; i < reqs.size(); ++i) {
      const std::string p = index_path(rp, i);
      yaml_.check_keys(reqs[i], p, {"name", "exactly", "firstAvailable"});
      DraDeviceRequest r;
      r.name = yaml_.string(yaml_.required(reqs[i], p, "name"), join_path(p, "name"));
      const YAML::Node ex = child(reqs[i], "exactly");
      const YAML::Node fa = child(reqs[i], "firstAvailable");
      if (present(ex) == present(fa))
        yaml_.fail(reqs[i], p, "a request has exactly one of 'exactly' or 'firstAvailable'");
      if (present(ex)) r.exactly = exact(ex, join_path(p, "exactly"), false);
      if (present(fa)) {
        const std::string fp = join_path(p, "firstAvailable");
        yaml_.require_seq(fa, fp);
        for (size_t k = 0; k < fa.size(); ++k)
          r.first_available.push_back(exact(fa[k], index_path(fp, k), true));
      }
      out.requests.push_back(std::move(r));
    }
    if (const YAML::Node cons = child(devs, "constraints"); present(cons)) {
      const std::string cp = join_path(dp, "constraints");
      yaml_.require_seq(cons, cp);
      if (cons.size() > kMaxClaimListEntries)
        yaml_.fail(cons, cp,
                   fmt::format("expected at most {} constraints (the API's limit), found {}",
                               kMaxClaimListEntries, cons.size()));
      for (size_t i = 0; i < cons.size(); ++i) {
        const std::string p = index_path(cp, i);
        refuse(cons[i], p, {"distinctAttribute"});
        yaml_.check_keys(cons[i], p, {"requests", "matchAttribute", "distinctAttribute"});
        DraDeviceConstraint k;
        k.requests = strings(cons[i], p, "requests");
        k.match_attribute = yaml_.string(yaml_.required(cons[i], p, "matchAttribute"),
                                         join_path(p, "matchAttribute"));
        if (k.match_attribute.find('/') == std::string::npos)
          yaml_.fail(cons[i]["matchAttribute"], join_path(p, "matchAttribute"),
                     "matchAttribute is fully qualified: 'domain/name'");
        out.constraints.push_back(std::move(k));
      }
    }
    out.config = claim_configs(devs, dp);
    return out;
  }

  void claim(const YAML::Node& obj, const std::string& path, bool is_template) {
    const YAML::Node spec = yaml_.required(obj, path, "spec");
    const std::string sp = join_path(path, "spec");
    if (is_template) {
      DraResourceClaimTemplate t;
      t.name = object_name(obj, path);
      t.namespace_name = object_namespace(obj, path);
      t.location = location(obj);
      yaml_.check_keys(spec, sp, {"metadata", "spec"});
      t.spec = claim_spec(yaml_.required(spec, sp, "spec"), join_path(sp, "spec"));
      into_.model.resource_claim_templates.push_back(std::move(t));
      return;
    }
    DraResourceClaim c;
    c.name = object_name(obj, path);
    c.namespace_name = object_namespace(obj, path);
    c.location = location(obj);
    c.spec = claim_spec(spec, sp);
    into_.model.resource_claims.push_back(std::move(c));
  }

  // A pod's spec.resourceClaims; the rest of the pod is read by the Kubernetes importer.
  void pod(const YAML::Node& obj, const std::string& path) {
    const YAML::Node spec = child(obj, "spec");
    const YAML::Node rc = child(spec, "resourceClaims");
    if (!present(rc)) return;
    DraPod p;
    p.name = object_name(obj, path);
    p.namespace_name = object_namespace(obj, path);
    p.location = location(obj);
    const std::string lp = join_path(join_path(path, "spec"), "resourceClaims");
    yaml_.require_seq(rc, lp);
    for (size_t i = 0; i < rc.size(); ++i) {
      const std::string ip = index_path(lp, i);
      yaml_.check_keys(rc[i], ip, {"name", "resourceClaimName", "resourceClaimTemplateName"});
      DraPodResourceClaim c;
      c.name = yaml_.string(yaml_.required(rc[i], ip, "name"), join_path(ip, "name"));
      if (const auto n = yaml_.opt_string(rc[i], ip, "resourceClaimName"))
        c.resource_claim_name = *n;
      if (const auto n = yaml_.opt_string(rc[i], ip, "resourceClaimTemplateName"))
        c.resource_claim_template_name = *n;
      if (c.resource_claim_name.empty() == c.resource_claim_template_name.empty())
        yaml_.fail(rc[i], ip,
                   "a pod's claim names exactly one of resourceClaimName or "
                   "resourceClaimTemplateName");
      p.resource_claims.push_back(std::move(c));
    }
    into_.model.pods.push_back(std::move(p));
  }

  const YamlReader& yaml_;
  std::string_view text_;
  DraObjects& into_;
};

}  // namespace

std::string DraSelectorText::locate(size_t offset) const {
  if (line.empty()) return file;
  const size_t i = std::min(offset, line.size() - 1);
  return fmt::format("{}:{}:{}", file, line[i], column[i]);
}

void check_dra_pools(const DraObjects& objects) {
  const auto& slices = objects.model.resource_slices;
  const auto at = [](const DraSourceLocation& l) {
    return fmt::format("{}:{}:{}", l.file, l.line, l.column);
  };
  // Pools in a map, so that a file of many slices is checked in n log n.
  using PoolKey = std::tuple<std::string_view, std::string_view, int64_t>;
  std::map<PoolKey, std::vector<uint32_t>> pools;
  for (uint32_t i = 0; i < slices.size(); ++i)
    pools[{slices[i].driver, slices[i].pool.name, slices[i].pool.generation}].push_back(i);
  std::vector<const std::vector<uint32_t>*> pool_of(slices.size());
  for (const auto& [key, members] : pools) {
    std::map<std::string_view, const DraDevice*> devices;
    std::map<std::string_view, const DraResourceSlice*> sets;
    for (const uint32_t i : members) {
      pool_of[i] = &members;
      const DraResourceSlice& s = slices[i];
      for (const DraDevice& d : s.devices) {
        const auto [it, fresh] = devices.emplace(d.name, &d);
        if (!fresh)
          throw InputError(fmt::format(
              "{}: ResourceSlice {}: device '{}' appears twice in pool '{}' (also {}); device "
              "names are unique within a pool",
              at(d.location), s.name, d.name, s.pool.name, at(it->second->location)));
      }
      for (const DraCounterSet& c : s.shared_counters) {
        const auto [it, fresh] = sets.emplace(c.name, &s);
        if (!fresh)
          throw InputError(fmt::format(
              "{}: ResourceSlice {}: counter set '{}' appears twice in pool '{}' (also in "
              "ResourceSlice {}); counter set names are unique within a pool",
              at(s.location), s.name, c.name, s.pool.name, it->second->name));
      }
    }
  }
  for (const DraCounterUseText& u : objects.counter_use_text) {
    if (u.slice >= slices.size()) continue;
    const DraResourceSlice& s = slices[u.slice];
    const DraDeviceCounterConsumption& use = s.devices[u.device].consumes_counters[u.use];
    const DraCounterSet* set = nullptr;
    for (const uint32_t i : *pool_of[u.slice])
      for (const DraCounterSet& c : slices[i].shared_counters)
        if (c.name == use.counter_set) set = &c;
    if (set == nullptr) {
      std::string known;
      for (const uint32_t i : *pool_of[u.slice])
        for (const DraCounterSet& c : slices[i].shared_counters)
          known += (known.empty() ? "" : ", ") + c.name;
      throw InputError(fmt::format(
          "{}: ResourceSlice {}: device '{}' consumes counter set '{}', which pool '{}' does not "
          "have (its sharedCounters: {})",
          at(u.at), s.name, s.devices[u.device].name, use.counter_set, s.pool.name,
          known.empty() ? "none" : known));
    }
    for (const DraCounter& c : use.counters) {
      const bool found = std::any_of(set->counters.begin(), set->counters.end(),
                                     [&](const DraCounter& k) { return k.name == c.name; });
      if (!found)
        throw InputError(fmt::format(
            "{}: ResourceSlice {}: device '{}' consumes counter '{}' of set '{}', which the set "
            "does not have",
            at(u.at), s.name, s.devices[u.device].name, c.name, use.counter_set));
    }
  }
}

void read_dra_objects(const std::string& path, DraObjects& into, DraSliceReading slices) try {
  KubeYamlTextReader on_events;
  if (slices == DraSliceReading::Events)
    on_events = [&into](std::string_view text, const YamlReader& yaml) {
      return read_resource_slice_events(text, yaml, into);
    };
  read_kubernetes_export(
      path,
      [&](const KubeExportObject& o) {
        try {
          DraReader(o.yaml, o.text, into).document(o.node, o.path);
        } catch (const YAML::Exception& e) {  // a conversion no check above caught, in the file
          throw YAML::Exception(o.yaml.in_file(e.mark), e.msg);
        }
      },
      on_events);
} catch (const YAML::Exception& e) {
  throw located_yaml_error(path, e);
}

}  // namespace slicelab
