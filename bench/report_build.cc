// `slicelab report` on a results folder of N policies (summary.json, pods.csv, timeseries.csv,
// one pod and one sample per policy): reading, checking and building the report, per size, with
// Google Benchmark's fitted complexity. Target (issue 27): linear in the policies (it was
// quadratic: 40,000 policies took 10 s of CPU, 200,000 took 45-54 s).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "reports/report_content.h"
#include "reports/report_data.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

// A private folder for one size, removed when the benchmark ends.
class ResultsFolder {
 public:
  explicit ResultsFolder(int policies) {
    std::string pattern = (fs::temp_directory_path() / "slicelab-report-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    std::ofstream summary(dir_ / "summary.json");
    std::ofstream pods(dir_ / "pods.csv");
    std::ofstream series(dir_ / "timeseries.csv");
    summary << R"({"format": "slicelab.summary/1", "scenario": "bench", "policies": [)";
    pods << "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,"
            "node,gpus,reason\n";
    series << "policy,time_s,allocation_ratio,fragmentation_ratio,sm_utilization\n";
    for (int i = 0; i < policies; ++i) {
      const std::string name = "p" + std::to_string(i);
      summary << (i ? ", " : "") << R"({"name": ")" << name
              << R"(", "sharing": "whole-card", "pods": {"total": 10, "completed": 10, )"
              << R"("failed": 0}, "allocation_ratio": {"time_weighted": )"
              << static_cast<double>(i) / policies << R"(}, "queue_delay_s": {"count": 10, )"
              << R"("mean": 1, "p50": 1, "p95": 2, "p99": 3, "max": 4}})";
      pods << name << ",pod,batch,completed,0,1,2,1,2,1,0,0,\n";
      series << name << ",0,0.5,0.1,0.2\n";
    }
    summary << "]}\n";
  }
  ~ResultsFolder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ResultsFolder(const ResultsFolder&) = delete;
  ResultsFolder& operator=(const ResultsFolder&) = delete;
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

void BM_ReportOfPolicies(benchmark::State& state) {
  const ResultsFolder folder(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const Report r = build_report(load_report_data(folder.dir()));
    benchmark::DoNotOptimize(r.sections.size());
  }
  state.SetComplexityN(state.range(0));
}

BENCHMARK(BM_ReportOfPolicies)
    ->Arg(25'000)
    ->Arg(50'000)
    ->Arg(100'000)
    ->Arg(200'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
