// Writing one output file a user named (-o): checked by check_output_file, written to a
// temporary sibling and renamed into place, so that a failure leaves the old file as it was.
#pragma once

#include <span>
#include <string>

namespace slicelab {

// Writes `content` to `file` (replacing a regular file there), never to a folder, link, device
// or any of `inputs` (reports/output_guard.h says why each is refused).
void write_output_file(const std::string& file, const std::string& content,
                       std::span<const std::string> inputs = {});

}  // namespace slicelab
