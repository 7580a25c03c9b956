#include "workloads/yaml_syntax_check.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

// Follows the event stream with a stack of the open mappings and lists, enough to name the
// field where something is wrong ("workload.pods[3]") the way YamlReader names it.
class SyntaxChecker : public YAML::EventHandler {
 public:
  SyntaxChecker(const std::string& path, bool many_documents)
      : path_(path), many_documents_(many_documents) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp can restart an empty document at the same place forever on some malformed text
    // (a fuzz finding: ",ind: Node\nm\"x\"R}"); a stream must move on.
    if (documents_ > 0 && mark.pos == last_document_pos_)
      fail(mark, "top level", "invalid YAML: the parser cannot get past this point");
    last_document_pos_ = mark.pos;
    if (++documents_ > 1 && !many_documents_)
      fail(mark, "top level",
           "a second YAML document ('---' after the first); a file holds one document");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    leaf(mark, anchor, nullptr);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override {
    fail(mark, path_here(),
         "YAML aliases ('*name') are not supported; write the value out where it is needed");
  }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& value) override {
    leaf(mark, anchor, &value);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    fail(mark, path_here(),
         fmt::format("YAML anchors ('&{}') are not supported; write the value out where it is "
                     "needed",
                     name));
  }

 private:
  struct Frame {
    bool map = false;
    bool at_key = true;                         // in a mapping: the next node is a key
    size_t index = 0;                           // in a list: the next item's index
    std::string key;                            // in a mapping: the key whose value comes next
    std::unordered_map<std::string, int> keys;  // in a mapping: key -> its line (0-based)
  };

  [[noreturn]] void fail(const YAML::Mark& mark, std::string_view field,
                         std::string_view what) const {
    throw InputError(fmt::format("{}:{}:{}: {}: {}", path_, mark.line + 1, mark.column + 1,
                                 field.empty() ? "top level" : field, what));
  }

  // The field of the node that comes next; `with_top` false gives the enclosing mapping's field
  // (where a duplicate key is reported).
  std::string path_here(bool with_top = true) const {
    std::string p;
    for (size_t i = 0; i < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      const bool top = i + 1 == stack_.size();
      if (top && !with_top) break;
      if (f.map) {
        if (f.at_key) break;  // a key's own field is its mapping's
        p = p.empty() ? f.key : fmt::format("{}.{}", p, f.key);
      } else {
        p += fmt::format("[{}]", f.index);
      }
    }
    return p;
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t /*anchor*/, const std::string* scalar) {
    if (!stack_.empty() && stack_.back().map && stack_.back().at_key) {
      Frame& f = stack_.back();
      // A null key reads as "" through yaml-cpp, as here.
      const std::string key = scalar ? *scalar : std::string();
      const auto [it, fresh] = f.keys.emplace(key, mark.line);
      if (!fresh)
        fail(mark, path_here(false),
             fmt::format("duplicate key '{}' (also on line {})", key, it->second + 1));
      f.key = key;
    }
    done();
  }

  void open(const YAML::Mark& mark, YAML::anchor_t /*anchor*/, bool map) {
    if (static_cast<int>(stack_.size()) >= kMaxYamlDepth)
      fail(mark, path_here(),
           fmt::format("nested deeper than {} levels of mappings and lists", kMaxYamlDepth));
    // A mapping or list as a key (YAML allows it, no slicelab field uses it) has no name.
    if (!stack_.empty() && stack_.back().map && stack_.back().at_key)
      stack_.back().key = "(complex key)";
    Frame f;
    f.map = map;
    stack_.push_back(std::move(f));
  }

  void close() {
    stack_.pop_back();
    done();
  }

  // One node of the enclosing mapping or list is complete.
  void done() {
    if (stack_.empty()) return;
    Frame& f = stack_.back();
    if (f.map)
      f.at_key = !f.at_key;
    else
      ++f.index;
  }

  const std::string& path_;
  bool many_documents_;
  int last_document_pos_ = -1;
  std::vector<Frame> stack_;
  int documents_ = 0;
};

}  // namespace

void check_yaml_syntax(const std::string& text, const std::string& path, bool many_documents) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  SyntaxChecker checker(path, many_documents);
  while (parser.HandleNextDocument(checker)) {
  }
}

}  // namespace slicelab
