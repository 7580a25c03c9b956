// `--format text|json` of every command that prints a table: the table for people, or one
// stable JSON document for scripts (docs/results-format.md lists each command's document).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace slicelab {

struct OutputFormat {
  std::string value = "text";
  bool json() const { return value == "json"; }
};

inline void add_format_option(CLI::App& cmd, OutputFormat& f) {
  cmd.add_option("--format", f.value,
                 "What to print: text (the table) or json (one document; docs/results-format.md)")
      ->check(CLI::IsMember({"text", "json"}));
}

}  // namespace slicelab
