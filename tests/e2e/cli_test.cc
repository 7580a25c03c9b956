// Pins down the slicelab command end to end: exit codes, the table, well-formed and consistent
// summary.json / pods.csv / timeseries.csv, determinism, errors that write nothing, every scenario.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"
#include "tests/support/cli_run.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_file;
using testing::shell_quote;

const std::string kSource = SLICELAB_SOURCE_DIR;
const std::string kBinary = SLICELAB_BINARY;
const std::string kQuickstart = kSource + "/scenarios/quickstart.yaml";

const char* const kPodsHeader =
    "policy,pod,class,status,arrival_s,start_s,finish_s,queue_delay_s,jct_s,slowdown,node,gpus,"
    "reason,isolation_error";
const char* const kTimeseriesHeader =
    "policy,time_s,allocation_ratio,fragmentation_ratio,sm_utilization,running,pending";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// One CSV record; fields may be quoted with doubled quotes inside, as results_writer writes them.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string> policy_names(const Scenario& sc) {
  std::vector<std::string> names;
  for (const auto& p : sc.policies) names.push_back(p.name);
  return names;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

using Outcome = testing::CliRun;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "slicelab-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    tmp_ = pattern;
  }
  void TearDown() override { fs::remove_all(tmp_); }

  // Runs slicelab with `args` (already quoted where needed) in `cwd` (default: the temp dir).
  Outcome slicelab(const std::string& args, const fs::path& cwd = {}) {
    return testing::run_program(kBinary, args, tmp_, "std-" + std::to_string(calls_++), "",
                                cwd.empty() ? tmp_ : cwd);
  }

  std::string out_dir(const std::string& name) const { return (tmp_ / name).string(); }

  fs::path tmp_;
  int calls_ = 0;
};

