// The one exception type for bad user input: it carries a finished, located message
// ("file:line:col: where: expected X, found Y") that the CLI prints as it is.
#pragma once

#include <stdexcept>
#include <string>

namespace slicelab {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace slicelab
