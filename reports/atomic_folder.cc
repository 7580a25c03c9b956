#include "reports/atomic_folder.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/output_guard.h"

namespace slicelab {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTmpTag = ".slicelab-tmp-";
constexpr std::string_view kOldTag = ".slicelab-old-";

// Holds back SIGINT, SIGTERM and SIGHUP in this thread while a folder is being swapped, so that
// Ctrl-C cannot stop it between its steps; a pending signal takes effect when this ends. Only
// the mask of this thread changes: no handler, no global state.
class DeferredSignals {
 public:
  DeferredSignals() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
  }
  ~DeferredSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  DeferredSignals(const DeferredSignals&) = delete;
  DeferredSignals& operator=(const DeferredSignals&) = delete;

 private:
  sigset_t old_{};
};

bool process_is_gone(pid_t pid) {
  return pid > 0 && ::kill(pid, 0) == -1 && errno == ESRCH;
}

// The pid after `tag` in `name` = `base` + `tag` + digits; 0 when `name` is not of that form.
pid_t pid_in(std::string_view name, std::string_view base, std::string_view tag) {
  if (name.size() <= base.size() + tag.size() || name.substr(0, base.size()) != base ||
      name.substr(base.size(), tag.size()) != tag)
    return 0;
  const std::string_view digits = name.substr(base.size() + tag.size());
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return ec == std::errc{} && end == digits.data() + digits.size() ? pid : 0;
}

bool is_marked_folder(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::directory &&
         read_results_marker(p).has_value();
}

// Removes a folder of slicelab's with its marker last, so that whatever an interrupted removal
// leaves is still recognised (and swept) as slicelab's. Returns whether it is gone.
bool remove_marked_folder(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename() != kResultsMarker) entries.push_back(it->path());
  for (const fs::path& e : entries) fs::remove_all(e, ec);
  fs::remove_all(dir, ec);
  return fs::symlink_status(dir, ec).type() == fs::file_type::not_found;
}

fs::path sibling(const fs::path& target, std::string_view tag, pid_t pid) {
  return target.parent_path() / fmt::format("{}{}{}", target.filename().string(), tag, pid);
}

}  // namespace

size_t sweep_stale_folders(const fs::path& target) {
  const std::string base = target.filename().string();
  std::vector<std::pair<fs::path, bool>> stale;  // path, is an old (moved-aside) folder
  std::error_code ec;
  for (fs::directory_iterator it(target.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const bool old : {false, true}) {
      const pid_t pid = pid_in(name, base, old ? kOldTag : kTmpTag);
      // Our own pid too: this process creates its folders only after the sweep, so one with
      // its pid is what an earlier process with the same pid left.
      if (pid != 0 && (pid == ::getpid() || process_is_gone(pid)) && is_marked_folder(it->path()))
        stale.emplace_back(it->path(), old);
    }
  }
  // Temporary folders first: an old folder moved back must not meet a half-swapped new one.
  std::stable_partition(stale.begin(), stale.end(), [](const auto& s) { return !s.second; });
  size_t handled = 0;
  for (const auto& [path, old] : stale) {
    std::error_code e;
    if (old && fs::symlink_status(target, e).type() == fs::file_type::not_found) {
      fs::rename(path, target, e);
      handled += e ? 0 : 1;
    } else {
      handled += remove_marked_folder(path) ? 1 : 0;
    }
  }
  return handled;
}

fs::path prepare_output_folder(const std::string& dir, bool force) {
  const fs::path target = check_output_folder(dir, force);
  sweep_stale_folders(target);
  return target;
}

void write_folder_atomically(const std::string& dir, bool force,
                             const std::function<void(const fs::path&)>& write) {
  const DeferredSignals deferred;
  const fs::path target = prepare_output_folder(dir, force);
  fs::create_directories(target.parent_path());
  const fs::path tmp = sibling(target, kTmpTag, ::getpid());
  const fs::path old = sibling(target, kOldTag, ::getpid());
  // The sweep handled any of slicelab's with these names; what is left is someone else's.
  for (const fs::path& p : {tmp, old}) {
    std::error_code ec;
    if (fs::symlink_status(p, ec).type() != fs::file_type::not_found)
      throw OutputRefused(fmt::format(
          "'{}' is in the way of slicelab's temporary folder and was not written by slicelab; "
          "move it elsewhere",
          p.string()));
  }
  fs::create_directory(tmp);
  try {
    write_results_marker(tmp, {});  // first, so that a kill -9 leaves a recognisable folder
    write(tmp);
    write_results_marker(tmp, folder_entries(tmp));
    check_output_folder(dir, force);  // again: the folder may have changed during the run
    std::error_code ec;
    const bool occupied = fs::symlink_status(target, ec).type() != fs::file_type::not_found &&
                          !(fs::is_directory(target, ec) && fs::is_empty(target, ec));
    if (!occupied) {
      fs::rename(tmp, target);  // rename(2) replaces an empty folder in one step
      return;
    }
    fs::rename(target, old);
    try {
      fs::rename(tmp, target);
    } catch (...) {
      fs::rename(old, target);
      throw;
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  remove_marked_folder(old);  // what an interruption leaves of it is swept by a later run
}

}  // namespace slicelab
