// Pins down PodRequestTable: pods with equal requests share one record, every pod reads back
// the request it was built with (also past the cache of recent records), and the view the queue
// and the sharing runs read agrees with the table.
#include "sim/engine/pod_request_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace slicelab {
namespace {

PodRequest request_with(int64_t cpu, int gpus) {
  PodRequest r;
  r.cpu_milli = cpu;
  r.memory_mib = 2 * cpu;
  r.gpu_count = gpus;
  r.claim_units = gpus > 0 ? 1000 : 0;
  return r;
}

TEST(SimPodRequestTable, EqualRequestsShareOneRecord) {
  // Pods 0, 2, 4: 4 CPUs and one GPU; pods 1, 3, 5: 8 CPUs and two GPUs.
  const std::vector<PodRequest> per_pod = {request_with(4000, 1), request_with(8000, 2),
                                           request_with(4000, 1), request_with(8000, 2),
                                           request_with(4000, 1), request_with(8000, 2)};
  PodRequestTable t;
  t.build(per_pod.size(), [&](size_t p) { return per_pod[p]; });
  EXPECT_EQ(t.distinct(), 2u);
  const PodRequestView v = t.view();
  EXPECT_EQ(v.size(), 6u);
  for (size_t p = 0; p < per_pod.size(); ++p) {
    EXPECT_EQ(t[p].cpu_milli, per_pod[p].cpu_milli);
    EXPECT_EQ(t[p].gpu_count, per_pod[p].gpu_count);
    EXPECT_EQ(&v[p], &t[p]);
  }
  EXPECT_EQ(&t[0], &t[4]);
  EXPECT_NE(&t[0], &t[1]);
}

TEST(SimPodRequestTable, ManyDifferentRequestsReadBackExactly) {
  // 10,000 different CPU requests (more than the cache holds), then the first one again.
  const size_t n = 10'001;
  auto make = [](size_t p) {
    return request_with(p + 1 == 10'001 ? 1 : static_cast<int64_t>(p + 1), 1);
  };
  PodRequestTable t;
  t.build(n, make);
  EXPECT_GE(t.distinct(), 10'000u);
  for (size_t p = 0; p < n; ++p) {
    if (t[p].cpu_milli != make(p).cpu_milli || t[p].memory_mib != make(p).memory_mib) {
      ADD_FAILURE() << "pod " << p;
      break;
    }
  }
  EXPECT_EQ(t[n - 1].cpu_milli, 1);
}

TEST(SimPodRequestView, OneRecordPerPod) {
  const std::vector<PodRequest> per_pod = {request_with(1000, 0), request_with(3000, 1)};
  const PodRequestView v(per_pod);
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].cpu_milli, 3000);
  EXPECT_EQ(&v[0], &per_pod[0]);
}

}  // namespace
}  // namespace slicelab
