// Pins down jobs.csv (docs/results-format.md#jobscsv): one row per policy and job, times that did
// not happen left empty, a job without a queue in the default queue, names quoted as CSV needs.
#include "reports/jobs_csv.h"
#include "reports/queues_csv.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

namespace slicelab {
namespace {

TEST(JobsCsv, OneRowPerPolicyAndJob) {
  std::vector<JobSpec> specs(2);
  specs[0].name = "train,big";
  specs[0].arrival_s = 10;
  specs[0].duration_s = 100;
  specs[0].workers = 2;
  specs[0].worker.gpu_count = 4;
  specs[0].queue = "research";
  specs[1].name = "spot";
  specs[1].arrival_s = 20;
  specs[1].duration_s = 50;
  specs[1].tier = JobTier::kSpot;
  std::vector<PodSpec> pods;
  JobTable jobs;
  expand_jobs(
      specs, [](const ModelList&) { return 8; }, pods, jobs);

  RunResult r;
  r.policy = "p";
  r.jobs.resize(2);
  r.jobs[0] = {.start_s = 40,
               .finish_s = 140,
               .held_gpu_s = 12.5,
               .evicted_pods = 2,
               .lost_gpu_s = 80,
               .admitted_s = 30,
               .reclaimed = 1,
               .status = PodStatus::kCompleted};
  r.jobs[1].status = PodStatus::kPending;
  std::ostringstream out;
  ASSERT_TRUE(has_job_rows({&r, 1}));
  write_jobs_csv(out, jobs, "default", {&r, 1});
  EXPECT_EQ(out.str(),
            "policy,job,queue,tier,pods,min_member,status,arrival_s,admitted_s,start_s,finish_s,"
            "queue_delay_s,jct_s,held_gpu_s,evicted_pods,lost_gpu_s,reclaimed,gang_timeouts\n"
            "p,\"train,big\",research,regular,2,2,completed,10,30,40,140,30,130,12.5,2,80,1,0\n"
            "p,spot,default,spot,1,1,pending,20,,,,,,0,0,0,0,0\n");
  RunResult none;
  EXPECT_FALSE(has_job_rows({&none, 1}));
}

TEST(QueuesCsv, OneRowPerSampleAndQueue) {
  RunResult r;
  r.policy = "p";
  r.summary.queues.resize(2);
  r.summary.queues[0].name = "research";
  r.summary.queues[1].name = "prod,uct";
  r.queue_samples = {{.time_s = 0,
                      .queue = 0,
                      .pending = 1,
                      .admitted = 2,
                      .used_gpus = 12.5,
                      .borrowed_gpus = 0.5},
                     {.time_s = 0, .queue = 1, .pending = 0, .admitted = 0}};
  ASSERT_TRUE(has_queue_rows({&r, 1}));
  std::ostringstream out;
  write_queues_csv(out, {&r, 1});
  EXPECT_EQ(out.str(),
            "policy,time_s,queue,used_gpus,borrowed_gpus,pending_jobs,admitted_jobs\n"
            "p,0,research,12.5,0.5,1,2\n"
            "p,0,\"prod,uct\",0,0,0,0\n");
}

}  // namespace
}  // namespace slicelab
