#include "sim/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <vector>

#include "sim/cluster_state.h"
#include "sim/engine/pending_queue.h"
#include "sim/engine/retry_shortcut.h"
#include "sim/engine/static_feasibility.h"
#include "sim/metrics/distribution.h"
#include "sim/metrics/fragmentation.h"
#include "sim/placement/paper_scorers.h"
#include "sim/placement/pod_request.h"
#include "sim/sharing/gpu_rate_solver.h"
#include "sim/sharing/sharing_run.h"
#include "sim/topology/gpu_topology.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"

namespace slicelab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr uint32_t kNoPod = UINT32_MAX;

struct FinishEvent {
  double time;
  uint64_t seq;
  uint32_t pod;
  uint32_t version;
  bool starts = false;  // it starts after its start delay (MIG: re-partitioning), not a finish
  // std::priority_queue is a max-heap: "greater" means later.
  bool operator<(const FinishEvent& o) const {
    return time > o.time || (time == o.time && seq > o.seq);
  }
};

class Simulation {
 public:
  Simulation(const RunInputs& in, PlacementPolicy& placement)
      : in_(in),
        placement_(placement),
        mode_(in.sharing),
        cluster_(in.cluster, in.catalog, in.sharing.capacity_units()),
        rng_(in.seed),
        max_tenants_(static_cast<size_t>(in.sharing.max_tenants())),
        retry_(in.pods.size()) {}

  RunResult run(const ProgressFn& progress);

 private:
  void prepare();
  void advance(double t);
  void arrive(uint32_t p, uint64_t seq);
  void finish(uint32_t p);
  void schedule_pending();
  bool try_place(uint32_t p);
  void start_work(uint32_t p);
  void start_after_reconfiguration(uint32_t p);
  bool fails_for_memory(uint32_t p);
  std::optional<std::string> never_fits(uint32_t p);
  // Capped modes (issue 4): a peak over the pod's hard limit, or a modelled client fault.
  bool fails_own_limit(uint32_t p);
  void propagate_fault(uint32_t p);
  void fail_running(uint32_t p, FailureCause cause, const char* reason);
  // Gives a running pod's GPUs (and what its reservation held) back and updates the accounting.
  void release(uint32_t p);
  void add_tenant(GpuId g, uint32_t p);
  void remove_tenant(GpuId g, uint32_t p);
  void recompute_gpu(GpuId g);
  void refresh_gpu_usage(GpuId g);
  void update_pod_rate(uint32_t p);
  void settle(uint32_t p);
  void schedule_finish(uint32_t p);
  void take_sample(double t);
  void set_gpu_usage(GpuId g, double sm, double mem);
  void refresh_node_fragmentation(NodeId n);
  void record_fill_point();
  RunSummary summarize() const;

  const RunInputs& in_;
  PlacementPolicy& placement_;
  const SharingMode& mode_;
  ClusterState cluster_;
  Rng rng_;
  size_t max_tenants_;

  // Per pod (index into in_.pods).
  std::vector<PodRequest> req_;
  std::vector<double> remaining_, rate_, last_update_, speed_;
  std::vector<uint32_t> version_;
  std::vector<uint32_t> gpu_offset_;  // into pod_gpu_ (global GPU ids), prefix sums
  std::vector<GpuId> pod_gpu_;
  std::vector<PodOutcome> out_;
  ReasonTable reasons_;  // the texts out_[p].reason names
  std::vector<uint32_t> arrival_order_;

  // Per GPU: tenants in fixed-size slots, their rates, and what the GPU delivers.
  std::vector<uint32_t> tenant_pod_;
  std::vector<double> tenant_rate_;
  std::vector<uint8_t> tenant_count_;
  std::vector<double> gpu_sm_, gpu_mem_;

  // Per GPU model: running sums and their time integrals.
  std::vector<double> model_sm_, model_mem_, model_alloc_;
  std::vector<double> model_sm_int_, model_mem_int_, model_alloc_int_;
  std::vector<size_t> model_gpus_;
  double alloc_int_ = 0;

  std::priority_queue<FinishEvent> events_;
  uint64_t seq_ = 0;
  PendingQueue pending_;
  std::vector<PodRequest> failed_shapes_;
  // A retry only needs the nodes freed since the pod last failed; all others still fail.
  RetryShortcut retry_;
  // Capped modes and interference (issue 4): each pod's load as the rate model sees it, its
  // peak device memory, and its isolation error (current, and integrated over its run).
  std::vector<TenantLoad> load_;
  std::vector<int64_t> peak_mib_;
  std::vector<double> err_now_, err_int_, err_time_;
  std::array<double, 64> errors_{};
  std::vector<GpuId> pick_;
  std::array<TenantLoad, 64> loads_{};
  std::array<double, 64> rates_{};
  GpuRateSolver solver_;
  std::array<uint32_t, kMaxTenantsPerGpu> tenant_vars_ = [] {
    std::array<uint32_t, kMaxTenantsPerGpu> v{};
    std::iota(v.begin(), v.end(), 0U);
    return v;
  }();

  double now_ = 0;
  double t0_ = 0;
  uint32_t running_ = 0;
  uint64_t events_done_ = 0, attempts_ = 0;
  std::optional<double> first_failure_t_, first_failure_alloc_;
  std::vector<Sample> samples_;

