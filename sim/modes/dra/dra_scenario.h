// The scenario surface of DRA: the top-level `dra: {files: [...]}` block and a policy's
// `sharing: {mode: dra, ...}`; the files are read, and every CEL selector compiled, at load.
#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sim/sharing/mode_load.h"
#include "sim/sharing/sharing_config.h"
#include "sim/sharing/sharing_mode.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// `node` is the sharing mapping whose mode is dra: keys mode, files, device_class,
// request_memory, namespace, context_switch_overhead, fault_propagation, max_steps. Fills
// config.dra without its objects (load_dra_objects reads them once all policies are known).
void read_dra_sharing(const YamlReader& yaml, const YAML::Node& node, std::string_view path,
                      SharingConfig& config);

// Reads the top-level `dra:` files followed by each dra policy's own into that policy's model
// (policies with the same files share one), and checks its device_class exists and that its
// devices and pods' claims fit the scenario's cluster and workload. Throws a located
// InputError for a `dra:` block no policy uses.
void load_dra_objects(const ModeLoad& load, std::span<const ModePolicy> policies);

// Sharing mode dra from its settings; throws std::invalid_argument without them.
std::unique_ptr<SharingMode> make_dra_mode(const SharingConfig& config);

}  // namespace slicelab
