// Checks for the input files and folders named on a command line: a missing input is bad input
// (exit 1, README "Exit codes"), not a usage error, so these throw InputError, not CLI11's error.
#pragma once

#include <CLI/CLI.hpp>

namespace slicelab {

// In place of CLI::ExistingFile: throws InputError "PATH: cannot open file: no such file" (or
// "...: it is a folder") while the command line is parsed; main turns it into exit code 1.
CLI::Validator existing_input_file();

// In place of CLI::ExistingDirectory: throws InputError "PATH: no such folder" (or "PATH: not a
// folder").
CLI::Validator existing_input_folder();

}  // namespace slicelab