  // FGD's fragmentation, kept per node and refreshed only when a node changes.
  TargetWorkload target_;
  std::vector<double> node_frag_;
  std::vector<int> milli_scratch_;
  double frag_total_ = 0, frag_int_ = 0;
  // Fill experiment.
  double arrived_gpus_ = 0, failed_gpus_ = 0;
  std::vector<FillPoint> fill_curve_;
  std::vector<double> comm_quality_;  // one per multi-GPU pod placed on a node with a topology
  // The sharing mode's own state for this run (MIG: its instances) and the time integral of the
  // capacity it reports stranded.
  std::unique_ptr<SharingRun> sharing_;
  double stranded_int_ = 0;
};

void Simulation::prepare() {
  const auto& pods = in_.pods;
  const size_t n = pods.size();
  req_.resize(n);
  remaining_.resize(n);
  rate_.assign(n, 0.0);
  last_update_.assign(n, 0.0);
  speed_.assign(n, 1.0);
  version_.assign(n, 0);
  out_.resize(n);
  gpu_offset_.resize(n + 1);
  const auto& models = in_.catalog.models();
  uint32_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    const PodSpec& s = pods[i];
    req_[i] = make_pod_request(s, mode_, in_.catalog);
    gpu_offset_[i] = off;
    off += static_cast<uint32_t>(s.gpu_count);
  }
  load_.resize(n);
  peak_mib_.resize(n);
  err_now_.assign(n, -1.0);
  err_int_.assign(n, 0.0);
  err_time_.assign(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const PodRequest& r = req_[i];
    TenantLoad& l = load_[i];
    l.sm_demand = static_cast<double>(r.gpu_milli) / 1000.0;
    l.memory_mib = r.gpu_memory_mib;
    l.cap = r.gpu_count > 0
                ? static_cast<double>(r.claim_units) / static_cast<double>(mode_.capacity_units())
                : 1.0;
    peak_mib_[i] = r.gpu_memory_mib;
    if (in_.classes == nullptr) continue;
    if (auto c = in_.classes->index_of(pods[i].workload_class)) {
      const WorkloadClass& wc = (*in_.classes)[*c];
      l.sm_demand = wc.sm;
      l.bandwidth = wc.bandwidth;
      l.launch_khz = wc.launch_khz;
      if (wc.memory_mib > 0) peak_mib_[i] = wc.memory_mib;
    }
  }
  gpu_offset_[n] = off;
  pod_gpu_.resize(off);
  arrival_order_.resize(n);
  std::iota(arrival_order_.begin(), arrival_order_.end(), 0U);
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](uint32_t a, uint32_t b) { return pods[a].arrival_s < pods[b].arrival_s; });

  const size_t gpus = cluster_.gpu_count();
  tenant_pod_.assign(gpus * max_tenants_, kNoPod);
  tenant_rate_.assign(gpus * max_tenants_, 0.0);
  tenant_count_.assign(gpus, 0);
  gpu_sm_.assign(gpus, 0.0);
  gpu_mem_.assign(gpus, 0.0);
  const size_t m = models.size();
  model_sm_.assign(m, 0);
  model_mem_.assign(m, 0);
  model_alloc_.assign(m, 0);
  model_sm_int_.assign(m, 0);
  model_mem_int_.assign(m, 0);
  model_alloc_int_.assign(m, 0);
  model_gpus_.assign(m, 0);
  for (NodeId node = 0; node < cluster_.node_count(); ++node)
    model_gpus_[cluster_.model(node)] += static_cast<size_t>(cluster_.gpus_on(node));
  pick_.resize(static_cast<size_t>(std::max(cluster_.max_gpus_per_node(), 1)));

  // GPU shapes as small tags, for policies that group like shapes on a node (gpu-clustering).
  const int max_gpus = cluster_.max_gpus_per_node();
  for (PodRequest& r : req_) r.shape_tag = clustering_tag(r, mode_.capacity_units(), max_gpus);
  cluster_.track_shape_tags(2 * static_cast<size_t>(max_gpus + 1));

  // The FGD paper builds its target from the trace, not from the workload the run replays.
  target_ =
      TargetWorkload::from_pods(in_.target_pods.empty() ? pods : in_.target_pods, in_.catalog);
  node_frag_.assign(cluster_.node_count(), 0.0);
  milli_scratch_.resize(pick_.size());
  for (NodeId node = 0; node < cluster_.node_count(); ++node) refresh_node_fragmentation(node);
  if (in_.config.fill) fill_curve_.reserve(n);
  failed_shapes_.reserve(64);
  sharing_ = mode_.start_run(RunSetup{cluster_, in_.catalog, pods, req_});
  // The retry shortcut first: it narrows the node set at no cost.
  RunPlugins plugins = sharing_->plugins();
  plugins.pre_filters.insert(plugins.pre_filters.begin(), &retry_);
  placement_.attach(plugins);
}

void Simulation::advance(double t) {
  const double dt = t - now_;
  if (dt > 0) {
    for (size_t m = 0; m < model_sm_.size(); ++m) {
      model_sm_int_[m] += model_sm_[m] * dt;
      model_mem_int_[m] += model_mem_[m] * dt;
      model_alloc_int_[m] += model_alloc_[m] * dt;
    }
    alloc_int_ += static_cast<double>(cluster_.allocated_units()) * dt;
    frag_int_ += frag_total_ * dt;
    stranded_int_ += sharing_->stranded_gpus() * dt;
  }
  now_ = t;
}

