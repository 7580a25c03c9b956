// Pins down the MIG tables and the layout validator: for every supported GPU the layouts it
// accepts are exactly those an independent brute-force search over placements finds, and the
// reference's rules (4g+3g only as 4g@0+3g@4, slot 7, one +me) hold with named conflicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/modes/mig/mig_layout.h"
#include "sim/modes/mig/mig_state.h"
#include "workloads/hardware/mig_profiles.h"

namespace slicelab {
namespace {

const MigTable& table(const char* gpu) {
  const MigTable* t = mig_table_for(gpu);
  EXPECT_NE(t, nullptr) << gpu;
  return *t;
}

// ---- the brute force: written without the validator's code ---------------------------------

// Every start assignment of `instances` (profile indexes) with plain bitmasks, no ordering or
// symmetry tricks: true when one assignment has no two instances sharing a memory slot.
bool brute_force_places(const MigTable& t, const std::vector<size_t>& instances, size_t k,
                        unsigned used) {
  if (k == instances.size()) return true;
  const MigProfile& p = t.profiles[instances[k]];
  for (int s = 0; s < t.memory_slots; ++s) {
    if (((p.start_mask >> s) & 1U) == 0) continue;
    if (s + p.memory_slots > t.memory_slots) continue;
    const unsigned mask = ((1U << p.memory_slots) - 1U) << s;
    if ((used & mask) != 0) continue;
    if (brute_force_places(t, instances, k + 1, used | mask)) return true;
  }
  return false;
}

// The reference's counting rules, stated again independently.
bool brute_force_valid(const MigTable& t, const std::vector<int>& counts) {
  int compute = 0, me = 0, slots = 0;
  std::vector<size_t> instances;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > t.profiles[i].max_count) return false;
    compute += counts[i] * t.profiles[i].compute_slices;
    slots += counts[i] * t.profiles[i].memory_slots;
    if (t.profiles[i].name.find("+me") != std::string::npos) me += counts[i];
    for (int c = 0; c < counts[i]; ++c) instances.push_back(i);
  }
  // More slots than the GPU has can never be placed: skips hopeless searches, nothing else.
  if (me > 1 || compute > t.compute_slices || slots > t.memory_slots) return false;
  return brute_force_places(t, instances, 0, 0);
}

// Every multiset with at most memory_slots / slots instances of each profile (beyond that no
// layout can hold them), as count vectors.
void for_each_multiset(const MigTable& t, const std::function<void(const std::vector<int>&)>& f) {
  std::vector<int> counts(t.profiles.size(), 0);
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == counts.size()) {
      f(counts);
      return;
    }
    for (int c = 0; c <= t.memory_slots / t.profiles[i].memory_slots; ++c) {
      counts[i] = c;
      rec(i + 1);
    }
    counts[i] = 0;
  };
  rec(0);
}

void expect_valid_placements(const MigTable& t, const std::vector<int>& counts,
                             const std::vector<MigPlacement>& placed) {
  std::vector<int> seen(counts.size(), 0);
  unsigned used = 0;
  for (const MigPlacement& p : placed) {
    const MigProfile& prof = t.profiles[p.profile];
    ++seen[p.profile];
    ASSERT_TRUE(prof.may_start_at(p.start)) << placement_name(t, p);
    ASSERT_LE(p.start + prof.memory_slots, t.memory_slots);
    const unsigned mask = ((1U << prof.memory_slots) - 1U) << p.start;
    ASSERT_EQ(used & mask, 0U) << placement_name(t, p) << " overlaps";
    used |= mask;
  }
  EXPECT_EQ(seen, counts);
}

class MigEveryGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(MigEveryGpu, AcceptedLayoutsEqualTheBruteForceSet) {
  const MigTable& t = table(GetParam());
  std::set<std::vector<int>> brute, accepted;
  size_t multisets = 0;
  for_each_multiset(t, [&](const std::vector<int>& counts) {
    ++multisets;
    if (brute_force_valid(t, counts)) brute.insert(counts);
    bool ok = true;
    try {
      expect_valid_placements(t, counts, place_layout(t, counts));
    } catch (const MigLayoutError&) {
      ok = false;
    }
    EXPECT_EQ(ok, layout_fits(t, counts));
    if (ok) accepted.insert(counts);
  });
  EXPECT_EQ(accepted, brute);
  // A30: {}, 1g x1-4, 2g x1-2, 2g+1g x1-2, 4g. The 7-slice GPUs share one pattern: 128
  // layouts, the empty one included (also counted by a separate Python enumeration).
  EXPECT_EQ(brute.size(), t.compute_slices == 4 ? 10U : 128U);
  EXPECT_LT(brute.size(), multisets);
  // The full-GPU layout, and the empty one, are always valid.
  std::vector<int> full(t.profiles.size(), 0);
  EXPECT_TRUE(brute.count(full));
  full.back() = 1;
  EXPECT_TRUE(brute.count(full));
}

