// Shared by the local-backend and kernel-harness tests: a temporary folder, the environment that
// puts the fake driver and NVML in place, and running `slicelab` (or any program) to completion.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "backends/local/child_process.h"
#include "tests/support/cli_run.h"

namespace slicelab::test {

struct Ran {
  ExitStatus status;
  std::string output;  // stdout and stderr together
};

using slicelab::testing::read_file;

// The fake libcuda and NVML found first, two fake GPUs of 2 GiB, the fake MPS control.
inline EnvMap fake_gpu_env() {
  EnvMap env = current_environment();
  env["LD_LIBRARY_PATH"] =
      std::string(SLICELAB_FAKES) +
      (env.count("LD_LIBRARY_PATH") ? ":" + env["LD_LIBRARY_PATH"] : std::string());
  env["SLICELAB_NVML_LIBRARY"] = std::string(SLICELAB_FAKES) + "/libnvidia-ml.so.1";
  env["SLICELAB_FAKE_DEVICES"] = "2";
  env["SLICELAB_FAKE_DEVICE_MEM"] = std::to_string(uint64_t{2} << 30);
  env["SLICELAB_MPS_CONTROL"] = SLICELAB_FAKE_MPS;
  // Sanitizer builds: the preloaded interposer comes before the runtime, as in the interposer
  // tests.
  env["ASAN_OPTIONS"] = "verify_asan_link_order=0:detect_leaks=0";
  return env;
}

// The real driver and NVML: this process's environment as it is.
inline EnvMap current_environment_for_gpu() {
  return current_environment();
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("slicelab-") + info->test_suite_name() + "-" + info->name() + "-" +
            std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return path(name);
  }
  Ran run(std::vector<std::string> argv, const EnvMap& env, int timeout_s = 120) const {
    const std::string log = path("run.log");
    std::filesystem::remove(log);
    ChildProcess p(argv, env, log);
    auto s = p.wait_for(std::chrono::seconds(timeout_s));
    Ran r{s ? *s : p.terminate(std::chrono::seconds(1)), read_file(log)};
    if (!s) r.output += "\n(test: timed out)";
    return r;
  }
  Ran slicelab(std::vector<std::string> args, const EnvMap& env, int timeout_s = 120) const {
    args.insert(args.begin(), SLICELAB_BINARY);
    return run(args, env, timeout_s);
  }

  std::filesystem::path dir_;
};

}  // namespace slicelab::test