// Checks summary.json, pods.csv and timeseries.csv in `dir` against the scenario, for the
// policies `names` in that order. Returns the parsed summary.
json check_results(const fs::path& dir, const Scenario& sc, const std::vector<std::string>& names) {
  SCOPED_TRACE(dir.string());
  for (const char* f : {"summary.json", "pods.csv", "timeseries.csv"})
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  json summary = json::parse(read_file(dir / "summary.json"));
  EXPECT_EQ(summary.at("format"), "slicelab.summary/1");
  EXPECT_EQ(summary.at("scenario"), sc.name);
  EXPECT_EQ(summary.at("seed").get<uint64_t>(), sc.seed);
  EXPECT_EQ(summary.at("workload").at("pods").get<size_t>(), sc.workload_pods());
  EXPECT_EQ(summary.at("cluster").at("gpus").get<size_t>(), sc.cluster.gpu_count());
  EXPECT_EQ(summary.at("cluster").at("nodes").get<size_t>(), sc.cluster.node_count());

  const json& policies = summary.at("policies");
  std::vector<std::string> got;
  for (const json& p : policies) got.push_back(p.at("name"));
  EXPECT_EQ(got, names);

  const auto in_unit = [](const json& v) { return v.is_number() && v >= 0.0 && v <= 1.0; };
  std::map<std::string, std::map<std::string, size_t>> counts;  // policy -> status -> pods
  for (const json& p : policies) {
    const std::string name = p.at("name");
    SCOPED_TRACE(name);
    const json& pods = p.at("pods");
    const size_t total = pods.at("total");
    EXPECT_EQ(total, sc.workload_pods());
    const size_t completed = pods.at("completed"), failed = pods.at("failed"),
                 unschedulable = pods.at("unschedulable"), pending = pods.at("pending_at_end"),
                 running = pods.at("running_at_end");
    EXPECT_EQ(completed + failed + unschedulable + pending + running, total);
    counts[name] = {{"completed", completed},
                    {"failed", failed},
                    {"unschedulable", unschedulable},
                    {"pending", pending},
                    {"running", running}};
    const json& alloc = p.at("allocation_ratio");
    EXPECT_TRUE(in_unit(alloc.at("time_weighted"))) << alloc;
    EXPECT_TRUE(alloc.at("at_first_failure").is_null() || in_unit(alloc.at("at_first_failure")))
        << alloc;
    EXPECT_TRUE(in_unit(p.at("utilization").at("sm"))) << p.at("utilization");
    EXPECT_TRUE(in_unit(p.at("utilization").at("memory"))) << p.at("utilization");
    EXPECT_EQ(p.at("jct_s").at("count").get<size_t>(), completed);
    for (const char* d : {"queue_delay_s", "jct_s", "slowdown"}) {
      const json& dist = p.at(d);
      if (dist.at("count") == 0) continue;
      EXPECT_LE(dist.at("p50"), dist.at("p95")) << d;
      EXPECT_LE(dist.at("p95"), dist.at("p99")) << d;
      EXPECT_LE(dist.at("p99"), dist.at("max")) << d;
    }
    EXPECT_LE(p.at("slo").at("met"), p.at("slo").at("pods"));
    EXPECT_LE(p.at("gpu_hours").at("allocated").get<double>(),
              p.at("gpu_hours").at("provisioned").get<double>() * (1 + 1e-9));
    EXPECT_GE(p.at("cost_usd").get<double>(), 0.0);
  }

  // pods.csv: one row per pod per policy, statuses agreeing with the summary.
  const std::vector<std::string> pod_lines = lines_of(read_file(dir / "pods.csv"));
  EXPECT_EQ(pod_lines.size(), 1 + sc.workload_pods() * names.size());
  if (!pod_lines.empty()) {
    EXPECT_EQ(pod_lines[0], kPodsHeader);
  }
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, std::map<std::string, size_t>> csv_counts;
  std::set<std::string> scenario_pods;
  for (const auto& pod : sc.pods) scenario_pods.insert(pod.name.str());
  for (size_t i = 1; i < pod_lines.size(); ++i) {
    const auto f = csv_fields(pod_lines[i]);
    EXPECT_EQ(f.size(), 14U) << pod_lines[i];
    if (f.size() != 14) continue;
    EXPECT_TRUE(seen.emplace(f[0], f[1]).second) << "twice: " << pod_lines[i];
    EXPECT_TRUE(scenario_pods.contains(f[1])) << pod_lines[i];
    ++csv_counts[f[0]][f[3]];
  }
  for (auto& [policy, by_status] : counts)
    for (auto it = by_status.begin(); it != by_status.end();)
      it = it->second == 0 ? by_status.erase(it) : std::next(it);
  EXPECT_EQ(csv_counts, counts);

  // timeseries.csv: samples of known policies, in time order, ratios within [0, 1].
  const std::vector<std::string> ts = lines_of(read_file(dir / "timeseries.csv"));
  EXPECT_FALSE(ts.empty());
  if (!ts.empty()) {
    EXPECT_EQ(ts[0], kTimeseriesHeader);
  }
  std::map<std::string, double> last_time;
  for (size_t i = 1; i < ts.size(); ++i) {
    const auto f = csv_fields(ts[i]);
    EXPECT_EQ(f.size(), 7U) << ts[i];
    if (f.size() != 7) continue;
    EXPECT_NE(std::find(names.begin(), names.end(), f[0]), names.end()) << ts[i];
    const double t = std::stod(f[1]);
    if (last_time.contains(f[0])) {
      EXPECT_GE(t, last_time[f[0]]) << ts[i];
    }
    last_time[f[0]] = t;
    for (const size_t col : {2U, 3U, 4U}) {  // allocation, fragmentation, SM utilization
      EXPECT_GE(std::stod(f[col]), 0.0) << ts[i];
      EXPECT_LE(std::stod(f[col]), 1.0) << ts[i];
    }
  }
  return summary;
}

// ---- compare -------------------------------------------------------------------------------

TEST_F(Cli, CompareQuickstartPrintsTableAndWritesResults) {
  const Scenario sc = load_scenario(kQuickstart);
  const std::string out = out_dir("out");
  const Outcome r =
      slicelab("compare --seeds 1 " + shell_quote(kQuickstart) + " --out " + shell_quote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  // The recommendation first (wrapped at 120 columns), then an empty line and the table.
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("Recommended: ", 0), 0U) << lines[0];
  const auto blank = std::find(lines.begin(), lines.end(), "");
  ASSERT_NE(blank, lines.end()) << r.out;
  lines.erase(lines.begin(), blank + 1);
  ASSERT_GE(lines.size(), 2 + sc.policies.size());
  EXPECT_EQ(lines[0].rfind("policy ", 0), 0U) << lines[0];
  EXPECT_NE(lines[0].find("alloc"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].find_first_not_of("- "), std::string::npos) << lines[1];
  for (size_t i = 0; i < sc.policies.size(); ++i)  // one row per policy, in scenario order
    EXPECT_EQ(lines[2 + i].rfind(sc.policies[i].name + " ", 0), 0U) << lines[2 + i];
  for (size_t i = 1; i < 2 + sc.policies.size(); ++i)  // an aligned table
    EXPECT_EQ(lines[i].size(), lines[0].size()) << "misaligned: " << lines[i];
  EXPECT_NE(r.out.find("wrote " + out + "/{summary.json,pods.csv,timeseries.csv}"),
            std::string::npos)
      << r.out;
  EXPECT_GE(sc.policies.size(), 2U);
  check_results(out, sc, policy_names(sc));
}

