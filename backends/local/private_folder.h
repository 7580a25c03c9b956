// A folder of this process's own, made fresh under a parent (mkdtemp, mode 0700), for files
// other processes must not plant or read first: interposer regions, client logs.
#pragma once

#include <filesystem>
#include <string>

namespace slicelab {

// Creates <parent>/<prefix>XXXXXX (the parent too, if missing). Nothing that existed before is
// reused, so the caller may write, truncate or delete anything inside it.
std::filesystem::path make_private_folder(const std::filesystem::path& parent,
                                          const std::string& prefix);

// A private folder removed with everything in it when it goes out of scope: slicelab made it and
// everything in it, so removing it destroys nothing of anyone else's.
class ScopedPrivateFolder {
 public:
  ScopedPrivateFolder(const std::filesystem::path& parent, const std::string& prefix)
      : path_(make_private_folder(parent, prefix)) {}
  ScopedPrivateFolder(const ScopedPrivateFolder&) = delete;
  ScopedPrivateFolder& operator=(const ScopedPrivateFolder&) = delete;
  ~ScopedPrivateFolder();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace slicelab
