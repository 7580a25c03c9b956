// MIG layout validation: gives a multiset of GPU-instance profiles non-overlapping memory-slot
// placements under the GPU's rules (allowed starts, max per GPU, one +me), or names the conflict.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/hardware/mig_profiles.h"

namespace slicelab {

// One GPU instance: a profile of the GPU's table at a starting memory slot.
struct MigPlacement {
  uint8_t profile = 0;  // index into MigTable::profiles
  uint8_t start = 0;

  bool operator==(const MigPlacement&) const = default;
};

// A rejected layout; what() names the rule or the overlapping instances.
class MigLayoutError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "3g.40gb@4" for messages.
std::string placement_name(const MigTable& table, MigPlacement p);

// counts[i] instances of profile i (counts.size() == table.profiles.size()). Returns the
// placements, largest instances first, each at the lowest start that leaves room for the rest;
// throws MigLayoutError naming the conflict when none exists.
std::vector<MigPlacement> place_layout(const MigTable& table, std::span<const int> counts);

// The same from profile names, as mig-parted's `mig-devices` lists them; unknown names and
// counts below 0 are errors that name the GPU ("profile 1g.6gb not on H100-80GB").
std::vector<MigPlacement> place_layout(const MigTable& table,
                                       std::span<const std::pair<std::string, int>> devices);

// True when place_layout would succeed (no exception, no allocation of messages).
bool layout_fits(const MigTable& table, std::span<const int> counts);

// Where one more instance of `profile` can go next to instances that stay where they are
// (a GPU being partly reconfigured): the highest allowed start that overlaps none of `kept` and
// keeps the per-GPU limits, or -1. The highest start leaves the low slots, which the large
// profiles need (4g and 7g start only at 0), free.
int start_for_extra(const MigTable& table, std::span<const MigPlacement> kept, size_t profile);

// Why start_for_extra returned -1, in words ("3g.40gb: start 0 overlaps 1g.10gb@0, ...").
std::string why_no_start(const MigTable& table, std::span<const MigPlacement> kept, size_t profile);

}  // namespace slicelab