// Without seeds: or --seed, ten seeds from the scenario's seed: every policy's figures are means
// with a 95% interval line under them, each seed's results in seed-<n>/.
TEST_F(Cli, CompareReplicatesOverTenSeedsByDefault) {
  const Scenario sc = load_scenario(kQuickstart);
  ASSERT_TRUE(sc.seeds.empty());
  const std::string out = out_dir("ten");
  const Outcome r = slicelab("compare " + shell_quote(kQuickstart) + " --out " + shell_quote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<uint64_t> seeds;
  for (uint64_t s = sc.seed; s < sc.seed + 10; ++s) seeds.push_back(s);
  EXPECT_NE(r.out.find(fmt::format("mean over 10 seeds ({}-{})", sc.seed, sc.seed + 9)),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" over 10 seeds)."), std::string::npos) << r.out;  // the headline says so
  // One interval line under each policy, aligned with the table (in display columns: "±" is two
  // bytes of UTF-8).
  const auto columns = [](const std::string& l) {
    return static_cast<size_t>(std::count_if(
        l.begin(), l.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  const std::vector<std::string> lines = lines_of(r.out);
  const auto head = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.rfind("policy ", 0) == 0; });
  ASSERT_NE(head, lines.end()) << r.out;
  for (size_t i = 0; i < sc.policies.size(); ++i) {
    const std::string& row = *(head + 2 + 2 * static_cast<std::ptrdiff_t>(i));
    const std::string& noise = *(head + 3 + 2 * static_cast<std::ptrdiff_t>(i));
    EXPECT_EQ(row.rfind(sc.policies[i].name + " ", 0), 0U) << row;
    EXPECT_NE(noise.find("± 95% CI"), std::string::npos) << noise;
    EXPECT_EQ(columns(row), columns(*head)) << row;
    EXPECT_EQ(columns(noise), columns(*head)) << noise;
  }
  const json mean = json::parse(read_file(fs::path(out) / "summary.json"));
  EXPECT_EQ(mean.at("format"), "slicelab.seeds/1");
  EXPECT_EQ(mean.at("seeds").get<std::vector<uint64_t>>(), seeds);
  EXPECT_EQ(mean.at("decision").at("seeds"), 10);
  // The interval of each figure is the t interval of the seeds' own values, from seed-<n>/.
  const json& u = mean.at("policies").at(0).at("uncertainty").at("queue_delay_s.p99");
  std::vector<double> p99;
  for (const uint64_t s : seeds) {
    const json one =
        json::parse(read_file(fs::path(out) / ("seed-" + std::to_string(s)) / "summary.json"));
    p99.push_back(one.at("policies").at(0).at("queue_delay_s").at("p99").get<double>());
  }
  double sum = 0, sq = 0;
  for (const double v : p99) sum += v;
  const double m = sum / 10;
  for (const double v : p99) sq += (v - m) * (v - m);
  const double half = 2.262157 * std::sqrt(sq / 9) / std::sqrt(10.0);
  EXPECT_EQ(u.at("n"), 10);
  EXPECT_NEAR(u.at("ci95").at(0).get<double>(), m - half, 1e-3 * half);
  EXPECT_NEAR(u.at("ci95").at(1).get<double>(), m + half, 1e-3 * half);
  EXPECT_DOUBLE_EQ(u.at("min").get<double>(), *std::min_element(p99.begin(), p99.end()));
  EXPECT_DOUBLE_EQ(u.at("max").get<double>(), *std::max_element(p99.begin(), p99.end()));
  // --seed and --seeds together: a usage error.
  EXPECT_EQ(slicelab("compare -q --seed 3 --seeds 2 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("both")))
                .status,
            2);
  EXPECT_EQ(slicelab("compare -q --seeds 0 " + shell_quote(kQuickstart)).status, 2);
}

TEST_F(Cli, SameSeedTwiceIsByteIdentical) {
  ASSERT_EQ(
      slicelab("compare -q " + shell_quote(kQuickstart) + " --out " + shell_quote(out_dir("a")))
          .status,
      0);
  ASSERT_EQ(
      slicelab("compare -q " + shell_quote(kQuickstart) + " --out " + shell_quote(out_dir("b")))
          .status,
      0);
  for (const char* f : {"summary.json", "seed-42/pods.csv", "seed-51/timeseries.csv"}) {
    const std::string a = read_file(tmp_ / "a" / f);
    EXPECT_FALSE(a.empty()) << f;
    EXPECT_TRUE(a == read_file(tmp_ / "b" / f)) << f << " differs between two equal runs";
  }
}

TEST_F(Cli, JobsDoNotChangeResults) {
  ASSERT_EQ(slicelab("compare -q --jobs 1 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("j1")))
                .status,
            0);
  ASSERT_EQ(slicelab("compare -q --jobs 4 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("j4")))
                .status,
            0);
  for (const char* f : {"summary.json", "pods.csv", "timeseries.csv"})
    EXPECT_TRUE(read_file(tmp_ / "j1" / f) == read_file(tmp_ / "j4" / f))
        << f << " differs between --jobs 1 and --jobs 4";
}

TEST_F(Cli, SeedChangesTheRun) {
  const Scenario sc = load_scenario(kQuickstart);
  ASSERT_NE(sc.seed, 7U);
  ASSERT_EQ(
      slicelab("compare -q " + shell_quote(kQuickstart) + " --out " + shell_quote(out_dir("base")))
          .status,
      0);
  ASSERT_EQ(slicelab("compare -q --seed 7 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("s7")))
                .status,
            0);
  const json summary = check_results(tmp_ / "s7", load_scenario(kQuickstart, 7), policy_names(sc));
  EXPECT_EQ(summary.at("seed"), 7);
  EXPECT_NE(read_file(tmp_ / "base" / "summary.json"), read_file(tmp_ / "s7" / "summary.json"));
  EXPECT_NE(read_file(tmp_ / "base" / "pods.csv"), read_file(tmp_ / "s7" / "pods.csv"));
}

TEST_F(Cli, NegativeSeedIsRefusedNotWrappedAround) {
  const Outcome r = slicelab("run -q --seed -1 " + shell_quote(kQuickstart) + " --out " +
                             shell_quote(out_dir("neg")));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--seed: expected an integer in 0..9223372036854775807, found '-1'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp_ / "neg"));
}

// CLI11 read a seed beyond int64 as INT64_MAX, running another seed than the one asked for.
TEST_F(Cli, SeedBeyondInt64IsRefusedNotClamped) {
  for (const char* seed : {"9223372036854775808", "99999999999999999999", "1e3", "0x10"}) {
    const Outcome r = slicelab(std::string("run -q --seed ") + seed + " " +
                               shell_quote(kQuickstart) + " --out " + shell_quote(out_dir("big")));
    EXPECT_NE(r.status, 0) << seed;
    EXPECT_NE(r.err.find(std::string("--seed: expected an integer in 0..9223372036854775807, "
                                     "found '") +
                         seed + "'"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp_ / "big"));
  }
  const Outcome ok = slicelab("validate --seed 9223372036854775807 " + shell_quote(kQuickstart));
  EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST_F(Cli, DefaultOutputFolderIsResultsSlashName) {
  const Outcome r = slicelab("compare --quiet --seeds 1 " + shell_quote(kQuickstart));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");  // --quiet prints no table
  const Scenario sc = load_scenario(kQuickstart);
  check_results(tmp_ / "results" / sc.name, sc, policy_names(sc));
}

// ---- run -----------------------------------------------------------------------------------

TEST_F(Cli, RunOnePolicy) {
  const Scenario sc = load_scenario(kQuickstart);
  const Outcome r = slicelab("run --seeds 1 " + shell_quote(kQuickstart) +
                             " --policy best-fit --out " + shell_quote(out_dir("bf")));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3U);
  EXPECT_EQ(lines[2].rfind("best-fit ", 0), 0U) << r.out;
  const json summary = check_results(tmp_ / "bf", sc, {"best-fit"});
  // The same policy gives the same numbers alone as in a comparison, but for the cost figures:
  // alone it pays for its own window, in a comparison for the common horizon (common_horizon.h).
  const auto without_cost = [](json p) {
    for (const char* key : {"cost_window_s", "cost_usd", "cost_per_completed_usd"}) p.erase(key);
    p["gpu_hours"].erase("provisioned");
    for (json& m : p["per_model"]) {
      m.erase("gpu_hours_provisioned");
      m.erase("cost_usd");
    }
    return p;
  };
  EXPECT_EQ(summary.at("policies").at(0).at("cost_window_s").at("end"),
            summary.at("policies").at(0).at("window_s").at("end"));
  ASSERT_EQ(slicelab("compare -q --seeds 1 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("all")))
                .status,
            0);
  const json all = json::parse(read_file(tmp_ / "all" / "summary.json"));
  bool found = false;
  for (const json& p : all.at("policies"))
    if (p.at("name") == "best-fit") {
      found = true;
      EXPECT_EQ(without_cost(p), without_cost(summary.at("policies").at(0)));
    }
  EXPECT_TRUE(found);
}

TEST_F(Cli, RunWithoutPolicyRunsTheFirst) {
  const Scenario sc = load_scenario(kQuickstart);
  ASSERT_EQ(slicelab("run -q --seeds 1 " + shell_quote(kQuickstart) + " --out " +
                     shell_quote(out_dir("first")))
                .status,
            0);
  check_results(tmp_ / "first", sc, {sc.policies.front().name});
}

TEST_F(Cli, RunUnknownPolicyListsThePolicies) {
  const Scenario sc = load_scenario(kQuickstart);
  const std::string out = out_dir("nope");
  const Outcome r =
      slicelab("run " + shell_quote(kQuickstart) + " --policy nope --out " + shell_quote(out));
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.err, "error: " + kQuickstart + ": no policy named 'nope' (the scenario has: " +
                       joined(policy_names(sc)) + ")\n");
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(out));
}

// ---- validate and errors -------------------------------------------------------------------

TEST_F(Cli, ValidateGoodScenario) {
  const Scenario sc = load_scenario(kQuickstart);
  const Outcome r = slicelab("validate scenarios/quickstart.yaml", kSource);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("scenarios/quickstart.yaml: OK: ", 0), 0U) << r.out;
  EXPECT_NE(r.out.find(std::to_string(sc.pods.size()) + " pods"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(sc.policies.size()) + " policies"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "");
}

const std::string kBadDuration = kSource + "/tests/malformed/bad_duration_unit.yaml";
const std::string kBadDurationMessage =
    kBadDuration +
    ":9:17: workload.pods[0].duration: expected a duration of at least 0.001s (seconds, or a Go "
    "duration such as 90s, 1h30m, 300ms, 1.5d), found '90min': unknown unit 'min' in duration "
    "'90min' (did you mean 'm'?)";

TEST_F(Cli, ValidateMalformedScenario) {
  const Outcome r = slicelab("validate " + shell_quote(kBadDuration));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "error: " + kBadDurationMessage + "\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, MalformedScenarioWritesNothing) {
  for (const std::string cmd : {"compare", "run"}) {
    SCOPED_TRACE(cmd);
    const std::string out = out_dir("never-" + cmd);
    const Outcome r =
        slicelab(cmd + " " + shell_quote(kBadDuration) + " --out " + shell_quote(out));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "error: " + kBadDurationMessage + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(out));
  }
  // Nor the default folder, nor any half-written temporary.
  EXPECT_EQ(slicelab("compare " + shell_quote(kBadDuration)).status, 1);
  for (const auto& entry : fs::directory_iterator(tmp_))
    EXPECT_EQ(entry.path().filename().string().rfind("std", 0), 0U) << entry.path();
}

TEST_F(Cli, MissingScenarioFile) {
  const std::string missing = out_dir("no-such-scenario.yaml");
  for (const std::string cmd : {"validate", "run", "compare"}) {
    SCOPED_TRACE(cmd);
    const Outcome r = slicelab(cmd + " " + shell_quote(missing) + " --seed 1");
    EXPECT_EQ(r.status, 1);  // bad input, not a usage error (README "Exit codes")
    EXPECT_EQ(r.err, "error: " + missing + ": cannot open file: no such file\n");
    EXPECT_EQ(r.out, "");
  }
  EXPECT_FALSE(fs::exists(tmp_ / "results"));
}

TEST_F(Cli, BadCommandLines) {
  // A command line that does not parse is a usage error: exit code 2 (a bad input is 1).
  EXPECT_EQ(slicelab("").status, 2);  // a subcommand is required
  EXPECT_EQ(slicelab("simulate " + shell_quote(kQuickstart)).status, 2);
  EXPECT_EQ(slicelab("compare").status, 2);  // the scenario is required
  EXPECT_EQ(slicelab("compare " + shell_quote(kQuickstart) + " --jobs 0").status, 2);
  EXPECT_EQ(slicelab("validate " + shell_quote(kQuickstart) + " --out x").status,
            2);  // validate writes nothing
  EXPECT_FALSE(fs::exists(tmp_ / "results"));
  EXPECT_FALSE(fs::exists(tmp_ / "x"));
}

TEST_F(Cli, UsageErrorsExitWith2InEverySubcommand) {
  const std::string q = shell_quote(kQuickstart);
  for (const std::string& args : std::vector<std::string>{
           "compare " + q + " --no-such-option",  // unknown option
           "compare " + q + " --jobs",            // option without its value
           "compare " + q + " --jobs many",       // a value that is not a number
           "run " + q + " --seed abc",
           "run " + q + " --seed -1",  // out of range
           "validate",                 // missing argument
           "plan " + q + " --probes 0",
           "sweep",
           "merge --out x",
           "report",
           "import",
           "calibrate",
           "replay",
           "kernels --no-such-option",
           "interposer --no-such-option",
           // Bad values found once the command runs are usage errors too.
           "plan " + q + " --target 'queue_delay_max_s<300'",
           "sweep " + shell_quote(kSource + "/scenarios/sweeps/example-sweep.yaml") +
               " --shard 3/3",
           "import csv --file " + q + " --map name -o x.yaml",
           "kernels colocation --caps 0.5:x",
           "kernels isolation --kernel no-such-kernel",
           "replay " + q + " --mechanism no-such-mechanism",
       }) {
    SCOPED_TRACE(args);
    const Outcome r = slicelab(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err, "");
    EXPECT_EQ(r.out, "");
  }
  // What parses but cannot be run is an input or run error: 1.
  EXPECT_EQ(slicelab("run " + q + " --policy nope").status, 1);
  EXPECT_EQ(slicelab("--version").status, 0);
}

TEST_F(Cli, QuietPrintsNoProgress) {
  // The large openb scenario runs for well over the progress line's first silent second: all
  // its seeds and policies on one thread (a few seconds), or, sanitized (20-30x slower), one.
#ifdef SLICELAB_SANITIZED
  const std::string what = "run -p fgd --seed 42 ";
#else
  const std::string what = "compare --jobs 1 ";
#endif
  const std::string args = what + shell_quote(kSource + "/scenarios/openb-fgd.yaml") + " --out " +
                           shell_quote(out_dir("openb"));
  const Outcome loud = slicelab(args);
  ASSERT_EQ(loud.status, 0) << loud.err;
  ASSERT_NE(loud.err.find("runs done"), std::string::npos) << "no progress to silence";
  const Outcome quiet = slicelab(args + " -q");
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.out, "");
}

