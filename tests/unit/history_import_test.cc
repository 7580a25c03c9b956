// History imports (docs/record-replay.md): a kubectl export's finished pods (--history) and a
// recording's pods replayed at their creation times for their run times, the pods running when
// the recording began pinned, and the placements the as-recorded policy keeps.
#include <gtest/gtest.h>

#include <string>

#include "sim/gpu_catalog.h"
#include "sim/scenario/kube_import.h"
#include "workloads/kube/kube_objects.h"
#include "workloads/kube/kube_recording.h"

namespace slicelab {
namespace {

const std::string kData = std::string(SLICELAB_SOURCE_DIR) + "/tests/data";

const PodSpec& history_pod(const KubernetesImport& imp, const std::string& name) {
  for (const PodSpec& p : imp.pods)
    if (p.name.view() == name) return p;
  throw std::runtime_error("no pod " + name);
}

std::string history_node_of(const KubernetesImport& imp, const std::string& pod) {
  for (const RecordedPlacement& r : imp.placements)
    if (r.pod == pod) return r.node;
  return "";
}

TEST(HistoryImport, KubectlExportReplaysFinishedPodsAtTheirTimestamps) {
  KubeObjects objects;
  read_kube_objects(kData + "/kubernetes-history/nodes.json", objects);
  read_kube_objects(kData + "/kubernetes-history/pods.json", objects);
  KubernetesImportOptions options;
  options.history = true;
  const KubernetesImport imp = import_kubernetes(objects, GpuCatalog::builtin(), options);
  ASSERT_EQ(imp.pods.size(), 4u);
  EXPECT_TRUE(imp.snapshot.empty());  // time 0 is the earliest timestamp: nothing runs before
  // done-1: created 10:00:00 (the origin), ran 10:00:30..10:20:30.
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/done-1").arrival_s, 0);
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/done-1").duration_s, 1200);
  // done-2 (Failed): created 10:10:00, ran 10:10:05..10:15:05.
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/done-2").arrival_s, 600);
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/done-2").duration_s, 300);
  EXPECT_EQ(history_pod(imp, "batch/done-2").gpu_count, 2);
  // run-3: started 10:30:10, still running at the export's latest timestamp (10:40:00): its
  // 590 s so far plus --running-duration (1h).
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/run-3").arrival_s, 1800);
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/run-3").duration_s, 590 + 3600);
  // pending-4: created 10:40:00, never bound: the pending default.
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/pending-4").arrival_s, 2400);
  EXPECT_DOUBLE_EQ(history_pod(imp, "batch/pending-4").duration_s, 3600);
  EXPECT_EQ(imp.finished_pods, 0);
  EXPECT_EQ(imp.unbound, 1);
  EXPECT_EQ(imp.unended, 1);
  ASSERT_EQ(imp.placements.size(), 3u);
  EXPECT_EQ(history_node_of(imp, "batch/done-1"), "gpu-a");
  EXPECT_EQ(history_node_of(imp, "batch/pending-4"), "");
}

TEST(HistoryImport, WithoutHistoryTheSameExportDropsFinishedPods) {
  KubeObjects objects;
  read_kube_objects(kData + "/kubernetes-history/nodes.json", objects);
  read_kube_objects(kData + "/kubernetes-history/pods.json", objects);
  const KubernetesImport imp = import_kubernetes(objects, GpuCatalog::builtin(), {});
  EXPECT_EQ(imp.finished_pods, 2);
  EXPECT_EQ(imp.pods.size(), 2u);
  EXPECT_TRUE(imp.placements.empty());
}

KubernetesImport history_of_recording(const std::string& dir, std::optional<double> unended = {}) {
  const KubeRecording rec = read_kube_recording(kData + "/recordings/" + dir);
  KubernetesImportOptions options;
  options.history = true;
  options.origin_s = rec.started_s;
  options.end_s = rec.ended_s;
  options.running_duration_s = 0;
  options.unended_duration_s = unended;
  return import_kubernetes(rec.objects, GpuCatalog::builtin(), options);
}

TEST(HistoryImport, RecordingPinsRunningPodsAndReplaysTheOthers) {
  const KubernetesImport imp = history_of_recording("consistent");
  // warm-0 ran before the recording began (12:00:00) and to its end (12:55:00).
  ASSERT_EQ(imp.snapshot.size(), 1u);
  EXPECT_EQ(imp.snapshot[0].first, "ml/warm-0");
  EXPECT_EQ(imp.snapshot[0].second, "gpu-a");
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/warm-0").arrival_s, 0);
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/warm-0").duration_s, 3300);
  // train-1: created 12:05:00, ran 12:05:10..12:35:10 (Succeeded).
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/train-1").arrival_s, 300);
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/train-1").duration_s, 1800);
  // infer-2: created 12:10:00, started 12:10:05, GONE at 12:40:00.
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/infer-2").arrival_s, 600);
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/infer-2").duration_s, 1795);
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/pending-3").arrival_s, 2700);
  EXPECT_EQ(imp.finished_pods, 1);  // old-done ended before the recording began
  EXPECT_EQ(imp.never_ran, 1);      // gone-early: deleted while pending
  EXPECT_EQ(imp.unbound, 1);        // pending-3
  EXPECT_EQ(imp.pods.size(), 4u);
  EXPECT_EQ(history_node_of(imp, "ml/train-1"), "gpu-b");
  // Its GPUs, from the extender's slicelab.io/gpu-assignment annotation.
  for (const RecordedPlacement& r : imp.placements)
    if (r.pod == "ml/train-1") {
      EXPECT_EQ(r.gpus, std::vector<int>{1});
    }
  EXPECT_EQ(imp.unread_assignments, 0);
  EXPECT_EQ(imp.cluster.node_count(), 4u);  // gpu-c joined and left: kept from time 0
}

TEST(HistoryImport, DurationGivesPodsStillRunningAtTheEnd) {
  const KubernetesImport imp = history_of_recording("missing-deletion", 7200);
  EXPECT_DOUBLE_EQ(history_pod(imp, "ml/a-1").duration_s, 7200);
  EXPECT_EQ(imp.unended, 6);
  ASSERT_EQ(imp.unknown_nodes.size(), 1u);
  EXPECT_EQ(imp.unknown_nodes[0].pod, "ml/c-3");
  EXPECT_EQ(imp.unknown_nodes[0].node, "gpu-z");
}

}  // namespace
}  // namespace slicelab
