#include "tests/support/prometheus_text_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace slicelab::testing {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

[[noreturn]] void fail(int line, const std::string& what) {
  throw PrometheusTextError("line " + std::to_string(line) + ": " + what);
}

// A cursor over one line.
struct Line {
  std::string_view text;
  size_t at = 0;
  int number = 0;

  bool done() const { return at >= text.size(); }
  char peek() const { return done() ? '\0' : text[at]; }
  void skip_blanks() {
    while (!done() && is_blank(text[at])) ++at;
  }
  // metric_name: [a-zA-Z_:][a-zA-Z0-9_:]*
  std::string metric_name() {
    const size_t start = at;
    while (!done() &&
           (is_letter(text[at]) || text[at] == ':' || (at > start && is_digit(text[at])))) {
      ++at;
    }
    if (at == start) fail(number, "expected a metric name at column " + std::to_string(at + 1));
    return std::string(text.substr(start, at - start));
  }
  // label_name: [a-zA-Z_][a-zA-Z0-9_]*
  std::string label_name() {
    const size_t start = at;
    while (!done() && (is_letter(text[at]) || (at > start && is_digit(text[at])))) ++at;
    if (at == start) fail(number, "expected a label name at column " + std::to_string(at + 1));
    return std::string(text.substr(start, at - start));
  }
  // A quoted label value with the escapes \\, \" and \n (any other escape is an error).
  std::string label_value() {
    if (peek() != '"') fail(number, "expected '\"' to open a label value");
    ++at;
    std::string out;
    while (true) {
      if (done()) fail(number, "label value not closed");
      const char c = text[at++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (done()) fail(number, "label value ends inside an escape");
      const char e = text[at++];
      if (e == '\\' || e == '"') {
        out.push_back(e);
      } else if (e == 'n') {
        out.push_back('\n');
      } else {
        fail(number, std::string("invalid escape '\\") + e + "' in a label value");
      }
    }
  }
  std::string_view token() {
    const size_t start = at;
    while (!done() && !is_blank(text[at])) ++at;
    return text.substr(start, at - start);
  }
};

std::string unescape_help(std::string_view s, int line) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 1 == s.size()) fail(line, "HELP text ends inside an escape");
    const char e = s[++i];
    if (e == '\\') {
      out.push_back('\\');
    } else if (e == 'n') {
      out.push_back('\n');
    } else {
      fail(line, std::string("invalid escape '\\") + e + "' in HELP text");
    }
  }
  return out;
}

bool has_suffix(std::string_view name, std::string_view base, std::string_view suffix) {
  return name.size() == base.size() + suffix.size() && name.substr(0, base.size()) == base &&
         name.substr(base.size()) == suffix;
}

// Whether a sample called `name` is part of `family` (a histogram's name_bucket/_sum/_count, a
// summary's name, name_sum, name_count, otherwise the name itself).
bool belongs_to(const PromFamily& family, std::string_view name) {
  if (family.type == "histogram") {
    return has_suffix(name, family.name, "_bucket") || has_suffix(name, family.name, "_sum") ||
           has_suffix(name, family.name, "_count");
  }
  if (family.type == "summary") {
    return name == family.name || has_suffix(name, family.name, "_sum") ||
           has_suffix(name, family.name, "_count");
  }
  return name == family.name;
}

// Name and labels joined with NUL, which no name holds; a label value holding one could only
// make two different series look alike, never the other way round.
std::string series_key(const PromSample& s) {
  std::string key = s.name;
  for (const auto& [k, v] : s.labels) {
    key.push_back('\0');
    key += k;
    key.push_back('\0');
    key += v;
  }
  return key;
}

