// Host folders and files the device plugin writes (ld.so.preload, region folders, CDI specs, its
// sockets): opened without following a link anywhere in their path, files written aside and put
// in place atomically, and nothing removed or replaced that the plugin did not create.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace slicelab::device_plugin {

// A host path the plugin will not use (a link in it, a component that is not a folder, a file
// that is not a regular one) or a write that failed. The message names the path and says why.
class HostPathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a folder's path is resolved. kAuto: openat2 with RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH
// where the kernel has it (Linux 5.6), else (and to create missing folders or to name the link
// it met) component by component with openat(O_NOFOLLOW). kComponentWise: only the latter (lets
// tests cover the fallback on any kernel).
enum class Resolution { kAuto, kComponentWise };

struct HostFolderOptions {
  // Make missing components: those above the last with mode 0755, the last with `mode` (set
  // with fchmod, so the umask does not narrow it). An existing folder keeps its mode.
  bool create = false;
  mode_t mode = 0755;
  Resolution resolution = Resolution::kAuto;
};

// "/var/run/…" as "/run/…" when <root>/var/run is a link to "/run" or "../run", as FHS 3.0
// keeps it on every current distribution: the one link a host path may go through (the CDI
// library's folder is /var/run/cdi). Any other path is returned as it is.
std::filesystem::path without_var_run_alias(const std::filesystem::path& path,
                                            const std::filesystem::path& root = "/");

// Where write_file writes before it renames: a fresh name per call (tests give their own to
// force a collision). Default: 16 random hex digits.
using TempNameSource = std::function<std::string()>;
std::string random_temp_suffix();

// An open host folder. Every operation works relative to its descriptor, one name at a time
// (a name holding '/' or equal to "." or ".." is refused), never through a link: the folder
// stays the one that was opened even if its path is changed afterwards.
//
//   HostFolder dir = HostFolder::open("/var/lib/slicelab/device-plugin", {.create = true});
//   std::optional<std::string> have = dir.read_file("ld.so.preload", 4096);  // ours?
//   dir.write_file("ld.so.preload", text, 0644,
//                  have ? HostFolder::Existing::kReplace : HostFolder::Existing::kMustBeAbsent);
class HostFolder {
 public:
  enum class Existing {
    kMustBeAbsent,  // the name must not exist: never replaces anything
    kReplace,       // the caller has checked that what the name holds is its own
  };

  // Opens `path` (absolute, or relative to the working folder). Throws HostPathError when a
  // component is a link (named), is not a folder, holds "..", or cannot be opened or created.
  static HostFolder open(const std::filesystem::path& path, const HostFolderOptions& options = {});

  HostFolder(HostFolder&& other) noexcept;
  HostFolder& operator=(HostFolder&& other) noexcept;
  HostFolder(const HostFolder&) = delete;
  HostFolder& operator=(const HostFolder&) = delete;
  ~HostFolder();

  int fd() const noexcept { return fd_; }
  // The path it was opened by (for messages and for what is handed to the kubelet).
  const std::filesystem::path& path() const noexcept { return path_; }
  struct stat status() const;
  // The entry `name` as lstat sees it (a link is reported as a link); nullopt when absent.
  std::optional<struct stat> entry(std::string_view name) const;
  // The sub-folder `name`, opened without following a link.
  HostFolder folder(std::string_view name, const HostFolderOptions& options = {}) const;

  // The regular file `name`, at most `max_bytes` of it; nullopt when absent. Throws
  // HostPathError for a link, anything but a regular file (a FIFO is not waited on), or a file
  // over `max_bytes`.
  std::optional<std::string> read_file(std::string_view name, std::size_t max_bytes) const;

  // Writes `content` to `name` with `mode` (fchmod: the umask does not narrow it): into a fresh
  // temporary file (".<name>.slicelab-tmp-<suffix>", created with O_EXCL | O_NOFOLLOW, another
  // suffix on a collision: a file already there is never opened, truncated or removed), fsynced,
  // then renamed onto `name` (kReplace) or linked there only if `name` is still absent
  // (kMustBeAbsent: returns false, having written nothing, when it exists). A reader sees the old
  // file or the new one, never part of one. On failure only the temporary file it created is
  // removed (checked by inode first). Throws HostPathError.
  [[nodiscard]] bool write_file(std::string_view name, std::string_view content, mode_t mode,
                                Existing existing, const TempNameSource& temp_names = {}) const;

  // Creates a folder "<base>-<n>" that did not exist before (mkdirat, never an existing one),
  // n counting up from `counter` (left one past the name used), with `mode` (fchmod), and
  // returns it opened. Throws HostPathError after `max_tries` names that all existed.
  HostFolder make_fresh_folder(std::string_view base, mode_t mode, uint64_t& counter,
                               int max_tries = 10000) const;

  // Removes `name` only when it is still the file `was` (same device and inode): what the plugin
  // created, not what replaced it since. True when removed.
  bool remove_if_same(std::string_view name, const struct stat& was) const;

 private:
  HostFolder(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void unlink_if_ours(const std::string& name, const struct stat& ours) const;

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace slicelab::device_plugin
