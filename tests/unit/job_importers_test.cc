// The training-job trace importers (Philly, Helios, Acme, PAI 2020, Alibaba spot) on their
// shipped samples (exact jobs, skips and adjustments) and on broken files (exact messages with
// file:line).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/temp_files.h"
#include "workloads/input_error.h"
#include "workloads/input_limits.h"
#include "workloads/inputs/acme_reader.h"
#include "workloads/inputs/alibaba_spot_reader.h"
#include "workloads/inputs/helios_reader.h"
#include "workloads/inputs/job_import.h"
#include "workloads/inputs/pai2020_reader.h"
#include "workloads/inputs/philly_reader.h"

namespace slicelab {
namespace {

using testing::message_of;
using JobFiles = testing::TempFilesTest;

const std::string kJobs = std::string(SLICELAB_SOURCE_DIR) + "/workloads/traces/jobs";

const JobSpec& find_job(const std::vector<JobSpec>& jobs, std::string_view name) {
  const auto it =
      std::find_if(jobs.begin(), jobs.end(), [&](const JobSpec& j) { return j.name == name; });
  if (it == jobs.end()) throw std::runtime_error("no job " + std::string(name));
  return *it;
}

// A ModelCheck that knows only `names`.
ModelCheck only(std::vector<std::string> names) {
  return [names](std::string_view m) -> std::optional<std::string> {
    if (std::find(names.begin(), names.end(), m) != names.end()) return std::nullopt;
    return "unknown model";
  };
}

// --- shared rules ---

TEST(TraceTime, DatesWithAndWithoutZones) {
  std::string error;
  const auto a = parse_trace_time("2017-10-07 01:12:09", error);
  const auto b = parse_trace_time("2017-10-07 01:13:23", error);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(*b - *a, 74);
  const auto utc = parse_trace_time("2023-03-01 00:00:00+00:00", error);
  const auto shanghai = parse_trace_time("2023-03-01 08:00:00+08:00", error);
  ASSERT_TRUE(utc && shanghai);
  EXPECT_DOUBLE_EQ(*utc, *shanghai);
  EXPECT_DOUBLE_EQ(*parse_trace_time("2023-03-01 00:00:00.5", error) - *utc, 0.5);
  EXPECT_FALSE(parse_trace_time("2017-10-32 00:00:00", error));
  EXPECT_FALSE(parse_trace_time("yesterday", error));
  EXPECT_FALSE(parse_trace_time("", error));
}

TEST(WholeNumber, IntegersAndIntegralFloats) {
  EXPECT_EQ(parse_whole_number("8"), 8);
  EXPECT_EQ(parse_whole_number("8.0"), 8);
  EXPECT_EQ(parse_whole_number(" 16 "), 16);
  EXPECT_FALSE(parse_whole_number("8.5"));
  EXPECT_FALSE(parse_whole_number("1e300"));
  EXPECT_FALSE(parse_whole_number("nan"));
  EXPECT_FALSE(parse_whole_number(""));
}

// --- Alibaba spot ---

TEST(AlibabaSpotShipped, SampleJobs) {
  JobImportCounts counts;
  JobImportOptions options;
  options.check_model = only({"A10"});
  const auto jobs = read_alibaba_spot_jobs(kJobs + "/alibaba-spot-sample.csv", options, &counts);
  EXPECT_EQ(counts.records, 20);
  EXPECT_EQ(counts.imported, 17);
  EXPECT_EQ(jobs.size(), 17U);
  EXPECT_EQ(counts.skipped_for("zero duration"), 1);
  EXPECT_EQ(counts.skipped_for("cpu-only job"), 1);
  EXPECT_EQ(counts.skipped_for("no workers"), 1);
  EXPECT_EQ(counts.adjusted_for("gpu model not in the catalog"), 12);

  // spot-demo-004,21,A100-SXM4-80GB,12,1,32,1200,7200,Spot
  const JobSpec& spot = find_job(jobs, "spot-demo-004");
  EXPECT_EQ(spot.tier, JobTier::kSpot);
  EXPECT_EQ(spot.queue, "21");
  EXPECT_EQ(spot.workers, 32);
  EXPECT_EQ(spot.min_member, 0);
  EXPECT_EQ(spot.effective_min_member(), 32);
  EXPECT_EQ(spot.worker.gpu_count, 1);
  EXPECT_EQ(spot.worker.gpu_milli, 1000);
  EXPECT_EQ(spot.worker.cpu_milli, 12000);
  EXPECT_DOUBLE_EQ(spot.arrival_s, 1200);
  EXPECT_DOUBLE_EQ(spot.duration_s, 7200);
  EXPECT_EQ(spot.worker.workload_class, "Spot");
  EXPECT_TRUE(spot.worker.allowed_models.empty());  // not in this catalog

  // spot-demo-005,21,A100-SXM4-80GB,96,8,4,3600,36000,HP
  const JobSpec& hp = find_job(jobs, "spot-demo-005");
  EXPECT_EQ(hp.tier, JobTier::kRegular);
  EXPECT_EQ(hp.worker.gpu_count, 8);
  EXPECT_EQ(hp.workers, 4);
  EXPECT_EQ(hp.worker.cpu_milli, 96000);
  EXPECT_EQ(hp.worker.workload_class, "HP");

  // spot-demo-006,3,GPU-series-1,4,0.5,1,4000,1800,Spot: half a GPU
  const JobSpec& half = find_job(jobs, "spot-demo-006");
  EXPECT_EQ(half.worker.gpu_count, 1);
  EXPECT_EQ(half.worker.gpu_milli, 500);

  const JobSpec& a10 = find_job(jobs, "spot-demo-001");
  EXPECT_EQ(a10.worker.allowed_models, std::vector<std::string>{"A10"});
  EXPECT_DOUBLE_EQ(a10.arrival_s, 0);
}

TEST(AlibabaSpotShipped, KeepsCpuOnlyJobsWhenAsked) {
  JobImportCounts counts;
  JobImportOptions options;
  options.keep_cpu_only = true;
  const auto jobs = read_alibaba_spot_jobs(kJobs + "/alibaba-spot-sample.csv", options, &counts);
  EXPECT_EQ(jobs.size(), 18U);
  const JobSpec& cpu = find_job(jobs, "spot-demo-011");
  EXPECT_EQ(cpu.worker.gpu_count, 0);
  EXPECT_EQ(cpu.worker.cpu_milli, 8000);
  // Without a check every named model is left open.
  EXPECT_EQ(counts.adjusted_for("gpu model not in the catalog"), 18);
}

const char* const kSpotHeader =
    "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,"
    "job_type\n";

TEST_F(JobFiles, SpotMalformed) {
  const std::string missing = write("missing.csv",
                                    "job_name,organization,gpu_model,cpu_request,"
                                    "gpu_request,worker_num,submit_time,duration\n"
                                    "a,1,A10,1,1,1,0,10\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(missing); }),
            missing +
                ":1: missing column 'job_type' (the header has: job_name, organization, "
                "gpu_model, cpu_request, gpu_request, worker_num, submit_time, duration)");
  const std::string bad =
      write("bad.csv", std::string(kSpotHeader) + "a,1,A10,1,1,1,0,10,HP\nb,1,A10,1,x,1,0,10,HP\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(bad); }),
            bad + ":3: column 'gpu_request': expected a number in 0..64, found 'x'");
  const std::string negative =
      write("negative.csv", std::string(kSpotHeader) + "a,1,A10,1,1,1,0,-5,HP\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(negative); }),
            negative + ":2: column 'duration': expected a number in 0..31536000, found '-5'");
  const std::string many =
      write("many.csv", std::string(kSpotHeader) + "a,1,A10,1,1,100001,0,10,Spot\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(many); }),
            many + ":2: column 'worker_num': expected an integer in 0..100000, found '100001'");
  const std::string type = write("type.csv", std::string(kSpotHeader) + "a,1,A10,1,1,1,0,10,BE\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(type); }),
            type + ":2: column 'job_type': expected HP or Spot, found 'BE'");
  const std::string none = write("none.csv", std::string(kSpotHeader) + "a,1,A10,1,1,1,0,0,HP\n");
  EXPECT_EQ(message_of([&] { read_alibaba_spot_jobs(none); }),
            none + ": no jobs to import (1 records read; skipped: 1 zero duration)");
}

TEST_F(JobFiles, SpotDuplicateNamesGetSuffixes) {
  JobImportCounts counts;
  const std::string dup = write("dup.csv", std::string(kSpotHeader) +
                                               "a,1,,1,1,1,0,10,HP\na,1,,1,1,1,5,10,HP\n"
                                               "a-2,1,,1,1,1,6,10,HP\n");
  const auto jobs = read_alibaba_spot_jobs(dup, {}, &counts);
  ASSERT_EQ(jobs.size(), 3U);
  EXPECT_EQ(jobs[0].name, "a");
  EXPECT_EQ(jobs[1].name, "a-2");
  EXPECT_EQ(jobs[2].name, "a-2-2");
  EXPECT_EQ(counts.adjusted_for("renamed duplicate"), 2);
}

// --- PAI 2020 ---

ModelCheck pai_catalog() {
  return only({"T4", "P100", "V100-16GB", "V100-32GB"});
}

TEST(Pai2020Shipped, SampleTasksWithTheJobTable) {
  JobImportCounts counts;
  JobImportOptions options;
  options.check_model = pai_catalog();
  const auto jobs = read_pai2020_jobs(kJobs + "/pai2020/pai_task_table.csv",
                                      kJobs + "/pai2020/pai_job_table.csv", options, &counts);
  EXPECT_EQ(counts.records, 13);
  EXPECT_EQ(counts.imported, 8);
  EXPECT_EQ(counts.skipped_for("cpu-only job"), 2);
  EXPECT_EQ(counts.skipped_for("no run time"), 2);
  EXPECT_EQ(counts.skipped_for("zero duration"), 1);
  EXPECT_EQ(counts.adjusted_for("gpu share above one rounded up"), 1);
  EXPECT_EQ(counts.adjusted_for("no job submission: arrives at its start"), 1);
  EXPECT_EQ(counts.adjusted_for("gpu model not in the catalog"), 0);

  // demojob...01,tensorflow,1.0,Terminated,100030.0,103700.0,600.0,29.296875,50.0,T4; the job
  // was submitted at 100000.0, the earliest.
  const JobSpec& half = find_job(jobs, "demojob000000000000001/tensorflow");
  EXPECT_EQ(half.workers, 1);
  EXPECT_EQ(half.worker.gpu_count, 1);
  EXPECT_EQ(half.worker.gpu_milli, 500);
  EXPECT_EQ(half.worker.cpu_milli, 6000);
  EXPECT_EQ(half.worker.memory_mib, 30000);
  EXPECT_EQ(half.worker.allowed_models, std::vector<std::string>{"T4"});
  EXPECT_EQ(half.worker.workload_class, "tensorflow");
  EXPECT_EQ(half.queue, "demouser0001");
  EXPECT_DOUBLE_EQ(half.arrival_s, 0);
  EXPECT_DOUBLE_EQ(half.duration_s, 3670);

  // worker,4.0,...,100520.0,110500.0,400.0,20.0,100.0,V100: four one-GPU instances, a gang.
  const JobSpec& gang = find_job(jobs, "demojob000000000000002/worker");
  EXPECT_EQ(gang.workers, 4);
  EXPECT_EQ(gang.min_member, 0);
  EXPECT_EQ(gang.worker.gpu_count, 1);
  EXPECT_EQ(gang.worker.gpu_milli, 1000);
  EXPECT_EQ(gang.worker.cpu_milli, 4000);
  EXPECT_EQ(gang.worker.allowed_models, std::vector<std::string>{"V100-16GB"});
  EXPECT_DOUBLE_EQ(gang.arrival_s, 500);
  EXPECT_DOUBLE_EQ(gang.duration_s, 9980);

  const JobSpec& eight = find_job(jobs, "demojob000000000000003/PyTorchWorker");
  EXPECT_EQ(eight.workers, 2);
  EXPECT_EQ(eight.worker.gpu_count, 8);
  EXPECT_EQ(eight.worker.allowed_models, std::vector<std::string>{"V100-32GB"});

  const JobSpec& misc = find_job(jobs, "demojob000000000000004/evaluator");
  EXPECT_EQ(misc.worker.gpu_milli, 250);
  EXPECT_TRUE(misc.worker.allowed_models.empty());

  EXPECT_EQ(find_job(jobs, "demojob000000000000007/tensorflow").worker.gpu_count, 2);  // 150%

  // No row in the job table: it arrives when it started, in no queue.
  const JobSpec& orphan = find_job(jobs, "demojob000000000000011/worker");
  EXPECT_DOUBLE_EQ(orphan.arrival_s, 9000);
  EXPECT_EQ(orphan.queue, "");
}

TEST(Pai2020Shipped, TaskTableAlone) {
  JobImportCounts counts;
  const auto jobs = read_pai2020_jobs(kJobs + "/pai2020/pai_task_table.csv", "", {}, &counts);
  EXPECT_EQ(jobs.size(), 8U);
  // Arrivals are the tasks' start times, from the earliest (100030.0).
  EXPECT_DOUBLE_EQ(find_job(jobs, "demojob000000000000001/tensorflow").arrival_s, 0);
  EXPECT_DOUBLE_EQ(find_job(jobs, "demojob000000000000002/worker").arrival_s, 490);
  EXPECT_EQ(find_job(jobs, "demojob000000000000002/worker").queue, "");
  // Without a catalog no model is trusted (MISC and empty types are never counted).
  EXPECT_EQ(counts.adjusted_for("gpu model not in the catalog"), 6);
  EXPECT_EQ(counts.adjusted_for("no job submission: arrives at its start"), 0);
}

const char* const kTaskHeader =
    "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,"
    "gpu_type\n";

TEST_F(JobFiles, Pai2020HeaderRowReadByName) {
  // The same columns in another order, with a header row.
  const std::string task =
      write("task.csv",
            "plan_gpu,job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,"
            "gpu_type,extra\n"
            "200.0,j1,worker,2.0,Terminated,10.0,70.0,800.0,4.0,T4,x\n");
  const std::string job =
      write("job.csv",
            "job_name,inst_id,user,status,start_time,end_time\nj1,i1,u1,Terminated,5,"
            "70\nj2,i2,u2,Terminated,0,1\n");
  const auto jobs = read_pai2020_jobs(task, job);
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].name, "j1/worker");
  EXPECT_EQ(jobs[0].workers, 2);
  EXPECT_EQ(jobs[0].worker.gpu_count, 2);
  EXPECT_EQ(jobs[0].worker.memory_mib, 4096);
  EXPECT_EQ(jobs[0].queue, "u1");
  EXPECT_DOUBLE_EQ(jobs[0].duration_s, 60);
}

