#include "tests/support/promql_series_names.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace slicelab::testing {
namespace {

constexpr std::array<std::string_view, 14> kPromqlAggregations = {
    "sum",   "min",     "max",  "avg",          "group",    "stddev", "stdvar",
    "count", "bottomk", "topk", "count_values", "quantile", "limitk", "limit_ratio"};
// Keywords followed by a parenthesised list of label names, not of expressions.
constexpr std::array<std::string_view, 6> kPromqlLabelListKeywords = {
    "by", "without", "on", "ignoring", "group_left", "group_right"};
constexpr std::array<std::string_view, 8> kPromqlOtherKeywords = {
    "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan"};

template <size_t N>
bool promql_is_one_of(const std::array<std::string_view, N>& words, std::string_view w) {
  std::string lower(w);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(words.begin(), words.end(), lower) != words.end();
}

bool promql_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':';
}
bool promql_ident_char(char c) {
  return promql_ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Reads expressions left to right; `at` is the next character.
class PromqlScanner {
 public:
  explicit PromqlScanner(std::string_view expr) : s_(expr) {}

  std::vector<PromqlSelector> selectors() {
    std::vector<PromqlSelector> out;
    int depth = 0;
    while (at_ < s_.size()) {
      const char c = s_[at_];
      if (c == '"' || c == '\'' || c == '`') {
        skip_string();
      } else if (c == '#') {
        while (at_ < s_.size() && s_[at_] != '\n') ++at_;
      } else if (c == '{') {
        PromqlSelector sel;
        selector_body(sel);
        if (!sel.name.empty()) out.push_back(std::move(sel));
      } else if (c == '[') {
        skip_brackets();
      } else if (c == '$') {
        skip_variable();
      } else if (c == '(') {
        ++depth;
        ++at_;
      } else if (c == ')') {
        if (--depth < 0) throw PromqlTokenError(where("a ')' without its '('"));
        ++at_;
      } else if (c == '}' || c == ']') {
        throw PromqlTokenError(where(std::string("a stray '") + c + "'"));
      } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
                 (c == '.' && at_ + 1 < s_.size() &&
                  std::isdigit(static_cast<unsigned char>(s_[at_ + 1])) != 0)) {
        // A number or a duration (5m, 1h30m, 0x1f, 1e-3).
        while (at_ < s_.size() &&
               (promql_ident_char(s_[at_]) || s_[at_] == '.' ||
                ((s_[at_] == '-' || s_[at_] == '+') && (s_[at_ - 1] == 'e' || s_[at_ - 1] == 'E'))))
          ++at_;
      } else if (promql_ident_start(c)) {
        identifier(out);
      } else {
        ++at_;
      }
    }
    if (depth != 0) throw PromqlTokenError(where("an unclosed '('"));
    return out;
  }

 private:
  std::string where(const std::string& what) const {
    return what + " at offset " + std::to_string(at_) + " of '" + std::string(s_) + "'";
  }

  size_t next_non_space(size_t from) const {
    while (from < s_.size() && std::isspace(static_cast<unsigned char>(s_[from])) != 0) ++from;
    return from;
  }

  void skip_string() {
    const char quote = s_[at_];
    const size_t start = at_++;
    while (at_ < s_.size() && s_[at_] != quote) {
      if (s_[at_] == '\\' && quote != '`') ++at_;
      ++at_;
    }
    if (at_ >= s_.size()) {
      at_ = start;
      throw PromqlTokenError(where("an unclosed string"));
    }
    ++at_;
  }

  // `[5m]`, `[5m:1m]`, `[$__rate_interval]`, Grafana's `[[var]]`.
  void skip_brackets() {
    const size_t start = at_;
    int depth = 0;
    while (at_ < s_.size()) {
      if (s_[at_] == '[') ++depth;
      if (s_[at_] == ']' && --depth == 0) {
        ++at_;
        return;
      }
      ++at_;
    }
    at_ = start;
    throw PromqlTokenError(where("an unclosed '['"));
  }

  void skip_variable() {
    ++at_;
    if (at_ < s_.size() && s_[at_] == '{') {
      const size_t close = s_.find('}', at_);
      if (close == std::string_view::npos) throw PromqlTokenError(where("an unclosed '${'"));
      at_ = close + 1;
      return;
    }
    while (at_ < s_.size() && promql_ident_char(s_[at_])) ++at_;
  }

  // Reads `{...}` (label matchers, strings inside): the label names into `sel`, and the value of
  // a `__name__="m"` matcher as its name (the selector's metric written inside the braces).
  void selector_body(PromqlSelector& sel) {
    const size_t start = at_++;
    while (at_ < s_.size() && s_[at_] != '}') {
      const char c = s_[at_];
      if (c == '"' || c == '\'' || c == '`') {
        skip_string();
      } else if (c == '$') {
        skip_variable();
      } else if (promql_ident_start(c)) {
        const size_t b = at_;
        while (at_ < s_.size() && promql_ident_char(s_[at_])) ++at_;
        const std::string_view label = s_.substr(b, at_ - b);
        if (label != "__name__") sel.labels.emplace_back(label);
        const size_t op = next_non_space(at_);
        if (label == "__name__" && op < s_.size() && s_[op] == '=' &&
            (op + 1 >= s_.size() || s_[op + 1] != '~')) {
          const size_t q = next_non_space(op + 1);
          if (q < s_.size() && (s_[q] == '"' || s_[q] == '\'' || s_[q] == '`')) {
            at_ = q;
            const size_t open = at_;
            skip_string();
            sel.name = std::string(s_.substr(open + 1, at_ - open - 2));
          }
        }
      } else {
        ++at_;
      }
    }
    if (at_ >= s_.size()) {
      at_ = start;
      throw PromqlTokenError(where("an unclosed '{'"));
    }
    ++at_;
  }

  void identifier(std::vector<PromqlSelector>& out) {
    const size_t b = at_;
    while (at_ < s_.size() && promql_ident_char(s_[at_])) ++at_;
    const std::string_view word = s_.substr(b, at_ - b);
    const size_t after = next_non_space(at_);
    const bool call = after < s_.size() && s_[after] == '(';
    if (promql_is_one_of(kPromqlLabelListKeywords, word)) {
      if (call) {
        const size_t close = s_.find(')', after);
        if (close == std::string_view::npos) {
          at_ = after;
          throw PromqlTokenError(where("an unclosed label list"));
        }
        at_ = close + 1;
      }
      return;
    }
    if (promql_is_one_of(kPromqlAggregations, word) || promql_is_one_of(kPromqlOtherKeywords, word))
      return;
    if (call) return;  // a function
    PromqlSelector sel{std::string(word), {}};
    if (after < s_.size() && s_[after] == '{') {
      at_ = after;
      selector_body(sel);
    }
    out.push_back(std::move(sel));
  }

  std::string_view s_;
  size_t at_ = 0;
};

