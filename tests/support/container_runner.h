// Runs a program as a container runtime would after a device plugin's Allocate: the answer's
// envs over a bare environment, paths inside the container resolved through its mounts, and
// a mounted /etc/ld.so.preload and /etc/slicelab/caps honoured (outside a container /etc cannot
// be replaced: LD_PRELOAD and SLICELAB_CAPS_FILE stand for them).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "backends/device_plugin/resource_plugin.h"

namespace slicelab::testing {

using ContainerEnv = std::map<std::string, std::string>;

struct ContainerOptions {
  // Prepended to LD_LIBRARY_PATH: where the fake libcuda.so.1 and libnvidia-ml.so.1 are (the
  // driver's libraries the NVIDIA runtime would bring into the container).
  std::string fakes_dir;
  // The node's own settings laid under the allocation's (the fake driver's SLICELAB_FAKE_*).
  ContainerEnv node_env;
  std::chrono::milliseconds timeout{60000};
};

struct ContainerResult {
  int exit_code = -1;  // -1: killed by a signal or timed out
  bool timed_out = false;
  std::string output;  // stdout and stderr together
  ContainerEnv env;    // what the program was given
};

// The host path a container path reaches through `mounts` (the longest mount that holds it),
// or the path itself when no mount does.
std::string host_path_of(const std::vector<device_plugin::Mount>& mounts,
                         const std::string& container_path);

// The caps file at `host_path` as the interposer sees it from the host: itself, or, when it names
// a region inside the container, a copy beside it (`<host_path>.seen-from-host`) with that path
// resolved through `mounts` (inside the container the mount namespace does that).
std::string caps_file_seen_through(const std::vector<device_plugin::Mount>& mounts,
                                   const std::string& host_path);

// The environment the program gets: a minimal base (PATH, HOME, the sanitizers' options the
// interposer tests use), options.node_env, the
// allocation's envs with every ':'-separated absolute path resolved through the mounts, the
// libraries of a mounted /etc/ld.so.preload in LD_PRELOAD (before any the envs give), a mounted
// /etc/slicelab/caps in SLICELAB_CAPS_FILE (caps_file_seen_through), and options.fakes_dir
// first in LD_LIBRARY_PATH.
ContainerEnv container_environment(const device_plugin::ContainerAllocation& a,
                                   const ContainerOptions& options);

// Runs argv (argv[0] a path) in that environment until it ends or options.timeout passes.
ContainerResult run_in_container(const device_plugin::ContainerAllocation& a,
                                 const std::vector<std::string>& argv,
                                 const ContainerOptions& options);

}  // namespace slicelab::testing
