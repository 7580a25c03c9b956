#include "workloads/kube/kube_export_stream.h"

#include <fmt/format.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <nlohmann/json.hpp>

#include <iterator>
#include <optional>
#include <sstream>
#include <unordered_set>
#include <utility>
#include <vector>

#include "workloads/counting_iterator.h"
#include "workloads/input_error.h"
#include "workloads/yaml_syntax_check.h"

namespace slicelab {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Line and column (0-based, in bytes, as yaml-cpp counts them) of byte offsets met in increasing
// order, counted once over the text.
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  YamlOrigin at(size_t offset) {
    if (offset < scanned_) {  // a step back (an error message): count again from the start
      scanned_ = 0;
      line_ = 0;
      line_start_ = 0;
    }
    for (; scanned_ < offset && scanned_ < text_.size(); ++scanned_) {
      if (text_[scanned_] == '\n') {
        ++line_;
        line_start_ = scanned_ + 1;
      }
    }
    return {line_, static_cast<int>(offset - line_start_)};
  }

 private:
  std::string_view text_;
  size_t scanned_ = 0;
  int line_ = 0;
  size_t line_start_ = 0;
};

[[noreturn]] void fail_at(const std::string& file, YamlOrigin at, std::string_view path,
                          std::string_view what) {
  throw InputError(fmt::format("{}:{}:{}: {}: {}", file, at.line + 1, at.column + 1,
                               path.empty() ? "top level" : path, what));
}

// --- JSON ---

// Strict JSON with a nesting limit, checked on nlohmann's SAX events: nothing is built.
class JsonCheck final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool /*v*/) override { return true; }
  bool number_integer(number_integer_t /*v*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*v*/) override { return true; }
  bool number_float(number_float_t /*v*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*v*/) override { return true; }
  bool binary(binary_t& /*v*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return open(); }
  bool key(string_t& /*k*/) override { return true; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t /*elements*/) override { return open(); }
  bool end_array() override { return --depth_, true; }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    // nlohmann's message is "[json.exception.parse_error.101] parse error at line L, column C:
    // what"; the position is said by the caller, so keep what follows it.
    const std::string m = ex.what();
    const size_t colon = m.find(": ", m.find("parse error"));
    message_ = colon == std::string::npos ? m : m.substr(colon + 2);
    error_at_ = position == 0 ? 0 : position - 1;
    return false;
  }

  const std::string& message() const { return message_; }
  std::optional<size_t> error_at() const { return error_at_; }

 private:
  bool open() {
    if (++depth_ > kMaxYamlDepth) {
      message_ = fmt::format("nested deeper than {} levels of objects and arrays", kMaxYamlDepth);
      return false;
    }
    return true;
  }

  int depth_ = 0;
  std::string message_;
  std::optional<size_t> error_at_;
};

// The end of the JSON value that starts at `i` in text already checked by JsonCheck: strings
// skipped whole, brackets counted.
size_t skip_json_value(std::string_view t, size_t i) {
  if (i >= t.size()) return i;
  const auto skip_string = [&](size_t j) {
    for (++j; j < t.size(); ++j) {
      if (t[j] == '\\')
        ++j;
      else if (t[j] == '"')
        return j + 1;
    }
    return t.size();
  };
  if (t[i] == '"') return skip_string(i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && !blank(t[i]) && t[i] != ',' && t[i] != ']' && t[i] != '}') ++i;
    return i;
  }
  int depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = skip_string(i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return t.size();
}

size_t skip_blank(std::string_view t, size_t i) {
  while (i < t.size() && blank(t[i])) ++i;
  return i;
}

struct Span {
  size_t begin = 0, end = 0;
};

// The elements of the checked array at `open` ('['), or the members (key, value) of the checked
// object there ('{').
std::vector<Span> json_elements(std::string_view t, size_t open) {
  std::vector<Span> out;
  size_t i = skip_blank(t, open + 1);
  if (i < t.size() && t[i] == ']') return out;
  while (i < t.size()) {
    const size_t end = skip_json_value(t, i);
    out.push_back({i, end});
    i = skip_blank(t, end);
    if (i >= t.size() || t[i] != ',') break;
    i = skip_blank(t, i + 1);
  }
  return out;
}
std::vector<std::pair<Span, Span>> json_members(std::string_view t, size_t open) {
  std::vector<std::pair<Span, Span>> out;
  size_t i = skip_blank(t, open + 1);
  if (i < t.size() && t[i] == '}') return out;
  while (i < t.size()) {
    const Span key{i, skip_json_value(t, i)};
    i = skip_blank(t, key.end);
    if (i >= t.size() || t[i] != ':') break;
    i = skip_blank(t, i + 1);
    const Span value{i, skip_json_value(t, i)};
    out.emplace_back(key, value);
    i = skip_blank(t, value.end);
    if (i >= t.size() || t[i] != ',') break;
    i = skip_blank(t, i + 1);
  }
  return out;
}

