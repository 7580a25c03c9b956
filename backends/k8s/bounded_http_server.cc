#include "backends/k8s/bounded_http_server.h"

#include <fmt/format.h>
#include <malloc.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "backends/k8s/bounded_worker_pool.h"

namespace slicelab::k8s {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// A body up to this size may use the whole budget; larger ones share all of it but this, so that
// clients declaring large bodies (and sending them slowly) cannot keep small requests out.
constexpr std::size_t kSmallBodyBytes = std::size_t{64} << 10;
constexpr std::size_t kSmallRequestsShareDivisor = 8;  // 1/8 of the budget kept for small ones
// After an answer that closes the connection, what the client still sends is read and dropped
// for this long (at most kLingerBytes), so that it reads the answer rather than a reset.
constexpr std::chrono::milliseconds kLinger{500};
constexpr std::size_t kLingerBytes = std::size_t{4} << 20;
// How long stop() waits, after the handlers, for their answers to be written.
constexpr std::chrono::milliseconds kFlushAfterStop{200};

bool is_loopback(const net::ip::address& a) {
  if (a.is_v4()) return a.to_v4().is_loopback();
  const net::ip::address_v6 v6 = a.to_v6();
  if (v6.is_v4_mapped()) return net::ip::make_address_v4(net::ip::v4_mapped, v6).is_loopback();
  return v6.is_loopback();
}

std::string error_body(std::string_view message) {
  return nlohmann::json{{"Error", "slicelab: " + std::string(message)}}.dump();
}

std::string_view view(beast::string_view s) {
  return {s.data(), s.size()};
}

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == make_error_code(http::error::bad_target).category();
}

struct AtomicStats {
  std::atomic<uint64_t> accepted{0}, refused{0}, deadlines{0}, handshakes{0}, unauthenticated{0},
      over_budget{0}, queue_full{0}, out_of_memory{0};
};

// Open connections, in all and per remote address.
class ConnectionTable {
 public:
  ConnectionTable(std::size_t total, std::size_t per_client)
      : max_total_(total), max_per_client_(per_client) {}
  bool try_admit(const net::ip::address& a) {
    std::lock_guard lock(mu_);
    if (total_ >= max_total_) return false;
    std::size_t& n = per_client_[a];
    if (n >= max_per_client_) {
      if (n == 0) per_client_.erase(a);
      return false;
    }
    ++n;
    ++total_;
    return true;
  }
  void release(const net::ip::address& a) {
    std::lock_guard lock(mu_);
    --total_;
    const auto it = per_client_.find(a);
    if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
  }
  std::size_t open() const {
    std::lock_guard lock(mu_);
    return total_;
  }

 private:
  const std::size_t max_total_, max_per_client_;
  mutable std::mutex mu_;
  std::size_t total_ = 0;
  std::map<net::ip::address, std::size_t> per_client_;
};

// One admitted connection's place in the table, given back when the connection ends.
class ConnectionTicket {
 public:
  ConnectionTicket(ConnectionTable& table, net::ip::address address)
      : table_(&table), address_(std::move(address)) {}
  ConnectionTicket(ConnectionTicket&& o) noexcept
      : table_(std::exchange(o.table_, nullptr)), address_(o.address_) {}
  ConnectionTicket& operator=(ConnectionTicket&&) = delete;
  ConnectionTicket(const ConnectionTicket&) = delete;
  ConnectionTicket& operator=(const ConnectionTicket&) = delete;
  ~ConnectionTicket() {
    if (table_ != nullptr) table_->release(address_);
  }
  const net::ip::address& address() const { return address_; }

 private:
  ConnectionTable* table_;
  net::ip::address address_;
};

struct Listener {
  Listener(net::io_context& ioc, ListenerSpec s) : spec(std::move(s)), acceptor(ioc), retry(ioc) {}
  ListenerSpec spec;
  std::shared_ptr<ssl::context> tls;
  bool authenticates = false;  // a client CA or a token: kAuthenticated routes check them
  tcp::acceptor acceptor;
  net::steady_timer retry;  // after an accept error (out of descriptors): try again shortly

