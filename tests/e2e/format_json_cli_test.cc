// `--format json` of calibrate, compare --measured, kernels list and import (openb, csv,
// kubernetes), end to end: stdout is exactly one JSON document of the command's format, and
// its figures are the ones the text output prints or that the inputs give by hand.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::shell_quote;

const std::string kFormatSource = SLICELAB_SOURCE_DIR;

class FormatJsonCli : public testing::TempFilesTest {
 protected:
  int slicelab(const std::string& args) {
    const testing::CliRun r = testing::run_program(SLICELAB_BINARY, args, dir_, "slicelab");
    out_ = r.out;
    err_ = r.err;
    return r.status;
  }
  // The whole of stdout: a message printed beside the document makes parse throw.
  nlohmann::json document(const std::string& format) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(out_);
    } catch (const nlohmann::json::exception& e) {
      ADD_FAILURE() << e.what() << "\n" << out_;
      return j;
    }
    EXPECT_EQ(j.value("format", std::string()), format) << out_;
    return j;
  }
  std::string out_, err_;
};

TEST_F(FormatJsonCli, CalibrateFitTableAsJson) {
  const std::string csv = kFormatSource + "/calibration/example-colocation.csv";
  // Counted here from the CSV itself: rows, and those of modes without interference terms.
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  size_t rows = 0, unfitted = 0, mps_rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++rows;
    if (line.find(",whole-card,") != std::string::npos || line.find(",mig,") != std::string::npos)
      ++unfitted;
    if (line.find(",mps,") != std::string::npos) ++mps_rows;
  }
  ASSERT_GT(unfitted, 0U);
  const std::string text_out = (dir_ / "text.yaml").string();
  ASSERT_EQ(slicelab("calibrate " + shell_quote(csv) + " -o " + shell_quote(text_out)), 0) << err_;
  const std::string text = out_;
  const std::string json_out = (dir_ / "json.yaml").string();
  ASSERT_EQ(
      slicelab("calibrate " + shell_quote(csv) + " -o " + shell_quote(json_out) + " --format json"),
      0)
      << err_;
  const nlohmann::json j = document("slicelab.calibrate/1");
  EXPECT_EQ(j["rows"], rows);
  EXPECT_EQ(j["skipped_rows"], unfitted);
  EXPECT_EQ(j["written"], json_out);
  // The same fit as the text run: the file written is the same, and the table's mps row.
  EXPECT_EQ(read_file(json_out), read_file(text_out));
  bool found = false;
  for (const auto& m : j["modes"]) {
    if (m["mode"] != "mps") continue;
    found = true;
    EXPECT_EQ(m["rows"], mps_rows);
    const size_t at = text.find("\nmps ");
    ASSERT_NE(at, std::string::npos) << text;
    std::istringstream row(text.substr(at + 1));
    std::string mode;
    size_t n = 0, obs = 0;
    double bandwidth = 0, launch = 0;
    row >> mode >> n >> obs >> bandwidth >> launch;
    EXPECT_EQ(m["observations"], obs);
    EXPECT_NEAR(m["a_bandwidth"].get<double>(), bandwidth, 1e-5 * bandwidth);
    EXPECT_NEAR(m["b_launch"].get<double>(), launch, 1e-5 * launch);
  }
  EXPECT_TRUE(found) << out_;
}

TEST_F(FormatJsonCli, CalibrateRefusalIsStillOneDocument) {
  const std::string csv = kFormatSource + "/tests/sharing/issue13-negative-fit.csv";
  const std::string out = (dir_ / "refused.yaml").string();
  EXPECT_EQ(
      slicelab("calibrate " + shell_quote(csv) + " -o " + shell_quote(out) + " --format json"), 1);
  const nlohmann::json j = document("slicelab.calibrate/1");
  EXPECT_TRUE(j["written"].is_null()) << out_;
  EXPECT_FALSE(fs::exists(out));
  // Each issue in the document is also said on stderr, with its level.
  bool refuses = false;
  for (const auto& issue : j["issues"]) {
    const std::string level = issue["level"];
    refuses = refuses || level == "error";
    EXPECT_NE(err_.find(level + ": " + issue["text"].get<std::string>()), std::string::npos)
        << issue << "\n"
        << err_;
  }
  EXPECT_TRUE(refuses) << out_;
}

