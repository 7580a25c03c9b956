// Writing a results folder all at once and only where slicelab may: files go into a marked
// temporary sibling that replaces the folder only when every file is written; the old folder is
// moved aside first and removed last, so a failure never leaves partial output or no output.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>

namespace slicelab {

inline void write_text_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

// As write_text_file, for content that `write` produces piece by piece into the file's stream,
// so that it is never held whole in memory.
inline void write_streamed_file(const std::filesystem::path& p,
                                const std::function<void(std::ostream&)>& write) {
  std::ofstream out(p, std::ios::binary);
  if (out) write(out);
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

// check_output_folder(dir, force) (reports/output_guard.h), then removes what dead slicelab
// processes left beside `dir` (sweep_stale_folders). Returns the folder's absolute path. The
// CLI calls it before a long run, so that a refusal comes before the work, not after.
std::filesystem::path prepare_output_folder(const std::string& dir, bool force);

// `write(tmp)` fills the temporary folder <dir>.slicelab-tmp-<pid> (created holding slicelab's
// marker, so that a killed run's leftover is recognised as slicelab's); the marker is then
// completed with what was written, and the folder replaces `dir`: `dir` (if any) is renamed to
// <dir>.slicelab-old-<pid>, the temporary one renamed into place, and only then the old one
// removed. On an exception the temporary folder is removed and `dir` is as it was. SIGINT,
// SIGTERM and SIGHUP are held back in the calling thread meanwhile (delivered on return).
// Refusals: as prepare_output_folder, checked again just before the swap.
void write_folder_atomically(const std::string& dir, bool force,
                             const std::function<void(const std::filesystem::path&)>& write);

// Beside `target`: <name>.slicelab-tmp-<pid> and <name>.slicelab-old-<pid> of processes that no
// longer exist (kill(pid, 0) fails with ESRCH), and only when they are real folders holding
// slicelab's marker (pids are reused; an unmarked folder is never touched). A temporary folder
// is removed; an old one is moved back to `target` when `target` is missing (the run died
// between the two renames), else removed. Returns how many were handled.
size_t sweep_stale_folders(const std::filesystem::path& target);

}  // namespace slicelab