void Simulation::settle(uint32_t p) {
  if (err_now_[p] >= 0) {
    err_int_[p] += err_now_[p] * (now_ - last_update_[p]);
    err_time_[p] += now_ - last_update_[p];
  }
  remaining_[p] = std::max(0.0, remaining_[p] - rate_[p] * (now_ - last_update_[p]));
  last_update_[p] = now_;
}

void Simulation::schedule_finish(uint32_t p) {
  ++version_[p];
  events_.push({now_ + remaining_[p] / rate_[p], seq_++, p, version_[p]});
}

void Simulation::set_gpu_usage(GpuId g, double sm, double mem) {
  const uint16_t m = cluster_.model(cluster_.node_of(g));
  model_sm_[m] += sm - gpu_sm_[g];
  model_mem_[m] += mem - gpu_mem_[g];
  gpu_sm_[g] = sm;
  gpu_mem_[g] = mem;
}

void Simulation::add_tenant(GpuId g, uint32_t p) {
  const size_t base = g * max_tenants_;
  assert(tenant_count_[g] < max_tenants_);
  tenant_pod_[base + tenant_count_[g]++] = p;
}

void Simulation::remove_tenant(GpuId g, uint32_t p) {
  const size_t base = g * max_tenants_;
  const size_t n = tenant_count_[g];
  for (size_t k = 0; k < n; ++k) {
    if (tenant_pod_[base + k] != p) continue;
    // Keep arrival order of the others: the OOM rule and ties depend on it.
    for (size_t j = k + 1; j < n; ++j) {
      tenant_pod_[base + j - 1] = tenant_pod_[base + j];
      tenant_rate_[base + j - 1] = tenant_rate_[base + j];
    }
    tenant_pod_[base + n - 1] = kNoPod;
    --tenant_count_[g];
    return;
  }
}

void Simulation::recompute_gpu(GpuId g) {
  const size_t base = g * max_tenants_;
  const size_t n = tenant_count_[g];
  if (n > 0) {
    for (size_t k = 0; k < n; ++k) loads_[k] = load_[tenant_pod_[base + k]];
    sharing_->apply_sm_caps(g, std::span<const uint32_t>(tenant_pod_).subspan(base, n),
                            std::span(loads_).first(n));
    solver_.clear();
    solver_.add_gpu(mode_, std::span(loads_).first(n), std::span(tenant_vars_).first(n));
    solver_.solve(std::span(rates_).first(n), std::span(errors_).first(n));
    std::copy_n(rates_.begin(), n, tenant_rate_.begin() + static_cast<std::ptrdiff_t>(base));
  }
  for (size_t k = 0; k < n; ++k) {
    const uint32_t p = tenant_pod_[base + k];
    // The error accrued so far is at the old value; the new one holds from now on.
    if (errors_[k] != err_now_[p]) {
      settle(p);
      err_now_[p] = errors_[k];
    }
    update_pod_rate(p);
  }
  refresh_gpu_usage(g);
}

void Simulation::refresh_gpu_usage(GpuId g) {
  // SM time the GPU delivers: each tenant's demand at the pace it really runs, which for a
  // multi-GPU pod is that of its slowest GPU. (The share it leaves unused here is not handed
  // to its neighbours: the rate model is per GPU.)
  const size_t base = g * max_tenants_;
  double sm = 0;
  for (size_t k = 0; k < tenant_count_[g]; ++k) {
    const uint32_t p = tenant_pod_[base + k];
    sm += static_cast<double>(req_[p].gpu_milli) / 1000.0 * (rate_[p] / speed_[p]);
  }
  const int64_t mem_cap = cluster_.gpu_memory_capacity(cluster_.node_of(g));
  const double mem = mem_cap > 0 ? std::min(1.0, static_cast<double>(cluster_.gpu_memory_used(g)) /
                                                     static_cast<double>(mem_cap))
                                 : 0.0;
  set_gpu_usage(g, std::min(sm, 1.0), mem);
}

void Simulation::update_pod_rate(uint32_t p) {
  // A multi-GPU pod moves at the pace of its slowest GPU (synchronous steps).
  double r = kInf;
  for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) {
    const GpuId g = pod_gpu_[i];
    const size_t base = g * max_tenants_;
    for (size_t k = 0; k < tenant_count_[g]; ++k)
      if (tenant_pod_[base + k] == p) r = std::min(r, tenant_rate_[base + k]);
  }
  if (r == kInf) r = 1.0;
  r *= speed_[p];
  if (r == rate_[p]) return;
  settle(p);
  rate_[p] = r;
  schedule_finish(p);
  // Its pace changed on every GPU it spans, not only on the one being recomputed.
  if (gpu_offset_[p + 1] - gpu_offset_[p] > 1)
    for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) refresh_gpu_usage(pod_gpu_[i]);
}

