#include "backends/local/mps_daemon.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

namespace slicelab {
namespace {

namespace fs = std::filesystem;

// Runs `control` with `input` on its stdin, returns (status, output). The control program is
// short-lived in this role: 10 s is far beyond what a healthy daemon needs to answer.
std::pair<ExitStatus, std::string> run_control(const std::string& control, const EnvMap& env,
                                               const std::string& input,
                                               const std::vector<std::string>& args = {}) {
  char in_path[] = "/tmp/slicelab-mps-in-XXXXXX";
  const int in_fd = mkstemp(in_path);
  if (in_fd < 0) throw std::runtime_error("cannot create a temporary file for MPS control");
  (void)!write(in_fd, input.data(), input.size());
  close(in_fd);
  char out_path[] = "/tmp/slicelab-mps-out-XXXXXX";
  const int out_fd = mkstemp(out_path);
  close(out_fd);
  // The control program reads its command from stdin: run it through sh for the redirection.
  std::string cmdline = "exec \"$0\"";
  for (size_t i = 0; i < args.size(); ++i) cmdline += " \"$" + std::to_string(i + 1) + "\"";
  cmdline += fmt::format(" < '{}'", in_path);
  std::vector<std::string> argv{"/bin/sh", "-c", cmdline, control};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess p(argv, env, out_path);
  std::optional<ExitStatus> s = p.wait_for(std::chrono::seconds(10));
  const ExitStatus status = s ? *s : p.terminate(std::chrono::milliseconds(500));
  // `-d` leaves the daemon running, possibly still in the group of the program that forked it.
  if (s && std::find(args.begin(), args.end(), "-d") != args.end()) p.release_group();
  std::ifstream f(out_path);
  std::stringstream ss;
  ss << f.rdbuf();
  unlink(in_path);
  unlink(out_path);
  return {status, ss.str()};
}

}  // namespace

std::string find_mps_control(const std::string& control_override) {
  return find_tool(control_override, "SLICELAB_MPS_CONTROL", "nvidia-cuda-mps-control");
}

MpsDaemon::MpsDaemon(const std::string& control_override, const std::string& visible_devices,
                     const std::string& temp_root)
    : control_(find_mps_control(control_override)) {
  if (control_.empty())
    throw std::runtime_error(
        "MPS: nvidia-cuda-mps-control is not on PATH (install the NVIDIA driver utilities, or "
        "set SLICELAB_MPS_CONTROL)");
  std::string tmpl = (fs::path(temp_root) / "slicelab-mps-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error(
        fmt::format("MPS: cannot create a folder in {}: {}", temp_root, std::strerror(errno)));
  root_ = tmpl;
  pipe_dir_ = root_ + "/pipe";
  log_dir_ = root_ + "/log";
  start(visible_devices);
}

MpsDaemon::MpsDaemon(const std::string& control_override, const std::string& visible_devices,
                     const MpsFolders& folders)
    : control_(find_mps_control(control_override)),
      pipe_dir_(folders.pipe_dir),
      log_dir_(folders.log_dir) {
  if (control_.empty())
    throw std::runtime_error(
        "MPS: nvidia-cuda-mps-control is not on PATH (install the NVIDIA driver utilities, or "
        "set SLICELAB_MPS_CONTROL)");
  start(visible_devices);
}

MpsDaemon::MpsDaemon(std::string control, const MpsFolders& folders)
    : control_(std::move(control)), pipe_dir_(folders.pipe_dir), log_dir_(folders.log_dir) {}

std::unique_ptr<MpsDaemon> MpsDaemon::attach(const std::string& control_override,
                                             const MpsFolders& folders) {
  std::error_code ec;
  if (!fs::is_directory(folders.pipe_dir, ec))
    throw std::runtime_error(fmt::format(
        "MPS: {} is not a folder: no daemon was started with that pipe folder", folders.pipe_dir));
  // The control program is still needed by command(); not finding it is not an error here.
  return std::unique_ptr<MpsDaemon>(new MpsDaemon(find_mps_control(control_override), folders));
}

void MpsDaemon::start(const std::string& visible_devices) {
  std::error_code mk;
  fs::create_directories(pipe_dir_, mk);
  if (!mk) fs::create_directories(log_dir_, mk);
  if (mk) {
    if (!root_.empty()) fs::remove_all(root_, mk);
    throw std::runtime_error(
        fmt::format("MPS: cannot create {} and {}: {}", pipe_dir_, log_dir_, mk.message()));
  }
  EnvMap e = env();
  if (!visible_devices.empty()) e["CUDA_VISIBLE_DEVICES"] = visible_devices;
  // `-d` forks the daemon and returns at once.
  auto [status, out] = run_control(control_, e, "", {"-d"});
  if (!status.success()) {
    std::error_code ec;
    if (!root_.empty()) fs::remove_all(root_, ec);
    throw std::runtime_error(
        fmt::format("MPS: '{} -d' failed ({}): {}", control_, status.describe(), out));
  }
  running_ = true;
}

MpsDaemon::~MpsDaemon() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; the folders are removed in stop() first
  }
}

EnvMap MpsDaemon::env() const {
  EnvMap e = current_environment();
  e["CUDA_MPS_PIPE_DIRECTORY"] = pipe_dir_;
  e["CUDA_MPS_LOG_DIRECTORY"] = log_dir_;
  return e;
}

std::string MpsDaemon::command(const std::string& line) {
  auto [status, out] = run_control(control_, env(), line + "\n");
  if (!status.success())
    throw std::runtime_error(
        fmt::format("MPS: command '{}' failed ({}): {}", line, status.describe(), out));
  return out;
}

std::vector<std::string> MpsDaemon::set_replica_limits(int replicas,
                                                       std::span<const int64_t> device_memory_mib) {
  if (replicas < 1) throw std::invalid_argument("MPS: replicas must be at least 1");
  std::vector<std::string> lines;
  lines.push_back(fmt::format("set_default_active_thread_percentage {}", 100 / replicas));
  for (size_t i = 0; i < device_memory_mib.size(); ++i)
    lines.push_back(fmt::format("set_default_device_pinned_mem_limit {} {}M", i,
                                device_memory_mib[i] / replicas));
  for (const std::string& line : lines) command(line);
  return lines;
}

void MpsDaemon::stop() {
  if (running_) {
    running_ = false;
    run_control(control_, env(), "quit\n");  // best effort: the folders go either way
  }
  if (!root_.empty()) {
    std::error_code ec;
    fs::remove_all(root_, ec);
    root_.clear();
  }
}

}  // namespace slicelab
