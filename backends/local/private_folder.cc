#include "backends/local/private_folder.h"

#include <fmt/format.h>
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): mkdtemp is POSIX, not in <cstdlib>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

namespace slicelab {

std::filesystem::path make_private_folder(const std::filesystem::path& parent,
                                          const std::string& prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec)
    throw std::runtime_error(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  std::string templ = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr)
    throw std::runtime_error(
        fmt::format("cannot create a folder in {}: {}", parent.string(), std::strerror(errno)));
  return templ;
}

ScopedPrivateFolder::~ScopedPrivateFolder() {
  std::error_code ec;  // a destructor must not throw; a leftover in a temp folder is harmless
  std::filesystem::remove_all(path_, ec);
}

}  // namespace slicelab