// One A100-80GB; `whole` runs the four 100 s pods one after another: JCT max 400 s, 4 completed.
const char* const kFourPods = R"(name: four-pods
cluster:
  node_groups:
    - {name: n, count: 1, gpu_model: A100-80GB, gpus_per_node: 1, cpu_milli: 8000, memory_mib: 64Gi}
workload:
  pods:
    - {name: a, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: b, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: c, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
    - {name: d, duration: 100s, gpu_count: 1, gpu_memory_mib: 30000}
policies:
  - {name: whole, placement: first-fit}
)";

TEST_F(FormatJsonCli, CompareMeasuredAsJson) {
  const std::string yaml = write("four.yaml", kFourPods);
  fs::create_directories(dir_ / "measured");
  // A measured run 10% slower at the end, and one figure missing.
  write("measured/summary.json",
        R"({"format": "slicelab.summary/1", "policies": [{"name": "whole",
            "pods": {"completed": 4}, "jct_s": {"max": 440}}]})");
  const std::string measured = (dir_ / "measured").string();
  ASSERT_EQ(slicelab("compare --measured " + shell_quote(measured) + " " + shell_quote(yaml) +
                     " --format json"),
            0)
      << err_;
  const nlohmann::json j = document("slicelab.compare-measured/1");
  EXPECT_EQ(j["scenario"], "four-pods");
  ASSERT_EQ(j["policies"].size(), 1U) << out_;
  EXPECT_EQ(j["policies"][0]["name"], "whole");
  size_t seen = 0;
  for (const auto& m : j["policies"][0]["metrics"]) {
    if (m["key"] == "jct_s.max") {
      ++seen;
      EXPECT_DOUBLE_EQ(m["simulated"].get<double>(), 400);
      EXPECT_DOUBLE_EQ(m["measured"].get<double>(), 440);
      EXPECT_DOUBLE_EQ(m["error"].get<double>(), 40);
      EXPECT_DOUBLE_EQ(m["error_ratio"].get<double>(), 0.1);
    } else if (m["key"] == "pods.completed") {
      ++seen;
      EXPECT_EQ(m["simulated"], 4);
      EXPECT_EQ(m["error"], 0);
    } else if (m["key"] == "jct_s.p50") {
      ++seen;
      EXPECT_TRUE(m["measured"].is_null()) << m;
      EXPECT_TRUE(m["error"].is_null()) << m;
      EXPECT_TRUE(m["error_ratio"].is_null()) << m;
    }
  }
  EXPECT_EQ(seen, 3U) << out_;
  // The text table shows the same error.
  ASSERT_EQ(slicelab("compare --measured " + shell_quote(measured) + " " + shell_quote(yaml)), 0)
      << err_;
  EXPECT_NE(out_.find("+10.0%"), std::string::npos) << out_;
}

TEST_F(FormatJsonCli, KernelsListAsJson) {
  ASSERT_EQ(slicelab("kernels list"), 0) << err_;
  // Text: a line per kernel, then an indented "unit:" line.
  std::istringstream text(out_);
  std::string line, first;
  size_t kernels = 0;
  while (std::getline(text, line))
    if (!line.empty() && line[0] != ' ') {
      if (kernels++ == 0) first = line.substr(0, line.find(' '));
    }
  ASSERT_EQ(slicelab("kernels list --format json"), 0) << err_;
  const nlohmann::json j = document("slicelab.kernels/1");
  ASSERT_EQ(j["kernels"].size(), kernels) << out_;
  EXPECT_EQ(j["kernels"][0]["name"], first);
  for (const auto& k : j["kernels"]) {
    EXPECT_TRUE(k["unit"].is_string()) << k;
    EXPECT_GE(k["bytes_per_unit"].get<double>(), 0) << k;
  }
}