void check_histogram(const PromFamily& f) {
  struct Group {
    std::vector<std::pair<double, const PromSample*>> buckets;
    const PromSample* sum = nullptr;
    const PromSample* count = nullptr;
  };
  std::map<std::map<std::string, std::string>, Group> groups;
  for (const PromSample& s : f.samples) {
    auto labels = s.labels;
    if (s.name == f.name + "_bucket") {
      const auto le = labels.find("le");
      if (le == labels.end()) fail(s.line, f.name + "_bucket without an \"le\" label");
      const auto bound = parse_prometheus_float(le->second);
      if (!bound || std::isnan(*bound)) {
        fail(s.line, "le=\"" + le->second + "\" is not a number");
      }
      labels.erase(le);
      groups[labels].buckets.emplace_back(*bound, &s);
    } else {
      if (labels.count("le")) fail(s.line, s.name + " carries an \"le\" label");
      (s.name == f.name + "_sum" ? groups[labels].sum : groups[labels].count) = &s;
    }
    if (s.name != f.name + "_sum" && (s.value < 0 || std::isnan(s.value))) {
      fail(s.line, s.name + " is a count and cannot be " + std::to_string(s.value));
    }
  }
  for (auto& [labels, g] : groups) {
    const int line =
        g.buckets.empty() ? (g.sum ? g.sum->line : g.count->line) : g.buckets.front().second->line;
    if (g.buckets.empty()) fail(line, "histogram " + f.name + " series without buckets");
    std::sort(g.buckets.begin(), g.buckets.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 1; i < g.buckets.size(); ++i) {
      if (g.buckets[i].second->value < g.buckets[i - 1].second->value) {
        fail(g.buckets[i].second->line,
             "histogram " + f.name + " buckets are not cumulative: le=\"" +
                 g.buckets[i].second->labels.at("le") + "\" counts fewer than a lower bucket");
      }
    }
    const auto& last = g.buckets.back();
    if (!std::isinf(last.first) || last.first < 0) {
      fail(line, "histogram " + f.name + " series without an le=\"+Inf\" bucket");
    }
    if (g.count == nullptr) fail(line, "histogram " + f.name + " series without _count");
    if (g.sum == nullptr) fail(line, "histogram " + f.name + " series without _sum");
    if (g.count->value != last.second->value) {
      fail(g.count->line, f.name + "_count differs from its +Inf bucket");
    }
  }
}

void check_summary(const PromFamily& f) {
  std::map<std::map<std::string, std::string>, std::pair<bool, bool>> sum_count;
  std::set<std::map<std::string, std::string>> quantile_groups;
  for (const PromSample& s : f.samples) {
    auto labels = s.labels;
    if (s.name == f.name) {
      const auto q = labels.find("quantile");
      if (q == labels.end()) fail(s.line, "summary " + f.name + " sample without \"quantile\"");
      const auto v = parse_prometheus_float(q->second);
      if (!v || !(*v >= 0 && *v <= 1)) fail(s.line, "quantile \"" + q->second + "\" not in [0, 1]");
      labels.erase(q);
      quantile_groups.insert(labels);
    } else if (s.name == f.name + "_sum") {
      sum_count[labels].first = true;
    } else {
      sum_count[labels].second = true;
    }
  }
  for (const auto& labels : quantile_groups) sum_count.try_emplace(labels);
  for (const auto& [labels, sc] : sum_count) {
    if (!sc.first || !sc.second) fail(0, "summary " + f.name + " series without _sum or _count");
  }
}

}  // namespace

