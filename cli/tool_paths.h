// Where the programs slicelab starts live (slicelab-kernel, the interposer library): an
// explicit option, else an environment variable, else beside this build's slicelab binary.
#pragma once

#include <initializer_list>
#include <string>

namespace slicelab {

// The first of: `given`, $`env_var`, the candidates (relative to the folder of the running
// slicelab executable) that exists. Empty when none does.
std::string resolve_tool(const std::string& given, const char* env_var,
                         std::initializer_list<const char*> beside_executable);

std::string default_kernel_binary(const std::string& given);       // $SLICELAB_KERNEL_BINARY
std::string default_interposer_library(const std::string& given);  // $SLICELAB_INTERPOSER

}  // namespace slicelab
