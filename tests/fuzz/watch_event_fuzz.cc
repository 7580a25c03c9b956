// Fuzzes what the extender reads from the API server's watch: the input read as one WATCH line
// (read_watch_line, as ResourceWatch reads each line) and as one LIST page (read_list_page, item
// by item), every object then applied to an ExtenderState over a small fixed cluster, as the
// watch applies them; then a decision on that state.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backends/k8s/cluster_io.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/list_page.h"
#include "backends/k8s/watch_event.h"
#include "sim/scenario/scenario.h"
#include "tests/fuzz/fuzz_input_file.h"

namespace {

using nlohmann::json;
using namespace slicelab;

constexpr const char* kScenario = R"(name: fuzz
cluster:
  node_groups:
    - {name: l4, count: 2, gpu_model: L4, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 262144, node_names: [n0, n1]}
workload:
  pods:
    - {name: t, duration: 1h, cpu_milli: 1000, gpu_count: 1, gpu_milli: 500}
policies:
  - {name: fgd, placement: fgd, sharing: gpu-share}
)";

const Scenario& scenario() {
  static const Scenario s = load_scenario(fuzz::write_input("watch/scenario.yaml", kScenario));
  return s;
}

// The first byte picks the kind the line and page are of (nodes or pods).
k8s::WatchKind kind_of(std::string_view& text) {
  if (text.empty()) return k8s::WatchKind::Pod;
  const auto k = (static_cast<unsigned char>(text.front()) & 1) != 0 ? k8s::WatchKind::Node
                                                                     : k8s::WatchKind::Pod;
  text.remove_prefix(1);
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = fuzz::as_text(data, size);
  const k8s::WatchKind kind = kind_of(text);
  const Scenario& sc = scenario();
  k8s::ExtenderState state(sc, sc.policies[0], 1, {});
  state.list_started(k8s::WatchKind::Node);
  for (const char* n : {"n0", "n1"}) {
    state.apply(k8s::WatchKind::Node, k8s::WatchEvent::Added,
                {{"kind", "Node"},
                 {"metadata", {{"name", n}, {"labels", {{"nvidia.com/gpu.product", "NVIDIA-L4"}}}}},
                 {"status", {{"allocatable", {{"cpu", "64"}, {"nvidia.com/gpu", "4"}}}}}});
  }
  state.synced(k8s::WatchKind::Node);

  // One watch line.
  const k8s::WatchLine line = k8s::read_watch_line(text, size_t{1} << 20);
  if (line.kind == k8s::WatchLine::Kind::kObject) {
    state.apply(kind, line.event, line.object);
  } else if (line.kind == k8s::WatchLine::Kind::kSkipped) {
    state.rejected(kind, line.message);
  }
  // One LIST page, as a re-list of the kind.
  state.list_started(kind);
  try {
    k8s::ListPageLimits limits;
    limits.max_item_bytes = size_t{1} << 20;
    (void)k8s::read_list_page(
        text, limits,
        [&](json&& item) {
          state.apply(kind, k8s::WatchEvent::Added, item);
          return true;
        },
        [&](const std::string& why) { state.rejected(kind, why); });
    state.synced(kind);
  } catch (const k8s::ListPageError&) {
  }
  // A decision on what the state now holds.
  k8s::ExtenderArgs args;
  args.pod = {
      {"metadata", {{"name", "probe"}, {"namespace", "default"}, {"uid", "u"}}},
      {"spec",
       {{"containers",
         json::array({{{"name", "c"}, {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}})}}}};
  args.node_names = std::vector<std::string>{"n0", "n1"};
  (void)state.filter(args);
  (void)state.snapshot();
  (void)state.gpu_allocation();
  return 0;
}
