// What `serve extender --shadow --record` adds to a shadow decision: formatting its line on the
// stack and copying it into the decision log's queue (the writer thread writes and syncs in the
// background, into a temporary folder here). Reported per call, with the lines dropped when the
// queue was full (a burst faster than the disk).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "backends/k8s/shadow_decision_log.h"

namespace {

void BM_ShadowDecisionDecided(benchmark::State& state) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("slicelab-bench-decisions-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int64_t dropped = 0, written = 0;
  {
    slicelab::k8s::ShadowDecisionLog log(dir, "fgd");
    log.start();
    const std::string pod = "team-vision/embed-batch-5-v9b8n";
    const std::string uid = "6b0c2f1e-8a53-4d55-9a1e-0c9f7b6f4d21";
    const std::string node = "gpu-a100-node-0427";
    const int gpus[] = {3};
    for (auto _ : state) log.decided({pod, uid, node, gpus, 812});
    log.stop();
    dropped = log.figures().dropped;
    written = log.figures().lines;
  }
  std::filesystem::remove_all(dir);
  state.counters["dropped"] = static_cast<double>(dropped);
  state.counters["written"] = static_cast<double>(written);
}
BENCHMARK(BM_ShadowDecisionDecided);

}  // namespace

BENCHMARK_MAIN();
