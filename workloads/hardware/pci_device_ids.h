// NVIDIA GPUs' PCI device IDs as mig-parted's `device-filter` spells them ("0x20B210DE": device
// 0x20B2, vendor 0x10DE), and the catalog GPU model each one is, so a filter selects node groups.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace slicelab {

struct PciGpuId {
  uint16_t device = 0;         // the PCI device ID; the vendor is always NVIDIA's 0x10DE
  std::string_view product;    // as NVIDIA names it: "A100-SXM4-80GB"
  std::string_view gpu_model;  // the catalog model (sim/gpu_catalog.cc); "" if not modelled
};

inline constexpr uint16_t kNvidiaPciVendor = 0x10DE;

std::span<const PciGpuId> pci_gpu_ids();

// The entry for a device-filter string: "0x20B210DE", case-insensitive, optionally with a
// subsystem ID after ':' ("0x233010DE:0x16C010DE"), which the simulator cannot tell apart and
// ignores. nullptr with `error` set ("not an NVIDIA device ...", "unknown PCI device ID ...").
const PciGpuId* find_pci_gpu_id(std::string_view filter, std::string& error);

}  // namespace slicelab