  const HttpRoute* find(std::string_view method, std::string_view path, bool& path_known) const {
    path_known = false;
    for (const HttpRoute& r : spec.routes) {
      if (r.path != path) continue;
      path_known = true;
      if (r.method == method) return &r;
    }
    return nullptr;
  }
};

class SessionBase : public std::enable_shared_from_this<SessionBase> {
 public:
  SessionBase() = default;
  SessionBase(const SessionBase&) = delete;
  SessionBase& operator=(const SessionBase&) = delete;
  virtual ~SessionBase() = default;
  virtual void launch() = 0;
  // stop(): close now unless a handler runs for it (then after its answer).
  virtual void post_close_if_idle() = 0;
};

}  // namespace

class BoundedHttpServer::Impl {
 public:
  explicit Impl(HttpServerLimits l)
      : limits(l),
        budget(l.memory_budget_bytes),
        large_bodies(l.memory_budget_bytes - l.memory_budget_bytes / kSmallRequestsShareDivisor),
        table(l.max_connections, l.max_connections_per_client),
        ioc(std::max(1, l.io_threads)),
        guard(net::make_work_guard(ioc)),
        pool(l.workers, l.queue_limit) {}

  int add_listener(ListenerSpec spec);
  void accept(Listener& l);
  void on_accept(Listener& l, const beast::error_code& ec, tcp::socket socket);
  void run();
  void run_io();
  void stop();
  bool register_session(const std::weak_ptr<SessionBase>& s, uint64_t& id) {
    std::lock_guard lock(sessions_mu);
    if (stopping) return false;
    id = ++last_session;
    sessions.emplace(id, s);
    return true;
  }
  void unregister_session(uint64_t id) {
    std::lock_guard lock(sessions_mu);
    sessions.erase(id);
  }
  std::size_t live_sessions() {
    std::lock_guard lock(sessions_mu);
    return sessions.size();
  }

  const HttpServerLimits limits;
  MemoryBudget budget;
  MemoryBudget large_bodies;  // what bodies over kSmallBodyBytes may take of `budget`
  ConnectionTable table;
  AtomicStats stats;
  AnswerObserver observer;
  std::atomic<bool> stopping{false};

 private:
  std::mutex sessions_mu;
  std::unordered_map<uint64_t, std::weak_ptr<SessionBase>> sessions;
  uint64_t last_session = 0;
  std::mutex run_mu;
  std::condition_variable run_cv;
  bool running = false;

 public:
  // Destroyed in reverse: the workers first (a task may post to the io_context), then the
  // listeners, then the io_context with the sessions its pending handlers hold.
  net::io_context ioc;
  net::executor_work_guard<net::io_context::executor_type> guard;
  std::vector<std::unique_ptr<Listener>> listeners;
  BoundedWorkerPool pool;
};

namespace {

// One connection: reads requests one after the other (no pipelining), each under its deadlines,
// hands each to its route's handler and writes the answer. Runs on its strand; a handler on a
// worker posts its answer back to it.
template <class Stream>
class Session final : public SessionBase {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;
  using Server = BoundedHttpServer::Impl;

  template <class... TlsContext>
  Session(Server& server, Listener& listener, tcp::socket socket, ConnectionTicket ticket,
          TlsContext&... tls)
      : server_(server),
        listener_(listener),
        stream_(std::move(socket), tls...),
        ticket_(std::move(ticket)),
        peer_(ticket_.address().to_string()),
        buffer_(server.limits.max_header_bytes + (std::size_t{64} << 10)) {}
  ~Session() override {
    if (id_ != 0) server_.unregister_session(id_);
  }

  void launch() override {
    net::dispatch(stream_.get_executor(), [self = shared()] { self->start(); });
  }
  void post_close_if_idle() override {
    net::post(stream_.get_executor(), [self = shared()] {
      if (!self->busy_) self->end();
    });
  }

 private:
  std::shared_ptr<Session> shared() {
    return std::static_pointer_cast<Session>(shared_from_this());
  }
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }
  const HttpServerLimits& limits() const { return server_.limits; }

