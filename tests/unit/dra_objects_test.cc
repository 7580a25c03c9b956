// The DRA object reader: the corpus in tests/data/dra (objects as the API server serves them)
// loads with its values at their real paths, and each unknown or unsimulated field, each
// unsupported CEL construct, is refused at its file:line:column.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/modes/dra/cel_selectors.h"
#include "sim/modes/dra/dra_files.h"
#include "tests/support/temp_files.h"
#include "workloads/inputs/dra_objects.h"

namespace slicelab {
namespace {

const std::string kCorpus = std::string(SLICELAB_SOURCE_DIR) + "/tests/data/dra/";

const DraDeviceCapacity& capacity_of(const DraDevice& d, std::string_view name) {
  const DraDeviceCapacity* c = d.find_capacity(std::string("gpu.nvidia.com/") + std::string(name));
  EXPECT_NE(c, nullptr) << d.name << " has no capacity " << name;
  return *c;
}

TEST(DraObjectsCorpus, LoadsWithValuesAtTheirPaths) {
  DraObjects o;
  for (const char* f : {"deviceclasses.yaml", "resourceslices.json", "claims.yaml"})
    read_dra_objects(kCorpus + f, o);
  const DraModel& m = o.model;
  ASSERT_EQ(m.device_classes.size(), 2U);
  EXPECT_EQ(m.device_classes[0].name, "gpu.nvidia.com");
  ASSERT_EQ(m.device_classes[1].selectors.size(), 1U);
  // A plain scalar folded over two lines reads with one space at the fold.
  EXPECT_EQ(m.selectors[m.device_classes[0].selectors[0]].expression,
            "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == "
            "'gpu'");
  EXPECT_EQ(o.selector_text.size(), m.selectors.size());

  ASSERT_EQ(m.resource_slices.size(), 2U);
  const DraResourceSlice& counters = m.resource_slices[0];
  EXPECT_EQ(counters.pool.name, "gpu-node-1");
  EXPECT_EQ(counters.pool.resource_slice_count, 2);
  EXPECT_EQ(counters.node_name, "gpu-node-1");
  ASSERT_EQ(counters.shared_counters.size(), 1U);
  EXPECT_EQ(counters.shared_counters[0].name, "gpu-0-counter-set");
  // 7 capacity counters and 8 memory slices.
  EXPECT_EQ(counters.shared_counters[0].counters.size(), 15U);
  const DraResourceSlice& devices = m.resource_slices[1];
  ASSERT_EQ(devices.devices.size(), 6U);
  const DraDevice& gpu0 = devices.devices[0];
  EXPECT_EQ(gpu0.name, "gpu-0");
  ASSERT_NE(gpu0.find_attribute("gpu.nvidia.com/uuid"), nullptr);
  EXPECT_EQ(gpu0.find_attribute("gpu.nvidia.com/uuid")->string_value,
            "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c");
  EXPECT_EQ(gpu0.find_attribute("gpu.nvidia.com/cudaComputeCapability")->type,
            DraAttributeType::Version);
  // Attributes with their own domain keep it.
  EXPECT_NE(gpu0.find_attribute("resource.kubernetes.io/pcieRoot"), nullptr);
  EXPECT_EQ(capacity_of(gpu0, "memory").value.value, int64_t{81152} << 20);
  const DraDevice& mig = devices.devices[3];
  EXPECT_EQ(mig.name, "gpu-0-mig-3g40gb-9-4");
  ASSERT_EQ(mig.consumes_counters.size(), 1U);
  EXPECT_EQ(mig.consumes_counters[0].counter_set, "gpu-0-counter-set");
  int slices = 0;
  for (const DraCounter& c : mig.consumes_counters[0].counters)
    if (c.name.starts_with("memory-slice-")) ++slices;
  EXPECT_EQ(slices, 4);
  const DraDevice& shared = devices.devices[5];
  EXPECT_TRUE(shared.allow_multiple_allocations);
  const DraDeviceCapacity& mem = capacity_of(shared, "memory");
  ASSERT_TRUE(mem.request_policy.has_value());
  EXPECT_EQ(mem.request_policy->default_value->value, int64_t{8} << 30);
  EXPECT_EQ(mem.request_policy->valid_range->step->value, int64_t{1} << 30);
  EXPECT_EQ(mem.value.text, "80Gi");

  ASSERT_EQ(m.resource_claim_templates.size(), 4U);
  ASSERT_EQ(m.resource_claims.size(), 1U);
  const DraResourceClaimTemplate& mps = m.resource_claim_templates[0];
  EXPECT_EQ(mps.name, "shared-gpu");
  EXPECT_EQ(mps.namespace_name, "gpu-test-mps");
  ASSERT_EQ(mps.spec.config.size(), 1U);
  EXPECT_EQ(mps.spec.config[0].requests, std::vector<std::string>{"mps-gpu"});
  const auto& sharing = mps.spec.config[0].opaque.gpu_config->sharing;
  ASSERT_TRUE(sharing.has_value());
  EXPECT_EQ(sharing->strategy, "MPS");
  EXPECT_EQ(sharing->mps_config->default_active_thread_percentage, 50);
  EXPECT_EQ(sharing->mps_config->default_pinned_device_memory_limit->value, int64_t{10} << 30);
  EXPECT_EQ(mps.spec.config[0].opaque.parameters_json,
            R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig","sharing":)"
            R"({"mpsConfig":{"defaultActiveThreadPercentage":50,)"
            R"("defaultPinnedDeviceMemoryLimit":"10Gi"},"strategy":"MPS"}})");
  const DraResourceClaim& ts = m.resource_claims[0];
  EXPECT_EQ(ts.spec.config[0].opaque.gpu_config->sharing->time_slicing_config->interval, "Long");
  EXPECT_EQ(ts.spec.requests[0].exactly->selectors.size(), 1U);
  const DraResourceClaimTemplate& fallback = m.resource_claim_templates[1];
  ASSERT_EQ(fallback.spec.requests[0].first_available.size(), 2U);
  EXPECT_EQ(fallback.spec.requests[0].first_available[1].name, "full");
  EXPECT_EQ(fallback.spec.requests[0].first_available[1].device_class_name, "gpu.nvidia.com");
  const DraResourceClaimTemplate& pair = m.resource_claim_templates[2];
  ASSERT_EQ(pair.spec.constraints.size(), 1U);
  EXPECT_EQ(pair.spec.constraints[0].match_attribute, "resource.kubernetes.io/pcieRoot");
  const auto& share = m.resource_claim_templates[3].spec.requests[0].exactly->capacity_requests;
  ASSERT_EQ(share.size(), 1U);
  EXPECT_EQ(share[0].value.value, int64_t{16} << 30);

  ASSERT_EQ(m.pods.size(), 2U);
  EXPECT_EQ(m.pods[0].name, "test-pod");
  EXPECT_EQ(m.pods[0].resource_claims[0].resource_claim_template_name, "shared-gpu");
  EXPECT_EQ(m.pods[1].resource_claims[0].resource_claim_name, "single-gpu");
  EXPECT_EQ(o.skipped_kinds.at("Namespace"), 1);
}

// The corpus's selectors on the corpus's devices, hand-checked: the gpu class takes the two
// GPUs, the mig class the four partitions; ">= 40Gi" excludes 3g.40gb (40448Mi < 40960Mi).
TEST(DraObjectsCorpus, SelectorsPickTheRightDevices) {
  DraObjects o;
  for (const char* f : {"deviceclasses.yaml", "resourceslices.json", "claims.yaml"})
    read_dra_objects(kCorpus + f, o);
  const CelSelectorEvaluator cel(o);
  const DraModel& m = o.model;
  const auto picked = [&](DraSelectorId id) {
    std::string names;
    for (const DraDevice& d : m.resource_slices[1].devices)
      if (cel.matches(id, d, "gpu.nvidia.com")) names += (names.empty() ? "" : ",") + d.name;
    return names;
  };
  EXPECT_EQ(picked(m.device_classes[0].selectors[0]), "gpu-0,gpu-1");
  EXPECT_EQ(picked(m.device_classes[1].selectors[0]),
            "gpu-0-mig-1g10gb-19-0,gpu-0-mig-1g10gb-19-1,gpu-0-mig-3g40gb-9-4,"
            "gpu-0-mig-7g80gb-0-0");
  EXPECT_EQ(picked(m.resource_claims[0].spec.requests[0].exactly->selectors[0]),
            "gpu-0,gpu-0-mig-7g80gb-0-0,gpu-1");
  EXPECT_EQ(picked(m.resource_claim_templates[3].spec.requests[0].exactly->selectors[0]), "gpu-1");
  EXPECT_EQ(cel.runtime_errors(), 0);
}

// load_dra_files: several files into one model, every selector compiled once.
TEST(DraObjectsCorpus, LoadDraFilesCompilesEverySelector) {
  const LoadedDra d = load_dra_files(
      {kCorpus + "deviceclasses.yaml", kCorpus + "resourceslices.json", kCorpus + "claims.yaml"});
  EXPECT_EQ(d.model->device_classes.size(), 2U);
  EXPECT_EQ(d.model->resource_slices.size(), 2U);
  // 2 classes, 1 claim, 1 firstAvailable subrequest, 1 pair request, 1 share request.
  EXPECT_EQ(d.model->selectors.size(), 6U);
  EXPECT_EQ(d.selectors->size(), 6U);
}

// The shipped comparison's DRA files stay loadable: 2 nodes x 4 H100-80GB, each GPU with its
// 25 MIG placements (MIG file), or as one shareable device (consumable-capacity file).
TEST(DraObjectsCorpus, ShippedScenarioFilesLoad) {
  const std::string dir = std::string(SLICELAB_SOURCE_DIR) + "/scenarios/dra/";
  const LoadedDra mig = load_dra_files({dir + "deviceclasses.yaml", dir + "mig-slices.yaml"});
  size_t devices = 0;
  for (const DraResourceSlice& s : mig.model->resource_slices) devices += s.devices.size();
  EXPECT_EQ(devices, 8U * 26U);
  const LoadedDra shared = load_dra_files(
      {dir + "deviceclasses.yaml", dir + "sharing-classes.yaml", dir + "shared-gpus.yaml"});
  ASSERT_EQ(shared.model->device_classes.size(), 4U);
  EXPECT_EQ(shared.model->device_classes[3]
                .config[0]
                .gpu_config->sharing->mps_config->default_active_thread_percentage,
            25);
  // Both sharing classes take the shareable GPUs.
  for (const DraDevice& d : shared.model->resource_slices[0].devices) {
    EXPECT_TRUE(shared.selectors->matches(shared.model->device_classes[2].selectors[0], d,
                                          "gpu.nvidia.com"));
  }
  ASSERT_EQ(shared.model->resource_slices.size(), 2U);
  EXPECT_EQ(shared.model->resource_slices[0].devices.size(), 4U);
  EXPECT_TRUE(shared.model->resource_slices[0].devices[0].allow_multiple_allocations);
}

// A block scalar's CEL expression is located line by line: the corpus's time-slicing claim
// has its selector on lines 66-67, indented 14 columns.
TEST(DraObjectsCorpus, BlockScalarPositionsMapToTheFile) {
  DraObjects o;
  read_dra_objects(kCorpus + "claims.yaml", o);
  const DraSelectorText& sel =
      o.selector_text[o.model.resource_claims[0].spec.requests[0].exactly->selectors[0]];
  EXPECT_EQ(sel.locate(0), kCorpus + "claims.yaml:66:15");
  const size_t second =
      o.model.selectors[o.model.resource_claims[0].spec.requests[0].exactly->selectors[0]]
          .expression.find("device.attributes");
  EXPECT_EQ(sel.locate(second), kCorpus + "claims.yaml:67:15");
}

class DraObjectErrors : public testing::TempFilesTest {
 protected:
  std::string load(const std::string& text) {
    const std::string p = write("objects.yaml", text);
    return testing::message_of([&] {
      DraObjects o;
      read_dra_objects(p, o);
      check_dra_pools(o);
      const CelSelectorEvaluator cel(o);
    });
  }
  std::string file() const { return (dir_ / "objects.yaml").string(); }
};

constexpr const char* kClaimHead = R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.nvidia.com
)";

TEST_F(DraObjectErrors, UnknownFieldWithSuggestion) {
  EXPECT_EQ(load(std::string(kClaimHead) + "        deviceClasName: x\n"),
            file() +
                ":11:9: spec.devices.requests[0].exactly: unknown key 'deviceClasName' "
                "(did you mean 'deviceClassName'?)");
}

TEST_F(DraObjectErrors, UnsimulatedFieldsAreNamed) {
  const std::string why =
      ": a resource.k8s.io/v1 field that slicelab does not simulate (docs/dra.md#fields)";
  EXPECT_EQ(load(std::string(kClaimHead) + "        tolerations: [{key: a, operator: Exists}]\n"),
            file() + ":11:22: spec.devices.requests[0].exactly.tolerations" + why);
  EXPECT_EQ(load(std::string(kClaimHead) + "        adminAccess: true\n"),
            file() + ":11:22: spec.devices.requests[0].exactly.adminAccess" + why);
  EXPECT_EQ(load(std::string(kClaimHead) +
                 "    constraints:\n    - distinctAttribute: gpu.nvidia.com/uuid\n"),
            file() + ":12:26: spec.devices.constraints[0].distinctAttribute" + why);
  const std::string slice = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
)";
  EXPECT_EQ(load(slice + "    taints: [{key: k, effect: NoSchedule}]\n"),
            file() + ":10:13: spec.devices[0].taints" + why);
  EXPECT_EQ(load(slice + "    attributes:\n      models: {strings: [a, b]}\n"),
            file() + ":11:25: spec.devices[0].attributes.models.strings" + why);
  EXPECT_EQ(load(slice + "    bindsToNode: true\n"),
            file() + ":10:18: spec.devices[0].bindsToNode" + why);
}

