// Imported traces survive the trip to trace YAML and back unchanged, in the library and through
// `slicelab import`, and `slicelab validate` reports what an openb scenario holds.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "workloads/inputs/csv_trace_reader.h"
#include "workloads/inputs/openb_reader.h"
#include "workloads/inputs/pod_yaml.h"
#include "workloads/trace_writer.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kOpenbDir = kSource + "/workloads/traces/openb";

struct Outcome {
  int status = -1;
  std::string out;
};

Outcome slicelab(const std::string& args) {
  Outcome r;
  FILE* p = ::popen((std::string(SLICELAB_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// The GPU type FGD's target workload keys a pod on (sim/metrics/fragmentation.cc): the trace's
// spelling when it kept one, else the list joined.
std::string fgd_type(const ModelList& l) {
  if (!l.written().empty()) return std::string(l.written());
  std::string joined;
  for (const auto& m : l) joined.append(joined.empty() ? "" : "|").append(m);
  return joined;
}

void expect_same_pods(const std::vector<PodSpec>& a, const std::vector<PodSpec>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(a[i].name);
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);  // bit-identical, not approximately equal
    EXPECT_EQ(a[i].duration_s, b[i].duration_s);
    EXPECT_EQ(a[i].gpu_count, b[i].gpu_count);
    EXPECT_EQ(a[i].gpu_milli, b[i].gpu_milli);
    EXPECT_EQ(a[i].gpu_memory_mib, b[i].gpu_memory_mib);
    EXPECT_EQ(a[i].cpu_milli, b[i].cpu_milli);
    EXPECT_EQ(a[i].memory_mib, b[i].memory_mib);
    EXPECT_EQ(a[i].gpu_memory_percent, b[i].gpu_memory_percent);
    EXPECT_EQ(a[i].priority, b[i].priority);
    EXPECT_EQ(a[i].allowed_models, b[i].allowed_models);
    EXPECT_EQ(fgd_type(a[i].allowed_models), fgd_type(b[i].allowed_models));
    EXPECT_EQ(a[i].workload_class, b[i].workload_class);
    EXPECT_EQ(a[i].slo_max_queue_s(), b[i].slo_max_queue_s());
    EXPECT_EQ(a[i].slo_max_jct_s(), b[i].slo_max_jct_s());
  }
}

class Import : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("slicelab-import-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Import, WriterRoundTripsEveryField) {
  std::vector<PodSpec> pods(3);
  pods[0].name = "yes";  // a YAML 1.1 boolean spelling stays a name
  pods[0].arrival_s = 0.1 + 0.2;
  pods[0].duration_s = 1.0 / 3.0;
  pods[1].name = "b: with, odd [chars]";
  pods[1].duration_s = 12537496;
  pods[1].gpu_count = 1;
  pods[1].gpu_milli = 460;
  pods[1].gpu_memory_mib = 6144;
  pods[1].cpu_milli = 6000;
  pods[1].memory_mib = 12288;
  pods[1].priority = -3;
  pods[1].allowed_models = ModelList({"V100-16GB", "G2"}, "V100M16|G2|G2");  // openb's spelling
  pods[1].workload_class = "LS";
  pods[1].set_slo(120.5, std::nullopt);
  pods[2].name = "c";
  pods[2].duration_s = 0.001;
  pods[2].gpu_count = 8;
  pods[2].set_slo(std::nullopt, 3600);
  for (auto& p : pods)
    if (p.workload_class.empty()) p.workload_class = "default";
  const std::string file = (dir_ / "t.yaml").string();
  {
    std::ofstream out(file);
    write_trace_yaml(out, pods, "round trip: test");
  }
  expect_same_pods(pods, read_trace_file(file));
}

TEST_F(Import, OpenbCommandRoundTripsTheDefaultPodList) {
  const std::string out = (dir_ / "openb.yaml").string();
  const Outcome r = slicelab("import openb --pods " + kOpenbDir + "/openb_pod_list_default.csv" +
                             " --nodes " + kOpenbDir + "/openb_node_list_gpu_node.csv -o " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out,
            "8152 pods: 1088 CPU-only, 6989 one-GPU (3078 fractional), 75 multi-GPU (16 x 2, 15 "
            "x 4, 44 x 8); GPU demand 6086.8 GPUs\n"
            "1213 nodes (1213 with GPUs), 6212 GPUs: 2 A10, 4392 G2, 312 G3, 265 P100, 842 T4, "
            "195 V100-16GB, 204 V100-32GB\n"
            "wrote " +
                out + "\n");
  expect_same_pods(read_openb_pods(kOpenbDir + "/openb_pod_list_default.csv"),
                   read_trace_file(out));
}

TEST_F(Import, CsvCommandRoundTrips) {
  const std::string csv = (dir_ / "jobs.tsv").string();
  std::ofstream(csv) << "id\tt_ms\tg\tshare\tmem\n"
                        "a\t1500\t1\t0.5\t2\n"  // share is not mapped: ignored
                        "b\t20\t2\t1\t0.5\n";
  const std::string out = (dir_ / "jobs.yaml").string();
  const Outcome r = slicelab("import csv --file " + csv +
                             " --map name=id,duration=t_ms,gpu_count=g,memory_mib=mem"
                             " --time-unit ms --memory-unit GiB --separator '\t' -o " +
                             out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out,
            "2 pods: 0 CPU-only, 1 one-GPU (0 fractional), 1 multi-GPU (1 x 2); GPU "
            "demand 3 GPUs\nwrote " +
                out + "\n");
  CsvTraceMapping m;
  m.file = csv;
  m.separator = '\t';
  m.columns = {{"name", "id"}, {"duration", "t_ms"}, {"gpu_count", "g"}, {"memory_mib", "mem"}};
  m.time_unit_s = 0.001;
  m.memory_unit_mib = 1024;
  const auto pods = read_csv_trace(m);
  EXPECT_EQ(pods[1].memory_mib, 512);
  expect_same_pods(pods, read_trace_file(out));
}

TEST_F(Import, CommandErrors) {
  const std::string csv = (dir_ / "x.csv").string();
  std::ofstream(csv) << "a,b\n1,2\n";
  Outcome r =
      slicelab("import csv --file " + csv + " --map duration -o " + (dir_ / "o.yaml").string());
  EXPECT_EQ(r.status, 2);  // a bad option value: a usage error
  EXPECT_EQ(r.out, "error: --map: expected field=column, found 'duration'\n");
  r = slicelab("import csv --file " + csv + " --map duration=c -o " + (dir_ / "o.yaml").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "error: " + csv +
                       ":1: missing column 'c' (mapped to duration; the header has: "
                       "a, b)\n");
  EXPECT_FALSE(fs::exists(dir_ / "o.yaml"));  // nothing is written on bad input
  r = slicelab("import openb --pods " + csv + " -o " + (dir_ / "o.yaml").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "error: " + csv + ":1: missing column 'name' (the header has: a, b)\n");
}

// A HAMi-style export: RFC 3339 times, gpucores as percent, memory as Kubernetes quantities.
TEST_F(Import, CsvCommandWithUnitsAndRfc3339Times) {
  const std::string csv = (dir_ / "hami.csv").string();
  std::ofstream(csv) << "pod,created,finished,gpus,gpucores,gpumem_pct,mem,cpu\n"
                        "a,2026-03-01T12:00:30Z,2026-03-01T12:10:30Z,1,25,50,16Gi,500m\n"
                        "b,2026-03-01T13:00:00+01:00,2026-03-01T12:30:00Z,1,100,,1G,4\n";
  const std::string out = (dir_ / "hami.yaml").string();
  const Outcome r = slicelab(
      "import csv --file " + csv +
      " --map name=pod,start=created:rfc3339,end=finished:rfc3339,gpu_count=gpus,"
      "gpu_milli=gpucores:percent,gpu_memory_mib=gumem_pct:percent,memory_mib=mem:quantity,"
      "cpu_milli=cpu:quantity -o " +
      out);
  // A typo in a column name is named with the header; nothing is written.
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("missing column 'gumem_pct'"), std::string::npos) << r.out;
  const Outcome ok = slicelab(
      "import csv --file " + csv +
      " --map name=pod,start=created:rfc3339,end=finished:rfc3339,gpu_count=gpus,"
      "gpu_milli=gpucores:percent,gpu_memory_mib=gpumem_pct:percent,memory_mib=mem:quantity,"
      "cpu_milli=cpu:quantity -o " +
      out);
  ASSERT_EQ(ok.status, 0) << ok.out;
  const auto pods = read_trace_file(out);
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 30.0);  // b starts at 12:00:00Z, the earliest
  EXPECT_DOUBLE_EQ(pods[1].arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 600.0);
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 1800.0);
  EXPECT_EQ(pods[0].gpu_milli, 250);
  EXPECT_EQ(pods[1].gpu_milli, 1000);
  EXPECT_EQ(pods[0].gpu_memory_percent, 50);
  EXPECT_EQ(pods[0].memory_mib, 16384);
  EXPECT_EQ(pods[1].memory_mib, 954);  // 10^9 / 2^20 = 953.67, rounded up
  EXPECT_EQ(pods[0].cpu_milli, 500);
  EXPECT_EQ(pods[1].cpu_milli, 4000);

  const Outcome bad =
      slicelab("import csv --file " + csv +
               " --map name=pod,start=created:rfc3339,end=finished:RFC3339 -o " + out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.out,
            "error: --map: unknown unit 'RFC3339' for end (did you mean 'rfc3339'?) (units: s, "
            "seconds, ms, min, h, duration, rfc3339)\n");
  const Outcome origin = slicelab("import csv --file " + csv +
                                  " --map start=created:rfc3339,end=finished:rfc3339 "
                                  "--time-origin 2026-03-01T12:00:00 -o " +
                                  out);
  EXPECT_EQ(origin.status, 2);
  EXPECT_EQ(origin.out,
            "error: --time-origin: '2026-03-01T12:00:00' is not an RFC 3339 time (missing time "
            "zone: add Z for UTC or an offset such as +02:00; e.g. 2026-03-01T12:00:00Z or "
            "2026-03-01T12:00:00.5+02:00)\n");
}

