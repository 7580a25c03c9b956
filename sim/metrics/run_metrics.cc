#include "sim/metrics/run_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace slicelab {
namespace {

using S = RunSummary;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// A field of RunSummary (a number, a count or an optional number).
template <auto M>
std::optional<double> get_field(const S& s) {
  const auto& v = s.*M;
  if constexpr (IsOptional<std::remove_cvref_t<decltype(v)>>::value) {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  } else {
    return static_cast<double>(v);
  }
}
template <auto M>
void set_field(S& s, double v) {
  using T = std::remove_cvref_t<decltype(s.*M)>;
  if constexpr (IsOptional<T>::value)
    s.*M = v;
  else
    s.*M = static_cast<T>(v);
}
template <auto M>
constexpr MetricAccess field{get_field<M>, set_field<M>};

// A field of an optional group (fill, restarts): none without the group.
template <auto G, auto M>
std::optional<double> get_in(const S& s) {
  const auto& g = s.*G;
  if (!g) return std::nullopt;
  return static_cast<double>((*g).*M);
}
template <auto G, auto M>
void set_in(S& s, double v) {
  auto& g = s.*G;
  if (!g) g.emplace();
  using T = std::remove_cvref_t<decltype((*g).*M)>;
  (*g).*M = static_cast<T>(v);
}
template <auto G, auto M>
constexpr MetricAccess in{get_in<G, M>, set_in<G, M>};

// A figure of a distribution: none when it holds no values (its count is always there).
template <auto D, auto M>
std::optional<double> get_dist(const S& s) {
  const Distribution& d = s.*D;
  if constexpr (std::is_same_v<decltype(M), size_t Distribution::*>) {
    return static_cast<double>(d.*M);
  } else {
    if (d.count == 0) return std::nullopt;
    return d.*M;
  }
}
template <auto D, auto M>
void set_dist(S& s, double v) {
  using T = std::remove_cvref_t<decltype((s.*D).*M)>;
  (s.*D).*M = static_cast<T>(v);
}
template <auto D, auto M>
constexpr MetricAccess dist{get_dist<D, M>, set_dist<D, M>};

// A figure of the sharing mode's results (RunSummary::mode_results), by its summary.json key:
// none when the run's mode did not write it. Only the key is known here, not the mode.
template <const char* Name>
std::optional<double> get_mode_figure(const S& s) {
  return s.mode_results.figure(Name);
}
template <const char* Name>
void set_mode_figure(S& s, double v) {
  s.mode_results.set_figure(Name, v);
}
template <const char* Name>
constexpr MetricAccess mode_figure{get_mode_figure<Name>, set_mode_figure<Name>};
template <const char* Name>
bool has_mode_figure(const S& s) {
  return s.mode_results.figure(Name).has_value();
}

// A figure of a distribution of the jobs' group: none without jobs, or when it holds no values.
template <auto D, auto M>
std::optional<double> get_job_dist(const S& s) {
  if (!s.jobs) return std::nullopt;
  const Distribution& d = (*s.jobs).*D;
  if constexpr (std::is_same_v<decltype(M), size_t Distribution::*>) {
    return static_cast<double>(d.*M);
  } else {
    if (d.count == 0) return std::nullopt;
    return d.*M;
  }
}
template <auto D, auto M>
void set_job_dist(S& s, double v) {
  if (!s.jobs) s.jobs.emplace();
  using T = std::remove_cvref_t<decltype(((*s.jobs).*D).*M)>;
  ((*s.jobs).*D).*M = static_cast<T>(v);
}
template <auto D, auto M>
constexpr MetricAccess job_dist{get_job_dist<D, M>, set_job_dist<D, M>};

// A figure of a distribution of the queues' totals: none without queues or values.
template <auto M>
std::optional<double> get_queue_wait(const S& s) {
  if (!s.queue_totals) return std::nullopt;
  const Distribution& d = s.queue_totals->admission_wait_s;
  if (d.count == 0) return std::nullopt;
  return d.*M;
}
template <auto M>
void set_queue_wait(S& s, double v) {
  if (!s.queue_totals) s.queue_totals.emplace();
  s.queue_totals->admission_wait_s.*M = v;
}
template <auto M>
constexpr MetricAccess queue_wait{get_queue_wait<M>, set_queue_wait<M>};
std::optional<double> get_wait_count(const S& s) {
  if (!s.queue_totals) return std::nullopt;
  return static_cast<double>(s.queue_totals->admission_wait_s.count);
}
void set_wait_count(S& s, double v) {
  if (!s.queue_totals) s.queue_totals.emplace();
  s.queue_totals->admission_wait_s.count = static_cast<size_t>(std::llround(v));
}
std::optional<double> get_fairness(const S& s) {
  return s.queue_totals ? s.queue_totals->fairness : std::nullopt;
}
void set_fairness(S& s, double v) {
  if (!s.queue_totals) s.queue_totals.emplace();
  s.queue_totals->fairness = v;
}
bool has_queues(const S& s) {
  return !s.queues.empty();
}
// The services' latency over all their requests: none without services or served requests.
template <auto M>
std::optional<double> get_latency(const S& s) {
  if (!s.service_totals || s.service_totals->latency_s.count == 0) return std::nullopt;
  return s.service_totals->latency_s.*M;
}
template <auto M>
void set_latency(S& s, double v) {
  if (!s.service_totals) s.service_totals.emplace();
  s.service_totals->latency_s.*M = v;
  // A mean of seeds that served requests served some.
  s.service_totals->latency_s.count = std::max<size_t>(s.service_totals->latency_s.count, 1);
}
template <auto M>
constexpr MetricAccess latency{get_latency<M>, set_latency<M>};
// An optional figure of the services' totals.
template <auto M>
std::optional<double> get_service_optional(const S& s) {
  return s.service_totals ? s.service_totals.value().*M : std::nullopt;
}
template <auto M>
void set_service_optional(S& s, double v) {
  if (!s.service_totals) s.service_totals.emplace();
  s.service_totals.value().*M = v;
}
template <auto M>
constexpr MetricAccess service_optional{get_service_optional<M>, set_service_optional<M>};
bool has_services(const S& s) {
  return s.service_totals.has_value();
}

template <auto G>
bool has(const S& s) {
  return static_cast<bool>(s.*G);
}
template <auto D>
bool has_values(const S& s) {
  return (s.*D).count > 0;
}
bool restarted(const S& s) {
  return s.restarts && s.restarts->total > 0;
}
bool any_failed(const S& s) {
  return s.failed > 0;
}
// Per completed pod: none when no pod completed.
std::optional<double> per_completed(double total, const S& s) {
  if (s.completed == 0) return std::nullopt;
  return total / static_cast<double>(s.completed);
}
std::optional<double> cost_per_completed(const S& s) {
  return per_completed(s.cost_usd, s);
}
std::optional<double> gpu_hours_per_completed(const S& s) {
  return per_completed(s.gpu_hours_allocated, s);
}
bool has_classes(const S& s) {
  return !s.per_class.empty();
}
bool isolation_shown(const S& s) {
  return s.isolation_error.count > 0 || s.neighbour_failures > 0;
}

// The mode figures the table shows, by key (the mode writes them, RunSummary::mode_results); a
// group is written when its first figure is, as every row of a group is.
constexpr char kReconfigurations[] = "mig.reconfigurations";
constexpr char kReconfigurationGpuS[] = "mig.reconfiguration_gpu_s";
constexpr char kStrandedRatio[] = "mig.stranded_ratio";

using enum MetricUnit;
using enum SeedMean;
using enum CellFormat;
constexpr auto kFlat = ReportUse::kFlattened;

// summary.json's key order. Irregularities kept on purpose (the files stay as they were):
// window, first-failure and SLO counts are not averaged over seeds; communication quality, MIG,
// isolation and neighbour failures are listed by the report only as written; engine counters
// average per seed, rounded.
constexpr RunMetric kRows[] = {
    {.json = "pods.total",
     .unit = kPods,
     .access = field<&S::pods>,
     .mean = kRoundedMean,
     .meaning = "pods in the workload"},
    {.json = "pods.completed",
     .unit = kPods,
     .access = field<&S::completed>,
     .mean = kRoundedMean,
     .target = {"completed", 9},
     .column = {"done", 10, kInteger, 80, true},
     .meaning = "pods that ran to completion"},
    {.json = "pods.failed",
     .unit = kPods,
     .access = field<&S::failed>,
     .mean = kRoundedMean,
     .target = {"failed", 10, true},
     .column = {"failed", 20, kInteger, 80, true},
     .meaning = "pods that started and then failed"},
    {.json = "pods.failed_own_memory",
     .unit = kPods,
     .access = field<&S::failed_own_memory>,
     .mean = kRoundedMean,
     .column = {"own OOM", 21, kInteger, 28, true, any_failed, "failed: own memory"},
     .meaning = "... of them: out of their own memory (limit, MIG instance, overcommitted GPU)"},
    {.json = "pods.failed_faults",
     .unit = kPods,
     .access = field<&S::failed_faults>,
     .mean = kRoundedMean,
     .column = {"faults", 23, kInteger, 28, true, any_failed, "failed: faults"},
     .meaning = "... of them: a fault of their own (modelled client fault, allocation refused)"},
    {.json = "pods.unschedulable",
     .unit = kPods,
     .access = field<&S::unschedulable>,
     .mean = kRoundedMean,
     .target = {"unschedulable", 11, true},
     .meaning = "pods no node could ever hold"},
    {.json = "pods.pending_at_end",
     .unit = kPods,
     .access = field<&S::pending_at_end>,
     .mean = kRoundedMean,
     .target = {"pending_at_end", 12},
     .meaning = "pods not placed before the end"},
    {.json = "pods.running_at_end",
     .unit = kPods,
     .access = field<&S::running_at_end>,
     .mean = kRoundedMean,
     .meaning = "pods still running at the end"},
    {.json = "not_placed_reasons",
     .mean = kRoundedMean,
     .block = MetricBlock::kNotPlacedReasons,
     .meaning = "reason -> pods never placed for it (seed means: per reason)"},
    {.json = "window_s.start",
     .unit = kSeconds,
     .access = field<&S::window_start_s>,
     .meaning = "start of the metrics window"},
    {.json = "window_s.end",
     .unit = kSeconds,
     .access = field<&S::window_end_s>,
     .meaning = "end of the metrics window"},
    {.json = "allocation_ratio.time_weighted",
     .unit = kShare,
     .access = field<&S::allocation_ratio>,
     .mean = kMean,
     .target = {"allocation_ratio", 13, true},
     .column = {"alloc", 50, kPercent, 85, true},
     .meaning = "allocated GPU capacity / total, time-weighted"},
    {.json = "allocation_ratio.at_first_failure",
     .unit = kShare,
     .access = field<&S::allocation_ratio_at_first_failure>,
     .meaning = "allocated / total when a pod first could not be placed"},
    {.json = "allocation_ratio.first_failure_s",
     .unit = kSeconds,
     .access = field<&S::first_failure_s>,
     .meaning = "when that was"},
    {.json = "fragmentation_ratio",
     .unit = kShare,
     .access = field<&S::fragmentation_ratio>,
     .mean = kMean,
     .target = {"fragmentation_ratio", 14},
     .column = {"frag", 60, kPercent, kNeverInTerminal, true},
     .meaning = "free GPU capacity the workload cannot use, time-weighted"},
    {.json = "communication_quality.count",
     .unit = kPods,
     .access = dist<&S::communication_quality, &Distribution::count>,
     .mean = kRoundedMean,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat,
     .meaning = "multi-GPU pods on nodes with a topology"},
    {.json = "communication_quality.mean",
     .unit = kShare,
     .access = dist<&S::communication_quality, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat,
     .meaning = "chosen GPUs' pair score / best possible"},
    {.json = "communication_quality.p50",
     .unit = kShare,
     .access = dist<&S::communication_quality, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat},
    {.json = "communication_quality.p95",
     .unit = kShare,
     .access = dist<&S::communication_quality, &Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat},
    {.json = "communication_quality.p99",
     .unit = kShare,
     .access = dist<&S::communication_quality, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat},
    {.json = "communication_quality.max",
     .unit = kShare,
     .access = dist<&S::communication_quality, &Distribution::max>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::communication_quality>,
     .report = kFlat},
    {.json = "fill.capacity_gpus",
     .unit = kGpus,
     .access = in<&S::fill, &FillSummary::capacity_gpus>,
     .mean = kLast,
     .written_if = has<&S::fill>,
     .meaning = "fill experiments: GPU capacity"},
    {.json = "fill.arrived_at_end",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::arrived_at_end>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "demand arrived by the end / capacity"},
    {.json = "fill.at_full.allocated",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::allocated_at_full>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "when demand first reached capacity: allocated"},
    {.json = "fill.at_full.fragmented",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::fragmented_at_full>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "... fragmented"},
    {.json = "fill.at_full.failed",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::failed_at_full>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "... demand that failed"},
    {.json = "fill.at_end.allocated",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::allocated_at_end>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "at the end: allocated"},
    {.json = "fill.at_end.fragmented",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::fragmented_at_end>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "... fragmented"},
    {.json = "fill.at_end.failed",
     .unit = kShare,
     .access = in<&S::fill, &FillSummary::failed_at_end>,
     .mean = kMean,
     .written_if = has<&S::fill>,
     .meaning = "... demand that failed"},
    {.json = "queue_delay_s.count",
     .unit = kPods,
     .access = dist<&S::queue_delay_s, &Distribution::count>,
     .mean = kRoundedMean,
     .meaning = "pods that started and did not fail"},
    {.json = "queue_delay_s.mean",
     .unit = kSeconds,
     .access = dist<&S::queue_delay_s, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .meaning = "start - arrival"},
    {.json = "queue_delay_s.p50",
     .unit = kSeconds,
     .access = dist<&S::queue_delay_s, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .target = {"queue_delay_p50_s", 1, true},
     .column = {"queue p50", 90, kDuration, 30, true}},
    {.json = "queue_delay_s.p95",
     .unit = kSeconds,
     .access = dist<&S::queue_delay_s, &Distribution::p95>,
     .mean = kMeanOfHolders,
     .target = {"queue_delay_p95_s", 2}},
    {.json = "queue_delay_s.p99",
     .unit = kSeconds,
     .access = dist<&S::queue_delay_s, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .target = {"queue_delay_p99_s", 3, true},
     .column = {"queue p99", 100, kDuration, 75, true}},
    {.json = "queue_delay_s.max",
     .unit = kSeconds,
     .access = dist<&S::queue_delay_s, &Distribution::max>,
     .mean = kMeanOfHolders,
     .target = {"queue_delay_max_s", 4}},
    {.json = "jct_s.count",
     .unit = kPods,
     .access = dist<&S::jct_s, &Distribution::count>,
     .mean = kRoundedMean,
     .meaning = "completed pods"},
    {.json = "jct_s.mean",
     .unit = kSeconds,
     .access = dist<&S::jct_s, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .meaning = "finish - arrival"},
    {.json = "jct_s.p50",
     .unit = kSeconds,
     .access = dist<&S::jct_s, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .target = {"jct_p50_s", 5},
     .column = {"JCT p50", 110, kDuration, 35, true}},
    {.json = "jct_s.p95",
     .unit = kSeconds,
     .access = dist<&S::jct_s, &Distribution::p95>,
     .mean = kMeanOfHolders},
    {.json = "jct_s.p99",
     .unit = kSeconds,
     .access = dist<&S::jct_s, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .target = {"jct_p99_s", 6, true},
     .column = {"JCT p99", 120, kDuration, 65, true}},
    {.json = "jct_s.max",
     .unit = kSeconds,
     .access = dist<&S::jct_s, &Distribution::max>,
     .mean = kMeanOfHolders},
    {.json = "slowdown.count",
     .unit = kPods,
     .access = dist<&S::slowdown, &Distribution::count>,
     .mean = kRoundedMean,
     .meaning = "completed pods"},
    {.json = "slowdown.mean",
     .unit = kFactor,
     .access = dist<&S::slowdown, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .meaning = "JCT / run time alone"},
    {.json = "slowdown.p50",
     .unit = kFactor,
     .access = dist<&S::slowdown, &Distribution::p50>,
     .mean = kMeanOfHolders},
    {.json = "slowdown.p95",
     .unit = kFactor,
     .access = dist<&S::slowdown, &Distribution::p95>,
     .mean = kMeanOfHolders},
    {.json = "slowdown.p99",
     .unit = kFactor,
     .access = dist<&S::slowdown, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .target = {"slowdown_p99", 7},
     .column = {"slowdn p99", 130, kFixed2, 20, false}},
    {.json = "slowdown.max",
     .unit = kFactor,
     .access = dist<&S::slowdown, &Distribution::max>,
     .mean = kMeanOfHolders},
    {.json = "utilization.sm",
     .unit = kShare,
     .access = field<&S::sm_utilization>,
     .mean = kMean,
     .target = {"sm_utilization", 15},
     .column = {"SM util", 70, kPercent, 60, true},
     .meaning = "SM utilization over all GPUs, time-weighted"},
    {.json = "utilization.memory",
     .unit = kShare,
     .access = field<&S::memory_utilization>,
     .mean = kMean,
     .meaning = "memory utilization over all GPUs, time-weighted"},
    {.json = "per_model",
     .block = MetricBlock::kPerModel,
     .meaning = "per GPU model usage (seed means: empty)"},
    {.json = "per_class",
     .mean = kMeanOfHolders,
     .written_if = has_classes,
     .block = MetricBlock::kPerClass,
     .meaning = "per workload class, when the workload names one: its pods' figures (seed means: "
                "per class, over the seeds with pods of it)"},
    {.json = "slo.pods",
     .unit = kPods,
     .access = field<&S::slo_pods>,
     .meaning = "pods with an SLO"},
    {.json = "slo.met", .unit = kPods, .access = field<&S::slo_met>, .meaning = "pods that met it"},
    {.json = "slo.undecided",
     .unit = kPods,
     .access = field<&S::slo_undecided>,
     .meaning = "pods with an SLO still pending or running at the end, before its limit"},
    {.json = "slo.attainment",
     .unit = kShare,
     .access = field<&S::slo_attainment>,
     .mean = kMeanOfHolders,
     .target = {"slo_attainment", 8, true},
     .column = {"SLO", 140, kPercent, 55, true},
     .meaning = "met / (pods - undecided)"},
    {.json = "cost_window_s.start",
     .unit = kSeconds,
     .access = field<&S::cost_window_start_s>,
     .meaning = "start of the window provisioned GPU-hours and cost count"},
    {.json = "cost_window_s.end",
     .unit = kSeconds,
     .access = field<&S::cost_window_end_s>,
     .meaning = "its end: a compare's latest window end over all policies"},
    {.json = "gpu_hours.provisioned",
     .unit = kGpuHours,
     .access = field<&S::gpu_hours_provisioned>,
     .mean = kMean,
     .target = {"gpu_hours_provisioned", 16},
     .meaning = "GPU-hours in the cost window"},
    {.json = "gpu_hours.allocated",
     .unit = kGpuHours,
     .access = field<&S::gpu_hours_allocated>,
     .mean = kMean,
     .column = {"GPU-h used", 150, kFixed1, 25, true},
     .meaning = "GPU-hours allocated"},
    {.json = "gpu_hours.per_completed",
     .unit = kGpuHours,
     .access = {gpu_hours_per_completed, nullptr},
     .mean = kOfTheMeans,
     .column = {"GPU-h/done", 155, kFixed2, 24, true, nullptr, "GPU-h per completed pod"},
     .meaning = "GPU-hours allocated / completed pods; null when none completed"},
    {.json = "cost_usd",
     .unit = kUsd,
     .access = field<&S::cost_usd>,
     .mean = kMean,
     .target = {"cost_usd", 17, true},
     .column = {"cost $", 160, kFixed2, 50, true},
     .meaning = "GPU-hours provisioned x catalog price"},
    {.json = "cost_per_completed_usd",
     .unit = kUsd,
     .access = {cost_per_completed, nullptr},
     .mean = kOfTheMeans,
     .column = {"$/done", 165, kFixed2, 52, true, nullptr, "cost per completed pod $"},
     .meaning = "cost_usd / completed pods; null when none completed"},
    {.json = kReconfigurations,
     .unit = kCount,
     .access = mode_figure<kReconfigurations>,
     .mean = kRoundedMean,
     .written_if = has_mode_figure<kReconfigurations>,
     .column = {"MIG reconf", 170, kInteger, 0, false, has_mode_figure<kReconfigurations>},
     .report = kFlat,
     .meaning = "MIG: GPUs re-partitioned"},
    {.json = kReconfigurationGpuS,
     .unit = kGpuSeconds,
     .access = mode_figure<kReconfigurationGpuS>,
     .mean = kMean,
     .written_if = has_mode_figure<kReconfigurations>,
     .report = kFlat,
     .meaning = "MIG: GPU-seconds spent re-partitioning"},
    {.json = kStrandedRatio,
     .unit = kShare,
     .access = mode_figure<kStrandedRatio>,
     .mean = kMean,
     .written_if = has_mode_figure<kReconfigurations>,
     .column = {"stranded", 180, kPercent, 57, false, has_mode_figure<kReconfigurations>},
     .report = kFlat,
     .meaning = "MIG: capacity stranded in unusable free instances"},
    {.json = "engine.events",
     .unit = kCount,
     .access = field<&S::events>,
     .mean = kRoundedEach,
     .meaning = "simulator events"},
    {.json = "engine.placement_attempts",
     .unit = kCount,
     .access = field<&S::placement_attempts>,
     .mean = kRoundedEach,
     .meaning = "placement attempts"},
    {.json = "isolation_error.count",
     .unit = kPods,
     .access = dist<&S::isolation_error, &Distribution::count>,
     .mean = kRoundedMean,
     .written_if = has_values<&S::isolation_error>,
     .report = kFlat,
     .meaning = "capped pods that ran"},
    {.json = "isolation_error.mean",
     .unit = kShare,
     .access = dist<&S::isolation_error, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::isolation_error>,
     .column = {"iso err mean/max", 80, kPointsMeanMax, 58, false, isolation_shown},
     .report = kFlat,
     .meaning = "difference of promised and delivered GPU share"},
    {.json = "isolation_error.p50",
     .unit = kShare,
     .access = dist<&S::isolation_error, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::isolation_error>,
     .report = kFlat},
    {.json = "isolation_error.p95",
     .unit = kShare,
     .access = dist<&S::isolation_error, &Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::isolation_error>,
     .report = kFlat},
    {.json = "isolation_error.p99",
     .unit = kShare,
     .access = dist<&S::isolation_error, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::isolation_error>,
     .report = kFlat},
    {.json = "isolation_error.max",
     .unit = kShare,
     .access = dist<&S::isolation_error, &Distribution::max>,
     .mean = kMeanOfHolders,
     .written_if = has_values<&S::isolation_error>,
     .report = kFlat},
    {.json = "neighbour_failures",
     .unit = kPods,
     .access = field<&S::neighbour_failures>,
     .mean = kRoundedMean,
     .column = {"nbr fail", 22, kInteger, 28, true, any_failed, "failed: neighbours"},
     .meaning = "pods failed because of a neighbour"},
    {.json = "restarts.total",
     .unit = kCount,
     .access = in<&S::restarts, &RestartCounts::total>,
     .mean = kRoundedMean,
     .written_if = has<&S::restarts>,
     .column = {"restarts", 190, kInteger, 56, false, restarted},
     .report = kFlat,
     .meaning = "runs with engine.restart: failed pods restarted (in place or re-queued)"},
    {.json = "restarts.pods",
     .unit = kPods,
     .access = in<&S::restarts, &RestartCounts::pods>,
     .mean = kRoundedMean,
     .written_if = has<&S::restarts>,
     .report = kFlat,
     .meaning = "... pods restarted at least once"},
    {.json = "jobs.total",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::jobs>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "workloads with jobs: jobs in the workload"},
    {.json = "jobs.gangs",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::gangs>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "... of them gangs (min_member above 1)"},
    {.json = "jobs.started",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::started>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "... whose gang started"},
    {.json = "jobs.completed",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::completed>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "... whose every pod completed"},
    {.json = "jobs.failed",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::failed>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "... with a pod failed for good"},
    {.json = "jobs.unschedulable",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::unschedulable>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "... whose gang can never start"},
    {.json = "jobs.queue_delay_s.count",
     .unit = kCount,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::count>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "started jobs"},
    {.json = "jobs.queue_delay_s.mean",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "arrival to the start of the whole gang"},
    {.json = "jobs.queue_delay_s.p50",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .column = {"job queue p50", 125, kDuration, 62, true, has<&S::jobs>},
     .report = kFlat},
    {.json = "jobs.queue_delay_s.p95",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat},
    {.json = "jobs.queue_delay_s.p99",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .column = {"job queue p99", 126, kDuration, 61, true, has<&S::jobs>},
     .report = kFlat},
    {.json = "jobs.queue_delay_s.max",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::queue_delay_s, &Distribution::max>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat},
    {.json = "jobs.jct_s.count",
     .unit = kCount,
     .access = job_dist<&JobSummary::jct_s, &Distribution::count>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "completed jobs"},
    {.json = "jobs.jct_s.mean",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::jct_s, &Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "arrival to the end of its last pod"},
    {.json = "jobs.jct_s.p50",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::jct_s, &Distribution::p50>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .column = {"job JCT p50", 127, kDuration, 60, true, has<&S::jobs>},
     .report = kFlat},
    {.json = "jobs.jct_s.p95",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::jct_s, &Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat},
    {.json = "jobs.jct_s.p99",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::jct_s, &Distribution::p99>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat},
    {.json = "jobs.jct_s.max",
     .unit = kSeconds,
     .access = job_dist<&JobSummary::jct_s, &Distribution::max>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::jobs>,
     .report = kFlat},
    {.json = "jobs.gpu_hours_held_waiting",
     .unit = kGpuHours,
     .access = in<&S::jobs, &JobSummary::gpu_hours_held_waiting>,
     .mean = kMean,
     .written_if = has<&S::jobs>,
     .column = {"held GPU-h", 195, kFixed1, 59, true, has<&S::jobs>,
                "GPU-h held waiting for a gang"},
     .report = kFlat,
     .meaning = "GPU-hours bound to pods that waited for the rest of their gang"},
    {.json = "jobs.gang_timeouts",
     .unit = kCount,
     .access = in<&S::jobs, &JobSummary::gang_timeouts>,
     .mean = kRoundedMean,
     .written_if = has<&S::jobs>,
     .report = kFlat,
     .meaning = "partial gangs released at their timeout (engine.gang.mode permit)"},
    {.json = "preemption.preemptors",
     .unit = kPods,
     .access = in<&S::preemption, &PreemptionCounts::preemptors>,
     .mean = kRoundedMean,
     .written_if = has<&S::preemption>,
     .report = kFlat,
     .meaning = "runs with engine.preemption: placements that evicted lower-priority pods"},
    {.json = "preemption.victims",
     .unit = kPods,
     .access = in<&S::preemption, &PreemptionCounts::victims>,
     .mean = kRoundedMean,
     .written_if = has<&S::preemption>,
     .column = {"evicted", 196, kInteger, 58, true, has<&S::preemption>, "pods evicted"},
     .report = kFlat,
     .meaning = "... pods evicted (a gang's running pods all count)"},
    {.json = "preemption.spot_victims",
     .unit = kPods,
     .access = in<&S::preemption, &PreemptionCounts::spot_victims>,
     .mean = kRoundedMean,
     .written_if = has<&S::preemption>,
     .report = kFlat,
     .meaning = "... of them pods of spot jobs"},
    {.json = "preemption.reclaim_victims",
     .unit = kPods,
     .access = in<&S::preemption, &PreemptionCounts::reclaim_victims>,
     .mean = kRoundedMean,
     .written_if = has<&S::preemption>,
     .report = kFlat,
     .meaning = "... of them evicted with their job so that a queue reclaimed its lent quota"},
    {.json = "preemption.lost_gpu_hours",
     .unit = kGpuHours,
     .access = in<&S::preemption, &PreemptionCounts::lost_gpu_hours>,
     .mean = kMean,
     .written_if = has<&S::preemption>,
     .column = {"lost GPU-h", 197, kFixed1, 57, true, has<&S::preemption>,
                "GPU-h of work lost to evictions"},
     .report = kFlat,
     .meaning = "work lost to evictions: done since the victims' last checkpoint"},
    {.json = "queues.fairness",
     .unit = kShare,
     .access = {get_fairness, set_fairness},
     .mean = kMeanOfHolders,
     .written_if = has<&S::queue_totals>,
     .column = {"fairness", 198, kFixed2, 56, true, has<&S::queue_totals>,
                "lowest GPU share / fair share of a waiting queue"},
     .report = kFlat,
     .meaning = "with queues: the lowest, over queues with jobs waiting for quota, of their GPU "
                "share while waiting over their fair share (nominal share of the cohort)"},
    {.json = "queues.borrowed_gpu_hours",
     .unit = kGpuHours,
     .access = in<&S::queue_totals, &QueueTotals::borrowed_gpu_hours>,
     .mean = kMean,
     .written_if = has<&S::queue_totals>,
     .report = kFlat,
     .meaning = "GPU-hours of quota admitted above the queues' nominal quota, lent by their "
                "cohort"},
    {.json = "queues.reclaimed",
     .unit = kCount,
     .access = in<&S::queue_totals, &QueueTotals::reclaimed>,
     .mean = kRoundedMean,
     .written_if = has<&S::queue_totals>,
     .report = kFlat,
     .meaning = "jobs evicted so that the queue that lent their quota could reclaim it"},
    {.json = "queues.admission_wait_s.count",
     .unit = kCount,
     .access = {get_wait_count, set_wait_count},
     .mean = kRoundedMean,
     .written_if = has<&S::queue_totals>,
     .report = kFlat,
     .meaning = "jobs admitted by their queue"},
    {.json = "queues.admission_wait_s.mean",
     .unit = kSeconds,
     .access = queue_wait<&Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::queue_totals>,
     .column = {"admit wait", 199, kDuration, 55, true, has<&S::queue_totals>,
                "mean wait for queue quota"},
     .report = kFlat,
     .meaning = "per job: arrival (its whole gang) to its first admission by its queue"},
    {.json = "queues.admission_wait_s.p95",
     .unit = kSeconds,
     .access = queue_wait<&Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has<&S::queue_totals>,
     .report = kFlat},
    {.json = "per_queue",
     .written_if = has_queues,
     .block = MetricBlock::kPerQueue,
     .meaning = "per queue of the scenario's queues: block: its quota, use, borrowing, "
                "fairness and its jobs' waits (seed means: per queue)"},
    {.json = "services.requests",
     .unit = kCount,
     .access = in<&S::service_totals, &ServiceTotals::requests>,
     .mean = kMean,
     .written_if = has_services,
     .target = {"requests", 18},
     .report = kFlat,
     .meaning = "with services: requests that arrived in the window, all services (expected "
                "counts of the approximation, rounded down)"},
    {.json = "services.lost",
     .unit = kShare,
     .access = in<&S::service_totals, &ServiceTotals::lost>,
     .mean = kMean,
     .written_if = has_services,
     .target = {"requests_lost", 19},
     .column = {"req lost", 203, kPercent, 76, true, has_services,
                "share of requests dropped or unserved"},
     .report = kFlat,
     .meaning = "share of the requests dropped (their replica's queue was full) or unserved (no "
                "replica of their service was ready)"},
    {.json = "services.latency_s.mean",
     .unit = kSeconds,
     .access = latency<&Distribution::mean>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .report = kFlat,
     .meaning = "served requests' latency (arrival to response) over every service, mean"},
    {.json = "services.latency_s.p50",
     .unit = kSeconds,
     .access = latency<&Distribution::p50>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .target = {"latency_p50_s", 20},
     .report = kFlat},
    {.json = "services.latency_s.p95",
     .unit = kSeconds,
     .access = latency<&Distribution::p95>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .target = {"latency_p95_s", 21},
     .report = kFlat},
    {.json = "services.latency_s.p99",
     .unit = kSeconds,
     .access = latency<&Distribution::p99>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .target = {"latency_p99_s", 22},
     .column = {"lat p99", 201, kLatency, 78, true, has_services,
                "p99 request latency, all services"},
     .report = kFlat},
    {.json = "services.within_slo",
     .unit = kShare,
     .access = service_optional<&ServiceTotals::within_slo>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .target = {"requests_within_slo", 23},
     .column = {"req SLO", 202, kPercent, 77, true, has_services,
                "share of requests within their service's latency SLO"},
     .report = kFlat,
     .meaning = "share of the requests of services with a latency SLO answered within the bound "
                "of its highest stated percentile (lost requests count as missed); null when no "
                "service has an SLO"},
    {.json = "services.slo_met",
     .unit = kCount,
     .access = in<&S::service_totals, &ServiceTotals::slo_met>,
     .mean = kMean,
     .written_if = has_services,
     .target = {"services_slo_met", 24},
     .report = kFlat,
     .meaning = "services whose run-wide latency percentiles all meet their SLO, with at most 1% "
                "of their requests lost"},
    {.json = "services.gpu_hours",
     .unit = kGpuHours,
     .access = in<&S::service_totals, &ServiceTotals::gpu_hours>,
     .mean = kMean,
     .written_if = has_services,
     .report = kFlat,
     .meaning = "GPU-hours the services' placed replicas held (their claims)"},
    {.json = "services.gpu_hours_per_million",
     .unit = kGpuHours,
     .access = service_optional<&ServiceTotals::gpu_hours_per_million>,
     .mean = kMeanOfHolders,
     .written_if = has_services,
     .target = {"gpu_hours_per_million_requests", 25},
     .report = kFlat,
     .meaning = "services.gpu_hours per million requests served"},
    {.json = "per_service",
     .written_if = has_services,
     .block = MetricBlock::kPerService,
     .meaning = "per inference service: block: its requests, latency percentiles, share within "
                "its SLO, replicas and GPU-hours (seed means: per service)"},
    {.unit = kPods,
     .column = {"unplaced", 40, kInteger, 70, true},
     .sum_of = {"pods.unschedulable", "pods.pending_at_end"},
     .meaning = "never placed or still pending at the end"},
};

// Rows in another order, worked out at compile time: the targets by target order, the columns
// by position.
constexpr size_t kTargetCount =
    std::ranges::count_if(kRows, [](const RunMetric& m) { return !m.target.name.empty(); });
constexpr size_t kColumnCount =
    std::ranges::count_if(kRows, [](const RunMetric& m) { return !m.column.head.empty(); });

constexpr auto kTargets = [] {
  std::array<const RunMetric*, kTargetCount> out{};
  size_t n = 0;
  for (const RunMetric& m : kRows)
    if (!m.target.name.empty()) out[n++] = &m;
  std::ranges::sort(out, {}, [](const RunMetric* m) { return m->target.order; });
  return out;
}();
// Target orders are 1..n (sweep.csv's columns), column positions distinct.
static_assert(
    [] {
      for (size_t i = 0; i < kTargetCount; ++i)
        if (kTargets[i]->target.order != i + 1) return false;
      return true;
    }(),
    "target orders must run 1..n");
constexpr auto kTargetNames = [] {
  std::array<std::string_view, kTargetCount> out{};
  for (size_t i = 0; i < kTargetCount; ++i) out[i] = kTargets[i]->target.name;
  return out;
}();
constexpr auto kColumns = [] {
  std::array<const RunMetric*, kColumnCount> out{};
  size_t n = 0;
  for (const RunMetric& m : kRows)
    if (!m.column.head.empty()) out[n++] = &m;
  std::ranges::sort(out, {}, [](const RunMetric* m) { return m->column.position; });
  return out;
}();
static_assert(
    [] {
      for (size_t i = 1; i < kColumnCount; ++i)
        if (kColumns[i - 1]->column.position == kColumns[i]->column.position) return false;
      return true;
    }(),
    "column positions must be distinct");

}  // namespace

