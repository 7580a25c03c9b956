#include "workloads/text_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "workloads/input_error.h"

namespace slicelab {
namespace {

// What a file that is not a regular file is, for the message.
const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string size_text(uint64_t bytes) {
  if (bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

// Closes the descriptor on every way out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_text_file(const std::string& path, uint64_t max_bytes) {
  // stat first only for the message: a folder or a socket cannot be opened for reading at all.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw InputError(fmt::format("{}: cannot open file: it is a folder", path));
    if (!S_ISREG(st.st_mode))
      throw InputError(
          fmt::format("{}: cannot read: not a regular file ({})", path, kind_of(st.st_mode)));
  }
  // O_NONBLOCK: opening a FIFO that appeared since the stat must not wait for a writer; the
  // fstat below refuses it.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) throw InputError(fmt::format("{}: cannot open file", path));
  if (::fstat(fd.get(), &st) != 0) throw InputError(fmt::format("{}: cannot open file", path));
  if (S_ISDIR(st.st_mode))
    throw InputError(fmt::format("{}: cannot open file: it is a folder", path));
  if (!S_ISREG(st.st_mode))
    throw InputError(
        fmt::format("{}: cannot read: not a regular file ({})", path, kind_of(st.st_mode)));
  const auto too_large = [&] {
    return InputError(fmt::format("{}: cannot read: larger than the limit of {} for this input",
                                  path, size_text(max_bytes)));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_large();
  // Returns the bytes read into `into` (0 at the end of the file), retrying an interrupted read.
  const auto read_some = [&](char* into, size_t size) {
    for (;;) {
      const ssize_t n = ::read(fd.get(), into, size);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR)
        throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    }
  };
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t used = 0;
  while (used < text.size()) {
    const size_t n = read_some(text.data() + used, text.size() - used);
    if (n == 0) break;  // shorter than it was a moment ago
    used += n;
  }
  text.resize(used);
  // Then on to the end, not only to st_size: a file still being written (or one whose size the
  // kernel does not know, as in /proc) may be longer, and the limit holds for what is read.
  std::array<char, 65536> chunk{};
  for (;;) {
    const size_t n = read_some(chunk.data(), chunk.size());
    if (n == 0) break;
    if (text.size() + n > max_bytes) throw too_large();
    text.append(chunk.data(), n);
  }
  return text;
}

std::string filesystem_error_message(const std::filesystem::filesystem_error& e) {
  std::string what = e.what();
  constexpr std::string_view kPrefix = "filesystem error: ";
  if (what.starts_with(kPrefix)) what.erase(0, kPrefix.size());
  if (e.path1().empty()) return what;
  if (const size_t paths = what.find(" [" + e.path1().string() + "]"); paths != std::string::npos)
    what.erase(paths);
  std::string out = fmt::format("{}: {}", e.path1().string(), what);
  if (!e.path2().empty()) out += fmt::format(" (and {})", e.path2().string());
  return out;
}

void check_utf8(std::string_view text, const std::string& path) {
  size_t line = 1;
  size_t line_start = 0;
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = bytes[i];
    if (c < 0x80) {
      if (c == '\n') ++line, line_start = i + 1;
      ++i;
      continue;
    }
    // The length of the sequence and the range its second byte must fall in (RFC 3629's table:
    // this is what excludes overlong forms, surrogates and values above U+10FFFF).
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char b = bytes[i + k];
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (!ok)
      // The column counts bytes, as yaml-cpp's marks do.
      throw InputError(
          fmt::format("{}:{}:{}: invalid UTF-8 (byte 0x{:02X}); the file must be "
                      "UTF-8 text",
                      path, line, i - line_start + 1, c));
    i += len;
  }
}

}  // namespace slicelab
