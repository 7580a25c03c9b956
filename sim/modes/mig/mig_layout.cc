#include "sim/modes/mig/mig_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>

namespace slicelab {
namespace {

// Instances one layout search places: a layout asking for more fails its counting rules
// (at most 8 memory slots) before it is searched, so 16 is ample room.
constexpr size_t kMaxLayoutInstances = 16;

// Checks the counting rules; returns the error message or an empty string.
std::string count_error(const MigTable& table, std::span<const int> counts) {
  int compute = 0, slots = 0, me = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    me += table.profiles[i].media_extensions ? counts[i] : 0;
  if (me > 1) return fmt::format("at most one +me instance per GPU, the layout asks for {}", me);
  for (size_t i = 0; i < counts.size(); ++i) {
    const MigProfile& p = table.profiles[i];
    if (counts[i] < 0) return fmt::format("{}: count {} is below 0", p.name, counts[i]);
    if (counts[i] > p.max_count)
      return fmt::format("at most {} {} per {} GPU, the layout asks for {}", p.max_count, p.name,
                         table.gpu, counts[i]);
    compute += counts[i] * p.compute_slices;
    slots += counts[i] * p.memory_slots;
  }
  if (compute > table.compute_slices)
    return fmt::format("the layout needs {} compute slices, {} has {}", compute, table.gpu,
                       table.compute_slices);
  if (slots > table.memory_slots)
    return fmt::format("the layout needs {} memory slots, {} has {}", slots, table.gpu,
                       table.memory_slots);
  return {};
}

struct Search {
  const MigTable& table;
  std::array<uint8_t, kMaxLayoutInstances> profile{};  // instances to place, largest first
  std::array<uint8_t, kMaxLayoutInstances> start{};
  size_t n = 0;
  // Deepest point where an instance found no start, and what was placed then (for the message).
  size_t deepest = 0;
  std::array<uint8_t, kMaxLayoutInstances> deepest_start{};