bool is_whole(MetricUnit u) {
  return u == kPods || u == kCount;
}

std::string_view unit_name(MetricUnit u) {
  switch (u) {
    case kPods:
      return "pods";
    case kCount:
      return "count";
    case kShare:
      return "0..1";
    case kSeconds:
      return "s";
    case kFactor:
      return "factor";
    case kGpus:
      return "GPUs";
    case kGpuHours:
      return "GPU-h";
    case kGpuSeconds:
      return "GPU-s";
    case kUsd:
      return "USD";
    case kNone:
      return "-";
  }
  return "?";
}

std::string_view seed_mean_name(SeedMean m) {
  switch (m) {
    case kMean:
      return "mean";
    case kRoundedMean:
      return "mean, rounded";
    case kRoundedEach:
      return "sum of rounded value/seeds";
    case kMeanOfHolders:
      return "mean over seeds with a value";
    case kLast:
      return "last seed's";
    case kNotAveraged:
      return "not averaged";
    case kOfTheMeans:
      return "computed from the means";
  }
  return "?";
}

std::span<const RunMetric> run_metrics() {
  return kRows;
}

const RunMetric* find_run_metric(std::string_view json) {
  for (const RunMetric& m : kRows)
    if (!json.empty() && m.json == json) return &m;
  return nullptr;
}

