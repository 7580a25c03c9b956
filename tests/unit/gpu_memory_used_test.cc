// Pins down a pod's actual GPU memory use (PodSpec::gpu_memory_used_mib): the pod YAML key
// gpu_memory_used_mib with its file:line errors, the trace writer's round trip, the CSV field
// (PAI's max_gpu_wrk_mem), and the own-limit check, which fails a capped tenant that uses more.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/failure_model.h"
#include "tests/support/sim_fixtures.h"
#include "tests/support/temp_files.h"
#include "workloads/inputs/csv_trace_reader.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/trace_writer.h"

namespace slicelab {
namespace {

using testing::message_of;
using MemoryUsedFiles = testing::TempFilesTest;

TEST_F(MemoryUsedFiles, PodYamlReadsASizeAndWritesItBack) {
  const std::string f =
      write("t.yaml",
            "pods:\n"
            "  - {name: a, duration: 1h, gpu_count: 1, gpu_memory_mib: 10Gi, "
            "gpu_memory_used_mib: 12Gi}\n"
            "  - {name: b, duration: 1h, gpu_count: 1, gpu_memory_used_mib: 900}\n"
            "  - {name: c, duration: 1h, gpu_count: 1}\n");
  const std::vector<PodSpec> pods = read_trace_file(f);
  ASSERT_EQ(pods.size(), 3U);
  EXPECT_EQ(pods[0].gpu_memory_mib, 10240);
  EXPECT_EQ(pods[0].gpu_memory_used_mib, 12288);
  EXPECT_EQ(pods[1].gpu_memory_used_mib, 900);
  EXPECT_EQ(pods[2].gpu_memory_used_mib, 0);  // not given: the request counts

  std::ostringstream out;
  write_trace_yaml(out, pods, "round trip");
  const std::string text = out.str();
  EXPECT_NE(text.find("gpu_memory_used_mib: 12288"), std::string::npos) << text;
  const std::vector<PodSpec> back = read_trace_file(write("back.yaml", text));
  ASSERT_EQ(back.size(), 3U);
  for (size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].gpu_memory_used_mib, pods[i].gpu_memory_used_mib) << i;
    EXPECT_EQ(back[i].gpu_memory_mib, pods[i].gpu_memory_mib) << i;
  }
  // A pod without a measurement writes no key: two pods, two keys.
  size_t keys = 0;
  for (size_t at = text.find("gpu_memory_used_mib"); at != std::string::npos;
       at = text.find("gpu_memory_used_mib", at + 1))
    ++keys;
  EXPECT_EQ(keys, 2U) << text;
}

TEST_F(MemoryUsedFiles, PodYamlRejectsABadValueAtItsLine) {
  const std::string bad =
      write("bad.yaml",
            "pods:\n"
            "  - {name: a, duration: 1h, gpu_count: 1}\n"
            "  - {name: b, duration: 1h, gpu_count: 1, gpu_memory_used_mib: 12 GB}\n");
  const std::string msg = message_of([&] { read_trace_file(bad); });
  EXPECT_EQ(msg.rfind(bad + ":3:", 0), 0U) << msg;
  EXPECT_NE(msg.find("pods[1].gpu_memory_used_mib"), std::string::npos) << msg;
  const std::string cpu = write("cpu.yaml",
                                "pods:\n"
                                "  - {name: a, duration: 1h, gpu_memory_used_mib: 1Gi}\n");
  EXPECT_EQ(message_of([&] { read_trace_file(cpu); }),
            cpu + ":2:50: pods[0].gpu_memory_used_mib: GPU memory needs gpu_count of at least 1");
  const std::string huge =
      write("huge.yaml",
            "pods:\n"
            "  - {name: a, duration: 1h, gpu_count: 1, gpu_memory_used_mib: 2048Ti}\n");
  EXPECT_EQ(message_of([&] { read_trace_file(huge); }),
            huge + ":2:64: pods[0].gpu_memory_used_mib: at most 2147483647 MiB (2 PiB) per GPU");
}

TEST_F(MemoryUsedFiles, CsvMapsPaisMaxGpuWrkMemInTheMemoryUnit) {
  CsvTraceMapping m;
  m.file = write("pai.csv",
                 "job,runtime,gpus,plan_gpu_mem,max_gpu_wrk_mem\n"
                 "j1,60,1,16,20.5\n"
                 "j2,60,1,16,\n");
  m.columns = {{"name", "job"},
               {"duration", "runtime"},
               {"gpu_count", "gpus"},
               {"gpu_memory_mib", "plan_gpu_mem"},
               {"gpu_memory_used_mib", "max_gpu_wrk_mem"}};
  m.memory_unit_mib = 1024;  // GiB, as PAI's sensor table gives it
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_EQ(pods[0].gpu_memory_mib, 16384);
  EXPECT_EQ(pods[0].gpu_memory_used_mib, 20992);  // 20.5 x 1024
  EXPECT_EQ(pods[1].gpu_memory_used_mib, 0);      // empty: not measured

  m.file = write("cpu.csv", "job,runtime,gpus,max_gpu_wrk_mem\nj1,60,0,2\n");
  m.columns = {{"name", "job"},
               {"duration", "runtime"},
               {"gpu_count", "gpus"},
               {"gpu_memory_used_mib", "max_gpu_wrk_mem"}};
  const std::string msg = message_of([&] { read_csv_trace(m); });
  EXPECT_EQ(msg.rfind(m.file + ":2:", 0), 0U) << msg;
  EXPECT_NE(msg.find("max_gpu_wrk_mem"), std::string::npos) << msg;
}

TEST(MemoryUsed, PeakIsTheMeasurementThenTheClassThenTheRequest) {
  EXPECT_EQ(peak_memory_mib(12000, 9000, 10000), 12000);
  EXPECT_EQ(peak_memory_mib(0, 9000, 10000), 9000);
  EXPECT_EQ(peak_memory_mib(0, 0, 10000), 10000);
}

// Interposer caps each tenant's memory at its request: a pod that really uses more fails.
TEST(MemoryUsed, ACappedTenantUsingMoreThanItsLimitFails) {
  SharingConfig interposer;
  interposer.kind = "interposer";
  std::vector<PodSpec> pods = {testing::pod("fits", 0, 10).milli(500).gpu_mem(20000),
                               testing::pod("over", 0, 10).milli(500).gpu_mem(20000)};
  pods[0].gpu_memory_used_mib = 20000;
  pods[1].gpu_memory_used_mib = 20001;
  const RunResult r = testing::run(testing::one_gpu(), pods, "first-fit", interposer);
  EXPECT_EQ(r.pods[0].status, PodStatus::kCompleted);
  EXPECT_EQ(r.pods[1].status, PodStatus::kFailed);
  EXPECT_EQ(r.pods[1].failure, FailureCause::kOverMemoryCap);
  EXPECT_NE(r.reason_of(1).find("peak 20001 MiB over its interposer limit of 20000 MiB"),
            std::string::npos)
      << r.reason_of(1);
}

}  // namespace
}  // namespace slicelab