// Every real field the simulation does not model, one at a time, refused at its own line.
TEST_F(DraObjectErrors, EachUnsimulatedFieldRefusedAtItsLine) {
  const std::string slice = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
)";
  const struct {
    std::string text, path;
  } cases[] = {
      {"  nodeSelector: {nodeSelectorTerms: []}\n", "spec.nodeSelector"},
      {"  perDeviceNodeSelection: true\n", "spec.perDeviceNodeSelection"},
      {"  partitionTypeAttribute: gpu.nvidia.com/type\n", "spec.partitionTypeAttribute"},
      {"  skipNodeOperations: [Prepare]\n", "spec.skipNodeOperations"},
      {"  devices:\n  - name: d\n    nodeName: n2\n", "spec.devices[0].nodeName"},
      {"  devices:\n  - name: d\n    allNodes: true\n", "spec.devices[0].allNodes"},
      {"  devices:\n  - name: d\n    bindingConditions: [a]\n",
       "spec.devices[0].bindingConditions"},
      {"  devices:\n  - name: d\n    bindingFailureConditions: [a]\n",
       "spec.devices[0].bindingFailureConditions"},
      {"  devices:\n  - name: d\n    nodeAllocatableResources: {}\n",
       "spec.devices[0].nodeAllocatableResources"},
      {"  devices:\n  - name: d\n    attributes:\n      a: {ints: [1]}\n",
       "spec.devices[0].attributes.a.ints"},
      {"  devices:\n  - name: d\n    attributes:\n      a: {bools: [true]}\n",
       "spec.devices[0].attributes.a.bools"},
      {"  devices:\n  - name: d\n    attributes:\n      a: {versions: [1.0.0]}\n",
       "spec.devices[0].attributes.a.versions"},
  };
  for (const auto& c : cases) {
    const std::string text = slice + c.text;
    const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    const std::string msg = load(text);
    EXPECT_EQ(msg.rfind(file() + ":" + std::to_string(line) + ":", 0), 0U) << msg;
    EXPECT_NE(msg.find(": " + c.path +
                       ": a resource.k8s.io/v1 field that slicelab does not "
                       "simulate"),
              std::string::npos)
        << msg;
  }
}

