// The structured allocator against hand-worked cases: backtracking, firstAvailable, counters,
// consumable capacity, claims that fit nowhere and the status.allocation it records.
#include "sim/modes/dra/structured_allocator.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "tests/dra/dra_test_model.h"

namespace slicelab {
namespace {

using namespace dra_testing;

DraAttribute int_attr(const std::string& name, int64_t v) {
  DraAttribute a = str_attr(name, "");
  a.type = DraAttributeType::Int;
  a.int_value = v;
  return a;
}

// A GPU request and a NIC request that must share a PCIe root. The first GPU sits on root 1,
// where no NIC is, so the allocator must give it back and take the second GPU.
TEST(DraAllocator, BacktracksWhenMatchAttributeFails) {
  DraModel m;
  add_class(m, "gpu", {selector(m, "gpu.nvidia.com/type=gpu")});
  add_class(m, "nic", {selector(m, "gpu.nvidia.com/type=nic")});
  m.resource_slices.push_back(
      node_slice("n1", {device("gpu-0", {str_attr("type", "gpu"), int_attr("pcieRoot", 1)}),
                        device("gpu-1", {str_attr("type", "gpu"), int_attr("pcieRoot", 2)}),
                        device("nic-0", {str_attr("type", "nic"), int_attr("pcieRoot", 2)})}));
  DraResourceClaim c = claim("pair", {request("g", exact("gpu")), request("n", exact("nic"))});
  c.spec.constraints.push_back({{"g", "n"}, "gpu.nvidia.com/pcieRoot"});
  m.resource_claims.push_back(c);
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"});
  const std::array<DraClaimId, 1> claims{0};
  ASSERT_TRUE(a.allocate(claims, 0)) << a.last_failure();
  const auto& r = a.allocation(0)->results;
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].request, "g");
  EXPECT_EQ(r[0].device, "gpu-1");
  EXPECT_EQ(r[1].request, "n");
  EXPECT_EQ(r[1].device, "nic-0");
  // gpu-0 tried and given back: more steps than the straight path (claim, g, n, done = 5).
  EXPECT_GT(a.last_steps(), 5);
}

TEST(DraAllocator, MatchAttributeWithNoCommonValueFails) {
  DraModel m;
  add_class(m, "gpu");
  m.resource_slices.push_back(node_slice("n1", {device("gpu-0", {int_attr("pcieRoot", 1)}),
                                                device("gpu-1", {int_attr("pcieRoot", 2)})}));
  DraResourceClaim c = claim("two", {request("g", exact("gpu", 2))});
  c.spec.constraints.push_back({{}, "gpu.nvidia.com/pcieRoot"});
  m.resource_claims.push_back(c);
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"});
  const std::array<DraClaimId, 1> claims{0};
  EXPECT_FALSE(a.can_allocate(claims, 0));
  EXPECT_NE(a.last_failure().find("request g"), std::string::npos) << a.last_failure();
}

// firstAvailable: an H100 if there is one, else an A100; the result names the subrequest.
TEST(DraAllocator, FirstAvailableFallsBackInOrder) {
  DraModel m;
  add_class(m, "gpu");
  m.resource_slices.push_back(
      node_slice("a100-node", {device("gpu-0", {str_attr("productName", "A100")})}));
  m.resource_slices.push_back(
      node_slice("h100-node", {device("gpu-0", {str_attr("productName", "H100")})}));
  DraDeviceRequest r;
  r.name = "gpu";
  DraDeviceSubRequest big = exact("gpu", 1, {selector(m, "gpu.nvidia.com/productName=H100")});
  big.name = "h100";
  DraDeviceSubRequest small = exact("gpu", 1, {selector(m, "gpu.nvidia.com/productName=A100")});
  small.name = "a100";
  r.first_available = {big, small};
  DraResourceClaim c = claim("c", {r});
  DraDeviceClaimConfiguration cfg;
  cfg.requests = {"gpu/a100"};
  cfg.opaque.driver = kDriver;
  c.spec.config.push_back(cfg);
  m.resource_claims.push_back(c);
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"a100-node", "h100-node"});
  const std::array<DraClaimId, 1> claims{0};
  EXPECT_TRUE(a.can_allocate(claims, 1));
  ASSERT_TRUE(a.allocate(claims, 0)) << a.last_failure();
  const DraAllocationResult& res = *a.allocation(0);
  ASSERT_EQ(res.results.size(), 1u);
  EXPECT_EQ(res.results[0].request, "gpu/a100");
  EXPECT_EQ(res.results[0].pool, "a100-node");
  // The claim's config for the chosen subrequest is carried, naming it.
  ASSERT_EQ(res.config.size(), 1u);
  EXPECT_EQ(res.config[0].source, "FromClaim");
  a.release(claims);
  ASSERT_TRUE(a.allocate(claims, 1));
  EXPECT_EQ(a.allocation(0)->results[0].request, "gpu/h100");
  EXPECT_TRUE(a.allocation(0)->config.empty());  // the config names gpu/a100 only
}

