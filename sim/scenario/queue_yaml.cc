#include "sim/scenario/queue_yaml.h"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "workloads/kube/kube_yaml_quantities.h"

namespace slicelab {
namespace {

// {gpu: 8, cpu: 64, memory: 512Gi}: GPUs (fractions allowed: HAMi shares), Kubernetes CPU
// and memory quantities.
QuotaLimits read_quantities(const YamlReader& yaml, const YAML::Node& node,
                            const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path, {"gpu", "cpu", "memory"});
  QuotaLimits out;
  if (const YAML::Node v = node["gpu"]; v.IsDefined())
    out[static_cast<size_t>(QuotaResource::kGpu)] =
        std::llround(yaml.number(v, join_path(path, "gpu"), 0, 1e9) * 1000.0);
  if (const YAML::Node v = node["cpu"]; v.IsDefined())
    out[static_cast<size_t>(QuotaResource::kCpu)] = kube_cpu_milli(yaml, v, join_path(path, "cpu"));
  if (const YAML::Node v = node["memory"]; v.IsDefined())
    out[static_cast<size_t>(QuotaResource::kMemory)] =
        kube_memory_bytes_as_mib(yaml, v, join_path(path, "memory"));
  return out;
}

ClusterQueueSpec read_queue(const YamlReader& yaml, const YAML::Node& node,
                            const std::string& path) {
  yaml.require_map(node, path);
  yaml.check_keys(node, path,
                  {"name", "cohort", "strategy", "nominal", "borrowing_limit", "lending_limit",
                   "weight", "reclaim"});
  ClusterQueueSpec q;
  q.name = yaml.string(yaml.required(node, path, "name"), join_path(path, "name"));
  if (q.name.empty()) yaml.fail(node["name"], join_path(path, "name"), "must not be empty");
  q.cohort = yaml.opt_string(node, path, "cohort").value_or("");
  if (const YAML::Node v = node["strategy"]; v.IsDefined()) {
    const auto s = queueing_strategy_from_name(yaml.string(v, join_path(path, "strategy")));
    if (!s) yaml.fail_expected(v, join_path(path, "strategy"), "strict-fifo or best-effort-fifo");
    q.strategy = *s;
  }
  if (const YAML::Node v = node["reclaim"]; v.IsDefined()) {
    const auto r = reclaim_policy_from_name(yaml.string(v, join_path(path, "reclaim")));
    if (!r) yaml.fail_expected(v, join_path(path, "reclaim"), "never, lower-priority or any");
    q.reclaim = *r;
  }
  q.nominal =
      read_quantities(yaml, yaml.required(node, path, "nominal"), join_path(path, "nominal"));
  q.weight = yaml.opt_number(node, path, "weight", 0, 1e6).value_or(1.0);
  for (const char* key : {"borrowing_limit", "lending_limit"}) {
    const YAML::Node v = node[key];
    if (!v.IsDefined()) continue;
    const std::string at = join_path(path, key);
    const QuotaLimits limits = read_quantities(yaml, v, at);
    if (q.cohort.empty())
      yaml.fail(v, at, "a queue outside a cohort neither borrows nor lends: add a cohort:");
    for (size_t r = 0; r < kQuotaResources; ++r) {
      if (!limits[r]) continue;
      const std::string name(to_string(static_cast<QuotaResource>(r)));
      if (!q.nominal[r])
        yaml.fail(v[name], join_path(at, name.c_str()),
                  fmt::format("the queue has no nominal {} quota to go with it", name));
      if (std::string_view(key) == "lending_limit" && *limits[r] > *q.nominal[r])
        yaml.fail(v[name], join_path(at, name.c_str()),
                  fmt::format("is above the nominal {} quota: a queue lends only its own", name));
    }
    (std::string_view(key) == "lending_limit" ? q.lending_limit : q.borrowing_limit) = limits;
  }
  return q;
}

}  // namespace

QueueConfig read_queues(const YamlReader& yaml, const YAML::Node& node) {
  yaml.require_map(node, "queues");
  yaml.check_keys(node, "queues", {"fair_sharing", "default_queue", "cluster_queues"});
  QueueConfig c;
  if (const YAML::Node v = node["fair_sharing"]; v.IsDefined())
    c.fair_sharing = yaml.boolean(v, "queues.fair_sharing");
  const YAML::Node list = yaml.required(node, "queues", "cluster_queues");
  yaml.require_seq(list, "queues.cluster_queues");
  if (list.size() == 0) yaml.fail(list, "queues.cluster_queues", "needs at least one queue");
  if (list.size() > kMaxQueues)
    yaml.fail(list, "queues.cluster_queues",
              fmt::format("has {} queues, more than the limit of {}", list.size(), kMaxQueues));
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = index_path("queues.cluster_queues", i);
    ClusterQueueSpec q = read_queue(yaml, list[i], path);
    if (!names.insert(q.name).second)
      yaml.fail(list[i]["name"], join_path(path, "name"),
                fmt::format("queue '{}' is declared twice", q.name));
    c.queues.push_back(std::move(q));
  }
  if (const YAML::Node v = node["default_queue"]; v.IsDefined()) {
    c.default_queue = yaml.string(v, "queues.default_queue");
    if (!c.index_of(c.default_queue))
      yaml.fail(
          v, "queues.default_queue",
          fmt::format("names queue '{}', which cluster_queues does not declare", c.default_queue));
  }
  return c;
}

void check_job_queues(const YamlReader& yaml, const YAML::Node& where, const QueueConfig& queues,
                      const JobTable& jobs) {
  if (queues.empty()) return;  // without queues a job's queue name is only a label
  for (const JobInfo& job : jobs.jobs()) {
    if (job.queue.empty() || queues.index_of(job.queue)) continue;
    std::vector<std::string> names;
    for (const ClusterQueueSpec& q : queues.queues) names.push_back(q.name);
    yaml.fail(where, "queues",
              fmt::format("job '{}' names queue '{}', which is not declared (queues: {})", job.name,
                          job.queue, fmt::join(names, ", ")));
  }
}

}  // namespace slicelab
