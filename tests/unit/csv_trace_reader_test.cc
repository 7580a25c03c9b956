// The generic CSV importer: the CSV parser itself (quotes, line endings), column mapping with
// units, its exact errors, and the workload.csv scenario key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "sim/scenario/scenario.h"
#include "tests/support/temp_files.h"
#include "workloads/csv_reader.h"
#include "workloads/csv_trace_reader.h"
#include "workloads/input_error.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

using testing::message_of;
using CsvFiles = testing::TempFilesTest;

TEST_F(CsvFiles, ParserHandlesQuotesCrlfBomAndBlankLines) {
  CsvReader csv(write("a.csv",
                      "\xEF\xBB\xBFid, note ,n\r\n"
                      "1,\"a, \"\"quoted\"\" field\",2\r\n"
                      "\r\n"
                      "2,\"two\nlines\",3\n"
                      "3,,4"));
  EXPECT_EQ(csv.header_text(), "id, note, n");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 2U);
  EXPECT_EQ(csv.field(1), "a, \"quoted\" field");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 4U);
  EXPECT_EQ(csv.field(1), "two\nlines");
  EXPECT_EQ(csv.integer(2, 0, 10), 3);
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 6U);  // the quoted newline counts as a line
  EXPECT_EQ(csv.field(1), "");
  EXPECT_FALSE(csv.next());
}

TEST_F(CsvFiles, ParserRejectsRepeatedColumnsAndMissingFiles) {
  const std::string f = write("d.csv", "a,b,a\n1,2,3\n");
  EXPECT_EQ(message_of([&] { CsvReader r(f); }), f + ":1: duplicate column 'a' in the header");
  const std::string none = (dir_ / "none.csv").string();
  EXPECT_EQ(message_of([&] { CsvReader r(none); }), none + ": cannot open file");
}

// The header's repeated-name check and column lookups are linear: 200,000 columns with a
// repeat at the end took minutes when each name was compared with every earlier one.
TEST_F(CsvFiles, WideHeaderIsCheckedInLinearTime) {
  std::string header;
  for (int i = 0; i < 200'000; ++i) header += "c" + std::to_string(i) + ",";
  const std::string wide = write("wide.csv", header + "x\n");
  EXPECT_EQ(CsvReader(wide).column("x"), 200'000U);
  const std::string f = write("repeat.csv", header + "c7\n");
  EXPECT_EQ(message_of([&] { CsvReader r(f); }), f + ":1: duplicate column 'c7' in the header");
}

// Times are within the simulation horizon in seconds: `import` wrote 1e308 hours as "inf",
// which slicelab then refused; now the row itself is refused, with its file and line.
TEST_F(CsvFiles, TimesBeyondTheHorizonNameTheirRow) {
  CsvTraceMapping m;
  m.columns = {{"duration", "t"}, {"arrival", "a"}};
  m.time_unit_s = 3600;
  m.file = write("h.csv", "t,a\n1,0\n1e308,0\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":3: column 't': expected a time in 0..8760 (the simulation horizon of 365d, "
                "in the file's time unit), found '1e308'");
  m.file = write("a.csv", "t,a\n1,1e20\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":2: column 'a': expected a time in 0..8760 (the simulation horizon of 365d, "
                "in the file's time unit), found '1e20'");
}

TEST_F(CsvFiles, MappingWithUnitsAndStartEnd) {
  CsvTraceMapping m;
  m.file = write("t.csv",
                 "job;submit;begin;finish;gpus;share;cpu;mem;types;kind;prio\n"
                 "j1;1;2;12;1;250;0.5;1.5;T4|L4;infer;3\n"
                 "j2;0;0;1.5;4;;8;64;;train;\n"
                 "j3;;0;60;0;0;1;;;;\n");
  m.separator = ';';
  m.columns = {{"name", "job"},      {"arrival", "submit"}, {"start", "begin"},
               {"end", "finish"},    {"gpu_count", "gpus"}, {"gpu_milli", "share"},
               {"cpu_milli", "cpu"}, {"memory_mib", "mem"}, {"allowed_models", "types"},
               {"class", "kind"},    {"priority", "prio"}};
  m.time_unit_s = 60;
  m.memory_unit_mib = 1024;
  m.cpu_unit_milli = 1000;
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 3U);
  EXPECT_EQ(pods[0].name, "j1");
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 60.0);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 600.0);  // end - start, in minutes
  EXPECT_EQ(pods[0].gpu_milli, 250);
  EXPECT_EQ(pods[0].cpu_milli, 500);
  EXPECT_EQ(pods[0].memory_mib, 1536);
  EXPECT_EQ(pods[0].allowed_models, (std::vector<std::string>{"T4", "L4"}));
  EXPECT_EQ(pods[0].workload_class, "infer");
  EXPECT_EQ(pods[0].priority, 3);
  EXPECT_EQ(pods[1].gpu_count, 4);
  EXPECT_EQ(pods[1].gpu_milli, 1000);
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 90.0);
  EXPECT_EQ(pods[1].priority, 0);
  EXPECT_DOUBLE_EQ(pods[2].arrival_s, 0.0);  // empty arrival and start
  EXPECT_EQ(pods[2].workload_class, "default");
}