TEST_F(DraObjectErrors, OlderApiVersionRefusedWithReason) {
  const std::string msg = load(
      "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata: {name: x}\nspec: {}\n");
  EXPECT_EQ(msg.rfind(file() + ":1:13: apiVersion: resource.k8s.io/v1beta1 nests", 0), 0U) << msg;
  EXPECT_NE(msg.find("nests fields differently"), std::string::npos) << msg;
}

TEST_F(DraObjectErrors, CelConstructLocatedInsideTheYamlString) {
  // Plain scalar: the expression starts at column 25 of line 13.
  EXPECT_EQ(load(std::string(kClaimHead) + R"(        selectors:
        - cel:
            expression: device.attributes["gpu.nvidia.com"].memory.size() > 0
)"),
            file() +
                ":13:67: unsupported CEL construct '.size()': method (slicelab's CEL "
                "subset: docs/dra.md#cel)");
  // Double-quoted with escaped quotes: each escape counts two file columns.
  EXPECT_EQ(load(std::string(kClaimHead) + R"(        selectors:
        - cel:
            expression: "device.attributes[\"gpu.nvidia.com\"].index + 1 == 2"
)"),
            file() +
                ":13:70: unsupported CEL construct '+': arithmetic (slicelab's CEL subset: "
                "docs/dra.md#cel)");
  // Block scalar: the construct on the second line.
  EXPECT_EQ(load(std::string(kClaimHead) + R"(        selectors:
        - cel:
            expression: |
              device.driver == "gpu.nvidia.com" &&
                has(device.attributes["gpu.nvidia.com"].uuid)
)"),
            file() +
                ":15:17: unsupported CEL construct 'has()': function (slicelab's CEL "
                "subset: docs/dra.md#cel)");
}

