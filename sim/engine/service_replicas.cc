// Inference services in the event loop: each service's replicas are pods of its pool, started
// (through the queue, placed by the run's policy like any pod) and stopped as its count or its
// autoscaler says; every interval, each GPU with serving replicas is solved by the serving
// approximation beside its other tenants, the requests' latency goes to the ledger, and each
// replica's mean SM use becomes its demand in the rate solver, so batch neighbours feel it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/engine/simulation.h"
#include "workloads/input_error.h"

namespace slicelab {

void Simulation::prepare_serving() {
  if (!in_.config.until_s)
    throw InputError("a workload with services needs engine.until: services serve until the end");
  serving_ = std::make_unique<ServingState>(*in_.services, mode_);
}

double Simulation::next_serving_s() const {
  const ServingState& sv = *serving_;
  double t = sv.next_interval_s;
  if (sv.next_sync_s < t &&
      std::any_of(sv.service.begin(), sv.service.end(),
                  [](const ServingState::Service& s) { return s.hpa.has_value(); }))
    t = sv.next_sync_s;
  return t < serving_stop_ ? t : kInf;
}

void Simulation::serving_tick() {
  ServingState& sv = *serving_;
  if (!sv.started) {
    // The replicas the run starts with serve at once: the service was up before the window.
    sv.started = true;
    const ServiceTable& table = *in_.services;
    for (size_t s = 0; s < table.size(); ++s) {
      const auto k = static_cast<uint32_t>(table[s].initial_replicas());
      sv.service[s].wanted = k;
      for (uint32_t i = 0; i < k; ++i) activate_replica(table.first_pod(s) + i, 0.0);
    }
    after_queue();
  }
  if (now_ >= sv.next_sync_s) {
    replace_failed_replicas();
    autoscale();
    sv.next_sync_s += kHpaSyncPeriodS;
  }
  if (now_ >= sv.next_interval_s) {
    serve_interval();
    sv.next_interval_s += ServingState::kIntervalS;
  }
}

void Simulation::activate_replica(uint32_t p, double ready_after_s) {
  ServingState& sv = *serving_;
  ServingState::Replica& r = sv.pool[p - arrivals_];
  r = ServingState::Replica{};
  r.active = true;
  r.ready_after_s = ready_after_s;
  r.activated = sv.activations++;
  // A fresh pod of its ReplicaSet: its GPU room (gpu_begin) stays for the next bind.
  const uint32_t room = out_[p].gpu_begin;
  out_[p] = PodOutcome{};
  out_[p].gpu_begin = room;
  // After every pod of the workload in the queue's order among equal priorities.
  arrive(p, in_.pods.size() + r.activated);
}

void Simulation::retire_replica(uint32_t p) {
  serving_->pool[p - arrivals_].active = false;
  PodOutcome& o = out_[p];
  if (o.status == PodStatus::kPending) {
    if (queue_.withdraw(p)) sharing_->pod_left_queue(p);
    o.reason = reasons_.add("scaled down before it was placed");
  } else if (o.status == PodStatus::kRunning) {
    settle(p);
    events_.cancel(tenants_.slot(p));
    o.status = PodStatus::kCompleted;
    o.finish_s = now_;
    release_evicted(p);  // release() is inlined into engine.cc's callers
  }
}

// Deployments restart their pods: a replica that failed (out of memory, a fault) is replaced by
// a new one, unless the engine's restart policy already brings it back.
void Simulation::replace_failed_replicas() {
  if (in_.config.restart.enabled()) return;
  const ServiceTable& table = *in_.services;
  for (size_t s = 0; s < table.size(); ++s)
    for (uint32_t p = table.first_pod(s); p < table.first_pod(s) + table.pool_size(s); ++p)
      if (serving_->pool[p - arrivals_].active && out_[p].status == PodStatus::kFailed)
        activate_replica(p, table[s].startup_s);
  after_queue();
}

bool Simulation::replica_serves(uint32_t p) const {
  const PodOutcome& o = out_[p];
  return serving_->pool[p - arrivals_].active && o.status == PodStatus::kRunning &&
         req_[p].gpu_count > 0 &&
         now_ >= o.start_s + serving_->pool[p - arrivals_].ready_after_s - 1e-9;
}

void Simulation::autoscale() {
  ServingState& sv = *serving_;
  const ServiceTable& table = *in_.services;
  std::vector<uint32_t>& pods = sv.replica_pods;
  for (size_t s = 0; s < table.size(); ++s) {
    ServingState::Service& svc = sv.service[s];
    if (!svc.hpa) continue;
    const ServiceSpec& spec = table[s];
    const uint32_t first = table.first_pod(s), end = first + table.pool_size(s);
    pods.clear();
    for (uint32_t p = first; p < end; ++p)
      if (replica_serves(p)) pods.push_back(p);
    const auto ready = static_cast<int>(pods.size());
    // Each ready replica's metric now: its share of the rate now, served as in its last
    // interval (Little's law for the requests in it; its busy share scaled by the rate).
    const double rate = ready > 0 ? spec.rate.at(now_) / ready : 0.0;
    double sum = 0;
    for (const uint32_t p : pods) {
      const ServingState::Replica& r = sv.pool[p - arrivals_];
      const double mean_s = spec.service_time.mean_s;
      if (spec.autoscale->metric == ScaleMetric::kConcurrency)
        sum += rate * (r.response_s > 0 ? r.response_s : mean_s);
      else
        sum += std::min(1.0, r.rate > 0 ? r.busy * rate / r.rate : rate * mean_s);
    }
    const int current = static_cast<int>(svc.wanted);
    const int desired = svc.hpa->sync(now_, current, ready, sum);
    if (desired == current) continue;
    sv.ledger.scaled(s, desired > current);
    if (desired > current) {
      int more = desired - current;
      for (uint32_t p = first; p < end && more > 0; ++p)
        if (!sv.pool[p - arrivals_].active) {
          activate_replica(p, spec.startup_s);
          --more;
        }
    } else {
      // As a ReplicaSet chooses: pods not running first, then those not ready, then the newest.
      pods.clear();
      for (uint32_t p = first; p < end; ++p)
        if (sv.pool[p - arrivals_].active) pods.push_back(p);
      auto rank = [&](uint32_t p) {
        const int state = out_[p].status != PodStatus::kRunning ? 0 : replica_serves(p) ? 2 : 1;
        return std::pair(state, ~sv.pool[p - arrivals_].activated);
      };
      std::sort(pods.begin(), pods.end(),
                [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
      for (int k = 0; k < current - desired && k < static_cast<int>(pods.size()); ++k)
        retire_replica(pods[static_cast<size_t>(k)]);
    }
    svc.wanted = static_cast<uint32_t>(desired);
  }
  schedule_pending();
}

void Simulation::serve_interval() {
  ServingState& sv = *serving_;
  const ServiceTable& table = *in_.services;
  const double t0 = now_;
  const double t1 = std::min(now_ + ServingState::kIntervalS, serving_stop_);
  if (t1 <= t0) return;
  const double dt = t1 - t0;
  sv.ledger.begin_interval(t0, t1);
  sv.ready.clear();
  sv.counts.assign(table.size(), {});
  sv.per_replica_rate.assign(table.size(), 0.0);
  const auto units = static_cast<double>(cluster_.capacity_units());
  for (size_t s = 0; s < table.size(); ++s) {
    ServiceLedger::Replicas& c = sv.counts[s];
    c.wanted = sv.service[s].wanted;
    for (uint32_t p = table.first_pod(s); p < table.first_pod(s) + table.pool_size(s); ++p) {
      if (!sv.pool[p - arrivals_].active || out_[p].status != PodStatus::kRunning) continue;
      ++c.placed;
      // What it holds as bound (a MIG instance, a whole card), as the allocation figures count.
      const PodRequest& bound = live_[tenants_.slot(p)].bound;
      c.gpus += static_cast<double>(bound.claim_units) / units * bound.gpu_count;
      if (!replica_serves(p)) continue;
      ++c.ready;
      sv.ready.push_back({tenants_.gpus_of(p).front(), p, static_cast<uint32_t>(s)});
    }
    const double requests = table[s].rate.mean(t0, t1) * dt;
    if (c.ready == 0) {
      if (requests > 0) sv.ledger.add_unserved(s, requests);
    } else {
      sv.per_replica_rate[s] = requests / dt / c.ready;
    }
  }
  std::sort(sv.ready.begin(), sv.ready.end(), [](const auto& a, const auto& b) {
    return a.gpu < b.gpu || (a.gpu == b.gpu && a.pod < b.pod);
  });
  sv.changed.clear();
  for (size_t i = 0; i < sv.ready.size();) {
    const GpuId g = sv.ready[i].gpu;
    size_t j = i;
    while (j < sv.ready.size() && sv.ready[j].gpu == g) ++j;
    const auto group = std::span(sv.ready).subspan(i, j - i);
    const auto on_g = tenants_.tenants(g);
    sv.loads.resize(on_g.size());
    for (size_t k = 0; k < on_g.size(); ++k) sv.loads[k] = tenants_.load(on_g[k]);
    sharing_->apply_sm_caps(g, on_g, sv.loads);
    sv.replicas.clear();
    sv.replica_pods.clear();
    sv.replica_services.clear();
    sv.background.clear();
    for (size_t k = 0; k < on_g.size(); ++k) {
      const uint32_t q = on_g[k];
      const auto it = std::find_if(group.begin(), group.end(),
                                   [&](const ServingState::Ready& r) { return r.pod == q; });
      if (it != group.end()) {
        sv.replicas.push_back(
            {sv.service[it->service].serving, sv.per_replica_rate[it->service], sv.loads[k]});
        sv.replica_services.push_back(it->service);
        sv.replica_pods.push_back(q);
        sv.loads[k].sm_demand = 0;  // a replica's own demand is the solve's to set
      } else if (q < arrivals_) {
        // A batch pod or a notebook beside the replicas. (A replica that is loading, or serves
        // from another GPU it holds, asks nothing here.)
        BackgroundTenant b{sv.loads[k], 0.0, 0.0};
        if (const WorkloadClass* wc = workload_class(q); wc != nullptr && wc->idle_mean_s > 0) {
          // A notebook: its periods one by one, asking its active demand while active.
          b.load.sm_demand /= wc->duty();
          b.active_mean_s = wc->active_mean_s;
          b.idle_mean_s = wc->idle_mean_s;
        }
        sv.background.push_back(b);
      }
    }
    if (sv.last_solve.empty()) sv.last_solve.resize(cluster_.gpu_count());
    ServingState::GpuSolve& last = sv.last_solve[g];
    const bool same_tenants = last.tenants.size() == on_g.size() &&
                              std::equal(on_g.begin(), on_g.end(), last.tenants.begin()) &&
                              last.loads == sv.loads && last.out.size() == sv.replicas.size();
    const bool same =
        same_tenants && last.rates.size() == sv.replicas.size() &&
        std::equal(sv.replicas.begin(), sv.replicas.end(), last.rates.begin(),
                   [](const ServingReplica& x, double before) {
                     return std::abs(x.arrival_rate - before) <= ServingState::kReuseRate * before;
                   });
    if (same) {
      ++sv.reuses;
    } else {
      ++sv.solves;
      // The same tenants at other rates: the last solve's fixed point starts this one.
      const bool warm = same_tenants;
      if (!warm) last.warm.replicas = 0;
      last.out.resize(sv.replicas.size());
      sv.approx.solve(sv.replicas, sv.background, last.out, &last.warm);
      (warm ? sv.warm_rounds : sv.cold_rounds) += static_cast<uint64_t>(sv.approx.rounds());
      (warm ? sv.warm_solves : sv.cold_solves) += 1;
      last.tenants.assign(on_g.begin(), on_g.end());
      last.loads = sv.loads;
      last.rates.clear();
      for (const ServingReplica& x : sv.replicas) last.rates.push_back(x.arrival_rate);
    }
    const std::vector<ReplicaApprox>& solved = last.out;
    for (size_t r = 0; r < sv.replicas.size(); ++r) {
      const uint32_t q = sv.replica_pods[r];
      const ReplicaApprox& a = solved[r];
      const uint32_t s = sv.replica_services[r];
      const double rate = sv.replicas[r].arrival_rate;
      sv.ledger.add_replica(s, a, rate * dt);
      check_replica_memory(q, g, s, a);
      ServingState::Replica& st = sv.pool[q - arrivals_];
      st.rate = rate;
      st.response_s = a.mean_response_s();
      st.busy = a.busy();
      // What it takes of the GPU on average is what its batch neighbours meet in the solver.
      const double demand = std::max(ServingState::kIdleDemand, a.mean_share());
      double& now_demand = tenants_.load(q).sm_demand;
      if (std::abs(demand - now_demand) > 0.01) {
        now_demand = demand;
        sv.changed.push_back(q);
      }
    }
    i = j;
  }
  sv.ledger.end_interval(sv.counts);
  for (const uint32_t q : sv.changed) recompute(tenants_.gpus_of(q));
  for (const ServingState::OutOfMemory& oom : sv.out_of_memory) {
    if (out_[oom.pod].status != PodStatus::kRunning) continue;
    sv.ledger.replica_failed(static_cast<size_t>(in_.services->service_of(oom.pod)));
    fail_running(oom.pod, oom.cause, oom.reason.c_str());
  }
  if (!sv.out_of_memory.empty()) schedule_pending();
  sv.out_of_memory.clear();
}

// Its memory grows with the requests in service (a KV cache): past its own limit (the mode's cap
// on its request, its MIG instance) or, beside its neighbours, past the GPU's memory, it fails
// as a batch pod would, and its Deployment starts a new one.
void Simulation::check_replica_memory(uint32_t q, GpuId g, size_t s, const ReplicaApprox& a) {
  const int64_t per_request = in_.services->services()[s].memory_per_request_mib;
  if (per_request <= 0) return;
  const PodRequest& r = req_[q];
  const auto in_service = static_cast<int64_t>(std::ceil(a.mean_in_service()));
  const int64_t need = r.gpu_memory_mib + per_request * in_service;
  const NodeId node = cluster_.node_of(g);
  const int64_t capacity = cluster_.gpu_memory_capacity(node);
  const int64_t limit = mode_.memory_limit_mib(r.gpu_memory_mib, capacity);
  const int64_t partition = sharing_->partition_memory_mib(g, q);
  int64_t others = 0;
  for (const uint32_t t : tenants_.tenants(g))
    if (t != q) others += tenants_.load(t).memory_mib;
  const auto where = [&] {
    return fmt::format("{} GPU {}", cluster_.node_name(node), g - cluster_.first_gpu(node));
  };
  std::optional<ServingState::OutOfMemory> oom;
  if (limit >= 0 && need > limit)
    oom = {q, FailureCause::kOverMemoryCap,
           fmt::format("out of memory on {}: {} MiB with {} requests in service, over its {} "
                       "limit of {} MiB",
                       where(), need, in_service, mode_.kind(), limit)};
  else if (partition >= 0 && need > partition)
    oom = {q, FailureCause::kInstanceMemory,
           fmt::format("out of memory in {} on {}: {} MiB with {} requests in service, of {}",
                       sharing_->partition_name(g, q), where(), need, in_service, partition)};
  else if (partition < 0 && need + others > capacity)
    oom = {q, FailureCause::kNeighboursMemory,
           fmt::format("out of memory on {}: {} MiB with {} requests in service beside its "
                       "neighbours' {} MiB, over the GPU's {} MiB",
                       where(), need, in_service, others, capacity)};
  if (oom) serving_->out_of_memory.push_back(std::move(*oom));
}

void Simulation::finish_serving(RunResult& result) {
  ServingState& sv = *serving_;
  if (std::getenv("SLICELAB_SERVING_STATS"))
    fmt::print(stderr,
               "serving: {} solves, {} reused, {} solver calls; cold {} solves {} rounds, warm {} "
               "solves {} rounds\n",
               sv.solves, sv.reuses, sv.approx.solver_calls(), sv.cold_solves, sv.cold_rounds,
               sv.warm_solves, sv.warm_rounds);
  result.summary.services = sv.ledger.summaries();
  result.summary.service_totals = sv.ledger.totals(result.summary.services);
  result.service_samples = sv.ledger.take_samples();
  const uint32_t unused = reasons_.add("a replica its service did not want when the run ended");
  for (size_t k = 0; k < sv.pool.size(); ++k)
    if (!sv.pool[k].active && out_[arrivals_ + k].status == PodStatus::kPending)
      out_[arrivals_ + k].reason = unused;
}

}  // namespace slicelab
