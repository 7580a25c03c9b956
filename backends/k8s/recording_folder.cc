#include "backends/k8s/recording_folder.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

namespace slicelab::k8s {
namespace {

// A header is a few hundred bytes; a larger file is not one.
constexpr std::uintmax_t kMaxRecordingHeaderBytes = std::uintmax_t{64} << 10;

[[noreturn]] void recording_folder_fail(const std::filesystem::path& p, const std::string& what) {
  throw std::runtime_error(p.string() + ": " + what);
}

void check_recording_header(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::file_size(file, ec) > kMaxRecordingHeaderBytes || ec)
    recording_folder_fail(file, ec ? ec.message() : "too large for a recording header");
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    recording_folder_fail(file, "not a recording header (expected a JSON object)");
  const auto format = j.find("format");
  if (format == j.end() || !format->is_string() || *format != kRecordingFormat)
    recording_folder_fail(file, std::string("expected \"format\": \"") + kRecordingFormat +
                                    "\", found " + (format == j.end() ? "none" : format->dump()));
}

void recording_header_write_synced(const std::filesystem::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) recording_folder_fail(path, std::string("cannot create: ") + std::strerror(errno));
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      recording_folder_fail(path, std::string("cannot write: ") + std::strerror(e));
    }
    off += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) recording_folder_fail(path, std::string("cannot sync: ") + std::strerror(errno));
}

}  // namespace

bool ensure_recording_folder(const std::filesystem::path& dir, const RecordingHeader& header) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::create_directory(dir, ec) || ec)
      recording_folder_fail(dir, "cannot create the folder: " +
                                     (ec ? ec.message() : std::string("it appeared meanwhile")));
  } else if (!std::filesystem::is_directory(dir, ec)) {
    recording_folder_fail(dir, "not a folder");
  }
  const std::filesystem::path file = dir / "recording.json";
  if (std::filesystem::exists(std::filesystem::symlink_status(file, ec))) {
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(file, ec)))
      recording_folder_fail(file, "is a symbolic link");
    check_recording_header(file);
    return false;
  }
  const std::filesystem::path tmp = dir / ".recording.json.tmp";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    // A header left half-written by a crash is not a file of someone else's.
    if (entry.path() != tmp)
      recording_folder_fail(dir, "holds files but no recording.json: not a recording folder");
  }
  if (ec) recording_folder_fail(dir, ec.message());
  const nlohmann::ordered_json j = {
      {"format", kRecordingFormat},  {"started", header.started},
      {"server", header.server},     {"namespace", header.pod_namespace},
      {"selector", header.selector}, {"slicelab", header.slicelab}};
  std::filesystem::remove(tmp, ec);
  recording_header_write_synced(
      tmp, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  std::filesystem::rename(tmp, file, ec);
  if (ec) recording_folder_fail(file, "cannot rename the header into place: " + ec.message());
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace slicelab::k8s
