// The engine's state for a workload's inference services: each service's replica pool and
// autoscaler, the serving approximation's per-GPU solve, and the ledger of what requests met.
// Held by the simulation only when the workload has services (service_replicas.cc uses it).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/service_ledger.h"
#include "sim/serving/gpu_serving_approx.h"
#include "sim/serving/hpa_controller.h"
#include "sim/serving/serving_tenants.h"
#include "workloads/service_table.h"

namespace slicelab {

struct ServingState {
  // Requests are solved per interval of this length (the rate's mean over it); the autoscaler
  // syncs every HpaSpec::sync_period_s (15 s, Kubernetes' default).
  static constexpr double kIntervalS = 60.0;
  // What a replica asks of the GPU before its first interval is solved, and when idle: nothing
  // (its model loads; an idle CUDA context takes no turns).
  static constexpr double kIdleDemand = 0.0;

  ServingState(const ServiceTable& services, const SharingMode& mode)
      : table(services), approx(mode), ledger(services), pool(pool_size(services)) {
    service.resize(services.size());
    for (size_t s = 0; s < services.size(); ++s) {
      const ServiceSpec& spec = services[s];
      Service& sv = service[s];
      sv.serving = {spec.service_time, spec.concurrency, spec.request_sm, spec.max_queue};
      if (spec.autoscale) {
        HpaSpec h;
        h.min_replicas = spec.autoscale->min_replicas;
        h.max_replicas = spec.autoscale->max_replicas;
        h.target = spec.autoscale->target;
        h.tolerance = spec.autoscale->tolerance;
        h.scale_up.stabilization_s = spec.autoscale->scale_up_stabilization_s;
        h.scale_down.stabilization_s = spec.autoscale->scale_down_stabilization_s;
        sv.hpa.emplace(h);
      }
    }
  }

  // Per replica pod of a pool (index pod - table.first_replica_pod()).
  struct Replica {
    bool active = false;       // wanted: pending, starting or serving
    double ready_after_s = 0;  // from its start to serving
    uint64_t activated = 0;    // activation order (the newest goes first when scaling down)
    // Its last solved interval: requests/s it received, mean response, busy share.
    double rate = 0, response_s = 0, busy = 0;
  };
  struct Service {
    ReplicaServing serving;
    std::optional<HpaController> hpa;
    uint32_t wanted = 0;
  };

  const ServiceTable& table;
  GpuServingApprox approx;
  ServiceLedger ledger;
  std::vector<Replica> pool;
  std::vector<Service> service;
  double next_interval_s = 0, next_sync_s = 0;
  bool started = false;
  uint64_t activations = 0;

  // Scratch of one interval: the ready replicas (pod, service, GPU), one GPU's tenants.
  struct Ready {
    GpuId gpu;
    uint32_t pod;
    uint32_t service;
  };
  std::vector<Ready> ready;
  std::vector<double> per_replica_rate;  // per service, this interval
  std::vector<TenantLoad> loads;
  std::vector<ServingReplica> replicas;
  std::vector<uint32_t> replica_pods, replica_services;  // of `replicas`, in the GPU's order
  std::vector<BackgroundTenant> background;
  std::vector<ServiceLedger::Replicas> counts;
  std::vector<uint32_t> changed;  // replicas whose demand moved: their GPUs are solved anew
  // Replicas whose memory (weights + per-request memory x requests in service) no longer fits,
  // with the cause and the text of why.
  struct OutOfMemory {
    uint32_t pod;
    FailureCause cause;
    std::string reason;
  };
  std::vector<OutOfMemory> out_of_memory;

  // Per GPU, its last solve: its tenants, their loads (replicas' demands aside: the solve sets
  // them), the replicas' arrival rates and what the approximation gave. An interval whose GPU has
  // the same tenants and loads, and every rate within kReuseRate of the last solved one, reuses
  // it: the rate follows the day by well under 1% a minute, and a re-solve would move each
  // latency by a small part of the approximation's own error.
  static constexpr double kReuseRate = 0.01;
  struct GpuSolve {
    std::vector<uint32_t> tenants;
    std::vector<TenantLoad> loads;
    std::vector<double> rates;
    std::vector<ReplicaApprox> out;
    ServingWarmStart warm;
  };
  std::vector<GpuSolve> last_solve;  // by GPU, sized on first use
  uint64_t solves = 0, reuses = 0;
  uint64_t cold_solves = 0, cold_rounds = 0, warm_solves = 0, warm_rounds = 0;

 private:
  static size_t pool_size(const ServiceTable& t) {
    size_t n = 0;
    for (size_t s = 0; s < t.size(); ++s) n += t.pool_size(s);
    return n;
  }
};

}  // namespace slicelab
