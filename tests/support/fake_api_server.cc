// FakeApiServer (fake_api_server.h): the routes, the object store, the event log and the watch
// streams that read it.
#include "tests/support/fake_api_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>

namespace slicelab::testing {
namespace {

using nlohmann::json;

json status_object(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

void answer_status(httplib::Response& res, int code, const std::string& reason,
                   const std::string& message) {
  res.status = code;
  res.set_content(status_object(code, reason, message).dump(), "application/json");
}

std::string key_of(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

json without_type(json object) {
  object.erase("kind");
  object.erase("apiVersion");
  return object;
}

}  // namespace

struct FakeApiServer::Stream {
  Kind kind;
  size_t next = 0;  // index into log_ of the next event to look at
  uint64_t break_generation = 0;
  uint64_t bookmark_generation = 0;
  size_t injected = 0;
  bool bookmarks = false;
  std::string pod_namespace, selector;  // pods: the request's namespace and labelSelector
  std::vector<std::string> initial;     // lines written first (synthetic ADDEDs, an ERROR)
  bool end_after_initial = false;
  std::chrono::steady_clock::time_point deadline;
};

FakeApiServer::FakeApiServer() {
  start_server(0);
}

void FakeApiServer::start_server(int port) {
  server_ = std::make_unique<httplib::Server>();
  // Each open watch holds a worker; the default pool (cores - 1) would starve on 2 cores.
  // httplib's API takes ownership of a raw TaskQueue pointer.
  server_->new_task_queue = [] { return std::make_unique<httplib::ThreadPool>(32).release(); };
  server_->set_keep_alive_timeout(1);
  server_->set_tcp_nodelay(true);  // no 40 ms Nagle/delayed-ACK stall per small answer
  install_routes();
  if (port == 0) {
    port_ = server_->bind_to_any_port("127.0.0.1");
  } else {
    // The port was ours a moment ago (httplib sets SO_REUSEADDR); retry a little all the same.
    for (int attempt = 0; attempt < 100 && !server_->bind_to_port("127.0.0.1", port); ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The socket listens from bind on: clients queue in its backlog until the loop accepts.
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

void FakeApiServer::stop_server() {
  if (!server_) return;
  // httplib's stop() does nothing until listen_after_bind() has marked the server running: a
  // caller that came first would then join a loop that never ends. Wait for it (bounded).
  for (int waited_ms = 0; !server_->is_running() && waited_ms < 5000; ++waited_ms)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  stop_server();
}

void FakeApiServer::stop_listening() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;  // open streams end at once
    ++break_generation_;
  }
  changed_.notify_all();
  stop_server();
  std::lock_guard lock(mutex_);
  stopping_ = false;
}

void FakeApiServer::listen_again() {
  if (!server_) start_server(port_);
}

bool FakeApiServer::pod_matches(const json& pod, const std::string& ns,
                                const std::string& selector) {
  const json& meta = pod["metadata"];
  if (!ns.empty() && meta.value("namespace", "") != ns) return false;
  size_t from = 0;
  while (from < selector.size()) {
    size_t comma = selector.find(',', from);
    if (comma == std::string::npos) comma = selector.size();
    const std::string term = selector.substr(from, comma - from);
    const size_t eq = term.find('=');
    const std::string key = term.substr(0, eq);
    const std::string want = eq == std::string::npos ? "" : term.substr(eq + 1);
    const json labels = meta.value("labels", json::object());
    if (!labels.contains(key) || labels[key] != want) return false;
    from = comma + 1;
  }
  return true;
}

std::string FakeApiServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::map<std::string, json>& FakeApiServer::store_locked(Kind kind) {
  return kind == Kind::kNode ? nodes_ : pods_;
}

void FakeApiServer::emit_locked(Kind kind, const std::string& type, json& object) {
  ++rv_;
  object["metadata"]["resourceVersion"] = std::to_string(rv_);
  log_.push_back(Event{kind, type, object, rv_});
  changed_.notify_all();
}

json FakeApiServer::add_node(json node) {
  std::lock_guard lock(mutex_);
  node["kind"] = "Node";
  node["apiVersion"] = "v1";
  json& meta = node["metadata"];
  meta["uid"] = "node-uid-" + std::to_string(++uid_);
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = "2026-01-01T00:00:00Z";
  if (!node.contains("status")) node["status"] = json::object();
  emit_locked(Kind::kNode, "ADDED", node);
  nodes_[meta["name"].get<std::string>()] = node;
  return node;
}

json FakeApiServer::add_pod(json pod) {
  std::lock_guard lock(mutex_);
  pod["kind"] = "Pod";
  pod["apiVersion"] = "v1";
  json& meta = pod["metadata"];
  if (!meta.contains("namespace")) meta["namespace"] = "default";
  meta["uid"] = "pod-uid-" + std::to_string(++uid_);
  if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = "2026-01-01T00:00:00Z";
  if (!pod.contains("status") || !pod["status"].contains("phase")) {
    pod["status"]["phase"] = "Pending";
  }
  emit_locked(Kind::kPod, "ADDED", pod);
  pods_[key_of(meta["namespace"].get<std::string>(), meta["name"].get<std::string>())] = pod;
  return pod;
}

bool FakeApiServer::delete_pod(const std::string& ns, const std::string& name) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(key_of(ns, name));
  if (it == pods_.end()) return false;
  json object = it->second;
  pods_.erase(it);
  emit_locked(Kind::kPod, "DELETED", object);
  return true;
}

bool FakeApiServer::delete_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  const auto it = nodes_.find(name);
  if (it == nodes_.end()) return false;
  json object = it->second;
  nodes_.erase(it);
  emit_locked(Kind::kNode, "DELETED", object);
  return true;
}

bool FakeApiServer::modify_pod(const std::string& ns, const std::string& name, const json& patch) {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(key_of(ns, name));
  if (it == pods_.end()) return false;
  it->second.merge_patch(patch);
  emit_locked(Kind::kPod, "MODIFIED", it->second);
  return true;
}

json FakeApiServer::pod(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto it = pods_.find(key_of(ns, name));
  return it == pods_.end() ? json() : it->second;
}

uint64_t FakeApiServer::resource_version() const {
  std::lock_guard lock(mutex_);
  return rv_;
}

void FakeApiServer::require_token(const std::string& token) {
  std::lock_guard lock(mutex_);
  token_ = token;
}

void FakeApiServer::break_watches() {
  std::lock_guard lock(mutex_);
  ++break_generation_;
  changed_.notify_all();
}

void FakeApiServer::compact() {
  std::lock_guard lock(mutex_);
  compacted_ = rv_;
}

void FakeApiServer::answer_gone(int n) {
  std::lock_guard lock(mutex_);
  gone_answers_ = n;
}

void FakeApiServer::send_bookmarks() {
  std::lock_guard lock(mutex_);
  ++bookmark_generation_;
  changed_.notify_all();
}

void FakeApiServer::inject_list_item(const std::string& kind, const std::string& text) {
  std::lock_guard lock(mutex_);
  injected_items_[kind].push_back(text);
}

void FakeApiServer::trickle_lists(int interval_ms) {
  std::lock_guard lock(mutex_);
  trickle_ms_ = interval_ms;
  changed_.notify_all();
}

void FakeApiServer::inject_line(const std::string& line) {
  std::lock_guard lock(mutex_);
  injected_.push_back(line);
  changed_.notify_all();
}

bool FakeApiServer::wait_for_watches(size_t n, int timeout_ms) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                           [&] { return open_watches_ >= n; });
}

