#include "workloads/hardware/mig_profiles.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace slicelab {
namespace {

constexpr uint8_t kEvery = 0b0111'1111;    // starts 0..6
constexpr uint8_t kEven = 0b0101'0101;     // 0, 2, 4, 6
constexpr uint8_t kTwoSlot = 0b0001'0101;  // 0, 2, 4
constexpr uint8_t kHalves = 0b0001'0001;   // 0, 4
constexpr uint8_t kZero = 0b0000'0001;

// The 7-slice pattern shared by A100 and H100/H200 (shared/reference/mig-mps.md): same ids,
// slot sizes and allowed starts; only names, memory and SM counts differ.
MigTable seven_slice(std::string gpu, int sm_count, const char* const names[7], const double gib[7],
                     const int sms[7]) {
  MigTable t{std::move(gpu), 7, 8, sm_count, {}};
  struct Shape {
    int id, compute, slots, max;
    uint8_t starts;
    bool me;
  };
  constexpr Shape shapes[7] = {{19, 1, 1, 7, kEvery, false}, {20, 1, 1, 1, kEvery, true},
                               {15, 1, 2, 4, kEven, false},  {14, 2, 2, 3, kTwoSlot, false},
                               {9, 3, 4, 2, kHalves, false}, {5, 4, 4, 1, kZero, false},
                               {0, 7, 8, 1, kZero, false}};
  for (int i = 0; i < 7; ++i) {
    const Shape& s = shapes[i];
    t.profiles.push_back(
        {names[i], s.id, s.compute, s.slots, gib[i], sms[i], s.max, s.starts, s.me});
  }
  return t;
}

std::vector<MigTable> build_tables() {
  std::vector<MigTable> out;
  // A30: 4 compute slices and 4 memory slots (shared/reference/mig-mps.md gives names and
  // counts; ids, starts and GiB as nvidia-smi prints them on an A30, 14 SMs per slice).
  out.push_back({"A30",
                 4,
                 4,
                 56,
                 {{"1g.6gb", 14, 1, 1, 5.81, 14, 4, 0b1111, false},
                  {"2g.12gb", 5, 2, 2, 11.69, 28, 2, 0b0101, false},
                  {"4g.24gb", 0, 4, 4, 23.44, 56, 1, 0b0001, false}}});
  {
    const char* const n[7] = {"1g.5gb",  "1g.5gb+me", "1g.10gb", "2g.10gb",
                              "3g.20gb", "4g.20gb",   "7g.40gb"};
    const double g[7] = {4.75, 4.75, 9.62, 9.62, 19.50, 19.50, 39.25};
    const int s[7] = {14, 14, 14, 28, 42, 56, 98};
    out.push_back(seven_slice("A100-40GB", 108, n, g, s));
  }
  {
    // H100-80GB names with the A100's SM counts (14 per compute slice, 98 for 7g).
    const char* const n[7] = {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb",
                              "3g.40gb", "4g.40gb",    "7g.80gb"};
    const double g[7] = {9.75, 9.75, 19.62, 19.62, 39.50, 39.50, 79.25};
    const int s[7] = {14, 14, 14, 28, 42, 56, 98};
    out.push_back(seven_slice("A100-80GB", 108, n, g, s));
  }
  {
    const char* const n[7] = {"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb",
                              "3g.40gb", "4g.40gb",    "7g.80gb"};
    const double g[7] = {9.75, 9.75, 19.62, 19.62, 39.50, 39.50, 79.25};
    const int s[7] = {16, 16, 26, 32, 60, 64, 132};
    out.push_back(seven_slice("H100-80GB", 132, n, g, s));
  }
  {
    // H200: the H100 pattern with larger memory (the reference's names); SMs as on H100 (same
    // die); GiB = the slots' share of the 7g instance, as on the H100 (9.75 of 79.25 per slot).
    const char* const n[7] = {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb",
                              "3g.71gb", "4g.71gb",    "7g.141gb"};
    const double g[7] = {17.25, 17.25, 34.75, 34.75, 69.75, 69.75, 139.75};
    const int s[7] = {16, 16, 26, 32, 60, 64, 132};
    out.push_back(seven_slice("H200", 132, n, g, s));
  }
  return out;
}

}  // namespace

std::optional<size_t> MigTable::find(std::string_view profile) const {
  for (size_t i = 0; i < profiles.size(); ++i)
    if (profiles[i].name == profile) return i;
  return std::nullopt;
}

std::string MigTable::profile_names() const {
  std::vector<std::string> n;
  n.reserve(profiles.size());
  for (const auto& p : profiles) n.push_back(p.name);
  return fmt::format("{}", fmt::join(n, ", "));
}

std::span<const MigTable> mig_tables() {
  static const std::vector<MigTable> tables = build_tables();
  return tables;
}

const MigTable* mig_table_for(std::string_view gpu_model) {
  for (const MigTable& t : mig_tables())
    if (t.gpu == gpu_model) return &t;
  return nullptr;
}

bool is_known_mig_profile(std::string_view profile) {
  return std::any_of(mig_tables().begin(), mig_tables().end(),
                     [&](const MigTable& t) { return t.find(profile).has_value(); });
}

std::string known_mig_profile_names() {
  std::set<std::string> names;
  for (const MigTable& t : mig_tables())
    for (const auto& p : t.profiles) names.insert(p.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace slicelab
