// Starts the interposer test client in a separate process with the fake driver and the
// interposer preloaded, and reads what it says (shared by the interposer test programs).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace slicelab::test {

using Env = std::map<std::string, std::string>;

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::string out;
};

struct Result {
  int exit_code = -1;  // -1: killed by a signal or timed out
  bool timed_out = false;
  std::string out;
};

inline int g_region_counter = 0;

inline std::string fresh_region() {
  std::string path = "/tmp/slicelab-test-" + std::to_string(getpid()) + "-" +
                     std::to_string(++g_region_counter) + ".region";
  unlink(path.c_str());
  return path;
}

inline Child start(const std::vector<std::string>& args, const Env& extra,
                   const char* program = SLICELAB_CLIENT) {
  Env env;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  env["LD_PRELOAD"] = SLICELAB_INTERPOSER;
  env["LD_LIBRARY_PATH"] = std::string(SLICELAB_FAKES) +
                           (env.count("LD_LIBRARY_PATH") ? ":" + env["LD_LIBRARY_PATH"] : "");
  // The sanitizer runtimes must not object to a preloaded library coming first, and a race or
  // error must fail the child.
  env["ASAN_OPTIONS"] = "verify_asan_link_order=0:detect_leaks=0";
  env["TSAN_OPTIONS"] = "halt_on_error=1:exitcode=66";
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> kv;
  for (const auto& [k, v] : env) kv.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : kv) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> a = args;
  a.insert(a.begin(), program);
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  int p[2];
  EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
  Child c;
  c.pid = fork();
  if (c.pid == 0) {
    dup2(p[1], 1);
    dup2(p[1], 2);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(p[1]);
  c.fd = p[0];
  return c;
}

// Reads until `marker` shows up in the output; false on timeout or end of output.
inline bool wait_for(Child& c, const std::string& marker, int timeout_ms = 20000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (c.out.find(marker) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd pf{c.fd, POLLIN, 0};
    if (poll(&pf, 1, static_cast<int>(left)) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(c.fd, buf, sizeof buf);
    if (n <= 0) return c.out.find(marker) != std::string::npos;
    c.out.append(buf, static_cast<size_t>(n));
  }
  return true;
}

inline Result finish(Child& c, int timeout_ms = 120000) {
  Result r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  wait_for(c, "\x01never\x01", timeout_ms);  // read to the end of output or the timeout
  // The output may close a moment before the process is gone (sanitizer reports at exit).
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(c.pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    usleep(10000);
  if (done == 0) {
    r.timed_out = true;
    kill(c.pid, SIGKILL);
    waitpid(c.pid, &status, 0);
  }
  close(c.fd);
  r.out = c.out;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline Result run(const std::vector<std::string>& args, const Env& env, int timeout_ms = 120000) {
  Child c = start(args, env);
  return finish(c, timeout_ms);
}

inline void kill9(Child& c) {
  kill(c.pid, SIGKILL);
  int status = 0;
  waitpid(c.pid, &status, 0);
  close(c.fd);
}

inline size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace slicelab::test
