// CelExpression::compile: a recursive-descent parser for slicelab's CEL subset with CEL's own
// precedence (|| < && < relations < unary < member access), typing what it can statically.
#include <fmt/format.h>

#include <array>
#include <cctype>

#include "sim/modes/dra/cel_expression.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_quantity.h"

namespace slicelab {

// Static types: attribute values are only known at evaluation time (kDyn).
enum class CelStatic : uint8_t { kBool, kInt, kString, kQuantity, kVersion, kDyn };

class CelParser {
 public:
  CelParser(std::string_view text, const CelLocator& locate, CelRegexCache& regexes,
            CelExpression& out)
      : text_(text), locate_(locate), regexes_(regexes), out_(out) {}

  void parse() {
    skip_space();
    if (pos_ >= text_.size()) fail(0, "empty CEL expression");
    const Parsed root = or_expr();
    skip_space();
    if (pos_ < text_.size()) unexpected();
    if (root.type != CelStatic::kBool && root.type != CelStatic::kDyn)
      fail(0, "the selector's expression must evaluate to a bool");
    out_.root_ = root.node;
  }

 private:
  struct Parsed {
    int32_t node;
    CelStatic type;
  };

  [[noreturn]] void fail(size_t offset, std::string_view what) const {
    throw InputError(fmt::format("{}: {}", locate_(offset), what));
  }
  [[noreturn]] void unsupported(size_t offset, std::string_view construct,
                                std::string_view hint = "") const {
    fail(offset, fmt::format("unsupported CEL construct '{}'{} (slicelab's CEL subset: "
                             "docs/dra.md#cel)",
                             construct, hint.empty() ? "" : fmt::format(": {}", hint)));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at(std::string_view tok) {
    skip_space();
    return text_.substr(pos_, tok.size()) == tok;
  }
  bool eat(std::string_view tok) {
    if (!at(tok)) return false;
    pos_ += tok.size();
    return true;
  }
  static bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  }
  // The token at pos_, for messages: an identifier, a number, or one character.
  std::string token_here() {
    skip_space();
    if (pos_ >= text_.size()) return "end of expression";
    size_t e = pos_;
    while (e < text_.size() && ident_char(text_[e])) ++e;
    if (e == pos_) {
      static constexpr std::array<std::string_view, 6> kTwo = {"&&", "||", "==", "!=", "<=", ">="};
      for (const std::string_view t : kTwo)
        if (text_.substr(pos_, 2) == t) return std::string(t);
      e = pos_ + 1;
    }
    return std::string(text_.substr(pos_, e - pos_));
  }
  [[noreturn]] void unexpected() {
    skip_space();
    const std::string tok = token_here();
    if (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '?') unsupported(pos_, "?:", "the conditional operator");
      if (c == '+' || c == '-' || c == '*' || c == '/' || c == '%')
        unsupported(pos_, tok, "arithmetic");
      if (c == '{') unsupported(pos_, "{", "map literals");
    }
    fail(pos_, fmt::format("CEL syntax error: unexpected '{}'", tok));
  }
  void expect(std::string_view tok) {
    if (!eat(tok)) {
      skip_space();
      fail(pos_, fmt::format("CEL syntax error: expected '{}', found '{}'", tok, token_here()));
    }
  }
  std::string identifier() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_'))
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    if (pos_ == start)
      fail(pos_, fmt::format("CEL syntax error: expected a name, found '{}'", token_here()));
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string_view intern(std::string s) {
    out_.pool_.push_back(std::make_shared<const std::string>(std::move(s)));
    return *out_.pool_.back();
  }
  int32_t add(CelNode n) {
    out_.nodes_.push_back(n);
    return static_cast<int32_t>(out_.nodes_.size() - 1);
  }
  int32_t add_op(CelOp op, size_t offset, int32_t a, int32_t b = -1) {
    CelNode n;
    n.op = op;
    n.offset = static_cast<uint32_t>(offset);
    n.a = a;
    n.b = b;
    return add(n);
  }
  Parsed literal(const CelValue& v, size_t offset, CelStatic type) {
    CelNode n;
    n.literal = v;
    n.offset = static_cast<uint32_t>(offset);
    return {add(n), type};
  }

  Parsed or_expr() {
    Parsed left = and_expr();
    while (true) {
      const size_t at_op = (skip_space(), pos_);
      if (!eat("||")) return left;
      const Parsed right = and_expr();
      require_bool(left, at_op, "||");
      require_bool(right, at_op, "||");
      left = {add_op(CelOp::kOr, at_op, left.node, right.node), CelStatic::kBool};
    }
  }
  Parsed and_expr() {
    Parsed left = relation();
    while (true) {
      const size_t at_op = (skip_space(), pos_);
      if (!eat("&&")) return left;
      const Parsed right = relation();
      require_bool(left, at_op, "&&");
      require_bool(right, at_op, "&&");
      left = {add_op(CelOp::kAnd, at_op, left.node, right.node), CelStatic::kBool};
    }
  }
  void require_bool(const Parsed& p, size_t offset, std::string_view op) const {
    if (p.type != CelStatic::kBool && p.type != CelStatic::kDyn)
      fail(offset, fmt::format("CEL type error: '{}' takes bools", op));
  }