bool Simulation::fails_for_memory(uint32_t p) {
  const PodRequest& r = req_[p];
  // A partitioned GPU (MIG): only the pod's own partition can be too small for it.
  for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) {
    const GpuId g = pod_gpu_[i];
    const int64_t cap = sharing_->partition_memory_mib(g, p);
    if (cap < 0 || r.gpu_memory_mib <= cap) continue;
    const NodeId node = cluster_.node_of(g);
    out_[p].reason = reasons_.add(fmt::format(
        "out of memory in {} on {} GPU {}: needs {} MiB of {}", sharing_->partition_name(g, p),
        cluster_.node_name(node), g - cluster_.first_gpu(node), r.gpu_memory_mib, cap));
    out_[p].failure = FailureCause::kInstanceMemory;
    return true;
  }
  if (mode_.isolates_memory()) return false;
  for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) {
    const GpuId g = pod_gpu_[i];
    const NodeId node = cluster_.node_of(g);
    const int64_t cap = cluster_.gpu_memory_capacity(node);
    const int64_t used = cluster_.gpu_memory_used(g);  // includes this pod
    if (used <= cap) continue;
    out_[p].reason = reasons_.add(
        fmt::format("out of memory on {} GPU {}: needs {} MiB, neighbours hold {} of {} MiB",
                    cluster_.node_name(node), g - cluster_.first_gpu(node), r.gpu_memory_mib,
                    used - r.gpu_memory_mib, cap));
    out_[p].failure = FailureCause::kNeighboursMemory;
    return true;
  }
  return false;
}

bool Simulation::fails_own_limit(uint32_t p) {
  const PodRequest& r = req_[p];
  if (r.gpu_count == 0) return false;
  PodOutcome& o = out_[p];
  for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) {
    const GpuId g = pod_gpu_[i];
    const NodeId node = cluster_.node_of(g);
    const int64_t limit =
        mode_.memory_limit_mib(r.gpu_memory_mib, cluster_.gpu_memory_capacity(node));
    if (limit < 0 || peak_mib_[p] <= limit) continue;
    o.reason = reasons_.add(fmt::format(
        "out of memory on {} GPU {}: peak {} MiB over its {} limit of {} MiB",
        cluster_.node_name(node), g - cluster_.first_gpu(node), peak_mib_[p], mode_.kind(), limit));
    o.failure = FailureCause::kOverMemoryCap;
    return true;
  }
  // A draw only where the mode models client faults, so other modes' random streams (and
  // results) are unchanged.
  if (const double q = mode_.client_fault_probability(); q > 0 && rng_.uniform() < q) {
    o.reason =
        reasons_.add(fmt::format("{} client fault (modelled, probability {:g})", mode_.kind(), q));
    o.failure = FailureCause::kClientFault;
    return true;
  }
  return false;
}

// No fault isolation: each running neighbour on the failed pod's GPUs fails with the mode's
// probability, one draw per neighbour in tenant (arrival) order. The failed pod never became a
// tenant (it fails as it starts), so only its neighbours are drawn.
void Simulation::propagate_fault(uint32_t p) {
  const double q = mode_.fault_propagation();
  if (q <= 0) return;
  for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i) {
    const GpuId g = pod_gpu_[i];
    const size_t base = g * max_tenants_;
    // Collect first: failing a neighbour removes it from this GPU's tenant slots.
    std::array<uint32_t, 64> victims{};
    size_t count = 0;
    for (size_t k = 0; k < tenant_count_[g]; ++k)
      if (rng_.uniform() < q) victims[count++] = tenant_pod_[base + k];
    for (size_t k = 0; k < count; ++k)
      if (out_[victims[k]].status == PodStatus::kRunning)
        fail_running(victims[k], FailureCause::kNeighbourFault, "MPS neighbour fault");
  }
}

void Simulation::fail_running(uint32_t p, FailureCause cause, const char* reason) {
  settle(p);
  ++version_[p];  // its finish event is void
  PodOutcome& o = out_[p];
  o.status = PodStatus::kFailed;
  o.finish_s = now_;
  o.failure = cause;
  o.reason = reasons_.add(reason);
  release(p);
}

// Forced inline: finish() runs once per pod on the event loop, and as a call this measured
// 5-10% slower on bench/sim_throughput's BM_BestFitWholeCard (noisy; inline matches before).
[[gnu::always_inline]] inline void Simulation::release(uint32_t p) {
  --running_;
  const PodRequest& r = req_[p];
  const auto gpus =
      std::span<const GpuId>(pod_gpu_).subspan(gpu_offset_[p], static_cast<size_t>(r.gpu_count));
  const NodeId node = static_cast<NodeId>(out_[p].node);
  cluster_.unbind(node, gpus, r);
  sharing_->release(p, gpus);
  refresh_node_fragmentation(node);
  retry_.node_freed(node);
  model_alloc_[cluster_.model(node)] -= static_cast<double>(r.claim_units) /
                                        static_cast<double>(cluster_.capacity_units()) *
                                        static_cast<double>(r.gpu_count);
  for (const GpuId g : gpus) remove_tenant(g, p);
  for (const GpuId g : gpus) recompute_gpu(g);
}

