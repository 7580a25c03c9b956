// CEL's matches(): patterns in RE2 syntax (cel-go's, and so Kubernetes'), compiled by RE2, whose
// matching takes time linear in the input, within bounds on the pattern and its program.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace slicelab {

// The longest pattern, and the longest string matched: the resource API caps string and version
// attributes at 64 bytes and driver names at 63 (the DRA reader refuses longer ones); a longer
// input is a runtime error, never a slow match.
inline constexpr size_t kMaxCelRegexBytes = 256;
inline constexpr size_t kMaxCelMatchInput = 64;
// The largest compiled program, in RE2 instructions. RE2's automaton builds at most one state
// per input byte, each in time at most proportional to the program, so these two bounds bound a
// match: the slowest pattern found within them takes under a millisecond on a 64-byte input with
// nothing cached (bench/dra_cel.cc, BM_WorstPattern). Real selectors compile to tens of
// instructions; `.{0,100}` to about 900; Unicode's `\pL` to 1,200 (refused; `\p{Greek}`, 66).
inline constexpr int kMaxCelRegexProgramSize = 1000;
// Distinct patterns of one set of DRA objects: each keeps a cache of automaton states of at most
// 1 MiB, so together at most 128 MiB.
inline constexpr size_t kMaxCelRegexPatterns = 128;

// Distinct patterns compiled once and shared by every expression that uses them (the compiled
// pattern is immutable and RE2 matches from several threads at once).
class CelRegexCache {
 public:
  // The pattern compiled, or nullptr with `error` saying why: RE2's message for invalid
  // syntax (cel-go's ValidateRegexLiterals refuses the same patterns when the expression is
  // compiled), a pattern or program over its bound, or one distinct pattern too many.
  std::shared_ptr<const re2::RE2> compile(const std::string& pattern, std::string& error);
  size_t size() const { return compiled_.size(); }

 private:
  std::map<std::string, std::shared_ptr<const re2::RE2>, std::less<>> compiled_;
};

// CEL's matches(): true when the pattern matches any substring of `text` (RE2 semantics,
// anchored only where the pattern says so). `text` is at most kMaxCelMatchInput bytes.
bool cel_regex_search(const re2::RE2& re, std::string_view text);

}  // namespace slicelab
