#include "workloads/bounded_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/counting_iterator.h"

namespace slicelab {
namespace {

using nlohmann::json;

// What each kind of value is charged (libstdc++, 64-bit): the json node itself; a heap
// std::string with malloc's header; a std::vector or std::map object; per array element the
// vector's spare capacity (up to one more node); per object member the map node with its key.
// And per array element and per object member, what destroying the document takes: nlohmann's
// destructor moves a container's elements onto a vector of its own that grows by doubling, up to
// three nodes per element while it moves to twice its size, the container still held. Without
// that share an array of 1.1 million empty objects took 1.29 times its charge when the budget
// refused it and 1.46 times when it was parsed and destroyed, and an object of 1.1 million
// members 1.23 and 1.27 times (BoundedJsonHeap.*).
constexpr std::size_t kNode = sizeof(json);
constexpr std::size_t kDestroying = 3 * sizeof(json);
constexpr std::size_t kString = 48;
constexpr std::size_t kArray = 40;
constexpr std::size_t kArraySlack = sizeof(json) + kDestroying;
constexpr std::size_t kObject = 64;
constexpr std::size_t kMember = 96 + kDestroying;

std::size_t string_bytes(const std::string& s) {
  return kString + (s.size() > 15 ? s.size() + 1 : 0);
}

// Builds the document as nlohmann's own DOM parser does (a stack of open containers), refusing
// depth and memory past the limits at the callback that would pass them.
// With taps (JsonStringArrayTaps), an array of strings under a tapped member of the root object
// is collected into the tap instead; the first value in it that is not a string turns it back into
// a document array (the strings so far moved in), and parsing goes on as if it always was one.
class BoundedDomBuilder final : public nlohmann::json_sax<json> {
 public:
  BoundedDomBuilder(json& root, std::size_t max_depth, std::size_t max_bytes, BudgetCharge* charge,
                    JsonStringArrayTaps* taps = nullptr)
      : root_(root), max_depth_(max_depth), max_bytes_(max_bytes), charge_(charge), taps_(taps) {}

  bool null() override { return untap() && add(json(nullptr), kNode); }
  bool boolean(bool v) override { return untap() && add(json(v), kNode); }
  bool number_integer(number_integer_t v) override { return untap() && add(json(v), kNode); }
  bool number_unsigned(number_unsigned_t v) override { return untap() && add(json(v), kNode); }
  bool number_float(number_float_t v, const string_t& /*text*/) override {
    return untap() && add(json(v), kNode);
  }
  bool string(string_t& v) override {
    const std::size_t bytes = kNode + string_bytes(v);
    if (tapping_ != nullptr) {
      // As add() charges an array element.
      if (!charge(bytes + kArraySlack)) return false;
      tapping_->push_back(std::move(v));
      return true;
    }
    untap_member();
    return add(json(std::move(v)), bytes);
  }
  bool binary(binary_t& /*v*/) override { return fail(JsonFailure::kSyntax, "binary values"); }
  bool start_object(std::size_t /*elements*/) override {
    return untap() && open(json::object(), kObject);
  }
  bool key(string_t& k) override {
    if (!charge(kMember + (k.size() > 15 ? k.size() + 1 : 0))) return false;
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t /*elements*/) override {
    if (!untap()) return false;
    if (const auto tap = tapped_member(); tap.has_value()) {
      // As open() checks and charges an array under an object member.
      if (stack_.size() >= max_depth_) {
        return fail(JsonFailure::kTooDeep,
                    fmt::format("nesting deeper than {} levels", max_depth_));
      }
      if (!charge(kNode + kArray)) return false;
      root_.get_ref<json::object_t&>().erase(key_);  // the last one wins
      taps_->arrays[*tap].emplace();
      tapping_ = &*taps_->arrays[*tap];
      tapping_key_ = key_;
      return true;
    }
    return open(json::array(), kArray);
  }
  bool end_array() override {
    if (tapping_ != nullptr) {
      tapping_ = nullptr;
      return true;
    }
    return close();
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    failure_ = JsonFailure::kSyntax;
    message_ = ex.what();
    error_offset_ = position == 0 ? 0 : position - 1;
    return false;
  }

