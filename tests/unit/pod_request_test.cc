// Pins down make_pod_request, the one conversion from a pod's spec to its placement request
// that the simulator's engine and the local backend both use.
#include "sim/sharing/pod_request.h"

#include <gtest/gtest.h>

#include "sim/modes/mode_registry.h"
#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::model_index;

PodSpec request_test_pod() {
  PodSpec p;
  p.name = "p";
  p.gpu_count = 1;
  p.gpu_milli = 300;
  p.gpu_memory_mib = 4096;
  p.cpu_milli = 6000;
  p.memory_mib = 12288;
  p.allowed_models = {"A100-80GB", "T4", "no-such-model"};
  return p;
}

TEST(PodRequestConversion, CarriesCpuMemoryGpuAndAllowedModels) {
  const auto share = make_sharing_mode(testing::gpu_share());
  const PodRequest r = make_pod_request(request_test_pod(), *share, catalog());
  EXPECT_EQ(r.cpu_milli, 6000);
  EXPECT_EQ(r.memory_mib, 12288);
  EXPECT_EQ(r.gpu_memory_mib, 4096);
  EXPECT_EQ(r.gpu_count, 1);
  EXPECT_EQ(r.gpu_milli, 300);
  EXPECT_EQ(r.claim_units, 300);  // gpu-share claims its milli of 1000 units
  // Models the catalog lacks allow nothing; the known ones set their bits.
  EXPECT_EQ(r.model_mask,
            (uint64_t{1} << model_index("A100-80GB")) | (uint64_t{1} << model_index("T4")));
  EXPECT_EQ(r.shape_tag, PodRequest::kNoShapeTag);  // the run assigns it
  // Whole cards claim the one unit of a card whatever the share.
  const auto whole = make_sharing_mode(testing::whole_card());
  EXPECT_EQ(make_pod_request(request_test_pod(), *whole, catalog()).claim_units, 1);
}

TEST(PodRequestConversion, CpuOnlyPodsClaimNoGpuAndAnyModel) {
  PodSpec p = request_test_pod();
  p.gpu_count = 0;
  p.gpu_milli = 1000;
  p.allowed_models.clear();
  const auto share = make_sharing_mode(testing::gpu_share());
  const PodRequest r = make_pod_request(p, *share, catalog());
  EXPECT_EQ(r.gpu_count, 0);
  EXPECT_EQ(r.gpu_milli, 0);
  EXPECT_EQ(r.claim_units, 0);
  EXPECT_EQ(r.cpu_milli, 6000);
  EXPECT_EQ(r.model_mask, ~uint64_t{0});
}

}  // namespace
}  // namespace slicelab
