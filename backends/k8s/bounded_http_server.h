// An HTTP/1.1 server (Boost.Beast on Boost.Asio, TLS through OpenSSL) whose every resource is
// bounded: time, connections, queued work and memory, so that no client can starve, crash or
// exhaust it, and stop() returns promptly whatever the clients do.
//
// Contracts:
// - Reads are asynchronous, on I/O threads that never run a handler that may block. A request's
//   head must arrive within header_timeout of its first byte (of the accept, for a connection's
//   first request), the whole request within request_timeout; a kept-alive connection waits
//   idle_timeout for the next request; an answer is written within write_timeout. Past a
//   deadline the connection is closed.
// - A head over max_header_bytes is answered 431, a body over max_body_bytes 413 (from
//   Content-Length before the body is read; while reading a chunked body), both then closed.
// - At most max_connections connections in all and max_connections_per_client per remote
//   address: one more is closed as soon as it is accepted.
// - Handlers run on `workers` threads with at most queue_limit requests waiting: past it, 503
//   with Retry-After.
// - Request bodies in flight and what handlers charge (RequestContext) share one MemoryBudget of
//   memory_budget_bytes: a body's Content-Length is reserved before it is read (a chunked body's
//   bytes as they come), and a request the budget cannot take is answered 503 with Retry-After.
//   std::bad_alloc in a handler is answered 503; anywhere else it closes that connection. No
//   exception ends the process.
// - Authentication (per listener): a bearer token and/or TLS client certificates; a route that
//   needs it answers 401 before its body is read. A listener with neither may only use a
//   loopback address unless it is marked insecure (InsecureListenError otherwise).
// - stop() stops accepting, closes every connection that is not waiting for its handler, gives
//   running handlers shutdown_grace to finish (their answers are written if they can be), and
//   returns in shutdown_grace plus at most 200 ms.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backends/k8s/bearer_token.h"
#include "backends/k8s/server_tls.h"
#include "workloads/bounded_json.h"

namespace slicelab::k8s {

struct HttpServerLimits {
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds request_timeout{30'000};
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds write_timeout{10'000};
  std::size_t max_header_bytes = std::size_t{16} << 10;
  std::size_t max_body_bytes = std::size_t{32} << 20;
  std::size_t max_connections = 256;
  std::size_t max_connections_per_client = 64;
  int workers = 8;
  std::size_t queue_limit = 64;
  std::size_t memory_budget_bytes = std::size_t{512} << 20;
  std::chrono::milliseconds shutdown_grace{1'000};
  // After a request whose body was at least this large, free heap pages go back to the system
  // (glibc's malloc_trim), so that resident memory falls back after a burst of large bodies.
  std::size_t trim_after_body_bytes = std::size_t{1} << 20;
  int io_threads = 1;
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target without its query
  std::string body;
  std::string peer;   // the client's address
  std::string query;  // the target after its '?', undecoded ("" when none)
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  int retry_after_s = 0;  // a Retry-After header when positive
};

// What a handler may charge its memory to: the server's budget and this request's charge,
// which already holds the body's bytes and is released once the answer is written. Parse with
// parse_bounded_json(body, {.charge = &context.charge()}) and the document counts against the
// same budget as every body in flight.
class RequestContext {
 public:
  RequestContext(MemoryBudget& budget, BudgetCharge& charge) : budget_(budget), charge_(charge) {}
  MemoryBudget& budget() { return budget_; }
  BudgetCharge& charge() { return charge_; }

 private:
  MemoryBudget& budget_;
  BudgetCharge& charge_;
};

using HttpHandler = std::function<HttpResponse(HttpRequest&, RequestContext&)>;

struct HttpRoute {
  enum class Access { kPublic, kAuthenticated };
  // kInline: on the I/O thread, for handlers that take no lock and do no I/O (a liveness probe).
  enum class Dispatch { kInline, kWorker };
  std::string method;
  std::string path;
  Access access = Access::kAuthenticated;
  Dispatch dispatch = Dispatch::kWorker;
  HttpHandler handler;
};

struct ListenerSpec {
  std::string name;  // names the listener in errors and to the observer ("extender", "probes")
  std::string host;  // an IP address or a name that resolves to one
  int port = 0;      // 0: any free port
  std::vector<HttpRoute> routes;
  // HTTPS with this certificate. With a client CA, the handshake requires a client certificate
  // that CA signed, or, when `token` is set too, accepts none and leaves the request to the token.
  std::optional<ServerTlsFiles> tls;
  std::shared_ptr<const BearerToken> token;
  // Allows a non-loopback address without authentication (neither client CA nor token).
  bool insecure = false;
};

// A listener refused because it would serve routes that need authentication, to any address,
// without any.
class InsecureListenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether `spec` may listen on `address` (an IP address, as the host resolved to): "" when it
// may, else why not. A listener with routes that need authentication and neither a client CA nor
// a token may only listen on a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) unless
// it is marked insecure; one whose routes are all public may listen anywhere.
std::string insecure_listen_reason(const ListenerSpec& spec, const std::string& address);

// Called just before each answer is written, also those the server gives itself (401, 404,
// 413, 431, 503), with the listener's name and the request's method and path.
using AnswerObserver = std::function<void(std::string_view listener, std::string_view method,
                                          std::string_view path, int status)>;

struct HttpServerStats {
  uint64_t connections_accepted = 0;
  uint64_t connections_refused = 0;  // over a connection limit
  uint64_t deadlines_missed = 0;     // connections closed by a header, request or write deadline
  uint64_t tls_handshakes_failed = 0;
  uint64_t unauthenticated = 0;  // 401 answers
  uint64_t over_budget = 0;      // 503: the memory budget could not take the request
  uint64_t queue_full = 0;       // 503: no worker and the queue full
  uint64_t out_of_memory = 0;    // std::bad_alloc caught
  uint64_t open_connections = 0;
};

class BoundedHttpServer {
 public:
  explicit BoundedHttpServer(HttpServerLimits limits = {});
  ~BoundedHttpServer();  // stop(); the thread in run() must have returned
  BoundedHttpServer(const BoundedHttpServer&) = delete;
  BoundedHttpServer& operator=(const BoundedHttpServer&) = delete;

  // Binds a listener and returns its port. Throws InsecureListenError (see ListenerSpec), or
  // std::runtime_error when the address cannot be resolved or bound or the TLS files are unusable.
  int add_listener(ListenerSpec spec);
  void set_observer(AnswerObserver observer);  // before run()
  // Serves on the calling thread (and io_threads - 1 more) until stop(); returns at once after it.
  void run();
  void stop();  // any thread, any number of times

  MemoryBudget& memory_budget();
  const HttpServerLimits& limits() const;
  HttpServerStats stats() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace slicelab::k8s