  void start() {
    if (!server_.register_session(weak_from_this(), id_)) return end();
    started_ = Clock::now();
    if constexpr (!kTls) {
      beast::error_code ignored;  // see write_from_worker
      lowest().socket().non_blocking(true, ignored);
    }
    if constexpr (kTls) {
      lowest().expires_at(started_ + limits().header_timeout);
      stream_.async_handshake(
          ssl::stream_base::server,
          [self = shared()](const beast::error_code& ec) { self->on_handshake(ec); });
    } else {
      read_head();
    }
  }

  void on_handshake(const beast::error_code& ec) {
    if (ec) {
      ++server_.stats.handshakes;
      if (ec == beast::error::timeout) ++server_.stats.deadlines;
      return end();
    }
    if constexpr (kTls) {
      SSL* ssl = stream_.native_handle();
      client_verified_ =
          SSL_get0_peer_certificate(ssl) != nullptr && SSL_get_verify_result(ssl) == X509_V_OK;
    }
    read_head();
  }

  // A kept-alive connection waits up to idle_timeout for the next request's first byte; the
  // request's own deadlines run from there.
  void next_request() {
    if (server_.stopping) return end();
    if (buffer_.size() > 0) {
      started_ = Clock::now();
      return read_head();
    }
    lowest().expires_after(limits().idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared()](const beast::error_code& ec, std::size_t n) {
                              self->on_first_bytes(ec, n);
                            });
  }

  void on_first_bytes(const beast::error_code& ec, std::size_t n) {
    if (ec) return end();  // closed, or idle too long
    buffer_.commit(n);
    started_ = Clock::now();
    read_head();
  }

  void read_head() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(limits().max_header_bytes));
    parser_->body_limit(static_cast<std::uint64_t>(limits().max_body_bytes));
    lowest().expires_at(started_ + std::min(limits().header_timeout, limits().request_timeout));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared()](const beast::error_code& ec, std::size_t) { self->on_head(ec); });
  }

  void on_head(const beast::error_code& ec) {
    // The start line is read before any limit applies to the fields: what the answer is counted as.
    const auto& head = parser_->get();
    method_.assign(view(head.method_string()));
    const std::string_view target = view(head.target());
    const size_t question = target.find('?');
    path_.assign(target.substr(0, question));
    query_.assign(question == std::string_view::npos ? std::string_view()
                                                     : target.substr(question + 1));
    if (ec == http::error::header_limit) {
      return answer_and_close(
          {431, "application/json",
           error_body(fmt::format("request head over {} bytes", limits().max_header_bytes))});
    }
    if (ec == http::error::body_limit) return refuse_too_large();
    if (ec) return failed_read(ec);

    bool path_known = false;
    route_ = listener_.find(method_, path_, path_known);
    if (route_ == nullptr) {
      const int status = path_known ? 405 : 404;
      return answer_early({status, "application/json",
                           error_body(path_known ? "method not allowed" : "no such path")});
    }
    if (route_->access == HttpRoute::Access::kAuthenticated && listener_.authenticates &&
        !authenticated()) {
      ++server_.stats.unauthenticated;
      return answer_and_close({401, "application/json",
                               error_body("unauthenticated: a bearer token or a client "
                                          "certificate is required")});
    }
    const auto length = parser_->content_length();
    charge_.emplace(server_.budget);
    if (length && *length > 0 && !reserve(static_cast<std::size_t>(*length))) {
      return refuse_over_budget();
    }
    if (!parser_->is_done() && beast::iequals(head[http::field::expect], "100-continue")) {
      auto go_on = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      return http::async_write(stream_, *go_on,
                               [self = shared(), go_on](const beast::error_code& e, std::size_t) {
                                 if (e) return self->end();
                                 self->read_body();
                               });
    }
    read_body();
  }

  bool authenticated() const {
    if (client_verified_) return true;
    if (!listener_.spec.token) return false;
    const auto& head = parser_->get();
    const auto it = head.find(http::field::authorization);
    return it != head.end() && listener_.spec.token->matches(view(it->value()));
  }

  // Takes `bytes` more of the budget for this request's body (and of the large bodies' share,
  // past kSmallBodyBytes).
  bool reserve(std::size_t bytes) {
    const std::size_t before = body_reserved_;
    const std::size_t after = before + bytes;
    if (after > kSmallBodyBytes) {
      if (!large_charge_) large_charge_.emplace(server_.large_bodies);
      if (!large_charge_->try_add(after - std::max(before, kSmallBodyBytes))) return false;
    }
    if (!charge_->try_add(bytes)) return false;
    body_reserved_ = after;
    return true;
  }

  void read_body() {
    if (parser_->is_done()) return dispatch();
    lowest().expires_at(started_ + limits().request_timeout);
    if (parser_->chunked()) {
      http::async_read_some(
          stream_, buffer_, *parser_,
          [self = shared()](const beast::error_code& ec, std::size_t) { self->on_body_part(ec); });
    } else {
      http::async_read(
          stream_, buffer_, *parser_,
          [self = shared()](const beast::error_code& ec, std::size_t) { self->on_body(ec); });
    }
  }

  // A chunked body: its bytes are charged as they come.
  void on_body_part(const beast::error_code& ec) {
    if (ec) return on_body(ec);
    const std::size_t held = parser_->get().body().capacity();
    if (held > body_reserved_ && !reserve(held - body_reserved_)) return refuse_over_budget();
    if (parser_->is_done()) return dispatch();
    read_body();
  }

  void on_body(const beast::error_code& ec) {
    if (ec == http::error::body_limit) return refuse_too_large();
    if (ec) return failed_read(ec);
    dispatch();
  }

  void failed_read(const beast::error_code& ec) {
    if (ec == beast::error::timeout) {
      ++server_.stats.deadlines;
      return end();
    }
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        !is_http_error(ec)) {
      return end();  // the client went away
    }
    answer_and_close({400, "application/json", error_body("bad request: " + ec.message())});
  }

  void refuse_too_large() {
    answer_and_close(
        {413, "application/json",
         error_body(fmt::format("request body over {} bytes", limits().max_body_bytes))});
  }

  void refuse_over_budget() {
    ++server_.stats.over_budget;
    answer_and_close({503, "application/json",
                      error_body("the server's memory budget for requests is spent; retry"), 1});
  }

  void dispatch() {
    busy_ = true;
    keep_alive_ = parser_->keep_alive();
    HttpRequest request{method_, path_, std::move(parser_->get().body()), peer_, query_};
    parser_.reset();
    if (route_->dispatch == HttpRoute::Dispatch::kInline) {
      HttpResponse r = invoke(*route_, request);
      return respond(std::move(r));
    }
    std::function<void()> task = [self = shared(), route = route_,
                                  req = std::move(request)]() mutable {
      HttpResponse r = self->invoke(*route, req);
      const std::size_t body_bytes = req.body.size();
      std::string().swap(req.body);  // the body goes before the answer is written
      if (body_bytes >= self->limits().trim_after_body_bytes) malloc_trim(0);
      if constexpr (!kTls) {
        if (self->write_from_worker(r)) return;
      }
      net::post(self->stream_.get_executor(),
                [self, r = std::move(r)]() mutable { self->respond(std::move(r)); });
    };
    if (!server_.pool.try_submit(task)) {
      ++server_.stats.queue_full;
      respond({503, "application/json", error_body("every worker is busy; retry"), 1});
    }
  }

  // Runs on a worker (or inline): nothing a handler throws leaves it.
  HttpResponse invoke(const HttpRoute& route, HttpRequest& request) {
    RequestContext context(server_.budget, *charge_);
    try {
      return route.handler(request, context);
    } catch (const std::bad_alloc&) {
      ++server_.stats.out_of_memory;
      return {503, "application/json", R"({"Error":"slicelab: out of memory for this request"})",
              1};
    } catch (const std::exception& e) {
      return {500, "application/json", error_body(e.what())};
    } catch (...) {
      return {500, "application/json", error_body("internal error")};
    }
  }

  // An answer before the body was read: the connection closes after it unless there is no body.
  void answer_early(HttpResponse r) {
    if (!parser_->is_done()) close_after_ = true;
    busy_ = true;
    respond(std::move(r));
  }
  void answer_and_close(HttpResponse r) {
    close_after_ = true;
    busy_ = true;
    respond(std::move(r));
  }

  void respond(HttpResponse r) {
    response_ = {};
    response_.version(11);
    response_.result(static_cast<unsigned>(r.status));
    response_.set(http::field::content_type, r.content_type);
    if (r.retry_after_s > 0)
      response_.set(http::field::retry_after, std::to_string(r.retry_after_s));
    if (r.status == 401) response_.set(http::field::www_authenticate, "Bearer");
    response_.keep_alive(keep_alive_ && !close_after_ && !server_.stopping);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
    if (server_.observer) server_.observer(listener_.spec.name, method_, path_, r.status);
    lowest().expires_after(limits().write_timeout);
    http::async_write(
        stream_, response_,
        [self = shared()](const beast::error_code& ec, std::size_t) { self->on_write(ec); });
  }

  // Plain HTTP: the worker writes the answer itself when the socket takes it, sparing the client
  // a hand-off back to the I/O thread (which then only starts reading the next request). Safe
  // because no operation of the I/O thread touches the socket while a request is answered (the
  // socket is in non-blocking mode: this never waits). False when nothing could be written.
  bool write_from_worker(HttpResponse& r) {
    const bool keep = keep_alive_ && !close_after_ && !server_.stopping;
    std::string head = head_of(r, keep);
    if (server_.observer) server_.observer(listener_.spec.name, method_, path_, r.status);
    const std::array<net::const_buffer, 2> parts{net::buffer(head), net::buffer(r.body)};
    beast::buffers_suffix<std::array<net::const_buffer, 2>> rest(parts);
    beast::error_code ec;
    std::size_t written = 0;
    while (beast::buffer_bytes(rest) > 0) {
      const std::size_t n = lowest().socket().write_some(rest, ec);
      if (ec) break;
      rest.consume(n);
      written += n;
    }
    if (written == 0 && ec == net::error::would_block) return false;
    auto self = shared();
    if (ec == net::error::would_block) {  // a large answer, a slow reader: the rest asynchronously
      auto left = std::make_shared<std::string>(beast::buffers_to_string(rest));
      net::post(stream_.get_executor(), [self, left, keep] {
        self->lowest().expires_after(self->limits().write_timeout);
        net::async_write(self->lowest(), net::buffer(*left),
                         [self, left, keep](const beast::error_code& e, std::size_t) {
                           self->finish_answer(e, keep);
                         });
      });
      return true;
    }
    net::post(stream_.get_executor(), [self, ec, keep] { self->finish_answer(ec, keep); });
    return true;
  }

  static std::string head_of(const HttpResponse& r, bool keep) {
    std::string h = "HTTP/1.1 ";
    h += std::to_string(r.status);
    h += ' ';
    h += view(http::obsolete_reason(http::int_to_status(static_cast<unsigned>(r.status))));
    h += "\r\nContent-Type: ";
    h += r.content_type;
    h += "\r\nContent-Length: ";
    h += std::to_string(r.body.size());
    if (r.retry_after_s > 0) h += "\r\nRetry-After: " + std::to_string(r.retry_after_s);
    if (r.status == 401) h += "\r\nWWW-Authenticate: Bearer";
    if (!keep) h += "\r\nConnection: close";
    h += "\r\n\r\n";
    return h;
  }

  void on_write(const beast::error_code& ec) {
    const bool keep = response_.keep_alive();
    response_ = {};
    finish_answer(ec, keep);
  }

  // The answer is written (or failed): the connection closes or waits for the next request.
  void finish_answer(const beast::error_code& ec, bool keep) {
    busy_ = false;
    charge_.reset();
    large_charge_.reset();
    body_reserved_ = 0;
    if (ec) {
      if (ec == beast::error::timeout) ++server_.stats.deadlines;
      return end();
    }
    if (!keep) return close_gracefully();
    keep_alive_ = true;
    next_request();
  }

  void close_gracefully() {
    lowest().expires_after(kLinger);
    if constexpr (kTls) {
      stream_.async_shutdown([self = shared()](const beast::error_code&) { self->end(); });
    } else {
      beast::error_code ignored;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      linger();
    }
  }

  void linger() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(std::size_t{64} << 10),
                            [self = shared()](const beast::error_code& ec, std::size_t n) {
                              self->lingered_ += n;
                              if (ec || self->lingered_ > kLingerBytes) return self->end();
                              self->linger();
                            });
  }

  void end() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().socket().close(ignored);
  }

  Server& server_;
  Listener& listener_;
  Stream stream_;
  ConnectionTicket ticket_;
  const std::string peer_;
  uint64_t id_ = 0;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::optional<BudgetCharge> charge_, large_charge_;
  std::size_t body_reserved_ = 0, lingered_ = 0;
  const HttpRoute* route_ = nullptr;
  std::string method_, path_, query_;
  Clock::time_point started_;  // the accept, or the request's first byte
  bool client_verified_ = false;
  bool busy_ = false;  // a request is being answered (its handler runs, or its answer is written)
  bool keep_alive_ = true, close_after_ = false;
};

}  // namespace

