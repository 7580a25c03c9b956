#include "reports/output_guard.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

namespace slicelab {
namespace {

namespace fs = std::filesystem;

// A marker is a few hundred bytes per file written; more than this is not one of slicelab's.
constexpr std::uintmax_t kMaxMarkerBytes = 16 << 20;

[[noreturn]] void refuse(const std::string& dir, const std::string& why) {
  throw OutputRefused(fmt::format("output folder '{}' {}", dir, why));
}

// Does `outer` equal `inner` or hold it? Both absolute and normal.
bool same_or_above(const fs::path& outer, const fs::path& inner) {
  auto o = outer.begin();
  auto i = inner.begin();
  for (; o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator's empty last element
    if (i == inner.end() || *o != *i) return false;
  }
  return true;
}

// The real path of `p` as far as it exists (symbolic links resolved), for comparisons.
fs::path real_path(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : r;
}

std::string without_trailing_slashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

constexpr const char* kNewFolderHint = "give a folder of its own, e.g. results/run1";

// Earlier versions' calibration files began so; they are slicelab's too.
constexpr std::string_view kOldCalibrationLine = "# Written by `slicelab calibrate ";

// Whether the regular file `p` is empty or begins as slicelab's own files do. Opened without
// following a link or blocking; only the first line's worth of bytes is read.
bool own_file(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  char head[64];
  const size_t want = std::max(kOwnFileLine.size(), kOldCalibrationLine.size());
  size_t got = 0;
  while (got < want) {
    const ssize_t n = ::read(fd, head + got, want - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  const std::string_view text(head, got);
  return got == 0 || text.starts_with(kOwnFileLine) || text.starts_with(kOldCalibrationLine);
}

}  // namespace

std::vector<std::string> folder_entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path rel = it->path().lexically_relative(dir);
    if (rel == kResultsMarker) continue;
    const bool folder = it->symlink_status().type() == fs::file_type::directory;
    out.push_back(rel.generic_string() + (folder ? "/" : ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

void write_results_marker(const fs::path& dir, std::span<const std::string> entries) {
  std::string text = std::string(kResultsMarkerLine) +
                     "\n# Written by slicelab. slicelab replaces this folder only while it holds "
                     "this file and nothing but the paths below (docs/results-format.md).\n";
  for (const std::string& e : entries) text += e + "\n";
  replace_file_via_temp(dir / kResultsMarker, text);
}

void replace_file_via_temp(const fs::path& target, std::string_view content) {
  // Named as slicelab's temporary files are, which check_output_folder knows to be its own.
  const fs::path tmp = target.string() + fmt::format(".slicelab-tmp-{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot create {}: {}", tmp.string(), std::strerror(errno)));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const int saved = errno;
  const bool ok = done == content.size() && ::close(fd) == 0;
  std::error_code ec;
  if (!ok) {
    fs::remove(tmp, ec);
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", target.string(), std::strerror(ok ? errno : saved)));
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot write {}: {}", target.string(), why));
  }
}

std::optional<std::vector<std::string>> read_results_marker(const fs::path& dir) {
  const fs::path marker = dir / kResultsMarker;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(marker, ec);
  if (ec || st.type() != fs::file_type::regular) return std::nullopt;
  const std::uintmax_t size = fs::file_size(marker, ec);
  if (ec || size > kMaxMarkerBytes) return std::nullopt;
  std::ifstream in(marker, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line != kResultsMarkerLine) return std::nullopt;
  std::vector<std::string> entries;
  while (std::getline(in, line))
    if (!line.empty() && line.front() != '#') entries.push_back(line);
  return entries;
}

fs::path check_output_folder(const std::string& dir, bool force) {
  if (dir.empty()) throw OutputRefused(fmt::format("output folder '': empty; {}", kNewFolderHint));
  const std::string trimmed = without_trailing_slashes(dir);
  const fs::path given(trimmed);
  if (given.filename() == "." || given.filename() == "..")
    refuse(dir, fmt::format("is refused: '{}' names a folder that holds other things, which "
                            "slicelab would replace; {}",
                            given.filename().string(), kNewFolderHint));
  const fs::path abs = fs::absolute(given).lexically_normal();
  const fs::path real = real_path(abs);
  if (real == real.root_path() || abs == abs.root_path())
    refuse(dir, fmt::format("is the root folder; {}", kNewFolderHint));
  if (const char* home = std::getenv("HOME"); home && *home && home[0] == '/') {
    const fs::path h = real_path(fs::path(home).lexically_normal());
    if (same_or_above(real, h))
      refuse(dir,
             fmt::format("{} your home folder; {}", real == h ? "is" : "holds", kNewFolderHint));
  }
  std::error_code cwd_ec;  // a working folder that was removed holds nothing to protect
  const fs::path cwd = real_path(fs::current_path(cwd_ec));
  if (!cwd_ec && same_or_above(real, cwd))
    refuse(dir,
           fmt::format("{} the working folder; {}", real == cwd ? "is" : "holds", kNewFolderHint));

  std::error_code ec;
  const fs::file_status st = fs::symlink_status(abs, ec);
  const bool missing = st.type() == fs::file_type::not_found || ec == std::errc::not_a_directory;
  if (ec && !missing && ec != std::errc::no_such_file_or_directory)
    refuse(dir, fmt::format("cannot be examined: {}", ec.message()));
  if (missing) {
    // The folder is created with its parents: the nearest that exists must be a folder.
    fs::path up = abs.parent_path();
    auto absent = [&](const fs::path& p) {
      const fs::file_type t = fs::symlink_status(p, ec).type();
      return t == fs::file_type::not_found || ec == std::errc::not_a_directory;
    };
    while (!up.empty() && up != up.root_path() && absent(up)) up = up.parent_path();
    if (!up.empty() && !fs::is_directory(up, ec))
      refuse(dir, fmt::format("cannot be created: '{}' is not a folder", up.string()));
    return abs;
  }
  if (st.type() == fs::file_type::symlink)
    refuse(dir,
           "is a symbolic link: slicelab replaces only real folders; give the folder it "
           "points to, or a new name");
  if (st.type() != fs::file_type::directory)
    refuse(dir,
           "exists and is not a folder; give a new folder name, or a results folder "
           "slicelab wrote");
  const auto listed = read_results_marker(abs);
  if (!listed) {
    if (fs::directory_iterator(abs) == fs::directory_iterator()) return abs;  // empty
    refuse(dir,
           fmt::format("is not empty and was not written by slicelab (it has no {} file): slicelab "
                       "replaces only empty folders and its own results folders, even with "
                       "--force; give a new folder name, or move what is in it elsewhere",
                       kResultsMarker));
  }
  if (force) return abs;
  const std::set<std::string> known(listed->begin(), listed->end());
  std::vector<std::string> extra;
  for (const std::string& e : folder_entries(abs))  // a killed report's temporary file is ours
    if (!known.contains(e) && e.find(".slicelab-tmp-") == std::string::npos) extra.push_back(e);
  if (!extra.empty()) {
    const size_t n = extra.size();
    if (n > 5) extra.resize(5);
    refuse(dir, fmt::format("is a slicelab results folder, but holds {} path(s) slicelab did not "
                            "write there ({}{}); move them elsewhere, or give --force to replace "
                            "the folder with them",
                            n, fmt::join(extra, ", "), n > 5 ? ", ..." : ""));
  }
  return abs;
}

fs::path check_results_folder_to_add_to(const std::string& dir) {
  const fs::path p(dir);
  std::error_code ec;
  const fs::file_type type = fs::symlink_status(p, ec).type();
  if (type == fs::file_type::symlink)
    throw OutputRefused(
        fmt::format("{}: a symbolic link; slicelab adds files only to a folder "
                    "it wrote, not through a link",
                    dir));
  if (type != fs::file_type::directory) throw OutputRefused(fmt::format("{}: not a folder", dir));
  if (!read_results_marker(p))
    throw OutputRefused(fmt::format(
        "{}: not a results folder slicelab wrote (it has no {} file), and slicelab adds files only "
        "to its own; a folder from an older slicelab has none: run the command that wrote it "
        "again, into a new folder",
        dir, kResultsMarker));
  return p;
}

fs::path check_output_file(const std::string& file, std::span<const std::string> inputs) {
  if (file.empty()) throw OutputRefused("output file '': empty; give a file name");
  if (file.back() == '/')
    throw OutputRefused(fmt::format("output file '{}' names a folder; give a file name", file));
  const fs::path p(file);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw OutputRefused(fmt::format("output file '{}' cannot be examined: {}", file, ec.message()));
  switch (st.type()) {
    case fs::file_type::not_found:
      return p;
    case fs::file_type::regular:
      break;
    case fs::file_type::directory:
      throw OutputRefused(fmt::format("output file '{}' is a folder; give a file name", file));
    case fs::file_type::symlink:
      throw OutputRefused(fmt::format(
          "output file '{}' is a symbolic link; give the file it points to, or a new name", file));
    default:
      throw OutputRefused(fmt::format(
          "output file '{}' is not a regular file (a device, pipe or socket); give a file name",
          file));
  }
  for (const std::string& in : inputs) {
    if (in.empty()) continue;
    if (fs::equivalent(p, in, ec) && !ec)
      throw OutputRefused(fmt::format(
          "output file '{}' is the input file '{}': writing it would destroy the input; give "
          "another name",
          file, in));
  }
  return p;
}

fs::path check_own_output_file(const std::string& file, std::span<const std::string> inputs) {
  fs::path p = check_output_file(file, inputs);
  std::error_code ec;
  if (fs::symlink_status(p, ec).type() == fs::file_type::regular && !own_file(p))
    throw OutputRefused(fmt::format(
        "output file '{}' exists and was not written by slicelab (its first line is not "
        "'{}…'): slicelab replaces only files it wrote; give a new name, or move it elsewhere",
        file, kOwnFileLine));
  return p;
}

}  // namespace slicelab