// One A100 published as a whole GPU and three 3g.40gb MIG partitions over shared counters
// (memory slices 8, compute slices 7): two partitions fit, a third does not, and the whole GPU
// only when no partition is allocated.
DraModel mig_model() {
  DraModel m;
  add_class(m, "gpu", {selector(m, "gpu.nvidia.com/type=gpu")});
  add_class(m, "mig", {selector(m, "gpu.nvidia.com/type=mig")});
  DraResourceSlice s = node_slice("n1", {});
  s.shared_counters.push_back({"gpu-0-counter-set", {{"memory", q(8)}, {"compute", q(7)}}});
  DraDevice whole = device("gpu-0", {str_attr("type", "gpu")});
  whole.consumes_counters.push_back({"gpu-0-counter-set", {{"memory", q(8)}, {"compute", q(7)}}});
  s.devices.push_back(whole);
  for (int i = 0; i < 3; ++i) {
    DraDevice mig = device("gpu-0-mig-3g40gb-" + std::to_string(i), {str_attr("type", "mig")});
    mig.consumes_counters.push_back({"gpu-0-counter-set", {{"memory", q(4)}, {"compute", q(3)}}});
    s.devices.push_back(mig);
  }
  m.resource_slices.push_back(s);
  for (int i = 0; i < 3; ++i) {
    m.resource_claims.push_back(claim("mig-" + std::to_string(i), {request("m", exact("mig"))}));
  }
  m.resource_claims.push_back(claim("whole", {request("g", exact("gpu"))}));
  return m;
}

TEST(DraAllocator, MigPartitionsExhaustSharedCounters) {
  const DraModel m = mig_model();
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"});
  const std::array<DraClaimId, 1> mig0{0}, mig1{1}, mig2{2}, whole{3};
  ASSERT_TRUE(a.allocate(mig0, 0));
  EXPECT_EQ(a.allocation(0)->results[0].device, "gpu-0-mig-3g40gb-0");
  EXPECT_FALSE(a.can_allocate(whole, 0));  // counters partly taken
  ASSERT_TRUE(a.allocate(mig1, 0));
  EXPECT_EQ(a.allocation(1)->results[0].device, "gpu-0-mig-3g40gb-1");
  EXPECT_FALSE(a.can_allocate(mig2, 0));  // 4 + 4 memory slices: none left
  a.release(mig0);
  EXPECT_TRUE(a.can_allocate(mig2, 0));
  a.release(mig1);
  ASSERT_TRUE(a.allocate(whole, 0));
  EXPECT_EQ(a.allocation(3)->results[0].device, "gpu-0");
  EXPECT_FALSE(a.can_allocate(mig2, 0));  // the whole GPU took every counter
}

// An 80Gi GPU shared by memory: requests are rounded up to a 1Gi step from 1Gi, a claim without
// a request takes the 10Gi default, and each allocation gets its own share ID.
DraModel shared_model() {
  DraModel m;
  add_class(m, "gpu");
  DraDevice d = device("gpu-0");
  d.allow_multiple_allocations = true;
  DraDeviceCapacity mem;
  mem.name = "memory";
  mem.qualified = "gpu.nvidia.com/memory";
  mem.value = q(80 * kGi, "80Gi");
  DraCapacityRequestPolicy p;
  p.default_value = q(10 * kGi, "10Gi");
  p.valid_range = DraCapacityRequestPolicyRange{q(kGi, "1Gi"), std::nullopt, q(kGi, "1Gi")};
  mem.request_policy = p;
  d.capacity.push_back(mem);
  m.resource_slices.push_back(node_slice("n1", {d}));
  auto mem_claim = [](std::string name, int64_t bytes, std::string text) {
    DraDeviceSubRequest r = exact("gpu");
    if (bytes > 0) r.capacity_requests.push_back({"memory", q(bytes, std::move(text))});
    return claim(std::move(name), {request("gpu", r)});
  };
  m.resource_claims.push_back(mem_claim("a", 30 * kGi, "30Gi"));
  m.resource_claims.push_back(mem_claim("b", 1500 * (int64_t{1} << 20), "1500Mi"));
  m.resource_claims.push_back(mem_claim("c", 0, ""));
  m.resource_claims.push_back(mem_claim("d", 40 * kGi, "40Gi"));
  return m;
}

