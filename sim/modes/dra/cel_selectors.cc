#include "sim/modes/dra/cel_selectors.h"

#include <fmt/format.h>

#include <limits>

namespace slicelab {
namespace {

// `qualified` is "domain/name", or `name` belongs to the driver's own domain.
bool names(std::string_view qualified, std::string_view domain, std::string_view name) {
  return qualified.size() == domain.size() + 1 + name.size() && qualified.starts_with(domain) &&
         qualified[domain.size()] == '/' && qualified.ends_with(name);
}

}  // namespace

CelValue DraCelDevice::attribute(std::string_view domain, std::string_view name) const {
  for (const DraAttribute& a : device_.attributes) {
    if (!names(a.qualified, domain, name)) continue;
    switch (a.type) {
      case DraAttributeType::String:
        return CelValue::string(a.string_value);
      case DraAttributeType::Int:
        return CelValue::integer(a.int_value);
      case DraAttributeType::Bool:
        return CelValue::boolean(a.bool_value);
      case DraAttributeType::Version: {
        CelVersion v;
        if (!parse_cel_version(a.string_value, v))
          return CelValue::error(CelFault::kNoSuchOverload);
        return CelValue::version(v);
      }
    }
  }
  return {};
}

CelValue DraCelDevice::capacity(std::string_view domain, std::string_view name) const {
  for (const DraDeviceCapacity& c : device_.capacity) {
    if (!names(c.qualified, domain, name)) continue;
    // Thousandths of the unit, saturating above 9.2e15 units (9 PB of memory).
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 1000;
    return CelValue::quantity_milli(c.value.value > kMax ? std::numeric_limits<int64_t>::max()
                                                         : c.value.value * 1000);
  }
  return {};
}

CelSelectorEvaluator::CelSelectorEvaluator(const DraModel& model,
                                           const std::vector<DraSelectorText>& text) {
  compiled_.reserve(model.selectors.size());
  CelRegexCache regexes;  // a pattern repeated in several selectors is compiled once
  for (size_t i = 0; i < model.selectors.size(); ++i) {
    const DraSelector& s = model.selectors[i];
    const DraSelectorText* t = i < text.size() ? &text[i] : nullptr;
    compiled_.push_back(CelExpression::compile(
        s.expression,
        [&](size_t offset) {
          if (t != nullptr && !t->line.empty()) return t->locate(offset);
          return fmt::format("{}:{}:{}", s.location.file, s.location.line, s.location.column);
        },
        &regexes));
  }
}

CelValue CelSelectorEvaluator::evaluate(DraSelectorId selector, const DraDevice& device,
                                        std::string_view driver) const {
  return compiled_[selector].evaluate(DraCelDevice(device, driver));
}

bool CelSelectorEvaluator::matches(DraSelectorId selector, const DraDevice& device,
                                   std::string_view driver) const {
  const CelValue v = evaluate(selector, device, driver);
  if (v.type == CelType::kError) runtime_errors_.fetch_add(1, std::memory_order_relaxed);
  return v.type == CelType::kBool && v.b;
}

}  // namespace slicelab
