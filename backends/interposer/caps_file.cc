#include "backends/interposer/caps_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

namespace slicelab::interposer {
namespace {

// What a caps file's value for `name` must be, or nullptr for a name the format does not have.
const char* expected_of(std::string_view name) {
  if (name == "SLICELAB_SHARED_REGION") return "an absolute path";
  if (name == "SLICELAB_REGION_GROUP") return "a group name or number";
  if (name == "SLICELAB_NVML_RECONCILE") return "0 or 1";
  for (std::string_view base : {"SLICELAB_MEMORY_LIMIT", "SLICELAB_SM_LIMIT"}) {
    const char* what = base == "SLICELAB_SM_LIMIT" ? kPercentExpected : kSizeExpected;
    if (name == base) return what;
    if (!name.starts_with(base) || name.size() <= base.size() + 1 || name[base.size()] != '_')
      continue;
    // _0 to _15, as the environment's per-device names (no leading zero).
    const std::string_view digits = name.substr(base.size() + 1);
    if (digits.size() > 2 || (digits.size() == 2 && digits[0] == '0')) return nullptr;
    int dev = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return nullptr;
      dev = dev * 10 + (c - '0');
    }
    return dev < kMaxDevices ? what : nullptr;
  }
  return nullptr;
}

bool printable(std::string_view s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

// Why `value` is not what `name` takes, or "".
std::string value_error(std::string_view name, std::string_view value) {
  if (name.starts_with("SLICELAB_MEMORY_LIMIT")) {
    std::string why;
    return parse_size(value, &why) ? "" : why;
  }
  if (name.starts_with("SLICELAB_SM_LIMIT"))
    return parse_percent(value) ? "" : "found '" + shown(value) + "'";
  if (name == "SLICELAB_SHARED_REGION")
    return value.starts_with('/') && value.find("/../") == std::string_view::npos &&
                   !value.ends_with("/..")
               ? ""
               : "found '" + shown(value) + "'";
  if (name == "SLICELAB_NVML_RECONCILE")
    return value == "0" || value == "1" ? "" : "found '" + shown(value) + "'";
  return value.empty() ? "found nothing" : "";
}

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

}  // namespace

std::string caps_file_text(const CapsFileContents& contents) {
  if (contents.devices.size() > static_cast<size_t>(kMaxDevices))
    throw std::invalid_argument("a caps file holds at most " + std::to_string(kMaxDevices) +
                                " devices, not " + std::to_string(contents.devices.size()));
  const std::string& region = contents.region_path;
  if (!region.empty() && (!region.starts_with('/') || !printable(region) ||
                          !value_error("SLICELAB_SHARED_REGION", region).empty() ||
                          region.size() > kMaxCapsLineBytes / 2))
    throw std::invalid_argument(
        "a caps file's region must be an absolute path of printable "
        "characters, not '" +
        shown(region) + "'");
  for (const CapsFileDevice& d : contents.devices)
    if (d.memory_bytes != UINT64_MAX && (d.memory_bytes == 0 || d.memory_bytes > kMaxMemoryCap))
      throw std::invalid_argument("a caps file's memory cap is 1 byte to 1Pi, not " +
                                  std::to_string(d.memory_bytes));
  std::string out = std::string(kCapsFileHeader) +
                    "\n# the interposer's caps for one container (docs/interposer.md); "
                    "written by slicelab\n";
  if (!region.empty()) out += "SLICELAB_SHARED_REGION=" + region + "\n";
  for (size_t i = 0; i < contents.devices.size(); ++i) {
    const CapsFileDevice& d = contents.devices[i];
    if (d.memory_bytes != UINT64_MAX)
      out += "SLICELAB_MEMORY_LIMIT_" + std::to_string(i) + "=" + std::to_string(d.memory_bytes) +
             "\n";
    if (d.sm_percent >= 1 && d.sm_percent < 100)
      out += "SLICELAB_SM_LIMIT_" + std::to_string(i) + "=" + std::to_string(d.sm_percent) + "\n";
  }
  return out;
}

Config parse_caps_file(std::string_view text, const std::string& path) {
  Config c;
  c.caps_file = path;
  auto fail = [&](size_t line, size_t col, const std::string& why) {
    fail_closed_config(c,
                       path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + why);
    return c;
  };
  if (text.size() > kMaxCapsFileBytes)
    return fail(1, 1,
                "expected a caps file of at most " + std::to_string(kMaxCapsFileBytes) +
                    " bytes, found " + std::to_string(text.size()));
  std::map<std::string, std::string, std::less<>> values;
  size_t line_no = 0;
  size_t at = 0;
  while (at < text.size()) {
    ++line_no;
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() > kMaxCapsLineBytes)
      return fail(line_no, kMaxCapsLineBytes + 1,
                  "expected a line of at most " + std::to_string(kMaxCapsLineBytes) +
                      " bytes, found " + std::to_string(line.size()));
    for (size_t i = 0; i < line.size(); ++i)
      if (static_cast<unsigned char>(line[i]) < 0x20 || static_cast<unsigned char>(line[i]) >= 0x7f)
        return fail(line_no, i + 1,
                    "expected printable ASCII, found the byte " + shown(line.substr(i, 1)));
    if (line_no == 1) {
      if (line != kCapsFileHeader)
        return fail(1, 1,
                    "expected the header '" + std::string(kCapsFileHeader) + "', found '" +
                        shown(line) + "'" +
                        (line.starts_with("slicelab-interposer-caps ")
                             ? " (a version this interposer does not read)"
                             : ""));
      continue;
    }
    if (line.empty() || line.starts_with('#')) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return fail(line_no, 1, "expected NAME=VALUE, found '" + shown(line) + "'");
    const std::string_view name = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    const char* expected = expected_of(name);
    if (!expected)
      return fail(line_no, 1,
                  "expected one of SLICELAB_MEMORY_LIMIT[_<i>], SLICELAB_SM_LIMIT[_<i>] (i 0-" +
                      std::to_string(kMaxDevices - 1) +
                      "), SLICELAB_SHARED_REGION, SLICELAB_REGION_GROUP, "
                      "SLICELAB_NVML_RECONCILE, found '" +
                      shown(name) + "'");
    if (const std::string why = value_error(name, value); !why.empty())
      return fail(line_no, eq + 2, std::string(name) + ": expected " + expected + ", " + why);
    if (!values.emplace(std::string(name), std::string(value)).second)
      return fail(line_no, 1, "expected each name once, found " + std::string(name) + " again");
  }
  if (line_no == 0)
    return fail(1, 1,
                "expected the header '" + std::string(kCapsFileHeader) + "', found an empty file");
  std::vector<std::string> names;
  names.reserve(values.size());
  for (const auto& [k, v] : values) names.push_back(k);
  read_caps(
      [&](const char* n) -> const char* {
        const auto it = values.find(std::string_view(n));
        return it == values.end() ? nullptr : it->second.c_str();
      },
      names, c);
  // Every value was checked above: read_caps cannot have failed on one. Its group warning
  // names the variable; say where it came from.
  for (std::string& w : c.warnings) w.insert(0, path + ": ");
  return c;
}