TEST_F(Cli, TableFits120ColumnsAndWideShowsEveryColumn) {
  for (const char* name : {"quickstart.yaml", "sharing-modes.yaml", "mig.yaml"}) {
    SCOPED_TRACE(name);
    const std::string args = "compare " + shell_quote(kSource + "/scenarios/" + name) +
                             " --jobs 2 --out " + shell_quote(out_dir("t"));
    const Outcome narrow = slicelab(args);
    ASSERT_EQ(narrow.status, 0) << narrow.err;
    const Outcome wide = slicelab(args + " --wide");
    ASSERT_EQ(wide.status, 0) << wide.err;
    size_t widest = 0;
    // In display columns: "±" is two bytes of UTF-8.
    const auto columns = [](const std::string& l) {
      return static_cast<size_t>(std::count_if(l.begin(), l.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }));
    };
    for (const std::string& l : lines_of(narrow.out)) {
      EXPECT_LE(columns(l), 120U) << l;
    }
    for (const std::string& l : lines_of(wide.out)) widest = std::max(widest, columns(l));
    EXPECT_GT(widest, 120U) << wide.out;
    // The table's head: the first line after the recommendation.
    const auto head_of = [](const std::string& out) {
      for (const std::string& l : lines_of(out))
        if (l.rfind("policy ", 0) == 0) return l;
      return std::string();
    };
    const std::string header = head_of(narrow.out), wide_header = head_of(wide.out);
    EXPECT_LT(header.size(), wide_header.size());
    EXPECT_NE(narrow.out.find("more columns with --wide"), std::string::npos) << narrow.out;
    EXPECT_EQ(wide.out.find("more columns with --wide"), std::string::npos) << wide.out;
    for (const char* column : {"policy", "done", "failed", "alloc"})
      EXPECT_NE(header.find(column), std::string::npos) << column;
    for (const char* column : {"slowdn p99", "GPU-h used"})
      EXPECT_NE(wide_header.find(column), std::string::npos) << column;
  }
}