TEST_F(CsvFiles, OnlyDurationIsRequired) {
  CsvTraceMapping m;
  m.file = write("t.csv", "runtime,other\n5,x\n7,y\n");
  m.columns = {{"duration", "runtime"}};
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_EQ(pods[1].name, "pod-1");
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 7.0);
  EXPECT_EQ(pods[1].gpu_count, 0);
}

TEST_F(CsvFiles, MappingErrors) {
  CsvTraceMapping m;
  m.file = write("t.csv", "runtime,gpus\n5,1\n");
  m.columns = {{"gpu_count", "gpus"}};
  EXPECT_EQ(check_csv_mapping(m),
            "needs a column for 'duration', or for 'end' and 'start' (or 'arrival')");
  m.columns = {{"duration", "runtime"}, {"gpus", "gpus"}};
  EXPECT_EQ(check_csv_mapping(m),
            "unknown pod field 'gpus' (known: name, arrival, duration, start, end, gpu_count, "
            "gpu_milli, gpu_memory_mib, gpu_memory_used_mib, cpu_milli, memory_mib, priority, "
            "allowed_models, class)");
  m.columns = {{"duration", "runtime"}, {"gpu_count", "num_gpus"}};
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":1: missing column 'num_gpus' (mapped to gpu_count; the header has: "
                "runtime, gpus)");
}

TEST_F(CsvFiles, BadRowsNameFileLineAndColumn) {
  CsvTraceMapping m;
  m.columns = {{"name", "id"}, {"duration", "t"}, {"gpu_count", "g"}, {"gpu_milli", "m"}};
  struct Bad {
    const char* rows;
    const char* message;  // after "<file>:"
  };
  const Bad cases[] = {
      {"a,0,1,500\n", "2: column 't': expected a duration of at least 1 ms, found '0'"},
      {"a,-1,1,500\n",
       "2: column 't': expected a time in 0..31536000 (the simulation horizon of 365d, in the "
       "file's time unit), found '-1'"},
      {"a,5,1,500\nb,5,2,500\n", "3: column 'm': expected an integer in 1000..1000, found '500'"},
      {"a,5,1,500\na,6,1,500\n",
       "3: column 'id': expected a unique pod name (also on line 2), "
       "found 'a'"},
      {"a,5,one,500\n", "2: column 'g': expected an integer in 0..64, found 'one'"},
      {"a,,1,500\n",
       "2: column 't': expected a time in 0..31536000 (the simulation horizon of 365d, in the "
       "file's time unit), found ''"},
  };
  for (const Bad& b : cases) {
    m.file = write("b.csv", std::string("id,t,g,m\n") + b.rows);
    EXPECT_EQ(message_of([&] { read_csv_trace(m); }), m.file + ":" + b.message) << b.rows;
  }
  m.columns = {{"arrival", "s"}, {"end", "e"}};
  m.file = write("e.csv", "s,e\n10,10\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file + ":2: column 'e': expected a time at least 1 ms after s ('10'), found '10'");
}

TEST_F(CsvFiles, ScenarioKey) {
  write("jobs.csv", "job,runtime_min,gpus,mem_gb,type\nj,2,1,4,T4\n");
  const Scenario sc = load_scenario(write("s.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 1000, memory_mib: 16Gi}
workload:
  csv:
    file: jobs.csv
    columns: {name: job, duration: runtime_min, gpu_count: gpus, memory_mib: mem_gb,
              allowed_models: type}
    units: {time: min, memory: GiB}
policies:
  - placement: best-fit
)"));
  ASSERT_EQ(sc.pods.size(), 1U);
  EXPECT_DOUBLE_EQ(sc.pods[0].duration_s, 120.0);
  EXPECT_EQ(sc.pods[0].memory_mib, 4096);
  EXPECT_EQ(sc.workload_source, "csv jobs.csv");

  const std::string bad_unit = write("u.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 1000, memory_mib: 16Gi}
workload:
  csv: {file: jobs.csv, columns: {duration: runtime_min}, units: {time: seconds}}
policies:
  - placement: best-fit
)");
  EXPECT_EQ(message_of([&] { load_scenario(bad_unit); }),
            bad_unit + ":5:73: workload.csv.units.time: expected s, ms, min or h, found 'seconds'");

  const std::string bad_model = write("m.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu_milli: 1000, memory_mib: 16Gi}
workload:
  csv: {file: jobs.csv, columns: {duration: runtime_min, gpu_count: gpus, allowed_models: job}}
policies:
  - placement: best-fit
)");
  EXPECT_EQ(message_of([&] { load_scenario(bad_model); }),
            (dir_ / "jobs.csv").string() + ":2: column 'job': unknown GPU model 'j' (known: " +
                GpuCatalog::builtin().names() + ")");
}

}  // namespace
}  // namespace slicelab
