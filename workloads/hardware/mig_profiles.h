// MIG GPU-instance profiles per GPU model (A30, A100-40GB, A100-80GB, H100-80GB, H200) as
// `nvidia-smi mig -lgip/-lgipp` lists them, and the lookup from a catalog GPU model to its table.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab {

struct MigProfile {
  std::string name;  // "1g.10gb", "1g.10gb+me"
  int id = 0;        // GPU instance profile id
  int compute_slices = 0;
  int memory_slots = 0;
  double memory_gib = 0;  // approximate, as nvidia-smi prints it
  int sms = 0;
  int max_count = 0;              // at most this many per GPU
  uint8_t start_mask = 0;         // bit s set: the instance may start at memory slot s
  bool media_extensions = false;  // "+me": at most one such instance per GPU

  int64_t memory_mib() const { return static_cast<int64_t>(memory_gib * 1024.0); }
  bool may_start_at(int slot) const { return ((start_mask >> slot) & 1U) != 0; }
  // The memory slots it occupies when it starts at `slot`, as a bitmask.
  uint8_t slots_at(int slot) const {
    return static_cast<uint8_t>(((1U << memory_slots) - 1U) << slot);
  }
};

struct MigTable {
  std::string gpu;         // catalog model name
  int compute_slices = 7;  // of the whole GPU
  int memory_slots = 8;
  int sm_count = 0;                  // of the whole GPU (MIG disabled)
  std::vector<MigProfile> profiles;  // in nvidia-smi's order, largest last

  std::optional<size_t> find(std::string_view profile) const;
  std::string profile_names() const;  // "1g.10gb, 1g.10gb+me, ..." for error messages
};

// Every built-in table, in a fixed order.
std::span<const MigTable> mig_tables();
// The table of a catalog GPU model by its name, or nullptr when the model has no MIG.
const MigTable* mig_table_for(std::string_view gpu_model);
// True when some built-in table has a profile of this name.
bool is_known_mig_profile(std::string_view profile);
std::string known_mig_profile_names();

}  // namespace slicelab
