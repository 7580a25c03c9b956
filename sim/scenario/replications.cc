#include "sim/scenario/replications.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>

namespace slicelab {
namespace {

std::optional<uint64_t> number(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() ||
      v > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return v;
}

}  // namespace

std::optional<SeedsOption> parse_seeds_option(std::string_view text, std::string& why) {
  SeedsOption o;
  if (text.find(',') == std::string_view::npos) {
    const auto n = number(text);
    if (!n || *n < 1 || *n > kMaxReplications) {
      why = fmt::format("expected a count of seeds in 1..{} or a list such as 1,2,3, found '{}'",
                        kMaxReplications, text);
      return std::nullopt;
    }
    o.count = static_cast<size_t>(*n);
    return o;
  }
  std::set<uint64_t> seen;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    const auto v = number(item);
    if (!v) {
      why = fmt::format("'{}' is not a seed (an integer in 0..{}) in '{}'", item, INT64_MAX, text);
      return std::nullopt;
    }
    if (!seen.insert(*v).second) {
      why = fmt::format("seed {} is listed twice in '{}'", *v, text);
      return std::nullopt;
    }
    if (seen.size() > kMaxReplications) {
      why = fmt::format("more than {} seeds in '{}'", kMaxReplications, text);
      return std::nullopt;
    }
    o.list.push_back(*v);
    start = end + 1;
  }
  return o;
}

std::vector<uint64_t> replication_seeds(const Scenario& sc, std::optional<uint64_t> seed,
                                        const std::optional<SeedsOption>& seeds) {
  if (seed) return {*seed};
  if (seeds && !seeds->list.empty()) return seeds->list;
  const uint64_t first = sc.seeds.empty() ? sc.seed : sc.seeds.front();
  size_t n = kDefaultReplications;
  if (seeds && seeds->count) {
    n = *seeds->count;
  } else if (!sc.seeds.empty()) {
    return sc.seeds;
  }
  std::vector<uint64_t> out;
  out.reserve(n);
  // Past INT64_MAX the seeds wrap to 0: still distinct, still valid.
  for (size_t i = 0; i < n; ++i)
    out.push_back((first + i) % (static_cast<uint64_t>(INT64_MAX) + 1));
  return out;
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  if (seeds.size() == 1) return fmt::format("one seed ({})", seeds.front());
  bool consecutive = seeds.size() > 2;
  for (size_t i = 1; i < seeds.size() && consecutive; ++i)
    consecutive = seeds[i] == seeds[i - 1] + 1;
  if (consecutive)
    return fmt::format("{} seeds ({}-{})", seeds.size(), seeds.front(), seeds.back());
  if (seeds.size() > 12)
    return fmt::format("{} seeds ({}, ..., {})", seeds.size(),
                       fmt::join(seeds.begin(), seeds.begin() + 3, ", "), seeds.back());
  return fmt::format("{} seeds ({})", seeds.size(), fmt::join(seeds, ", "));
}

}  // namespace slicelab
