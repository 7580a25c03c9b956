// Fuzzes `import recording`'s reading (workloads/kube/kube_recording, sim/scenario/kube_import's
// history mode): any bytes as the one segment of a recording folder, then the history import.
#include <cstddef>
#include <cstdint>

#include "sim/gpu_catalog.h"
#include "sim/scenario/kube_import.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto header = slicelab::fuzz::write_input(
      "recording/recording.json",
      R"({"format": "slicelab-recording/1", "started": "2026-11-30T12:00:00.000Z"})");
  const auto segment = slicelab::fuzz::write_input("recording/events-000001.jsonl",
                                                   slicelab::fuzz::as_text(data, size));
  try {
    const slicelab::KubeRecording rec =
        slicelab::read_kube_recording((slicelab::fuzz::scratch_folder() / "recording").string());
    slicelab::KubernetesImportOptions options;
    options.history = true;
    options.origin_s = rec.started_s;
    options.end_s = rec.ended_s;
    options.running_duration_s = 0;
    const slicelab::GpuCatalog catalog = slicelab::GpuCatalog::builtin();
    (void)slicelab::import_kubernetes(rec.objects, catalog, options);
  } catch (const slicelab::InputError&) {
  }
  (void)header;
  (void)segment;
  return 0;
}
