#include "cli/import_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "cli/input_paths.h"
#include "cli/usage_error.h"
#include "reports/atomic_folder.h"
#include "reports/consistency_report.h"
#include "reports/output_file.h"
#include "reports/output_guard.h"
#include "sim/scenario/kube_import.h"
#include "sim/scenario/replay_consistency.h"
#include "sim/scenario/run_policies.h"
#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"
#include "workloads/inputs/csv_trace_reader.h"
#include "workloads/inputs/openb_reader.h"
#include "workloads/kube/kube_objects.h"
#include "workloads/kube/kube_recording.h"
#include "workloads/plain_file_name.h"
#include "workloads/rfc3339.h"
#include "workloads/text_file.h"
#include "workloads/trace_summary.h"
#include "workloads/trace_writer.h"
#include "workloads/yaml_reader.h"

namespace slicelab {
namespace {

// "name=job_id,duration=runtime,arrival=submitted:rfc3339" -> the mapping's columns and units;
// the fields and units are checked by check_csv_mapping.
void parse_map(const std::string& text, CsvTraceMapping& m) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError(fmt::format("--map: expected field=column, found '{}'", item));
    if (!out.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
      throw UsageError(fmt::format("--map: field '{}' is mapped twice", item.substr(0, eq)));
    at = comma + 1;
  }
  for (const auto& [field, spec] : out) add_csv_column(m, field, spec);
}

template <typename F>
double unit(const std::string& option, const std::string& value, F lookup, const char* known) {
  const auto v = lookup(value);
  if (!v) throw UsageError(fmt::format("{}: expected {}, found '{}'", option, known, value));
  return *v;
}

// Never onto one of the inputs (`-o` naming the CSV would replace the trace with its import),
// nor onto a file slicelab did not write: the trace's first line marks it as slicelab's.
void write_trace(const std::string& out, const std::vector<PodSpec>& pods,
                 const std::string& description, std::span<const std::string> inputs) {
  std::ostringstream text;
  text << kOwnFileLine
       << "import: a trace file (docs/scenario-format.md). `slicelab import -o` replaces only "
          "files that begin with this line.\n";
  write_trace_yaml(text, pods, description);
  // A trace slicelab would refuse to read back is not written (docs/scenario-format.md#limits).
  if (text.view().size() > kMaxTraceYamlBytes)
    throw InputError(fmt::format(
        "{}: the trace of {} pods would be {} MiB of YAML, more than the {} MiB a trace file may "
        "hold; use the CSV directly (workload.openb or workload.csv) instead of importing it",
        out, pods.size(), text.view().size() >> 20, kMaxTraceYamlBytes >> 20));
  write_own_output_file(out, text.str(), inputs);
}

// The figures of TraceSummary::text(), as JSON.
nlohmann::ordered_json summary_json(const TraceSummary& s) {
  nlohmann::ordered_json by_count = nlohmann::ordered_json::object();
  for (const auto& [count, n] : s.pods_by_gpu_count) by_count[std::to_string(count)] = n;
  nlohmann::ordered_json by_model = nlohmann::ordered_json::object();
  for (const auto& [model, n] : s.gpus_by_model) by_model[model] = n;
  nlohmann::ordered_json j;
  j["pods"] = {{"total", s.pods},
               {"cpu_only", s.cpu_only},
               {"one_gpu", s.one_gpu},
               {"fractional", s.fractional},
               {"multi_gpu", s.multi_gpu},
               {"by_gpu_count", std::move(by_count)},
               {"gpu_demand", s.gpu_demand()}};
  j["nodes"] = {{"total", s.nodes},
                {"gpu_nodes", s.gpu_nodes},
                {"gpus", s.gpus},
                {"gpus_by_model", std::move(by_model)}};
  return j;
}

// The scenario folder of `import kubernetes` and `import recording`: scenario.yaml, trace.yaml,
// snapshot.yaml, and for a history import placements.yaml and the consistency report of one
// as-recorded run over the folder as written (docs/record-replay.md#consistency).
std::optional<ReplayConsistency> write_kube_scenario_folder(
    const KubernetesImport& imported, const GpuCatalog& catalog, const std::string& out, bool force,
    const std::string& name, const std::string& source, const std::string& command,
    const std::string& trace_description) {
  std::ostringstream trace;
  write_trace_yaml(trace, imported.pods, trace_description);
  if (trace.view().size() > kMaxTraceYamlBytes)
    throw InputError(fmt::format(
        "{}: the trace of {} pods would be {} MiB, more than the {} MiB "
        "a trace file may hold",
        out, imported.pods.size(), trace.view().size() >> 20, kMaxTraceYamlBytes >> 20));
  const std::string scenario = kubernetes_scenario_yaml(imported, catalog, name, source, command);
  const std::string snapshot = kubernetes_snapshot_yaml(imported, source);
  std::optional<ReplayConsistency> consistency;
  write_folder_atomically(out, force, [&](const std::filesystem::path& dir) {
    write_text_file(dir / "scenario.yaml", scenario);
    write_text_file(dir / "trace.yaml", trace.str());
    write_text_file(dir / "snapshot.yaml", snapshot);
    if (!imported.history) return;
    write_text_file(dir / "placements.yaml", kubernetes_placements_yaml(imported, source));
    // The folder as a user will run it: what the replay cannot reproduce is what they will see.
    const Scenario sc = load_scenario((dir / "scenario.yaml").string());
    const RunResult run = run_policy(sc, sc.policies.front());  // as-recorded comes first
    consistency = check_replay_consistency(sc, run, imported);
    write_text_file(dir / "consistency.md",
                    consistency_markdown(*consistency,
                                         (std::filesystem::path(out) / "scenario.yaml").string()));
    write_text_file(dir / "consistency.json", consistency_json(*consistency).dump(2) + "\n");
  });
  return consistency;
}

nlohmann::ordered_json kube_import_json(const KubernetesImport& imported, const GpuCatalog& catalog,
                                        const std::string& source, const std::string& out) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const NodeGroup& g : imported.cluster.groups)
    groups.push_back({{"name", g.name},
                      {"count", g.count},
                      {"gpus_per_node", g.gpus_per_node},
                      {"gpu_model", g.gpus_per_node > 0
                                        ? nlohmann::ordered_json(catalog.models()[g.gpu_model].name)
                                        : nlohmann::ordered_json(nullptr)}});
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [phase, n] : imported.phases) phases[phase] = n;
  nlohmann::ordered_json j;
  j["format"] = "slicelab.import/1";
  j["source"] = source;
  j["out"] = out;
  j["nodes"] = {{"total", imported.cluster.node_count()}, {"groups", std::move(groups)}};
  j["pods"] = {{"phases", std::move(phases)},
               {"snapshot", imported.snapshot.size()},
               {"trace", imported.pods.size() - imported.snapshot.size()},
               {"finished", imported.finished_pods},
               {"daemonset", imported.daemon_pods},
               {"learned_durations", imported.learned_durations},
               {"default_durations", imported.default_durations}};
  if (imported.history)
    j["history"] = {{"placements", imported.placements.size()},
                    {"unknown_nodes", imported.unknown_nodes.size()},
                    {"unbound", imported.unbound},
                    {"never_ran", imported.never_ran},
                    {"unended", imported.unended}};
  j["notes"] = imported.notes;
  return j;
}

