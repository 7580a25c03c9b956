// Pins down the exact error of every malformed scenario in tests/malformed/ (file as passed,
// 1-based line:column, field path, what was expected and found), and what the loader must accept.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "sim/gpu_catalog.h"
#include "sim/modes/mode_registry.h"
#include "sim/modes/time_slice/time_slice_settings.h"
#include "sim/placement/placement_config.h"
#include "sim/scenario/scenario.h"
#include "workloads/input_error.h"
#include "workloads/inputs/pod_yaml.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kMalformed = std::string(SLICELAB_SOURCE_DIR) + "/tests/malformed";

struct Case {
  const char* file;  // in tests/malformed/
  // The whole message with the folder as "{dir}". The lists of known names that grow with later
  // issues are "{models}", "{presets}", "{scorers}" and "{sharing_modes}", filled in from the
  // library.
  const char* message;
};

// Names the case by its file in test output and in CTest's list, instead of raw bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.file;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::string expand(std::string message) {
  replace_all(message, "{models}", GpuCatalog::builtin().names());
  replace_all(message, "{presets}", placement_preset_names());
  replace_all(message, "{scorers}", scorer_names());
  replace_all(message, "{sharing_modes}", sharing_mode_names());
  replace_all(message, "{dir}", kMalformed);
  replace_all(message, "{long}", std::string(300, 'x'));
  return message;
}