// JSON (`kubectl get -o json`): escapes inside the string still map to their file columns.
TEST_F(DraObjectErrors, CelConstructLocatedInJson) {
  const std::string p = write("class.json", R"({
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "x"},
    "spec": {"selectors": [{"cel": {"expression": "device.attributes[\"d\"].n == 1 ? true : false"}}]}
})");
  EXPECT_EQ(testing::message_of([&] {
              DraObjects o;
              read_dra_objects(p, o);
              const CelSelectorEvaluator cel(o);
            }),
            p + ":5:84: unsupported CEL construct '?:': the conditional operator (slicelab's "
                "CEL subset: docs/dra.md#cel)");
}

TEST_F(DraObjectErrors, RequiredFieldsAndExclusiveChoices) {
  EXPECT_EQ(load(R"(apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: gpu
)"),
            file() +
                ":7:7: spec.devices.requests[0]: a request has exactly one of 'exactly' or "
                "'firstAvailable'");
  EXPECT_EQ(load(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: []
  resourceClaims:
  - name: gpu
)"),
            file() +
                ":7:5: spec.resourceClaims[0]: a pod's claim names exactly one of "
                "resourceClaimName or resourceClaimTemplateName");
}

// A slice of one shareable GPU whose memory capacity has `policy` (YAML, indented under
// requestPolicy), value 80Gi.
std::string policy_slice(const std::string& policy) {
  return R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    allowMultipleAllocations: true
    capacity:
      memory:
        value: 80Gi
        requestPolicy:
)" + policy;
}

