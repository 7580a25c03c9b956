// CelExpression::evaluate: CEL's runtime semantics over the flat node vector, with its
// error-absorbing logic (`false && error` is false, `true || error` is true).
#include "sim/modes/dra/cel_expression.h"

namespace slicelab {
namespace {

CelValue missing_to_error(CelValue v) {
  return v.type == CelType::kMissing ? CelValue::error(CelFault::kNoSuchKey) : v;
}
bool is_error(const CelValue& v) {
  return v.type == CelType::kError;
}

// CEL's heterogeneous equality: values of different types are unequal, not an error.
bool equal(const CelValue& x, const CelValue& y) {
  if (x.type != y.type) return false;
  switch (x.type) {
    case CelType::kBool:
      return x.b == y.b;
    case CelType::kInt:
    case CelType::kQuantity:
      return x.i == y.i;
    case CelType::kString:
      return x.s == y.s;
    case CelType::kVersion:
      return x.v == y.v;
    default:
      return false;
  }
}

// -1, 0, 1, or 2 when the two values have no ordering.
int order(const CelValue& x, const CelValue& y, bool allow_versions_and_quantities) {
  if (x.type != y.type) return 2;
  switch (x.type) {
    case CelType::kBool:
      return x.b == y.b ? 0 : (x.b ? 1 : -1);
    case CelType::kInt:
      return x.i == y.i ? 0 : (x.i < y.i ? -1 : 1);
    case CelType::kString: {
      const int c = x.s.compare(y.s);
      return c == 0 ? 0 : (c < 0 ? -1 : 1);
    }
    case CelType::kQuantity:
      if (!allow_versions_and_quantities) return 2;
      return x.i == y.i ? 0 : (x.i < y.i ? -1 : 1);
    case CelType::kVersion:
      if (!allow_versions_and_quantities) return 2;
      return x.v == y.v ? 0 : (x.v < y.v ? -1 : 1);
    default:
      return 2;
  }
}

}  // namespace

CelValue CelExpression::evaluate(const CelDevice& device) const {
  CelValue r = missing_to_error(eval(root_, device));
  if (r.type != CelType::kBool && !is_error(r)) return CelValue::error(CelFault::kNotBool);
  return r;
}

CelValue CelExpression::eval(int32_t index, const CelDevice& device) const {
  const CelNode& n = nodes_[static_cast<size_t>(index)];
  switch (n.op) {
    case CelOp::kLiteral:
      return n.literal;
    case CelOp::kDriver:
      return CelValue::string(device.driver());
    case CelOp::kAllowMultipleAllocations:
      return CelValue::boolean(device.allow_multiple_allocations());
    case CelOp::kAttribute:
      return device.attribute(n.str_a, n.str_b);
    case CelOp::kCapacity:
      return device.capacity(n.str_a, n.str_b);
    case CelOp::kNot: {
      const CelValue v = missing_to_error(eval(n.a, device));
      if (is_error(v)) return v;
      if (v.type != CelType::kBool) return CelValue::error(CelFault::kNoSuchOverload);
      return CelValue::boolean(!v.b);
    }
    case CelOp::kAnd:
    case CelOp::kOr: {
      // The absorbing value (false for &&, true for ||) wins over an error on either side.
      const bool absorbing = n.op == CelOp::kOr;
      CelValue first_error;
      for (const int32_t side : {n.a, n.b}) {
        const CelValue v = missing_to_error(eval(side, device));
        if (v.type == CelType::kBool) {
          if (v.b == absorbing) return v;
        } else if (first_error.type != CelType::kError) {
          first_error = is_error(v) ? v : CelValue::error(CelFault::kNoSuchOverload);
        }
      }
      if (first_error.type == CelType::kError) return first_error;
      return CelValue::boolean(!absorbing);
    }
    case CelOp::kEq:
    case CelOp::kNe: {
      const CelValue x = missing_to_error(eval(n.a, device));
      if (is_error(x)) return x;
      const CelValue y = missing_to_error(eval(n.b, device));
      if (is_error(y)) return y;
      return CelValue::boolean(equal(x, y) == (n.op == CelOp::kEq));
    }
    case CelOp::kLt:
    case CelOp::kLe:
    case CelOp::kGt:
    case CelOp::kGe: {
      const CelValue x = missing_to_error(eval(n.a, device));
      if (is_error(x)) return x;
      const CelValue y = missing_to_error(eval(n.b, device));
      if (is_error(y)) return y;
      const int c = order(x, y, false);
      if (c == 2) return CelValue::error(CelFault::kNoSuchOverload);
      const bool r = n.op == CelOp::kLt   ? c < 0
                     : n.op == CelOp::kLe ? c <= 0
                     : n.op == CelOp::kGt ? c > 0
                                          : c >= 0;
      return CelValue::boolean(r);
    }
    case CelOp::kIn: {
      const CelValue x = missing_to_error(eval(n.a, device));
      if (is_error(x)) return x;
      for (int32_t k = 0; k < n.args; ++k) {
        const CelValue e = missing_to_error(
            eval(arg_nodes_[static_cast<size_t>(n.first_arg) + static_cast<size_t>(k)], device));
        if (is_error(e)) return e;
        if (equal(x, e)) return CelValue::boolean(true);
      }
      return CelValue::boolean(false);
    }
    case CelOp::kCompareTo:
    case CelOp::kIsGreaterThan:
    case CelOp::kIsLessThan: {
      const CelValue x = missing_to_error(eval(n.a, device));
      if (is_error(x)) return x;
      const CelValue y = missing_to_error(eval(n.b, device));
      if (is_error(y)) return y;
      if (x.type != CelType::kQuantity && x.type != CelType::kVersion)
        return CelValue::error(CelFault::kNoSuchOverload);
      const int c = order(x, y, true);
      if (c == 2) return CelValue::error(CelFault::kNoSuchOverload);
      if (n.op == CelOp::kCompareTo) return CelValue::integer(c);
      return CelValue::boolean(n.op == CelOp::kIsGreaterThan ? c > 0 : c < 0);
    }
    case CelOp::kStartsWith:
    case CelOp::kEndsWith:
    case CelOp::kContains:
    case CelOp::kMatches: {
      const CelValue x = missing_to_error(eval(n.a, device));
      if (is_error(x)) return x;
      if (x.type != CelType::kString) return CelValue::error(CelFault::kNoSuchOverload);
      if (n.op == CelOp::kStartsWith) return CelValue::boolean(x.s.starts_with(n.str_a));
      if (n.op == CelOp::kEndsWith) return CelValue::boolean(x.s.ends_with(n.str_a));
      if (n.op == CelOp::kContains)
        return CelValue::boolean(x.s.find(n.str_a) != std::string_view::npos);
      if (x.s.size() > kMaxCelMatchInput) return CelValue::error(CelFault::kRegexTooLong);
      // CEL's matches() is a search (RE2 semantics), anchored only where the pattern says so.
      return CelValue::boolean(cel_regex_search(*regexes_[static_cast<size_t>(n.regex)], x.s));
    }
  }
  return CelValue::error(CelFault::kNoSuchOverload);
}

std::string_view cel_fault_name(CelFault fault) {
  switch (fault) {
    case CelFault::kNone:
      return "none";
    case CelFault::kNoSuchKey:
      return "no such key";
    case CelFault::kNoSuchOverload:
      return "no matching overload";
    case CelFault::kNotBool:
      return "result is not a bool";
    case CelFault::kRegexTooLong:
      return "matches() input too long";
  }
  return "unknown";
}

}  // namespace slicelab
