// `slicelab help [COMMAND...]` and the checks that keep CLI11 from answering a mistyped command
// with the main help: an unknown command is a usage error (exit 2), with or without --help.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace slicelab {

class HelpCommand {
 public:
  // Registered so that the main help lists it; main runs it before CLI11 parses, which would
  // read `help compare` as the help command followed by the compare command.
  explicit HelpCommand(CLI::App& app);
  // Whether the command line is `slicelab help ...`.
  static bool asked(int argc, const char* const* argv);
  // Prints the help of the command named by the words after `help` (the main help for none),
  // exit 0; throws UsageError for a command that does not exist.
  int run(const CLI::App& app, int argc, const char* const* argv) const;

 private:
  CLI::App* cmd_;
  std::vector<std::string> topic_;  // only for the help's usage line; run() reads argv
};

// The message for a command line whose command words name no command ("unknown command
// 'record' (the commands are: ...)"), or nothing. Checked before CLI11 parses: CLI11 reads a
// word it does not know as a stray positional and still honours --help, exiting 0. The words
// are read up to the first option; a command with positional arguments ends the walk.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv);

// Whether -h/--help was given to the command line's command (or one above it): a check that
// failed while parsing (a missing input file) then yields to the help that was asked for.
bool help_requested(const CLI::App& app);

}  // namespace slicelab
