// ResourceWatch (resource_watch.h): the list-then-watch loop and its recovery.
#include "backends/k8s/resource_watch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

#include "backends/k8s/list_page.h"
#include "backends/k8s/watch_event.h"

namespace slicelab::k8s {
namespace {

// client-go's reflector treats a watch that the server ends within a second, having delivered
// nothing, as a failure ("very short watch"): without this, a server that closes every watch at
// once would be asked again in a hot loop.
constexpr auto kShortWatch = std::chrono::seconds(1);

}  // namespace

ResourceWatch::ResourceWatch(ApiClient& client, WatchKind kind, ClusterWatchSink& sink,
                             const WatchOptions& options)
    : client_(client),
      kind_(kind),
      sink_(sink),
      options_(options),
      page_limit_(std::max<size_t>(1, options.page_limit)) {}

ResourceWatch::~ResourceWatch() {
  stop();
}

std::string ResourceWatch::collection_path(WatchKind kind, const std::string& pod_namespace) {
  if (kind == WatchKind::Node) return "/api/v1/nodes";
  return pod_namespace.empty() ? "/api/v1/pods"
                               : "/api/v1/namespaces/" + url_escape(pod_namespace) + "/pods";
}

std::string ResourceWatch::path() const {
  return collection_path(kind_, options_.pod_namespace);
}

std::string ResourceWatch::selector_query() const {
  if (kind_ != WatchKind::Pod || options_.pod_selector.empty()) return "";
  return "&labelSelector=" + url_escape(options_.pod_selector);
}

void ResourceWatch::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { loop(); });
}

void ResourceWatch::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  stream_.stop();  // cuts an open LIST page or WATCH stream within milliseconds
  if (thread_.joinable()) thread_.join();
}

WatchStats ResourceWatch::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string ResourceWatch::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

void ResourceWatch::note_error(const std::string& e) {
  std::lock_guard lock(mutex_);
  last_error_ = e;
}

void ResourceWatch::reject(const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    ++stats_.rejected;
    last_error_ = why;
  }
  sink_.rejected(kind_, why);
}

void ResourceWatch::back_off(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, d, [this] { return stopping_.load(); });
}

void ResourceWatch::loop() {
  BackoffRule rule;
  rule.initial = options_.initial_backoff;
  rule.max = options_.max_backoff;
  rule.reset_after = options_.backoff_reset;
  rule.jitter = options_.backoff_jitter;
  RelistBackoff backoff(rule, std::random_device{}());
  bool need_list = true;
  ListReason reason = ListReason::Start;
  std::string rv;
  while (!stopping_) {
    Outcome outcome = Outcome::kRelist;
    const uint64_t expired_before = stats().expired;
    try {
      if (need_list) {
        rv = list(reason);
        need_list = false;
      }
      if (stopping_) break;
      outcome = watch(rv);
    } catch (const ApiError& e) {
      note_error(e.what());
      std::lock_guard lock(mutex_);
      if (e.status() == 410) {
        ++stats_.expired;
      } else {
        ++stats_.failures;
      }
    } catch (const std::exception& e) {  // a LIST answer that is not a List
      note_error(e.what());
      std::lock_guard lock(mutex_);
      ++stats_.failures;
    }
    if (stopping_) break;
    if (outcome == Outcome::kRelist) {
      // A 410 (an answer or an ERROR event) counted in this round makes it an expiry.
      reason = stats().expired != expired_before ? ListReason::Expired : ListReason::Broken;
      // Whatever the cause (410, a broken stream, a failed request), the reflector waits before
      // it lists again: a persistent 410 costs one LIST per pause, not a hot loop.
      need_list = true;
      back_off(backoff.next(RelistBackoff::Clock::now()));
    }
  }
}