// Kept in file-name order; EveryFileHasACase below fails when a file has no row here.
const Case kCases[] = {
    {"bad_boolean.yaml",
     "{dir}/bad_boolean.yaml:10:18: engine.speed_scaling: expected true or false, found 'enabled'"},
    {"bad_duration_unit.yaml",
     "{dir}/bad_duration_unit.yaml:9:17: workload.pods[0].duration: expected a duration of at "
     "least 0.001s (seconds, or a Go duration such as 90s, 1h30m, 300ms, 1.5d), found '90min': "
     "unknown unit 'min' in duration '90min' (did you mean 'm'?)"},
    {"bad_engine_queue.yaml",
     "{dir}/bad_engine_queue.yaml:10:10: engine.queue: expected fifo or backfill, found "
     "'priority'"},
    // The error lies in the trace, so the trace file is named, with its own line and column.
    {"bad_trace_file.yaml",
     "{dir}/traces/bad_trace.yaml:9:21: pods[2].gpu_memory_mib: expected a memory quantity in "
     "bytes (e.g. 512Mi, 16Gi, 10G, 10e9, or a number of bytes), found '16GB': unknown unit 'GB' "
     "in '16GB' (did you mean 'Gi' (2^30) or 'G' (10^9)?)"},
    // Before: ran until memory was exhausted (aliases followed by the empty-value search).
    {"billion_laughs.yaml",
     "{dir}/billion_laughs.yaml:4:14: description: YAML anchors ('&a') are not supported; write "
     "the value out where it is needed"},
    {"duplicate_default_policy_names.yaml",
     "{dir}/duplicate_default_policy_names.yaml:11:5: policies[1]: duplicate policy name "
     "'best-fit' (also policies[0])"},
    // Duplicate keys in the maps whose keys the user names (before: the second was ignored).
    {"duplicate_gpu_model.yaml",
     "{dir}/duplicate_gpu_model.yaml:5:3: gpu_models: duplicate key 'G2' (also on line 4)"},
    {"duplicate_key.yaml",
     "{dir}/duplicate_key.yaml:11:7: workload.pods[0]: duplicate key 'duration' (also on line 9)"},
    {"csv_without_duration.yaml",
     "{dir}/csv_without_duration.yaml:8:14: workload.csv.columns: needs a column for "
     "'duration', or for 'end' and 'start' (or 'arrival')"},
    {"default_pod_name_clash.yaml",
     "{dir}/default_pod_name_clash.yaml:8:7: workload.pods[1]: duplicate pod name 'pod-1' "
     "(also workload.pods[0])"},
    {"duplicate_mig_config.yaml",
     "{dir}/duplicate_mig_config.yaml:19:11: policies[0].sharing.mig_config.mig-configs: "
     "duplicate key 'balanced' (also on line 17)"},
    {"duplicate_mig_device.yaml",
     "{dir}/duplicate_mig_device.yaml:20:57: "
     "policies[0].sharing.mig_config.mig-configs.balanced[0].mig-devices: duplicate key "
     "'3g.40gb' (also on line 20)"},
    {"duplicate_plan_target.yaml",
     "{dir}/duplicate_plan_target.yaml:15:5: plan.targets: duplicate key 'failed' (also on "
     "line 13)"},
    {"duplicate_workload_class.yaml",
     "{dir}/duplicate_workload_class.yaml:5:3: workload_classes: duplicate key 'interactive' "
     "(also on line 4)"},
    {"gpu_model_without_gpus.yaml",
     "{dir}/gpu_model_without_gpus.yaml:6:18: cluster.node_groups[0].gpu_model: a GPU model "
     "needs gpus_per_node of at least 1 (leave gpu_model out for CPU-only nodes)"},
    {"duplicate_pod_names.yaml",
     "{dir}/duplicate_pod_names.yaml:15:13: workload.pods[2].name: duplicate pod name 'train' "
     "(also workload.pods[0])"},
    {"duplicate_policy_names.yaml",
     "{dir}/duplicate_policy_names.yaml:12:11: policies[1].name: duplicate policy name 'packed' "
     "(also policies[0])"},
    {"empty_file.yaml", "{dir}/empty_file.yaml: top level: expected a mapping, found nothing"},
    {"empty_node_groups.yaml",
     "{dir}/empty_node_groups.yaml:4:16: cluster.node_groups: needs at least one node group"},
    {"empty_policies.yaml", "{dir}/empty_policies.yaml:9:11: policies: needs at least one policy"},
    {"empty_value.yaml",
     "{dir}/empty_value.yaml:9:7: workload.pods[0].duration: expected a value, found nothing"},
    {"generator_without_size.yaml",
     "{dir}/generator_without_size.yaml:8:5: workload.generator: needs 'pods' (how many), "
     "'horizon' (until when), or both"},
    {"gpu_memory_cpu_only.yaml",
     "{dir}/gpu_memory_cpu_only.yaml:12:23: workload.pods[0].gpu_memory_mib: GPU memory needs "
     "gpu_count of at least 1"},
    {"gpu_memory_percent_too_large.yaml",
     "{dir}/gpu_memory_percent_too_large.yaml:11:27: workload.pods[0].gpu_memory_percent: expected "
     "an integer in 1..100, found '150'"},
    {"gpu_milli_cpu_only.yaml",
     "{dir}/gpu_milli_cpu_only.yaml:11:18: workload.pods[0].gpu_milli: a GPU share needs "
     "gpu_count of 1"},
    {"gpu_milli_multi_gpu.yaml",
     "{dir}/gpu_milli_multi_gpu.yaml:11:18: workload.pods[0].gpu_milli: a GPU share below 1000 is "
     "only for one-GPU pods, this pod asks for 2 GPUs"},
    {"gpu_milli_too_large.yaml",
     "{dir}/gpu_milli_too_large.yaml:11:18: workload.pods[0].gpu_milli: expected an integer in "
     "1..1000, found '1500'"},
    // Before: passed validate; compare then died writing JSON.
    {"invalid_utf8_name.yaml",
     "{dir}/invalid_utf8_name.yaml:10:16: invalid UTF-8 (byte 0xFF); the file must be UTF-8 "
     "text"},
    {"list_instead_of_mapping.yaml",
     "{dir}/list_instead_of_mapping.yaml:4:3: cluster: expected a mapping, found a list"},
    {"memory_unit_lowercase.yaml",
     "{dir}/memory_unit_lowercase.yaml:10:19: cluster.node_groups[0].memory_mib: expected a "
     "memory quantity in bytes (e.g. 512Mi, 16Gi, 10G, 10e9, or a number of bytes), found "
     "'512gi': unknown unit 'gi' in '512gi' (did you mean 'Gi' (2^30)?)"},
    {"mig_layout_conflict.yaml",
     "{dir}/mig_layout_conflict.yaml:19:15: policies[0].sharing.mig_config.mig-configs.small[0]: "
     "node group 'h100' GPU 0: profile 1g.5gb not on H100-80GB (its profiles: 1g.10gb, "
     "1g.10gb+me, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb)"},
    {"missing_cluster.yaml",
     "{dir}/missing_cluster.yaml:2:1: top level: missing required key 'cluster'"},
    {"missing_duration.yaml",
     "{dir}/missing_duration.yaml:11:7: workload.pods[1]: missing required key 'duration'"},
    // The trace path is resolved against the scenario's folder, and shown resolved.
    {"missing_trace_file.yaml",
     "{dir}/missing_trace_file.yaml:7:10: workload.trace: trace file "
     "'{dir}/traces/good_trace.yml' does not exist"},
    // A name becomes results/<name>: one that is not a plain file name could replace any folder.
    {"name_absolute_path.yaml",
     "{dir}/name_absolute_path.yaml:2:7: name: contains '/' (found '/tmp/somewhere-else'); the "
     "name becomes a results folder (results/<name>): use letters, digits, '-', '_' or '.'"},
    {"name_control_character.yaml",
     "{dir}/name_control_character.yaml:2:7: name: contains the control character 0x0a; the name "
     "becomes a results folder (results/<name>): use letters, digits, '-', '_' or '.'"},
    {"name_dot_dot.yaml",
     "{dir}/name_dot_dot.yaml:3:7: name: '..' is not a plain file name; the name becomes a "
     "results folder (results/<name>): use letters, digits, '-', '_' or '.'"},
    {"negative_arrival.yaml",
     "{dir}/negative_arrival.yaml:8:31: workload.pods[0].arrival: expected a duration of at least "
     "0s (seconds, or a Go duration such as 90s, 1h30m, 300ms, 1.5d), found '-5m'"},
    {"negative_count.yaml",
     "{dir}/negative_count.yaml:6:14: cluster.node_groups[0].count: expected an integer in "
     "1..1000000, found '-2'"},
    {"new_gpu_model_without_memory.yaml",
     "{dir}/new_gpu_model_without_memory.yaml:5:5: gpu_models.MI300X: a new GPU model needs "
     "'like' or 'memory_mib'"},
    // Errors in an imported CSV name the CSV file and its line.
    {"openb_bad_pod_row.yaml",
     "{dir}/traces/bad_openb_pods.csv:3: column 'gpu_milli': expected an integer in 1000..1000, "
     "found '500'"},
    {"openb_nodes_with_node_groups.yaml",
     "{dir}/openb_nodes_with_node_groups.yaml:5:16: cluster.openb_nodes: give either "
     "'node_groups' or 'openb_nodes', not both"},
    {"placement_as_list.yaml",
     "{dir}/placement_as_list.yaml:12:7: policies[0].placement: expected a preset name or a "
     "mapping, found a list"},
    {"pod_key_typo.yaml",
     "{dir}/pod_key_typo.yaml:10:7: workload.pods[0]: unknown key 'gpu_cuont' (did you mean "
     "'gpu_count'?)"},
    {"replicas_on_whole_card.yaml",
     "{dir}/replicas_on_whole_card.yaml:14:17: policies[0].sharing.replicas: only applies to "
     "time-slice and mps, not whole-card"},
    {"replicas_out_of_range.yaml",
     "{dir}/replicas_out_of_range.yaml:12:43: policies[0].sharing.replicas: expected an integer "
     "in 1..48, found '0'"},
    // Before: the second document was silently ignored.
    {"second_document.yaml",
     "{dir}/second_document.yaml:11:1: top level: a second YAML document ('---' after the "
     "first); a file holds one document"},
    {"seed_not_integer.yaml",
     "{dir}/seed_not_integer.yaml:3:7: seed: expected an integer of at least 0, found 'random'"},
    {"sharing_as_list.yaml",
     "{dir}/sharing_as_list.yaml:12:14: policies[0].sharing: expected a sharing mode name or a "
     "mapping, found a list"},
    // Before: yaml-cpp's 'invalid node; first invalid key: "mode"', with no file or line.
    {"sharing_without_mode.yaml",
     "{dir}/sharing_without_mode.yaml:11:14: policies[0].sharing: missing required key 'mode'"},
    {"slo_key_typo.yaml",
     "{dir}/slo_key_typo.yaml:13:9: workload.pods[0].slo: unknown key 'max_queue_delay' (did you "
     "mean 'max_queue'?)"},
    {"tab_indentation.yaml",
     "{dir}/tab_indentation.yaml:5:2: invalid YAML: illegal block entry (this line is indented "
     "with a tab; YAML indentation must use spaces)"},
    {"top_level_typo.yaml",
     "{dir}/top_level_typo.yaml:9:1: top level: unknown key 'polices' (did you mean "
     "'policies'?)"},
    {"time_slice_too_long.yaml",
     "{dir}/time_slice_too_long.yaml:12:45: policies[0].sharing.time_slice: expected a time slice "
     "of at most 1s"},
    // A folder where a file belongs is named at the key (before: only the folder was named).
    {"trace_is_a_folder.yaml",
     "{dir}/trace_is_a_folder.yaml:7:10: workload.trace: trace file '{dir}/traces' is a folder; "
     "give a file"},
    // Before: std::filesystem's "filesystem error: status: File name too long [...]".
    {"trace_name_too_long.yaml",
     "{dir}/trace_name_too_long.yaml:8:10: workload.trace: trace file "
     "'{dir}/{long}.yaml' cannot be used: File name too long"},
    {"queue_borrowing_without_cohort.yaml",
     "{dir}/queue_borrowing_without_cohort.yaml:8:58: queues.cluster_queues[0].borrowing_limit: a "
     "queue outside a cohort neither borrows nor lends: add a cohort:"},
    {"queue_decide_unknown.yaml",
     "{dir}/queue_decide_unknown.yaml:10:15: decide.objective[0]: names queue 'team-b', which "
     "queues: does not declare (its queues: team-a)"},
    {"queue_lending_above_nominal.yaml",
     "{dir}/queue_lending_above_nominal.yaml:8:75: queues.cluster_queues[0].lending_limit.gpu: is "
     "above the nominal gpu quota: a queue lends only its own"},
    {"queue_unknown_name.yaml",
     "{dir}/queue_unknown_name.yaml:7:3: queues: job 'train' names queue 'team-b', which is not "
     "declared (queues: team-a)"},
    {"queue_without_jobs.yaml",
     "{dir}/queue_without_jobs.yaml:7:3: queues: queues admit jobs (workload.jobs or "
     "workload.job_trace), and this workload has none"},
    {"two_workload_sources.yaml",
     "{dir}/two_workload_sources.yaml:7:3: workload: needs exactly one of 'pods', 'trace', "
     "'generator', 'openb' or 'csv', or 'jobs' or 'job_trace' (alone or with one of them), or "
     "'services' (alone or beside them)"},
    {"uniform_max_below_min.yaml",
     "{dir}/uniform_max_below_min.yaml:16:16: workload.generator.shapes[0].duration.max: must not "
     "be below min"},
    {"unknown_allowed_model.yaml",
     "{dir}/unknown_allowed_model.yaml:12:28: workload.pods[0].allowed_models[1]: unknown GPU "
     "model 'A100-80G' (known: {models})"},
    {"written_models_without_list.yaml",
     "{dir}/written_models_without_list.yaml:11:31: workload.pods[0].allowed_models_written: "
     "needs allowed_models"},
    {"unknown_distribution.yaml",
     "{dir}/unknown_distribution.yaml:13:34: workload.generator.shapes[0].duration.distribution: "
     "expected one of constant, exponential, lognormal, uniform, found 'normal'"},
    {"unknown_gpu_model.yaml",
     "{dir}/unknown_gpu_model.yaml:7:18: cluster.node_groups[0].gpu_model: unknown GPU model "
     "'A100' (known: {models})"},
    {"unknown_placement_preset.yaml",
     "{dir}/unknown_placement_preset.yaml:13:16: policies[1].placement: unknown placement preset "
     "'bestfit' (known: {presets})"},
    {"unknown_scorer.yaml",
     "{dir}/unknown_scorer.yaml:14:18: policies[0].placement.scorers[1].name: unknown scorer "
     "'least-allocated' (known: {scorers})"},
    {"unknown_sharing_mode.yaml",
     "{dir}/unknown_sharing_mode.yaml:13:13: policies[0].sharing.mode: unknown sharing mode "
     "'sriov' (known: {sharing_modes})"},
    {"yaml_syntax_error.yaml",
     "{dir}/yaml_syntax_error.yaml:12:9: invalid YAML: end of sequence flow not found"},
    // Limits on numbers, counts and time (docs/scenario-format.md, "Limits"): each of these ran
    // until memory was exhausted, or was accepted as infinity.
    {"arrival_beyond_horizon.yaml",
     "{dir}/arrival_beyond_horizon.yaml:8:26: workload.pods[0].arrival: expected a duration of at "
     "most 365d (the simulation horizon), found '1e20'"},
    {"duration_beyond_horizon.yaml",
     "{dir}/duration_beyond_horizon.yaml:8:27: workload.pods[0].duration: expected a duration of "
     "at most 365d (the simulation horizon), found '1e15'"},
    {"duration_overflow.yaml",
     "{dir}/duration_overflow.yaml:8:27: workload.pods[0].duration: expected a duration of at "
     "most 365d (the simulation horizon), found '1e308h'"},
    {"fill_over_pod_limit.yaml",
     "{dir}/fill_over_pod_limit.yaml:9:18: workload.fill.target: takes about 64000000 pods to "
     "fill 160000 GPUs, more than the limit of 5000000"},
    {"generator_arrivals_beyond_horizon.yaml",
     "{dir}/generator_arrivals_beyond_horizon.yaml:8:11: workload.generator.pods: 1000000 pods at "
     "1 arrivals per hour take about 41667d to arrive, beyond the simulation horizon of 365d; "
     "raise the rate or set 'horizon'"},
    {"generator_pods_over_limit.yaml",
     "{dir}/generator_pods_over_limit.yaml:8:11: workload.generator.pods: expected an integer in "
     "1..5000000, found '100000000'"},
    {"generator_rate_over_limit.yaml",
     "{dir}/generator_rate_over_limit.yaml:9:24: workload.generator.arrivals_per_hour: generates "
     "about 8760000000000 pods over the horizon of 8760h, more than the limit of 5000000; lower "
     "the rate or the horizon, or set 'pods'"},
    {"infinite_number.yaml",
     "{dir}/infinite_number.yaml:9:24: workload.generator.arrivals_per_hour: expected a number in "
     "1e-06..1000000000, found '.inf'"},
    // The draw is refused where the distribution is written (the seed makes it reproducible).
    {"lognormal_sigma_10.yaml",
     "{dir}/lognormal_sigma_10.yaml:11:43: workload.generator.shapes[0].duration: sampled a "
     "duration of 9.92936e+08s, beyond the simulation horizon of 365d (3.1536e+07s); set 'max' or "
     "narrow the distribution"},
    {"nan_number.yaml",
     "{dir}/nan_number.yaml:9:18: workload.fill.target: expected a number in 0.01..100, found "
     "'.nan'"},
    {"sample_interval_too_small.yaml",
     "{dir}/sample_interval_too_small.yaml:10:20: engine.sample_interval: 86400s of simulated "
     "time (to the last pod's end) / 0.001s gives 86400000 samples, more than the limit of "
     "1000000; raise sample_interval to at least 0.0864s"},
    {"too_many_gpus.yaml",
     "{dir}/too_many_gpus.yaml:5:27: cluster.node_groups[0].count: the cluster has 8000000 GPUs "
     "up to here (count x gpus_per_node), more than the limit of 4000000"},
    {"too_many_nodes.yaml",
     "{dir}/too_many_nodes.yaml:6:27: cluster.node_groups[1].count: the cluster has 1200000 "
     "nodes up to here, more than the limit of 1000000"},
    {"too_many_seeds.yaml",
     "{dir}/too_many_seeds.yaml:6:8: seeds: has 1001 seeds, more than the limit of 1000"},
    {"until_beyond_horizon.yaml",
     "{dir}/until_beyond_horizon.yaml:10:10: engine.until: expected a duration of at most 365d "
     "(the simulation horizon), found '1e20'"},
};

