#include "sim/modes/vm/passthrough.h"

#include <fmt/format.h>

#include "sim/sharing/sharing_run.h"

namespace slicelab {
namespace {

class PassthroughRun final : public SharingRun {
 public:
  PassthroughRun(std::span<const PodSpec> pods, double boot_s) : pods_(pods), boot_s_(boot_s) {}
  double start_delay_s(uint32_t pod) const override {
    return pods_[pod].gpu_count > 0 ? boot_s_ : 0.0;
  }

 private:
  std::span<const PodSpec> pods_;
  double boot_s_;
};

}  // namespace

std::string Passthrough::describe() const {
  return fmt::format("passthrough ({:g}s VM boot)", boot_s_);
}

GpuTerms Passthrough::declare(std::span<const TenantLoad> /*tenants*/,
                              std::span<TenantTerms> /*terms*/) const {
  return {};
}

std::unique_ptr<SharingRun> Passthrough::start_run(const RunSetup& setup) const {
  return std::make_unique<PassthroughRun>(setup.pods, boot_s_);
}

}  // namespace slicelab
