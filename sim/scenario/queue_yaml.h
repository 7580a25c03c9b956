// The scenario's `queues:` block: Kueue-style ClusterQueues with quotas, cohorts, strategies,
// fair sharing and reclaim (docs/training-jobs.md#queues), read and checked into QueueConfig.
#pragma once

#include <yaml-cpp/yaml.h>

#include "sim/engine/cluster_queue_spec.h"
#include "workloads/job_table.h"
#include "workloads/yaml_reader.h"

namespace slicelab {

// At most this many queues: the admission pass visits every queue for each admission.
inline constexpr size_t kMaxQueues = 1000;

// Throws InputError at the offending key: unknown keys, duplicate names, a limit without a
// nominal quota, a borrowing limit outside a cohort, a lending limit above the nominal quota.
QueueConfig read_queues(const YamlReader& yaml, const YAML::Node& node);

// With queues declared, every queue a job names is one of them; fails at `where` (the
// `queues:` block) naming the first job that names another. Without queues, names are labels.
void check_job_queues(const YamlReader& yaml, const YAML::Node& where, const QueueConfig& queues,
                      const JobTable& jobs);

}  // namespace slicelab
