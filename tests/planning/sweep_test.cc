// Sweeps: grid enumeration, shard partition, sweep file errors, and through the slicelab binary,
// merging N shards (N = 1, 2, 3) gives byte-identical files to the unsharded sweep.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "planning/sweep_grid.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::message_of;

SweepSpec grid(size_t p, size_t c, size_t w, size_t s) {
  SweepSpec spec;
  spec.policies.resize(p);
  spec.cluster_scales.assign(c, 1.0);
  spec.workload_scales.assign(w, 1.0);
  spec.seeds.assign(s, 1);
  return spec;
}

TEST(SweepGrid, EnumeratesEveryCombinationOnceWithPolicyFastest) {
  const SweepSpec spec = grid(3, 2, 4, 5);
  ASSERT_EQ(spec.size(), 120U);
  std::set<std::tuple<size_t, size_t, size_t, size_t>> seen;
  for (size_t i = 0; i < spec.size(); ++i) {
    const SweepPoint p = sweep_point(spec, i);
    EXPECT_EQ(p.index, i);
    EXPECT_LT(p.policy, 3U);
    EXPECT_LT(p.cluster, 2U);
    EXPECT_LT(p.workload, 4U);
    EXPECT_LT(p.seed, 5U);
    EXPECT_EQ(((p.seed * 4 + p.workload) * 2 + p.cluster) * 3 + p.policy, i);
    seen.emplace(p.policy, p.cluster, p.workload, p.seed);
  }
  EXPECT_EQ(seen.size(), 120U);
  EXPECT_EQ(sweep_point(spec, 1).policy, 1U);
  EXPECT_EQ(sweep_point(spec, 3).cluster, 1U);
}

TEST(SweepGrid, ShardsAreDisjointAndCoverTheGrid) {
  for (const size_t size : {0U, 1U, 7U, 24U, 100U})
    for (size_t n = 1; n <= 9; ++n) {
      std::vector<int> hits(size, 0);
      for (size_t i = 0; i < n; ++i)
        for (const size_t k : shard_indices(size, {i, n})) {
          ASSERT_LT(k, size);
          ++hits[k];
        }
      for (size_t k = 0; k < size; ++k) EXPECT_EQ(hits[k], 1) << size << " " << n << " " << k;
    }
  EXPECT_EQ(shard_indices(10, {1, 3}), (std::vector<size_t>{1, 4, 7}));
}

TEST(SweepGrid, ShardArgumentIsIOfN) {
  const Shard s = parse_shard("2/5");
  EXPECT_EQ(s.index, 2U);
  EXPECT_EQ(s.count, 5U);
  for (const char* bad : {"5/5", "1/0", "1", "a/2", "-1/2", "1/2/3", "/2", "1/"})
    EXPECT_NE(message_of([&] { parse_shard(bad); }).find("expected I/N"), std::string::npos) << bad;
}

const char* const kScenario = R"(name: tiny
cluster:
  node_groups:
    - {name: a, count: 2, gpu_model: A100-80GB, gpus_per_node: 2, cpu_milli: 32000, memory_mib: 128Gi}
workload:
  generator:
    pods: 40
    arrivals_per_hour: 30
    shapes:
      - {name: inf, gpu_count: 1, gpu_milli: 500, duration: {distribution: exponential, mean: 10m}, slo: {max_queue: 5m}}
      - {name: train, gpu_count: 2, duration: 30m}
policies:
  - {name: best-fit, placement: best-fit}
  - {name: spread, placement: spread}
  - {name: share, placement: best-fit, sharing: gpu-share}
)";

