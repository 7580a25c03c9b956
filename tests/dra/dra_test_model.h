// Builders for DRA models in allocator tests, and a fake selector evaluator that stands in for
// the CEL one: "key=value" matches a device whose attribute `key` (fully qualified) is `value`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/dra_model.h"

namespace slicelab::dra_testing {

inline constexpr const char* kDriver = "gpu.nvidia.com";

class FakeSelectors final : public DraSelectorEvaluator {
 public:
  explicit FakeSelectors(const DraModel& model) : model_(model) {}
  bool matches(DraSelectorId id, const DraDevice& device, std::string_view) const override {
    const std::string& e = model_.selectors[id].expression;
    const size_t eq = e.find('=');
    const DraAttribute* a = device.find_attribute(e.substr(0, eq));
    if (a == nullptr) return false;
    const std::string want = e.substr(eq + 1);
    return a->type == DraAttributeType::Int ? std::to_string(a->int_value) == want
                                            : a->string_value == want;
  }

 private:
  const DraModel& model_;
};

inline DraQuantity q(int64_t v, std::string text = "") {
  return {v, text.empty() ? std::to_string(v) : std::move(text)};
}
inline constexpr int64_t kGi = int64_t{1} << 30;

inline DraAttribute str_attr(const std::string& name, std::string value) {
  DraAttribute a;
  a.name = name;
  a.qualified = std::string(kDriver) + "/" + name;
  a.type = DraAttributeType::String;
  a.string_value = std::move(value);
  return a;
}

inline DraDevice device(std::string name, std::vector<DraAttribute> attrs = {}) {
  DraDevice d;
  d.name = std::move(name);
  d.attributes = std::move(attrs);
  return d;
}

inline DraResourceSlice node_slice(const std::string& node, std::vector<DraDevice> devices,
                                   std::string driver = kDriver) {
  DraResourceSlice s;
  s.name = node + "-" + driver;
  s.driver = std::move(driver);
  s.pool = {node, 1, 1};
  s.node_name = node;
  s.devices = std::move(devices);
  return s;
}

inline DraSelectorId selector(DraModel& m, std::string expr) {
  m.selectors.push_back({std::move(expr), {}});
  return static_cast<DraSelectorId>(m.selectors.size() - 1);
}

inline void add_class(DraModel& m, std::string name, std::vector<DraSelectorId> sel = {}) {
  DraDeviceClass c;
  c.name = std::move(name);
  c.selectors = std::move(sel);
  m.device_classes.push_back(std::move(c));
}

inline DraDeviceSubRequest exact(std::string cls, int64_t count = 1,
                                 std::vector<DraSelectorId> sel = {}) {
  DraDeviceSubRequest r;
  r.device_class_name = std::move(cls);
  r.count = count;
  r.selectors = std::move(sel);
  return r;
}

inline DraDeviceRequest request(std::string name, DraDeviceSubRequest r) {
  DraDeviceRequest out;
  out.name = std::move(name);
  out.exactly = std::move(r);
  return out;
}

inline DraResourceClaim claim(std::string name, std::vector<DraDeviceRequest> requests) {
  DraResourceClaim c;
  c.name = std::move(name);
  c.namespace_name = "default";
  c.spec.requests = std::move(requests);
  return c;
}

}  // namespace slicelab::dra_testing
