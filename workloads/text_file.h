// Reading a whole input file into memory, with the one message every reader gives when it
// cannot ("PATH: cannot open file", "…: it is a folder").
#pragma once

#include <string>

namespace slicelab {

// The file's bytes. Throws InputError when it is missing, unreadable or a folder.
std::string read_text_file(const std::string& path);

}  // namespace slicelab