TEST_F(JobFiles, Pai2020Malformed) {
  const std::string missing = write("missing.csv",
                                    "job_name,task_name,inst_num,status,start_time,end_time,"
                                    "plan_cpu,plan_mem,gpu_type\nj,t,1,T,0,1,1,1,T4\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(missing, ""); }),
            missing +
                ":1: missing column 'plan_gpu' (the header has: job_name, task_name, inst_num, "
                "status, start_time, end_time, plan_cpu, plan_mem, gpu_type)");
  const std::string short_row =
      write("short.csv", "j,t,1.0,T,0.0,10.0,100.0,1.0,100.0,T4\nj,u,1.0,T,0.0,10.0,100.0,1.0\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(short_row, ""); }),
            short_row +
                ":2: expected 10 fields (job_name,task_name,inst_num,status,start_time,end_time,"
                "plan_cpu,plan_mem,plan_gpu,gpu_type: the README's columns, as the file has no "
                "header row), found 8");
  const std::string bad =
      write("bad.csv", std::string(kTaskHeader) + "j,t,1.0,T,0.0,10.0,100.0,1.0,abc,T4\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(bad, ""); }),
            bad + ":2: column 'plan_gpu': expected a number in 0..6400, found 'abc'");
  const std::string negative = write("negative.csv", "j,t,1.0,T,100.0,50.0,100.0,1.0,100.0,T4\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(negative, ""); }),
            negative +
                ":1: column 'end_time': expected a time at or after start_time (100.0), found "
                "'50.0'");
  const std::string many = write("many.csv", "j,t,100001.0,T,0.0,50.0,100.0,1.0,100.0,T4\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(many, ""); }),
            many +
                ":1: column 'inst_num': expected a whole number in 0..100000, found "
                "'100001.0'");
  const std::string task = write("task.csv", "j,t,1.0,T,0.0,50.0,100.0,1.0,100.0,T4\n");
  const std::string dup_jobs = write("jobs.csv", "j,i,u,T,0.0,1.0\n\nj,i,u,T,0.0,1.0\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(task, dup_jobs); }),
            dup_jobs +
                ":3: column 'job_name': expected a unique job name (also on line 1), "
                "found 'j'");
  const std::string empty = write("empty.csv", "\n\n");
  EXPECT_EQ(message_of([&] { read_pai2020_jobs(empty, ""); }),
            empty +
                ": empty file: expected rows of job_name,task_name,inst_num,status,"
                "start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type");
}

