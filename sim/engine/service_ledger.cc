#include "sim/engine/service_ledger.h"

#include <algorithm>
#include <cmath>

namespace slicelab {
namespace {

constexpr size_t kPoints = LatencyGrid::kPoints;

// The bound the share within SLO counts against: its highest stated percentile's.
std::optional<double> slo_bound(const LatencySlo& slo) {
  if (slo.p99) return *slo.p99;
  if (slo.p95) return *slo.p95;
  if (slo.p50) return *slo.p50;
  return std::nullopt;
}

std::optional<double> finite_quantile(std::span<const double> cdf, double total, double p) {
  if (total <= 0) return std::nullopt;
  const double q = LatencyGrid::quantile(cdf, total, p);
  // Beyond the grid (44 hours): the grid's end stands for it.
  return std::isfinite(q) ? q : LatencyGrid::at(LatencyGrid::kPoints - 1);
}

}  // namespace

ServiceLedger::ServiceLedger(const ServiceTable& services)
    : services_(services),
      state_(services.size()),
      run_all_(kPoints, 0.0),
      samples_(services.size(), kMaxServiceSampleRows) {
  tables_.reserve(services.size());
  for (const ServiceSpec& s : services.services()) tables_.emplace_back(s.service_time);
  for (State& st : state_) {
    st.run_cdf.assign(kPoints, 0.0);
    st.interval_cdf.assign(kPoints, 0.0);
  }
}

double ServiceLedger::mass_below(std::span<const double> cdf, double t) {
  const double x = LatencyGrid::index_of(t);
  if (x < 0) return cdf[0] * std::max(0.0, t / LatencyGrid::kFirst);
  const auto i = static_cast<size_t>(x);
  if (i + 1 >= cdf.size()) return cdf.back();
  const double f = x - static_cast<double>(i);
  return cdf[i] + f * (cdf[i + 1] - cdf[i]);
}

void ServiceLedger::begin_interval(double t0, double t1) {
  t0_ = t0;
  t1_ = t1;
  for (State& st : state_) {
    std::fill(st.interval_cdf.begin(), st.interval_cdf.end(), 0.0);
    st.interval_requests = st.interval_lost = st.interval_served = 0;
  }
}

void ServiceLedger::add_replica(size_t s, const ReplicaApprox& approx, double requests) {
  State& st = state_[s];
  // Below 1e-12 the chain's tail is rounding, not drops.
  const double drop = approx.drop_fraction();
  const double dropped = drop < 1e-12 ? 0.0 : requests * drop;
  const double served = requests - dropped;
  st.interval_requests += requests;
  st.interval_lost += dropped;
  st.interval_served += served;
  st.dropped += dropped;
  st.served += served;
  st.latency_sum += served * approx.mean_response_s();
  if (approx.outside_checked_range()) st.outside += requests;
  if (served > 0) approx.add_cdf(tables_[s], served, st.interval_cdf);
}

void ServiceLedger::add_unserved(size_t s, double requests) {
  State& st = state_[s];
  st.interval_requests += requests;
  st.interval_lost += requests;
  st.unserved += requests;
}

void ServiceLedger::end_interval(std::span<const Replicas> replicas) {
  const double dt = t1_ - t0_;
  window_s_ += dt;
  const bool keep = samples_.wants();
  for (size_t s = 0; s < state_.size(); ++s) {
    State& st = state_[s];
    st.requests += st.interval_requests;
    for (size_t i = 0; i < kPoints; ++i) {
      st.run_cdf[i] += st.interval_cdf[i];
      run_all_[i] += st.interval_cdf[i];
    }
    const Replicas& r = replicas[s];
    st.ready_s += r.ready * dt;
    st.unplaced_s += (r.wanted > r.placed ? r.wanted - r.placed : 0) * dt;
    st.gpu_s += r.gpus * dt;
    st.peak = std::max(st.peak, r.wanted);
    st.unplaced_peak = std::max(st.unplaced_peak, r.wanted > r.placed ? r.wanted - r.placed : 0U);
  }
  if (!keep) return;
  samples_.take([&](std::vector<ServiceSample>& rows) {
    for (size_t s = 0; s < state_.size(); ++s) {
      const State& st = state_[s];
      ServiceSample row;
      row.time_s = t0_;
      row.service = static_cast<uint32_t>(s);
      row.rate = dt > 0 ? st.interval_requests / dt : 0.0;
      row.p50 = finite_quantile(st.interval_cdf, st.interval_served, 0.5);
      row.p95 = finite_quantile(st.interval_cdf, st.interval_served, 0.95);
      row.p99 = finite_quantile(st.interval_cdf, st.interval_served, 0.99);
      row.lost = st.interval_requests > 0 ? st.interval_lost / st.interval_requests : 0.0;
      row.wanted = replicas[s].wanted;
      row.placed = replicas[s].placed;
      row.ready = replicas[s].ready;
      rows.push_back(row);
    }
  });
}

std::vector<ServiceSummary> ServiceLedger::summaries() const {
  std::vector<ServiceSummary> out;
  out.reserve(state_.size());
  for (size_t s = 0; s < state_.size(); ++s) {
    const State& st = state_[s];
    const ServiceSpec& spec = services_[s];
    ServiceSummary o;
    o.name = spec.name;
    o.requests = st.requests;
    o.dropped = st.dropped;
    o.unserved = st.unserved;
    o.lost = st.requests > 0 ? (st.dropped + st.unserved) / st.requests : 0.0;
    if (st.served > 0) {
      Distribution& d = o.latency_s;
      d.count = std::max<size_t>(1, static_cast<size_t>(std::llround(st.served)));
      d.mean = st.latency_sum / st.served;
      d.p50 = *finite_quantile(st.run_cdf, st.served, 0.5);
      d.p95 = *finite_quantile(st.run_cdf, st.served, 0.95);
      d.p99 = *finite_quantile(st.run_cdf, st.served, 0.99);
    }
    if (const auto bound = slo_bound(spec.slo)) {
      o.within_slo = st.requests > 0 ? mass_below(st.run_cdf, *bound) / st.requests : 0.0;
      bool met = st.served > 0 && st.dropped + st.unserved <= 0.01 * st.requests;
      if (spec.slo.p50) met = met && o.latency_s.p50 <= *spec.slo.p50;
      if (spec.slo.p95) met = met && o.latency_s.p95 <= *spec.slo.p95;
      if (spec.slo.p99) met = met && o.latency_s.p99 <= *spec.slo.p99;
      o.slo_met = met;
    }
    o.replicas_mean = window_s_ > 0 ? st.ready_s / window_s_ : 0.0;
    o.replicas_peak = st.peak;
    o.unplaced_peak = st.unplaced_peak;
    o.unplaced_replica_s = st.unplaced_s;
    o.scale_ups = st.scale_ups;
    o.scale_downs = st.scale_downs;
    o.replica_failures = st.failures;
    o.gpu_hours = st.gpu_s / 3600.0;
    o.outside_checked = st.requests > 0 ? st.outside / st.requests : 0.0;
    out.push_back(std::move(o));
  }
  return out;
}

ServiceTotals ServiceLedger::totals(std::span<const ServiceSummary> summaries) const {
  ServiceTotals t;
  t.services = summaries.size();
  double served = 0, latency_sum = 0, slo_requests = 0, slo_within = 0;
  for (size_t s = 0; s < summaries.size(); ++s) {
    const ServiceSummary& o = summaries[s];
    t.requests += o.requests;
    t.dropped += o.dropped;
    t.unserved += o.unserved;
    t.gpu_hours += o.gpu_hours;
    served += state_[s].served;
    latency_sum += state_[s].latency_sum;
    if (o.within_slo) {
      ++t.slo_services;
      t.slo_met += o.slo_met.value_or(false) ? 1 : 0;
      slo_requests += o.requests;
      slo_within += *o.within_slo * o.requests;
    }
  }
  t.lost = t.requests > 0 ? (t.dropped + t.unserved) / t.requests : 0.0;
  if (served > 0) {
    Distribution& d = t.latency_s;
    d.count = std::max<size_t>(1, static_cast<size_t>(std::llround(served)));
    d.mean = latency_sum / served;
    d.p50 = *finite_quantile(run_all_, served, 0.5);
    d.p95 = *finite_quantile(run_all_, served, 0.95);
    d.p99 = *finite_quantile(run_all_, served, 0.99);
    t.gpu_hours_per_million = t.gpu_hours / served * 1e6;
  }
  if (t.slo_services > 0)
    t.within_slo = slo_requests > 0 ? slo_within / slo_requests : std::optional<double>(0.0);
  return t;
}

}  // namespace slicelab