TEST(DraAllocator, ConsumableCapacitySharedAndReleased) {
  const DraModel m = shared_model();
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"});
  const std::array<DraClaimId, 1> ca{0}, cb{1}, cc{2}, cd{3};
  ASSERT_TRUE(a.allocate(ca, 0));
  ASSERT_TRUE(a.allocate(cb, 0));
  ASSERT_TRUE(a.allocate(cc, 0));
  // 30Gi + 2Gi (1500Mi rounded up to the step) + 10Gi (the default) = 42Gi; 40Gi more is 82Gi.
  EXPECT_EQ(a.allocation(1)->results[0].consumed_capacity[0].value.value, 2 * kGi);
  EXPECT_EQ(a.allocation(1)->results[0].consumed_capacity[0].value.text, "2Gi");
  EXPECT_EQ(a.allocation(2)->results[0].consumed_capacity[0].value.text, "10Gi");
  EXPECT_NE(*a.allocation(0)->results[0].share_id, *a.allocation(1)->results[0].share_id);
  EXPECT_FALSE(a.can_allocate(cd, 0));
  a.release(cb);  // 40Gi in use: 40Gi more fits exactly
  ASSERT_TRUE(a.allocate(cd, 0)) << a.last_failure();
  EXPECT_FALSE(a.allocation(1).has_value());
  a.release(ca);
  a.release(cc);
  a.release(cd);
  // All released: one claim may now take the whole device in a single request.
  EXPECT_TRUE(a.can_allocate(cd, 0));
}

TEST(DraAllocator, ClaimNoNodeCanSatisfy) {
  DraModel m;
  add_class(m, "gpu");
  m.resource_slices.push_back(
      node_slice("n1", {device("gpu-0", {str_attr("productName", "A100")})}));
  m.resource_slices.push_back(
      node_slice("n2", {device("gpu-0", {str_attr("productName", "A100")})}));
  m.resource_claims.push_back(claim(
      "h100", {request("gpu", exact("gpu", 1, {selector(m, "gpu.nvidia.com/productName=H100")}))}));
  m.resource_claims.push_back(claim("missing", {request("gpu", exact("no-such-class"))}));
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1", "n2"});
  const std::array<DraClaimId, 1> h100{0}, missing{1};
  for (uint32_t n = 0; n < 2; ++n) {
    EXPECT_FALSE(a.can_allocate(h100, n));
  }
  EXPECT_EQ(a.last_failure(), "claim default/h100: no device left for request gpu on node n2");
  EXPECT_FALSE(a.can_allocate(missing, 0));
  EXPECT_EQ(a.last_failure(), "claim default/missing: device class no-such-class not found");
}