// The API server's rules for a consumable capacity's requestPolicy, each refused at the value
// that breaks it (they were read and silently used before).
TEST_F(DraObjectErrors, RequestPolicyRefusedAsTheApiServerDoes) {
  const std::string at = file() + ":";
  EXPECT_EQ(load(policy_slice("          default: 16Gi\n          validRange: {min: 16Gi, max: "
                              "8Gi}\n")),
            at + "16:40: spec.devices[0].capacity.memory.requestPolicy.validRange.max: expected "
                 "max at least min (16Gi), found 8Gi");
  EXPECT_EQ(load(policy_slice("          default: 1Gi\n          validRange: {min: 1Gi, step: "
                              "0}\n")),
            at + "16:40: spec.devices[0].capacity.memory.requestPolicy.validRange.step: expected "
                 "a step above 0, found 0");
  EXPECT_EQ(load(policy_slice("          default: 100Gi\n          validRange: {min: 1Gi, max: "
                              "64Gi}\n")),
            at + "15:20: spec.devices[0].capacity.memory.requestPolicy.default: expected a "
                 "default within validRange (max 64Gi), found 100Gi");
  EXPECT_EQ(load(policy_slice("          default: 512Mi\n          validRange: {min: 1Gi}\n")),
            at + "15:20: spec.devices[0].capacity.memory.requestPolicy.default: expected a "
                 "default within validRange (min 1Gi), found 512Mi");
  EXPECT_EQ(load(policy_slice("          default: 1536Mi\n          validRange: {min: 1Gi, "
                              "step: 1Gi}\n")),
            at + "15:20: spec.devices[0].capacity.memory.requestPolicy.default: expected min "
                 "(1Gi) plus a whole number of steps (1Gi), found 1536Mi");
  EXPECT_EQ(load(policy_slice("          default: 8Gi\n          validValues: [8Gi, 4Gi]\n")),
            at + "16:30: spec.devices[0].capacity.memory.requestPolicy.validValues[1]: expected "
                 "values in ascending order without repeats, found 4Gi after 8Gi");
  EXPECT_EQ(load(policy_slice("          default: 2Gi\n          validValues: [4Gi, 8Gi]\n")),
            at + "15:20: spec.devices[0].capacity.memory.requestPolicy.default: expected one of "
                 "validValues, found 2Gi");
  EXPECT_EQ(load(policy_slice("          default: 8Gi\n          validValues: [8Gi, 100Gi]\n")),
            at + "16:30: spec.devices[0].capacity.memory.requestPolicy.validValues[1]: expected "
                 "a value at most the capacity's value 80Gi, found 100Gi");
  EXPECT_EQ(load(policy_slice("          validRange: {min: 1Gi}\n")),
            at + "15:11: spec.devices[0].capacity.memory.requestPolicy: missing required key "
                 "'default' (required with validRange)");
  // The export's own policy is valid.
  EXPECT_EQ(load(policy_slice("          default: 1Gi\n          validRange: {min: 1Gi, step: "
                              "1Gi}\n")),
            "no error");
}

