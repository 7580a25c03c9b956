// The CEL side of DRA allocation: compiles every selector of the DRA objects at load time and
// decides, for the structured allocator, whether a device satisfies one (docs/dra.md#cel).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/modes/dra/cel_expression.h"
#include "workloads/dra_model.h"
#include "workloads/inputs/dra_objects.h"

namespace slicelab {

// The CelDevice view of a ResourceSlice device: attribute and capacity lookups by domain and
// name without building the qualified name, so that an evaluation allocates nothing.
class DraCelDevice final : public CelDevice {
 public:
  DraCelDevice(const DraDevice& device, std::string_view driver)
      : device_(device), driver_(driver) {}
  std::string_view driver() const override { return driver_; }
  CelValue attribute(std::string_view domain, std::string_view name) const override;
  CelValue capacity(std::string_view domain, std::string_view name) const override;
  bool allow_multiple_allocations() const override { return device_.allow_multiple_allocations; }

 private:
  const DraDevice& device_;
  std::string_view driver_;
};

class CelSelectorEvaluator final : public DraSelectorEvaluator {
 public:
  // Compiles model.selectors, locating errors with `text` (the reader's per-byte positions;
  // when it is shorter, at the expression's start). Throws InputError for anything outside
  // the subset.
  CelSelectorEvaluator(const DraModel& model, const std::vector<DraSelectorText>& text);
  explicit CelSelectorEvaluator(const DraObjects& objects)
      : CelSelectorEvaluator(objects.model, objects.selector_text) {}

  // True only when the expression evaluates to true. A CEL runtime error (a missing attribute
  // that && or || does not absorb, a type mismatch) counts as no match here and is counted;
  // kube-scheduler instead aborts the claim's allocation on that node (docs/dra.md#cel).
  bool matches(DraSelectorId selector, const DraDevice& device,
               std::string_view driver) const override;
  CelValue evaluate(DraSelectorId selector, const DraDevice& device, std::string_view driver) const;
  int64_t runtime_errors() const { return runtime_errors_.load(std::memory_order_relaxed); }
  size_t size() const { return compiled_.size(); }

 private:
  std::vector<CelExpression> compiled_;
  mutable std::atomic<int64_t> runtime_errors_{0};
};

}  // namespace slicelab
