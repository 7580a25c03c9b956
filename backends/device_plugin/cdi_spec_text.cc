#include "backends/device_plugin/cdi_spec_text.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <vector>

#include "workloads/input_error.h"
#include "workloads/text_file.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab::device_plugin {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A spec nests six levels (spec, devices, device, containerEdits, hooks, hook, args); anything
// much deeper is not a spec, and is refused before it is built.
constexpr int kMaxJsonDepth = 16;

// --- writing: the fields in specs-go/config.go's order, empty optional ones left out ---

ordered_json edits_json(const CdiContainerEdits& edits) {
  ordered_json out = ordered_json::object();
  if (!edits.env.empty()) out["env"] = edits.env;
  if (!edits.device_nodes.empty()) {
    ordered_json& nodes = out["deviceNodes"] = ordered_json::array();
    for (const CdiDeviceNode& node : edits.device_nodes) {
      ordered_json n = ordered_json::object();
      n["path"] = node.path;
      if (!node.host_path.empty()) n["hostPath"] = node.host_path;
      if (!node.permissions.empty()) n["permissions"] = node.permissions;
      nodes.push_back(std::move(n));
    }
  }
  if (!edits.hooks.empty()) {
    ordered_json& hooks = out["hooks"] = ordered_json::array();
    for (const CdiHook& hook : edits.hooks) {
      ordered_json h = ordered_json::object();
      h["hookName"] = hook.hook_name;
      h["path"] = hook.path;
      if (!hook.args.empty()) h["args"] = hook.args;
      if (!hook.env.empty()) h["env"] = hook.env;
      if (hook.timeout) h["timeout"] = *hook.timeout;
      hooks.push_back(std::move(h));
    }
  }
  if (!edits.mounts.empty()) {
    ordered_json& mounts = out["mounts"] = ordered_json::array();
    for (const CdiMount& mount : edits.mounts) {
      ordered_json m = ordered_json::object();
      m["hostPath"] = mount.host_path;
      m["containerPath"] = mount.container_path;
      if (!mount.options.empty()) m["options"] = mount.options;
      if (!mount.type.empty()) m["type"] = mount.type;
      mounts.push_back(std::move(m));
    }
  }
  return out;
}

ordered_json spec_json(const CdiSpec& spec) {
  ordered_json out = ordered_json::object();
  out["cdiVersion"] = spec.version;
  out["kind"] = spec.kind;
  ordered_json& devices = out["devices"] = ordered_json::array();
  for (const CdiDevice& device : spec.devices) {
    ordered_json d = ordered_json::object();
    d["name"] = device.name;
    d["containerEdits"] = edits_json(device.container_edits);  // required, even when empty
    devices.push_back(std::move(d));
  }
  if (!spec.container_edits.empty()) out["containerEdits"] = edits_json(spec.container_edits);
  return out;
}

// The same tree as YAML: keys plain, every string double-quoted, numbers as numbers.
void emit_yaml(YAML::Emitter& e, const ordered_json& j) {
  if (j.is_object()) {
    e << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      e << YAML::Key << key << YAML::Value;
      emit_yaml(e, value);
    }
    e << YAML::EndMap;
  } else if (j.is_array()) {
    e << YAML::BeginSeq;
    for (const ordered_json& item : j) emit_yaml(e, item);
    e << YAML::EndSeq;
  } else if (j.is_string()) {
    e << YAML::DoubleQuoted << j.get_ref<const std::string&>();
  } else {
    e << j.get<int64_t>();
  }
}

// --- reading ---

// Refuses nesting beyond kMaxJsonDepth and a key given twice in one object (the CDI library's
// strict decoding refuses both) while nlohmann parses, before the value is built.
class JsonGuard {
 public:
  explicit JsonGuard(std::string source) : source_(std::move(source)) {}
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxJsonDepth)
      throw InputError(
          fmt::format("{}: nested deeper than {} levels: not a CDI spec", source_, kMaxJsonDepth));
    if (event == json::parse_event_t::object_start) keys_.emplace_back();
    if (event == json::parse_event_t::object_end && !keys_.empty()) keys_.pop_back();
    if (event == json::parse_event_t::key && !keys_.empty() &&
        !keys_.back().insert(parsed.get<std::string>()).second)
      throw InputError(fmt::format("{}: the key \"{}\" appears twice in one object", source_,
                                   parsed.get<std::string>()));
    return true;
  }

 private:
  std::string source_;
  std::vector<std::set<std::string>> keys_;
};

