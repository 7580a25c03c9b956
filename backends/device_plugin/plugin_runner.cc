#include "backends/device_plugin/plugin_runner.h"

#include <grpc/grpc.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

#include "backends/device_plugin/kubelet_registration.h"
#include "backends/device_plugin/kubelet_socket_watch.h"
#include "backends/device_plugin/plugin_server.h"

namespace slicelab::device_plugin {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<ResourcePlugin*> pointers(const std::vector<std::unique_ptr<ResourcePlugin>>& owned) {
  std::vector<ResourcePlugin*> out;
  out.reserve(owned.size());
  for (const auto& p : owned) out.push_back(p.get());
  return out;
}

}  // namespace

// Named, not anonymous: Served below holds one, and a class of external linkage may not have a
// member of an anonymous namespace's type (GCC's -Wsubobject-linkage, in unity builds).
namespace runner_detail {

// Which kubelet.sock a registration went to: a new file (a restarted kubelet) differs in inode
// or change time even when the inode number is reused. Zero when there is none.
struct SocketIdentity {
  ino_t ino = 0;
  int64_t ctime_ns = 0;
  bool operator==(const SocketIdentity&) const = default;
};

SocketIdentity identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  return {st.st_ino, int64_t{st.st_ctim.tv_sec} * 1'000'000'000 + st.st_ctim.tv_nsec};
}

}  // namespace runner_detail

using runner_detail::identity_of;
using runner_detail::SocketIdentity;

// One resource's server and where it stands with the kubelet; touched only by the runner's
// thread once start() has returned.
struct PluginRunner::Served {
  std::unique_ptr<DevicePluginServer> server;
  bool registered = false;
  Clock::time_point next_attempt{};
  std::chrono::milliseconds backoff{0};
  SocketIdentity kubelet;  // the kubelet.sock of the last successful registration
};

PluginRunner::PluginRunner(const std::vector<std::unique_ptr<ResourcePlugin>>& plugins,
                           const DeviceHealth& health, PluginRunnerOptions options)
    : PluginRunner(pointers(plugins), health, std::move(options)) {}

PluginRunner::PluginRunner(const std::vector<ResourcePlugin*>& plugins, const DeviceHealth& health,
                           PluginRunnerOptions options)
    : plugins_(plugins), health_(health), options_(std::move(options)) {}

PluginRunner::~PluginRunner() {
  stop();
}

void PluginRunner::say(const std::string& line) const {
  if (options_.log) options_.log(line);
}

bool PluginRunner::running() const {
  const std::lock_guard lock(mu_);
  return thread_.joinable();
}

void PluginRunner::start() {
  const std::lock_guard lock(mu_);
  if (thread_.joinable()) throw std::logic_error("the device plugin runner is already running");
  // Watching first: a kubelet restart while the servers start is not missed.
  auto watch = std::make_unique<KubeletSocketWatch>(options_.plugin_dir, options_.kubelet_socket);
  std::vector<std::unique_ptr<Served>> served;
  for (ResourcePlugin* plugin : plugins_) {
    auto s = std::make_unique<Served>();
    s->server = std::make_unique<DevicePluginServer>(*plugin, health_, options_.plugin_dir);
    s->server->start();  // throws; the servers started so far stop in their destructors
    s->backoff = options_.retry_initial;
    say("serving " + s->server->resource_name() + " on " + s->server->socket_path().string());
    served.push_back(std::move(s));
  }
  served_ = std::move(served);
  watch_ = std::move(watch);
  registration_ =
      std::make_unique<KubeletRegistration>(options_.plugin_dir / options_.kubelet_socket);
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void PluginRunner::stop() {
  const std::lock_guard lock(mu_);
  if (!thread_.joinable()) return;
  stopping_ = true;
  registration_->cancel();
  watch_->wake();
  thread_.join();
  // Every stream is told first, so that the servers' shutdowns overlap instead of adding up.
  for (auto& s : served_) s->server->request_stop();
  for (auto& s : served_) s->server->stop();
  served_.clear();
  watch_.reset();
  registration_.reset();
}

void PluginRunner::restart(Served& served, const std::string& why) {
  say("restarting " + served.server->resource_name() + ": " + why);
  served.server->stop();
  served.registered = false;
  served.backoff = options_.retry_initial;
  served.next_attempt = Clock::now();
}

void PluginRunner::attempt(Served& served) {
  DevicePluginServer& server = *served.server;
  try {
    if (!server.serving()) server.start();
    const std::filesystem::path kubelet_socket = options_.plugin_dir / options_.kubelet_socket;
    const SocketIdentity before = identity_of(kubelet_socket);
    registration_->register_plugin(server.register_request(), options_.register_timeout);
    served.registered = true;
    // Unknown (a creation event then registers again) when the socket changed meanwhile.
    served.kubelet = identity_of(kubelet_socket) == before ? before : SocketIdentity{};
    served.backoff = options_.retry_initial;
    ++registrations_;
    say("registered " + server.resource_name() + " with the kubelet (endpoint " +
        server.endpoint() + ")");
  } catch (const std::exception& e) {
    if (stopping_) return;
    served.next_attempt = Clock::now() + served.backoff;
    say(std::string(e.what()) + "; trying again in " + std::to_string(served.backoff.count()) +
        " ms");
    served.backoff = std::min(served.backoff * 2, options_.retry_max);
  }
}

void PluginRunner::loop() {
  while (!stopping_) {
    const Clock::time_point now = Clock::now();
    Clock::time_point wake_at = Clock::time_point::max();
    for (auto& s : served_) {
      if (stopping_) return;
      if (!s->registered && s->next_attempt <= now) attempt(*s);
      if (!s->registered) wake_at = std::min(wake_at, s->next_attempt);
    }
    std::chrono::milliseconds timeout{-1};
    if (wake_at != Clock::time_point::max()) {
      timeout = std::max(std::chrono::milliseconds(0),
                         std::chrono::ceil<std::chrono::milliseconds>(wake_at - Clock::now()));
    }
    const FolderEvents events = watch_->wait(timeout);
    if (stopping_) return;
    const SocketIdentity kubelet = identity_of(options_.plugin_dir / options_.kubelet_socket);
    for (auto& s : served_) {
      // A registration that already reached this kubelet.sock (its creation was noticed while
      // registering) needs no second round.
      const bool current =
          s->registered && s->kubelet == kubelet && kubelet.ino != 0 && s->server->socket_is_ours();
      if (events.kubelet_created && !current) {
        restart(*s, "the kubelet's socket was created (a kubelet restart)");
      } else if (std::find(events.removed.begin(), events.removed.end(), s->server->endpoint()) !=
                     events.removed.end() &&
                 s->server->serving() && !s->server->socket_is_ours()) {
        restart(*s, "its socket " + s->server->endpoint() + " was removed");
      }
    }
  }
}

}  // namespace slicelab::device_plugin