std::string load_error(const std::string& path) {
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<loaded without error>";
}

class MalformedScenario : public ::testing::TestWithParam<Case> {};

TEST_P(MalformedScenario, FailsWithItsExactMessage) {
  const std::string path = kMalformed + "/" + GetParam().file;
  ASSERT_TRUE(fs::is_regular_file(path)) << path;
  EXPECT_EQ(load_error(path), expand(GetParam().message));
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return fs::path(info.param.file).stem().string();
}

INSTANTIATE_TEST_SUITE_P(Files, MalformedScenario, ::testing::ValuesIn(kCases), case_name);

TEST(MalformedScenarios, EveryFileHasACase) {
  std::set<std::string> listed;
  for (const Case& c : kCases)
    EXPECT_TRUE(listed.insert(c.file).second) << "listed twice: " << c.file;
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(kMalformed))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      present.insert(entry.path().filename().string());
  EXPECT_EQ(present, listed);
  EXPECT_GE(present.size(), 20U);
}

TEST(MalformedScenarios, MessagesNameTheFileWithLineAndColumn) {
  // Every message but the empty file's carries "file:line:col: "; the empty file has no line.
  for (const Case& c : kCases) {
    const std::string message = expand(c.message);
    if (std::string(c.file) == "empty_file.yaml") continue;
    // A CSV has no columns in the YAML sense: its rows are named by line only.
    if (const size_t csv = message.find(".csv:"); csv != std::string::npos) {
      EXPECT_GT(std::stoi(message.substr(csv + 5)), 0) << message;
      continue;
    }
    const size_t yaml = message.find(".yaml:");
    ASSERT_NE(yaml, std::string::npos) << message;
    const std::string rest = message.substr(yaml + 6);
    const size_t colon1 = rest.find(':');
    const size_t colon2 = rest.find(':', colon1 + 1);
    ASSERT_NE(colon2, std::string::npos) << message;
    EXPECT_GT(std::stoi(rest.substr(0, colon1)), 0) << message;
    EXPECT_GT(std::stoi(rest.substr(colon1 + 1, colon2 - colon1 - 1)), 0) << message;
  }
}