std::string insecure_listen_reason(const ListenerSpec& spec, const std::string& address) {
  const bool client_ca = spec.tls && !spec.tls->client_ca_file.empty();
  const bool private_routes =
      std::any_of(spec.routes.begin(), spec.routes.end(),
                  [](const HttpRoute& r) { return r.access == HttpRoute::Access::kAuthenticated; });
  if (!private_routes || client_ca || spec.token || spec.insecure) return "";
  beast::error_code ec;
  const net::ip::address a = net::ip::make_address(address, ec);
  if (!ec && is_loopback(a)) return "";
  return fmt::format(
      "{}: {} is not a loopback address, and neither a client CA nor a bearer token "
      "authenticates the clients that reach it",
      spec.name, address);
}

int BoundedHttpServer::Impl::add_listener(ListenerSpec spec) {
  auto l = std::make_unique<Listener>(ioc, std::move(spec));
  const ListenerSpec& s = l->spec;
  const bool client_ca = s.tls && !s.tls->client_ca_file.empty();
  l->authenticates = client_ca || s.token != nullptr;
  if (s.tls) {
    l->tls = make_server_tls_context(
        *s.tls, s.token ? ClientCertificates::kOptional : ClientCertificates::kRequired);
  }
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  const auto found = resolver.resolve(s.host, std::to_string(s.port), ec);
  if (ec || found.empty()) {
    throw std::runtime_error(fmt::format("{}: cannot resolve the address {}: {}", s.name, s.host,
                                         ec ? ec.message() : "no address"));
  }
  const tcp::endpoint endpoint = found.begin()->endpoint();
  const std::string refused = insecure_listen_reason(s, endpoint.address().to_string());
  if (!refused.empty()) throw InsecureListenError(refused);
  l->acceptor.open(endpoint.protocol(), ec);
  if (!ec) l->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) l->acceptor.bind(endpoint, ec);
  if (!ec) l->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error(
        fmt::format("{}: cannot listen on {}:{}: {}", s.name, s.host, s.port, ec.message()));
  }
  const int port = l->acceptor.local_endpoint().port();
  listeners.push_back(std::move(l));
  accept(*listeners.back());
  return port;
}