std::string json_string(std::string_view t, Span s) {
  const nlohmann::json j = nlohmann::json::parse(t.substr(s.begin, s.end - s.begin));
  return j.is_string() ? j.get<std::string>() : std::string();
}

// A key twice in a mapping below `n`: the second key's node, and the path below `n` to its
// mapping, built only on the way out (a clean object costs no strings). nlohmann keeps the last
// of two keys, yaml-cpp both, and a lookup would silently see one of them. Recursion is bounded
// by JsonCheck's depth limit.
bool find_duplicate_key(const YAML::Node& n, std::string& path, std::optional<YAML::Node>& key) {
  const auto prefix = [&path](const std::string& head) {
    path = path.empty() ? head : head + (path.starts_with('[') ? "" : ".") + path;
  };
  if (n.IsMap()) {
    std::unordered_set<std::string_view> seen;
    for (const auto& kv : n) {
      if (!seen.insert(kv.first.Scalar()).second) {
        key.emplace(kv.first);
        return true;
      }
      if (find_duplicate_key(kv.second, path, key)) {
        prefix(kv.first.Scalar());
        return true;
      }
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) {
      if (find_duplicate_key(n[i], path, key)) {
        prefix(fmt::format("[{}]", i));
        return true;
      }
    }
  }
  return false;
}

void refuse_duplicate_keys(const YAML::Node& n, const YamlReader& yaml, const std::string& path) {
  std::string below;
  std::optional<YAML::Node> key;
  if (!find_duplicate_key(n, below, key)) return;
  const std::string where = below.empty()            ? path
                            : below.starts_with('[') ? path + below
                                                     : join_path(path, below);
  yaml.fail(*key, where, fmt::format("duplicate key '{}'", key->Scalar()));
}

// Where the items of a YAML List document begin, found on yaml-cpp's events (nothing built), so
// that each item can be parsed on its own: the document's root `kind` and, when its `items` is a
// block sequence, the position of each item's first node and of the first root node after them.
class YamlListScan final : public YAML::EventHandler {
 public:
  std::string kind;
  bool block_items = false;
  bool one_document = true;
  std::vector<size_t> starts;  // each item's first node (Mark::pos)
  std::vector<int> start_lines, start_columns;
  size_t after_items = std::string::npos;  // the root's next node after the items, if any