// The hand-worked case: two GPUs of node n1 for request "gpu", the class's GpuConfig and the
// claim's config both applying to every request, and the node selector pinning the claim.
TEST(DraAllocator, StatusAllocationFieldByField) {
  DraModel m;
  add_class(m, "gpu.nvidia.com");
  DraOpaqueDeviceConfiguration class_cfg{kDriver, R"({"kind":"GpuConfig"})", std::nullopt};
  m.device_classes[0].config.push_back(class_cfg);
  m.resource_slices.push_back(node_slice("n0", {device("gpu-0")}));
  m.resource_slices.push_back(
      node_slice("n1", {device("gpu-0"), device("gpu-1"), device("gpu-2")}));
  DraResourceClaim c = claim("pair", {request("gpu", exact("gpu.nvidia.com", 2))});
  DraDeviceClaimConfiguration cfg;
  cfg.requests = {"gpu"};
  cfg.opaque = {kDriver, R"({"sharing":{"strategy":"MPS"}})", std::nullopt};
  c.spec.config.push_back(cfg);
  m.resource_claims.push_back(c);
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n0", "n1"});
  const std::array<DraClaimId, 1> claims{0};
  EXPECT_FALSE(a.can_allocate(claims, 0));
  ASSERT_TRUE(a.allocate(claims, 1));
  const DraAllocationResult& r = *a.allocation(0);
  ASSERT_EQ(r.results.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.results[i].request, "gpu");
    EXPECT_EQ(r.results[i].driver, "gpu.nvidia.com");
    EXPECT_EQ(r.results[i].pool, "n1");
    EXPECT_EQ(r.results[i].device, "gpu-" + std::to_string(i));
    EXPECT_FALSE(r.results[i].admin_access);
    EXPECT_FALSE(r.results[i].share_id.has_value());
    EXPECT_TRUE(r.results[i].consumed_capacity.empty());
  }
  ASSERT_EQ(r.config.size(), 2u);
  EXPECT_EQ(r.config[0].source, "FromClass");
  EXPECT_TRUE(r.config[0].requests.empty());  // names every request: written as none
  EXPECT_EQ(r.config[0].opaque.parameters_json, R"({"kind":"GpuConfig"})");
  EXPECT_EQ(r.config[1].source, "FromClaim");
  EXPECT_TRUE(r.config[1].requests.empty());
  EXPECT_EQ(r.config[1].opaque.parameters_json, R"({"sharing":{"strategy":"MPS"}})");
  ASSERT_TRUE(r.node_selector.has_value());
  ASSERT_EQ(r.node_selector->node_selector_terms.size(), 1u);
  const auto& f = r.node_selector->node_selector_terms[0].match_fields;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "metadata.name");
  EXPECT_EQ(f[0].op, "In");
  EXPECT_EQ(f[0].values, std::vector<std::string>{"n1"});
  EXPECT_EQ(a.allocated_node(0), 1u);
  ASSERT_EQ(a.held_devices(0).size(), 2u);
  EXPECT_EQ(a.held_devices(0)[1].device, 1u);
}

TEST(DraAllocator, AllModeAndAdminAccess) {
  DraModel m;
  add_class(m, "gpu");
  m.resource_slices.push_back(node_slice("n1", {device("gpu-0"), device("gpu-1")}));
  DraDeviceSubRequest all = exact("gpu");
  all.allocation_mode = DraAllocationMode::All;
  m.resource_claims.push_back(claim("all", {request("gpu", all)}));
  DraDeviceSubRequest admin = exact("gpu");
  admin.admin_access = true;
  m.resource_claims.push_back(claim("monitor", {request("gpu", admin)}));
  m.resource_claims.push_back(claim("one", {request("gpu", exact("gpu"))}));
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"});
  const std::array<DraClaimId, 1> all_c{0}, mon{1}, one{2};
  ASSERT_TRUE(a.allocate(one, 0));
  EXPECT_FALSE(a.can_allocate(all_c, 0));  // gpu-0 is in use
  ASSERT_TRUE(a.allocate(mon, 0));         // admin access ignores use
  EXPECT_TRUE(a.allocation(1)->results[0].admin_access);
  a.release(one);
  ASSERT_TRUE(a.allocate(all_c, 0));  // the admin allocation does not hold the device
  EXPECT_EQ(a.allocation(0)->results.size(), 2u);
}

// Eight of sixteen GPUs, then a NIC no node has: every combination of GPUs is tried before the
// search gives up (C(16, 8) = 12870 of them, each followed by the 16 devices tried for the NIC),
// unless the step bound stops it first: the default does, the ceiling lets it finish.
TEST(DraAllocator, SearchIsBounded) {
  DraModel m;
  add_class(m, "gpu", {selector(m, "gpu.nvidia.com/type=gpu")});
  add_class(m, "nic", {selector(m, "gpu.nvidia.com/type=nic")});
  std::vector<DraDevice> devs;
  devs.reserve(16);
  for (int i = 0; i < 16; ++i) {
    devs.push_back(device("gpu-" + std::to_string(i), {str_attr("type", "gpu")}));
  }
  m.resource_slices.push_back(node_slice("n1", devs));
  m.resource_claims.push_back(
      claim("c", {request("g", exact("gpu", 8)), request("n", exact("nic"))}));
  FakeSelectors sel(m);
  DraStructuredAllocator bounded(m, sel, {"n1"}, 50);
  const std::array<DraClaimId, 1> claims{0};
  EXPECT_FALSE(bounded.can_allocate(claims, 0));
  EXPECT_EQ(bounded.last_steps(), 51);
  EXPECT_EQ(bounded.last_failure(), "search stopped after 50 steps on node n1");
  DraStructuredAllocator by_default(m, sel, {"n1"});
  EXPECT_FALSE(by_default.can_allocate(claims, 0));
  EXPECT_EQ(by_default.last_failure(), "search stopped after 200000 steps on node n1");
  DraStructuredAllocator full(m, sel, {"n1"}, DraStructuredAllocator::kMaxMaxSteps);
  EXPECT_FALSE(full.can_allocate(claims, 0));
  EXPECT_GT(full.last_steps(), 12870 * 16);
  EXPECT_EQ(full.last_failure(), "claim default/c: no device left for request n on node n1");
}