  Parsed relation() {
    const Parsed left = unary();
    skip_space();
    const size_t at_op = pos_;
    struct Rel {
      std::string_view tok;
      CelOp op;
    };
    static constexpr std::array<Rel, 6> kRels = {{{"==", CelOp::kEq},
                                                  {"!=", CelOp::kNe},
                                                  {"<=", CelOp::kLe},
                                                  {">=", CelOp::kGe},
                                                  {"<", CelOp::kLt},
                                                  {">", CelOp::kGt}}};
    for (const Rel& r : kRels) {
      if (!eat(r.tok)) continue;
      const Parsed right = unary();
      const bool ordering = r.op != CelOp::kEq && r.op != CelOp::kNe;
      for (const Parsed& side : {left, right}) {
        if (side.type == CelStatic::kQuantity)
          unsupported(at_op, r.tok,
                      "quantities compare with .compareTo(), .isGreaterThan() or .isLessThan()");
        if (ordering && side.type == CelStatic::kVersion)
          unsupported(at_op, r.tok,
                      "versions compare with .compareTo(), .isGreaterThan() or .isLessThan()");
      }
      if (left.type != CelStatic::kDyn && right.type != CelStatic::kDyn && left.type != right.type)
        fail(at_op, fmt::format("CEL type error: '{}' compares values of different types", r.tok));
      const Parsed result{add_op(r.op, at_op, left.node, right.node), CelStatic::kBool};
      skip_space();
      if (at("==") || at("!=") || at("<") || at(">"))
        fail(pos_, "CEL syntax error: comparisons do not chain; use parentheses");
      return result;
    }
    if (at("in") && !(pos_ + 2 < text_.size() && ident_char(text_[pos_ + 2]))) {
      pos_ += 2;
      skip_space();
      const size_t list_at = pos_;
      if (!eat("[")) unsupported(list_at, token_here(), "'in' takes a list literal [a, b, ...]");
      std::vector<int32_t> elems;
      if (!eat("]")) {
        do {
          const size_t elem_at = (skip_space(), pos_);
          const Parsed e = unary();
          if (e.type == CelStatic::kQuantity)
            unsupported(elem_at, "quantity", "quantities in a list");
          elems.push_back(e.node);
        } while (eat(","));
        expect("]");
      }
      CelNode n;
      n.op = CelOp::kIn;
      n.offset = static_cast<uint32_t>(at_op);
      n.a = left.node;
      n.first_arg = static_cast<int32_t>(out_.arg_nodes_.size());
      n.args = static_cast<int32_t>(elems.size());
      out_.arg_nodes_.insert(out_.arg_nodes_.end(), elems.begin(), elems.end());
      return {add(n), CelStatic::kBool};
    }
    return left;
  }

  // Nesting ('(' and '!') deeper than cel-go's default parser limit is refused, so that a
  // hostile expression cannot exhaust the stack of this recursive parser.
  static constexpr int kMaxNesting = 100;
  struct Nest {
    CelParser& p;
    explicit Nest(CelParser& parser, size_t at) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(at, fmt::format("CEL expression nested deeper than {} levels", kMaxNesting));
    }
    ~Nest() { --p.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  Parsed unary() {
    skip_space();
    const size_t start = pos_;
    const Nest nest(*this, start);
    if (eat("!")) {
      const Parsed operand = unary();
      require_bool(operand, start, "!");
      return {add_op(CelOp::kNot, start, operand.node), CelStatic::kBool};
    }
    if (at("-") && pos_ + 1 < text_.size() &&
        std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) != 0) {
      ++pos_;
      return number(start, true);
    }
    return member(primary());
  }