  std::optional<JsonFailure> failure() const { return failure_; }
  const std::string& message() const { return message_; }
  std::optional<std::size_t> error_offset() const { return error_offset_; }

 private:
  bool fail(JsonFailure f, std::string message) {
    failure_ = f;
    message_ = std::move(message);
    return false;
  }
  bool charge(std::size_t bytes) {
    used_ += bytes;
    if (used_ > max_bytes_) {
      return fail(JsonFailure::kTooLarge,
                  fmt::format("the document would take more than {} bytes of memory", max_bytes_));
    }
    if (charge_ == nullptr) return true;
    pending_ += bytes;
    return pending_ < charge_batch_ || flush();
  }

 public:
  // Charges the shared budget in batches of at most `bytes` (the fast path: one atomic update
  // per batch instead of per value; the full parse charges every value).
  void batch_charges(std::size_t bytes) { charge_batch_ = bytes; }
  // What is still to be charged, charged now.
  bool flush() {
    if (charge_ == nullptr || pending_ == 0) return true;
    const std::size_t bytes = pending_;
    pending_ = 0;
    if (!charge_->try_add(bytes)) {
      return fail(JsonFailure::kTooLarge, "the shared memory budget for parsing is spent");
    }
    return true;
  }

 private:
  // Places `value` in the open container (or as the root); returns where it went.
  json* place(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.get_ref<json::array_t&>().push_back(std::move(value));
      return &parent.get_ref<json::array_t&>().back();
    }
    json& slot = parent.get_ref<json::object_t&>()[key_];
    slot = std::move(value);
    return &slot;
  }
  bool add(json&& value, std::size_t bytes) {
    if (!stack_.empty() && stack_.back()->is_array()) bytes += kArraySlack;
    if (!charge(bytes)) return false;
    place(std::move(value));
    return true;
  }
  bool open(json&& container, std::size_t bytes) {
    if (stack_.size() >= max_depth_) {
      return fail(JsonFailure::kTooDeep, fmt::format("nesting deeper than {} levels", max_depth_));
    }
    if (!stack_.empty() && stack_.back()->is_array()) bytes += kArraySlack;
    if (!charge(kNode + bytes)) return false;
    stack_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  // The tap a value starting now goes to: a member of the root object with a tapped key.
  std::optional<std::size_t> tapped_member() const {
    if (taps_ == nullptr || stack_.size() != 1 || !root_.is_object()) return std::nullopt;
    for (std::size_t i = 0; i < taps_->keys.size(); ++i)
      if (taps_->keys[i] == key_) return i;
    return std::nullopt;
  }
  // A value other than an array under a tapped key goes to the document: an earlier array under
  // that key is forgotten (the last one wins).
  void untap_member() {
    if (const auto tap = tapped_member(); tap.has_value()) taps_->arrays[*tap].reset();
  }
  // A value that is not a string inside a tapped array: the array becomes the document's, its
  // strings moved in (already charged), and the value goes into it.
  bool untap() {
    if (tapping_ == nullptr) {
      if (taps_ != nullptr && stack_.size() == 1) untap_member();
      return true;
    }
    json array = json::array();
    auto& items = array.get_ref<json::array_t&>();
    items.reserve(tapping_->size());
    for (std::string& s : *tapping_) items.emplace_back(std::move(s));
    for (std::size_t i = 0; i < taps_->keys.size(); ++i)
      if (taps_->keys[i] == tapping_key_) taps_->arrays[i].reset();
    tapping_ = nullptr;
    key_ = tapping_key_;
    stack_.push_back(place(std::move(array)));
    return true;
  }

  json& root_;
  std::size_t max_depth_;
  std::size_t max_bytes_;
  BudgetCharge* charge_;
  JsonStringArrayTaps* taps_;
  std::vector<std::string>* tapping_ = nullptr;  // the tap an open array goes to
  std::string tapping_key_;
  std::vector<json*> stack_;
  std::string key_;
  std::size_t used_ = 0;
  std::size_t pending_ = 0;       // charged to used_, not yet to charge_
  std::size_t charge_batch_ = 0;  // see batch_charges()
  std::optional<JsonFailure> failure_;
  std::string message_;
  std::optional<std::size_t> error_offset_;
};

// The fast path for a root object with tapped arrays (a request's NodeNames): the root's
// structure and the tapped arrays' strings are scanned in place, each other member's value is
// handed to nlohmann's parser on its own, and the builder receives exactly the events a parse of
// the whole text would give it. Only text it is sure of takes this path: strings (keys and tapped
// items) of printable ASCII without escapes, JSON whitespace, and a value for every other member
// that nlohmann parses in full. Anything else (an escape, a non-ASCII byte, a syntax error, a
// limit) returns false, and the caller parses the whole text the ordinary way, which then gives
// the exact document or error.
// The fast path holds at most this much parsed memory not yet charged to the shared budget. A
// batch the budget cannot take falls back to the full parse, which charges value by value and so
// fails, or not, exactly where it always did.
constexpr std::size_t kFastPathChargeBatch = std::size_t{16} << 10;

class FastScan {
 public:
  explicit FastScan(std::string_view text) : t_(text) {}

