#include "backends/device_plugin/host_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

namespace slicelab::device_plugin {
namespace {

namespace fs = std::filesystem;

// A fresh temporary name is found within this many tries (each one a name that exists).
constexpr int kMaxTempTries = 16;
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

std::string errno_text(const std::string& what, int error) {
  return what + ": " + std::strerror(error);
}

// Closes a descriptor on every path out unless released.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  // Holds `fd` from now on, closing the one it held.
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void check_name(std::string_view name, const fs::path& folder) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos)
    throw HostPathError("'" + std::string(name) + "' in " + folder.string() +
                        " is not a single file name");
}

// The components of `path` ("." and empty ones dropped); ".." refused: a host path names its
// folder directly.
std::vector<std::string> components(const fs::path& path) {
  std::vector<std::string> out;
  for (const fs::path& part : path.relative_path()) {
    const std::string s = part.string();
    if (s.empty() || s == ".") continue;
    if (s == "..")
      throw HostPathError(path.string() +
                          ": '..' in a host path is refused; give the folder's own path");
    out.push_back(s);
  }
  return out;
}

// Why `name` in the folder `dir` (shown as `shown`) could not be opened as a folder.
[[noreturn]] void refuse_component(int dir, const std::string& name, const fs::path& shown,
                                   int error) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode))
      throw HostPathError(shown.string() +
                          " is a symbolic link: the device plugin follows no link in a host "
                          "path; give the folder's real path");
    if (!S_ISDIR(st.st_mode)) throw HostPathError(shown.string() + " is not a folder");
  }
  throw HostPathError(errno_text("cannot open " + shown.string(), error));
}

// openat2 with no link followed and nothing outside `start`: -1 when it failed for any reason
// (no such call, a link, a missing folder), which the walk then handles or explains.
int open_beneath(int start, const std::string& relative) {
  open_how how{};
  how.flags = static_cast<uint64_t>(kDirFlags);
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
  return static_cast<int>(::syscall(SYS_openat2, start, relative.c_str(), &how, sizeof how));
}

void write_all(int fd, std::string_view content, const std::string& shown) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw HostPathError(errno_text("cannot write " + shown, n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string random_temp_suffix() {
  std::random_device device;
  const uint64_t value = (uint64_t{device()} << 32) ^ device();
  std::array<char, 17> text{};
  std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(value));
  return text.data();
}

fs::path without_var_run_alias(const fs::path& path, const fs::path& root) {
  const fs::path alias = root / "var" / "run";
  auto p = path.begin();
  for (auto a = alias.begin(); a != alias.end(); ++a, ++p)
    if (p == path.end() || *p != *a) return path;
  std::error_code ec;
  if (!fs::is_symlink(alias, ec)) return path;
  const fs::path target = fs::read_symlink(alias, ec);
  if (ec || (target != "/run" && target != "../run")) return path;
  fs::path out = root / "run";
  for (; p != path.end(); ++p) out /= *p;
  return out;
}

HostFolder HostFolder::open(const fs::path& given, const HostFolderOptions& options) {
  if (given.empty()) throw HostPathError("an empty host path");
  const fs::path path = without_var_run_alias(given);
  const std::vector<std::string> parts = components(path);
  const Fd start(::open(path.is_absolute() ? "/" : ".", kDirFlags));
  if (start.get() < 0) throw HostPathError(errno_text("cannot open " + given.string(), errno));
  if (parts.empty()) {
    Fd copy(::fcntl(start.get(), F_DUPFD_CLOEXEC, 0));
    if (copy.get() < 0) throw HostPathError(errno_text("cannot open " + given.string(), errno));
    return {copy.release(), given};
  }
  if (options.resolution == Resolution::kAuto) {
    std::string relative;
    for (const std::string& part : parts) relative += (relative.empty() ? "" : "/") + part;
    const int fd = open_beneath(start.get(), relative);
    if (fd >= 0) return {fd, given};
  }
  // Component by component: creates what is missing and names the link or file it met.
  Fd dir(::fcntl(start.get(), F_DUPFD_CLOEXEC, 0));
  if (dir.get() < 0) throw HostPathError(errno_text("cannot open " + given.string(), errno));
  fs::path shown = path.is_absolute() ? fs::path("/") : fs::path();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& name = parts[i];
    shown /= name;
    const bool last = i + 1 == parts.size();
    int next = ::openat(dir.get(), name.c_str(), kDirFlags);
    if (next < 0 && errno == ENOENT && options.create) {
      const mode_t mode = last ? options.mode : 0755;
      if (::mkdirat(dir.get(), name.c_str(), mode) != 0 && errno != EEXIST)
        throw HostPathError(errno_text("cannot create " + shown.string(), errno));
      next = ::openat(dir.get(), name.c_str(), kDirFlags);
      if (next >= 0 && ::fchmod(next, mode) != 0) {
        const int error = errno;
        ::close(next);
        throw HostPathError(errno_text("cannot set the mode of " + shown.string(), error));
      }
    }
    if (next < 0) refuse_component(dir.get(), name, shown, errno);
    dir.reset(next);
  }
  return {dir.release(), given};
}