  void OnDocumentStart(const YAML::Mark& /*mark*/) override {
    if (++documents_ > 1) one_document = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { leaf(mark, nullptr); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { leaf(mark, nullptr); }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& value) override {
    leaf(mark, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/,
                       YAML::anchor_t /*anchor*/, YAML::EmitterStyle::value style) override {
    open(mark, false, style);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value style) override {
    open(mark, true, style);
  }
  void OnMapEnd() override { close(); }

 private:
  // Open containers: the root mapping is depth 1, its `items` sequence depth 2.
  void begin(const YAML::Mark& mark) {
    if (depth_ == 1 && after_pending_) {
      after_items = static_cast<size_t>(mark.pos);
      after_pending_ = false;
    }
    if (in_items_ && depth_ == 2) {
      starts.push_back(static_cast<size_t>(mark.pos));
      start_lines.push_back(mark.line);
      start_columns.push_back(mark.column);
    }
  }
  void leaf(const YAML::Mark& mark, const std::string* scalar) {
    begin(mark);
    if (depth_ != 1) return;
    if (key_next_) {
      key_ = scalar != nullptr ? *scalar : std::string();
    } else if (key_ == "kind" && scalar != nullptr) {
      kind = *scalar;
    }
    key_next_ = !key_next_;
  }
  void open(const YAML::Mark& mark, bool map, YAML::EmitterStyle::value style) {
    begin(mark);
    if (depth_ == 0 && !map) one_document = false;  // not a mapping: read it whole
    if (depth_ == 1) {
      if (!key_next_ && key_ == "items" && !map) {
        in_items_ = true;
        block_items = style != YAML::EmitterStyle::Flow;
      }
      if (key_next_) key_.clear();  // a mapping or list as a key
      key_next_ = !key_next_;
    }
    ++depth_;
  }
  void close() {
    --depth_;
    if (in_items_ && depth_ == 1) {
      in_items_ = false;
      after_pending_ = true;
    }
  }

  int documents_ = 0;
  int depth_ = 0;
  bool key_next_ = true;
  std::string key_;
  bool in_items_ = false;
  bool after_pending_ = false;
};

class ExportReader {
 public:
  ExportReader(const std::string& file, const std::string& text,
               const std::function<void(const KubeExportObject&)>& visit,
               const KubeYamlTextReader& read_text)
      : file_(file),
        whole_(text),
        text_(text),
        lines_(text),
        visit_(visit),
        read_text_(read_text) {}

  // Every JSON value of the file; false when the first is not JSON (YAML written in flow style,
  // `{kind: List}`), for the caller to read the file as YAML.
  bool json() {
    std::vector<Span> values;
    size_t i = skip_blank(text_, 0);
    while (i < text_.size()) {
      if (text_[i] != '{' && text_[i] != '[')
        fail_at(file_, lines_.at(i), "top level",
                fmt::format("expected '{{' or '[' (the next JSON value), found '{}'", text_[i]));
      const Span v{i, skip_json_value(text_, i)};
      if (!check(v)) {
        if (values.empty()) return false;
        fail_json(v);
      }
      values.push_back(v);
      i = skip_blank(text_, v.end);
    }
    for (size_t k = 0; k < values.size(); ++k)
      value(values[k], values.size() == 1 ? "" : fmt::format("(document {})", k + 1));
    return true;
  }

  // The JSON error of the file's first value, when the file is not YAML either.
  [[noreturn]] void fail_first_json_value() {
    const size_t i = skip_blank(text_, 0);
    fail_json({i, skip_json_value(text_, i)});
  }

  // Whether the file passes check_yaml_syntax (when it looked like JSON and was not).
  bool yaml_syntax_ok() const {
    try {
      check_yaml_syntax(whole_, file_, true);
    } catch (const InputError&) {
      return false;
    } catch (const YAML::ParserException&) {
      return false;
    }
    return true;
  }

  void yaml() {
    try {
      check_yaml_syntax(whole_, file_, true);
    } catch (const YAML::ParserException& e) {
      fail_at(file_, at({}, e.mark), "top level", fmt::format("invalid YAML: {}", e.msg));
    }
    // Documents begin at a line "---" (YAML forbids such a line inside any scalar).
    std::vector<size_t> starts{0};
    for (size_t at = 0; at < text_.size();) {
      const size_t nl = text_.find('\n', at);
      const size_t end = nl == std::string_view::npos ? text_.size() : nl;
      if (at > 0 && end - at >= 3 && text_.compare(at, 3, "---") == 0 &&
          (end - at == 3 || blank(text_[at + 3])))
        starts.push_back(at);
      at = end + 1;
    }
    starts.push_back(text_.size());
    std::vector<Span> docs;
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
      const Span d{starts[k], starts[k + 1]};
      if (has_content(d)) docs.push_back(d);
    }
    for (size_t k = 0; k < docs.size(); ++k) {
      const std::string path = docs.size() == 1 ? "" : fmt::format("(document {})", k + 1);
      const Span d = docs[k];
      if (d.end - d.begin > kYamlItemsFromBytes && yaml_list_items(d, path)) continue;
      if (d.end - d.begin > kMaxKubernetesYamlDocumentBytes)
        fail_at(file_, lines_.at(d.begin), path,
                fmt::format("one YAML document of {} MiB, more than the {} MiB slicelab parses at "
                            "once (a parsed YAML document takes about 45 times its text); export "
                            "JSON (`kubectl get -o json`), read one object at a time up to {} MiB, "
                            "or split the objects into documents ('---')",
                            (d.end - d.begin) >> 20, kMaxKubernetesYamlDocumentBytes >> 20,
                            kMaxKubernetesExportBytes >> 20));
      const YamlOrigin origin = lines_.at(d.begin);
      if (read_text_ &&
          read_text_(text_.substr(d.begin, d.end - d.begin), YamlReader(file_, origin)))
        continue;
      const std::string chunk(text_.substr(d.begin, d.end - d.begin));
      std::vector<YAML::Node> nodes;
      try {
        nodes = YAML::LoadAll(chunk);
      } catch (const YAML::ParserException& e) {
        fail_at(file_, at(origin, e.mark), path, fmt::format("invalid YAML: {}", e.msg));
      }
      const YamlReader reader(file_, origin);
      for (const YAML::Node& n : nodes)
        if (n.IsDefined() && !n.IsNull()) visit_({n, reader, chunk, path});
    }
  }

 private:
  // A YAML document above this size that is a List of block items is read an item at a time.
  static constexpr uint64_t kYamlItemsFromBytes = uint64_t{1} << 20;

  // The items of the List document `d`, each parsed on its own (its text indented as it was, so
  // that its columns stay the file's); false, having visited nothing, when `d` is not a List or
  // its items are not a block sequence whose items each begin on a line of their own "- ".
  bool yaml_list_items(Span d, const std::string& path) {
    const std::string_view doc = text_.substr(d.begin, d.end - d.begin);
    YamlListScan scan;
    {
      std::istringstream in{std::string(doc)};
      YAML::Parser parser(in);
      while (parser.HandleNextDocument(scan)) {
      }
    }
    if (!scan.one_document || !scan.block_items || !scan.kind.ends_with("List") ||
        scan.starts.empty())
      return false;
    const auto line_start = [&](size_t p) {
      const size_t nl = doc.rfind('\n', p == 0 ? 0 : p - 1);
      return nl == std::string_view::npos || p == 0 ? 0 : nl + 1;
    };
    // Item k ends where the line of item k+1's "-" begins; the last where the root's next key's
    // line begins, or with the document.
    std::vector<size_t> ends;
    for (size_t k = 0; k < scan.starts.size(); ++k) {
      const size_t start = scan.starts[k];
      const std::string_view before = doc.substr(line_start(start), start - line_start(start));
      if (before.find_first_not_of(" -") != std::string_view::npos) return false;
      if (k + 1 < scan.starts.size()) {
        size_t p = scan.starts[k + 1];
        while (p > 0 && blank(doc[p - 1])) --p;
        if (p == 0 || doc[p - 1] != '-') return false;
        ends.push_back(line_start(p - 1));
      } else {
        ends.push_back(scan.after_items == std::string::npos ? doc.size()
                                                             : line_start(scan.after_items));
      }
      if (ends.back() < start) return false;
    }
    const YamlOrigin doc_origin = lines_.at(d.begin);
    const std::string items = join_path(path, "items");
    for (size_t k = 0; k < scan.starts.size(); ++k) {
      const size_t start = scan.starts[k];
      const auto column = static_cast<size_t>(scan.start_columns[k]);
      const YamlOrigin origin{doc_origin.line + scan.start_lines[k], 0};
      const std::string item_path = index_path(items, k);
      if (ends[k] - start > kMaxKubernetesObjectBytes)
        fail_at(file_, {origin.line, static_cast<int>(column)}, item_path,
                fmt::format("one object of {} MiB, more than the {} MiB slicelab parses at once "
                            "(the API server stores objects of at most 1.5 MiB)",
                            (ends[k] - start) >> 20, kMaxKubernetesObjectBytes >> 20));
      const std::string chunk =
          std::string(column, ' ') + std::string(doc.substr(start, ends[k] - start));
      if (read_text_ && read_text_(chunk, YamlReader(file_, origin))) continue;
      YAML::Node node;
      try {
        node = YAML::Load(chunk);
      } catch (const YAML::ParserException& e) {
        fail_at(file_, at(origin, e.mark), item_path, fmt::format("invalid YAML: {}", e.msg));
      }
      const YamlReader reader(file_, origin);
      visit_({node, reader, chunk, item_path});
    }
    return true;
  }

  // A document that holds more than blank lines, comments and markers.
  bool has_content(Span d) const {
    for (size_t at = d.begin; at < d.end;) {
      size_t nl = text_.find('\n', at);
      if (nl == std::string_view::npos || nl > d.end) nl = d.end;
      std::string_view line = text_.substr(at, nl - at);
      if (line.starts_with("---")) line.remove_prefix(3);
      const size_t first = line.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && line[first] != '#' &&
          line.substr(first).find_first_not_of('.') != std::string_view::npos)
        return true;
      at = nl + 1;
    }
    return false;
  }

