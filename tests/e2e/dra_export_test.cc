// `slicelab export dra` end to end: the quickstart cluster's ResourceSlices read back through
// the DRA reader, with counts worked out by hand from the scenario and the MIG tables.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sim/modes/dra/cel_selectors.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"
#include "workloads/inputs/dra_objects.h"

namespace slicelab {
namespace {

class DraExportCli : public testing::TempFilesTest {};

TEST_F(DraExportCli, QuickstartClusterReadsBack) {
  const std::string out = (dir_ / "dra").string();
  const testing::CliRun r = testing::run_program(
      SLICELAB_BINARY,
      "export dra --scenario " +
          testing::shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/quickstart.yaml") +
          " --out " + testing::shell_quote(out),
      dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  DraObjects o;
  read_dra_objects(out + "/deviceclasses.yaml", o);
  read_dra_objects(out + "/resourceslices.yaml", o);
  const DraModel& m = o.model;
  // 4 A100 nodes: a counters slice and a devices slice each; 4 T4 nodes: one slice each.
  ASSERT_EQ(m.resource_slices.size(), 12U);
  // Per A100-80GB: the GPU and 25 MIG placements (1g.10gb 7, 1g.10gb+me 7, 1g.20gb 4,
  // 2g.20gb 3, 3g.40gb 2, 4g.40gb 1, 7g.80gb 1); 16 of them, and 8 plain T4s.
  size_t devices = 0;
  for (const DraResourceSlice& s : m.resource_slices) devices += s.devices.size();
  EXPECT_EQ(devices, 16U * 26U + 8U);
  const DraResourceSlice& counters = m.resource_slices[0];
  EXPECT_EQ(counters.pool.resource_slice_count, 2);
  ASSERT_EQ(counters.shared_counters.size(), 4U);
  const DraResourceSlice& a100 = m.resource_slices[1];
  EXPECT_EQ(a100.node_name, "a100-0");
  const DraDevice& gpu = a100.devices[0];
  EXPECT_EQ(gpu.name, "gpu-0");
  EXPECT_EQ(gpu.find_attribute("gpu.nvidia.com/productName")->string_value,
            "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(gpu.find_attribute("gpu.nvidia.com/architecture")->string_value, "Ampere");
  EXPECT_EQ(gpu.find_attribute("gpu.nvidia.com/cudaComputeCapability")->string_value, "8.0.0");
  EXPECT_EQ(gpu.find_attribute("gpu.nvidia.com/uuid")->string_value.substr(0, 4), "GPU-");
  EXPECT_EQ(gpu.find_capacity("gpu.nvidia.com/memory")->value.value, int64_t{81920} << 20);
  EXPECT_EQ(gpu.find_capacity("gpu.nvidia.com/multiprocessors")->value.value, 108);
  const DraDevice& mig = a100.devices[1];
  EXPECT_EQ(mig.name, "gpu-0-mig-1g10gb-19-0");
  ASSERT_EQ(mig.consumes_counters.size(), 1U);
  EXPECT_EQ(mig.consumes_counters[0].counter_set, "gpu-0-counter-set");
  // multiprocessors, memory and memory-slice-0.
  EXPECT_EQ(mig.consumes_counters[0].counters.size(), 3U);
  EXPECT_EQ(
      m.resource_slices[8].devices[0].find_attribute("gpu.nvidia.com/productName")->string_value,
      "Tesla T4");

  // NVIDIA's classes pick the GPUs and the partitions apart.
  const CelSelectorEvaluator cel(o);
  size_t gpus = 0, migs = 0;
  for (const DraResourceSlice& s : m.resource_slices)
    for (const DraDevice& d : s.devices) {
      gpus += cel.matches(m.device_classes[0].selectors[0], d, s.driver) ? 1 : 0;
      migs += cel.matches(m.device_classes[1].selectors[0], d, s.driver) ? 1 : 0;
    }
  EXPECT_EQ(gpus, 24U);
  EXPECT_EQ(migs, 16U * 25U);
}

TEST_F(DraExportCli, ConsumableMemoryGpusReadBack) {
  const std::string out = (dir_ / "dra").string();
  const testing::CliRun r = testing::run_program(
      SLICELAB_BINARY,
      "export dra --consumable-memory --scenario " +
          testing::shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/quickstart.yaml") +
          " --out " + testing::shell_quote(out),
      dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  DraObjects o;
  read_dra_objects(out + "/resourceslices.yaml", o);
  // One slice per node (no counter sets), 4 x 4 A100 + 4 x 2 T4 GPUs, no partitions.
  ASSERT_EQ(o.model.resource_slices.size(), 8U);
  size_t devices = 0;
  for (const DraResourceSlice& s : o.model.resource_slices)
    for (const DraDevice& d : s.devices) {
      ++devices;
      EXPECT_TRUE(d.allow_multiple_allocations);
      const DraDeviceCapacity* mem = d.find_capacity("gpu.nvidia.com/memory");
      ASSERT_NE(mem, nullptr);
      ASSERT_TRUE(mem->request_policy.has_value());
      EXPECT_EQ(mem->request_policy->valid_range->step->value, int64_t{1} << 30);
      EXPECT_EQ(mem->request_policy->default_value->value, int64_t{1} << 30);
      // Memory only: a claim would take all of a capacity without a request policy.
      EXPECT_EQ(d.capacity.size(), 1U);
    }
  EXPECT_EQ(devices, 24U);
}

TEST_F(DraExportCli, RefusesAFolderItDidNotWrite) {
  const std::filesystem::path mine = dir_ / "mine";
  std::filesystem::create_directories(mine);
  write("mine/keep.txt", "mine");
  const testing::CliRun r = testing::run_program(
      SLICELAB_BINARY,
      "export dra --scenario " +
          testing::shell_quote(std::string(SLICELAB_SOURCE_DIR) + "/scenarios/quickstart.yaml") +
          " --out " + testing::shell_quote(mine.string()),
      dir_);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(mine / "keep.txt"), "mine");
  EXPECT_FALSE(std::filesystem::exists(mine / "resourceslices.yaml"));
}

}  // namespace
}  // namespace slicelab
