// Writing DRA objects as the API server serves them (`kubectl get -o yaml`: apiVersion, kind,
// metadata, fields at their resource.k8s.io/v1 paths, keys in alphabetical order).
#pragma once

#include <string>
#include <vector>

#include "workloads/dra_model.h"

namespace slicelab {

// The slices as a YAML stream, one ResourceSlice per document; read_dra_objects reads it back.
std::string resource_slices_yaml(const std::vector<DraResourceSlice>& slices);

// NVIDIA's device classes gpu.nvidia.com and mig.nvidia.com as its Helm chart installs them.
std::string nvidia_device_classes_yaml();

}  // namespace slicelab
