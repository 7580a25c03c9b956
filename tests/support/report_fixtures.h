// A hand-written results folder holding every optional input the report reads (isolation_error
// column, extra summary keys, fill.csv, plan.json), for the report's unit and browser tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace slicelab::testing {

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline const char* const kFixtureSummary = R"json({
  "format": "slicelab.summary/1", "scenario": "fixture", "seed": 1,
  "workload": {"source": "generator", "pods": 4}, "cluster": {"nodes": 2, "gpus": 8},
  "policies": [
    {"name": "alpha", "placement": "best-fit", "sharing": "whole-card",
     "pods": {"total": 4, "completed": 3, "failed": 1, "unschedulable": 0, "pending_at_end": 0,
              "running_at_end": 0},
     "not_placed_reasons": {},
     "window_s": {"start": 0, "end": 3600},
     "allocation_ratio": {"time_weighted": 0.5, "at_first_failure": 0.75, "first_failure_s": 120},
     "fragmentation_ratio": 0.1,
     "fill": {"capacity_gpus": 8, "arrived_at_end": 1.25,
              "at_full": {"allocated": 0.875, "fragmented": 0.1, "failed": 0.05},
              "at_end": {"allocated": 0.9, "fragmented": 0.08, "failed": 0.3}},
     "queue_delay_s": {"count": 4, "mean": 30, "p50": 0, "p95": 100, "p99": 120, "max": 120},
     "jct_s": {"count": 3, "mean": 700, "p50": 600, "p95": 900, "p99": 960, "max": 1000},
     "slowdown": {"count": 3, "mean": 1.2, "p50": 1.1, "p95": 1.5, "p99": 1.6, "max": 1.6},
     "utilization": {"sm": 0.4, "memory": 0.3},
     "per_model": [{"model": "A100", "gpus": 8, "sm_utilization": 0.4, "memory_utilization": 0.3,
                    "allocation_ratio": 0.5, "gpu_hours_provisioned": 8, "gpu_hours_allocated": 4,
                    "cost_usd": 10}],
     "slo": {"pods": 4, "met": 3, "undecided": 0, "attainment": 0.75},
     "gpu_hours": {"provisioned": 8, "allocated": 4}, "cost_usd": 10,
     "engine": {"events": 10, "placement_attempts": 5},
     "isolation": {"mean_error": 0.05, "oom_by_neighbour": 1},
     "future_metric": {"score": 2.5, "label": "ok"}},
    {"name": "beta, ts", "placement": "best-fit", "sharing": "time-slice (4 replicas)",
     "pods": {"total": 4, "completed": 2, "failed": 0, "unschedulable": 1, "pending_at_end": 1,
              "running_at_end": 0},
     "not_placed_reasons": {"no node fits": 1},
     "window_s": {"start": 0, "end": 3600},
     "allocation_ratio": {"time_weighted": 0.25, "at_first_failure": null, "first_failure_s": null},
     "fragmentation_ratio": 0.2,
     "queue_delay_s": {"count": 2, "mean": 10, "p50": 10, "p95": 20, "p99": 20, "max": 20},
     "jct_s": {"count": 2, "mean": 500, "p50": 500, "p95": 600, "p99": 600, "max": 600},
     "slowdown": {"count": 2, "mean": 1.0, "p50": 1.0, "p95": 1.0, "p99": 1.0, "max": 1.0},
     "utilization": {"sm": 0.2, "memory": 0.1},
     "per_model": [{"model": "T4", "gpus": 8, "sm_utilization": 0.2, "memory_utilization": 0.1,
                    "allocation_ratio": 0.25, "gpu_hours_provisioned": 8, "gpu_hours_allocated": 2,
                    "cost_usd": 10}],
     "slo": {"pods": 0, "met": 0, "undecided": 0, "attainment": null},
     "gpu_hours": {"provisioned": 8, "allocated": 2}, "cost_usd": 10,
     "engine": {"events": 8, "placement_attempts": 6}}
  ]
}
)json";

// pods.csv with the optional isolation_error column (another branch adds it).
inline const char* const kFixturePods =
    "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,node,gpus,"
    "reason,isolation_error\n"
    "alpha,p0,train,completed,0,0,600,0,600,1,0,0,,0.02\n"
    "alpha,p1,train,completed,10,10,1010,0,1000,1.1,0,1,,0.08\n"
    "alpha,p2,infer,completed,20,140,720,120,700,1.2,1,0,,\n"
    "alpha,p3,infer,failed,30,30,,0,,,1,1,\"out of memory: neighbour, on GPU 1\",0.5\n"
    "\"beta, ts\",p0,train,completed,0,0,500,0,500,1,0,0,,0.01\n"
    "\"beta, ts\",p1,train,completed,10,30,610,20,600,1,0,0,,0.03\n"
    "\"beta, ts\",p2,infer,unschedulable,20,,,,,,,,no node fits,\n"
    "\"beta, ts\",p3,infer,pending,30,,,,,,,,,\n";

