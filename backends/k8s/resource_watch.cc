// ResourceWatch (resource_watch.h): the list-then-watch loop and its recovery.
#include "backends/k8s/resource_watch.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace slicelab::k8s {
namespace {

std::string resource_version_of(const nlohmann::json& object) {
  const auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  const auto rv = meta->find("resourceVersion");
  return rv != meta->end() && rv->is_string() ? rv->get<std::string>() : "";
}

}  // namespace

ResourceWatch::ResourceWatch(ApiClient& client, WatchKind kind, ClusterWatchSink& sink,
                             WatchOptions options)
    : client_(client), kind_(kind), sink_(sink), options_(options) {}

ResourceWatch::~ResourceWatch() {
  stop();
}

std::string ResourceWatch::collection_path(WatchKind kind) {
  return kind == WatchKind::Node ? "/api/v1/nodes" : "/api/v1/pods";
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
  stream_.stop();
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

void ResourceWatch::back_off(std::chrono::milliseconds d) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, d, [this] { return stopping_.load(); });
}

void ResourceWatch::loop() {
  std::chrono::milliseconds backoff = options_.initial_backoff;
  bool need_list = true;
  std::string rv;
  while (!stopping_) {
    Outcome outcome = Outcome::kBackOff;
    try {
      if (need_list) {
        rv = list();
        need_list = false;
      }
      outcome = watch(rv);
    } catch (const ApiError& e) {
      note_error(e.what());
      std::lock_guard lock(mutex_);
      if (e.status() == 410) {
        ++stats_.expired;
        outcome = Outcome::kRelist;
      } else {
        ++stats_.failures;
      }
    } catch (const std::exception& e) {  // unreadable JSON in a LIST answer
      note_error(e.what());
      std::lock_guard lock(mutex_);
      ++stats_.failures;
    }
    if (stopping_) break;
    switch (outcome) {
      case Outcome::kRenew:  // the server closed a healthy stream: renew from where it was
        backoff = options_.initial_backoff;
        break;
      case Outcome::kRelist:  // what we had is too old: re-list soon, but never in a hot loop
        need_list = true;
        back_off(options_.initial_backoff);
        break;
      case Outcome::kBackOff:  // a failure: re-list after a growing pause
        need_list = true;
        back_off(backoff);
        backoff = std::min(options_.max_backoff, backoff * 2);
        break;
    }
  }
}

std::string ResourceWatch::list() {
  const std::string base = collection_path(kind_) + "?limit=" + std::to_string(options_.page_limit);
  std::string cont;
  std::string rv;
  sink_.list_started(kind_);
  do {
    const nlohmann::json page = client_.get_json(
        base + (cont.empty() ? "" : "&continue=" + url_escape(cont)), options_.max_page_bytes);
    const auto items = page.find("items");
    if (items == page.end() || !(items->is_array() || items->is_null())) {
      throw ApiError(200, "", "GET " + base + ": the answer has no items list");
    }
    if (items->is_array()) {
      for (const nlohmann::json& item : *items) {
        if (stopping_) return rv;
        sink_.apply(kind_, WatchEvent::Added, item);
      }
    }
    rv = resource_version_of(page);
    const auto meta = page.find("metadata");
    cont = meta != page.end() && meta->is_object() ? meta->value("continue", "") : "";
  } while (!cont.empty());
  if (rv.empty()) throw ApiError(200, "", "GET " + base + ": the list has no resourceVersion");
  sink_.synced(kind_);
  std::lock_guard lock(mutex_);
  ++stats_.lists;
  return rv;
}

ResourceWatch::Outcome ResourceWatch::watch(std::string& resource_version) {
  const std::string path =
      collection_path(kind_) +
      "?watch=1&allowWatchBookmarks=true&resourceVersion=" + url_escape(resource_version) +
      "&timeoutSeconds=" + std::to_string(options_.timeout_seconds);
  {
    std::lock_guard lock(mutex_);
    ++stats_.watches;
  }
  bool expired = false, unreadable = false;
  const StreamEnd end =
      stream_.run(client_, path, options_.max_line_bytes, [&](std::string_view line) {
        const nlohmann::json ev = nlohmann::json::parse(line, nullptr, false);
        if (!ev.is_object() || !ev.contains("type") || !ev["type"].is_string() ||
            !ev.contains("object") || !ev["object"].is_object()) {
          note_error("watch " + path + ": unreadable event: " + std::string(line.substr(0, 200)));
          unreadable = true;
          return false;
        }
        const std::string& type = ev["type"].get_ref<const std::string&>();
        const nlohmann::json& object = ev["object"];
        if (type == "ERROR") {
          // The API server reports an expired resourceVersion as an ERROR event carrying a
          // Status with code 410 (reason Expired or Gone).
          const int code = object.value("code", 0);
          note_error("watch " + path + ": " + object.value("message", std::string("ERROR event")));
          if (code == 410) {
            expired = true;
          } else {
            unreadable = true;
          }
          return false;
        }
        const std::string rv = resource_version_of(object);
        if (type == "BOOKMARK") {
          if (!rv.empty()) resource_version = rv;
          std::lock_guard lock(mutex_);
          ++stats_.bookmarks;
          return true;
        }
        WatchEvent event;
        if (type == "ADDED") {
          event = WatchEvent::Added;
        } else if (type == "MODIFIED") {
          event = WatchEvent::Modified;
        } else if (type == "DELETED") {
          event = WatchEvent::Deleted;
        } else {
          note_error("watch " + path + ": unknown event type " + type);
          unreadable = true;
          return false;
        }
        if (stopping_) return false;
        sink_.apply(kind_, event, object);
        if (!rv.empty()) resource_version = rv;
        std::lock_guard lock(mutex_);
        ++stats_.events;
        return true;
      });
  std::lock_guard lock(mutex_);
  if (expired) {
    ++stats_.expired;
    return Outcome::kRelist;
  }
  switch (end) {
    case StreamEnd::kFinished:
      return Outcome::kRenew;
    case StreamEnd::kStopped:
      if (unreadable) {
        ++stats_.broken;
        return Outcome::kBackOff;
      }
      return Outcome::kRenew;  // only when stopping: the loop ends
    case StreamEnd::kOversized:
      ++stats_.oversized;
      ++stats_.broken;
      last_error_ = "watch " + path + ": an event line passed " +
                    std::to_string(options_.max_line_bytes) + " bytes";
      return Outcome::kBackOff;
    case StreamEnd::kBroken:
      ++stats_.broken;
      last_error_ = "watch " + path + ": the stream broke";
      return Outcome::kBackOff;
  }
  return Outcome::kBackOff;
}

}  // namespace slicelab::k8s