// A pool whose slices name a device twice or consume a counter set it does not have: the API
// server or the allocator refuses the pool; slicelab did not notice.
TEST_F(DraObjectErrors, PoolsWithDuplicateDevicesOrUnknownCounterSetsRefused) {
  const std::string head = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
)";
  EXPECT_EQ(load(head + "  devices:\n  - name: gpu-0\n  - name: gpu-0\n"),
            file() + ":10:5: ResourceSlice s: device 'gpu-0' appears twice in pool 'n1' (also " +
                file() + ":9:5); device names are unique within a pool");
  // Two slices of one pool (one with the counters, one with the devices, as NVIDIA publishes).
  const std::string two = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  sharedCounters:
  - name: gpu-0-counter-set
    counters:
      memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: devices}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    consumesCounters:
    - counterSet: )";
  EXPECT_EQ(load(two + "gpu-0-counter-set\n      counters: {memory: {value: 80Gi}}\n"), "no error");
  EXPECT_EQ(load(two + "gpu-1-counter-set\n      counters: {memory: {value: 80Gi}}\n"),
            file() +
                ":23:19: ResourceSlice devices: device 'gpu-0' consumes counter set "
                "'gpu-1-counter-set', which pool 'n1' does not have (its sharedCounters: "
                "gpu-0-counter-set)");
  EXPECT_EQ(load(two + "gpu-0-counter-set\n      counters: {multiprocessors: {value: 1}}\n"),
            file() +
                ":23:19: ResourceSlice devices: device 'gpu-0' consumes counter "
                "'multiprocessors' of set 'gpu-0-counter-set', which the set does not have");
  // Another pool's counter set is not this pool's.
  std::string other = two;
  other.replace(other.find("pool: {name: n1"), 15, "pool: {name: n2");
  EXPECT_NE(load(other + "gpu-0-counter-set\n      counters: {memory: {value: 80Gi}}\n")
                .find("which pool 'n1' does not have (its sharedCounters: none)"),
            std::string::npos);
}