  static YamlOrigin at(YamlOrigin origin, const YAML::Mark& m) {
    if (m.is_null()) return origin;
    return {origin.line + m.line, m.line == 0 ? origin.column + m.column : m.column};
  }

  bool check(Span v) {
    const std::string_view t = text_.substr(v.begin, v.end - v.begin);
    const char* seen = t.data();
    const CountingIterator first(t.data(), &seen);
    const CountingIterator last(t.data() + t.size(), &seen);
    check_ = JsonCheck();
    const bool ok = nlohmann::json::sax_parse(first, last, &check_);
    check_seen_ = static_cast<size_t>(seen - t.data());
    return ok && check_.message().empty();
  }
  [[noreturn]] void fail_json(Span v) {
    (void)check(v);
    size_t offset = check_.error_at().value_or(check_seen_ > 0 ? check_seen_ - 1 : 0);
    offset = std::min(v.begin + offset, text_.size());
    const std::string what =
        check_.message().empty() ? std::string("not valid JSON") : check_.message();
    fail_at(file_, lines_.at(offset), "top level", fmt::format("invalid JSON: {}", what));
  }

  // One checked top-level value: a List's items, an array's elements, or the value itself.
  void value(Span v, const std::string& prefix) {
    if (text_[v.begin] == '[') {
      const std::vector<Span> elements = json_elements(text_, v.begin);
      for (size_t k = 0; k < elements.size(); ++k) object(elements[k], index_path(prefix, k));
      return;
    }
    const auto members = json_members(text_, v.begin);
    std::optional<Span> kind, items;
    std::unordered_set<std::string> keys;
    for (const auto& [key, val] : members) {
      const std::string name = json_string(text_, key);
      if (!keys.insert(name).second)
        fail_at(file_, lines_.at(key.begin), prefix, fmt::format("duplicate key '{}'", name));
      if (name == "kind") kind = val;
      if (name == "items") items = val;
    }
    const bool list =
        kind && text_[kind->begin] == '"' && json_string(text_, *kind).ends_with("List");
    if (!list) {
      object(v, prefix);
      return;
    }
    const std::string path = join_path(prefix, "items");
    if (!items || text_.compare(items->begin, 4, "null") == 0) return;  // "items": null
    if (text_[items->begin] != '[')
      fail_at(file_, lines_.at(items->begin), path, "expected a list of objects");
    const std::vector<Span> elements = json_elements(text_, items->begin);
    for (size_t k = 0; k < elements.size(); ++k) object(elements[k], index_path(path, k));
  }

