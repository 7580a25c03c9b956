// Watches the kubelet's device-plugins folder with inotify for what means "register again": the
// kubelet's socket created (a kubelet restart) or a plugin socket removed (the kubelet deletes
// them).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace slicelab::device_plugin {

// What happened in the folder since the last wait(); several events are folded into one answer.
struct FolderEvents {
  // The kubelet's socket was created, or events were lost (queue overflow, the folder watched
  // again after it was removed): either way every plugin must assume a new kubelet.
  bool kubelet_created = false;
  // Socket file names removed from the folder (any name; the caller picks its own).
  std::vector<std::string> removed;
  // wake() was called.
  bool woken = false;
};

class KubeletSocketWatch {
 public:
  // Throws std::runtime_error when `dir` cannot be watched (missing, not a folder).
  KubeletSocketWatch(std::filesystem::path dir, std::string kubelet_socket_name);
  ~KubeletSocketWatch();
  KubeletSocketWatch(const KubeletSocketWatch&) = delete;
  KubeletSocketWatch& operator=(const KubeletSocketWatch&) = delete;

  // Blocks until something happened in the folder, wake() was called or `timeout` passed (a
  // negative timeout: no limit). While the folder itself is gone it tries to watch it again at
  // least once a second.
  FolderEvents wait(std::chrono::milliseconds timeout);
  // Ends a wait() in progress (or the next one) from any thread.
  void wake();

 private:
  bool add_watch();
  void read_events(FolderEvents& events);

  std::filesystem::path dir_;
  std::string kubelet_socket_name_;
  int inotify_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd
  int watch_ = -1;    // -1 while the folder is not watched
};

}  // namespace slicelab::device_plugin
