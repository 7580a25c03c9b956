#include "workloads/hardware/pci_device_ids.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace slicelab {
namespace {

// Sources: the IDs and product groups in mig-parted's deployments/systemd/config-default.yaml
// and examples/dgx-station-80gb-config.yaml (github.com/NVIDIA/mig-parted), and the PCI ID
// repository (pci-ids.ucw.cz, vendor 10de) for each ID's product. Products that the catalog does
// not model (A800, H800, H100 NVL, GH200, Blackwell) are listed so that mig-parted's own files
// load; their entries simply match no node group.
constexpr PciGpuId kIds[] = {
    {0x1DB1, "V100-SXM2-16GB", "V100-16GB"},
    {0x1DB4, "V100-PCIE-16GB", "V100-16GB"},
    {0x1DB5, "V100-SXM2-32GB", "V100-32GB"},
    {0x1DB6, "V100-PCIE-32GB", "V100-32GB"},
    {0x1EB8, "T4", "T4"},
    {0x1FB0, "DGX Display (DGX Station A100)", ""},
    {0x2236, "A10", "A10"},
    {0x27B8, "L4", "L4"},
    {0x20B7, "A30", "A30"},
    {0x20B0, "A100-SXM4-40GB", "A100-40GB"},
    {0x20B1, "A100-PCIE-40GB", "A100-40GB"},
    {0x20F1, "A100-PCIE-40GB", "A100-40GB"},
    {0x20F6, "A800-40GB", ""},
    {0x20B2, "A100-SXM4-80GB", "A100-80GB"},
    {0x20B5, "A100-PCIE-80GB", "A100-80GB"},
    {0x20F3, "A800-SXM4-80GB", ""},
    {0x20F5, "A800-PCIE-80GB", ""},
    {0x20B6, "PG506-96GB", ""},
    {0x2330, "H100-SXM5-80GB", "H100-80GB"},
    {0x2331, "H100-PCIE-80GB", "H100-80GB"},
    {0x2322, "H800-PCIE-80GB", ""},
    {0x2324, "H800-SXM5-80GB", ""},
    {0x2321, "H100 NVL", ""},
    {0x233A, "H800 NVL", ""},
    {0x233D, "H100-96GB", ""},
    {0x2329, "H20", ""},
    {0x2342, "GH200", ""},
    {0x2348, "GH200 144G HBM3e", ""},
    {0x2335, "H200-SXM5-141GB", "H200"},
    {0x233B, "H200 NVL", "H200"},
    {0x2901, "B200", ""},
    {0x2941, "GB200", ""},
    {0x3182, "B300", ""},
    {0x31C2, "GB300", ""},
    {0x2BB5, "RTX PRO 6000 Blackwell", ""},
};

// "0x20B210DE" (or without 0x) as a 32-bit number; false if it is not 1 to 8 hex digits.
bool parse_hex32(std::string_view s, uint32_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 8) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::span<const PciGpuId> pci_gpu_ids() {
  return kIds;
}

const PciGpuId* find_pci_gpu_id(std::string_view filter, std::string& error) {
  const std::string_view primary = filter.substr(0, filter.find(':'));
  uint32_t packed = 0;
  uint32_t subsystem = 0;
  const bool sub_ok =
      primary.size() == filter.size() || parse_hex32(filter.substr(primary.size() + 1), subsystem);
  if (!parse_hex32(primary, packed) || !sub_ok) {
    error = fmt::format(
        "'{}' is not a PCI device ID (expected 0xDDDDVVVV, device then vendor, as "
        "\"0x20B210DE\", optionally :0xSSSSVVVV for the subsystem)",
        filter);
    return nullptr;
  }
  const auto device = static_cast<uint16_t>(packed >> 16);
  const auto vendor = static_cast<uint16_t>(packed & 0xFFFFU);
  if (vendor != kNvidiaPciVendor) {
    error = fmt::format("'{}' is not an NVIDIA device (vendor 0x{:04X}, NVIDIA's is 0x10DE)",
                        filter, vendor);
    return nullptr;
  }
  for (const PciGpuId& id : kIds)
    if (id.device == device) return &id;
  std::string known;
  for (const PciGpuId& id : kIds)
    if (!id.gpu_model.empty())
      known += fmt::format("{}0x{:04X}10DE {}", known.empty() ? "" : ", ", id.device, id.gpu_model);
  error =
      fmt::format("unknown PCI device ID '{}' (device 0x{:04X}); known IDs of modelled GPUs: {}",
                  filter, device, known);
  return nullptr;
}

}  // namespace slicelab
