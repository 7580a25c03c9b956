#include "cli/export_command.h"

#include <fmt/format.h>

#include <cstdio>

#include "cli/input_paths.h"
#include "reports/atomic_folder.h"
#include "sim/modes/dra/cluster_slices.h"
#include "sim/scenario/scenario.h"
#include "workloads/dra_writer.h"

namespace slicelab {

ExportCommand::ExportCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("export", "Write what a scenario's cluster would publish");
  cmd_->require_subcommand(1);
  dra_ = cmd_->add_subcommand(
      "dra", "ResourceSlices and DeviceClasses of NVIDIA's DRA driver for the scenario's cluster");
  dra_->add_option("--scenario", scenario_, "Scenario YAML file")
      ->required()
      ->check(existing_input_file());
  dra_->add_option("-o,--out", out_, "Output folder (resourceslices.yaml, deviceclasses.yaml)")
      ->required();
  dra_->add_flag("--force", force_,
                 "Replace a results folder holding files slicelab did not write");
  dra_->add_flag("--no-mig", no_mig_, "Publish MIG-capable GPUs without their MIG partitions");
  dra_->add_flag("--consumable-memory", consumable_,
                 "Publish GPUs shared by memory (allowMultipleAllocations, KEP-5075), no MIG");
}

int ExportCommand::run() const {
  prepare_output_folder(out_, force_);  // a refusal before the work, not after it
  const Scenario sc = load_scenario(scenario_);
  ClusterSliceOptions options;
  options.mig_partitions = !no_mig_;
  options.consumable_memory = consumable_;
  const std::vector<DraResourceSlice> slices =
      cluster_resource_slices(sc.cluster, sc.catalog, options);
  size_t devices = 0;
  for (const DraResourceSlice& s : slices) devices += s.devices.size();
  write_folder_atomically(out_, force_, [&](const std::filesystem::path& dir) {
    write_text_file(dir / "resourceslices.yaml", resource_slices_yaml(slices));
    write_text_file(dir / "deviceclasses.yaml", nvidia_device_classes_yaml());
  });
  std::printf("%s", fmt::format("wrote {} ResourceSlices ({} devices) and 2 DeviceClasses to {}\n",
                                slices.size(), devices, out_)
                        .c_str());
  return 0;
}

}  // namespace slicelab