  bool run(BoundedDomBuilder& b, const JsonStringArrayTaps& taps) {
    ws();
    if (!eat('{') || !b.start_object(kUnknownSize)) return false;
    ws();
    if (!eat('}')) {
      for (;;) {
        const auto key = plain_string();
        if (!key) return false;
        ws();
        if (!eat(':')) return false;
        ws();
        std::string k(*key);
        if (!b.key(k)) return false;
        const bool tapped = std::find(taps.keys.begin(), taps.keys.end(), *key) != taps.keys.end();
        if (tapped && peek('[')) {
          if (!string_array(b)) return false;
        } else if (!other_value(b)) {
          return false;
        }
        ws();
        if (eat(',')) {
          ws();
          continue;
        }
        if (eat('}')) break;
        return false;
      }
    }
    if (!b.end_object()) return false;
    ws();
    return i_ == t_.size() && !b.failure();
  }

 private:
  static constexpr std::size_t kUnknownSize = static_cast<std::size_t>(-1);

  bool peek(char c) const { return i_ < t_.size() && t_[i_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++i_;
    return true;
  }
  void ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  // A string of printable ASCII without escapes (its text is its value); nullopt otherwise.
  std::optional<std::string_view> plain_string() {
    if (!eat('"')) return std::nullopt;
    const std::size_t begin = i_;
    for (; i_ < t_.size(); ++i_) {
      const auto c = static_cast<unsigned char>(t_[i_]);
      if (c == '"') return t_.substr(begin, i_++ - begin);
      if (c < 0x20 || c >= 0x7f || c == '\\') return std::nullopt;
    }
    return std::nullopt;
  }
  bool string_array(BoundedDomBuilder& b) {
    ++i_;  // '['
    if (!b.start_array(kUnknownSize)) return false;
    ws();
    if (!eat(']')) {
      for (;;) {
        const auto item = plain_string();
        if (!item) return false;
        std::string value(*item);
        if (!b.string(value)) return false;
        ws();
        if (eat(',')) {
          ws();
          continue;
        }
        if (eat(']')) break;
        return false;
      }
    }
    return b.end_array();
  }
  // One member's value, parsed by nlohmann: its extent is found by brackets and quotes only, the
  // parser then checks all of it (a wrong extent fails there).
  bool other_value(BoundedDomBuilder& b) {
    const std::size_t begin = i_;
    if (!skip_value()) return false;
    const bool ok = json::sax_parse(t_.data() + begin, t_.data() + i_, &b);
    return ok && !b.failure();
  }
  bool skip_string() {
    ++i_;  // '"'
    for (; i_ < t_.size(); ++i_) {
      if (t_[i_] == '\\') {
        ++i_;
      } else if (t_[i_] == '"') {
        ++i_;
        return true;
      }
    }
    return false;
  }
  bool skip_value() {
    if (i_ >= t_.size()) return false;
    const char first = t_[i_];
    if (first == '"') return skip_string();
    if (first == '{' || first == '[') {
      std::size_t depth = 0;
      while (i_ < t_.size()) {
        const char c = t_[i_];
        if (c == '"') {
          if (!skip_string()) return false;
          continue;
        }
        ++i_;
        if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return true;
        }
      }
      return false;
    }
    const std::size_t begin = i_;
    while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ']' && t_[i_] != ' ' &&
           t_[i_] != '\n' && t_[i_] != '\r' && t_[i_] != '\t')
      ++i_;
    return i_ > begin;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

}  // namespace

bool MemoryBudget::try_charge(std::size_t bytes) {
  std::size_t used = used_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ || used > limit_ - bytes) return false;
  } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

void MemoryBudget::release(std::size_t bytes) {
  used_.fetch_sub(bytes, std::memory_order_relaxed);
}

bool BudgetCharge::try_add(std::size_t bytes) {
  if (!budget_->try_charge(bytes)) return false;
  bytes_ += bytes;
  return true;
}

json parse_bounded_json(std::string_view text, const JsonLimits& limits) {
  JsonStringArrayTaps none;
  return parse_bounded_json(text, limits, none);
}

json parse_bounded_json(std::string_view text, const JsonLimits& limits,
                        JsonStringArrayTaps& taps) {
  taps.arrays.assign(taps.keys.size(), std::nullopt);
  std::size_t max_bytes = limits.max_document_bytes;
  if (max_bytes == 0) {
    max_bytes = text.size() > std::numeric_limits<std::size_t>::max() / kDefaultMemoryFactor
                    ? std::numeric_limits<std::size_t>::max()
                    : (text.size() + 1) * kDefaultMemoryFactor;
  }
  if (!taps.keys.empty()) {
    // The fast path charges the shared budget as it goes (in batches), but to a charge of its own:
    // kept when it succeeds, given back when it falls back to the full parse below, which then
    // charges as if the fast path had never run.
    std::optional<BudgetCharge> scratch;
    if (limits.charge != nullptr) scratch.emplace(limits.charge->budget());
    json root;
    BoundedDomBuilder builder(root, limits.max_depth, max_bytes, scratch ? &*scratch : nullptr,
                              &taps);
    builder.batch_charges(kFastPathChargeBatch);
    if (FastScan(text).run(builder, taps) && builder.flush()) {
      if (scratch) limits.charge->absorb(*scratch);
      return root;
    }
    taps.arrays.assign(taps.keys.size(), std::nullopt);
  }
  json root;
  BoundedDomBuilder builder(root, limits.max_depth, max_bytes, limits.charge,
                            taps.keys.empty() ? nullptr : &taps);
  const char* seen = text.data();
  const CountingIterator first(text.data(), &seen);
  const CountingIterator last(text.data() + text.size(), &seen);
  const bool ok = json::sax_parse(first, last, &builder);
  if (ok && !builder.failure()) return root;
  const JsonFailure failure = builder.failure().value_or(JsonFailure::kSyntax);
  std::size_t offset = builder.error_offset().value_or(
      static_cast<std::size_t>(seen - text.data()) - (seen > text.data() ? 1 : 0));
  if (offset > text.size()) offset = text.size();
  std::string message =
      builder.message().empty() ? std::string("not valid JSON") : builder.message();
  throw JsonLimitError(failure, offset, message);
}

std::size_t estimated_json_bytes(const json& value) {
  // Iterative, as the document may be as deep as its limits allow.
  std::size_t total = 0;
  std::vector<std::pair<const json*, bool>> todo{{&value, false}};
  while (!todo.empty()) {
    const auto [v, in_array] = todo.back();
    todo.pop_back();
    total += kNode + (in_array ? kArraySlack : 0);
    if (v->is_string()) {
      total += string_bytes(v->get_ref<const std::string&>());
    } else if (v->is_array()) {
      total += kArray;
      for (const json& item : *v) todo.emplace_back(&item, true);
    } else if (v->is_object()) {
      total += kObject;
      for (const auto& [k, item] : v->items()) {
        total += kMember + (k.size() > 15 ? k.size() + 1 : 0);
        todo.emplace_back(&item, false);
      }
    }
  }
  return total;
}

}  // namespace slicelab
