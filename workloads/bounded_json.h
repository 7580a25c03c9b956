// JSON parsing for input that may be hostile (request bodies, watch events, list pages, files):
// the nesting depth is enforced while parsing and the parsed document's memory is bounded.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

// Memory shared by concurrent parses (a server's requests in flight): each parse charges what
// its document takes, and a parse that would pass the limit fails as kTooLarge. Thread-safe.
class MemoryBudget {
 public:
  explicit MemoryBudget(std::size_t limit_bytes) : limit_(limit_bytes) {}
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;
  // Takes `bytes` if they fit under the limit; false (and nothing taken) if not.
  bool try_charge(std::size_t bytes);
  void release(std::size_t bytes);
  std::size_t used() const { return used_.load(std::memory_order_relaxed); }
  std::size_t limit() const { return limit_; }

 private:
  std::atomic<std::size_t> used_{0};
  const std::size_t limit_;
};

// What one holder took from a MemoryBudget; gives it back when destroyed. Keep it alive as long
// as the parsed document.
class BudgetCharge {
 public:
  explicit BudgetCharge(MemoryBudget& budget) : budget_(&budget) {}
  ~BudgetCharge() { budget_->release(bytes_); }
  BudgetCharge(const BudgetCharge&) = delete;
  BudgetCharge& operator=(const BudgetCharge&) = delete;
  bool try_add(std::size_t bytes);
  std::size_t bytes() const { return bytes_; }
  MemoryBudget& budget() const { return *budget_; }
  // Takes over what `other` (a charge to the same budget) holds: given back with this one.
  void absorb(BudgetCharge& other) {
    bytes_ += other.bytes_;
    other.bytes_ = 0;
  }

 private:
  MemoryBudget* budget_;
  std::size_t bytes_ = 0;
};

struct JsonLimits {
  // Containers nested deeper than this are refused as soon as the parser reaches them, before
  // any recursive code (a copy, a conversion, a destructor) can see the document. Kubernetes
  // objects nest about 12 deep; 64 leaves room for any real object.
  std::size_t max_depth = 64;
  // An estimate of the heap the parsed document takes (see estimated_json_bytes()); 0 means
  // kDefaultMemoryFactor times the input's size. Past it the parse stops.
  std::size_t max_document_bytes = 0;
  // Also charged to this shared budget, when given: the parse fails as kTooLarge when the
  // budget is spent, and the charge stays with `charge` (parse_bounded_json's argument).
  BudgetCharge* charge = nullptr;
};

// The parsed document never takes more than this multiple of the text's size by default: it is
// above the densest input, an array of empty objects (144 bytes charged per 3 of text: node,
// array slack, map), so that no valid object is refused; an array of one-digit numbers charges
// 80 per 2, an object's member with an empty key 160 per 5. It bounds what a crafted document
// can take.
inline constexpr std::size_t kDefaultMemoryFactor = 56;

enum class JsonFailure {
  kSyntax,    // not JSON (nlohmann's message, with the byte offset)
  kTooDeep,   // nesting past max_depth
  kTooLarge,  // the document's estimated memory past max_document_bytes, or the shared budget spent
};

// Why a bounded parse failed, and where: `offset` is the byte offset in the text (0-based) at
// which the parser stopped.
class JsonLimitError : public std::runtime_error {
 public:
  JsonLimitError(JsonFailure failure, std::size_t offset, const std::string& message)
      : std::runtime_error(message), failure_(failure), offset_(offset) {}
  JsonFailure failure() const { return failure_; }
  std::size_t offset() const { return offset_; }

 private:
  JsonFailure failure_;
  std::size_t offset_;
};

// Parses `text` as one JSON value within `limits`; throws JsonLimitError. The result is what
// nlohmann::json::parse returns for the same text (duplicate keys: the last one wins).
nlohmann::json parse_bounded_json(std::string_view text, const JsonLimits& limits = {});

// Members of the root object whose value, an array of strings, is read straight into a
// std::vector<std::string> instead of the document: a request's thousands of node names cost no
// json node each. Everything else is as parse_bounded_json: the same charges (the array as the
// document would hold it), depth, failures and offsets; and for the same text, the document with
// each taken array put back under its key is parse_bounded_json's document. A root object whose
// keys and tapped strings are plain (printable ASCII, no escapes) is scanned in place, its other
// values parsed one by one; any other text takes the full parse, so the result is the same.
struct JsonStringArrayTaps {
  std::vector<std::string> keys;  // exact member names of the root object
  // Parallel to keys: the array read for that key (the last one, duplicates as the document's);
  // empty when the key's value is not an array of strings (then it is in the document) or absent.
  std::vector<std::optional<std::vector<std::string>>> arrays;
};
nlohmann::json parse_bounded_json(std::string_view text, const JsonLimits& limits,
                                  JsonStringArrayTaps& taps);

// The estimate parse_bounded_json charges for a value: its node (sizeof(json)) plus, for a string,
// its heap string; for an array or object, its container; for an object member, the map node and
// the key. An upper bound of what libstdc++ allocates, within a few bytes per value.
std::size_t estimated_json_bytes(const nlohmann::json& value);

}  // namespace slicelab