inline const char* const kFixtureTimeseries =
    "policy,time_s,allocation_ratio,fragmentation_ratio,sm_utilization,running,pending\n"
    "alpha,0,0.25,0.1,0.2,2,0\n"
    "alpha,1800,0.75,0.05,0.6,3,1\n"
    "alpha,3600,0.5,0.1,0.4,2,0\n"
    "\"beta, ts\",0,0.125,0.2,0.1,1,0\n"
    "\"beta, ts\",3600,0.25,0.2,0.2,1,1\n";

inline const char* const kFixtureFill =
    "policy,pods,arrived_gpus,allocated_gpus,fragmented_gpus,failed_gpus,arrived_ratio,"
    "allocated_ratio,fragmented_ratio,failed_ratio\n"
    "alpha,1,2,2,0.5,0,0.25,0.25,0.0625,0\n"
    "alpha,2,6,6,0.5,0,0.75,0.75,0.0625,0\n"
    "alpha,3,10,7,0.6,3,1.25,0.875,0.075,0.375\n";

inline const char* const kFixturePlan = R"json({
  "kind": "plan", "scenario": "fixture", "growth": 1.5,
  "targets": [{"metric": "queue_delay_p99_s", "op": "<=", "value": 300},
              {"metric": "failures", "op": "<=", "value": 0}],
  "scaled": "node group 'a100'",
  "policies": [
    {"policy": "alpha", "feasible": true, "gpus": 48, "nodes": 6, "cost_per_hour": 123.4,
     "metrics": {"queue_delay_p99_s": 250, "failures": 0},
     "curve": [{"gpus": 16, "nodes": 2, "value": 812.0, "meets": false,
                "values": {"queue_delay_p99_s": 812.0, "failures": 3}},
               {"gpus": 32, "nodes": 4, "value": 410.0, "meets": false,
                "values": {"queue_delay_p99_s": 410.0, "failures": 1}},
               {"gpus": 48, "nodes": 6, "value": 250.0, "meets": true,
                "values": {"queue_delay_p99_s": 250.0, "failures": 0}},
               {"gpus": 64, "nodes": 8, "value": 180.0, "meets": true,
                "values": {"queue_delay_p99_s": 180.0, "failures": 0}}],
     "fit": {"model": "value = a + b / gpus", "coefficients": [-20.5, 13300], "r2": 0.97,
             "points": [{"gpus": 16, "value": 810.7}, {"gpus": 32, "value": 395.1},
                        {"gpus": 48, "value": 256.6}, {"gpus": 64, "value": 187.3}]}},
    {"policy": "beta, ts", "feasible": false, "gpus": null, "nodes": null, "cost_per_hour": null,
     "reason": "at 64 GPUs (8 nodes in the group, the most tried): queue_delay_p99_s = 15.0m (target <= 5.0m)",
     "metrics": {},
     "curve": [{"gpus": 16, "nodes": 2, "value": 2000.0, "meets": false,
                "values": {"queue_delay_p99_s": 2000.0, "failures": 5}},
               {"gpus": 64, "nodes": 8, "value": 900.0, "meets": false,
                "values": {"queue_delay_p99_s": 900.0, "failures": 2}}]}
  ],
  "recommendation": "Use alpha with 48 GPUs (6 nodes, $123.40/h): the smallest cluster that meets every target."
}
)json";

// Writes the whole fixture into `dir`: summary.json, pods.csv, timeseries.csv, fill.csv and,
// when `with_plan`, plan.json; with slicelab's marker (docs/results-format.md) listing them, as
// `slicelab report` writes only into folders that carry it.
inline void write_full_fixture(const std::filesystem::path& dir, bool with_plan = true) {
  write_text(dir / ".slicelab-results", std::string("slicelab results folder\nfill.csv\n") +
                                            (with_plan ? "plan.json\n" : "") +
                                            "pods.csv\nsummary.json\ntimeseries.csv\n");
  write_text(dir / "summary.json", kFixtureSummary);
  write_text(dir / "pods.csv", kFixturePods);
  write_text(dir / "timeseries.csv", kFixtureTimeseries);
  write_text(dir / "fill.csv", kFixtureFill);
  if (with_plan) write_text(dir / "plan.json", kFixturePlan);
}

}  // namespace slicelab::testing