// The API's list limits: they also bound the allocator's work per device and per claim.
TEST_F(DraObjectErrors, ApiListLimitsRefused) {
  std::string slice = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
)";
  for (int i = 0; i < 33; ++i) slice += "      a" + std::to_string(i) + ": {int: 1}\n";
  EXPECT_EQ(load(slice), file() +
                             ":9:5: spec.devices[0]: expected at most 32 attributes and "
                             "capacities together (the API's limit per device), found 33");
  // The strings CEL's matches() runs on: attribute values and driver names.
  const std::string head = slice.substr(0, slice.find("  devices:"));
  EXPECT_EQ(load(head + "  devices:\n  - name: gpu-0\n    attributes:\n      serial: {string: " +
                 std::string(65, 'a') + "}\n"),
            file() +
                ":11:24: spec.devices[0].attributes.serial.string: expected at most 64 bytes "
                "(the API's limit for an attribute), found 65");
  std::string long_driver = head;
  long_driver.replace(long_driver.find("gpu.nvidia.com"), 14, std::string(61, 'd') + ".io");
  EXPECT_EQ(load(long_driver),
            file() +
                ":5:11: spec.driver: expected at most 63 bytes (the API's limit for a driver "
                "name), found 64");
  std::string claim = std::string(kClaimHead) + "    constraints:\n";
  for (int i = 0; i < 33; ++i)
    claim += "    - matchAttribute: gpu.nvidia.com/a" + std::to_string(i) + "\n";
  EXPECT_EQ(load(claim), file() +
                             ":12:5: spec.devices.constraints: expected at most 32 constraints "
                             "(the API's limit), found 33");
}

// kubectl's JSON, read one item at a time: errors inside the third item still name the file's
// line and column, and malformed JSON is refused where it breaks.
TEST_F(DraObjectErrors, JsonListItemsLocatedInTheFile) {
  const std::string item = R"(        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "c%"},
            "spec": {}
        })";
  auto named = [&](int k) {
    std::string t = item;
    t.replace(t.find('%'), 1, std::to_string(k));
    return t;
  };
  std::string bad = named(2);
  bad.replace(bad.find("\"spec\": {}"), 10, "\"spec\": {\"selectors\": 1}");
  const std::string text = "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n" + named(0) + ",\n" +
                           named(1) + ",\n" + bad +
                           "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {}\n}\n";
  const std::string p = write("classes.json", text);
  const auto read = [&](const std::string& path) {
    return testing::message_of([&] {
      DraObjects o;
      read_dra_objects(path, o);
    });
  };
  // items[2] starts on line 16; its spec on line 20, the value 1 at column 35.
  EXPECT_EQ(read(p), p + ":20:35: items[2].spec.selectors: expected a list, found '1'");
  // Valid items read in order.
  const std::string good =
      write("good.json", "{\"kind\": \"List\", \"items\": [" + named(0) + ", " + named(1) + "]}");
  DraObjects o;
  read_dra_objects(good, o);
  ASSERT_EQ(o.model.device_classes.size(), 2U);
  EXPECT_EQ(o.model.device_classes[1].name, "c1");
  // Broken JSON (that is not YAML in flow style either), a key twice, nesting past the limit.
  const std::string broken = write("broken.json", "{\"kind\": \"List\",\n \"items\": [}");
  EXPECT_EQ(read(broken).rfind(broken + ":2:12: top level: invalid JSON: syntax error", 0), 0U)
      << read(broken);
  const std::string twice = write("twice.json",
                                  "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"DeviceClass\", "
                                  "\"kind\": \"Pod\"}]}");
  EXPECT_EQ(read(twice), twice + ":2:25: items[0]: duplicate key 'kind'");
  std::string deep = "{\"kind\": \"DeviceClass\", \"spec\": ";
  for (int i = 0; i < 100; ++i) deep += "[";
  const std::string nested = write("deep.json", deep);
  EXPECT_EQ(read(nested), nested +
                              ":1:96: top level: invalid JSON: nested deeper than 64 levels of "
                              "objects and arrays");
}

