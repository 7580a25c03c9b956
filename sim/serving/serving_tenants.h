// What shares one GPU in the serving model: replicas of inference services (requests arrive,
// wait, are served in batches) and background tenants (batch pods, notebooks) with load of their
// own.
#pragma once

#include "sim/sharing/tenant_load.h"
#include "workloads/service_time.h"

namespace slicelab {

// How one replica serves requests. A request alone uses `request_sm` of the GPU's SM time and
// takes its service time on the whole GPU of the reference model; n requests in service (at most
// `concurrency`, the rest wait FIFO) ask min(1, n x request_sm) of the GPU together and share
// what the GPU grants them equally. So a request's speed is granted / (n x request_sm), at most 1.
struct ReplicaServing {
  ServiceTime service;
  int concurrency = 1;      // >= 1: requests served at once (the server's batch)
  double request_sm = 1.0;  // (0, 1]
  int max_queue = 1000;     // >= 0: waiting requests beyond which an arrival is dropped
};

// A replica on the GPU: how it serves, its Poisson arrival rate (requests/s), and the tenant load
// it presents to the sharing mode (cap, MIG instance share, bandwidth, launches; its sm_demand is
// set from its occupancy).
struct ServingReplica {
  ReplicaServing serving;
  double arrival_rate = 0.0;
  TenantLoad load;
};

// A tenant that is not a replica: while active it asks the GPU for load.sm_demand. A notebook
// alternates active and idle periods (exponential, of these means); idle_mean_s 0: always active.
struct BackgroundTenant {
  TenantLoad load;
  double active_mean_s = 0.0;
  double idle_mean_s = 0.0;

  double duty() const {
    return idle_mean_s <= 0 ? 1.0 : active_mean_s / (active_mean_s + idle_mean_s);
  }
};

}  // namespace slicelab
