// Pins down FailureModel: out of memory when neighbours hold the GPU's memory (only without
// memory isolation), a peak over the pod's own limit, client faults, and fault propagation to
// neighbours, with a mode whose probabilities the test sets.
#include "sim/engine/failure_model.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/sim_fixtures.h"

namespace slicelab {
namespace {

using testing::catalog;
using testing::cluster_of;
using testing::model_memory;
using testing::node_group;

// Four tenants per GPU, memory isolated or not, a per-tenant limit of its request, and the
// fault probabilities given.
class FaultyMode final : public SharingMode {
 public:
  FaultyMode(bool isolates, int64_t limit_mib, double propagation, double client_fault)
      : isolates_(isolates),
        limit_mib_(limit_mib),
        propagation_(propagation),
        client_fault_(client_fault) {}
  std::string_view kind() const override { return "faulty"; }
  std::string describe() const override { return "faulty"; }
  int capacity_units() const override { return 4; }
  int claim_units(int /*gpu_milli*/) const override { return 1; }
  int max_tenants() const override { return 4; }
  bool isolates_memory() const override { return isolates_; }
  GpuTerms declare(std::span<const TenantLoad> /*tenants*/,
                   std::span<TenantTerms> /*terms*/) const override {
    return {};
  }
  int64_t memory_limit_mib(int64_t /*request*/, int64_t /*gpu*/) const override {
    return limit_mib_;
  }
  double fault_propagation() const override { return propagation_; }
  double client_fault_probability() const override { return client_fault_; }

 private:
  bool isolates_;
  int64_t limit_mib_;
  double propagation_, client_fault_;
};

PodRequest share_of_a_gpu(int64_t gpu_memory_mib) {
  PodRequest r;
  r.gpu_count = 1;
  r.claim_units = 1;
  r.gpu_memory_mib = gpu_memory_mib;
  return r;
}

struct FailureFixture {
  explicit FailureFixture(const SharingMode& mode)
      : cluster(cluster_of({node_group("n", 1, "A100-80GB", 1)}), catalog(), 4),
        rng(7),
        failures(mode, cluster, rng, reasons) {
    failures.prepare();
  }
  ClusterState cluster;
  Rng rng;
  ReasonTable reasons;
  FailureModel failures;
  SharingRun sharing;
  std::vector<GpuId> gpu0{0};
};

TEST(SimFailureModel, NeighboursMemoryFailsTheNewcomerOnlyWithoutIsolation) {
  const int64_t gpu_mib = model_memory("A100-80GB");
  const PodRequest first = share_of_a_gpu(gpu_mib - 1000), second = share_of_a_gpu(2000);
  for (const bool isolates : {false, true}) {
    const FaultyMode mode(isolates, -1, 0, 0);
    FailureFixture f(mode);
    f.cluster.bind(0, f.gpu0, first);
    f.cluster.bind(0, f.gpu0, second);
    PodOutcome o;
    const bool fails = f.failures.fails_for_memory(1, second, f.gpu0, f.sharing, o);
    EXPECT_EQ(fails, !isolates);
    if (!isolates) {
      EXPECT_EQ(o.failure, FailureCause::kNeighboursMemory);
      EXPECT_NE(f.reasons[o.reason].find(fmt::format("needs 2000 MiB, neighbours hold {} of {} MiB",
                                                     gpu_mib - 1000, gpu_mib)),
                std::string::npos)
          << f.reasons[o.reason];
    }
  }
}

TEST(SimFailureModel, PeakOverTheOwnLimitFailsWithoutADraw) {
  const FaultyMode mode(false, 10000, 0, 1.0);
  FailureFixture f(mode);
  const PodRequest r = share_of_a_gpu(10000);
  PodOutcome at_limit;  // at the limit: fine, then the client fault (p = 1)
  EXPECT_TRUE(f.failures.fails_own_limit(10000, r, f.gpu0, at_limit));
  EXPECT_EQ(at_limit.failure, FailureCause::kClientFault);
  PodOutcome over;
  EXPECT_TRUE(f.failures.fails_own_limit(10001, r, f.gpu0, over));
  EXPECT_EQ(over.failure, FailureCause::kOverMemoryCap);
}

TEST(SimFailureModel, NoClientFaultModelledDrawsNothing) {
  const FaultyMode mode(false, -1, 0, 0);
  FailureFixture f(mode);
  PodOutcome o;
  EXPECT_FALSE(f.failures.fails_own_limit(5000, share_of_a_gpu(5000), f.gpu0, o));
  Rng fresh(7);
  EXPECT_EQ(f.rng.uniform(), fresh.uniform());  // the stream is untouched
}

TEST(SimFailureModel, FaultPropagatesToEachNeighbourWithItsProbability) {
  const std::vector<uint32_t> tenants{4, 5, 6};
  auto tenants_of = [&](GpuId) { return std::span<const uint32_t>(tenants); };
  {
    // Probability 1: every neighbour, in tenant order.
    const FaultyMode mode(false, -1, 1.0, 0);
    FailureFixture f(mode);
    std::vector<uint32_t> failed;
    f.failures.propagate_fault(f.gpu0, tenants_of, [&](uint32_t v) { failed.push_back(v); });
    EXPECT_EQ(failed, tenants);
  }
  {
    // Probability 0.5: the neighbours whose draw (in tenant order) falls below it.
    const FaultyMode mode(false, -1, 0.5, 0);
    FailureFixture f(mode);
    Rng same(7);
    std::vector<uint32_t> expected;
    for (const uint32_t t : tenants)
      if (same.uniform() < 0.5) expected.push_back(t);
    std::vector<uint32_t> failed;
    f.failures.propagate_fault(f.gpu0, tenants_of, [&](uint32_t v) { failed.push_back(v); });
    EXPECT_EQ(failed, expected);
  }
}

}  // namespace
}  // namespace slicelab
