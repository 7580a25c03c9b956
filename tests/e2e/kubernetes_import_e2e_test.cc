// `slicelab import kubernetes` on the shipped export (scenarios/kubernetes/): every node and pod
// accounted for, the shipped import reproduced byte for byte, and the running pods placed on
// their own nodes at time 0 by every policy of scenarios/kubernetes.yaml.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <algorithm>

#include "sim/scenario/scenario.h"
#include "sim/scenario/snapshot_reader.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kSrc = SLICELAB_SOURCE_DIR;
const std::string kExport = kSrc + "/scenarios/kubernetes";

// Occurrences of `needle` in `text`: counted on the export's text, independently of the reader.
size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The shared per-test folder (tests/support/temp_files.h); commands run from the source tree,
// their stdout and stderr read back together.
class KubeImportE2e : public testing::TempFilesTest {
 protected:
  struct KubeRun {
    int status = -1;
    std::string out;
  };
  KubeRun run_in_source(const std::string& args) {
    const testing::CliRun r =
        testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab", "", kSrc);
    return {r.status, r.out + r.err};
  }
  const fs::path& tmp_ = dir_;
};

TEST_F(KubeImportE2e, ShippedExportIsEveryNodeAndPodAccountedFor) {
  const fs::path out = tmp_ / "imported";
  const KubeRun r = run_in_source(
      "import kubernetes --nodes scenarios/kubernetes/nodes.json --pods "
      "scenarios/kubernetes/pods.json --name kubernetes-imported --out '" +
      out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string nodes = testing::read_file(kExport + "/nodes.json");
  const std::string pods = testing::read_file(kExport + "/pods.json");
  const size_t node_count = count_of(nodes, "\"kind\": \"Node\"");
  EXPECT_EQ(node_count, 6U);
  EXPECT_NE(r.out.find("nodes: 6 in 3 groups"), std::string::npos) << r.out;
  // Phases as the export states them, counted on its text.
  const size_t running = count_of(pods, "\"phase\": \"Running\"");
  const size_t pending = count_of(pods, "\"phase\": \"Pending\"");
  const size_t succeeded = count_of(pods, "\"phase\": \"Succeeded\"");
  const size_t failed = count_of(pods, "\"phase\": \"Failed\"");
  const size_t daemon = count_of(pods, "\"kind\": \"DaemonSet\"");
  const size_t total = count_of(pods, "\"kind\": \"Pod\"");
  EXPECT_EQ(running + pending + succeeded + failed, total);
  EXPECT_NE(r.out.find(fmt::format("pods: {} Failed, {} Pending, {} Running, {} Succeeded", failed,
                                   pending, running, succeeded)),
            std::string::npos)
      << r.out;
  // Every pod is in exactly one place: snapshot, trace, finished (durations) or DaemonSet.
  const Scenario sc = load_scenario((out / "scenario.yaml").string());
  const std::string trace = testing::read_file(out / "trace.yaml");
  const size_t in_trace = count_of(trace, "- {name: ");
  EXPECT_EQ(in_trace, sc.pods.size());
  EXPECT_EQ(in_trace + succeeded + failed + daemon, total);
  EXPECT_EQ(sc.cluster.node_count(), node_count);
  // Running pods of the export (DaemonSets aside) and the pending one bound to a node are the
  // snapshot; no pod of the snapshot is missing from the trace.
  const size_t bound_pending = 1;  // team-vision/embed-batch-0-v5b6n: ContainerCreating
  EXPECT_EQ(sc.snapshot.size(), running - daemon + bound_pending);
  EXPECT_NE(r.out.find(fmt::format("{} on their nodes from time 0", sc.snapshot.size())),
            std::string::npos)
      << r.out;
}

TEST_F(KubeImportE2e, ShippedImportIsWhatTheImporterWrites) {
  const fs::path out = tmp_ / "imported";
  const KubeRun r = run_in_source(
      "import kubernetes --nodes scenarios/kubernetes/nodes.json --pods "
      "scenarios/kubernetes/pods.json --name kubernetes-imported --out '" +
      out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* f : {"scenario.yaml", "trace.yaml", "snapshot.yaml"}) {
    SCOPED_TRACE(f);
    EXPECT_EQ(testing::read_file(out / f), testing::read_file(fs::path(kExport) / "imported" / f));
  }
  // scenarios/kubernetes.yaml holds the same cluster, trace and snapshot.
  const Scenario shipped = load_scenario(kSrc + "/scenarios/kubernetes.yaml");
  const Scenario fresh = load_scenario((out / "scenario.yaml").string());
  ASSERT_EQ(shipped.cluster.groups.size(), fresh.cluster.groups.size());
  for (size_t g = 0; g < fresh.cluster.groups.size(); ++g) {
    EXPECT_EQ(shipped.cluster.groups[g].node_names, fresh.cluster.groups[g].node_names);
    EXPECT_EQ(shipped.cluster.groups[g].cpu_milli, fresh.cluster.groups[g].cpu_milli);
    EXPECT_EQ(shipped.cluster.groups[g].memory_mib, fresh.cluster.groups[g].memory_mib);
    EXPECT_EQ(shipped.cluster.groups[g].gpus_per_node, fresh.cluster.groups[g].gpus_per_node);
  }
  EXPECT_EQ(shipped.snapshot.size(), fresh.snapshot.size());
}

TEST_F(KubeImportE2e, RunningPodsStartOnTheirNodesAtTimeZero) {
  const fs::path out = tmp_ / "results";
  const KubeRun r = run_in_source("compare --seeds 1 scenarios/kubernetes.yaml --quiet --out '" +
                                  out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const Scenario sc = load_scenario(kSrc + "/scenarios/kubernetes.yaml");
  const std::vector<std::string> names = cluster_node_names(sc.cluster);
  // pod name -> its node's index, from the snapshot file's own text.
  std::map<std::string, std::string> expected;
  {
    std::istringstream in(testing::read_file(kExport + "/imported/snapshot.yaml"));
    for (std::string line; std::getline(in, line);) {
      const size_t pod = line.find("{pod: ");
      const size_t node = line.find(", node: ");
      if (pod == std::string::npos || node == std::string::npos) continue;
      const std::string node_name = line.substr(node + 8, line.rfind('}') - node - 8);
      const auto idx = std::find(names.begin(), names.end(), node_name) - names.begin();
      ASSERT_LT(static_cast<size_t>(idx), names.size()) << node_name;
      expected[line.substr(pod + 6, node - pod - 6)] = std::to_string(idx);
    }
  }
  ASSERT_EQ(expected.size(), sc.snapshot.size());
  std::istringstream csv(testing::read_file(out / "pods.csv"));
  std::string line;
  std::getline(csv, line);               // policy,pod,class,status,arrival_s,start_s,...,node,...
  std::map<std::string, size_t> placed;  // policy -> pinned pods seen on their node at 0
  for (; std::getline(csv, line);) {
    std::vector<std::string> cols;
    std::stringstream row(line);
    for (std::string c; std::getline(row, c, ',');) cols.push_back(c);
    ASSERT_GE(cols.size(), 11U) << line;
    const auto it = expected.find(cols[1]);
    if (it == expected.end()) continue;
    SCOPED_TRACE(line);
    EXPECT_EQ(cols[5], "0");          // start_s
    EXPECT_EQ(cols[10], it->second);  // node
    ++placed[cols[0]];
  }
  ASSERT_EQ(placed.size(), sc.policies.size());
  for (const auto& [policy, n] : placed) EXPECT_EQ(n, expected.size()) << policy;
}

TEST_F(KubeImportE2e, RefusesAFolderItDidNotWrite) {
  const fs::path out = tmp_ / "mine";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "keep me";
  const KubeRun r = run_in_source(
      "import kubernetes --nodes scenarios/kubernetes/nodes.json --out '" + out.string() + "'");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  EXPECT_FALSE(fs::exists(out / "trace.yaml"));
}

TEST_F(KubeImportE2e, BadSnapshotTimeIsAUsageError) {
  const KubeRun bad = run_in_source(
      "import kubernetes --nodes scenarios/kubernetes/nodes.json --snapshot-time 2026-11-20 --out "
      "'" +
      (tmp_ / "x").string() + "'");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("--snapshot-time"), std::string::npos) << bad.out;
}

// A pod the scenario format refuses is refused by the import, at the pod's place in the export,
// and nothing is written: a pod of 2,000 containers of one GPU each became `gpu_count: 2000`,
// which `validate` then refused in the trace the import had written.
TEST_F(KubeImportE2e, RefusesWhatTheScenarioFormatRefusesAtThePod) {
  std::string containers;
  for (int i = 0; i < 2000; ++i)
    containers += fmt::format(
        R"({}{{"name": "c{}", "image": "i", "resources": {{"limits": {{"nvidia.com/gpu": "1"}}}}}})",
        i == 0 ? "" : ", ", i);
  const std::string pods =
      write("pods.json",
            "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n  {\"apiVersion\": \"v1\", "
            "\"kind\": \"Pod\", \"metadata\": {\"name\": \"wide\", \"namespace\": \"ml\", "
            "\"creationTimestamp\": \"2026-11-20T10:00:00Z\"}, \"spec\": {\"containers\": [" +
                containers + "]}, \"status\": {\"phase\": \"Pending\"}}\n]}\n");
  const fs::path out = tmp_ / "imported";
  const KubeRun r =
      run_in_source("import kubernetes --nodes scenarios/kubernetes/nodes.json --pods '" + pods +
                    "' --out '" + out.string() + "'");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(pods + ":2:3: items[0]: pod 'ml/wide' becomes a trace pod that slicelab's "
                              "scenario format refuses: gpu_count: expected an integer in 0..64, "
                              "found '2000'"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(out));
}

// What the import writes, `validate` accepts: the shipped export round trip.
TEST_F(KubeImportE2e, WhatTheImportWritesValidates) {
  const fs::path out = tmp_ / "imported";
  const KubeRun r = run_in_source(
      "import kubernetes --nodes scenarios/kubernetes/nodes.json --pods "
      "scenarios/kubernetes/pods.json --out '" +
      out.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const KubeRun v = run_in_source("validate '" + (out / "scenario.yaml").string() + "'");
  EXPECT_EQ(v.status, 0) << v.out;
}

}  // namespace
}  // namespace slicelab
