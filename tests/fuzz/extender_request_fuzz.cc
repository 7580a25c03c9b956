// Fuzzes what the scheduler extender reads from the network (backends/k8s): an ExtenderArgs or
// binding body, and the Pod and Node objects inside it, read with the import's rules.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backends/k8s/extender_wire.h"
#include "backends/k8s/kube_json_objects.h"
#include "workloads/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    const slicelab::k8s::ExtenderArgs args = slicelab::k8s::parse_extender_args(body);
    try {
      (void)slicelab::k8s::kube_pod_from_json(args.pod, "fuzz");
    } catch (const slicelab::InputError&) {
    }
    if (args.nodes)
      for (const nlohmann::json& node : *args.nodes) {
        try {
          (void)slicelab::k8s::kube_node_from_json(node, "fuzz");
        } catch (const slicelab::InputError&) {
        }
      }
  } catch (const slicelab::k8s::WireError&) {
  }
  try {
    (void)slicelab::k8s::parse_binding_args(body);
  } catch (const slicelab::k8s::WireError&) {
  }
  return 0;
}
