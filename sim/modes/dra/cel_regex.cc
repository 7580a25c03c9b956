#include "sim/modes/dra/cel_regex.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace slicelab {
namespace {

// RE2's memory for one pattern: its compiled program and the automaton states it caches while
// matching. One search on kMaxCelMatchInput bytes with a program of kMaxCelRegexProgramSize
// instructions needs about a third of it; past it RE2 refuses the pattern ("pattern too large")
// or matches with its slower NFA, never by backtracking.
constexpr int64_t kRe2MaxMemBytes = int64_t{1} << 20;

}  // namespace

std::shared_ptr<const re2::RE2> CelRegexCache::compile(const std::string& pattern,
                                                       std::string& error) {
  if (pattern.size() > kMaxCelRegexBytes) {
    error = fmt::format("pattern longer than {} bytes", kMaxCelRegexBytes);
    return nullptr;
  }
  if (const auto it = compiled_.find(pattern); it != compiled_.end()) return it->second;
  if (compiled_.size() >= kMaxCelRegexPatterns) {
    error = fmt::format("more than {} distinct patterns among the selectors (docs/dra.md#cel)",
                        kMaxCelRegexPatterns);
    return nullptr;
  }
  re2::RE2::Options options;
  options.set_log_errors(false);  // the error is returned to the caller, not printed
  options.set_max_mem(kRe2MaxMemBytes);
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (re->error_code() == re2::RE2::ErrorPatternTooLarge) {
    error = fmt::format(
        "the pattern compiles to a program larger than slicelab's bound of {} "
        "RE2 instructions (docs/dra.md#cel)",
        kMaxCelRegexProgramSize);
    return nullptr;
  }
  if (!re->ok()) {
    error = fmt::format("invalid regular expression: {}", re->error());
    return nullptr;
  }
  if (re->ProgramSize() > kMaxCelRegexProgramSize) {
    error = fmt::format(
        "the pattern compiles to {} RE2 instructions, more than slicelab's bound of {} "
        "(docs/dra.md#cel)",
        re->ProgramSize(), kMaxCelRegexProgramSize);
    return nullptr;
  }
  compiled_.emplace(pattern, re);
  return re;
}

bool cel_regex_search(const re2::RE2& re, std::string_view text) {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), re);
}

}  // namespace slicelab