// --- Philly ---

TEST(PhillyShipped, SampleJobs) {
  JobImportCounts counts;
  const auto jobs = read_philly_jobs(kJobs + "/philly-sample.json", {}, &counts);
  EXPECT_EQ(counts.records, 12);
  EXPECT_EQ(counts.imported, 7);
  EXPECT_EQ(counts.skipped_for("no attempts"), 1);
  EXPECT_EQ(counts.skipped_for("running at snapshot"), 1);
  EXPECT_EQ(counts.skipped_for("no attempt times"), 1);
  EXPECT_EQ(counts.skipped_for("zero duration"), 1);
  EXPECT_EQ(counts.skipped_for("no submitted_time"), 1);
  EXPECT_EQ(counts.adjusted_for("machines with different gpu counts"), 1);

  const JobSpec& first = find_job(jobs, "application_demo_0001");
  EXPECT_DOUBLE_EQ(first.arrival_s, 0);
  EXPECT_DOUBLE_EQ(first.duration_s, 3600);
  EXPECT_EQ(first.workers, 1);
  EXPECT_EQ(first.worker.gpu_count, 1);
  EXPECT_EQ(first.queue, "vcdemo1");

  // Two attempts: the second, on two 8-GPU machines, is the one used.
  const JobSpec& retried = find_job(jobs, "application_demo_0002");
  EXPECT_DOUBLE_EQ(retried.arrival_s, 300);
  EXPECT_DOUBLE_EQ(retried.duration_s, 7200);
  EXPECT_EQ(retried.workers, 2);
  EXPECT_EQ(retried.min_member, 0);
  EXPECT_EQ(retried.worker.gpu_count, 8);

  // Machines with 4 and 2 GPUs: two workers of the most, 4.
  const JobSpec& uneven = find_job(jobs, "application_demo_0003");
  EXPECT_EQ(uneven.workers, 2);
  EXPECT_EQ(uneven.worker.gpu_count, 4);
  EXPECT_EQ(uneven.queue, "vcdemo2");

  const JobSpec& big = find_job(jobs, "application_demo_0006");
  EXPECT_EQ(big.workers, 4);
  EXPECT_EQ(big.worker.gpu_count, 8);
  EXPECT_DOUBLE_EQ(big.arrival_s, 6300);
  EXPECT_DOUBLE_EQ(big.duration_s, 86400);

  EXPECT_DOUBLE_EQ(find_job(jobs, "application_demo_0010").duration_s, 1800);
}

