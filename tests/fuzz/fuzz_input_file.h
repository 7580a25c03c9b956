// The fuzz targets' one shared helper: most readers take a path, so each input is written to a
// file of the reader's expected name in a private temporary folder, removed when the fuzzer exits.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace slicelab::fuzz {

// The folder lives as long as the fuzzing process; libFuzzer exits through exit(), which runs
// this function-local static's destructor (a crash leaves it behind, in the temp folder only).
class ScratchFolder {
 public:
  ScratchFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("slicelab-fuzz-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline const std::filesystem::path& scratch_folder() {
  static const ScratchFolder folder;
  return folder.path();
}

// Writes `bytes` to scratch/<relative> (creating its folder) and returns the path.
inline std::string write_input(std::string_view relative, std::string_view bytes) {
  const auto path = scratch_folder() / relative;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): libFuzzer hands raw bytes
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace slicelab::fuzz
