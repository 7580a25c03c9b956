// An in-process stand-in for the Kubernetes API server (cpp-httplib on 127.0.0.1): nodes and
// pods in the exact REST shapes, paged LISTs, chunked WATCH streams, Binding posts and merge
// patches, with faults on demand (broken streams, expired versions) and a request log.
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
class Request;
class Response;
}  // namespace httplib

namespace slicelab::testing {

struct RecordedRequest {
  std::string method;
  std::string path;   // decoded path, without the query
  std::string query;  // "k=v&k=v" as the parameters were parsed (sorted by key)
  std::string authorization;
  std::string content_type;
  std::string body;
};

class FakeApiServer {
 public:
  // Listens on an ephemeral port of 127.0.0.1 until destroyed.
  FakeApiServer();
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const;  // "http://127.0.0.1:<port>"

  // Stores an object as the API server would: metadata.uid, resourceVersion and
  // creationTimestamp filled in (a creationTimestamp given is kept, so that a script can set
  // the time), a pod's namespace ("default") and status.phase ("Pending"); an ADDED event for
  // watchers. Returns the stored object (with kind and apiVersion).
  nlohmann::json add_node(nlohmann::json node);
  nlohmann::json add_pod(nlohmann::json pod);
  // Removes a pod or a node (DELETED event); false when there was none.
  bool delete_pod(const std::string& ns, const std::string& name);
  bool delete_node(const std::string& name);
  // Replaces a stored node's or pod's fields by a JSON merge patch (MODIFIED event).
  bool modify_pod(const std::string& ns, const std::string& name, const nlohmann::json& patch);
  nlohmann::json pod(const std::string& ns, const std::string& name) const;  // null if none
  uint64_t resource_version() const;

  // --- faults ---
  // Stops listening (open watches are cut, new connections refused) and listens again on the
  // same port, keeping the store and its event log: an API server restarted over the same etcd.
  // Changes made between stop_listening() and listen_again() are what clients missed.
  void stop_listening();
  void listen_again();
  // Requests without "Authorization: Bearer <token>" get 401 (a Status, as the server sends).
  void require_token(const std::string& token);
  // Cuts every open watch stream mid-response (the connection closes without the last chunk).
  void break_watches();
  // Everything up to the current resourceVersion is compacted: a watch from an older version
  // gets an ERROR event with a 410 Status, a continue token from before it a 410 answer.
  void compact();
  // The next `n` watch requests are answered 410 Gone outright.
  void answer_gone(int n);
  // Every open watch that asked for bookmarks gets one at the current resourceVersion.
  void send_bookmarks();
  // `line` (and a newline) is written to every open watch stream as it is.
  void inject_line(const std::string& line);
  // `text` is served as one more item of every LIST of `kind` ("node" or "pod"), as it is (a
  // hostile item: nested 100,000 levels deep, not an object, not JSON).
  void inject_list_item(const std::string& kind, const std::string& text);
  // LIST answers (not watches, not other requests) trickle: one byte of the body every
  // `interval_ms`, the body never ending while the fault is on (0 turns it off).
  void trickle_lists(int interval_ms);
  // Waits until `n` watch streams are open (or the timeout passes); true when they are.
  bool wait_for_watches(size_t n, int timeout_ms = 5000) const;
  size_t open_watches() const;

  std::vector<RecordedRequest> requests() const;
  // How many recorded requests have this method and a path starting with `prefix`.
  size_t count(const std::string& method, const std::string& prefix) const;

 private:
  enum class Kind { kNode, kPod };
  struct Event {
    Kind kind;
    std::string type;
    nlohmann::json object;
    uint64_t rv;
  };
  struct Stream;

  void install_routes();
  void start_server(int port);  // a new httplib server on `port` (0: any), its thread
  void stop_server();
  // Pods of `ns` ("" for all) matching `selector` (k=v,k2=v2 only; "" for all).
  static bool pod_matches(const nlohmann::json& pod, const std::string& ns,
                          const std::string& selector);
  bool authorized(const httplib::Request& req, httplib::Response& res);
  void record(const httplib::Request& req);
  void handle_collection(Kind kind, const httplib::Request& req, httplib::Response& res,
                         const std::string& ns = "");
  void handle_list(Kind kind, const httplib::Request& req, httplib::Response& res,
                   const std::string& ns);
  void handle_watch(Kind kind, const httplib::Request& req, httplib::Response& res,
                    const std::string& ns);
  // Under mutex_: stamps a new resourceVersion on `object`, logs the event, wakes the streams.
  void emit_locked(Kind kind, const std::string& type, nlohmann::json& object);
  std::map<std::string, nlohmann::json>& store_locked(Kind kind);

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  uint64_t rv_ = 100;  // the API server's versions are opaque; ours start high to look real
  uint64_t uid_ = 0;
  uint64_t compacted_ = 0;
  int gone_answers_ = 0;
  uint64_t break_generation_ = 0;
  uint64_t bookmark_generation_ = 0;
  std::vector<std::string> injected_;  // lines for every open stream; index = injection number
  std::map<std::string, std::vector<std::string>> injected_items_;  // kind -> raw list items
  int trickle_ms_ = 0;
  size_t open_watches_ = 0;
  std::string token_;
  std::map<std::string, nlohmann::json> nodes_, pods_;  // key: name, "namespace/name"
  std::vector<Event> log_;
  std::vector<RecordedRequest> requests_;
};

}  // namespace slicelab::testing