TEST(PhillyShipped, AllAttemptsSumTheirRunTimes) {
  PhillyOptions options;
  options.run_time = PhillyRunTime::kAllAttempts;
  const auto jobs = read_philly_jobs(kJobs + "/philly-sample.json", options);
  EXPECT_DOUBLE_EQ(find_job(jobs, "application_demo_0010").duration_s, 5400);
  EXPECT_DOUBLE_EQ(find_job(jobs, "application_demo_0002").duration_s, 7260);
  EXPECT_EQ(find_job(jobs, "application_demo_0002").workers, 2);
}

std::string philly_job(std::string_view id, std::string_view start, std::string_view end) {
  return fmt::format(
      "{{\"jobid\": \"{}\", \"vc\": \"v\", \"submitted_time\": \"2017-10-01 00:00:00\",\n"
      " \"attempts\": [{{\"start_time\": \"{}\", \"end_time\": \"{}\",\n"
      "   \"detail\": [{{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}}]}}]}}",
      id, start, end);
}

TEST_F(JobFiles, PhillyMalformed) {
  const std::string ok = philly_job("j1", "2017-10-01 00:00:10", "2017-10-01 00:10:10");
  const std::string truncated = write("truncated.json", "[\n" + ok + ",\n" + ok.substr(0, 80));
  EXPECT_EQ(message_of([&] { read_philly_jobs(truncated); }),
            truncated +
                ":5: the job object that starts here is not closed before the end of the file (a "
                "truncated file?)");
  const std::string unclosed = write("unclosed.json", "[\n" + ok + "\n");
  EXPECT_EQ(message_of([&] { read_philly_jobs(unclosed); }),
            unclosed +
                ":5: expected ',' or ']' after a job object, found the end of the file (a "
                "truncated file?)");
  const std::string not_list = write("object.json", "\n" + ok);
  EXPECT_EQ(message_of([&] { read_philly_jobs(not_list); }),
            not_list + ":2: expected a JSON list of jobs ('['), found '{'");
  const std::string bad_json =
      write("bad.json", "[\n  {\"jobid\": \"j1\",\n   \"vc\": ,\n   \"attempts\": []}\n]\n");
  EXPECT_EQ(message_of([&] { read_philly_jobs(bad_json); }),
            bad_json +
                ":3:10: a job object that is not valid JSON: syntax error while parsing value - "
                "unexpected ','; expected '[', '{', or a literal");
  const std::string bad_time =
      write("time.json", "[\n" + philly_job("j1", "2017-10-32 00:00:00", "x") + "]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(bad_time); }),
            bad_time +
                ":2: job 'j1': key 'attempts[0].start_time': expected a time \"YYYY-MM-DD "
                "HH:MM:SS\", found \"2017-10-32 00:00:00\"");
  const std::string negative =
      write("negative.json",
            "[\n" + philly_job("j1", "2017-10-01 00:10:00", "2017-10-01 00:00:00") + "]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(negative); }),
            negative +
                ":2: job 'j1': key 'attempts[0].end_time': expected a time at or after start_time "
                "(\"2017-10-01 00:10:00\"), found \"2017-10-01 00:00:00\"");
  const std::string no_id = write("noid.json", "[{\"vc\": \"v\"}]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(no_id); }),
            no_id + ":1: key 'jobid': expected the job's id (a string), found no such key");
  std::string machines;
  for (int i = 0; i <= kMaxJobWorkers; ++i)
    machines += std::string(i ? "," : "") + "{\"ip\":\"m\",\"gpus\":[\"g\"]}";
  const std::string many =
      write("many.json",
            "[{\"jobid\": \"big\", \"submitted_time\": \"2017-10-01 00:00:00\", "
            "\"attempts\": [{\"start_time\": \"2017-10-01 00:00:00\", \"end_time\": "
            "\"2017-10-01 01:00:00\", \"detail\": [" +
                machines + "]}]}]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(many); }),
            many + ":1: job 'big': expected 1..100000 workers, found 100001");
  const std::string none = write("none.json", "[{\"jobid\": \"j\", \"attempts\": []}]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(none); }),
            none + ": no jobs to import (1 records read; skipped: 1 no submitted_time)");
  const std::string deep = write("deep.json", "[{\"jobid\": " + std::string(40, '[') + "]");
  EXPECT_EQ(message_of([&] { read_philly_jobs(deep); }),
            deep + ":1: a job object nested deeper than 16 levels");
}

