#include "kernel_harness/kernel_process.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace slicelab {

double KernelResult::per_unit_ns() const {
  return ok() && json.contains("per_unit_ns") ? json["per_unit_ns"].get<double>() : 0.0;
}

std::string KernelResult::error() const {
  if (json.is_object() && json.contains("error"))
    return fmt::format("{} ({})", json["error"].get<std::string>(),
                       json.value("detail", std::string()));
  return status.describe();
}

KernelProcess::KernelProcess(const HarnessTools& tools, const std::string& kernel,
                             const std::vector<std::string>& args, const EnvMap& env,
                             const std::string& tag) {
  const std::filesystem::path dir = tools.work_dir.empty() ? std::filesystem::temp_directory_path()
                                                           : std::filesystem::path(tools.work_dir);
  std::filesystem::create_directories(dir);
  log_ = (dir / (tag + ".log")).string();
  std::filesystem::remove(log_);
  EnvMap full = current_environment();
  for (const auto& [k, v] : env) full[k] = v;
  std::vector<std::string> argv{tools.kernel_binary, kernel};
  argv.insert(argv.end(), args.begin(), args.end());
  process_ = std::make_unique<ChildProcess>(argv, full, log_);
}

KernelResult KernelProcess::wait() {
  KernelResult r;
  auto s = process_->wait_for(std::chrono::milliseconds(static_cast<int64_t>(limit_s * 1000)));
  r.status = s ? *s : process_->terminate(std::chrono::seconds(2));
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() != '{') continue;  // stderr chatter shares the log
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) r.json = std::move(j);
  }
  return r;
}

std::unique_ptr<MpsDaemon> open_mps(const HarnessTools& tools, const std::string& device) {
  if (!tools.mps_dir.empty())
    return MpsDaemon::attach(tools.mps_control,
                             MpsFolders{tools.mps_dir + "/pipe", tools.mps_dir + "/log"});
  return std::make_unique<MpsDaemon>(tools.mps_control, device);
}

KernelResult run_kernel(const HarnessTools& tools, const std::string& kernel,
                        const std::vector<std::string>& args, const EnvMap& env,
                        const std::string& tag) {
  KernelProcess p(tools, kernel, args, env, tag);
  return p.wait();
}

EnvMap client_environment(const HarnessTools& tools, Mechanism mechanism, const std::string& device,
                          double share, int64_t memory_mib, const MpsDaemon* mps,
                          const std::string& region) {
  PodIsolation iso;
  iso.mechanism = mechanism;
  iso.devices = {device};
  iso.gpu_milli = std::clamp(static_cast<int>(std::lround(share * 1000)), 1, 1000);
  iso.gpu_memory_mib = memory_mib;
  iso.interposer_library = tools.interposer_library;
  iso.shared_region = region;
  if (mps) {
    iso.mps_pipe_dir = mps->pipe_dir();
    iso.mps_log_dir = mps->log_dir();
  }
  return isolation_environment(iso);
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double pct) {
    const size_t k = static_cast<size_t>(std::ceil(pct / 100.0 * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(k, 1, v.size()) - 1];
  };
  s.min = v.front();
  s.max = v.back();
  s.median = rank(50);
  s.p25 = rank(25);
  s.p75 = rank(75);
  return s;
}

nlohmann::ordered_json to_json(const Spread& s) {
  return {{"n", s.n},     {"median", s.median}, {"min", s.min},
          {"p25", s.p25}, {"p75", s.p75},       {"max", s.max}};
}

}  // namespace slicelab