void BoundedHttpServer::Impl::accept(Listener& l) {
  l.acceptor.async_accept(net::make_strand(ioc),
                          [this, &l](const beast::error_code& ec, tcp::socket socket) {
                            on_accept(l, ec, std::move(socket));
                          });
}

void BoundedHttpServer::Impl::on_accept(Listener& l, const beast::error_code& ec,
                                        tcp::socket socket) {
  if (stopping || ec == net::error::operation_aborted) return;
  if (ec) {
    // Out of descriptors or buffers: try again shortly rather than spin on the error.
    l.retry.expires_after(std::chrono::milliseconds(50));
    l.retry.async_wait([this, &l](const beast::error_code& e) {
      if (!e && !stopping) accept(l);
    });
    return;
  }
  beast::error_code e;
  const tcp::endpoint remote = socket.remote_endpoint(e);
  if (!e && table.try_admit(remote.address())) {
    ConnectionTicket ticket(table, remote.address());
    ++stats.accepted;
    socket.set_option(tcp::no_delay(true), e);
    try {
      std::shared_ptr<SessionBase> session;
      if (l.tls) {
        session = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
            *this, l, std::move(socket), std::move(ticket), *l.tls);
      } else {
        session = std::make_shared<Session<beast::tcp_stream>>(*this, l, std::move(socket),
                                                               std::move(ticket));
      }
      session->launch();
    } catch (const std::bad_alloc&) {
      ++stats.out_of_memory;  // the socket (or the session) closes as it goes
    }
  } else {
    ++stats.refused;
    socket.close(e);
  }
  accept(l);
}