  Parsed number(size_t start, bool negative) {
    int64_t v = 0;
    const size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0) {
      const int d = text_[pos_] - '0';
      if (v > (INT64_MAX - d) / 10) fail(start, "CEL integer literal out of range");
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == '.' || ident_char(text_[pos_]))) {
      size_t end = pos_ + 1;
      while (end < text_.size() && ident_char(text_[end])) ++end;
      const std::string_view lit = text_.substr(start, end - start);
      if (text_.substr(digits, 2) == "0x") unsupported(start, lit, "hexadecimal literals");
      if (text_[pos_] == 'u' || text_[pos_] == 'U') unsupported(start, lit, "unsigned literals");
      unsupported(start, lit, "double literals");
    }
    return literal(CelValue::integer(negative ? -v : v), start, CelStatic::kInt);
  }

  // A quoted string with CEL's simple escapes; raw and triple-quoted strings are refused.
  std::string string_literal() {
    skip_space();
    const size_t start = pos_;
    const char quote = text_[pos_];
    if (text_.substr(pos_, 3) == "\"\"\"" || text_.substr(pos_, 3) == "'''")
      unsupported(start, text_.substr(pos_, 3), "triple-quoted strings");
    ++pos_;
    std::string s;
    while (true) {
      if (pos_ >= text_.size() || text_[pos_] == '\n')
        fail(start, "CEL syntax error: unterminated string literal");
      const char c = text_[pos_++];
      if (c == quote) return s;
      if (c != '\\') {
        s += c;
        continue;
      }
      if (pos_ >= text_.size()) fail(start, "CEL syntax error: unterminated string literal");
      const char e = text_[pos_++];
      switch (e) {
        case 'n':
          s += '\n';
          break;
        case 't':
          s += '\t';
          break;
        case 'r':
          s += '\r';
          break;
        case '\\':
          s += '\\';
          break;
        case '"':
          s += '"';
          break;
        case '\'':
          s += '\'';
          break;
        default:
          unsupported(pos_ - 2, text_.substr(pos_ - 2, 2), "this string escape");
      }
    }
  }
  bool at_string() {
    skip_space();
    return pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'');
  }
  std::string string_argument(std::string_view function) {
    expect("(");
    if (!at_string())
      unsupported(pos_, token_here(), fmt::format("{}() takes a string literal", function));
    std::string s = string_literal();
    expect(")");
    return s;
  }

  Parsed primary() {
    skip_space();
    const size_t start = pos_;
    if (pos_ >= text_.size()) fail(pos_, "CEL syntax error: unexpected end of expression");
    const char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      const Parsed inner = or_expr();
      expect(")");
      return inner;
    }
    if (c == '"' || c == '\'') {
      const std::string s = string_literal();
      return literal(CelValue::string(intern(s)), start, CelStatic::kString);
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) return number(start, false);
    if (c == '[') unsupported(start, "[", "list literals outside 'x in [...]'");
    if ((c == 'r' || c == 'R' || c == 'b' || c == 'B') && pos_ + 1 < text_.size() &&
        (text_[pos_ + 1] == '"' || text_[pos_ + 1] == '\''))
      unsupported(start, text_.substr(start, 2), "raw and bytes strings");
    if (std::isalpha(static_cast<unsigned char>(c)) == 0 && c != '_') unexpected();
    const std::string name = identifier();
    if (name == "true" || name == "false")
      return literal(CelValue::boolean(name == "true"), start, CelStatic::kBool);
    if (name == "device") return device_field(start);
    if (name == "quantity" || name == "semver") {
      if (!at("(")) unsupported(start, name);
      const std::string arg = string_argument(name);
      if (name == "semver") {
        CelVersion v;
        if (!parse_cel_version(arg, v))
          fail(start, fmt::format("semver(\"{}\"): not a version major.minor.patch", arg));
        return literal(CelValue::version(v), start, CelStatic::kVersion);
      }
      std::string error;
      const auto q = parse_quantity(arg, error);
      if (!q) fail(start, fmt::format("quantity(\"{}\"): {}", arg, error));
      const auto milli = q->scaled_up(3);
      if (!milli) fail(start, fmt::format("quantity(\"{}\"): too large for slicelab", arg));
      return literal(CelValue::quantity_milli(q->negative ? -*milli : *milli), start,
                     CelStatic::kQuantity);
    }
    if (at("(")) unsupported(start, name + "()", "function");
    if (name == "null") unsupported(start, name);
    unsupported(start, name, "the only variable is 'device'");
  }

  Parsed device_field(size_t start) {
    expect(".");
    const size_t field_at = (skip_space(), pos_);
    const std::string field = identifier();
    if (field == "driver") return {add_op(CelOp::kDriver, start, -1), CelStatic::kString};
    if (field == "allowMultipleAllocations")
      return {add_op(CelOp::kAllowMultipleAllocations, start, -1), CelStatic::kBool};
    if (field != "attributes" && field != "capacity")
      unsupported(field_at, "device." + field,
                  "a device has driver, attributes, capacity and allowMultipleAllocations");
    skip_space();
    if (!eat("[")) unsupported(pos_, "device." + field + token_here(), "index it with a domain");
    if (!at_string())
      unsupported(pos_, token_here(), fmt::format("device.{}[...] takes a string literal", field));
    const std::string domain = string_literal();
    expect("]");
    skip_space();
    std::string name;
    if (eat(".")) {
      skip_space();
      if (at("?")) unsupported(pos_ - 1, ".?", "optional field selection");
      name = identifier();
    } else if (eat("[")) {
      if (!at_string())
        unsupported(pos_, token_here(), fmt::format("device.{}[...][...] takes a string", field));
      name = string_literal();
      expect("]");
    } else {
      unsupported(start, fmt::format("device.{}[\"{}\"]", field, domain),
                  "name one attribute or capacity: .name or [\"name\"]");
    }
    CelNode n;
    n.op = field == "attributes" ? CelOp::kAttribute : CelOp::kCapacity;
    n.offset = static_cast<uint32_t>(start);
    n.str_a = intern(domain);
    n.str_b = intern(name);
    return {add(n), field == "attributes" ? CelStatic::kDyn : CelStatic::kQuantity};
  }

  // Method calls on a value: the quantity and semver comparisons and the string functions.
  Parsed member(Parsed target) {
    while (true) {
      skip_space();
      const size_t at_dot = pos_;
      if (!eat(".")) return target;
      skip_space();
      if (at("?")) unsupported(at_dot, ".?", "optional field selection");
      const size_t name_at = pos_;
      const std::string method = identifier();
      if (!at("(")) unsupported(at_dot, "." + method, "field selection on this value");
      if (method == "compareTo" || method == "isGreaterThan" || method == "isLessThan") {
        if (target.type != CelStatic::kQuantity && target.type != CelStatic::kVersion &&
            target.type != CelStatic::kDyn)
          fail(name_at, fmt::format("CEL type error: {}() takes a quantity or a semver", method));
        expect("(");
        const size_t arg_at = (skip_space(), pos_);
        const Parsed arg = or_expr();
        expect(")");
        if (arg.type != CelStatic::kQuantity && arg.type != CelStatic::kVersion &&
            arg.type != CelStatic::kDyn)
          fail(arg_at, fmt::format("CEL type error: {}() takes a quantity or a semver", method));
        const CelOp op = method == "compareTo"       ? CelOp::kCompareTo
                         : method == "isGreaterThan" ? CelOp::kIsGreaterThan
                                                     : CelOp::kIsLessThan;
        target = {add_op(op, at_dot, target.node, arg.node),
                  op == CelOp::kCompareTo ? CelStatic::kInt : CelStatic::kBool};
        continue;
      }
      if (method == "startsWith" || method == "endsWith" || method == "contains" ||
          method == "matches") {
        if (target.type != CelStatic::kString && target.type != CelStatic::kDyn)
          fail(name_at, fmt::format("CEL type error: {}() takes a string", method));
        const size_t arg_at = (skip_space(), pos_ + 1);
        const std::string arg = string_argument(method);
        CelNode n;
        n.offset = static_cast<uint32_t>(at_dot);
        n.a = target.node;
        n.str_a = intern(arg);
        if (method == "matches") {
          std::string error;
          auto re = regexes_.compile(arg, error);
          if (re == nullptr) fail(arg_at, fmt::format("matches(): {}", error));
          out_.regexes_.push_back(std::move(re));
          n.op = CelOp::kMatches;
          n.regex = static_cast<int32_t>(out_.regexes_.size() - 1);
        } else {
          n.op = method == "startsWith" ? CelOp::kStartsWith
                 : method == "endsWith" ? CelOp::kEndsWith
                                        : CelOp::kContains;
        }
        target = {add(n), CelStatic::kBool};
        continue;
      }
      unsupported(at_dot, "." + method + "()", "method");
    }
  }

  std::string_view text_;
  const CelLocator& locate_;
  CelRegexCache& regexes_;
  CelExpression& out_;
  size_t pos_ = 0;
  int depth_ = 0;
};

CelExpression CelExpression::compile(std::string_view text, const CelLocator& locate,
                                     CelRegexCache* regexes) {
  if (text.size() > kMaxCelExpressionBytes)
    throw InputError(
        fmt::format("{}: CEL expression longer than {} bytes", locate(0), kMaxCelExpressionBytes));
  CelExpression e;
  e.text_ = std::string(text);
  CelRegexCache own;
  CelParser(e.text_, locate, regexes != nullptr ? *regexes : own, e).parse();
  return e;
}

bool parse_cel_version(std::string_view text, CelVersion& out) {
  int64_t parts[3] = {0, 0, 0};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (pos >= text.size() || text[pos] != '.') return false;
      ++pos;
    }
    const size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
      if (parts[i] > 1'000'000'000) return false;
      parts[i] = parts[i] * 10 + (text[pos] - '0');
      ++pos;
    }
    // Semver 2.0: no leading zeros ("570.124.06" is not a version; NVIDIA's driver writes 6).
    if (pos == start || (pos - start > 1 && text[start] == '0')) return false;
  }
  if (pos != text.size()) return false;
  out = {parts[0], parts[1], parts[2]};
  return true;
}

}  // namespace slicelab
