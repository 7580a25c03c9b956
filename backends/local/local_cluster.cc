#include "backends/local/local_cluster.h"

#include <fmt/format.h>

#include <stdexcept>

namespace slicelab {

LocalCluster make_local_cluster(const std::vector<DetectedGpu>& gpus, Mechanism mechanism,
                                const GpuCatalog& base, bool allow_mig_reconfigure) {
  if (gpus.empty()) throw std::runtime_error("no GPU: nothing to run the pods on");
  LocalCluster lc;
  lc.catalog = base;
  GpuModel model;
  model.name = gpus.front().name;
  if (const GpuModel* known = base.find(model.name)) model = *known;
  // A node group holds one model; mixed machines would need one node per model, which the
  // device numbering below does not do yet.
  for (const DetectedGpu& g : gpus)
    if (g.name != gpus.front().name)
      throw std::runtime_error(fmt::format(
          "this machine mixes GPU models ({} and {}); the local backend runs on one model",
          gpus.front().name, g.name));
  if (mechanism == Mechanism::kMig) {
    uint64_t smallest = 0;
    for (const DetectedGpu& g : gpus)
      for (const MigInstance& m : g.mig_instances) {
        lc.device_ids.push_back(m.uuid);
        smallest = smallest == 0 ? m.memory_bytes : std::min(smallest, m.memory_bytes);
      }
    if (lc.device_ids.empty())
      throw std::runtime_error(
          allow_mig_reconfigure
              ? "MIG: no MIG instances exist, even after creating the policy's layout"
              : "MIG: no MIG instances exist on this machine; slicelab uses the instances that "
                "exist and never reconfigures a GPU unless --allow-mig-reconfigure is given (or "
                "create them with 'nvidia-smi mig -cgi <profiles> -C')");
    model.name += " MIG";
    model.memory_mib = static_cast<int64_t>(smallest >> 20);  // the smallest instance: safe
    model.mig_capable = false;
  } else {
    for (const DetectedGpu& g : gpus) lc.device_ids.push_back(std::to_string(g.index));
    model.memory_mib = static_cast<int64_t>(gpus.front().memory_bytes >> 20);
  }
  lc.catalog.upsert(model);
  NodeGroup node;
  node.name = "local";
  node.count = 1;
  // Host CPU and memory requests are not enforced locally: the node takes any.
  node.cpu_milli = int64_t{1} << 40;
  node.memory_mib = int64_t{1} << 40;
  node.gpu_model = *lc.catalog.index_of(model.name);
  node.gpus_per_node = static_cast<int>(lc.device_ids.size());
  lc.spec.groups.push_back(node);
  return lc;
}

}  // namespace slicelab
