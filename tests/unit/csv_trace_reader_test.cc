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
#include "workloads/input_error.h"
#include "workloads/inputs/csv_trace_reader.h"
#include "workloads/rfc3339.h"

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
                 "j1;1;2;12;1;250;0.5;1.5;T4| L4|L4;infer;3\n"
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
  // Each model once for placement; the repeat kept in the spelling FGD's target keys on.
  EXPECT_EQ(pods[0].allowed_models.written(), "T4|L4|L4");
  EXPECT_TRUE(pods[1].allowed_models.written().empty());
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

  // Units and RFC 3339 times in the scenario key; a bad unit is located at its column.
  write("k.csv", "job,created,runtime,gpus,cores\nj,2026-03-01T12:00:30Z,1h30m,1,25\n");
  const Scenario dated = load_scenario(write("d.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu: 4, memory: 16Gi}
workload:
  csv:
    file: k.csv
    columns: {name: job, arrival: "created:rfc3339", duration: "runtime:duration",
              gpu_count: gpus, gpu_milli: "cores:percent"}
    time_origin: "2026-03-01T12:00:00Z"
policies:
  - placement: best-fit
)"));
  ASSERT_EQ(dated.pods.size(), 1U);
  EXPECT_DOUBLE_EQ(dated.pods[0].arrival_s, 30.0);
  EXPECT_DOUBLE_EQ(dated.pods[0].duration_s, 5400.0);
  EXPECT_EQ(dated.pods[0].gpu_milli, 250);
  const std::string bad_column_unit = write("cu.yaml", R"(cluster:
  node_groups:
    - {count: 1, gpu_model: T4, gpus_per_node: 1, cpu: 4, memory: 16Gi}
workload:
  csv: {file: k.csv, columns: {duration: "runtime:duartion"}}
policies:
  - placement: best-fit
)");
  EXPECT_EQ(message_of([&] { load_scenario(bad_column_unit); }),
            bad_column_unit +
                ":5:42: workload.csv.columns.duration: unknown unit 'duartion' for duration (did "
                "you mean 'duration'?) (units: s, seconds, ms, min, h, duration)");
}

// ---- explicit units per column and RFC 3339 times -----------------------------------------

TEST_F(CsvFiles, Rfc3339ArrivalsCountFromTheEarliest) {
  CsvTraceMapping m;
  m.file = write("k.csv",
                 "id,submitted,runtime\n"
                 "a,2026-03-01T12:00:10Z,90s\n"
                 "b,2026-03-01T12:00:00.5Z,1h30m\n"
                 "c,2026-03-01T13:00:00+01:00,300ms\n");
  add_csv_column(m, "name", "id");
  add_csv_column(m, "arrival", "submitted:rfc3339");
  add_csv_column(m, "duration", "runtime:duration");
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 3U);
  // c is 12:00:00Z, the earliest: a arrives 10 s after it, b half a second after it.
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 10.0);
  EXPECT_DOUBLE_EQ(pods[1].arrival_s, 0.5);
  EXPECT_DOUBLE_EQ(pods[2].arrival_s, 0.0);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 90.0);
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 5400.0);
  EXPECT_DOUBLE_EQ(pods[2].duration_s, 0.3);

  // With an origin, arrivals count from it; a time before it is refused at its row.
  std::string error;
  m.time_origin = parse_rfc3339("2026-03-01T11:00:00Z", error);
  const auto from_origin = read_csv_trace(m);
  EXPECT_DOUBLE_EQ(from_origin[0].arrival_s, 3610.0);
  EXPECT_DOUBLE_EQ(from_origin[2].arrival_s, 3600.0);
  m.time_origin = parse_rfc3339("2026-03-01T12:00:05Z", error);
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":3: column 'submitted': expected a time at or after the time origin, "
                "found '2026-03-01T12:00:00.5Z'");
}

TEST_F(CsvFiles, Rfc3339StartAndEndGiveTheDuration) {
  CsvTraceMapping m;
  m.file = write("s.csv",
                 "start,end\n"
                 "2026-03-01T12:00:00+01:00,2026-03-01T11:30:00Z\n"
                 "2026-02-28T23:59:59Z,2026-03-01T00:00:01Z\n");
  add_csv_column(m, "start", "start:rfc3339");
  add_csv_column(m, "end", "end:rfc3339");
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 2U);
  EXPECT_DOUBLE_EQ(pods[0].duration_s, 1800.0);  // 11:00Z to 11:30Z
  EXPECT_DOUBLE_EQ(pods[1].duration_s, 2.0);     // across the end of February
  // The first starts 11:00Z on Mar 1, the second 23:59:59Z on Feb 28: 11 h and 1 s later.
  EXPECT_DOUBLE_EQ(pods[0].arrival_s, 11 * 3600 + 1.0);
  EXPECT_DOUBLE_EQ(pods[1].arrival_s, 0.0);

  m.file = write("bad.csv", "start,end\n2026-02-30T00:00:00Z,2026-03-01T00:00:00Z\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":2: column 'start': '2026-02-30T00:00:00Z' is not an RFC 3339 time "
                "(2026-02 has no day 30; e.g. 2026-03-01T12:00:00Z or "
                "2026-03-01T12:00:00.5+02:00)");
}