std::string_view promql_trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return s;
}

// The argument list of `fn(...)` when `q` is exactly that call; else nullopt-like false.
bool promql_call_arguments(std::string_view q, std::string_view fn, std::string_view& args) {
  if (q.substr(0, fn.size()) != fn) return false;
  const std::string_view rest = promql_trim(q.substr(fn.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return false;
  args = rest.substr(1, rest.size() - 2);
  return true;
}

}  // namespace

std::vector<PromqlSelector> promql_selectors(std::string_view expr) {
  return PromqlScanner(expr).selectors();
}

std::vector<std::string> promql_series_names(std::string_view expr) {
  std::vector<std::string> names;
  for (PromqlSelector& s : promql_selectors(expr)) names.push_back(std::move(s.name));
  return names;
}

std::string grafana_variable_expression(std::string_view query) {
  const std::string_view q = promql_trim(query);
  std::string_view args;
  if (promql_call_arguments(q, "label_values", args)) {
    // The last top-level comma separates the selector from the label; with one argument it is a
    // label, and no series is read.
    int depth = 0;
    char quote = 0;
    size_t comma = std::string_view::npos;
    for (size_t i = 0; i < args.size(); ++i) {
      const char c = args[i];
      if (quote != 0) {
        if (c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '{' || c == '[') {
        ++depth;
      } else if (c == ')' || c == '}' || c == ']') {
        --depth;
      } else if (c == ',' && depth == 0) {
        comma = i;
      }
    }
    return comma == std::string_view::npos ? "" : std::string(promql_trim(args.substr(0, comma)));
  }
  if (promql_call_arguments(q, "query_result", args)) return std::string(promql_trim(args));
  if (promql_call_arguments(q, "metrics", args) || promql_call_arguments(q, "label_names", args))
    return "";
  return std::string(q);
}

}  // namespace slicelab::testing
