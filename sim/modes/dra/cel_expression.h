// A DRA device selector in slicelab's CEL subset (docs/dra.md#cel), compiled once into a flat
// node vector and evaluated against a device any number of times without allocating.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/modes/dra/cel_regex.h"
#include "sim/modes/dra/cel_value.h"

namespace slicelab {

// The longest expression the API server accepts (resource.k8s.io CELSelectorExpressionMaxLength).
inline constexpr size_t kMaxCelExpressionBytes = size_t{10} * 1024;

// Turns a byte offset inside the expression into "FILE:LINE:COL" of the file it came from.
using CelLocator = std::function<std::string(size_t offset)>;

enum class CelOp : uint8_t {
  kLiteral,  // value in `literal`
  kDriver,
  kAllowMultipleAllocations,
  kAttribute,  // device.attributes[str_a].str_b
  kCapacity,   // device.capacity[str_a].str_b
  kNot,
  kAnd,
  kOr,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,  // a in list (args)
  kCompareTo,
  kIsGreaterThan,
  kIsLessThan,
  kStartsWith,
  kEndsWith,
  kContains,
  kMatches,  // regex index in `regex`
};

struct CelNode {
  CelOp op = CelOp::kLiteral;
  int32_t a = -1, b = -1;           // operand nodes
  int32_t first_arg = 0, args = 0;  // kIn: list elements in arg_nodes_
  int32_t regex = -1;
  uint32_t offset = 0;            // where the construct starts, for load-time messages
  std::string_view str_a, str_b;  // into the expression's string pool
  CelValue literal;
};

class CelExpression {
 public:
  // Compiles `text`; throws InputError "WHERE: unsupported CEL construct '…' (…)" at the
  // construct's own position (via `locate`) for anything outside the subset, a syntax error or
  // a statically wrong type (a quantity compared with '<', a non-bool result), or a matches()
  // pattern that RE2 refuses or that passes the bounds of sim/modes/dra/cel_regex.h. Patterns come
  // from `regexes`, which keeps each distinct one compiled once; without it, from a cache of
  // this expression's own.
  static CelExpression compile(std::string_view text, const CelLocator& locate,
                               CelRegexCache* regexes = nullptr);

  // True or false; kError (with its fault) when CEL would raise a runtime error: a missing
  // attribute that the logical operators do not absorb (`false && error` is false), or values
  // of the wrong type for an operator.
  CelValue evaluate(const CelDevice& device) const;

  const std::string& text() const { return text_; }
  size_t node_count() const { return nodes_.size(); }

 private:
  friend class CelParser;
  CelValue eval(int32_t node, const CelDevice& device) const;

  std::string text_;
  // Literal strings, attribute domains and names: stable addresses for the nodes' views.
  std::vector<std::shared_ptr<const std::string>> pool_;
  std::vector<CelNode> nodes_;
  std::vector<int32_t> arg_nodes_;
  std::vector<std::shared_ptr<const re2::RE2>> regexes_;  // immutable, shared
  int32_t root_ = -1;
};

std::string_view cel_fault_name(CelFault fault);

}  // namespace slicelab