void print_kube_import(const KubernetesImport& imported, const GpuCatalog& catalog) {
  std::printf("nodes: %zu in %zu groups\n", imported.cluster.node_count(),
              imported.cluster.groups.size());
  for (const NodeGroup& g : imported.cluster.groups)
    std::printf("  %s: %d node(s), %d GPU(s) each%s\n", g.name.c_str(), g.count, g.gpus_per_node,
                g.gpus_per_node > 0
                    ? fmt::format(" ({})", catalog.models()[g.gpu_model].name).c_str()
                    : "");
  std::string phases;
  for (const auto& [phase, n] : imported.phases)
    phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", n, phase);
  std::printf("pods: %s\n", phases.empty() ? "none" : phases.c_str());
  if (imported.history) {
    std::printf(
        "  %zu on their nodes from time 0 (snapshot), %zu in the trace at their creation times, "
        "%d ended before the start, %d never ran, %d DaemonSet (taken off their nodes)\n",
        imported.snapshot.size(), imported.pods.size() - imported.snapshot.size(),
        imported.finished_pods, imported.never_ran, imported.daemon_pods);
    std::printf(
        "  placements: %zu on nodes of the inventory, %zu on nodes it lacks, %d never bound\n",
        imported.placements.size(), imported.unknown_nodes.size(), imported.unbound);
  } else {
    std::printf(
        "  %zu on their nodes from time 0 (snapshot), %zu in the trace, %d finished "
        "(durations only), %d DaemonSet (taken off their nodes)\n",
        imported.snapshot.size(), imported.pods.size() - imported.snapshot.size(),
        imported.finished_pods, imported.daemon_pods);
    std::printf("  durations: %d from finished pods of the same owner, %d defaults\n",
                imported.learned_durations, imported.default_durations);
  }
}

}  // namespace

