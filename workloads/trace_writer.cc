#include "workloads/trace_writer.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace slicelab {
namespace {

// fmt's "{}" is the shortest text that parses back to the same double.
std::string number(double v) {
  return fmt::format("{}", v);
}

}  // namespace

void write_trace_yaml(std::ostream& out, const std::vector<PodSpec>& pods,
                      const std::string& description) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "description" << YAML::Value << description;
  e << YAML::Key << "pods" << YAML::Value << YAML::BeginSeq;
  for (const PodSpec& p : pods) {
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << p.name.str();
    if (p.arrival_s != 0.0) e << YAML::Key << "arrival" << YAML::Value << number(p.arrival_s);
    e << YAML::Key << "duration" << YAML::Value << number(p.duration_s);
    if (p.gpu_count != 0) e << YAML::Key << "gpu_count" << YAML::Value << p.gpu_count;
    if (p.gpu_count != 0 && p.gpu_milli != 1000)
      e << YAML::Key << "gpu_milli" << YAML::Value << p.gpu_milli;
    if (p.gpu_memory_mib != 0)
      e << YAML::Key << "gpu_memory_mib" << YAML::Value << p.gpu_memory_mib;
    if (p.gpu_memory_used_mib != 0)
      e << YAML::Key << "gpu_memory_used_mib" << YAML::Value << p.gpu_memory_used_mib;
    if (p.gpu_memory_percent != 0)
      e << YAML::Key << "gpu_memory_percent" << YAML::Value << p.gpu_memory_percent;
    if (p.cpu_milli != 0) e << YAML::Key << "cpu_milli" << YAML::Value << p.cpu_milli;
    if (p.memory_mib != 0) e << YAML::Key << "memory_mib" << YAML::Value << p.memory_mib;
    if (p.priority != 0) e << YAML::Key << "priority" << YAML::Value << p.priority;
    if (!p.allowed_models.empty()) {
      e << YAML::Key << "allowed_models" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      std::string joined;
      for (const auto& m : p.allowed_models) {
        e << m;
        joined.append(joined.empty() ? "" : "|").append(m);
      }
      e << YAML::EndSeq;
      // The trace's spelling, where it says more than the list (FGD keys on it): reading the
      // written file gives the pods read from the trace, spelling included.
      if (!p.allowed_models.written().empty() && p.allowed_models.written() != joined)
        e << YAML::Key << "allowed_models_written" << YAML::Value
          << std::string(p.allowed_models.written());
    }
    if (!p.mig_profile.empty())
      e << YAML::Key << "mig_profile" << YAML::Value << p.mig_profile.str();
    if (p.workload_class != "default")
      e << YAML::Key << "class" << YAML::Value << p.workload_class.str();
    if (p.has_slo()) {
      e << YAML::Key << "slo" << YAML::Value << YAML::Flow << YAML::BeginMap;
      if (p.slo->max_queue_s)
        e << YAML::Key << "max_queue" << YAML::Value << number(*p.slo->max_queue_s);
      if (p.slo->max_jct_s) e << YAML::Key << "max_jct" << YAML::Value << number(*p.slo->max_jct_s);
      e << YAML::EndMap;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  out << e.c_str() << '\n';
}

}  // namespace slicelab