void BoundedHttpServer::Impl::run_io() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::bad_alloc&) {
      // A handler's allocation failed: its connection is gone, the others go on.
      ++stats.out_of_memory;
    } catch (...) {  // NOLINT(bugprone-empty-catch): any other failure of one connection
    }
  }
}

void BoundedHttpServer::Impl::run() {
  {
    std::lock_guard lock(run_mu);
    if (stopping) return;
    running = true;
  }
  std::vector<std::thread> more;
  for (int i = 1; i < limits.io_threads; ++i) more.emplace_back([this] { run_io(); });
  run_io();
  for (std::thread& t : more) t.join();
  {
    std::lock_guard lock(run_mu);
    running = false;
  }
  run_cv.notify_all();
}

void BoundedHttpServer::Impl::stop() {
  if (stopping.exchange(true)) {
    std::unique_lock lock(run_mu);
    run_cv.wait_for(lock, limits.shutdown_grace + std::chrono::seconds(1),
                    [this] { return !running; });
    return;
  }
  net::post(ioc, [this] {
    for (const auto& l : listeners) {
      beast::error_code ignored;
      l->acceptor.close(ignored);
      l->retry.cancel();
    }
  });
  std::vector<std::shared_ptr<SessionBase>> live;
  {
    std::lock_guard lock(sessions_mu);
    for (const auto& [id, weak] : sessions) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (const auto& s : live) s->post_close_if_idle();
  live.clear();
  pool.stop(limits.shutdown_grace);
  // The handlers that finished have posted their answers: give them a moment to be written.
  const auto flush_until = Clock::now() + kFlushAfterStop;
  while (live_sessions() > 0 && Clock::now() < flush_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ioc.stop();
  std::unique_lock lock(run_mu);
  run_cv.wait_for(lock, std::chrono::seconds(1), [this] { return !running; });
}

BoundedHttpServer::BoundedHttpServer(HttpServerLimits limits)
    : impl_(std::make_unique<Impl>(limits)) {}

BoundedHttpServer::~BoundedHttpServer() {
  impl_->stop();
}

int BoundedHttpServer::add_listener(ListenerSpec spec) {
  return impl_->add_listener(std::move(spec));
}

void BoundedHttpServer::set_observer(AnswerObserver observer) {
  impl_->observer = std::move(observer);
}

void BoundedHttpServer::run() {
  impl_->run();
}

void BoundedHttpServer::stop() {
  impl_->stop();
}

MemoryBudget& BoundedHttpServer::memory_budget() {
  return impl_->budget;
}

const HttpServerLimits& BoundedHttpServer::limits() const {
  return impl_->limits;
}

HttpServerStats BoundedHttpServer::stats() const {
  const AtomicStats& s = impl_->stats;
  HttpServerStats out;
  out.connections_accepted = s.accepted;
  out.connections_refused = s.refused;
  out.deadlines_missed = s.deadlines;
  out.tls_handshakes_failed = s.handshakes;
  out.unauthenticated = s.unauthenticated;
  out.over_budget = s.over_budget;
  out.queue_full = s.queue_full;
  out.out_of_memory = s.out_of_memory;
  out.open_connections = impl_->table.open();
  return out;
}

}  // namespace slicelab::k8s