  void object(Span o, const std::string& path) {
    const YamlOrigin origin = lines_.at(o.begin);
    if (o.end - o.begin > kMaxKubernetesObjectBytes)
      fail_at(file_, origin, path,
              fmt::format("one object of {} MiB, more than the {} MiB slicelab parses at once "
                          "(the API server stores objects of at most 1.5 MiB)",
                          (o.end - o.begin) >> 20, kMaxKubernetesObjectBytes >> 20));
    const std::string chunk(text_.substr(o.begin, o.end - o.begin));
    YAML::Node node;
    try {
      node = YAML::Load(chunk);
    } catch (const YAML::ParserException& e) {
      // Valid JSON that yaml-cpp cannot read: a key longer than YAML's 1024 characters.
      fail_at(file_, at(origin, e.mark), path, fmt::format("cannot be read: {}", e.msg));
    }
    const YamlReader reader(file_, origin);
    refuse_duplicate_keys(node, reader, path);
    visit_({node, reader, chunk, path});
  }

  const std::string& file_;
  const std::string& whole_;
  std::string_view text_;
  LineCounter lines_;
  const std::function<void(const KubeExportObject&)>& visit_;
  const KubeYamlTextReader& read_text_;
  JsonCheck check_;
  size_t check_seen_ = 0;
};

}  // namespace

void read_kubernetes_export(const std::string& path,
                            const std::function<void(const KubeExportObject&)>& visit,
                            const KubeYamlTextReader& read_text) {
  const std::string text = read_text_file(path, kMaxKubernetesExportBytes);
  check_utf8(text, path);
  ExportReader reader(path, text, visit, read_text);
  const size_t first = skip_blank(text, 0);
  if (first < text.size() && (text[first] == '{' || text[first] == '[')) {
    if (reader.json()) return;
    // Not JSON: YAML in flow style (`{kind: List}`) is read as YAML; for anything else, JSON's
    // error says more than YAML's.
    if (text.size() > kMaxKubernetesYamlDocumentBytes || !reader.yaml_syntax_ok())
      reader.fail_first_json_value();
  }
  reader.yaml();
}

}  // namespace slicelab