bool Simulation::try_place(uint32_t p) {
  const PodRequest& r = req_[p];
  if (!retry_.worth_trying(p)) return false;  // nothing freed since it last failed
  ++attempts_;
  SchedulingCycle cycle{cluster_, req_[p], p, now_, rng_};
  const auto node = placement_.schedule(cycle, pick_);
  if (!node) {
    retry_.attempt_failed(p);
    if (!first_failure_t_) {
      first_failure_t_ = now_;
      first_failure_alloc_ = static_cast<double>(cluster_.allocated_units()) /
                             static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
    }
    return false;
  }
  const auto gpus = std::span<const GpuId>(pick_).first(static_cast<size_t>(r.gpu_count));
  std::copy(gpus.begin(), gpus.end(), pod_gpu_.begin() + gpu_offset_[p]);
  sharing_->pod_left_queue(p);
  cluster_.bind(*node, gpus, r);
  refresh_node_fragmentation(*node);
  if (const GpuTopology* topo = cluster_.topology(*node); topo != nullptr && gpus.size() >= 2) {
    std::array<int, 64> local{};
    for (size_t i = 0; i < gpus.size() && i < local.size(); ++i)
      local[i] = static_cast<int>(gpus[i] - cluster_.first_gpu(*node));
    comm_quality_.push_back(communication_quality(
        *topo, std::span<const int>(local).first(std::min<size_t>(gpus.size(), 64))));
  }
  PodOutcome& o = out_[p];
  o.node = static_cast<int32_t>(*node);
  o.start_s = now_;
  const uint16_t model = cluster_.model(*node);
  const double speed = in_.config.speed_scaling && r.gpu_count > 0
                           ? in_.catalog.models()[model].relative_speed
                           : 1.0;
  speed_[p] = speed;
  o.solo_s = in_.pods[p].duration_s / speed;
  const double claim_share =
      static_cast<double>(r.claim_units) / static_cast<double>(cluster_.capacity_units());
  const bool own = fails_own_limit(p);
  if (own || fails_for_memory(p)) {
    // Bound but cannot run: unbind it, then let the reserve plugins give back what they took
    // (they may restore the request's claim, which unbinding still needs).
    cluster_.unbind(*node, gpus, r);
    placement_.unreserve(cycle, *node, gpus);
    refresh_node_fragmentation(*node);
    o.status = PodStatus::kFailed;
    o.finish_s = now_;
    if (own) propagate_fault(p);
    return true;
  }
  o.status = PodStatus::kRunning;
  ++running_;
  model_alloc_[model] += claim_share * static_cast<double>(r.gpu_count);
  if (const double delay = sharing_->start_delay_s(p); delay > 0) {
    // Its GPUs are being prepared (MIG: re-partitioned): it holds them now and starts when that
    // is done.
    o.start_s = now_ + delay;
    ++version_[p];
    events_.push({o.start_s, seq_++, p, version_[p], true});
    return true;
  }
  start_work(p);
  return true;
}

void Simulation::start_after_reconfiguration(uint32_t p) {
  start_work(p);
  // The re-partitioned GPUs take new pods again.
  retry_.node_freed(static_cast<NodeId>(out_[p].node));
  schedule_pending();
}

void Simulation::start_work(uint32_t p) {
  const PodRequest& r = req_[p];
  const auto gpus =
      std::span<const GpuId>(pod_gpu_).subspan(gpu_offset_[p], static_cast<size_t>(r.gpu_count));
  // In a fill experiment nothing departs: the finish is never reached.
  remaining_[p] = in_.config.fill ? kInf : in_.pods[p].duration_s;
  last_update_[p] = now_;
  rate_[p] = 0;
  if (r.gpu_count == 0) {
    rate_[p] = 1.0;
    schedule_finish(p);
    return;
  }
  for (const GpuId g : gpus) add_tenant(g, p);
  for (const GpuId g : gpus) recompute_gpu(g);
}

std::optional<std::string> Simulation::never_fits(uint32_t p) {
  auto why = never_fits_reason(in_.cluster, in_.catalog, req_[p]);
  if (!why && req_[p].gpu_count > 0) why = sharing_->never_fits(p);
  if (why) sharing_->pod_left_queue(p);
  return why;
}

void Simulation::arrive(uint32_t p, uint64_t seq) {
  if (in_.config.fill) {
    const PodSpec& spec = in_.pods[p];
    const double demand = spec.gpu_count * static_cast<double>(spec.gpu_milli) / 1000.0;
    arrived_gpus_ += demand;
    if (auto why = never_fits(p)) {
      out_[p].status = PodStatus::kUnschedulable;
      out_[p].reason = reasons_.add("no node could ever hold it: " + *why);
      failed_gpus_ += demand;
    } else if (!try_place(p)) {
      out_[p].status = PodStatus::kUnschedulable;
      out_[p].reason = reasons_.add("no room when it arrived (fill experiment: one attempt)");
      failed_gpus_ += demand;
    } else if (out_[p].status == PodStatus::kFailed) {
      failed_gpus_ += demand;  // placed, then out of memory: its demand was not served either
    }
    record_fill_point();
    return;
  }
  if (auto why = never_fits(p)) {
    out_[p].status = PodStatus::kUnschedulable;
    out_[p].reason = reasons_.add("no node could ever hold it: " + *why);
    return;
  }
  // With backfill and nothing freed since the last pass, every waiting pod would fail again:
  // only the newcomer can succeed, so it is the only one tried.
  if (in_.config.backfill && !pending_.empty()) {
    if (!try_place(p)) pending_.push(p, in_.pods[p].priority, seq);
    return;
  }
  pending_.push(p, in_.pods[p].priority, seq);
  schedule_pending();
}