namespace {

std::string kind_of(mode_t mode) {
  return S_ISDIR(mode)    ? "a directory"
         : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
         : S_ISLNK(mode)  ? "a symbolic link"
                          : "something else";
}

}  // namespace

std::optional<std::string> read_caps_file(const std::string& path, bool read_only_mount,
                                          std::string* why) {
  // Looked at first, so that a device or FIFO is never opened at all; then checked again on the
  // descriptor, which is what counts.
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) != 0) {
    *why = errno_text("cannot read " + path);
    return std::nullopt;
  }
  if (!S_ISREG(lst.st_mode)) {
    *why = path + ": expected a regular file, found " + kind_of(lst.st_mode);
    return std::nullopt;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ELOOP ? path + ": expected a regular file, found a symbolic link"
                          : errno_text("cannot open " + path);
    return std::nullopt;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *why = errno_text("cannot stat " + path);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode) || st.st_dev != lst.st_dev || st.st_ino != lst.st_ino) {
    *why = path + (S_ISREG(st.st_mode) ? ": replaced while being opened"
                                       : ": expected a regular file, found " + kind_of(st.st_mode));
    return std::nullopt;
  }
  if (st.st_size > static_cast<off_t>(kMaxCapsFileBytes)) {
    *why = path + ": expected a caps file of at most " + std::to_string(kMaxCapsFileBytes) +
           " bytes, found " + std::to_string(static_cast<uint64_t>(st.st_size));
    return std::nullopt;
  }
  if (read_only_mount) {
    struct statvfs vfs {};
    if (::fstatvfs(fd, &vfs) != 0) {
      *why = errno_text("cannot stat the mount of " + path);
      return std::nullopt;
    }
    if (!(vfs.f_flag & ST_RDONLY)) {
      *why = path +
             ": expected a file on a read-only mount (as the device plugin mounts it), "
             "found one on a writable file system";
      return std::nullopt;
    }
  }
  // One byte more than the limit: a file that grew since fstat is seen to be too long.
  std::string text(kMaxCapsFileBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = errno_text("cannot read " + path);
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

CapsSource locate_caps(const std::string& fixed, const char* override_path) {
  struct stat st {};
  if (::lstat(fixed.c_str(), &st) == 0) return CapsSource{fixed, true, ""};
  if (errno != ENOENT && errno != ENOTDIR)
    return CapsSource{fixed, true, errno_text("cannot look at " + fixed)};
  if (override_path && *override_path) return CapsSource{override_path, false, ""};
  return CapsSource{};
}

Config load_caps(const CapsSource& source, const Getenv& getenv,
                 const std::vector<std::string>& names) {
  if (source.path.empty()) return load_config(getenv, names);
  Config c;
  std::string why = source.error;
  std::optional<std::string> text;
  if (why.empty()) text = read_caps_file(source.path, source.fixed, &why);
  if (text) {
    c = parse_caps_file(*text, source.path);
  } else {
    c.caps_file = source.path;
    fail_closed_config(c, why);
  }
  read_knobs(getenv, names, c);
  // What the environment would have given: when it differs, the process (or whoever started
  // it) meant other caps or another region, which do not apply.
  Config env;
  read_caps(getenv, names, env);
  bool differs = env.region_path != c.region_path && !env.region_path.empty();
  for (int d = 0; d < kMaxDevices && c.fail_closed.empty(); ++d)
    differs = differs || env.devices[d].memory_bytes != c.devices[d].memory_bytes ||
              env.devices[d].sm_percent != c.devices[d].sm_percent;
  bool set = false;
  for (const auto& n : names)
    set = set || n.starts_with("SLICELAB_MEMORY_LIMIT") || n.starts_with("SLICELAB_SM_LIMIT") ||
          n.starts_with("CUDA_DEVICE_MEMORY_LIMIT") || n.starts_with("CUDA_DEVICE_SM_LIMIT") ||
          n == "SLICELAB_SHARED_REGION" || n == "CUDA_DEVICE_MEMORY_SHARED_CACHE";
  if (set && differs)
    c.warnings.push_back("the caps and region come from " + source.path +
                         "; the environment's (SLICELAB_*, CUDA_DEVICE_*) differ and are ignored");
  return c;
}

}  // namespace slicelab::interposer