TEST_F(Import, CsvCommandWarnsOfPercentLookingShares) {
  const std::string csv = (dir_ / "p.csv").string();
  std::ofstream(csv) << "t,g,c\n60,1,30\n60,1,50\n";
  const std::string out = (dir_ / "p.yaml").string();
  const Outcome r =
      slicelab("import csv --file " + csv + " --map duration=t,gpu_count=g,gpu_milli=c -o " + out);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n') + 1),
            "warning: " + csv +
                ": column 'c' (gpu_milli) holds no value above 50: gpu_milli is thousandths of a "
                "GPU, so these pods ask for at most 5% of one; if the column is a percentage "
                "(HAMi's nvidia.com/gpucores), map it as gpu_milli=c:percent, or as c:milli to "
                "keep this reading\n");
}

// `import` wrote a duration of 1e308 hours as "inf", a trace slicelab then refused: the row
// is refused instead, with the CSV's file and line, and nothing is written.
TEST_F(Import, TimesBeyondTheHorizonAreRefusedNotWrittenAsInf) {
  const std::string csv = (dir_ / "h.csv").string();
  std::ofstream(csv) << "id,t\na,1\nb,1e308\n";
  const Outcome r =
      slicelab("import csv --file " + csv + " --map name=id,duration=t --time-unit h -o " +
               (dir_ / "h.yaml").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "error: " + csv +
                       ":3: column 't': expected a time in 0..8760 (the simulation horizon of "
                       "365d, in the file's time unit), found '1e308'\n");
  EXPECT_FALSE(fs::exists(dir_ / "h.yaml"));
}

TEST_F(Import, ValidateSummarisesAnOpenbScenario) {
  const fs::path s = dir_ / "s.yaml";
  std::ofstream(s) << "cluster:\n  openb_nodes: " << kOpenbDir << "/openb_node_list_gpu_node.csv\n"
                   << "workload:\n  openb: {pods: " << kOpenbDir << "/openb_pod_list_default.csv}\n"
                   << "policies:\n  - placement: best-fit\n";
  const Outcome r = slicelab("validate " + s.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(": OK: 15 node groups (1213 nodes, 6212 GPUs), 8152 pods (openb "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n8152 pods: 1088 CPU-only, 6989 one-GPU (3078 fractional)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n1213 nodes (1213 with GPUs), 6212 GPUs: 2 A10, 4392 G2, 312 G3,"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace slicelab
