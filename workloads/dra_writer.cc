#include "workloads/dra_writer.h"

#include <fmt/format.h>

#include <algorithm>

namespace slicelab {
namespace {

// A double-quoted YAML (and JSON) string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

template <typename T, typename Key>
std::vector<const T*> sorted_by(const std::vector<T>& items, Key key) {
  std::vector<const T*> out;
  out.reserve(items.size());
  for (const T& t : items) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(),
                   [&](const T* a, const T* b) { return key(*a) < key(*b); });
  return out;
}

void counters(std::string& out, const std::vector<DraCounter>& cs, const std::string& indent) {
  for (const DraCounter* c : sorted_by(cs, [](const DraCounter& x) { return x.name; }))
    out += fmt::format("{}{}:\n{}  value: {}\n", indent, c->name, indent, quoted(c->value.text));
}

void request_policy(std::string& out, const DraCapacityRequestPolicy& p) {
  out += "        requestPolicy:\n";
  if (p.default_value) out += fmt::format("          default: {}\n", quoted(p.default_value->text));
  if (p.valid_range) {
    out += "          validRange:\n";
    if (p.valid_range->max)
      out += fmt::format("            max: {}\n", quoted(p.valid_range->max->text));
    if (p.valid_range->min)
      out += fmt::format("            min: {}\n", quoted(p.valid_range->min->text));
    if (p.valid_range->step)
      out += fmt::format("            step: {}\n", quoted(p.valid_range->step->text));
  }
  if (!p.valid_values.empty()) {
    out += "          validValues:\n";
    for (const DraQuantity& v : p.valid_values)
      out += fmt::format("          - {}\n", quoted(v.text));
  }
}

void device(std::string& out, const DraDevice& d) {
  const std::string in = "  - ";
  bool first = true;
  const auto key = [&](const char* k) {
    out += first ? in : "    ";
    first = false;
    out += k;
  };
  if (d.allow_multiple_allocations) {
    key("allowMultipleAllocations: true\n");
  }
  if (!d.attributes.empty()) {
    key("attributes:\n");
    for (const DraAttribute* a :
         sorted_by(d.attributes, [](const DraAttribute& x) { return x.name; })) {
      out += fmt::format("      {}:\n", a->name);
      switch (a->type) {
        case DraAttributeType::String:
          out += fmt::format("        string: {}\n", quoted(a->string_value));
          break;
        case DraAttributeType::Version:
          out += fmt::format("        version: {}\n", quoted(a->string_value));
          break;
        case DraAttributeType::Int:
          out += fmt::format("        int: {}\n", a->int_value);
          break;
        case DraAttributeType::Bool:
          out += fmt::format("        bool: {}\n", a->bool_value ? "true" : "false");
          break;
      }
    }
  }
  if (!d.capacity.empty()) {
    key("capacity:\n");
    for (const DraDeviceCapacity* c :
         sorted_by(d.capacity, [](const DraDeviceCapacity& x) { return x.name; })) {
      out += fmt::format("      {}:\n", c->name);
      if (c->request_policy) request_policy(out, *c->request_policy);
      out += fmt::format("        value: {}\n", quoted(c->value.text));
    }
  }
  if (!d.consumes_counters.empty()) {
    key("consumesCounters:\n");
    for (const DraDeviceCounterConsumption& c : d.consumes_counters) {
      out += fmt::format("    - counterSet: {}\n      counters:\n", c.counter_set);
      counters(out, c.counters, "        ");
    }
  }
  key(fmt::format("name: {}\n", d.name).c_str());
}

}  // namespace

std::string resource_slices_yaml(const std::vector<DraResourceSlice>& slices) {
  std::string out;
  for (const DraResourceSlice& s : slices) {
    out += "---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n";
    out += fmt::format("  name: {}\nspec:\n", s.name);
    if (s.all_nodes) out += "  allNodes: true\n";
    if (!s.devices.empty()) {
      out += "  devices:\n";
      for (const DraDevice& d : s.devices) device(out, d);
    }
    out += fmt::format("  driver: {}\n", s.driver);
    if (s.node_name) out += fmt::format("  nodeName: {}\n", *s.node_name);
    out += fmt::format("  pool:\n    generation: {}\n    name: {}\n    resourceSliceCount: {}\n",
                       s.pool.generation, s.pool.name, s.pool.resource_slice_count);
    if (!s.shared_counters.empty()) {
      out += "  sharedCounters:\n";
      for (const DraCounterSet& c : s.shared_counters) {
        out += "  - counters:\n";
        counters(out, c.counters, "      ");
        out += fmt::format("    name: {}\n", c.name);
      }
    }
  }
  return out;
}

std::string nvidia_device_classes_yaml() {
  std::string out;
  for (const char* type : {"gpu", "mig"}) {
    out += fmt::format(
        "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: "
        "{0}.nvidia.com\n"
        "spec:\n{1}  selectors:\n  - cel:\n      expression: \"device.driver == 'gpu.nvidia.com' "
        "&& device.attributes['gpu.nvidia.com'].type == '{0}'\"\n",
        type, std::string(type) == "gpu" ? "  extendedResourceName: nvidia.com/gpu\n" : "");
  }
  return out;
}

}  // namespace slicelab