// --- Helios ---

TEST(HeliosShipped, SampleJobs) {
  JobImportCounts counts;
  const auto jobs = read_helios_jobs(kJobs + "/helios-sample.csv", {}, &counts);
  EXPECT_EQ(counts.records, 15);
  EXPECT_EQ(counts.imported, 12);
  EXPECT_EQ(counts.skipped_for("cpu-only job"), 2);
  EXPECT_EQ(counts.skipped_for("zero duration"), 1);

  // 100008,uDelta,vcRed,12,48,2,TIMEOUT,2020-09-01 09:40:00,...,43200,300
  const JobSpec& two = find_job(jobs, "100008");
  EXPECT_EQ(two.workers, 2);
  EXPECT_EQ(two.min_member, 0);
  EXPECT_EQ(two.worker.gpu_count, 6);
  EXPECT_EQ(two.worker.cpu_milli, 24000);
  EXPECT_EQ(two.queue, "vcRed");
  EXPECT_DOUBLE_EQ(two.arrival_s, 6000);
  EXPECT_DOUBLE_EQ(two.duration_s, 43200);

  const JobSpec& eight = find_job(jobs, "100012");
  EXPECT_EQ(eight.workers, 8);
  EXPECT_EQ(eight.worker.gpu_count, 8);
  EXPECT_EQ(eight.worker.cpu_milli, 64000);
  EXPECT_DOUBLE_EQ(eight.arrival_s, 4 * 3600);
  EXPECT_DOUBLE_EQ(find_job(jobs, "100001").arrival_s, 0);

  JobImportOptions keep;
  keep.keep_cpu_only = true;
  EXPECT_EQ(read_helios_jobs(kJobs + "/helios-sample.csv", keep).size(), 14U);
}