// The trace that two_workload_sources.yaml names is itself valid, so that file fails only for
// naming two sources.
TEST(MalformedScenarios, ReferencedGoodTraceIsValid) {
  const auto pods = read_trace_file(kMalformed + "/traces/good_trace.yaml");
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_EQ(pods[1].name, "p1");
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 2700.0);
}

TEST(ScenarioErrors, PathIsReportedAsPassed) {
  const fs::path absolute = fs::path(kMalformed) / "negative_count.yaml";
  const std::string relative = fs::relative(absolute, fs::current_path()).string();
  ASSERT_FALSE(relative.empty());
  EXPECT_EQ(load_error(relative),
            relative +
                ":6:14: cluster.node_groups[0].count: expected an integer in 1..1000000, "
                "found '-2'");
}

TEST(ScenarioErrors, MissingFileAndFolder) {
  const std::string missing = kMalformed + "/does_not_exist.yaml";
  EXPECT_EQ(load_error(missing), missing + ": cannot open file");
  EXPECT_EQ(load_error(kMalformed), kMalformed + ": cannot open file: it is a folder");
}

// ---- what the loader must accept -----------------------------------------------------------

class ScenarioFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-scenario-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& text) {
    const std::string path = (dir_ / "s.yaml").string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

const char* const kBase = R"(name: base
cluster:
  node_groups:
    - {name: a100, count: 2, gpu_model: A100-80GB, gpus_per_node: 4, cpu_milli: 64000, memory_mib: 512Gi}
workload:
  pods:
    - {name: train, duration: 1h, gpu_count: 1}
)";