std::optional<double> metric_value(const RunMetric& m, const RunSummary& s) {
  if (m.access.get) return m.access.get(s);
  std::optional<double> sum;
  for (const std::string_view part : m.sum_of) {
    const RunMetric* p = find_run_metric(part);
    const auto v = p ? metric_value(*p, s) : std::nullopt;
    if (v) sum = sum.value_or(0) + *v;
  }
  return sum;
}

std::span<const RunMetric* const> target_metrics() {
  return kTargets;
}

std::span<const std::string_view> target_names() {
  return kTargetNames;
}

std::span<const RunMetric* const> column_metrics() {
  return kColumns;
}

std::string run_metrics_markdown() {
  std::string out =
      "| key | unit | seed mean | plan target | terminal column | report | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const RunMetric& m : kRows) {
    const bool derived = !m.sum_of[0].empty();
    std::string key = m.json.empty() ? "(not written)" : fmt::format("`{}`", m.json);
    if (derived) key += fmt::format(" = {} + {}", m.sum_of[0], m.sum_of[1]);
    if (m.written_if) key += " (only when present)";
    const std::string_view mean = derived ? "sum of the means" : seed_mean_name(m.mean);
    const std::string target = m.target.name.empty() ? "-" : fmt::format("`{}`", m.target.name);
    std::string terminal = "-";
    if (!m.column.head.empty() && m.column.keep != kNeverInTerminal)
      terminal = fmt::format("{}{}{}", m.column.head, m.column.keep == 0 ? ", --wide only" : "",
                             m.column.shown_if ? ", when a run has it" : "");
    std::string report = "-";
    if (m.column.report)
      report = fmt::format("column {}", m.column.head);
    else if (m.report == ReportUse::kFlattened)
      report = "as written";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", key, unit_name(m.unit), mean,
                       target, terminal, report, m.meaning);
  }
  return out;
}

}  // namespace slicelab