// The size limits that keep memory a small multiple of the file: one JSON object, one YAML
// document parsed whole; a large YAML List of block items (kubectl's -o yaml) is read an item at
// a time, with its positions.
TEST_F(DraObjectErrors, ObjectAndYamlDocumentSizeLimits) {
  const std::string big_value(5u << 20, 'x');
  const std::string p = write("big.json",
                              "{\"kind\": \"List\", \"items\": [{\"kind\": "
                              "\"Namespace\", \"metadata\": {\"name\": \"" +
                                  big_value + "\"}}]}");
  EXPECT_EQ(testing::message_of([&] {
              DraObjects o;
              read_dra_objects(p, o);
            }),
            p + ":1:28: items[0]: one object of 5 MiB, more than the 4 MiB slicelab parses at "
                "once (the API server stores objects of at most 1.5 MiB)");
  // kubectl's -o yaml: a List of 9 MiB, read an item at a time; an error in its last item
  // names that item's line and column.
  std::string yaml = "apiVersion: v1\nitems:\n";
  int items = 0, lines = 2;
  for (; yaml.size() < (9u << 20); ++items, lines += 3)
    yaml += "- apiVersion: v1\n  kind: Namespace\n  metadata: {name: n}\n";
  const std::string tail =
      "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: "
      "{name: c}\n  spec:\n    selectors: 1\nkind: List\nmetadata: {}\n";
  const std::string big = write("big.yaml", yaml + tail);
  EXPECT_EQ(testing::message_of([&] {
              DraObjects o;
              read_dra_objects(big, o);
            }),
            big + ":" + std::to_string(lines + 5) + ":16: items[" + std::to_string(items) +
                "].spec.selectors: expected a list, found '1'");
  // Every item of a List above 1 MiB, read one at a time.
  std::string small = "apiVersion: v1\nkind: List\nitems:\n";
  int small_items = 0;
  for (; small.size() < (3u << 19); ++small_items)
    small += "- apiVersion: v1\n  kind: Namespace\n  metadata: {name: n}\n";
  {
    DraObjects o;
    read_dra_objects(write("list.yaml", small), o);
    EXPECT_EQ(o.skipped_kinds.at("Namespace"), small_items);
  }
  // The same List with its items in flow style is one document parsed whole: refused.
  std::string flow = "apiVersion: v1\nkind: List\nitems: [\n";
  while (flow.size() < (9u << 20)) flow += "  {kind: Namespace, metadata: {name: n}},\n";
  const std::string f = write("flow.yaml", flow + "]\n");
  const std::string msg = testing::message_of([&] {
    DraObjects o;
    read_dra_objects(f, o);
  });
  EXPECT_EQ(msg.rfind(f + ":1:1: top level: one YAML document of 9 MiB, more than the 8 MiB", 0),
            0U)
      << msg;
}

// YAML written in flow style opens with '{' as JSON does; it is still read as YAML.
TEST_F(DraObjectErrors, FlowStyleYamlIsNotJson) {
  const std::string p =
      write("flow.yaml",
            "{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: "
            "x}, spec: {}}\n");
  DraObjects o;
  read_dra_objects(p, o);
  ASSERT_EQ(o.model.device_classes.size(), 1U);
  EXPECT_EQ(o.model.device_classes[0].name, "x");
}

}  // namespace
}  // namespace slicelab
