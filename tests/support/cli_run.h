// Running programs (mostly the slicelab binary) from end-to-end tests through the shell, with
// stdout and stderr captured in files, and reading those files back.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace slicelab::testing {

// The file's bytes; "" when it is missing (a test then fails on the content, with the path).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `s` as one shell word.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The exit code of a shell command line; -1 when it could not run or died of a signal.
inline int run_shell(const std::string& command) {
  const int raw = std::system(command.c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

struct CliRun {
  int status = -1;
  std::string out, err;
};

// Runs `[env] 'program' args` (args already quoted where needed) with its output in
// `scratch`/<name>.stdout and .stderr; in `cwd` when given.
inline CliRun run_program(const std::string& program, const std::string& args,
                          const std::filesystem::path& scratch, const std::string& name = "run",
                          const std::string& env = "", const std::filesystem::path& cwd = {}) {
  const std::filesystem::path out = scratch / (name + ".stdout");
  const std::filesystem::path err = scratch / (name + ".stderr");
  std::string command = cwd.empty() ? "" : "cd " + shell_quote(cwd.string()) + " && ";
  command += env + (env.empty() ? "" : " ") + shell_quote(program) + " " + args + " >" +
             shell_quote(out.string()) + " 2>" + shell_quote(err.string());
  CliRun r;
  r.status = run_shell(command);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace slicelab::testing
