// Where shadow mode reports each pod it placed in its counterfactual state, as it places it: the
// seam between the extender's state and the decision log of `serve extender --shadow --record`.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace slicelab::k8s {

// One counterfactual decision. The views are valid only during the call.
struct ShadowDecision {
  std::string_view pod;       // "<namespace>/<name>"
  std::string_view uid;       // metadata.uid; empty when the pod carried none
  std::string_view node;      // the node slicelab chose (its top priority)
  std::span<const int> gpus;  // the GPUs it picked there, local indices
  size_t feasible_nodes = 0;  // nodes that passed every filter
};

class ShadowDecisionSink {
 public:
  virtual ~ShadowDecisionSink() = default;
  // Called under the extender state's lock, on the request or watch thread that decided: must
  // not block, allocate per call, or fail (a sink that cannot keep up drops and counts).
  virtual void decided(const ShadowDecision& decision) noexcept = 0;
};

}  // namespace slicelab::k8s