const char* const kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,"
    "queue\n";

TEST_F(JobFiles, HeliosTimesWithoutADurationColumn) {
  JobImportCounts counts;
  const std::string f =
      write("times.csv",
            "job_id,user,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
            "1,u1,3,6,2,2020-06-01 00:00:00,2020-06-01 00:00:10,2020-06-01 00:01:10\n"
            "2,u2,1,1,1,2020-06-01 00:00:30,,\n");
  const auto jobs = read_helios_jobs(f, {}, &counts);
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_DOUBLE_EQ(jobs[0].duration_s, 60);
  EXPECT_EQ(jobs[0].worker.gpu_count, 2);  // 3 GPUs on 2 nodes: 2 each
  EXPECT_EQ(jobs[0].queue, "u1");          // no vc column
  EXPECT_EQ(counts.adjusted_for("gpus uneven across nodes"), 1);
  EXPECT_EQ(counts.skipped_for("no run time"), 1);
}

TEST_F(JobFiles, HeliosMalformed) {
  const std::string missing =
      write("missing.csv", "job_id,gpu_num,cpu_num,submit_time,duration\n1,1,1,x,1\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(missing); }),
            missing +
                ":1: missing column 'node_num' (the header has: job_id, gpu_num, cpu_num, "
                "submit_time, duration)");
  const std::string bad =
      write("bad.csv",
            std::string(kHeliosHeader) + "1,u,vc,two,4,1,COMPLETED,2020-09-01 08:00:00,,,3600,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(bad); }),
            bad + ":2: column 'gpu_num': expected a whole number of at least 0, found 'two'");
  const std::string negative =
      write("negative.csv",
            std::string(kHeliosHeader) + "1,u,vc,1,4,1,COMPLETED,2020-09-01 08:00:00,,,-60,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(negative); }),
            negative + ":2: column 'duration': expected a number in 0..31536000, found '-60'");
  const std::string many =
      write("many.csv", std::string(kHeliosHeader) +
                            "1,u,vc,1,4,100001,COMPLETED,2020-09-01 08:00:00,,,60,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(many); }),
            many + ":2: column 'node_num': expected a whole number in 0..100000, found '100001'");
  const std::string dense =
      write("dense.csv",
            std::string(kHeliosHeader) + "1,u,vc,130,4,2,COMPLETED,2020-09-01 08:00:00,,,60,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(dense); }),
            dense +
                ":2: column 'gpu_num': expected at most 64 GPUs on each of node_num 2 nodes, "
                "found '130'");
  const std::string time =
      write("time.csv",
            std::string(kHeliosHeader) + "1,u,vc,1,4,1,COMPLETED,2020-13-01 08:00:00,,,60,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(time); }),
            time +
                ":2: column 'submit_time': expected a time \"YYYY-MM-DD HH:MM:SS\" (with an "
                "optional zone \"+08:00\"), found '2020-13-01 08:00:00'");
  const std::string order =
      write("order.csv",
            "job_id,gpu_num,cpu_num,node_num,submit_time,start_time,end_time\n"
            "1,1,1,1,2020-09-01 08:00:00,2020-09-01 09:00:00,2020-09-01 08:30:00\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(order); }),
            order +
                ":2: column 'end_time': expected a time at or after start_time ('2020-09-01 "
                "09:00:00'), found '2020-09-01 08:30:00'");
  const std::string span =
      write("span.csv", std::string(kHeliosHeader) +
                            "1,u,vc,1,4,1,COMPLETED,2020-09-01 08:00:00,,,60,0\n"
                            "2,u,vc,1,4,1,COMPLETED,2022-09-01 08:00:00,,,60,0\n");
  EXPECT_EQ(message_of([&] { read_helios_jobs(span); }),
            span +
                ":3: job '2': submitted more than 365d (the simulation horizon) from the job "
                "at " +
                span + ":2");
}

