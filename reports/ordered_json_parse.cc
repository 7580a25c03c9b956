#include "reports/ordered_json_parse.h"

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace slicelab {
namespace {

using ojson = nlohmann::ordered_json;

// nlohmann's SAX interface, building the document with an explicit stack. A key is appended to
// its object without a lookup; a per-object hash of the keys seen finds a repeat, which then
// replaces the earlier value as nlohmann's parser does.
class LinearBuilder {
 public:
  explicit LinearBuilder(ojson& root) : root_(root) {}

  bool null() { return put(ojson(nullptr)); }
  bool boolean(bool v) { return put(ojson(v)); }
  bool number_integer(ojson::number_integer_t v) { return put(ojson(v)); }
  bool number_unsigned(ojson::number_unsigned_t v) { return put(ojson(v)); }
  bool number_float(ojson::number_float_t v, const std::string& /*text*/) { return put(ojson(v)); }
  bool string(std::string& v) { return put(ojson(std::move(v))); }
  bool binary(ojson::binary_t& v) { return put(ojson::binary(std::move(v))); }
  bool start_object(std::size_t /*size*/) {
    open(put_ref(ojson::object()));
    return true;
  }
  bool key(std::string& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) {
    open(put_ref(ojson::array()));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    // Rethrown as the type nlohmann's own parser throws: a number too large for a double is
    // its out_of_range.406, which callers catch as such.
    if (const auto* pe = dynamic_cast<const ojson::parse_error*>(&e)) throw *pe;
    if (const auto* oe = dynamic_cast<const ojson::out_of_range*>(&e)) throw *oe;
    throw ojson::other_error::create(500, e.what(), nullptr);
  }

 private:
  struct Open {
    ojson* value;
    std::unordered_map<std::string, size_t> keys;  // objects only: key -> index
  };

  bool put(ojson v) {
    put_ref(std::move(v));
    return true;
  }
  // Places v in the innermost open container (or as the root); returns where it now lives.
  // The address stays valid while v is open, since its parent grows only after v closes.
  ojson* put_ref(ojson v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Open& top = stack_.back();
    if (top.value->is_array()) {
      auto& a = top.value->get_ref<ojson::array_t&>();
      a.push_back(std::move(v));
      return &a.back();
    }
    auto& o = top.value->get_ref<ojson::object_t&>();
    if (const auto [it, fresh] = top.keys.emplace(key_, o.size()); !fresh) {
      auto& slot = (o.begin() + static_cast<std::ptrdiff_t>(it->second))->second;
      slot = std::move(v);
      return &slot;
    }
    // ordered_map is a vector of pairs: append directly, as its operator[] would after a
    // linear search.
    o.Container::emplace_back(std::move(key_), std::move(v));
    return &o.back().second;
  }
  void open(ojson* v) { stack_.push_back({v, {}}); }

  ojson& root_;
  std::vector<Open> stack_;
  std::string key_;
};

}  // namespace

ojson parse_ordered_json(std::string_view text) {
  ojson root;
  LinearBuilder builder(root);
  ojson::sax_parse(text.begin(), text.end(), &builder);
  return root;
}

}  // namespace slicelab