TEST_F(Cli, HelpForEverySubcommand) {
  struct Help {
    std::string args;
    std::vector<std::string> mentions;
  };
  const std::vector<Help> helps = {
      {"--help", {"Usage:", "validate", "run", "compare"}},
      {"validate --help", {"Usage:", "scenario", "--seed"}},
      {"run --help", {"Usage:", "scenario", "--seed", "--out", "--policy", "--quiet"}},
      {"compare --help", {"Usage:", "scenario", "--seed", "--out", "--jobs", "--quiet"}},
  };
  for (const Help& h : helps) {
    SCOPED_TRACE(h.args);
    const Outcome r = slicelab(h.args);
    EXPECT_EQ(r.status, 0) << r.err;
    for (const std::string& m : h.mentions) EXPECT_NE(r.out.find(m), std::string::npos) << m;
  }
  EXPECT_EQ(slicelab("-h").status, 0);
  EXPECT_EQ(slicelab("compare -h").status, 0);
}

// ---- a long run: pods.csv is streamed into the folder, so it must still be whole ----------

TEST_F(Cli, ManyPodsWriteACompletePodsCsvInPodOrder) {
#ifdef SLICELAB_SANITIZED
  const int pods = 10'000;  // still about 1 MB of pods.csv, many times the writer's buffer
#else
  const int pods = 100'000;
#endif
  const fs::path file = tmp_ / "many.yaml";
  std::ofstream(file) << "name: many\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - {name: a, count: 40, gpu_model: A100-80GB, gpus_per_node: 8,\n"
                         "       cpu_milli: 128000, memory_mib: 1Ti}\n"
                         "workload:\n"
                         "  generator:\n"
                         "    pods: "
                      << pods
                      << "\n"
                         "    arrivals_per_hour: 150\n"
                         "    shapes:\n"
                         "      - {name: frac, weight: 3, gpu_count: 1, gpu_milli: 300,\n"
                         "         duration: {distribution: lognormal, median: 1800, sigma: 0.8}}\n"
                         "      - {name: four, weight: 1, gpu_count: 4,\n"
                         "         duration: {distribution: lognormal, median: 3600, sigma: 0.8}}\n"
                         "policies:\n"
                         "  - {name: best-fit, placement: best-fit}\n"
                         "  - {name: spread, placement: spread}\n";
  const Scenario sc = load_scenario(file.string());
  ASSERT_EQ(sc.pods.size(), static_cast<size_t>(pods));
  const std::string out = out_dir("many-out");
  const Outcome r = slicelab("compare -q --seeds 1 --jobs 2 " + shell_quote(file.string()) +
                             " --out " + shell_quote(out));
  ASSERT_EQ(r.status, 0) << r.err;
  check_results(out, sc, policy_names(sc));  // one row per pod per policy, counts as summarized
  // Rows in the workload's order, policy after policy, and the file ends with a whole row.
  const std::string csv = read_file(fs::path(out) / "pods.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  const std::vector<std::string> rows = lines_of(csv);
  ASSERT_EQ(rows.size(), 1 + 2 * sc.pods.size());
  size_t out_of_order = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const size_t k = (i - 1) % sc.pods.size();
    const std::string want =
        sc.policies[(i - 1) / sc.pods.size()].name + "," + sc.pods[k].name.str() + ",";
    out_of_order += rows[i].rfind(want, 0) == 0 ? 0 : 1;
  }
  EXPECT_EQ(out_of_order, 0U);
}