// YAML nodes as JSON values: every scalar a string (the reader converts numbers where the spec
// has them), so that one reader serves both formats.
json yaml_to_json(const YAML::Node& node, const std::string& where) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar())
          throw InputError(fmt::format("{}:{}:{}: a mapping key that is not a plain value", where,
                                       entry.first.Mark().line + 1, entry.first.Mark().column + 1));
        out[yaml_to_json(entry.first, where).get<std::string>()] =
            yaml_to_json(entry.second, where);
      }
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item, where));
      return out;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp turns some escapes (\_, \N) into bytes that are not UTF-8.
      try {
        check_utf8(node.Scalar(), "");
      } catch (const InputError&) {
        throw InputError(
            fmt::format("{}:{}:{}: a string that is not UTF-8 once its escapes are read", where,
                        node.Mark().line + 1, node.Mark().column + 1));
      }
      return node.Scalar();
    default:
      return nullptr;
  }
}

const char* type_name(const json& j) {
  if (j.is_null()) return "nothing";
  if (j.is_object()) return "a mapping";
  if (j.is_array()) return "a list";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "true or false";
  return "a number";
}

// The spec's fields slicelab writes and reads, per object, and those it leaves to other tools.
class SpecReader {
 public:
  SpecReader(std::string_view source, bool yaml) : source_(source), yaml_(yaml) {}

  CdiSpec spec(const json& j) {
    object(j, "", {"cdiVersion", "kind", "devices", "containerEdits"}, {"annotations"},
           {"cdiVersion", "kind", "devices"});
    CdiSpec out;
    out.version = str(j.at("cdiVersion"), "cdiVersion");
    out.kind = str(j.at("kind"), "kind");
    const json& devices = list(j.at("devices"), "devices");
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string where = fmt::format("devices[{}]", i);
      const json& d = devices[i];
      object(d, where, {"name", "containerEdits"}, {"annotations"}, {"name", "containerEdits"});
      out.devices.push_back(CdiDevice{str(d.at("name"), where + ".name"),
                                      edits(d.at("containerEdits"), where + ".containerEdits")});
    }
    if (j.contains("containerEdits"))
      out.container_edits = edits(j.at("containerEdits"), "containerEdits");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(fmt::format("{}: {}{}{}", source_, where, where.empty() ? "" : ": ", what));
  }

  // An object whose keys are all in `known` (read) or `unread` (CDI fields slicelab does not
  // model), with every key of `required`.
  void object(const json& j, const std::string& where,
              std::initializer_list<std::string_view> known,
              std::initializer_list<std::string_view> unread,
              std::initializer_list<std::string_view> required) const {
    if (!j.is_object()) fail(where, fmt::format("expected a mapping, found {}", type_name(j)));
    for (const auto& [key, value] : j.items()) {
      const std::string field = where.empty() ? key : fmt::format("{}.{}", where, key);
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      if (std::find(unread.begin(), unread.end(), key) != unread.end())
        fail(field, "a CDI field slicelab does not read (this spec is not one slicelab wrote)");
      fail(field, fmt::format("unknown field (expected one of {})", fmt::join(known, ", ")));
    }
    for (std::string_view key : required)
      if (!j.contains(key)) fail(where, fmt::format("the required field \"{}\" is missing", key));
  }

  const json& list(const json& j, const std::string& where) const {
    if (!j.is_array()) fail(where, fmt::format("expected a list, found {}", type_name(j)));
    return j;
  }

  std::string str(const json& j, const std::string& where) const {
    if (!j.is_string()) fail(where, fmt::format("expected a string, found {}", type_name(j)));
    return j.get<std::string>();
  }

  std::vector<std::string> strings(const json& j, const std::string& where) const {
    std::vector<std::string> out;
    const json& items = list(j, where);
    for (size_t i = 0; i < items.size(); ++i)
      out.push_back(str(items[i], fmt::format("{}[{}]", where, i)));
    return out;
  }

  int64_t integer(const json& j, const std::string& where) const {
    if (j.is_number_integer()) return j.get<int64_t>();
    if (yaml_ && j.is_string()) {
      const std::string& text = j.get_ref<const std::string&>();
      int64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec == std::errc() && end == text.data() + text.size()) return value;
    }
    fail(where, fmt::format("expected a whole number, found {}", type_name(j)));
  }

  CdiContainerEdits edits(const json& j, const std::string& where) const {
    object(j, where, {"env", "deviceNodes", "hooks", "mounts"},
           {"netDevices", "intelRdt", "additionalGids"}, {});
    CdiContainerEdits out;
    if (j.contains("env")) out.env = strings(j.at("env"), where + ".env");
    if (j.contains("deviceNodes")) {
      const json& nodes = list(j.at("deviceNodes"), where + ".deviceNodes");
      for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string at = fmt::format("{}.deviceNodes[{}]", where, i);
        const json& n = nodes[i];
        object(n, at, {"path", "hostPath", "permissions"},
               {"type", "major", "minor", "fileMode", "uid", "gid"}, {"path"});
        CdiDeviceNode& node = out.device_nodes.emplace_back();
        node.path = str(n.at("path"), at + ".path");
        if (n.contains("hostPath")) node.host_path = str(n.at("hostPath"), at + ".hostPath");
        if (n.contains("permissions"))
          node.permissions = str(n.at("permissions"), at + ".permissions");
      }
    }
    if (j.contains("hooks")) {
      const json& hooks = list(j.at("hooks"), where + ".hooks");
      for (size_t i = 0; i < hooks.size(); ++i) {
        const std::string at = fmt::format("{}.hooks[{}]", where, i);
        const json& h = hooks[i];
        object(h, at, {"hookName", "path", "args", "env", "timeout"}, {}, {"hookName", "path"});
        CdiHook& hook = out.hooks.emplace_back();
        hook.hook_name = str(h.at("hookName"), at + ".hookName");
        hook.path = str(h.at("path"), at + ".path");
        if (h.contains("args")) hook.args = strings(h.at("args"), at + ".args");
        if (h.contains("env")) hook.env = strings(h.at("env"), at + ".env");
        if (h.contains("timeout")) hook.timeout = integer(h.at("timeout"), at + ".timeout");
      }
    }
    if (j.contains("mounts")) {
      const json& mounts = list(j.at("mounts"), where + ".mounts");
      for (size_t i = 0; i < mounts.size(); ++i) {
        const std::string at = fmt::format("{}.mounts[{}]", where, i);
        const json& m = mounts[i];
        object(m, at, {"hostPath", "containerPath", "options", "type"}, {},
               {"hostPath", "containerPath"});
        CdiMount& mount = out.mounts.emplace_back();
        mount.host_path = str(m.at("hostPath"), at + ".hostPath");
        mount.container_path = str(m.at("containerPath"), at + ".containerPath");
        if (m.contains("options")) mount.options = strings(m.at("options"), at + ".options");
        if (m.contains("type")) mount.type = str(m.at("type"), at + ".type");
      }
    }
    return out;
  }

  std::string source_;
  bool yaml_;
};

}  // namespace

