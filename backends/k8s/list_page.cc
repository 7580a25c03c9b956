// read_list_page (list_page.h): the skimming SAX pass and the bounded parse of each item.
#include "backends/k8s/list_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "workloads/bounded_json.h"
#include "workloads/counting_iterator.h"

namespace slicelab::k8s {
namespace {

using nlohmann::json;

// Follows the nesting only: nlohmann's SAX parser keeps its own stack of open containers as one
// bit each, so even a page of nothing but '[' costs an eighth of its size here.
class PageSkimmer final : public nlohmann::json_sax<json> {
 public:
  PageSkimmer(std::string_view text, const char* const* seen, const ListPageLimits& limits,
              const std::function<bool(json&&)>& on_item,
              const std::function<void(const std::string&)>& on_rejected)
      : text_(text), seen_(seen), limits_(limits), on_item_(on_item), on_rejected_(on_rejected) {}

  bool null() override { return scalar(std::nullopt, true); }
  bool boolean(bool /*v*/) override { return scalar(std::nullopt, false); }
  bool number_integer(number_integer_t /*v*/) override { return scalar(std::nullopt, false); }
  bool number_unsigned(number_unsigned_t /*v*/) override { return scalar(std::nullopt, false); }
  bool number_float(number_float_t /*v*/, const string_t& /*text*/) override {
    return scalar(std::nullopt, false);
  }
  bool string(string_t& v) override { return scalar(std::move(v), false); }
  bool binary(binary_t& /*v*/) override { return fail("a binary value"); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      top_key_ = std::move(k);
    } else if (depth_ == 2 && in_meta_) {
      meta_key_ = std::move(k);
    }
    return true;
  }
  bool start_object(std::size_t /*elements*/) override { return open(true); }
  bool start_array(std::size_t /*elements*/) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    error_ =
        fmt::format("not a List: {} (at byte {})", ex.what(), position == 0 ? 0 : position - 1);
    return false;
  }

  const std::optional<std::string>& error() const { return error_; }
  bool stopped() const { return stopped_; }
  bool items_seen() const { return items_seen_; }
  ListPageInfo& info() { return info_; }

 private:
  size_t offset() const { return static_cast<size_t>(*seen_ - text_.data()); }
  bool fail(const std::string& what) {
    error_ = fmt::format("not a List: {} (at byte {})", what, offset() == 0 ? 0 : offset() - 1);
    return false;
  }
  bool scalar(std::optional<std::string> text, bool is_null) {
    if (depth_ == 0) return fail("the page is not a JSON object");
    if (depth_ == 1 && top_key_ == "items") {
      if (!is_null) return fail("items is not a list");
      items_seen_ = true;
    } else if (depth_ == 2 && in_meta_ && text) {
      if (meta_key_ == "resourceVersion") info_.resource_version = std::move(*text);
      if (meta_key_ == "continue") info_.continue_token = std::move(*text);
    } else if (depth_ == 2 && in_items_) {
      reject("an item is not an object");
    }
    return true;
  }
  bool open(bool object) {
    if (depth_ == 0 && !object) return fail("the page is not a JSON object");
    if (depth_ == 1 && top_key_ == "items") {
      if (object) return fail("items is not a list");
      in_items_ = true;
      items_seen_ = true;
    } else if (depth_ == 1 && top_key_ == "metadata" && object) {
      in_meta_ = true;
    } else if (depth_ == 2 && in_items_) {
      item_start_ = offset() - 1;  // the item's '{' or '['
      item_is_object_ = object;
    }
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    if (depth_ == 2 && in_items_) return item_done();
    if (depth_ == 1) in_items_ = in_meta_ = false;
    return true;
  }
  void reject(const std::string& why) {
    ++info_.rejected;
    on_rejected_(fmt::format("items[{}]: {}", item_index_++, why));
  }
  bool item_done() {
    if (!item_is_object_) {
      reject("an item is not an object");
      return true;
    }
    const std::string_view item = text_.substr(item_start_, offset() - item_start_);
    JsonLimits bounds;
    bounds.max_depth = limits_.max_depth;
    bounds.max_document_bytes =
        std::min(limits_.max_item_bytes, (item.size() + 1) * kDefaultMemoryFactor);
    json parsed;
    try {
      parsed = parse_bounded_json(item, bounds);
    } catch (const JsonLimitError& e) {
      reject(fmt::format("{} (at byte {} of the page)", e.what(), item_start_ + e.offset()));
      return true;
    }
    ++item_index_;
    ++info_.items;
    if (!on_item_(std::move(parsed))) {
      stopped_ = true;
      return false;
    }
    return true;
  }

  std::string_view text_;
  const char* const* seen_;
  const ListPageLimits& limits_;
  const std::function<bool(json&&)>& on_item_;
  const std::function<void(const std::string&)>& on_rejected_;
  size_t depth_ = 0;
  std::string top_key_, meta_key_;
  bool in_items_ = false, in_meta_ = false, items_seen_ = false;
  size_t item_start_ = 0;
  bool item_is_object_ = false;
  size_t item_index_ = 0;
  bool stopped_ = false;
  std::optional<std::string> error_;
  ListPageInfo info_;
};

}  // namespace

ListPageInfo read_list_page(std::string_view text, const ListPageLimits& limits,
                            const std::function<bool(json&&)>& on_item,
                            const std::function<void(const std::string&)>& on_rejected) {
  const char* seen = text.data();
  PageSkimmer skimmer(text, &seen, limits, on_item, on_rejected);
  const CountingIterator first(text.data(), &seen);
  const CountingIterator last(text.data() + text.size(), &seen);
  const bool ok = json::sax_parse(first, last, &skimmer);
  if (skimmer.stopped()) return std::move(skimmer.info());
  if (!ok || skimmer.error()) {
    throw ListPageError(skimmer.error().value_or("not a List: not valid JSON"));
  }
  if (!skimmer.items_seen()) throw ListPageError("not a List: the page has no items list");
  return std::move(skimmer.info());
}

}  // namespace slicelab::k8s
