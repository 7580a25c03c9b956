#include "cli/tool_paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace slicelab {

std::string resolve_tool(const std::string& given, const char* env_var,
                         std::initializer_list<const char*> beside_executable) {
  if (!given.empty()) return given;
  if (const char* e = std::getenv(env_var); e && *e) return e;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const char* rel : beside_executable) {
    const auto p = (exe.parent_path() / rel).lexically_normal();
    if (access(p.c_str(), F_OK) == 0) return p.string();
  }
  return {};
}

std::string default_kernel_binary(const std::string& given) {
  return resolve_tool(given, "SLICELAB_KERNEL_BINARY",
                      {"slicelab-kernel", "../kernels/slicelab-kernel"});
}

std::string default_interposer_library(const std::string& given) {
  return resolve_tool(given, "SLICELAB_INTERPOSER",
                      {"libslicelab-interposer.so", "../backends/libslicelab-interposer.so",
                       "../lib/libslicelab-interposer.so"});
}

}  // namespace slicelab
