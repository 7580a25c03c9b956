#include "reports/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/json_file.h"
#include "workloads/text_file.h"

namespace slicelab {

using ojson = nlohmann::ordered_json;

std::optional<JsonAt> JsonAt::member(std::string_view key) const& {
  if (!value_->is_object()) return std::nullopt;
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonAt(&*it, this, JsonStep{key, 0, false});
}

JsonAt JsonAt::element(size_t i) const& {
  return JsonAt(&(*value_)[i], this, JsonStep{{}, i, true});
}

JsonAt JsonAt::child(std::string_view key, const ojson& v) const& {
  return JsonAt(&v, this, JsonStep{key, 0, false});
}

std::vector<JsonStep> JsonAt::steps() const {
  std::vector<JsonStep> out;
  for (const JsonAt* a = this; a->parent_ != nullptr; a = a->parent_) out.push_back(a->step_);
  std::reverse(out.begin(), out.end());
  return out;
}

std::string describe_json(const ojson& v) {
  switch (v.type()) {
    case ojson::value_t::null:
      return "null";
    case ojson::value_t::object:
      return "an object";
    case ojson::value_t::array:
      return "a list";
    case ojson::value_t::string: {
      constexpr size_t kShown = 60;
      const auto& s = v.get_ref<const std::string&>();
      if (s.size() <= kShown) return v.dump();
      // Cut on a character boundary: never inside a UTF-8 sequence.
      size_t cut = kShown;
      while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
      return ojson(s.substr(0, cut)).dump() + fmt::format(" (… {} bytes)", s.size());
    }
    default:
      return v.dump();
  }
}

JsonFile::JsonFile(const std::string& path) : JsonFile(path, read_text_file(path, kMaxJsonBytes)) {}

JsonFile::JsonFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)), root_(parse_json_text(text_, path_)) {}

std::string JsonFile::where(const JsonAt& at) const {
  const std::vector<JsonStep> steps = at.steps();
  const TextPosition p = json_value_position(text_, steps);
  return fmt::format("{}:{}:{}: {}", path_, p.line, p.column, json_path_text(steps));
}

void JsonFile::fail(const JsonAt& at, std::string_view what) const {
  throw InputError(fmt::format("{}: {}", where(at), what));
}

void JsonFile::fail_expected(const JsonAt& at, std::string_view expected) const {
  fail(at, fmt::format("expected {}, found {}", expected, describe_json(at.value())));
}

void JsonFile::require_object(const JsonAt& at) const {
  if (!at->is_object()) fail_expected(at, "an object");
}

void JsonFile::require_array(const JsonAt& at) const {
  if (!at->is_array()) fail_expected(at, "a list");
}

JsonAt JsonFile::required(const JsonAt& at, std::string_view key) const {
  require_object(at);
  const auto it = at->find(key);
  if (it == at->end()) fail(at, fmt::format("missing required key '{}'", key));
  return at.child(key, *it);
}

const std::string& JsonFile::string(const JsonAt& at) const {
  if (!at->is_string()) fail_expected(at, "a string");
  return at->get_ref<const std::string&>();
}

bool JsonFile::boolean(const JsonAt& at) const {
  if (!at->is_boolean()) fail_expected(at, "true or false");
  return at->get<bool>();
}

double JsonFile::number(const JsonAt& at) const {
  if (!at->is_number()) fail_expected(at, "a number");
  const double v = at->get<double>();
  if (!std::isfinite(v)) fail_expected(at, "a finite number");
  return v;
}

uint64_t JsonFile::count(const JsonAt& at, uint64_t max) const {
  const std::string expected = max == UINT64_MAX ? std::string("a whole number of at least 0")
                                                 : fmt::format("a whole number from 0 to {}", max);
  if (at->is_number_unsigned()) {
    if (at->get<uint64_t>() > max) fail_expected(at, expected);
    return at->get<uint64_t>();
  }
  // A float that is whole ("3.0", as a seed mean rounds) is a count too.
  if (at->is_number_float()) {
    const double v = at->get<double>();
    if (std::isfinite(v) && v >= 0 && v == std::floor(v) && v <= static_cast<double>(max) &&
        v < 0x1p64)
      return static_cast<uint64_t>(v);
  }
  fail_expected(at, expected);
}

std::optional<double> JsonFile::number_or_null(const JsonAt& at) const {
  if (at->is_null()) return std::nullopt;
  if (!at->is_number()) fail_expected(at, "a number or null");
  return number(at);
}

std::optional<std::string> JsonFile::string_or_null(const JsonAt& at) const {
  if (at->is_null()) return std::nullopt;
  if (!at->is_string()) fail_expected(at, "a string or null");
  return at->get<std::string>();
}

}  // namespace slicelab