// The adversarial matchAttribute case: each claim asks for 8 GPUs and a NIC on one PCIe root;
// the node's 200 GPUs sit on root 1 and its only NIC on root 2, so every combination of 8 of the
// 200 GPUs (5.5e13 of them) fails at the NIC. The step bound stops each attempt; at the ceiling,
// five pods' claims take well under a second together (bench/dra_allocator.cc,
// BM_DraAdversarialMatchAttribute, has the figure).
TEST(DraAllocator, AdversarialMatchAttributeStopsAtTheCeiling) {
  DraModel m;
  add_class(m, "gpu", {selector(m, "gpu.nvidia.com/type=gpu")});
  add_class(m, "nic", {selector(m, "gpu.nvidia.com/type=nic")});
  std::vector<DraDevice> devs;
  devs.reserve(201);
  for (int i = 0; i < 200; ++i)
    devs.push_back(
        device("gpu-" + std::to_string(i), {str_attr("type", "gpu"), int_attr("pcieRoot", 1)}));
  devs.push_back(device("nic-0", {str_attr("type", "nic"), int_attr("pcieRoot", 2)}));
  m.resource_slices.push_back(node_slice("n1", devs));
  for (int pod = 0; pod < 5; ++pod) {
    DraResourceClaim c = claim("pod-" + std::to_string(pod),
                               {request("g", exact("gpu", 8)), request("n", exact("nic"))});
    c.spec.constraints.push_back({{"g", "n"}, "gpu.nvidia.com/pcieRoot"});
    m.resource_claims.push_back(c);
  }
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"}, DraStructuredAllocator::kMaxMaxSteps);
  const auto start = std::chrono::steady_clock::now();
  for (DraClaimId c = 0; c < 5; ++c) {
    const std::array<DraClaimId, 1> one{c};
    EXPECT_FALSE(a.allocate(one, 0));
    EXPECT_EQ(a.last_failure(), "search stopped after 1000000 steps on node n1");
    // A step more than the bound at most: each device tried costs its constraint check too.
    EXPECT_LE(a.last_steps(), DraStructuredAllocator::kMaxMaxSteps + 2);
  }
  const auto spent = std::chrono::steady_clock::now() - start;
#ifdef SLICELAB_SANITIZED
  constexpr auto kBound = std::chrono::seconds(5);  // ASan and UBSan run it several times slower
#else
  constexpr auto kBound = std::chrono::seconds(1);
#endif
  EXPECT_LT(spent, kBound) << std::chrono::duration<double>(spent).count() << " s";
}

