// libFuzzer target for the interposer's region check (region_image_error): any bytes as a region
// image, and a sound image with fuzz-chosen patches. The check must never crash, and what it
// accepts must hold every property the interposer relies on when it indexes the region.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "backends/interposer/shared_region.h"

namespace {

using namespace slicelab::interposer;

// A property the check promised and did not keep: a finding.
void require(bool ok) {
  if (!ok) std::abort();
}

void check_accepted(const RegionLayout& r) {
  require(r.magic == kRegionMagic && r.version == kRegionVersion);
  require(r.total_size == sizeof(RegionLayout) && r.device_count == kMaxDevices &&
          r.slot_count == kMaxSlots);
  require(r.other_sm_percent >= 1 && r.other_sm_percent <= 100 && r.other_cap != 0);
  const uint64_t owner = r.lock.load();
  require(owner == 0 || ((owner >> 32) >= 1 && static_cast<int64_t>(owner >> 32) <= kPidMaxLimit));
  for (const auto& d : r.devices) {
    require(d.cap.load() != 0);
    require(d.sm_percent.load() >= 1 && d.sm_percent.load() <= 100);
  }
  for (int i = 0; i < kMaxSlots; ++i) {
    const RegionSlot& s = r.slots[i];
    require(s.index == static_cast<uint32_t>(i));
    const int32_t pid = s.pid.load();
    require(pid == 0 || (pid > 0 && pid <= kPidMaxLimit));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The raw input as an image: mostly the length check, at any length.
  (void)region_image_error(data, size, true);

  // A sound image, patched: the input is a list of [offset: 4 bytes][length: 1 byte][bytes].
  static auto image = std::make_unique<RegionLayout>();
  auto* bytes = reinterpret_cast<unsigned char*>(image.get());
  std::memset(bytes, 0, sizeof(RegionLayout));
  Config cfg;
  if (size > 0) cfg.devices[data[0] % kMaxDevices].memory_bytes = uint64_t{64} << 20;
  init_region_image(image.get(), cfg);
  require(region_image_error(bytes, sizeof(RegionLayout), true).empty());
  size_t at = 0;
  while (at + 5 <= size) {
    uint32_t offset = 0;
    std::memcpy(&offset, data + at, 4);
    offset %= sizeof(RegionLayout);
    size_t len = data[at + 4];
    at += 5;
    len = std::min({len, size - at, sizeof(RegionLayout) - offset});
    std::memcpy(bytes + offset, data + at, len);
    at += len;
  }
  const bool sound_fixed = region_image_error(bytes, sizeof(RegionLayout), false).empty();
  const bool sound_all = region_image_error(bytes, sizeof(RegionLayout), true).empty();
  // The full check is the fixed part's and more.
  require(!sound_all || sound_fixed);
  if (sound_fixed) check_accepted(*image);
  return 0;
}