INSTANTIATE_TEST_SUITE_P(Tables, MigEveryGpu,
                         ::testing::Values("A30", "A100-40GB", "A100-80GB", "H100-80GB", "H200"),
                         [](const auto& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// ---- the tables -----------------------------------------------------------------------------

TEST(MigTables, ReferenceFiguresForA100_40GB) {
  const MigTable& t = table("A100-40GB");
  ASSERT_EQ(t.profiles.size(), 7U);
  EXPECT_EQ(t.sm_count, 108);
  const MigProfile& p = t.profiles[*t.find("3g.20gb")];
  EXPECT_EQ(p.id, 9);
  EXPECT_EQ(p.compute_slices, 3);
  EXPECT_EQ(p.memory_slots, 4);
  EXPECT_DOUBLE_EQ(p.memory_gib, 19.50);
  EXPECT_EQ(p.sms, 42);
  EXPECT_EQ(p.max_count, 2);
  EXPECT_EQ(p.start_mask, 0b0001'0001);  // {0,4}:4
  const MigProfile& me = t.profiles[*t.find("1g.5gb+me")];
  EXPECT_EQ(me.id, 20);
  EXPECT_TRUE(me.media_extensions);
  EXPECT_EQ(me.max_count, 1);
  EXPECT_EQ(t.profiles[*t.find("1g.10gb")].start_mask, 0b0101'0101);  // {0,2,4,6}:2
  EXPECT_EQ(t.profiles[*t.find("7g.40gb")].sms, 98);
}

TEST(MigTables, H100AndA100_80GBShareNamesNotSms) {
  const MigTable& h = table("H100-80GB");
  const MigTable& a = table("A100-80GB");
  EXPECT_EQ(h.profile_names(), a.profile_names());
  EXPECT_EQ(h.profile_names(), "1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb");
  EXPECT_EQ(h.profiles[*h.find("4g.40gb")].sms, 64);
  EXPECT_EQ(a.profiles[*a.find("4g.40gb")].sms, 56);
  EXPECT_EQ(h.profiles[*h.find("1g.20gb")].sms, 26);
  EXPECT_EQ(h.profiles[*h.find("1g.20gb")].max_count, 4);
  EXPECT_EQ(table("H200").profile_names(),
            "1g.18gb, 1g.18gb+me, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb");
  const MigTable& a30 = table("A30");
  EXPECT_EQ(a30.compute_slices, 4);
  EXPECT_EQ(a30.profile_names(), "1g.6gb, 2g.12gb, 4g.24gb");
  EXPECT_EQ(mig_table_for("T4"), nullptr);
  EXPECT_EQ(mig_table_for("A10"), nullptr);
}

// ---- specific rules ---------------------------------------------------------------------------

std::vector<int> counts_of(const MigTable& t, const std::map<std::string, int>& m) {
  std::vector<int> c(t.profiles.size(), 0);
  for (const auto& [name, n] : m) c[*t.find(name)] = n;
  return c;
}

std::string error_of(const MigTable& t, const std::map<std::string, int>& m) {
  try {
    place_layout(t, counts_of(t, m));
  } catch (const MigLayoutError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MigLayout, FourPlusThreeOnlyAsFourAtZeroAndThreeAtFour) {
  const MigTable& t = table("H100-80GB");
  const auto placed = place_layout(t, counts_of(t, {{"4g.40gb", 1}, {"3g.40gb", 1}}));
  ASSERT_EQ(placed.size(), 2U);
  std::set<std::string> names;
  for (const auto& p : placed) names.insert(placement_name(t, p));
  EXPECT_EQ(names, (std::set<std::string>{"4g.40gb@0", "3g.40gb@4"}));
  // With a 4g at 0 kept, a 3g can only go to 4.
  const std::vector<MigPlacement> kept = {{static_cast<uint8_t>(*t.find("4g.40gb")), 0}};
  EXPECT_EQ(start_for_extra(t, kept, *t.find("3g.40gb")), 4);
}

TEST(MigLayout, SlotSevenOnlyFromSixOrFourOrZero) {
  const MigTable& t = table("A100-80GB");
  // 1g.10gb x6 fill slots 0..5 and a 1g.20gb must take 6-7; nothing else reaches slot 7.
  const auto placed = place_layout(t, counts_of(t, {{"1g.10gb", 6}, {"1g.20gb", 1}}));
  bool has_six = false;
  for (const auto& p : placed) has_six |= placement_name(t, p) == "1g.20gb@6";
  EXPECT_TRUE(has_six);
  // A 2g can never start at 6: with slots 0..5 held, slots 6-7 take a 1g but no 2g.
  const uint8_t two = static_cast<uint8_t>(*t.find("2g.20gb"));
  const uint8_t one = static_cast<uint8_t>(*t.find("1g.10gb"));
  const std::vector<MigPlacement> kept = {{two, 0}, {two, 2}, {one, 4}, {one, 5}};
  EXPECT_EQ(start_for_extra(t, kept, two), -1);
  EXPECT_EQ(start_for_extra(t, kept, *t.find("1g.20gb")), 6);
  EXPECT_EQ(start_for_extra(t, kept, *t.find("1g.10gb")), 6);
}

TEST(MigLayout, AtMostOneMediaExtensionInstance) {
  const MigTable& t = table("A100-40GB");
  EXPECT_EQ(error_of(t, {{"1g.5gb+me", 2}}),
            "at most one +me instance per GPU, the layout asks for 2");
  EXPECT_EQ(error_of(t, {{"1g.5gb+me", 1}, {"1g.5gb", 6}}), "no error");
  const std::vector<MigPlacement> kept = {{static_cast<uint8_t>(*t.find("1g.5gb+me")), 0}};
  EXPECT_EQ(start_for_extra(t, kept, *t.find("1g.5gb+me")), -1);
}

TEST(MigLayout, CountingRulesNameTheirLimit) {
  const MigTable& h = table("H100-80GB");
  EXPECT_EQ(error_of(h, {{"4g.40gb", 1}, {"3g.40gb", 1}, {"1g.10gb", 1}}),
            "the layout needs 8 compute slices, H100-80GB has 7");
  EXPECT_EQ(error_of(h, {{"3g.40gb", 3}}),
            "at most 2 3g.40gb per H100-80GB GPU, the layout asks "
            "for 3");
  EXPECT_EQ(error_of(h, {{"1g.20gb", 4}, {"1g.10gb", 1}}),
            "the layout needs 9 memory slots, H100-80GB has 8");
  const std::vector<std::pair<std::string, int>> a30_name = {{"1g.6gb", 1}};
  try {
    place_layout(h, a30_name);
    ADD_FAILURE() << "accepted an A30 profile on an H100";
  } catch (const MigLayoutError& e) {
    EXPECT_EQ(std::string(e.what()),
              "profile 1g.6gb not on H100-80GB (its profiles: 1g.10gb, 1g.10gb+me, 1g.20gb, "
              "2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)");
  }
}

TEST(MigLayout, OverlapsAreNamed) {
  const MigTable& h = table("H100-80GB");
  const uint8_t one = static_cast<uint8_t>(*h.find("1g.10gb"));
  const std::vector<MigPlacement> kept = {{one, 0}, {one, 4}};
  EXPECT_EQ(start_for_extra(h, kept, *h.find("3g.40gb")), -1);
  EXPECT_EQ(why_no_start(h, kept, *h.find("3g.40gb")),
            "3g.40gb@0 overlaps 1g.10gb@0; 3g.40gb@4 overlaps 1g.10gb@4");
  const std::vector<MigPlacement> kept4 = {{static_cast<uint8_t>(*h.find("4g.40gb")), 0}};
  EXPECT_EQ(why_no_start(h, kept4, *h.find("7g.80gb")),
            "the layout needs 11 compute slices, H100-80GB has 7");
}

// ---- the smallest profile that fits a share and memory ----------------------------------------

int8_t profile_for(const char* gpu, int milli, int64_t mem_mib, std::string name = "") {
  PodSpec p;
  p.gpu_count = 1;
  p.gpu_milli = milli;
  p.gpu_memory_mib = mem_mib;
  p.mig_profile = std::move(name);
  return MigState::profile_for(table(gpu), p);
}

std::string profile_name(const char* gpu, int milli, int64_t mem_mib, std::string name = "") {
  const int8_t q = profile_for(gpu, milli, mem_mib, std::move(name));
  return q < 0 ? "none" : table(gpu).profiles[static_cast<size_t>(q)].name;
}

TEST(MigProfileMapping, SmallestProfileThatFitsShareAndMemory) {
  EXPECT_EQ(profile_name("A100-80GB", 100, 5 * 1024), "1g.10gb");
  EXPECT_EQ(profile_name("A100-80GB", 142, 9 * 1024), "1g.10gb");   // 1000/7 = 142.9
  EXPECT_EQ(profile_name("A100-80GB", 143, 1024), "2g.20gb");       // > one slice
  EXPECT_EQ(profile_name("A100-80GB", 100, 10 * 1024), "1g.20gb");  // 9.75 GiB < 10 GiB
  EXPECT_EQ(profile_name("A100-80GB", 500, 1024), "4g.40gb");       // 3g = 428 milli
  EXPECT_EQ(profile_name("A100-80GB", 400, 30 * 1024), "3g.40gb");
  EXPECT_EQ(profile_name("A100-80GB", 1000, 0), "7g.80gb");
  EXPECT_EQ(profile_name("A100-80GB", 100, 90 * 1024), "none");
  EXPECT_EQ(profile_name("A100-40GB", 100, 5 * 1024), "1g.10gb");  // 1g.5gb has 4.75 GiB
  EXPECT_EQ(profile_name("A100-40GB", 100, 4 * 1024), "1g.5gb");   // never the +me twin
  EXPECT_EQ(profile_name("A30", 250, 1024), "1g.6gb");             // 1000/4 = 250
  EXPECT_EQ(profile_name("A30", 251, 1024), "2g.12gb");
  EXPECT_EQ(profile_name("H200", 100, 17 * 1024), "1g.18gb");
  EXPECT_EQ(profile_name("H100-80GB", 1000, 0, "1g.10gb+me"), "1g.10gb+me");
  EXPECT_EQ(profile_name("H100-80GB", 100, 0, "1g.5gb"), "none");  // an A100-40GB name
}

}  // namespace
}  // namespace slicelab