// --- Acme ---

TEST(AcmeShipped, SerenSample) {
  JobImportCounts counts;
  const auto jobs = read_acme_jobs(kJobs + "/acme-seren-sample.csv", {}, &counts);
  EXPECT_EQ(counts.records, 12);
  EXPECT_EQ(counts.imported, 10);
  EXPECT_EQ(counts.skipped_for("cpu-only job"), 1);
  EXPECT_EQ(counts.skipped_for("no run time"), 1);
  EXPECT_EQ(counts.adjusted_for("gpus uneven across nodes"), 1);

  // 9000002,u0101,16,128,2048,Pretrain,COMPLETED,2023-03-01 00:10:00+08:00,...,172800
  const JobSpec& pretrain = find_job(jobs, "9000002");
  EXPECT_EQ(pretrain.workers, 16);
  EXPECT_EQ(pretrain.worker.gpu_count, 8);
  EXPECT_EQ(pretrain.worker.cpu_milli, 128000);
  EXPECT_EQ(pretrain.worker.workload_class, "Pretrain");
  EXPECT_EQ(pretrain.queue, "u0101");  // the `queue` column is a delay, never read
  EXPECT_DOUBLE_EQ(pretrain.arrival_s, 600);
  EXPECT_DOUBLE_EQ(pretrain.duration_s, 172800);
  EXPECT_EQ(pretrain.worker.memory_mib, 0);

  // 20 GPUs and 300 cores on 3 nodes: 7 GPUs and 100 cores each.
  const JobSpec& uneven = find_job(jobs, "9000012");
  EXPECT_EQ(uneven.workers, 3);
  EXPECT_EQ(uneven.worker.gpu_count, 7);
  EXPECT_EQ(uneven.worker.cpu_milli, 100000);
}