ImportCommand::ImportCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "import",
      "Convert a trace into a trace YAML file (openb: Alibaba's pod list; csv: any CSV, with "
      "a column mapping), or a cluster into a scenario folder (kubernetes: kubectl's nodes and "
      "pods)");
  cmd_->require_subcommand(1);
  openb_ = cmd_->add_subcommand("openb", "Alibaba cluster-trace-gpu-v2023 (openb) pod list");
  openb_->add_option("--pods", pods_, "openb pod list CSV")
      ->required()
      ->check(existing_input_file());
  openb_->add_option("--nodes", nodes_, "openb node list CSV (summarised only)")
      ->check(existing_input_file());
  openb_->add_option("--duration", duration_,
                     "Pod duration when the list has no time columns (default 1h)");
  openb_->add_option("-o,--out", out_, "Trace YAML file to write")->required();
  add_format_option(*openb_, format_);
  csv_ = cmd_->add_subcommand("csv", "Any CSV trace, with a column mapping");
  csv_->add_option("--file", file_, "CSV file")->required()->check(existing_input_file());
  csv_->add_option(
          "--map", map_,
          "field=column[:unit],... (fields: name, arrival, duration or start and end, "
          "gpu_count, gpu_milli, gpu_memory_mib, gpu_memory_used_mib, cpu_milli, memory_mib, "
          "priority, "
          "allowed_models, class; units: s, ms, min, h, duration, rfc3339 for times, "
          "milli or percent for gpu_milli, MiB, GiB, bytes, quantity (or percent for "
          "gpu_memory_mib) for memory, milli, cores, quantity for cpu_milli)")
      ->required();
  csv_->add_option("--time-unit", time_unit_, "s, ms, min or h (default s)");
  csv_->add_option("--memory-unit", memory_unit_, "MiB or GiB (default MiB)");
  csv_->add_option("--cpu-unit", cpu_unit_, "milli or cores (default milli)");
  csv_->add_option("--separator", separator_, "One character (default ,)");
  csv_->add_option("--time-origin", time_origin_,
                   "RFC 3339 time that rfc3339 columns count from (default: the earliest arrival)");
  csv_->add_option("-o,--out", out_, "Trace YAML file to write")->required();
  add_format_option(*csv_, format_);
  kubernetes_ = cmd_->add_subcommand(
      "kubernetes",
      "kubectl get nodes/pods -o json|yaml: a scenario folder (cluster, trace, "
      "snapshot of the running pods; docs/kubernetes-import.md)");
  kubernetes_->add_option("--nodes", kube_nodes_, "kubectl get nodes -o json (or yaml) output")
      ->required()
      ->check(existing_input_file());
  kubernetes_->add_option("--pods", kube_pods_, "kubectl get pods -A -o json (or yaml) output")
      ->check(existing_input_file());
  kubernetes_->add_option("--snapshot-time", snapshot_time_,
                          "RFC 3339 time the export shows (default: its latest timestamp); "
                          "pods created later arrive later");
  kubernetes_->add_option("--duration", duration_,
                          "Run time of a pending pod whose owner has no finished pods (1h)");
  kubernetes_->add_option("--running-duration", running_duration_,
                          "Time left to a running pod when its owner's finished pods do not "
                          "tell (1h)");
  kubernetes_->add_option("--name", name_, "Scenario name (default kubernetes)");
  kubernetes_
      ->add_option("-o,--out", out_,
                   "Folder to write (scenario.yaml, trace.yaml, "
                   "snapshot.yaml)")
      ->required();
  kubernetes_->add_flag("--history", history_,
                        "Replay the finished pods too, from the export's earliest timestamp, "
                        "with an as-recorded policy and a consistency report "
                        "(docs/record-replay.md)");
  kubernetes_->add_flag("--force", force_,
                        "Replace the folder even if files were added to it (only a folder "
                        "slicelab wrote)");
  add_format_option(*kubernetes_, format_);
  recording_ = cmd_->add_subcommand(
      "recording",
      "A folder of `slicelab record`: a scenario folder that replays the cluster's pods, with an "
      "as-recorded policy and a consistency report (docs/record-replay.md)");
  recording_->add_option("dir", recording_dir_, "The recording folder (recording.json)")
      ->required()
      ->check(CLI::ExistingDirectory);
  recording_
      ->add_option("-o,--out", out_,
                   "Folder to write (scenario.yaml, trace.yaml, snapshot.yaml, placements.yaml, "
                   "consistency.md, consistency.json)")
      ->required();
  recording_->add_option("--name", name_, "Scenario name (default recording)");
  recording_->add_option("--duration", unended_duration_,
                         "Run time of a pod still running when the recording ends (default: its "
                         "time so far)");
  recording_->add_flag("--force", force_,
                       "Replace the folder even if files were added to it (only a folder "
                       "slicelab wrote)");
  add_format_option(*recording_, format_);
}