// bench/million-pods.yaml (docs/performance.md) is bench/sim_throughput's mix scaled up: 40%
// fractional one-GPU, 35% whole one-GPU, 10% two, 10% four, 5% eight GPUs, on 8,000 GPUs.
TEST_F(Cli, MillionPodBenchScenarioIsTheThroughputMix) {
#ifdef SLICELAB_SANITIZED
  GTEST_SKIP() << "generating a million pods takes minutes under the sanitizers";
#endif
  const std::string file = kSource + "/bench/million-pods.yaml";
  const Scenario sc = load_scenario(file);
  ASSERT_EQ(sc.pods.size(), 1'000'000U);
  EXPECT_EQ(sc.cluster.gpu_count(), 8'000U);
  EXPECT_EQ(sc.policies.size(), 1U);            // one run: its peak memory is one run's
  std::map<std::pair<int, int>, double> share;  // (GPUs, milli) -> share of the pods
  for (const auto& p : sc.pods) share[{p.gpu_count, p.gpu_milli}] += 1e-6;
  EXPECT_NEAR((share[{1, 300}]), 0.40, 0.005);
  EXPECT_NEAR((share[{1, 1000}]), 0.35, 0.005);
  EXPECT_NEAR((share[{2, 1000}]), 0.10, 0.005);
  EXPECT_NEAR((share[{4, 1000}]), 0.10, 0.005);
  EXPECT_NEAR((share[{8, 1000}]), 0.05, 0.005);
  EXPECT_EQ(share.size(), 5U);
  const Outcome v = slicelab("validate " + shell_quote(file));
  EXPECT_EQ(v.status, 0) << v.err;
}

// ---- every shipped scenario ----------------------------------------------------------------

// Iterates scenarios/ at run time, so a scenario added later is covered without touching this.
TEST_F(Cli, EveryShippedScenarioValidatesAndRuns) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(kSource) / "scenarios"))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  EXPECT_TRUE(std::find(files.begin(), files.end(), fs::path(kQuickstart)) != files.end());
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const Scenario sc = load_scenario(file.string());
    const Outcome v = slicelab("validate " + shell_quote(file.string()));
    EXPECT_EQ(v.status, 0) << v.err;
    EXPECT_EQ(v.out.rfind(file.string() + ": OK: ", 0), 0U) << v.out;
    const std::string out = out_dir("shipped-" + file.stem().string());
    // Without seeds:, ten seeds from seed: (sim/scenario/replications.h).
    std::vector<uint64_t> seeds = sc.seeds;
    for (uint64_t s = sc.seed; seeds.empty() || (sc.seeds.empty() && seeds.size() < 10); ++s)
      seeds.push_back(s);
