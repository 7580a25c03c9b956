#include "cli/cdi_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "backends/device_plugin/cdi_spec.h"
#include "backends/device_plugin/cdi_spec_text.h"
#include "backends/device_plugin/device_health.h"
#include "backends/device_plugin/node_resources.h"
#include "backends/device_plugin/plugin_config.h"
#include "backends/device_plugin/pod_source.h"
#include "backends/local/gpu_detection.h"
#include "cli/cdi_spec_file.h"
#include "cli/input_paths.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace dp = device_plugin;

// A spec describes devices, not pods: an interposer share's caps come from its pod at
// Allocate, so generating the spec never looks one up.
class NoPods final : public dp::PodSource {
 public:
  std::optional<dp::PendingPod> pending_pod(std::string_view /*resource*/,
                                            int /*device_count*/) override {
    return std::nullopt;
  }
  void mark_allocated(const dp::PendingPod& /*pod*/) override {}
};

}  // namespace

CdiCommand::CdiCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("cdi", "Container Device Interface specs for this node's GPUs");
  cmd_->require_subcommand(1);
  generate_ = cmd_->add_subcommand(
      "generate", "Write the CDI spec of the GPUs, shares and MIG devices the plugin serves");
  generate_->add_option("--config", config_, "The device plugin's config file")
      ->required()
      ->check(existing_input_file());
  generate_->add_option("--format", format_, "json or yaml (default: from --output's extension)")
      ->check(CLI::IsMember({"json", "yaml"}));
  generate_->add_option(
      "-o,--output", output_,
      fmt::format("Spec file, or - for stdout (default {})", kDefaultCdiSpecPath));
  generate_->add_option("--nvml-library", nvml_library_,
                        "NVML library (default: the config's, else libnvidia-ml.so.1)");
  generate_->add_option("--dev-root", dev_root_,
                        "Where the driver's control nodes are looked for (default /dev)");
  generate_
      ->add_option("--cdi-version", version_,
                   "minimum: the oldest version with the fields used (default); current: 1.1.0")
      ->check(CLI::IsMember({"minimum", "current"}));
}

int CdiCommand::run() const {
  const dp::NodePluginConfig config = dp::read_node_plugin_config(config_);
  for (const std::string& warning : config.warnings) fmt::print(stderr, "warning: {}\n", warning);
  const GpuDetection detection =
      detect_gpus(nvml_library_.empty() ? config.nvml_library : nvml_library_);
  if (!detection.ok()) throw InputError("cdi generate: no GPU to describe: " + detection.problem);
  dp::DeviceHealth health;
  NoPods pods;
  const std::vector<std::unique_ptr<dp::ResourcePlugin>> resources =
      dp::make_node_resources(config, detection.gpus, health, &pods);
  std::vector<dp::CdiDeviceEdits> devices;
  for (const auto& resource : resources)
    for (dp::CdiDeviceEdits& device : resource->cdi_devices()) devices.push_back(std::move(device));
  const dp::CdiSpec spec = dp::build_cdi_spec(
      devices, config.cdi_kind, dp::nvidia_control_device_nodes(dev_root_),
      version_ == "current" ? dp::CdiVersionChoice::kCurrent : dp::CdiVersionChoice::kMinimum);
  const std::string output = output_.empty() ? kDefaultCdiSpecPath : output_;
  const dp::CdiFormat format = cdi_format_for(output == "-" ? "" : output, format_);
  if (output == "-") {
    if (const std::vector<std::string> errors = dp::validate_cdi_spec(spec); !errors.empty())
      throw InputError(fmt::format("the CDI spec for {} is not valid:\n  {}", spec.kind,
                                   fmt::join(errors, "\n  ")));
    fmt::print("{}", dp::cdi_spec_text(spec, format));
    return 0;
  }
  write_cdi_spec(spec, format, output);
  fmt::print(stderr, "wrote {} ({} devices of kind {}, cdiVersion {})\n", output,
             spec.devices.size(), spec.kind, spec.version);
  return 0;
}

}  // namespace slicelab