// A sharing mapping's settings are read, not dropped (yaml-cpp's Node::operator= once turned
// the mapping into its mode scalar, so replicas and overhead silently took their defaults).
TEST_F(ScenarioFile, SharingSettingsAreRead) {
  const Scenario sc = load_scenario(write(std::string(kBase) + R"(policies:
  - name: ts2
    placement: best-fit
    sharing: {mode: time-slice, replicas: 2, context_switch_overhead: 0.1}
  - name: ts7
    placement: best-fit
    sharing:
      mode: time-slice
      replicas: 7
  - name: ts-default
    placement: spread
    sharing: time-slice
  - placement: first-fit
)"));
  ASSERT_EQ(sc.policies.size(), 4U);
  EXPECT_EQ(sc.policies[0].sharing.kind, "time-slice");
  const auto ts0 = sc.policies[0].sharing.mode_settings<TimeSliceSettings>();
  ASSERT_TRUE(ts0);
  EXPECT_EQ(ts0->replicas, 2);
  EXPECT_DOUBLE_EQ(ts0->context_switch_overhead, 0.1);
  const auto ts1 = sc.policies[1].sharing.mode_settings<TimeSliceSettings>();
  ASSERT_TRUE(ts1);
  EXPECT_EQ(ts1->replicas, 7);
  EXPECT_EQ(sc.policies[2].sharing.kind, "time-slice");
  // The bare name: no settings, the mode's defaults (4 replicas).
  EXPECT_FALSE(sc.policies[2].sharing.mode_settings<TimeSliceSettings>());
  EXPECT_EQ(make_sharing_mode(sc.policies[2].sharing)->capacity_units(),
            TimeSliceSettings{}.replicas);
  EXPECT_EQ(sc.policies[3].name, "first-fit");  // an unnamed policy takes its preset's name
  EXPECT_EQ(sc.policies[3].sharing.kind, "whole-card");
}

TEST_F(ScenarioFile, ValuesAndDefaults) {
  const Scenario sc = load_scenario(write(std::string(kBase) + R"(engine:
  speed_scaling: True
policies:
  - placement: best-fit
)"),
                                    7);
  EXPECT_EQ(sc.name, "base");
  EXPECT_EQ(sc.seed, 7U);  // the override wins over the default
  EXPECT_TRUE(sc.engine.speed_scaling);
  ASSERT_EQ(sc.cluster.groups.size(), 1U);
  EXPECT_EQ(sc.cluster.groups[0].memory_mib, 512 * 1024);
  EXPECT_EQ(sc.cluster.gpu_count(), 8U);
  ASSERT_EQ(sc.pods.size(), 1U);
  EXPECT_DOUBLE_EQ(sc.pods[0].duration_s, 3600.0);
  EXPECT_EQ(sc.workload_source, "inline");
}

TEST_F(ScenarioFile, TraceIsResolvedAgainstTheScenarioFolder) {
  fs::create_directories(dir_ / "traces");
  std::ofstream(dir_ / "traces" / "t.yaml")
      << "pods:\n  - {name: a, duration: 90s, gpu_count: 1}\n";
  std::string text = kBase;
  text.replace(text.find("  pods:"), std::string::npos, "  trace: traces/t.yaml\n");
  const Scenario sc = load_scenario(write(text + "policies:\n  - placement: spread\n"));
  ASSERT_EQ(sc.pods.size(), 1U);
  EXPECT_DOUBLE_EQ(sc.pods[0].duration_s, 90.0);
  EXPECT_EQ(sc.workload_source, "trace traces/t.yaml");
}

TEST(ShippedScenario, QuickstartLoads) {
  const Scenario sc =
      load_scenario(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/quickstart.yaml");
  EXPECT_EQ(sc.name, "quickstart");
  EXPECT_FALSE(sc.pods.empty());
  EXPECT_GE(sc.policies.size(), 2U);
}

}  // namespace
}  // namespace slicelab