void Simulation::finish(uint32_t p) {
  settle(p);
  PodOutcome& o = out_[p];
  o.status = PodStatus::kCompleted;
  o.finish_s = now_;
  release(p);
  schedule_pending();
}

// A pod that failed and has seen no capacity freed since is skipped by try_place at no cost,
// so this may be called after any event.
void Simulation::schedule_pending() {
  if (pending_.empty()) return;
  if (!in_.config.backfill) {
    for (uint32_t head = pending_.front(); head != PendingQueue::kGone; head = pending_.front()) {
      if (!try_place(head)) return;  // the head blocks everyone behind it
      pending_.remove_at(pending_.slot_begin());
    }
    pending_.compact();
    return;
  }
  // Backfill: every waiting pod may go, in queue order. A shape that failed in this pass will
  // fail again until something is freed, so it is skipped rather than retried.
  failed_shapes_.clear();
  auto same_shape = [](const PodRequest& a, const PodRequest& b) {
    return a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib &&
           a.gpu_memory_mib == b.gpu_memory_mib && a.model_mask == b.model_mask &&
           a.gpu_count == b.gpu_count && a.claim_units == b.claim_units;
  };
  const bool skip_failed_shapes = sharing_->equal_requests_fit_alike();
  const size_t end = pending_.slot_end();
  for (size_t s = pending_.slot_begin(); s < end; ++s) {
    const uint32_t p = pending_.pod_at(s);
    if (p == PendingQueue::kGone) continue;
    const PodRequest& r = req_[p];
    if (skip_failed_shapes && std::any_of(failed_shapes_.begin(), failed_shapes_.end(),
                                          [&](const PodRequest& f) { return same_shape(f, r); }))
      continue;
    if (try_place(p)) {
      pending_.remove_at(s);
    } else if (failed_shapes_.size() < failed_shapes_.capacity()) {
      failed_shapes_.push_back(r);
    }
  }
  pending_.compact();
}

void Simulation::refresh_node_fragmentation(NodeId n) {
  const int gpus = cluster_.gpus_on(n);
  const int cap = cluster_.capacity_units();
  for (int i = 0; i < gpus; ++i)
    milli_scratch_[static_cast<size_t>(i)] =
        cluster_.gpu_free_units(cluster_.first_gpu(n) + static_cast<GpuId>(i)) * 1000 / cap;
  const double f =
      node_fragmentation(target_, cluster_.cpu_free(n), cluster_.model(n),
                         std::span<const int>(milli_scratch_).first(static_cast<size_t>(gpus)));
  frag_total_ += f - node_frag_[n];
  node_frag_[n] = f;
}

void Simulation::record_fill_point() {
  const double cap = static_cast<double>(cluster_.capacity_units());
  fill_curve_.push_back({arrived_gpus_, static_cast<double>(cluster_.allocated_units()) / cap,
                         frag_total_ / 1000.0, failed_gpus_});
}

void Simulation::take_sample(double t) {
  // The loader bounds the samples of a run that ends when its last pod would; queueing can
  // carry it further, so the bound holds here too (docs/scenario-format.md, "Limits").
  if (samples_.size() >= static_cast<size_t>(kMaxSamples))
    throw InputError(fmt::format(
        "the run reached {} time-series samples at {:g}s of simulated time (queueing kept it "
        "going); raise engine.sample_interval or set engine.until",
        kMaxSamples, t));
  const double total = static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
  const double gpus = static_cast<double>(std::max<size_t>(cluster_.gpu_count(), 1));
  double sm = 0;
  for (const double v : model_sm_) sm += v;
  // The sums are kept by adding differences, so an idle cluster can read -4e-16: clamp.
  samples_.push_back({t, static_cast<double>(cluster_.allocated_units()) / total,
                      std::max(0.0, frag_total_ / (1000.0 * gpus)), std::max(0.0, sm / gpus),
                      running_, static_cast<uint32_t>(pending_.size())});
}