  bool place(size_t k, uint8_t used) {
    if (k == n) return true;
    if (k >= deepest) {
      deepest = k;
      deepest_start = start;
    }
    const MigProfile& p = table.profiles[profile[k]];
    // Equal profiles take ascending starts: each set of starts is tried once.
    const int from = k > 0 && profile[k - 1] == profile[k] ? start[k - 1] + 1 : 0;
    for (int s = from; s < table.memory_slots; ++s) {
      if (!p.may_start_at(s) || s + p.memory_slots > table.memory_slots) continue;
      const uint8_t mask = p.slots_at(s);
      if ((used & mask) != 0) continue;
      start[k] = static_cast<uint8_t>(s);
      if (place(k + 1, static_cast<uint8_t>(used | mask))) return true;
    }
    return false;
  }
};

Search make_search(const MigTable& table, std::span<const int> counts) {
  Search s{table};
  std::array<uint8_t, kMaxLayoutInstances> order{};
  for (size_t i = 0; i < counts.size(); ++i)
    for (int c = 0; c < counts[i] && s.n < kMaxLayoutInstances; ++c)
      order[s.n++] = static_cast<uint8_t>(i);
  // Largest memory footprint first (fewest starts), then table order: fails fast, and the
  // result is deterministic.
  std::stable_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(s.n),
                   [&](uint8_t a, uint8_t b) {
                     return table.profiles[a].memory_slots > table.profiles[b].memory_slots;
                   });
  s.profile = order;
  return s;
}

std::string overlap_list(const MigTable& table, std::span<const MigPlacement> placed,
                         size_t profile, int from) {
  const MigProfile& p = table.profiles[profile];
  std::vector<std::string> parts;
  for (int s = from; s < table.memory_slots; ++s) {
    if (!p.may_start_at(s)) continue;
    std::vector<std::string> hits;
    for (const MigPlacement& q : placed)
      if ((table.profiles[q.profile].slots_at(q.start) & p.slots_at(s)) != 0)
        hits.push_back(placement_name(table, q));
    if (!hits.empty())
      parts.push_back(fmt::format("{}@{} overlaps {}", p.name, s, fmt::join(hits, " and ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string placement_name(const MigTable& table, MigPlacement p) {
  return fmt::format("{}@{}", table.profiles[p.profile].name, p.start);
}

std::vector<MigPlacement> place_layout(const MigTable& table, std::span<const int> counts) {
  if (counts.size() != table.profiles.size())
    throw MigLayoutError("a layout needs one count per profile of " + table.gpu);
  if (std::string err = count_error(table, counts); !err.empty()) throw MigLayoutError(err);
  Search s = make_search(table, counts);
  if (!s.place(0, 0)) {
    std::vector<MigPlacement> placed;
    for (size_t k = 0; k < s.deepest; ++k) placed.push_back({s.profile[k], s.deepest_start[k]});
    const uint8_t stuck = s.profile[s.deepest];
    const int from =
        s.deepest > 0 && s.profile[s.deepest - 1] == stuck ? s.deepest_start[s.deepest - 1] + 1 : 0;
    throw MigLayoutError(fmt::format("no placement on {} fits the layout: {}", table.gpu,
                                     overlap_list(table, placed, stuck, from)));
  }
  std::vector<MigPlacement> out(s.n);
  for (size_t k = 0; k < s.n; ++k) out[k] = {s.profile[k], s.start[k]};
  return out;
}

std::vector<MigPlacement> place_layout(const MigTable& table,
                                       std::span<const std::pair<std::string, int>> devices) {
  std::vector<int> counts(table.profiles.size(), 0);
  for (const auto& [name, count] : devices) {
    const auto idx = table.find(name);
    if (!idx)
      throw MigLayoutError(fmt::format("profile {} not on {} (its profiles: {})", name, table.gpu,
                                       table.profile_names()));
    if (count < 0) throw MigLayoutError(fmt::format("{}: count {} is below 0", name, count));
    counts[*idx] += count;
  }
  return place_layout(table, counts);
}

bool layout_fits(const MigTable& table, std::span<const int> counts) {
  if (counts.size() != table.profiles.size()) return false;
  int compute = 0, slots = 0, me = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const MigProfile& p = table.profiles[i];
    if (counts[i] < 0 || counts[i] > p.max_count) return false;
    compute += counts[i] * p.compute_slices;
    slots += counts[i] * p.memory_slots;
    me += p.media_extensions ? counts[i] : 0;
  }
  if (me > 1 || compute > table.compute_slices || slots > table.memory_slots) return false;
  Search s = make_search(table, counts);
  return s.place(0, 0);
}

int start_for_extra(const MigTable& table, std::span<const MigPlacement> kept, size_t profile) {
  const MigProfile& p = table.profiles[profile];
  uint8_t used = 0;
  int same = 0, me = 0, compute = p.compute_slices;
  for (const MigPlacement& q : kept) {
    const MigProfile& k = table.profiles[q.profile];
    used = static_cast<uint8_t>(used | k.slots_at(q.start));
    same += q.profile == profile ? 1 : 0;
    me += k.media_extensions ? 1 : 0;
    compute += k.compute_slices;
  }
  if (same >= p.max_count || (p.media_extensions && me > 0) || compute > table.compute_slices)
    return -1;
  for (int s = table.memory_slots - p.memory_slots; s >= 0; --s)
    if (p.may_start_at(s) && (used & p.slots_at(s)) == 0) return s;
  return -1;
}

std::string why_no_start(const MigTable& table, std::span<const MigPlacement> kept,
                         size_t profile) {
  const MigProfile& p = table.profiles[profile];
  std::vector<int> counts(table.profiles.size(), 0);
  for (const MigPlacement& q : kept) ++counts[q.profile];
  ++counts[profile];
  if (std::string err = count_error(table, counts); !err.empty()) return err;
  const std::string overlaps = overlap_list(table, kept, profile, 0);
  return overlaps.empty() ? fmt::format("{} has no free start", p.name) : overlaps;
}

}  // namespace slicelab