int ImportCommand::run_recording() const {
  const YamlReader args("import recording");
  KubernetesImportOptions options;
  options.history = true;
  options.running_duration_s = 0;
  if (!unended_duration_.empty())
    options.unended_duration_s = args.duration(YAML::Node(unended_duration_), "--duration", 0.001);
  const std::string name = recording_->get_option("--name")->count() > 0 ? name_ : "recording";
  if (const auto problem = plain_file_name_problem(name))
    throw UsageError(fmt::format("--name: {}", *problem));
  prepare_output_folder(out_, force_);  // a refusal before the reading, not after it
  const KubeRecording rec = read_kube_recording(recording_dir_);
  if (rec.objects.nodes.empty())
    throw InputError(fmt::format(
        "{}: the recording has no Node events: a replay needs the nodes (slicelab record lists "
        "them at its start)",
        recording_dir_));
  options.origin_s = rec.started_s;
  options.end_s = rec.ended_s;
  const GpuCatalog catalog = GpuCatalog::builtin();
  KubernetesImport imported = import_kubernetes(rec.objects, catalog, options);
  if (rec.nodes_joined + rec.nodes_left > 0)
    imported.notes.push_back(fmt::format(
        "{} node(s) joined and {} left during the recording: every node is in the cluster from "
        "time 0 (a scenario's inventory is fixed)",
        rec.nodes_joined, rec.nodes_left));
  if (imported.unended > 0)
    imported.notes.push_back(
        unended_duration_.empty()
            ? fmt::format("{} pod(s) still ran at the end: they run for their time so far "
                          "(--duration sets it)",
                          imported.unended)
            : fmt::format("{} pod(s) still ran at the end: they run for --duration {}",
                          imported.unended, unended_duration_));
  if (rec.missing_events > 0)
    imported.notes.push_back(
        fmt::format("{} event(s) are missing (gaps in seq): the replay may differ where they fell",
                    rec.missing_events));
  const auto consistency = write_kube_scenario_folder(
      imported, catalog, out_, force_, name, recording_dir_, "import recording",
      fmt::format("pods of recording {}", recording_dir_));
  constexpr size_t kShownWarnings = 5;
  for (size_t i = 0; i < std::min(rec.warnings.size(), kShownWarnings); ++i)
    std::fprintf(stderr, "warning: %s\n", rec.warnings[i].c_str());
  if (rec.warnings.size() > kShownWarnings)
    std::fprintf(stderr, "warning: ... and %zu more\n", rec.warnings.size() - kShownWarnings);
  if (format_.json()) {
    nlohmann::ordered_json j = kube_import_json(imported, catalog, "recording", out_);
    j["recording"] = {{"dir", recording_dir_},        {"segments", rec.segments},
                      {"events", rec.events},         {"duplicates", rec.duplicates},
                      {"torn_lines", rec.torn_lines}, {"missing_events", rec.missing_events},
                      {"restarts", rec.restarts},     {"seconds", rec.ended_s - rec.started_s}};
    j["consistency"] = consistency_json(*consistency);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf(
      "recording: %zu segment(s), %zu events over %gs (%zu duplicates skipped, %zu torn "
      "line(s) ignored, %zu missing)\n",
      rec.segments, rec.events, rec.ended_s - rec.started_s, rec.duplicates, rec.torn_lines,
      rec.missing_events);
  print_kube_import(imported, catalog);
  for (const std::string& n : imported.notes) std::printf("note: %s\n", n.c_str());
  std::printf("%s\n", consistency_summary_line(*consistency).c_str());
  std::printf(
      "wrote %s (scenario.yaml, trace.yaml, snapshot.yaml, placements.yaml, consistency.md, "
      "consistency.json)\n",
      out_.c_str());
  return 0;
}

int ImportCommand::run_kubernetes() const {
  KubernetesImportOptions options;
  const YamlReader args("import kubernetes");
  options.pending_duration_s = args.duration(YAML::Node(duration_), "--duration", 0.001);
  options.running_duration_s =
      args.duration(YAML::Node(running_duration_), "--running-duration", 0.001);
  if (!snapshot_time_.empty()) {
    std::string error;
    options.snapshot_s = parse_rfc3339_seconds(snapshot_time_, error);
    if (!options.snapshot_s) throw UsageError(fmt::format("--snapshot-time: {}", error));
  }
  if (const auto problem = plain_file_name_problem(name_))
    throw UsageError(fmt::format("--name: {}", *problem));
  prepare_output_folder(out_, force_);  // a refusal before the reading, not after it
  KubeObjects objects;
  for (const std::string& f : kube_nodes_) read_kube_objects(f, objects);
  for (const std::string& f : kube_pods_) read_kube_objects(f, objects);
  const GpuCatalog catalog = GpuCatalog::builtin();
  options.history = history_;
  const KubernetesImport imported = import_kubernetes(objects, catalog, options);
  std::string source;
  for (const auto& f : kube_nodes_) source += (source.empty() ? "" : ", ") + f;
  for (const auto& f : kube_pods_) source += ", " + f;
  const auto consistency = write_kube_scenario_folder(
      imported, catalog, out_, force_, name_, source, "import kubernetes",
      fmt::format("pods of {} (Kubernetes export)", source));

  if (format_.json()) {
    nlohmann::ordered_json j = kube_import_json(imported, catalog, "kubernetes", out_);
    if (consistency) j["consistency"] = consistency_json(*consistency);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  print_kube_import(imported, catalog);
  for (const std::string& n : imported.notes) std::printf("note: %s\n", n.c_str());
  if (consistency) {
    std::printf("%s\n", consistency_summary_line(*consistency).c_str());
    std::printf(
        "wrote %s (scenario.yaml, trace.yaml, snapshot.yaml, placements.yaml, consistency.md, "
        "consistency.json)\n",
        out_.c_str());
  } else {
    std::printf("wrote %s (scenario.yaml, trace.yaml, snapshot.yaml)\n", out_.c_str());
  }
  return 0;
}

int ImportCommand::run() const {
  if (kubernetes_->parsed()) return run_kubernetes();
  if (recording_->parsed()) return run_recording();
  const std::string inputs[] = {pods_, nodes_, file_};
  check_own_output_file(out_, inputs);  // a refusal before the reading, not after it
  TraceSummary summary;
  std::vector<PodSpec> pods;
  std::string description;
  if (openb_->parsed()) {
    OpenbPodOptions options;
    options.default_duration_s =
        YamlReader("import openb").duration(YAML::Node(duration_), "--duration", 0.001);
    pods = read_openb_pods(pods_, options);
    description = fmt::format("imported from openb pod list {}", pods_);
    if (!nodes_.empty())
      for (const OpenbNodeGroup& g : read_openb_nodes(nodes_))
        summary.add_nodes(static_cast<size_t>(g.count), g.gpus_per_node, g.gpu_model);
  } else {
    CsvTraceMapping m;
    m.file = file_;
    parse_map(map_, m);
    m.time_unit_s = unit("--time-unit", time_unit_, csv_time_unit, "s, ms, min or h");
    m.memory_unit_mib = unit("--memory-unit", memory_unit_, csv_memory_unit, "MiB or GiB");
    m.cpu_unit_milli = unit("--cpu-unit", cpu_unit_, csv_cpu_unit, "milli or cores");
    if (separator_.size() != 1)
      throw UsageError(
          fmt::format("--separator: expected a single character, found '{}'", separator_));
    m.separator = separator_[0];
    if (!time_origin_.empty()) {
      std::string error;
      m.time_origin = parse_rfc3339(time_origin_, error);
      if (!m.time_origin) throw UsageError(fmt::format("--time-origin: {}", error));
    }
    if (auto err = check_csv_mapping(m)) throw UsageError(fmt::format("--map: {}", *err));
    std::vector<std::string> warnings;
    pods = read_csv_trace(m, {}, &warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    description = fmt::format("imported from CSV {} with --map {}", file_, map_);
  }
  summary.add_pods(pods);
  write_trace(out_, pods, description, inputs);
  if (format_.json()) {
    nlohmann::ordered_json j;
    j["format"] = "slicelab.import/1";
    j["source"] = openb_->parsed() ? "openb" : "csv";
    j["out"] = out_;
    j.update(summary_json(summary));
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::fputs(summary.text().c_str(), stdout);
  std::printf("wrote %s\n", out_.c_str());
  return 0;
}

}  // namespace slicelab