HostFolder::HostFolder(HostFolder&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

HostFolder& HostFolder::operator=(HostFolder&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

HostFolder::~HostFolder() {
  if (fd_ >= 0) ::close(fd_);
}

struct stat HostFolder::status() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0)
    throw HostPathError(errno_text("cannot read " + path_.string(), errno));
  return st;
}

std::optional<struct stat> HostFolder::entry(std::string_view name) const {
  check_name(name, path_);
  struct stat st {};
  const std::string n(name);
  if (::fstatat(fd_, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return st;
  if (errno == ENOENT) return std::nullopt;
  throw HostPathError(errno_text("cannot read " + (path_ / n).string(), errno));
}

HostFolder HostFolder::folder(std::string_view name, const HostFolderOptions& options) const {
  check_name(name, path_);
  const std::string n(name);
  const fs::path shown = path_ / n;
  int fd = ::openat(fd_, n.c_str(), kDirFlags);
  if (fd < 0 && errno == ENOENT && options.create) {
    if (::mkdirat(fd_, n.c_str(), options.mode) != 0 && errno != EEXIST)
      throw HostPathError(errno_text("cannot create " + shown.string(), errno));
    fd = ::openat(fd_, n.c_str(), kDirFlags);
    if (fd >= 0 && ::fchmod(fd, options.mode) != 0) {
      const int error = errno;
      ::close(fd);
      throw HostPathError(errno_text("cannot set the mode of " + shown.string(), error));
    }
  }
  if (fd < 0) refuse_component(fd_, n, shown, errno);
  return {fd, shown};
}

std::optional<std::string> HostFolder::read_file(std::string_view name,
                                                 std::size_t max_bytes) const {
  check_name(name, path_);
  const std::string n(name);
  const std::string shown = (path_ / n).string();
  const Fd fd(::openat(fd_, n.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    const int error = errno;
    struct stat st {};
    if (::fstatat(fd_, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      throw HostPathError(shown + " is a symbolic link, not a file the device plugin wrote");
    throw HostPathError(errno_text("cannot read " + shown, error));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw HostPathError(errno_text("cannot read " + shown, errno));
  if (!S_ISREG(st.st_mode))
    throw HostPathError(shown + " is not a regular file, not one the device plugin wrote");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    throw HostPathError(shown + " holds " + std::to_string(st.st_size) + " bytes, more than the " +
                        std::to_string(max_bytes) + " of a file the device plugin writes");
  std::string text(max_bytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n_read = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n_read < 0 && errno == EINTR) continue;
    if (n_read < 0) throw HostPathError(errno_text("cannot read " + shown, errno));
    if (n_read == 0) break;
    got += static_cast<std::size_t>(n_read);
  }
  if (got > max_bytes)  // it grew since fstat
    throw HostPathError(shown + " holds more than the " + std::to_string(max_bytes) +
                        " bytes of a file the device plugin writes");
  text.resize(got);
  return text;
}

void HostFolder::unlink_if_ours(const std::string& name, const struct stat& ours) const {
  struct stat now {};
  if (::fstatat(fd_, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == ours.st_dev &&
      now.st_ino == ours.st_ino)
    ::unlinkat(fd_, name.c_str(), 0);
}

bool HostFolder::write_file(std::string_view name, std::string_view content, mode_t mode,
                            Existing existing, const TempNameSource& temp_names) const {
  check_name(name, path_);
  const std::string target(name);
  const std::string shown = (path_ / target).string();
  std::string tmp;
  int raw = -1;
  for (int tries = 0; tries < kMaxTempTries && raw < 0; ++tries) {
    tmp = "." + target + ".slicelab-tmp-" + (temp_names ? temp_names() : random_temp_suffix());
    check_name(tmp, path_);
    raw = ::openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (raw < 0 && errno != EEXIST)
      throw HostPathError(errno_text("cannot create " + (path_ / tmp).string(), errno));
  }
  if (raw < 0)
    throw HostPathError("no fresh temporary name beside " + shown + " in " +
                        std::to_string(kMaxTempTries) + " tries");
  Fd fd(raw);
  struct stat ours {};
  try {
    if (::fstat(fd.get(), &ours) != 0)
      throw HostPathError(errno_text("cannot read " + (path_ / tmp).string(), errno));
    if (::fchmod(fd.get(), mode) != 0)
      throw HostPathError(errno_text("cannot set the mode of " + shown, errno));
    write_all(fd.get(), content, shown);
    if (::fsync(fd.get()) != 0) throw HostPathError(errno_text("cannot write " + shown, errno));
    if (::close(fd.release()) != 0) throw HostPathError(errno_text("cannot write " + shown, errno));
    if (existing == Existing::kReplace) {
      if (::renameat(fd_, tmp.c_str(), fd_, target.c_str()) != 0)
        throw HostPathError(errno_text("cannot rename " + tmp + " to " + shown, errno));
      return true;
    }
    // Put in place only while the name is still free; a file that appeared meanwhile is kept.
    if (::renameat2(fd_, tmp.c_str(), fd_, target.c_str(), RENAME_NOREPLACE) == 0) return true;
    if (errno == EEXIST) {
      unlink_if_ours(tmp, ours);
      return false;
    }
    if (errno != EINVAL && errno != ENOSYS)
      throw HostPathError(errno_text("cannot rename " + tmp + " to " + shown, errno));
    // A file system without RENAME_NOREPLACE: a hard link fails the same way on an existing name.
    if (::linkat(fd_, tmp.c_str(), fd_, target.c_str(), 0) != 0) {
      if (errno == EEXIST) {
        unlink_if_ours(tmp, ours);
        return false;
      }
      throw HostPathError(errno_text("cannot link " + tmp + " to " + shown, errno));
    }
    unlink_if_ours(tmp, ours);
    return true;
  } catch (...) {
    if (ours.st_ino != 0) unlink_if_ours(tmp, ours);
    throw;
  }
}

HostFolder HostFolder::make_fresh_folder(std::string_view base, mode_t mode, uint64_t& counter,
                                         int max_tries) const {
  for (int tries = 0; tries < max_tries; ++tries) {
    const std::string name = std::string(base) + "-" + std::to_string(counter++);
    check_name(name, path_);
    if (::mkdirat(fd_, name.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;  // someone's (or an earlier run's): never reused
      throw HostPathError(errno_text("cannot create " + (path_ / name).string(), errno));
    }
    // Opened without following a link: the folder just made, whose mode the umask may have
    // narrowed.
    HostFolder made = folder(name);
    if (::fchmod(made.fd(), mode) != 0)
      throw HostPathError(errno_text("cannot set the mode of " + made.path().string(), errno));
    return made;
  }
  throw HostPathError("no fresh folder name under " + path_.string() + " for " + std::string(base) +
                      " in " + std::to_string(max_tries) + " tries");
}

bool HostFolder::remove_if_same(std::string_view name, const struct stat& was) const {
  check_name(name, path_);
  const std::string n(name);
  struct stat now {};
  if (::fstatat(fd_, n.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0) return false;
  if (now.st_dev != was.st_dev || now.st_ino != was.st_ino) return false;
  return ::unlinkat(fd_, n.c_str(), 0) == 0;
}

}  // namespace slicelab::device_plugin
