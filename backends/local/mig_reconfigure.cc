#include "backends/local/mig_reconfigure.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "backends/local/child_process.h"
#include "sim/modes/mig/mig_layout.h"
#include "workloads/hardware/mig_profiles.h"

namespace slicelab {
namespace {

bool contains(const std::string& s, std::string_view what) {
  return s.find(what) != std::string::npos;
}

// "3g.40gb" -> 3, "1g.10gb+me" -> 1; 0 when the name does not start with "<n>g.".
int compute_slices_of(const std::string& profile) {
  const size_t g = profile.find("g.");
  if (g == 0 || g == std::string::npos) return 0;
  int n = 0;
  for (size_t i = 0; i < g; ++i) {
    if (profile[i] < '0' || profile[i] > '9') return 0;
    n = n * 10 + (profile[i] - '0');
  }
  return n;
}

// The instances a GPU should have, largest first: placed by the GPU's table when known (so the
// starts are the validator's), else ordered by compute slices for nvidia-smi to place.
std::vector<std::string> instances_for(const DetectedGpu& gpu, const MigDeviceRule& rule) {
  const std::string model = mig_model_for(gpu);
  if (const MigTable* table = model.empty() ? nullptr : mig_table_for(model)) {
    std::vector<MigPlacement> placed;
    try {
      placed = place_layout(*table, rule.mig_devices);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("MIG: GPU {} ({}): the layout does not fit: {}",
                                           gpu.index, gpu.name, e.what()));
    }
    std::vector<std::string> out;
    out.reserve(placed.size());
    for (const MigPlacement& p : placed)
      out.push_back(fmt::format("{}:{}", table->profiles[p.profile].name, p.start));
    return out;
  }
  std::vector<std::string> out;
  for (const auto& [profile, count] : rule.mig_devices)
    for (int i = 0; i < count; ++i) out.push_back(profile);
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return compute_slices_of(a) > compute_slices_of(b);
  });
  return out;
}

std::string profile_of(const std::string& tuple) {
  return tuple.substr(0, tuple.find(':'));
}

}  // namespace

std::string mig_model_for(const DetectedGpu& gpu) {
  // NVML's totals sit a little under the nominal size (an H100 80GB reports 81559 MiB); a
  // variant with other memory (H100 NVL, 94 GB) has other profiles and gets no table.
  const std::string& n = gpu.name;
  const uint64_t gib = gpu.memory_bytes >> 30;
  const auto near = [gib](uint64_t nominal) { return gib + 4 >= nominal && gib <= nominal + 2; };
  if (contains(n, "H200")) return near(141) ? "H200" : "";
  if (contains(n, "H100")) return near(80) ? "H100-80GB" : "";
  if (contains(n, "A100")) return near(80) ? "A100-80GB" : near(40) ? "A100-40GB" : "";
  if (contains(n, "A30")) return near(24) ? "A30" : "";
  return "";
}

std::vector<MigGpuPlan> plan_mig_layout(const std::vector<DetectedGpu>& gpus,
                                        const MigSettings* settings) {
  if (!settings || settings->rules.empty())
    throw std::runtime_error(
        "--allow-mig-reconfigure: the policy names no MIG layout to create (give it one: "
        "sharing: {mode: mig, layout: NAME, mig_configs: ...}; see docs/mig.md)");
  std::vector<MigGpuPlan> plans;
  for (const DetectedGpu& gpu : gpus) {
    const auto rule = std::find_if(
        settings->rules.begin(), settings->rules.end(),
        [&](const MigDeviceRule& r) { return r.applies_to(static_cast<int>(gpu.index)); });
    if (rule == settings->rules.end() || !rule->mig_enabled) continue;  // not a MIG GPU here
    if (!gpu.mig_enabled)
      throw std::runtime_error(fmt::format(
          "MIG: GPU {} ({}) has MIG mode off; turning it on needs the GPU idle and reset, which "
          "slicelab does not do: run 'sudo nvidia-smi -i {} -mig 1' (then reset the GPU) first",
          gpu.index, gpu.name, gpu.index));
    MigGpuPlan plan;
    plan.gpu = gpu.index;
    plan.instances = instances_for(gpu, *rule);
    std::vector<std::string> want, have;
    for (const std::string& t : plan.instances) want.push_back(profile_of(t));
    for (const MigInstance& m : gpu.mig_instances) have.push_back(m.profile);
    std::sort(want.begin(), want.end());
    std::sort(have.begin(), have.end());
    plan.unchanged = want == have;
    plan.holds_instances = !gpu.mig_instances.empty();
    plans.push_back(std::move(plan));
  }
  if (plans.empty())
    throw std::runtime_error(
        "--allow-mig-reconfigure: the policy's MIG layout applies to none of this machine's GPUs");
  return plans;
}

std::vector<MigCommand> mig_commands(const MigGpuPlan& plan, const std::string& nvidia_smi) {
  if (plan.unchanged) return {};
  const std::string gpu = std::to_string(plan.gpu);
  const bool may_fail = !plan.holds_instances;
  // Compute instances go before the GPU instances that hold them.
  std::vector<MigCommand> out{{{nvidia_smi, "mig", "-i", gpu, "-dci"}, may_fail},
                              {{nvidia_smi, "mig", "-i", gpu, "-dgi"}, may_fail}};
  if (!plan.instances.empty())
    out.push_back({{nvidia_smi, "mig", "-i", gpu, "-cgi",
                    fmt::format("{}", fmt::join(plan.instances, ",")), "-C"}});
  return out;
}

std::string find_nvidia_smi(const std::string& override_path) {
  return find_tool(override_path, "SLICELAB_NVIDIA_SMI", "nvidia-smi");
}

std::vector<std::string> apply_mig_plans(const std::vector<MigGpuPlan>& plans,
                                         const std::string& nvidia_smi) {
  if (nvidia_smi.empty() &&
      std::any_of(plans.begin(), plans.end(), [](const MigGpuPlan& p) { return !p.unchanged; }))
    throw std::runtime_error(
        "MIG: nvidia-smi is not on PATH (install the NVIDIA driver utilities, or set "
        "SLICELAB_NVIDIA_SMI)");
  std::vector<std::string> report;
  const EnvMap env = current_environment();
  for (const MigGpuPlan& plan : plans) {
    if (plan.unchanged) {
      report.push_back(fmt::format("GPU {}: already has the layout ({})", plan.gpu,
                                   fmt::join(plan.instances, ", ")));
      continue;
    }
    for (const MigCommand& cmd : mig_commands(plan, nvidia_smi)) {
      // Destroying and creating instances takes seconds on a real GPU; a minute means stuck.
      const CapturedRun r = run_captured(cmd.argv, env, std::chrono::seconds(60));
      if (!r.status.success() && !cmd.may_fail)
        throw std::runtime_error(fmt::format("MIG: '{}' failed ({}): {}", fmt::join(cmd.argv, " "),
                                             r.status.describe(), r.output));
    }
    report.push_back(fmt::format("GPU {}: created {}", plan.gpu, fmt::join(plan.instances, ", ")));
  }
  return report;
}

}  // namespace slicelab
