#include "backends/local/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace slicelab {

EnvMap current_environment() {
  EnvMap env;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  return env;
}

std::string ExitStatus::describe() const {
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit code {}", exit_code);
}

namespace {

ExitStatus status_of(int raw) {
  ExitStatus s;
  if (WIFEXITED(raw)) s.exit_code = WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) s.signal = WTERMSIG(raw);
  return s;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const EnvMap& env,
                           const std::string& log_path) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty command");
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> kv;
  kv.reserve(env.size());
  for (const auto& [k, v] : env) {
    std::string entry = k;
    entry += '=';
    entry += v;
    kv.push_back(std::move(entry));
  }
  std::vector<char*> envp, args;
  for (auto& s : kv) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> a = argv;
  for (auto& s : a) args.push_back(s.data());
  args.push_back(nullptr);
  const int out =
      log_path.empty()
          ? open("/dev/null", O_WRONLY | O_CLOEXEC)
          : open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (out < 0 && errno == ELOOP)  // a link planted at the log's name: never write through it
    throw std::runtime_error(fmt::format(
        "cannot open {}: it is a symbolic link, and slicelab writes no log through one", log_path));
  if (out < 0)
    throw std::runtime_error(fmt::format("cannot open {}: {}", log_path, std::strerror(errno)));
  pid_ = fork();
  if (pid_ < 0) {
    close(out);
    throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  }
  if (pid_ == 0) {
    setpgid(0, 0);  // its own group, so that a timeout kills everything it started
    dup2(out, 1);
    dup2(out, 2);
    const int in = open("/dev/null", O_RDONLY);
    if (in >= 0) dup2(in, 0);
    execve(args[0], args.data(), envp.data());
    static const char msg[] = "slicelab: cannot execute the workload command\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid_, pid_);  // also from the parent: no race with an early terminate()
  close(out);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), status_(other.status_), group_released_(other.group_released_) {
  other.pid_ = -1;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !poll()) terminate(std::chrono::milliseconds(200));
  // A finished leader may have left children in its group: stop them too.
  if (pid_ > 0 && !group_released_) kill(-pid_, SIGKILL);
}

std::optional<ExitStatus> ChildProcess::poll() {
  if (status_ || pid_ <= 0) return status_;
  int raw = 0;
  const pid_t r = waitpid(pid_, &raw, WNOHANG);
  if (r == pid_) status_ = status_of(raw);
  return status_;
}

std::optional<ExitStatus> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!poll()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status_;
}

ExitStatus ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (auto s = poll()) return *s;
  kill(-pid_, SIGTERM);
  if (auto s = wait_for(grace)) {
    kill(-pid_, SIGKILL);  // the leader obeyed; anything left in its group does not get a say
    return *s;
  }
  kill(-pid_, SIGKILL);
  int raw = 0;
  while (waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
  }
  status_ = status_of(raw);
  return *status_;
}

CapturedRun run_captured(const std::vector<std::string>& argv, const EnvMap& env,
                         std::chrono::milliseconds timeout) {
  char out_path[] = "/tmp/slicelab-run-XXXXXX";
  const int fd = mkstemp(out_path);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot create a temporary file: {}", std::strerror(errno)));
  close(fd);
  CapturedRun r;
  try {
    ChildProcess p(argv, env, out_path);
    const std::optional<ExitStatus> s = p.wait_for(timeout);
    r.timed_out = !s.has_value();
    r.status = s ? *s : p.terminate(std::chrono::milliseconds(500));
  } catch (...) {
    unlink(out_path);
    throw;
  }
  std::ifstream in(out_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  r.output = std::move(text).str();
  unlink(out_path);
  return r;
}

std::string find_tool(const std::string& override_path, const char* env_var, const char* name) {
  if (!override_path.empty()) return override_path;
  if (const char* e = std::getenv(env_var); e && *e) return e;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::filesystem::path p = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return {};
}

}  // namespace slicelab