class Sweep : public testing::TempFilesTest {
 protected:
  std::string sweep_file(const std::string& body) {
    write("tiny.yaml", kScenario);
    return write("sweep.yaml", body);
  }
  int slicelab(const std::string& args) {
    const testing::CliRun r = testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  const std::string& err() const { return err_; }
  std::string out_, err_;
};

TEST_F(Sweep, BadSweepFilesAreLocatedErrors) {
  auto error = [&](const std::string& body) {
    const std::string path = sweep_file(body);
    return message_of([&] { read_sweep_spec(path); });
  };
  EXPECT_NE(error("scenario: tiny.yaml\npolicies: [best-fit, nope]\n")
                .find("policies[1]: no policy named 'nope' in tiny.yaml"),
            std::string::npos)
      << error("scenario: tiny.yaml\npolicies: [best-fit, nope]\n");
  EXPECT_NE(error("scenario: missing.yaml\n").find("does not exist"), std::string::npos);
  EXPECT_NE(error("policies: [a]\n").find("missing required key 'scenario'"), std::string::npos)
      << error("policies: [a]\n");
  EXPECT_NE(error("scenario: tiny.yaml\ncluster_scales: [1, 0]\n").find("cluster_scales[1]"),
            std::string::npos);
  EXPECT_NE(error("scenario: tiny.yaml\nseeds: [1, 1]\n").find("repeats an earlier seed"),
            std::string::npos);
  EXPECT_NE(error("scenario: tiny.yaml\nworkload_scale: [1]\n").find("did you mean"),
            std::string::npos);
  const std::string ok = sweep_file("scenario: tiny.yaml\n");
  const SweepSpec spec = read_sweep_spec(ok);
  EXPECT_EQ(spec.policies.size(), 3U);
  EXPECT_EQ(spec.seeds, std::vector<uint64_t>{42});
  EXPECT_EQ(spec.size(), 3U);
}

// Sweep grids are held to the limits of docs/scenario-format.md ("Limits"): seeds, grid points,
// and the scaled cluster and workload.
TEST_F(Sweep, GridsBeyondTheLimitsAreRefused) {
  auto error = [&](const std::string& body) {
    const std::string path = sweep_file(body);
    return message_of([&] { read_sweep_spec(path); });
  };
  std::string seeds = "scenario: tiny.yaml\nseeds: [";
  for (int i = 0; i <= 1000; ++i) seeds += fmt::format("{}{}", i == 0 ? "" : ", ", i);
  EXPECT_NE(error(seeds + "]\n").find("seeds: has 1001 seeds, more than the limit of 1000"),
            std::string::npos)
      << error(seeds + "]\n");
  // 3 policies x 600 cluster scales x 600 workload scales: 1,080,000 points.
  std::string scales = "scenario: tiny.yaml\ncluster_scales: [";
  for (int i = 1; i <= 600; ++i) scales += fmt::format("{}{}", i == 1 ? "" : ", ", i * 0.001);
  scales += "]\nworkload_scales: [";
  for (int i = 1; i <= 600; ++i) scales += fmt::format("{}{}", i == 1 ? "" : ", ", i * 0.001);
  scales += "]\n";
  EXPECT_NE(error(scales).find(": top level: the grid has 1080000 points, more than the limit of "
                               "1000000"),
            std::string::npos)
      << error(scales);
}

// merge does not trust a manifest's point count: 1e12 used to make it walk every index.
TEST_F(Sweep, MergeRefusesAPointCountBeyondTheLimit) {
  const std::string file = sweep_file("scenario: tiny.yaml\n");
  const fs::path shard = dir_ / "shard";
  ASSERT_EQ(slicelab("sweep " + file + " -q --out " + shard.string()), 0) << err();
  std::string manifest = testing::read_file(shard / "sweep.json");
  const size_t at = manifest.find("\"points\": 3");
  ASSERT_NE(at, std::string::npos) << manifest;
  const std::string three = "\"points\": 3";
  manifest.replace(at, three.size(), "\"points\": 1000000000000");
  std::ofstream(shard / "sweep.json") << manifest;
  const fs::path out = dir_ / "merged";
  EXPECT_EQ(slicelab("merge " + shard.string() + " -o " + out.string()), 1);
  EXPECT_NE(err().find("sweep.json:24:13: points: expected a whole number from 0 to 1000000, "
                       "found 1000000000000"),
            std::string::npos)
      << err();
  EXPECT_FALSE(fs::exists(out));
  // Within the limit but above the rows the shards hold: the count of missing points is exact.
  manifest.replace(at, std::string("\"points\": 1000000000000").size(), "\"points\": 1000000");
  std::ofstream(shard / "sweep.json") << manifest;
  EXPECT_EQ(slicelab("merge " + shard.string() + " -o " + out.string()), 1);
  EXPECT_NE(err().find("merge: 999997 grid point(s) missing (no shard holds them): 3, 4, 5"),
            std::string::npos)
      << err();
}

// --seeds replaces the grid's seeds axis: a count from the sweep's first seed, or a list; the
// rows, the manifest and the report's ± over seeds follow it.
TEST_F(Sweep, SeedsOptionReplacesTheSeedsAxis) {
  const std::string file = sweep_file("scenario: tiny.yaml\npolicies: [best-fit]\nseeds: [7]\n");
  const auto seeds_of = [&](const fs::path& dir) {
    return nlohmann::json::parse(testing::read_file(dir / "sweep.json"))
        .at("grid")
        .at("seeds")
        .get<std::vector<uint64_t>>();
  };
  const auto rows_of = [&](const fs::path& dir) {
    size_t lines = 0;
    for (const char c : testing::read_file(dir / "sweep.csv")) lines += c == '\n' ? 1 : 0;
    return lines - 1;
  };
  const fs::path plain = dir_ / "plain", three = dir_ / "three", listed = dir_ / "listed";
  ASSERT_EQ(slicelab("sweep " + file + " -q --out " + plain.string()), 0) << err();
  EXPECT_EQ(seeds_of(plain), (std::vector<uint64_t>{7}));
  ASSERT_EQ(slicelab("sweep " + file + " -q --seeds 3 --out " + three.string()), 0) << err();
  EXPECT_EQ(seeds_of(three), (std::vector<uint64_t>{7, 8, 9}));
  EXPECT_EQ(rows_of(three), 3U);  // 1 policy x 1 x 1 x 3 seeds
  ASSERT_EQ(slicelab("sweep " + file + " -q --seeds 1,5 --out " + listed.string()), 0) << err();
  EXPECT_EQ(seeds_of(listed), (std::vector<uint64_t>{1, 5}));
  EXPECT_EQ(rows_of(listed), 2U);
  // The seed column holds the seeds given.
  const std::string csv = testing::read_file(listed / "sweep.csv");
  EXPECT_NE(csv.find(",1,1,1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,1,5,"), std::string::npos) << csv;
  EXPECT_EQ(slicelab("sweep " + file + " --seeds 0"), 2);
  EXPECT_NE(err().find("--seeds"), std::string::npos) << err();
  EXPECT_EQ(slicelab("sweep " + file + " --seeds 2,2"), 2);
  EXPECT_NE(err().find("listed twice"), std::string::npos) << err();
  // The report says the figures are means over seeds with their interval.
  ASSERT_EQ(slicelab("report " + three.string()), 0) << err();
  const std::string md = testing::read_file(three / "report.md");
  EXPECT_NE(md.find("3 seeds"), std::string::npos) << md;
  EXPECT_NE(md.find("95% confidence interval"), std::string::npos) << md;
}

// The acceptance test: shards joined by `slicelab merge` equal the unsharded sweep, byte for
// byte, for 1, 2 and 3 shards; and a merge with a shard missing or doubled fails.
TEST_F(Sweep, MergedShardsAreByteIdenticalToTheUnshardedSweep) {
  const std::string file = sweep_file(R"(scenario: tiny.yaml
policies: [best-fit, spread, share]
cluster_scales: [0.5, 1, 2]
workload_scales: [1, 1.5]
seeds: [1, 2]
)");
  const fs::path whole = dir_ / "whole";
  ASSERT_EQ(slicelab("sweep " + file + " -j 2 -q --out " + whole.string()), 0) << err();
  const std::string csv = testing::read_file(whole / "sweep.csv");
  const std::string manifest = testing::read_file(whole / "sweep.json");
  size_t lines = 0;
  for (const char c : csv) lines += c == '\n' ? 1 : 0;
  ASSERT_EQ(lines, 1U + 36U);
  EXPECT_NE(manifest.find("\"points\": 36"), std::string::npos) << manifest;

  for (const size_t n : {1U, 2U, 3U}) {
    SCOPED_TRACE(n);
    std::string dirs;
    for (size_t i = 0; i < n; ++i) {
      const fs::path d = dir_ / fmt::format("shard-{}-of-{}", i, n);
      // Different thread counts per shard: results must not depend on them.
      ASSERT_EQ(slicelab(fmt::format("sweep {} --shard {}/{} -j {} -q --out {}", file, i, n,
                                     1 + i % 2, d.string())),
                0)
          << err();
      dirs += " " + d.string();
    }
    const fs::path merged = dir_ / fmt::format("merged-{}", n);
    ASSERT_EQ(slicelab("merge" + dirs + " -o " + merged.string()), 0) << err();
    EXPECT_EQ(testing::read_file(merged / "sweep.csv"), csv);
    EXPECT_EQ(testing::read_file(merged / "sweep.json"), manifest);
    if (n == 3) {
      EXPECT_NE(testing::read_file(dir_ / "shard-1-of-3" / "sweep.json"),
                manifest);  // shards differ...
      const fs::path bad = dir_ / "bad";
      EXPECT_EQ(slicelab("merge " + (dir_ / "shard-0-of-3").string() + " " +
                         (dir_ / "shard-1-of-3").string() + " -o " + bad.string()),
                1);
      EXPECT_NE(err().find("missing"), std::string::npos) << err();
      EXPECT_EQ(slicelab("merge " + (dir_ / "shard-0-of-3").string() + " " +
                         (dir_ / "shard-0-of-3").string() + " -o " + bad.string()),
                1);
      EXPECT_NE(err().find("shard: shard 0 of 3 again: " + (dir_ / "shard-0-of-3").string() +
                           " is that shard too"),
                std::string::npos)
          << err();
      EXPECT_FALSE(fs::exists(bad));
    }
  }
  // A shard of a different sweep is refused.
  const std::string other = write("other.yaml", "scenario: tiny.yaml\nseeds: [1, 2]\n");
  const fs::path o = dir_ / "other";
  ASSERT_EQ(slicelab("sweep " + other + " -q --shard 1/2 --out " + o.string()), 0) << err();
  EXPECT_EQ(slicelab("merge " + (dir_ / "shard-0-of-2").string() + " " + o.string() + " -o " +
                     (dir_ / "bad2").string()),
            1);
  EXPECT_NE(err().find("describes a different sweep"), std::string::npos) << err();
  EXPECT_EQ(slicelab("sweep " + file + " --shard 3/3"), 2);  // a usage error
  EXPECT_NE(err().find("expected I/N"), std::string::npos) << err();
}

}  // namespace
}  // namespace slicelab
