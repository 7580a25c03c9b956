// Writing one output file a user named (-o): checked by check_output_file (check_own_output_file
// for the files slicelab marks as its own), written to a temporary sibling and renamed into
// place, so that a failure leaves the old file as it was.
#pragma once

#include <span>
#include <string>

namespace slicelab {

// Writes `content` to `file` (replacing a regular file there), never to a folder, link, device
// or any of `inputs` (reports/output_guard.h says why each is refused).
void write_output_file(const std::string& file, const std::string& content,
                       std::span<const std::string> inputs = {});

// As write_output_file for a file slicelab owns: `content` begins with kOwnFileLine
// (reports/output_guard.h), and an existing file is replaced only when it does too (or is
// empty); check_own_output_file says what is refused. Throws std::logic_error when `content`
// does not begin so (a caller's mistake: the file would not be recognised later).
void write_own_output_file(const std::string& file, const std::string& content,
                           std::span<const std::string> inputs = {});

}  // namespace slicelab
