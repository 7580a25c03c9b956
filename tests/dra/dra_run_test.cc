// DRA in an engine run: the DynamicResources plugin places pods where their claims allocate,
// shares a consumable-capacity GPU, frees it when pods end, and explains pods that fit nowhere.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

#include "sim/modes/dra/dra_claims_json.h"
#include "sim/modes/dra/dra_settings.h"
#include "sim/modes/dra/dra_sharing.h"
#include "tests/dra/dra_test_model.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using namespace dra_testing;
using slicelab::testing::cluster_of;
using slicelab::testing::gpus_of;
using slicelab::testing::node_group;
using slicelab::testing::pod;

// Two nodes, each with one A100-80GB published as one device shared by memory.
SharingConfig consumable_dra() {
  auto m = std::make_shared<DraModel>();
  add_class(*m, "gpu.nvidia.com");
  for (const char* node : {"n-0", "n-1"}) {
    DraDevice d = device("gpu-0", {str_attr("uuid", std::string("GPU-") + node)});
    d.allow_multiple_allocations = true;
    DraDeviceCapacity mem;
    mem.name = "memory";
    mem.qualified = "gpu.nvidia.com/memory";
    mem.value = q(80 * kGi, "80Gi");
    d.capacity.push_back(mem);
    m->resource_slices.push_back(node_slice(node, {d}));
  }
  // Pod d names a template whose request wants an H100.
  DraResourceClaimTemplate h100;
  h100.name = "h100";
  h100.namespace_name = "default";
  h100.spec.requests.push_back(request(
      "gpu", exact("gpu.nvidia.com", 1, {selector(*m, "gpu.nvidia.com/productName=H100")})));
  m->resource_claim_templates.push_back(h100);
  DraPod d;
  d.name = "d";
  d.namespace_name = "default";
  d.resource_claims.push_back({"h100", "", "h100"});
  m->pods.push_back(d);
  auto settings = std::make_shared<DraSettings>();
  settings->model = m;
  settings->selectors = std::make_shared<FakeSelectors>(*m);
  settings->device_class = "gpu.nvidia.com";
  SharingConfig c;
  c.kind = "dra";
  c.set_mode_settings(settings);
  return c;
}

TEST(DraRun, ConsumableCapacitySharedThenReleased) {
  const ClusterSpec cluster = cluster_of({node_group("n", 2, "A100-80GB", 1)});
  const std::vector<PodSpec> pods = {
      pod("a", 0, 100).gpus(1).gpu_mem(40960),    // n-0
      pod("b", 0, 100).gpus(1).gpu_mem(40960),    // n-0 too: 40Gi + 40Gi = 80Gi
      pod("c", 0, 100).gpus(1).gpu_mem(40960),    // n-1
      pod("d", 0, 100).gpus(1).gpu_mem(1024),     // its Pod object claims an H100: none
      pod("e", 250, 100).gpus(1).gpu_mem(81920),  // all of n-0's GPU, once a and b ended
  };
  const RunResult r = slicelab::testing::run(cluster, pods, "first-fit", consumable_dra());
  EXPECT_EQ(r.pods[0].node, 0);
  EXPECT_EQ(r.pods[1].node, 0);
  EXPECT_EQ(gpus_of(r, 0), gpus_of(r, 1));
  // Time-sliced (NVIDIA's default for a shared device): two full-demand tenants share the GPU
  // less its 5% switch overhead.
  EXPECT_NEAR(r.pods[0].finish_s, 100 / (0.95 / 2), 1e-6);
  EXPECT_EQ(r.pods[2].node, 1);
  EXPECT_EQ(r.pods[3].status, PodStatus::kUnschedulable);
  EXPECT_EQ(
      r.reason_of(3),
      "no node could ever hold it: DRA: no node can allocate its claims (claim default/d-h100: "
      "no device left for request gpu on node n-0)");
  EXPECT_EQ(r.pods[4].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[4].node, 0);
  EXPECT_DOUBLE_EQ(r.pods[4].start_s, 250);

  // claims.json's part of the run, as the mode wrote it into its results.
  ASSERT_EQ(r.summary.mode_results.documents.size(), 1u);
  const ModeDocument& doc = r.summary.mode_results.documents[0];
  EXPECT_EQ(doc.file, "claims.json");
  EXPECT_EQ(doc.key, "claims");
  const auto claims = nlohmann::ordered_json::parse(doc.json);
  ASSERT_EQ(claims.size(), 4u);
  EXPECT_EQ(claims[0]["pod"], "a");
  EXPECT_EQ(claims[0]["name"], "a-gpu");
  EXPECT_EQ(claims[0]["node"], "n-0");
  const auto& res = claims[1]["status"]["allocation"]["devices"]["results"].at(0);
  EXPECT_EQ(res["request"], "gpu");
  EXPECT_EQ(res["pool"], "n-0");
  EXPECT_EQ(res["device"], "gpu-0");
  ASSERT_EQ(res["consumedCapacity"].size(), 1u);
  EXPECT_EQ(res["consumedCapacity"].begin().value(), "40Gi");
  EXPECT_TRUE(res.contains("shareID"));
  EXPECT_EQ(claims[3]["pod"], "e");
  EXPECT_DOUBLE_EQ(claims[3]["allocated_s"].get<double>(), 250);
  EXPECT_EQ(claims[3]["status"]["allocation"]["devices"]["results"]
                .at(0)["consumedCapacity"]
                .begin()
                .value(),
            "80Gi");
}

// claims.json's text is written one claim at a time: the same bytes as the whole array's dump.
TEST(DraClaimsJson, TextIsTheArraysDump) {
  std::vector<DraClaimRecord> records;
  EXPECT_EQ(dra_claims_json_text(records), "[]");
  for (int i = 0; i < 3; ++i) {
    DraClaimRecord r{"p" + std::to_string(i), "default", "p-gpu", "n-0", 1.5 * i, {}};
    r.allocation.results.push_back({"gpu", "gpu.nvidia.com", "n-0", "gpu-0", false, {}, {}});
    records.push_back(r);
    EXPECT_EQ(dra_claims_json_text(records), dra_claims_json(records).dump()) << i;
  }
  EXPECT_EQ(nlohmann::ordered_json::parse(dra_claims_json_text(records)).size(), 3u);
}

}  // namespace
}  // namespace slicelab
