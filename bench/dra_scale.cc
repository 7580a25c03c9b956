// DRA at scale: reading a 5.2 MB ResourceSlice file (NVIDIA's MIG slices of 61 nodes x 4 H100s,
// as `slicelab export dra` writes them) and a 100,000-pod replay on those nodes, each pod one
// claim of a MIG device of mig.nvidia.com (docs/performance.md#dra). The inputs are written
// into a temporary folder from scenarios/dra's node h100-0.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/modes/dra/dra_files.h"
#include "sim/modes/dra/dra_settings.h"
#include "sim/modes/mode_registry.h"
#include "sim/placement/placement_config.h"
#include "workloads/inputs/generator.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

constexpr int kNodes = 61;  // 5.2 MB of slices
constexpr int kGpusPerNode = 4;
constexpr uint64_t kPods = 100'000;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The folder with deviceclasses.yaml and resourceslices.yaml (h100-0's slices renamed for nodes
// h100-0 .. h100-60), written once per process.
const fs::path& inputs() {
  static const fs::path dir = [] {
    const fs::path src = fs::path(SLICELAB_SOURCE_DIR) / "scenarios/dra";
    const fs::path out =
        fs::temp_directory_path() / ("slicelab-dra-scale-" + std::to_string(getpid()));
    fs::create_directories(out);
    fs::copy_file(src / "deviceclasses.yaml", out / "deviceclasses.yaml",
                  fs::copy_options::overwrite_existing);
    // The documents of node h100-0: those before the first one naming h100-1.
    const std::string all = read_text(src / "mig-slices.yaml");
    const size_t first = all.find("---\n");
    const size_t other = all.rfind("---\n", all.find("nodeName: h100-1"));
    const std::string node0 = all.substr(first, other - first);
    std::ofstream f(out / "resourceslices.yaml");
    for (int n = 0; n < kNodes; ++n) f << replace_all(node0, "h100-0", "h100-" + std::to_string(n));
    return out;
  }();
  return dir;
}

std::vector<std::string> files() {
  return {(inputs() / "deviceclasses.yaml").string(), (inputs() / "resourceslices.yaml").string()};
}

void report_rss(benchmark::State& state) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_DraReadSlices(benchmark::State& state) {
  const std::vector<std::string> paths = files();
  size_t devices = 0;
  for (auto _ : state) {
    const LoadedDra loaded = load_dra_files(paths);
    devices = 0;
    for (const DraResourceSlice& s : loaded.model->resource_slices) devices += s.devices.size();
  }
  state.counters["MB"] = static_cast<double>(fs::file_size(paths[1])) / 1e6;
  state.counters["devices"] = static_cast<double>(devices);
  report_rss(state);
}

PodShape shape(std::string name, double weight, int milli, int64_t gpu_mem, double median_s) {
  PodShape s;
  s.name = std::move(name);
  s.weight = weight;
  s.request.gpu_count = 1;
  s.request.gpu_milli = milli;
  s.request.gpu_memory_mib = gpu_mem;
  s.request.cpu_milli = 2'000;
  s.request.memory_mib = 8'000;
  s.duration.kind = DurationDistribution::Kind::kLognormal;
  s.duration.a = median_s;
  s.duration.b = 0.8;
  s.duration.min_s = 30;
  return s;
}

void BM_DraRun100kPods(benchmark::State& state) {
  const LoadedDra loaded = load_dra_files(files());
  auto settings = std::make_shared<DraSettings>();
  settings->model = loaded.model;
  settings->selectors = loaded.selectors;
  settings->device_class = "mig.nvidia.com";
  SharingConfig sharing;
  sharing.kind = "dra";
  sharing.set_mode_settings(settings);
  const auto mode = make_sharing_mode(sharing);

  ClusterSpec cluster;
  NodeGroup g;
  g.name = "h100";
  g.count = kNodes;
  g.cpu_milli = 96'000;
  g.memory_mib = 1024 * 1024;
  g.gpu_model = *GpuCatalog::builtin().index_of("H100-80GB");
  g.gpus_per_node = kGpusPerNode;
  cluster.groups.push_back(g);
  const GpuCatalog catalog = GpuCatalog::builtin();

  // MIG sizes by memory (1g.10gb .. 7g.80gb); mean GPU-seconds per pod about 1,170, so 675 pods
  // an hour offer about 90% of the 244 GPUs: queues form and nodes fill.
  GeneratorSpec gen;
  gen.pod_count = kPods;
  gen.shapes = {shape("1g", 50, 143, 8'000, 1800), shape("2g", 25, 286, 18'000, 1800),
                shape("3g", 15, 429, 38'000, 3600), shape("7g", 10, 1000, 70'000, 3600)};
  gen.arrivals_per_hour = 675;
  const std::vector<PodSpec> pods = generate_pods(gen, 42);

  EngineConfig cfg;
  cfg.sample_interval_s = 300;
  RunResult last;
  for (auto _ : state) {
    PlacementPolicy placement = build_placement(*placement_preset("best-fit"));
    const RunInputs in{cluster, catalog, pods, *mode, cfg, 7};
    last = run_simulation(in, placement);
    const double ratio = last.summary.allocation_ratio;
    benchmark::DoNotOptimize(ratio);
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["pods_per_s"] = benchmark::Counter(iters * kPods, benchmark::Counter::kIsRate);
  state.counters["attempts"] = static_cast<double>(last.summary.placement_attempts);
  state.counters["alloc_ratio"] = last.summary.allocation_ratio;
  report_rss(state);
}

BENCHMARK(BM_DraReadSlices)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_DraRun100kPods)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace slicelab

BENCHMARK_MAIN();