TEST_F(FormatJsonCli, ImportOpenbAsJson) {
  const std::string dir = kFormatSource + "/workloads/traces/openb";
  const std::string out = (dir_ / "openb.yaml").string();
  ASSERT_EQ(slicelab("import openb --pods " + dir + "/openb_pod_list_default.csv --nodes " + dir +
                     "/openb_node_list_gpu_node.csv -o " + shell_quote(out) + " --format json"),
            0)
      << err_;
  const nlohmann::json j = document("slicelab.import/1");
  EXPECT_EQ(j["source"], "openb");
  EXPECT_EQ(j["out"], out);
  // The figures `slicelab validate` prints for the same files (tests/e2e/import_test.cc).
  EXPECT_EQ(j["pods"]["total"], 8152);
  EXPECT_EQ(j["nodes"]["total"], 1213);
  EXPECT_EQ(j["nodes"]["gpus"], 6212);
  EXPECT_TRUE(fs::exists(out));
}

TEST_F(FormatJsonCli, ImportCsvAsJson) {
  const std::string csv = write("jobs.csv",
                                "id,t,g,milli\n"
                                "a,10,0,0\n"       // CPU-only
                                "b,10,1,500\n"     // fractional: 0.5 GPU
                                "c,10,1,1000\n"    // one whole GPU
                                "d,10,4,1000\n");  // 4 GPUs
  const std::string out = (dir_ / "jobs.yaml").string();
  ASSERT_EQ(slicelab("import csv --file " + shell_quote(csv) +
                     " --map name=id,duration=t,gpu_count=g,gpu_milli=milli -o " +
                     shell_quote(out) + " --format json"),
            0)
      << err_;
  const nlohmann::json j = document("slicelab.import/1");
  EXPECT_EQ(j["source"], "csv");
  EXPECT_EQ(j["pods"]["total"], 4);
  EXPECT_EQ(j["pods"]["cpu_only"], 1);
  EXPECT_EQ(j["pods"]["one_gpu"], 2);
  EXPECT_EQ(j["pods"]["fractional"], 1);
  EXPECT_EQ(j["pods"]["multi_gpu"], 1);
  EXPECT_EQ(j["pods"]["by_gpu_count"]["4"], 1);
  EXPECT_DOUBLE_EQ(j["pods"]["gpu_demand"].get<double>(), 0.5 + 1 + 4);
  EXPECT_EQ(j["nodes"]["total"], 0);
}

TEST_F(FormatJsonCli, ImportKubernetesAsJson) {
  const std::string dir = kFormatSource + "/scenarios/kubernetes";
  const std::string args =
      "import kubernetes --nodes " + dir + "/nodes.json --pods " + dir + "/pods.json --out ";
  ASSERT_EQ(slicelab(args + shell_quote((dir_ / "text").string())), 0) << err_;
  const std::string text = out_;
  ASSERT_EQ(slicelab(args + shell_quote((dir_ / "json").string()) + " --format json"), 0) << err_;
  const nlohmann::json j = document("slicelab.import/1");
  EXPECT_EQ(j["source"], "kubernetes");
  const size_t groups = j["nodes"]["groups"].size();
  EXPECT_NE(
      text.find(fmt::format("nodes: {} in {} groups", j["nodes"]["total"].get<int>(), groups)),
      std::string::npos)
      << text << out_;
  std::string phases;
  for (const auto& [phase, n] : j["pods"]["phases"].items())
    phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", n.get<int>(), phase);
  EXPECT_NE(text.find("pods: " + phases + "\n"), std::string::npos) << text << out_;
  EXPECT_NE(
      text.find(fmt::format("  {} on their nodes from time 0", j["pods"]["snapshot"].get<int>())),
      std::string::npos)
      << text << out_;
  EXPECT_EQ(read_file(dir_ / "json" / "trace.yaml"), read_file(dir_ / "text" / "trace.yaml"));
}

}  // namespace
}  // namespace slicelab