#ifdef SLICELAB_SANITIZED
    // Sanitized code runs 20-30x slower: a large multi-seed scenario (openb-fgd: 6,212 GPUs, 10
    // seeds) runs its first seed only here, the others two seeds; the release build runs every
    // seed.
    const bool one_seed = sc.cluster.gpu_count() > 1000;
    if (!one_seed) seeds.resize(2);
#else
    const bool one_seed = false;
#endif
    const bool single = one_seed || seeds.size() == 1;
    const std::string seed_arg = single ? " --seed " + std::to_string(seeds.front())
                                        : " --seeds " + fmt::format("{}", fmt::join(seeds, ","));
    const Outcome r = slicelab("compare " + shell_quote(file.string()) + seed_arg +
                               " --jobs 2 --out " + shell_quote(out));
    ASSERT_EQ(r.status, 0) << r.err;
    for (const auto& name : policy_names(sc))
      EXPECT_NE(r.out.find("\n" + name + " "), std::string::npos) << name << " missing from\n"
                                                                  << r.out;
    if (single) {
      check_results(out, load_scenario(file.string(), seeds.front()), policy_names(sc));
    } else {
      // One full result set per seed, each for that seed's own workload, and the means on top.
      const json mean = json::parse(read_file(fs::path(out) / "summary.json"));
      EXPECT_EQ(mean.at("format"), "slicelab.seeds/1");
      EXPECT_EQ(mean.at("seeds").get<std::vector<uint64_t>>(), seeds);
      EXPECT_EQ(mean.at("policies").size(), sc.policies.size());
      for (const uint64_t seed : seeds)
        check_results(fs::path(out) / ("seed-" + std::to_string(seed)),
                      load_scenario(file.string(), seed), policy_names(sc));
    }
    fs::remove_all(out);
  }
}

}  // namespace
}  // namespace slicelab