TEST_F(CsvFiles, ResourceColumnsWithUnits) {
  CsvTraceMapping m;
  m.file = write("r.csv",
                 "t,gpus,cores,gmem,gpct,mem,cpu\n"
                 "1,1,30,10Gi,,1073741824,500m\n"
                 "1,1,100,10G,,0,4\n"
                 "1,1,5,,25, 1048577 ,0.25\n");
  add_csv_column(m, "duration", "t");
  add_csv_column(m, "gpu_count", "gpus");
  add_csv_column(m, "gpu_milli", "cores:percent");
  add_csv_column(m, "gpu_memory_mib", "gmem:quantity");
  add_csv_column(m, "memory_mib", "mem:bytes");
  add_csv_column(m, "cpu_milli", "cpu:quantity");
  const auto pods = read_csv_trace(m);
  ASSERT_EQ(pods.size(), 3U);
  EXPECT_EQ(pods[0].gpu_milli, 300);  // HAMi's gpucores: 30 percent of a GPU
  EXPECT_EQ(pods[1].gpu_milli, 1000);
  EXPECT_EQ(pods[2].gpu_milli, 50);
  EXPECT_EQ(pods[0].gpu_memory_mib, 10240);
  EXPECT_EQ(pods[1].gpu_memory_mib, 9537);  // 10^10 / 2^20 = 9536.7, rounded up
  EXPECT_EQ(pods[0].memory_mib, 1024);
  EXPECT_EQ(pods[2].memory_mib, 2);  // a byte over 1 MiB rounds up
  EXPECT_EQ(pods[0].cpu_milli, 500);
  EXPECT_EQ(pods[1].cpu_milli, 4000);
  EXPECT_EQ(pods[2].cpu_milli, 250);

  // gpu_memory_mib as a percentage: HAMi's gpumem-percentage.
  CsvTraceMapping pct = m;
  pct.columns.erase("gpu_memory_mib");
  pct.units.erase("gpu_memory_mib");
  add_csv_column(pct, "gpu_memory_mib", "gpct:percent");
  EXPECT_EQ(read_csv_trace(pct)[2].gpu_memory_percent, 25);

  m.file = write("r2.csv", "t,gpus,cores,gmem,gpct,mem,cpu\n1,1,150,1Gi,,1,1\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file + ":2: column 'cores': expected an integer in 1..100, found '150'");
  m.file = write("r3.csv", "t,gpus,cores,gmem,gpct,mem,cpu\n1,1,10,10GB,,1,1\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file +
                ":2: column 'gmem': unknown unit 'GB' in '10GB' (did you mean 'Gi' (2^30) "
                "or 'G' (10^9)?)");
  m.file = write("r4.csv", "t,gpus,cores,gmem,gpct,mem,cpu\n1,1,10,1Gi,,1Mi,1\n");
  EXPECT_EQ(message_of([&] { read_csv_trace(m); }),
            m.file + ":2: column 'mem': expected a whole number of bytes, found '1Mi'");
}

TEST_F(CsvFiles, UnknownUnitsGetTheClosestOne) {
  CsvTraceMapping m;
  m.file = write("u.csv", "t,c\n1,1\n");
  add_csv_column(m, "duration", "t");
  add_csv_column(m, "gpu_milli", "c:percentage");
  EXPECT_EQ(check_csv_mapping(m),
            "unknown unit 'percentage' for gpu_milli (did you mean 'percent'?) (units: milli, "
            "percent)");
  EXPECT_EQ(check_csv_unit("memory_mib", "mib"),
            "unknown unit 'mib' for memory_mib (did you mean 'MiB'?) (units: MiB, GiB, bytes, "
            "quantity)");
  EXPECT_EQ(check_csv_unit("duration", "rfc3339"),
            "unknown unit 'rfc3339' for duration (units: s, seconds, ms, min, h, duration)");
  EXPECT_EQ(check_csv_unit("arrival", "RFC3339"),
            "unknown unit 'RFC3339' for arrival (did you mean 'rfc3339'?) (units: s, seconds, "
            "ms, min, h, duration, rfc3339)");
  EXPECT_EQ(check_csv_unit("name", "s"), "pod field 'name' takes no unit (found 's')");
  EXPECT_EQ(check_csv_unit("cpu_milli", "cores"), std::nullopt);
  CsvTraceMapping mixed;
  add_csv_column(mixed, "start", "s:rfc3339");
  add_csv_column(mixed, "end", "e");
  EXPECT_EQ(check_csv_mapping(mixed),
            "arrival, start and end are points in time: give all of them as rfc3339, or none");
}

TEST_F(CsvFiles, PercentLookingSharesWarn) {
  CsvTraceMapping m;
  add_csv_column(m, "duration", "t");
  add_csv_column(m, "gpu_count", "g");
  add_csv_column(m, "gpu_milli", "c");
  std::vector<std::string> warnings;
  // A multi-GPU row must say 1000 (a whole GPU each): that shows the column is thousandths.
  m.file = write("w0.csv", "t,g,c\n1,1,30\n1,2,1000\n");
  read_csv_trace(m, {}, &warnings);
  EXPECT_TRUE(warnings.empty());
  m.file = write("w.csv", "t,g,c\n1,1,30\n1,1,100\n");
  const auto pods = read_csv_trace(m, {}, &warnings);
  EXPECT_EQ(pods[0].gpu_milli, 30);  // read as written
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0],
            m.file +
                ": column 'c' (gpu_milli) holds no value above 100: gpu_milli is "
                "thousandths of a GPU, so these pods ask for at most 10% of one; if the "
                "column is a percentage (HAMi's nvidia.com/gpucores), map it as "
                "gpu_milli=c:percent, or as c:milli to keep this reading");
  warnings.clear();
  m.units["gpu_milli"] = "milli";
  read_csv_trace(m, {}, &warnings);
  EXPECT_TRUE(warnings.empty());
  m.units.erase("gpu_milli");
  m.file = write("w2.csv", "t,g,c\n1,1,30\n1,1,250\n");
  read_csv_trace(m, {}, &warnings);
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace slicelab