std::optional<double> parse_prometheus_float(std::string_view t) {
  if (t.empty()) return std::nullopt;
  bool negative = false;
  std::string_view body = t;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (iequals(body, "nan")) {
    if (body.size() != t.size()) return std::nullopt;  // Go reads no sign on NaN
    return std::numeric_limits<double>::quiet_NaN();
  }
  // digits [. digits] or . digits, then an optional exponent; from_chars alone would also take
  // forms the format does not (hex, "inf" spellings handled above).
  size_t i = 0;
  size_t mantissa_digits = 0;
  while (i < body.size() && is_digit(body[i])) ++i, ++mantissa_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && is_digit(body[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < body.size() && is_digit(body[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  double v = 0;
  const auto res = std::from_chars(body.data(), body.data() + body.size(), v);
  if (res.ec == std::errc::result_out_of_range) {
    // Go returns ±Inf (or 0) with an error for out-of-range values; the format rejects them.
    return std::nullopt;
  }
  if (res.ec != std::errc() || res.ptr != body.data() + body.size()) return std::nullopt;
  return negative ? -v : v;
}

const PromFamily* PromExposition::family(std::string_view name) const {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::optional<double> PromExposition::value(
    std::string_view sample_name, const std::map<std::string, std::string>& labels) const {
  for (const auto& f : families) {
    for (const auto& s : f.samples) {
      if (s.name == sample_name && s.labels == labels) return s.value;
    }
  }
  return std::nullopt;
}

PromExposition parse_prometheus_text(std::string_view text) {
  PromExposition out;
  if (!text.empty() && text.back() != '\n') {
    fail(static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1,
         "the last line does not end with a line feed");
  }
  std::map<std::string, size_t> family_at;  // name → index in out.families
  std::set<std::string> series_seen;
  std::set<std::string> typed;  // families that had their TYPE line
  PromFamily* current = nullptr;
  bool current_has_samples = false;

  // The family that HELP or TYPE names: the current one, or a new one (an earlier family of the
  // same name means its lines are split).
  auto family_for_comment = [&](const std::string& name, int line) -> PromFamily& {
    if (current != nullptr && current->name == name) return *current;
    if (family_at.count(name)) fail(line, "the lines of family " + name + " are not together");
    family_at[name] = out.families.size();
    out.families.push_back(PromFamily{name, "untyped", std::nullopt, {}});
    current = &out.families.back();
    current_has_samples = false;
    return *current;
  };

  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    Line line{text.substr(start, end - start), 0, ++number};
    start = end + 1;
    line.skip_blanks();
    if (line.done()) continue;  // blank line

    if (line.peek() == '#') {
      ++line.at;
      line.skip_blanks();
      const std::string_view keyword = line.token();
      if (keyword != "HELP" && keyword != "TYPE") continue;  // a plain comment
      line.skip_blanks();
      const std::string name = line.metric_name();
      if (!line.done() && !is_blank(line.peek())) {
        fail(number, "invalid character '" + std::string(1, line.peek()) + "' in metric name");
      }
      PromFamily& f = family_for_comment(name, number);
      line.skip_blanks();
      if (keyword == "HELP") {
        if (f.help) fail(number, "second HELP line for " + name);
        f.help = unescape_help(line.text.substr(line.at), number);
        continue;
      }
      const std::string type(line.token());
      line.skip_blanks();
      if (!line.done()) fail(number, "unexpected text after the type of " + name);
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped") {
        fail(number, "unknown metric type '" + type + "'");
      }
      if (current_has_samples) fail(number, "TYPE of " + name + " after its samples");
      // An explicit "untyped" still counts as the family's one TYPE line.
      if (!typed.insert(name).second) fail(number, "second TYPE line for " + name);
      f.type = type;
      continue;
    }

    PromSample s;
    s.line = number;
    s.name = line.metric_name();
    const size_t name_end = line.at;
    line.skip_blanks();
    if (line.peek() != '{') line.at = name_end;  // the blank before the value is checked below
    if (line.peek() == '{') {
      ++line.at;
      while (true) {
        line.skip_blanks();
        if (line.peek() == '}') break;
        const std::string label = line.label_name();
        if (label.size() >= 2 && label.substr(0, 2) == "__") {
          fail(number, "label name " + label + " is reserved");
        }
        line.skip_blanks();
        if (line.peek() != '=') fail(number, "expected '=' after label name " + label);
        ++line.at;
        line.skip_blanks();
        std::string value = line.label_value();
        if (!s.labels.emplace(label, std::move(value)).second) {
          fail(number, "label " + label + " given twice");
        }
        line.skip_blanks();
        if (line.peek() == ',') {
          ++line.at;
          continue;
        }
        if (line.peek() != '}') fail(number, "expected ',' or '}' after a label");
      }
      ++line.at;
    }
    if (!line.done() && !is_blank(line.peek())) {
      fail(number, "invalid character '" + std::string(1, line.peek()) + "' after " + s.name);
    }
    line.skip_blanks();
    const std::string_view value_token = line.token();
    if (value_token.empty()) fail(number, s.name + " has no value");
    const auto value = parse_prometheus_float(value_token);
    if (!value) fail(number, "invalid value '" + std::string(value_token) + "'");
    s.value = *value;
    line.skip_blanks();
    if (!line.done()) {
      const std::string_view ts = line.token();
      int64_t t = 0;
      const auto res = std::from_chars(ts.data(), ts.data() + ts.size(), t);
      if (res.ec != std::errc() || res.ptr != ts.data() + ts.size()) {
        fail(number, "invalid timestamp '" + std::string(ts) + "'");
      }
      s.timestamp_ms = t;
      line.skip_blanks();
      if (!line.done()) fail(number, "unexpected text after the timestamp");
    }

    if (current != nullptr && current->type == "histogram" && s.name == current->name) {
      fail(number, "histogram sample " + s.name + " without _bucket, _sum or _count");
    }
    if (current == nullptr || !belongs_to(*current, s.name)) {
      if (family_at.count(s.name)) {
        fail(number, "the lines of family " + s.name + " are not together");
      }
      for (const auto& f : out.families) {
        if (belongs_to(f, s.name))
          fail(number, "the lines of family " + f.name + " are not together");
      }
      family_at[s.name] = out.families.size();
      out.families.push_back(PromFamily{s.name, "untyped", std::nullopt, {}});
      current = &out.families.back();
    }
    if (!series_seen.insert(series_key(s)).second) fail(number, "series given twice: " + s.name);
    current_has_samples = true;
    current->samples.push_back(std::move(s));
  }

  for (auto& f : out.families) {
    if (f.type == "counter") {
      for (const auto& s : f.samples) {
        if (s.value < 0) fail(s.line, "counter " + f.name + " is negative");
      }
    } else if (f.type == "histogram") {
      check_histogram(f);
    } else if (f.type == "summary") {
      check_summary(f);
    }
  }
  return out;
}

}  // namespace slicelab::testing