size_t FakeApiServer::open_watches() const {
  std::lock_guard lock(mutex_);
  return open_watches_;
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

size_t FakeApiServer::count(const std::string& method, const std::string& prefix) const {
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(std::count_if(requests_.begin(), requests_.end(), [&](const auto& r) {
    return r.method == method && r.path.rfind(prefix, 0) == 0;
  }));
}

void FakeApiServer::record(const httplib::Request& req) {
  RecordedRequest r;
  r.method = req.method;
  r.path = req.path;
  for (const auto& [k, v] : req.params) r.query += (r.query.empty() ? "" : "&") + k + "=" + v;
  r.authorization = req.get_header_value("Authorization");
  r.content_type = req.get_header_value("Content-Type");
  r.body = req.body;
  std::lock_guard lock(mutex_);
  requests_.push_back(std::move(r));
}

bool FakeApiServer::authorized(const httplib::Request& req, httplib::Response& res) {
  record(req);
  std::string token;
  {
    std::lock_guard lock(mutex_);
    token = token_;
  }
  if (token.empty() || req.get_header_value("Authorization") == "Bearer " + token) return true;
  answer_status(res, 401, "Unauthorized", "Unauthorized");
  return false;
}

void FakeApiServer::handle_collection(Kind kind, const httplib::Request& req,
                                      httplib::Response& res, const std::string& ns) {
  if (!authorized(req, res)) return;
  const std::string watch = req.get_param_value("watch");
  if (watch == "1" || watch == "true") {
    handle_watch(kind, req, res, ns);
  } else {
    handle_list(kind, req, res, ns);
  }
}

void FakeApiServer::handle_list(Kind kind, const httplib::Request& req, httplib::Response& res,
                                const std::string& ns) {
  const std::string selector = req.get_param_value("labelSelector");
  std::unique_lock lock(mutex_);
  const auto& store = store_locked(kind);
  size_t limit = 0;
  if (req.has_param("limit")) limit = std::stoul(req.get_param_value("limit"));
  // Our continue token: "<resourceVersion of the first page>|<last key served>". The real one
  // is opaque base64 of the same two things.
  std::string after;
  uint64_t list_rv = rv_;
  if (const std::string cont = req.get_param_value("continue"); !cont.empty()) {
    const size_t bar = cont.find('|');
    list_rv = std::stoull(cont.substr(0, bar));
    after = cont.substr(bar + 1);
    if (list_rv < compacted_) {
      answer_status(res, 410, "Expired",
                    "The provided continue parameter is too old to display a consistent list "
                    "result. You can start a new list without the continue parameter.");
      return;
    }
  }
  json items = json::array();
  std::string last;
  bool more = false;
  for (auto it = after.empty() ? store.begin() : store.upper_bound(after); it != store.end();
       ++it) {
    if (limit != 0 && items.size() == limit) {
      more = true;
      break;
    }
    if (kind == Kind::kPod && !pod_matches(it->second, ns, selector)) continue;
    items.push_back(without_type(it->second));
    last = it->first;
  }
  json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (more) meta["continue"] = std::to_string(list_rv) + "|" + last;
  // Written by hand so that raw items (inject_list_item) go in as they are, after the stored
  // ones, on the last page.
  std::string body = std::string(R"({"kind":")") + (kind == Kind::kNode ? "NodeList" : "PodList") +
                     R"(","apiVersion":"v1","metadata":)" + meta.dump() + R"(,"items":[)";
  for (size_t i = 0; i < items.size(); ++i) body += (i ? "," : "") + items[i].dump();
  if (const auto raw = injected_items_.find(kind == Kind::kNode ? "node" : "pod");
      raw != injected_items_.end() && !more) {
    for (const std::string& item : raw->second) body += (body.back() == '[' ? "" : ",") + item;
  }
  body += "]}";
  res.status = 200;
  if (trickle_ms_ > 0) {
    // One byte at a time, never finishing while the fault is on: a client must cut it itself.
    auto text = std::make_shared<std::string>(std::move(body));
    lock.unlock();
    res.set_chunked_content_provider("application/json", [this, text](size_t offset,
                                                                      httplib::DataSink& sink) {
      int interval = 0;
      {
        std::unique_lock wait(mutex_);
        if (stopping_) return false;
        interval = trickle_ms_;
        if (interval > 0) {
          changed_.wait_for(wait, std::chrono::milliseconds(interval), [&] { return stopping_; });
          if (stopping_) return false;
        }
      }
      if (interval <= 0) {  // the fault was turned off: the rest at once
        if (offset < text->size() && !sink.write(text->data() + offset, text->size() - offset))
          return false;
        sink.done();
        return true;
      }
      if (offset < text->size()) return sink.write(text->data() + offset, 1);
      return sink.is_writable();  // all sent, but the answer never ends while trickling
    });
    return;
  }
  res.set_content(body, "application/json");
}

void FakeApiServer::handle_watch(Kind kind, const httplib::Request& req, httplib::Response& res,
                                 const std::string& ns) {
  auto st = std::make_shared<Stream>();
  st->kind = kind;
  st->pod_namespace = ns;
  st->selector = req.get_param_value("labelSelector");
  st->bookmarks = req.get_param_value("allowWatchBookmarks") == "true";
  const int timeout_s =
      req.has_param("timeoutSeconds") ? std::stoi(req.get_param_value("timeoutSeconds")) : 1800;
  st->deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  {
    std::lock_guard lock(mutex_);
    if (gone_answers_ > 0) {
      --gone_answers_;
      answer_status(res, 410, "Gone", "too old resource version");
      return;
    }
    const std::string rv_text = req.get_param_value("resourceVersion");
    const uint64_t from = rv_text.empty() ? 0 : std::stoull(rv_text);
    st->break_generation = break_generation_;
    st->bookmark_generation = bookmark_generation_;
    st->injected = injected_.size();
    if (from == 0) {  // "any version": the current state as synthetic ADDED events
      for (const auto& [k, object] : store_locked(kind)) {
        if (kind == Kind::kPod && !pod_matches(object, ns, st->selector)) continue;
        st->initial.push_back(json{{"type", "ADDED"}, {"object", object}}.dump());
      }
      st->next = log_.size();
    } else if (from < compacted_) {
      const json error = status_object(
          410, "Expired",
          "too old resource version: " + rv_text + " (" + std::to_string(compacted_) + ")");
      st->initial.push_back(json{{"type", "ERROR"}, {"object", error}}.dump());
      st->end_after_initial = true;
    } else {
      st->next = static_cast<size_t>(
          std::upper_bound(log_.begin(), log_.end(), from,
                           [](uint64_t v, const Event& e) { return v < e.rv; }) -
          log_.begin());
    }
    ++open_watches_;
    changed_.notify_all();
  }
  res.status = 200;
  res.set_header("Content-Type", "application/json");
  res.set_chunked_content_provider(
      "application/json",
      [this, st](size_t, httplib::DataSink& sink) {
        std::vector<std::string> lines;
        bool cut = false, end = false;
        {
          std::unique_lock lock(mutex_);
          lines.swap(st->initial);
          if (lines.empty()) {
            changed_.wait_for(lock, std::chrono::milliseconds(50), [&] {
              return stopping_ || break_generation_ != st->break_generation ||
                     st->next < log_.size() || st->injected < injected_.size() ||
                     bookmark_generation_ != st->bookmark_generation;
            });
          }
          if (stopping_ || std::chrono::steady_clock::now() >= st->deadline) {
            end = true;
          } else if (break_generation_ != st->break_generation) {
            cut = true;
          } else {
            for (; st->next < log_.size(); ++st->next) {
              const Event& e = log_[st->next];
              if (e.kind == st->kind && (e.kind == Kind::kNode ||
                                         pod_matches(e.object, st->pod_namespace, st->selector))) {
                lines.push_back(json{{"type", e.type}, {"object", e.object}}.dump());
              }
            }
            for (; st->injected < injected_.size(); ++st->injected) {
              lines.push_back(injected_[st->injected]);
            }
            if (bookmark_generation_ != st->bookmark_generation) {
              st->bookmark_generation = bookmark_generation_;
              if (st->bookmarks) {
                const json bookmark = {{"kind", st->kind == Kind::kNode ? "Node" : "Pod"},
                                       {"apiVersion", "v1"},
                                       {"metadata", {{"resourceVersion", std::to_string(rv_)}}}};
                lines.push_back(json{{"type", "BOOKMARK"}, {"object", bookmark}}.dump());
              }
            }
          }
        }
        if (cut) return false;  // closes the connection without the final chunk
        for (std::string& l : lines) {
          l.push_back('\n');
          if (!sink.write(l.data(), l.size())) return false;
        }
        if (end || st->end_after_initial) {
          sink.done();
          return true;
        }
        return sink.is_writable();
      },
      [this](bool) {
        std::lock_guard lock(mutex_);
        --open_watches_;
        changed_.notify_all();
      });
}

void FakeApiServer::install_routes() {
  httplib::Server& s = *server_;
  s.Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
    handle_collection(Kind::kNode, req, res);
  });
  s.Get("/api/v1/pods", [this](const httplib::Request& req, httplib::Response& res) {
    handle_collection(Kind::kPod, req, res);
  });
  s.Get(R"(/api/v1/namespaces/([^/]+)/pods)",
        [this](const httplib::Request& req, httplib::Response& res) {
          handle_collection(Kind::kPod, req, res, req.matches[1].str());
        });
  s.Get(R"(/api/v1/nodes/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    std::lock_guard lock(mutex_);
    const auto it = nodes_.find(req.matches[1].str());
    if (it == nodes_.end()) {
      answer_status(res, 404, "NotFound", "nodes \"" + req.matches[1].str() + "\" not found");
      return;
    }
    res.set_content(it->second.dump(), "application/json");
  });
  s.Get(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))",
        [this](const httplib::Request& req, httplib::Response& res) {
          if (!authorized(req, res)) return;
          const json p = pod(req.matches[1].str(), req.matches[2].str());
          if (p.is_null()) {
            answer_status(res, 404, "NotFound", "pods \"" + req.matches[2].str() + "\" not found");
            return;
          }
          res.set_content(p.dump(), "application/json");
        });
  s.Post(R"(/api/v1/namespaces/([^/]+)/pods)", [this](const httplib::Request& req,
                                                      httplib::Response& res) {
    if (!authorized(req, res)) return;
    json p = json::parse(req.body, nullptr, false);
    if (!p.is_object() || !p.contains("metadata") || !p["metadata"].contains("name")) {
      answer_status(res, 400, "BadRequest", "not a pod");
      return;
    }
    p["metadata"]["namespace"] = req.matches[1].str();
    if (!pod(req.matches[1].str(), p["metadata"]["name"].get<std::string>()).is_null()) {
      answer_status(res, 409, "AlreadyExists",
                    "pods \"" + p["metadata"]["name"].get<std::string>() + "\" already exists");
      return;
    }
    res.status = 201;
    res.set_content(add_pod(std::move(p)).dump(), "application/json");
  });
  s.Delete(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))", [this](const httplib::Request& req,
                                                                httplib::Response& res) {
    if (!authorized(req, res)) return;
    const json p = pod(req.matches[1].str(), req.matches[2].str());
    if (p.is_null() || !delete_pod(req.matches[1].str(), req.matches[2].str())) {
      answer_status(res, 404, "NotFound", "pods \"" + req.matches[2].str() + "\" not found");
      return;
    }
    res.set_content(p.dump(), "application/json");
  });
  s.Patch(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))", [this](const httplib::Request& req,
                                                               httplib::Response& res) {
    if (!authorized(req, res)) return;
    if (req.get_header_value("Content-Type") != "application/merge-patch+json") {
      answer_status(res, 415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - accepted media "
                    "types include: application/json-patch+json, "
                    "application/merge-patch+json, application/apply-patch+yaml");
      return;
    }
    const json patch = json::parse(req.body, nullptr, false);
    if (patch.is_discarded()) {
      answer_status(res, 400, "BadRequest", "the patch is not JSON");
      return;
    }
    // metadata.uid is immutable (apimachinery's ValidateObjectMetaUpdate): a patch that would
    // change it is refused with 422 Invalid, which makes a uid in the patch a precondition.
    const json current = pod(req.matches[1].str(), req.matches[2].str());
    if (!current.is_null() && patch.contains("metadata") && patch["metadata"].is_object() &&
        patch["metadata"].contains("uid") &&
        patch["metadata"]["uid"] != current["metadata"]["uid"]) {
      answer_status(res, 422, "Invalid",
                    "Pod \"" + req.matches[2].str() +
                        "\" is invalid: metadata.uid: Invalid value: " +
                        patch["metadata"]["uid"].dump() + ": field is immutable");
      return;
    }
    // A resourceVersion in the patch is a precondition (optimistic concurrency).
    if (!current.is_null() && patch.contains("metadata") && patch["metadata"].is_object() &&
        patch["metadata"].contains("resourceVersion") &&
        patch["metadata"]["resourceVersion"] != current["metadata"]["resourceVersion"]) {
      answer_status(res, 409, "Conflict",
                    "Operation cannot be fulfilled on pods \"" + req.matches[2].str() +
                        "\": the object has been modified; please apply your changes to the "
                        "latest version and try again");
      return;
    }
    if (!modify_pod(req.matches[1].str(), req.matches[2].str(), patch)) {
      answer_status(res, 404, "NotFound", "pods \"" + req.matches[2].str() + "\" not found");
      return;
    }
    res.set_content(pod(req.matches[1].str(), req.matches[2].str()).dump(), "application/json");
  });
  s.Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)", [this](const httplib::Request& req,
                                                                      httplib::Response& res) {
    if (!authorized(req, res)) return;
    const std::string ns = req.matches[1].str(), name = req.matches[2].str();
    const json b = json::parse(req.body, nullptr, false);
    if (!b.is_object() || b.value("kind", "") != "Binding" || !b.contains("target") ||
        !b["target"].is_object() || !b["target"].contains("name") ||
        !b["target"]["name"].is_string() || b["target"]["name"].get<std::string>().empty()) {
      answer_status(res, 400, "BadRequest", "Binding.target.name: Required value");
      return;
    }
    std::lock_guard lock(mutex_);
    const auto it = pods_.find(key_of(ns, name));
    if (it == pods_.end()) {
      answer_status(res, 404, "NotFound", "pods \"" + name + "\" not found");
      return;
    }
    json& p = it->second;
    const std::string uid = b.contains("metadata") && b["metadata"].contains("uid")
                                ? b["metadata"]["uid"].get<std::string>()
                                : "";
    if (!uid.empty() && uid != p["metadata"]["uid"].get<std::string>()) {
      answer_status(res, 409, "Conflict",
                    "Operation cannot be fulfilled on pods/binding \"" + name +
                        "\": the UID in the precondition (" + uid +
                        ") does not match the UID in record");
      return;
    }
    const std::string bound = p.contains("spec") ? p["spec"].value("nodeName", "") : "";
    if (!bound.empty()) {
      answer_status(res, 409, "Conflict",
                    "Operation cannot be fulfilled on pods/binding \"" + name + "\": pod " + name +
                        " is already assigned to node \"" + bound + "\"");
      return;
    }
    p["spec"]["nodeName"] = b["target"]["name"];
    p["status"]["conditions"] = json::array({{{"type", "PodScheduled"},
                                              {"status", "True"},
                                              {"lastTransitionTime", "2026-01-01T00:00:00Z"}}});
    emit_locked(Kind::kPod, "MODIFIED", p);
    res.status = 201;
    res.set_content(json{{"kind", "Status"},
                         {"apiVersion", "v1"},
                         {"metadata", json::object()},
                         {"status", "Success"},
                         {"code", 201}}
                        .dump(),
                    "application/json");
  });
}

}  // namespace slicelab::testing