std::string cdi_spec_to_json(const CdiSpec& spec) {
  // Invalid UTF-8 (never in a valid spec) is replaced rather than thrown on.
  return spec_json(spec).dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string cdi_spec_to_yaml(const CdiSpec& spec) {
  YAML::Emitter e;
  e.SetIndent(2);
  emit_yaml(e, spec_json(spec));
  if (!e.good()) throw std::runtime_error("cannot write the CDI spec as YAML: " + e.GetLastError());
  return std::string("---\n") + e.c_str() + "\n";
}

std::string cdi_spec_text(const CdiSpec& spec, CdiFormat format) {
  return format == CdiFormat::kJson ? cdi_spec_to_json(spec) : cdi_spec_to_yaml(spec);
}

CdiSpec parse_cdi_spec(std::string_view text, std::string_view source) {
  const std::string where(source);
  if (text.size() > kMaxCdiSpecBytes)
    throw InputError(fmt::format("{}: {} bytes: larger than the {} a CDI spec may have", where,
                                 text.size(), kMaxCdiSpecBytes));
  // Both formats are UTF-8 (as the CDI library's decoders require); checked before either
  // parser sees the text, so that every string read writes back unchanged.
  check_utf8(text, where);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) throw InputError(where + ": empty: not a CDI spec");
  if (text[first] == '{') {
    json j;
    try {
      j = json::parse(text, JsonGuard(where));
    } catch (const json::exception& e) {
      throw InputError(fmt::format("{}: not valid JSON: {}", where, e.what()));
    }
    return SpecReader(source, false).spec(j);
  }
  const std::string copy(text);
  YAML::Node root;
  try {
    check_yaml_syntax(copy, where);
    root = YAML::Load(copy);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}:{}: not valid YAML: {}", where, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
  return SpecReader(source, true).spec(yaml_to_json(root, where));
}

}  // namespace slicelab::device_plugin