TEST(AcmeShipped, KalosSampleHasMemory) {
  JobImportCounts counts;
  const auto jobs = read_acme_jobs(kJobs + "/acme-kalos-sample.csv", {}, &counts);
  EXPECT_EQ(counts.imported, 5);
  EXPECT_EQ(counts.skipped_for("cpu-only job"), 1);
  const JobSpec& big = find_job(jobs, "dlcdemo00000001");
  EXPECT_EQ(big.workers, 8);
  EXPECT_EQ(big.worker.gpu_count, 8);
  EXPECT_EQ(big.worker.cpu_milli, 120000);
  EXPECT_EQ(big.worker.memory_mib, 1000 * 1024);
  EXPECT_DOUBLE_EQ(big.arrival_s, 0);
  EXPECT_DOUBLE_EQ(find_job(jobs, "dlcdemo00000006").arrival_s, 3 * 3600);
}

TEST_F(JobFiles, AcmeMalformed) {
  const std::string missing = write(
      "missing.csv", "job_id,user,node_num,gpu_num,type,submit_time,duration\n1,u,1,1,SFT,x,1\n");
  EXPECT_EQ(message_of([&] { read_acme_jobs(missing); }),
            missing +
                ":1: missing column 'cpu_num' (the header has: job_id, user, node_num, gpu_num, "
                "type, submit_time, duration)");
  const std::string zone = write("zone.csv",
                                 "job_id,user,node_num,gpu_num,cpu_num,submit_time,duration\n"
                                 "1,u,1,1,1,2023-03-01 00:00:00+8,60\n");
  EXPECT_EQ(message_of([&] { read_acme_jobs(zone); }),
            zone +
                ":2: column 'submit_time': expected a time \"YYYY-MM-DD HH:MM:SS\" (with an "
                "optional zone \"+08:00\"), found '2023-03-01 00:00:00+8'");
  const std::string memory =
      write("memory.csv",
            "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,submit_time,duration\n"
            "1,u,1,1,1,lots,2023-03-01 00:00:00+08:00,60\n");
  EXPECT_EQ(message_of([&] { read_acme_jobs(memory); }),
            memory +
                ":2: column 'mem_per_pod_GB': expected a number in 0..1000000000, found "
                "'lots'");
}

}  // namespace
}  // namespace slicelab
