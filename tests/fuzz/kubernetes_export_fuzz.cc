// Fuzzes `import kubernetes` (workloads/kube/kube_objects, sim/scenario/kube_import): any
// bytes as a kubectl export holding nodes and pods, then the import into a cluster and trace.
#include <cstddef>
#include <cstdint>

#include "sim/gpu_catalog.h"
#include "sim/scenario/kube_import.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "workloads/input_error.h"
#include "workloads/kube/kube_objects.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = slicelab::fuzz::write_input("export.json", slicelab::fuzz::as_text(data, size));
  try {
    slicelab::KubeObjects objects;
    slicelab::read_kube_objects(path, objects);
    const slicelab::GpuCatalog catalog = slicelab::GpuCatalog::builtin();
    (void)slicelab::import_kubernetes(objects, catalog, {});
  } catch (const slicelab::InputError&) {
  }
  return 0;
}