RunResult Simulation::run(const ProgressFn& progress) {
  prepare();
  const auto& pods = in_.pods;
  const size_t n = pods.size();
  t0_ = n > 0 ? pods[arrival_order_.front()].arrival_s : 0.0;
  if (in_.config.until_s) t0_ = std::min(t0_, *in_.config.until_s);
  now_ = t0_;
  const double until = in_.config.until_s.value_or(kInf);
  // Without `until`, queueing can carry a run far past its last arrival; the simulation horizon
  // bounds it (and so its samples), and what is unfinished then is reported as such.
  const double stop = std::min(until, kHorizonS);
  const double interval = in_.config.sample_interval_s;
  double next_sample = interval > 0 ? t0_ : kInf;
  size_t next_arrival = 0;
  const uint64_t total_work = 2 * static_cast<uint64_t>(n);
  uint64_t done = 0;

  for (;;) {
    while (!events_.empty() && events_.top().version != version_[events_.top().pod]) events_.pop();
    const double t_finish = events_.empty() ? kInf : events_.top().time;
    const double t_arrival = next_arrival < n ? pods[arrival_order_[next_arrival]].arrival_s : kInf;
    const double t_event = std::min(t_finish, t_arrival);
    if (t_event == kInf) break;
    // Samples fall between events; one at time t sees the state after all events at t.
    while (next_sample < t_event && next_sample <= stop) {
      advance(next_sample);
      take_sample(next_sample);
      next_sample += interval;
    }
    if (t_event > stop) break;
    advance(t_event);
    ++events_done_;
    if (t_finish <= t_arrival) {
      const uint32_t p = events_.top().pod;
      const bool starts = events_.top().starts;
      events_.pop();
      if (starts)
        start_after_reconfiguration(p);
      else
        finish(p);
    } else {
      arrive(arrival_order_[next_arrival], next_arrival);
      ++next_arrival;
    }
    if (progress && (++done & 0x3fff) == 0)
      progress(static_cast<double>(done) / static_cast<double>(total_work));
  }
  if (until != kInf) {
    while (next_sample <= until) {
      advance(next_sample);
      take_sample(next_sample);
      next_sample += interval;
    }
    advance(until);
  }
  if (interval > 0 && (samples_.empty() || samples_.back().time_s < now_)) take_sample(now_);

  const uint32_t still_pending =
      reasons_.add(fmt::format("still pending when the run ended at {:g}s", now_));
  pending_.for_each([&](uint32_t p) { out_[p].reason = still_pending; });
  const uint32_t arrives_after =
      reasons_.add(fmt::format("arrives after the run ended at {:g}s", now_));
  for (size_t k = next_arrival; k < n; ++k) out_[arrival_order_[k]].reason = arrives_after;
  if (progress) progress(1.0);

  RunResult result;
  result.seed = in_.seed;
  result.samples = std::move(samples_);
  result.pod_gpus.reserve(pod_gpu_.size());
  for (uint32_t p = 0; p < n; ++p) {
    PodOutcome& o = out_[p];
    o.gpu_begin = static_cast<uint32_t>(result.pod_gpus.size());
    if (o.node >= 0 && o.status != PodStatus::kFailed) {
      for (uint32_t i = gpu_offset_[p]; i < gpu_offset_[p + 1]; ++i)
        result.pod_gpus.push_back(
            static_cast<uint16_t>(pod_gpu_[i] - cluster_.first_gpu(static_cast<NodeId>(o.node))));
    }
    o.gpu_end = static_cast<uint32_t>(result.pod_gpus.size());
  }
  for (uint32_t p = 0; p < n; ++p) {
    if (out_[p].status == PodStatus::kRunning) settle(p);
    if (err_time_[p] > 0) out_[p].isolation_error = err_int_[p] / err_time_[p];
  }
  result.summary = summarize();
  result.fill_curve = std::move(fill_curve_);  // after summarize(), which reads it
  result.pods = std::move(out_);
  result.reasons = std::move(reasons_);  // after summarize(), which reads it
  return result;
}

