#include "sim/sharing/pod_request.h"

namespace slicelab {

PodRequest make_pod_request(const PodSpec& spec, const SharingMode& sharing,
                            const GpuCatalog& catalog) {
  PodRequest r;
  r.cpu_milli = spec.cpu_milli;
  r.memory_mib = spec.memory_mib;
  r.gpu_memory_mib = spec.gpu_memory_mib;
  r.gpu_count = spec.gpu_count;
  r.gpu_milli = spec.gpu_count > 0 ? spec.gpu_milli : 0;
  r.claim_units = spec.gpu_count > 0 ? sharing.claim_units(spec.gpu_milli) : 0;
  if (!spec.allowed_models.empty()) {
    r.model_mask = 0;
    for (const auto& m : spec.allowed_models)
      if (auto idx = catalog.index_of(m)) r.model_mask |= uint64_t{1} << *idx;
  }
  return r;
}

}  // namespace slicelab
