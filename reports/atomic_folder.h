// Writing a results folder all at once: files go into a temporary sibling that replaces the
// folder only when every file is written, so a failure never leaves partial output behind.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace slicelab {

inline void write_text_file(const std::filesystem::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary);
  out << content;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", p.string()));
}

// `write(tmp)` fills the temporary folder; it then replaces `dir`.
template <typename Fn>
void write_folder_atomically(const std::string& dir, Fn write) {
  namespace fs = std::filesystem;
  const fs::path target(dir);
  const fs::path tmp = target.string() + fmt::format(".tmp-{}", ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  try {
    write(tmp);
    fs::remove_all(target);
    fs::rename(tmp, target);
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
}

}  // namespace slicelab
