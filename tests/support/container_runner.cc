#include "tests/support/container_runner.h"

#include <fstream>
#include <sstream>
#include <string_view>

#include "backends/interposer/caps_file.h"
#include "backends/local/child_process.h"
#include "workloads/text_file.h"

namespace slicelab::testing {
namespace {

constexpr const char* kPreloadFile = "/etc/ld.so.preload";

bool under(const std::string& path, const std::string& root) {
  if (root.empty() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || root.back() == '/' || path[root.size()] == '/';
}

std::string resolve_list(const std::vector<device_plugin::Mount>& mounts,
                         const std::string& value) {
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t colon = value.find(':', start);
    const std::string part =
        value.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    out += (start ? ":" : "") + (part.starts_with('/') ? host_path_of(mounts, part) : part);
    if (colon == std::string::npos) return out;
    start = colon + 1;
  }
}

}  // namespace

std::string caps_file_seen_through(const std::vector<device_plugin::Mount>& mounts,
                                   const std::string& host_path) {
  std::istringstream in(read_text_file(host_path));
  std::string text;
  bool changed = false;
  constexpr std::string_view kRegion = "SLICELAB_SHARED_REGION=";
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kRegion)) {
      const std::string seen = host_path_of(mounts, line.substr(kRegion.size()));
      changed = changed || seen != line.substr(kRegion.size());
      line = std::string(kRegion) + seen;
    }
    text += line + "\n";
  }
  if (!changed) return host_path;
  std::string resolved = host_path + ".seen-from-host";
  std::ofstream(resolved, std::ios::binary | std::ios::trunc) << text;
  return resolved;
}

std::string host_path_of(const std::vector<device_plugin::Mount>& mounts,
                         const std::string& container_path) {
  const device_plugin::Mount* best = nullptr;
  for (const device_plugin::Mount& m : mounts)
    if (under(container_path, m.container_path) &&
        (best == nullptr || m.container_path.size() > best->container_path.size()))
      best = &m;
  if (best == nullptr) return container_path;
  return best->host_path + container_path.substr(best->container_path.size());
}

ContainerEnv container_environment(const device_plugin::ContainerAllocation& a,
                                   const ContainerOptions& options) {
  ContainerEnv env{{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                   {"HOME", "/tmp"}};
  // Sanitizer builds, as tests/interposer/harness.h runs the client: a preloaded library comes
  // before the runtime, the client's deliberate leaks are not the test's subject, and a race
  // must fail it.
  env["ASAN_OPTIONS"] = "verify_asan_link_order=0:detect_leaks=0";
  env["TSAN_OPTIONS"] = "halt_on_error=1:exitcode=66";
  for (const auto& [k, v] : options.node_env) env[k] = v;
  for (const auto& [k, v] : a.envs) env[k] = resolve_list(a.mounts, v);
  std::string preload;
  for (const device_plugin::Mount& m : a.mounts) {
    if (m.container_path != kPreloadFile) continue;
    // The loader reads the file inside the container: its names are container paths.
    std::istringstream in(read_text_file(m.host_path));
    for (std::string lib; in >> lib;)
      preload += (preload.empty() ? "" : ":") + host_path_of(a.mounts, lib);
  }
  if (!preload.empty())
    env["LD_PRELOAD"] = env.count("LD_PRELOAD") ? preload + ":" + env["LD_PRELOAD"] : preload;
  // The interposer's caps file, mounted where it looks (outside a container that path cannot be
  // given one): the variable it honours when nothing is at the fixed path.
  for (const device_plugin::Mount& m : a.mounts)
    if (m.container_path == interposer::kCapsFilePath)
      env["SLICELAB_CAPS_FILE"] = caps_file_seen_through(a.mounts, m.host_path);
  if (!options.fakes_dir.empty())
    env["LD_LIBRARY_PATH"] = env.count("LD_LIBRARY_PATH")
                                 ? options.fakes_dir + ":" + env["LD_LIBRARY_PATH"]
                                 : options.fakes_dir;
  return env;
}

ContainerResult run_in_container(const device_plugin::ContainerAllocation& a,
                                 const std::vector<std::string>& argv,
                                 const ContainerOptions& options) {
  ContainerResult r;
  r.env = container_environment(a, options);
  CapturedRun run = run_captured(argv, r.env, options.timeout);
  r.timed_out = run.timed_out;
  r.exit_code = run.status.exit_code;
  r.output = std::move(run.output);
  return r;
}

}  // namespace slicelab::testing
