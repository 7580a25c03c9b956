// A command line that parsed but asks for something impossible (a bad option value found only
// when the command runs): main turns it into a message and exit code 2, like a parse error.
#pragma once

#include <stdexcept>

namespace slicelab {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace slicelab
