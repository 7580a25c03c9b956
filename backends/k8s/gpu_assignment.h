// The annotation slicelab.io/gpu-assignment: the GPUs the extender's bind chose for a pod, as
// compact JSON for the node's device plugin (issue 16); docs/extender.md has the format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicelab::k8s {

inline constexpr std::string_view kGpuAssignmentAnnotation = "slicelab.io/gpu-assignment";

struct AssignedGpu {
  int index = 0;           // the GPU's index on its node (nvidia-smi's order)
  std::string uuid;        // "GPU-…"; empty when unknown (then not written)
  int64_t memory_mib = 0;  // the pod's share of the GPU's memory (whole card: all of it)
  int cores = 100;         // the pod's share of the GPU's cores in percent (whole card: 100)
};

struct GpuAssignment {
  std::string node;
  std::string policy;
  std::string sharing;
  std::vector<AssignedGpu> gpus;
};

// {"node":"n1","policy":"fgd","sharing":"hami","gpus":[{"index":0,"memoryMiB":8192,"cores":30}]}
std::string to_annotation(const GpuAssignment& assignment);
// nullopt (with `error` set) when the text is not such an object.
std::optional<GpuAssignment> parse_gpu_assignment(std::string_view text, std::string& error);

}  // namespace slicelab::k8s