RunSummary Simulation::summarize() const {
  RunSummary s;
  const auto& pods = in_.pods;
  s.pods = pods.size();
  s.window_start_s = t0_;
  s.window_end_s = now_;
  s.events = events_done_;
  s.placement_attempts = attempts_;
  s.first_failure_s = first_failure_t_;
  s.allocation_ratio_at_first_failure = first_failure_alloc_;
  const double window = now_ - t0_;
  const double total_units = static_cast<double>(std::max<int64_t>(cluster_.total_units(), 1));
  s.allocation_ratio = window > 0 ? alloc_int_ / (total_units * window) : 0.0;
  const double total_milli =
      1000.0 * static_cast<double>(std::max<size_t>(cluster_.gpu_count(), 1));
  s.fragmentation_ratio =
      window > 0 ? frag_int_ / (total_milli * window) : frag_total_ / total_milli;
  if (in_.config.fill) {
    FillSummary f;
    f.capacity_gpus = static_cast<double>(cluster_.gpu_count());
    const double capacity = std::max(f.capacity_gpus, 1.0);
    // "At 100%" as the paper's scripts compute it (merge_alloc_discrete.py): the mean over the
    // points whose arrived demand, rounded to a whole percent (half to even, as Python's round),
    // is 100; failing that, those within 99..101.
    auto mean_where = [&](int lo, int hi) {
      double alloc = 0, frag = 0, failed = 0;
      size_t n = 0;
      for (const FillPoint& pt : fill_curve_) {
        const double pct = std::nearbyint(pt.arrived / capacity * 100.0);
        if (pct < lo || pct > hi) continue;
        alloc += pt.allocated, frag += pt.fragmented, failed += pt.failed;
        ++n;
      }
      if (n == 0) return false;
      const double k = static_cast<double>(n) * capacity;
      f.allocated_at_full = alloc / k, f.fragmented_at_full = frag / k,
      f.failed_at_full = failed / k;
      return true;
    };
    if (!mean_where(100, 100) && !mean_where(99, 101)) {
      // Never near 100%: the first point at or past it, else the last.
      auto full = std::find_if(fill_curve_.begin(), fill_curve_.end(),
                               [&](const FillPoint& pt) { return pt.arrived >= f.capacity_gpus; });
      if (full == fill_curve_.end() && !fill_curve_.empty()) full = fill_curve_.end() - 1;
      if (full != fill_curve_.end()) {
        f.allocated_at_full = full->allocated / capacity;
        f.fragmented_at_full = full->fragmented / capacity;
        f.failed_at_full = full->failed / capacity;
      }
    }
    if (!fill_curve_.empty()) {
      const FillPoint& last = fill_curve_.back();
      f.arrived_at_end = last.arrived / capacity;
      f.allocated_at_end = last.allocated / capacity;
      f.fragmented_at_end = last.fragmented / capacity;
      f.failed_at_end = last.failed / capacity;
    }
    s.fill = f;
  }

  std::vector<double> queue, jct, slowdown, isolation;
  queue.reserve(pods.size());
  jct.reserve(pods.size());
  slowdown.reserve(pods.size());
  for (size_t p = 0; p < pods.size(); ++p) {
    const PodOutcome& o = out_[p];
    s.count(o.status);
    if (o.status == PodStatus::kFailed) {
      switch (o.failure) {
        case FailureCause::kNone:
        case FailureCause::kNeighboursMemory:
          ++s.not_placed_reasons["out of memory (neighbours hold the GPU's memory)"];
          ++s.neighbour_failures;
          break;
        case FailureCause::kInstanceMemory:
          ++s.not_placed_reasons["out of memory (more than its MIG instance holds)"];
          break;
        case FailureCause::kOverMemoryCap:
          ++s.not_placed_reasons["out of memory (peak over its own memory limit)"];
          break;
        case FailureCause::kClientFault:
          ++s.not_placed_reasons["client fault (modelled)"];
          break;
        case FailureCause::kNeighbourFault:
          ++s.not_placed_reasons["MPS neighbour fault"];
          ++s.neighbour_failures;
          break;
      }
    }
    if (o.isolation_error >= 0) isolation.push_back(o.isolation_error);
    if (o.status == PodStatus::kUnschedulable) ++s.not_placed_reasons[reasons_[o.reason]];
    if (o.status == PodStatus::kPending) ++s.not_placed_reasons["not placed before the run ended"];
    if (o.start_s >= 0 && o.status != PodStatus::kFailed)
      queue.push_back(o.start_s - pods[p].arrival_s);
    if (o.status == PodStatus::kCompleted) {
      const double j = o.finish_s - pods[p].arrival_s;
      jct.push_back(j);
      slowdown.push_back(j / o.solo_s);
    }
    if (pods[p].has_slo()) {
      ++s.slo_pods;
      if (o.status == PodStatus::kPending || o.status == PodStatus::kRunning) {
        ++s.slo_undecided;
      } else if (o.status == PodStatus::kCompleted) {
        const double q = o.start_s - pods[p].arrival_s;
        const double j = o.finish_s - pods[p].arrival_s;
        const bool ok = (!pods[p].slo_max_queue_s || q <= *pods[p].slo_max_queue_s) &&
                        (!pods[p].slo_max_jct_s || j <= *pods[p].slo_max_jct_s);
        s.slo_met += ok ? 1 : 0;
      }
    }
  }
  if (s.slo_pods > s.slo_undecided)
    s.slo_attainment =
        static_cast<double>(s.slo_met) / static_cast<double>(s.slo_pods - s.slo_undecided);
  std::vector<double> quality = comm_quality_;
  s.communication_quality = distribution_of(quality);
  s.queue_delay_s = distribution_of(queue);
  s.jct_s = distribution_of(jct);
  s.slowdown = distribution_of(slowdown);
  s.isolation_error = distribution_of(isolation);

  const auto& models = in_.catalog.models();
  double sm_total = 0, mem_total = 0;
  size_t gpus_total = 0;
  for (size_t m = 0; m < models.size(); ++m) {
    if (model_gpus_[m] == 0) continue;
    ModelUsage u;
    u.model = models[m].name;
    u.gpus = model_gpus_[m];
    const double gpu_seconds = static_cast<double>(u.gpus) * window;
    u.sm_utilization = gpu_seconds > 0 ? model_sm_int_[m] / gpu_seconds : 0;
    u.memory_utilization = gpu_seconds > 0 ? model_mem_int_[m] / gpu_seconds : 0;
    u.allocation_ratio = gpu_seconds > 0 ? model_alloc_int_[m] / gpu_seconds : 0;
    u.gpu_hours_provisioned = gpu_seconds / 3600.0;
    u.gpu_hours_allocated = model_alloc_int_[m] / 3600.0;
    u.cost_usd = u.gpu_hours_provisioned * models[m].price_per_hour;
    sm_total += model_sm_int_[m];
    mem_total += model_mem_int_[m];
    gpus_total += u.gpus;
    s.gpu_hours_provisioned += u.gpu_hours_provisioned;
    s.gpu_hours_allocated += u.gpu_hours_allocated;
    s.cost_usd += u.cost_usd;
    s.per_model.push_back(std::move(u));
  }
  const double all_gpu_seconds = static_cast<double>(gpus_total) * window;
  s.sm_utilization = all_gpu_seconds > 0 ? sm_total / all_gpu_seconds : 0;
  s.mig = sharing_->mig_metrics(stranded_int_, all_gpu_seconds);
  s.memory_utilization = all_gpu_seconds > 0 ? mem_total / all_gpu_seconds : 0;
  return s;
}

}  // namespace

RunResult run_simulation(const RunInputs& in, PlacementPolicy& placement,
                         const ProgressFn& progress) {
  Simulation sim(in, placement);
  RunResult r = sim.run(progress);
  r.placement = placement.describe();
  r.sharing = in.sharing.describe();
  return r;
}

}  // namespace slicelab