// The time limit is a safety net: a search still running past it (here made slow by selectors
// that take a millisecond each on the first 200 devices, with the limit shortened to 50 ms)
// stops with an error, not a result, and leaves the allocator as it was.
TEST(DraAllocator, TimeLimitStopsASlowSearchWithAnError) {
  class SlowSelectors final : public DraSelectorEvaluator {
   public:
    explicit SlowSelectors(const DraModel& m) : fake_(m) {}
    bool matches(DraSelectorId id, const DraDevice& d, std::string_view driver) const override {
      if (++calls_ <= 200) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return fake_.matches(id, d, driver);
    }

   private:
    FakeSelectors fake_;
    mutable int calls_ = 0;  // slow for the first 200 devices only
  };
  DraModel m;
  add_class(m, "gpu", {selector(m, "gpu.nvidia.com/type=gpu")});
  std::vector<DraDevice> devs;
  devs.reserve(1000);
  for (int i = 0; i < 1000; ++i)
    devs.push_back(device("d-" + std::to_string(i), {str_attr("type", "other")}));
  devs.push_back(device("gpu-0", {str_attr("type", "gpu")}));
  m.resource_slices.push_back(node_slice("n1", devs));
  m.resource_claims.push_back(claim("c", {request("g", exact("gpu"))}));
  const SlowSelectors slow(m);
  DraStructuredAllocator a(m, slow, {"n1"}, DraStructuredAllocator::kDefaultMaxSteps,
                           std::chrono::milliseconds(50));
  const std::array<DraClaimId, 1> one{0};
  try {
    (void)a.allocate(one, 0);
    ADD_FAILURE() << "no time limit";
  } catch (const DraSearchTimeLimitError& e) {
    EXPECT_NE(std::string(e.what()).find("past its 50 ms safety limit"), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(a.allocation(0).has_value());
  // Once the selectors are fast again, the same allocator allocates: nothing was left taken.
  ASSERT_TRUE(a.allocate(one, 0)) << a.last_failure();
  EXPECT_EQ(a.allocation(0)->results.at(0).device, "gpu-0");
}

// The ceiling is the allocator's contract, not only the scenario reader's.
TEST(DraAllocator, MaxStepsOutsideItsRangeRefused) {
  DraModel m;
  FakeSelectors sel(m);
  EXPECT_THROW(DraStructuredAllocator(m, sel, {"n1"}, DraStructuredAllocator::kMaxMaxSteps + 1),
               std::invalid_argument);
  EXPECT_THROW(DraStructuredAllocator(m, sel, {"n1"}, 0), std::invalid_argument);
  EXPECT_NO_THROW(DraStructuredAllocator(m, sel, {"n1"}, DraStructuredAllocator::kMaxMaxSteps));
}

// Many slices of incomplete pools on one node: each one the search passes counts a step, so a
// file of empty slices cannot make one step cost unbounded time.
TEST(DraAllocator, SlicesPassedCountAsSteps) {
  DraModel m;
  add_class(m, "gpu");
  for (int i = 0; i < 1000; ++i) {
    DraResourceSlice s = node_slice("n1", {});
    s.name = "empty-" + std::to_string(i);
    s.pool = {"pool-" + std::to_string(i), 1, 2};  // one of two slices: incomplete
    m.resource_slices.push_back(s);
  }
  m.resource_claims.push_back(claim("c", {request("g", exact("gpu"))}));
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1"}, 100);
  const std::array<DraClaimId, 1> one{0};
  EXPECT_FALSE(a.can_allocate(one, 0));
  EXPECT_EQ(a.last_failure(), "search stopped after 100 steps on node n1");
}

// node_version: what a cache of can_allocate answers keys on. It moves with an allocation or
// release on the node (and only its node), not with a search that allocates nothing, nor with
// a second consumer of a claim already allocated.
TEST(DraAllocator, NodeVersionMovesWithAllocationsOnItsNode) {
  DraModel m;
  add_class(m, "gpu");
  for (const char* n : {"n1", "n2"})
    m.resource_slices.push_back(node_slice(n, {device("gpu-0", {}), device("gpu-1", {})}));
  m.resource_claims.push_back(claim("a", {request("gpu", exact("gpu"))}));
  m.resource_claims.push_back(claim("b", {request("gpu", exact("gpu", 2))}));
  FakeSelectors sel(m);
  DraStructuredAllocator a(m, sel, {"n1", "n2"});
  const std::array<DraClaimId, 1> ca{0}, cb{1};
  const uint64_t n1 = a.node_version(0), n2 = a.node_version(1);
  EXPECT_TRUE(a.can_allocate(cb, 0));
  EXPECT_EQ(a.node_version(0), n1);
  ASSERT_TRUE(a.allocate(ca, 0));
  const uint64_t taken = a.node_version(0);
  EXPECT_NE(taken, n1);
  EXPECT_EQ(a.node_version(1), n2);
  EXPECT_FALSE(a.can_allocate(cb, 0));  // one GPU left on n1: the answer did change
  ASSERT_TRUE(a.allocate(ca, 0));       // a second consumer: no device changes hands
  EXPECT_EQ(a.node_version(0), taken);
  a.release(ca);
  EXPECT_EQ(a.node_version(0), taken);  // still held by the first consumer
  a.release(ca);
  EXPECT_NE(a.node_version(0), taken);
  EXPECT_TRUE(a.can_allocate(cb, 0));
}

}  // namespace
}  // namespace slicelab