std::string ResourceWatch::list(ListReason list_reason) {
  std::string cont;
  std::string rv;
  ListPageLimits limits;
  limits.max_item_bytes = options_.max_object_bytes;
  sink_.list_reason(kind_, list_reason);
  sink_.list_started(kind_);
  do {
    const std::string path = this->path() + "?limit=" + std::to_string(page_limit_) +
                             selector_query() +
                             (cont.empty() ? "" : "&continue=" + url_escape(cont));
    ApiResponse r;
    try {
      r = stream_.get(client_, path, options_.max_page_bytes, options_.page_timeout);
    } catch (const ApiError& e) {
      // A page over the limit: the next LIST asks for smaller pages.
      if (e.reason() == ApiError::kTooLarge && page_limit_ > 1) page_limit_ /= 2;
      throw;
    }
    if (r.status < 200 || r.status > 299) {
      std::string reason;
      const std::string msg = status_message(r.status, r.body, &reason);
      throw ApiError(r.status, reason, "GET " + path + ": " + msg);
    }
    ListPageInfo page;
    try {
      page = read_list_page(
          r.body, limits,
          [&](nlohmann::json&& item) {
            if (stopping_) return false;
            sink_.apply(kind_, WatchEvent::Added, item);
            return true;
          },
          [&](const std::string& why) { reject("GET " + path + ": " + why); });
    } catch (const ListPageError& e) {
      throw ApiError(r.status, "", "GET " + path + ": " + e.what());
    }
    if (stopping_) return rv;
    rv = std::move(page.resource_version);
    cont = std::move(page.continue_token);
  } while (!cont.empty());
  if (rv.empty()) {
    throw ApiError(200, "", "GET " + path() + ": the list has no resourceVersion");
  }
  sink_.synced(kind_);
  std::lock_guard lock(mutex_);
  ++stats_.lists;
  return rv;
}

ResourceWatch::Outcome ResourceWatch::watch(std::string& resource_version) {
  const std::string path = this->path() + "?watch=1&allowWatchBookmarks=true" + selector_query() +
                           "&resourceVersion=" + url_escape(resource_version) +
                           "&timeoutSeconds=" + std::to_string(options_.timeout_seconds);
  {
    std::lock_guard lock(mutex_);
    ++stats_.watches;
  }
  bool expired = false, failed = false;
  uint64_t lines = 0;  // events of any kind read from this stream
  const auto started = std::chrono::steady_clock::now();
  const auto total = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::seconds(options_.timeout_seconds)) +
                     options_.watch_grace;
  const StreamEnd end = stream_.run(
      client_, path, options_.max_line_bytes,
      [&](std::string_view text) {
        ++lines;
        WatchLine line = read_watch_line(text, options_.max_object_bytes);
        switch (line.kind) {
          case WatchLine::Kind::kSkipped:
            reject("watch " + path + ": skipped " + line.message);
            return true;
          case WatchLine::Kind::kError:
            // The API server reports an expired resourceVersion as an ERROR event carrying a
            // Status with code 410 (reason Expired or Gone); any ERROR ends the watch.
            note_error("watch " + path + ": " + line.message);
            (line.code == 410 ? expired : failed) = true;
            return false;
          case WatchLine::Kind::kBookmark: {
            if (!line.resource_version.empty()) resource_version = line.resource_version;
            std::lock_guard lock(mutex_);
            ++stats_.bookmarks;
            return true;
          }
          case WatchLine::Kind::kObject:
            break;
        }
        if (stopping_) return false;
        sink_.apply(kind_, line.event, line.object);
        if (!line.resource_version.empty()) resource_version = line.resource_version;
        std::lock_guard lock(mutex_);
        ++stats_.events;
        return true;
      },
      total);
  std::lock_guard lock(mutex_);
  if (expired) {
    ++stats_.expired;
    return Outcome::kRelist;
  }
  if (failed) {
    ++stats_.broken;
    return Outcome::kRelist;
  }
  switch (end) {
    case StreamEnd::kFinished:
      if (lines == 0 && std::chrono::steady_clock::now() - started < kShortWatch) {
        ++stats_.short_watches;
        last_error_ = "watch " + path + ": the server ended it within a second with no event";
        return Outcome::kRelist;
      }
      return Outcome::kRenew;
    case StreamEnd::kStopped:
      return Outcome::kRenew;  // only when stopping: the loop ends
    case StreamEnd::kOversized:
      ++stats_.oversized;
      ++stats_.broken;
      last_error_ = "watch " + path + ": an event line passed " +
                    std::to_string(options_.max_line_bytes) + " bytes";
      return Outcome::kRelist;
    case StreamEnd::kBroken:
      ++stats_.broken;
      last_error_ = "watch " + path + ": the stream broke or passed its deadline";
      return Outcome::kRelist;
  }
  return Outcome::kRelist;
}

}  // namespace slicelab::k8s
