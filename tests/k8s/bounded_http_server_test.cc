// The bounded HTTP server on real loopback sockets: each limit (body size, header size, memory
// budget, worker queue, header and whole-request deadlines, keep-alive idle time, connections per
// client and in all) met by a client that passes it, answered as documented, the server still
// serving afterwards; authentication by bearer token and by TLS client certificates; the refusal
// to listen beyond loopback without either; stop() within a second whatever the clients do.
#include <gtest/gtest.h>
#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>

#include "backends/k8s/bounded_http_server.h"
#include "tests/support/raw_tcp_client.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_certificates.h"

namespace slicelab::k8s {
namespace {

using namespace std::chrono_literals;
using slicelab::testing::http_request;
using slicelab::testing::http_status;
using slicelab::testing::RawConnection;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A gate handlers wait at until the test opens it.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mu_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
  }
  void open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool wait_for_waiters(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

// A server with the routes the tests use, on 127.0.0.1, served by a thread.
class Served {
 public:
  explicit Served(HttpServerLimits limits, ListenerSpec spec = {}) : server_(limits) {
    slicelab::testing::ignore_sigpipe();
    if (spec.name.empty()) spec.name = "test";
    spec.host = spec.host.empty() ? "127.0.0.1" : spec.host;
    if (spec.routes.empty()) spec.routes = routes();
    port_ = server_.add_listener(std::move(spec));
    thread_ = std::thread([this] { server_.run(); });
  }
  ~Served() {
    gate_.open();
    server_.stop();
    thread_.join();
  }
  std::vector<HttpRoute> routes() {
    const auto echo = [this](HttpRequest& r, RequestContext& c) {
      ++handled_;
      charged_at_handler_ = c.charge().bytes();
      return HttpResponse{200, "text/plain", std::to_string(r.body.size())};
    };
    return {
        {"POST", "/echo", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker, echo},
        {"GET", "/private", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker, echo},
        {"GET", "/public", HttpRoute::Access::kPublic, HttpRoute::Dispatch::kInline, echo},
        {"GET", "/wait", HttpRoute::Access::kPublic, HttpRoute::Dispatch::kWorker,
         [this](HttpRequest&, RequestContext&) {
           gate_.wait();
           return HttpResponse{200, "text/plain", "waited"};
         }},
        {"GET", "/oom", HttpRoute::Access::kPublic, HttpRoute::Dispatch::kWorker,
         [](HttpRequest&, RequestContext&) -> HttpResponse { throw std::bad_alloc(); }},
    };
  }
  int port() const { return port_; }
  BoundedHttpServer& server() { return server_; }
  Gate& gate() { return gate_; }
  int handled() const { return handled_; }
  std::size_t charged_at_handler() const { return charged_at_handler_; }
  // One request on a fresh connection: the status, or 0 when the connection closed first.
  int request(const std::string& raw, const char* source = "127.0.0.1") {
    RawConnection c(port_, source);
    if (!c.ok() || !c.send(raw)) return 0;
    return http_status(c.read(5s, "\r\n\r\n"));
  }

 private:
  // What the handlers use, declared before (destroyed after) the server that runs them.
  Gate gate_;
  std::atomic<int> handled_{0};
  std::atomic<std::size_t> charged_at_handler_{0};
  BoundedHttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

HttpServerLimits small_limits() {
  HttpServerLimits l;
  l.max_body_bytes = 1 << 20;
  l.header_timeout = 2s;
  l.request_timeout = 4s;
  l.idle_timeout = 4s;
  return l;
}

TEST(BoundedHttpServer, AnswersAndKeepsTheConnectionAlive) {
  Served s(small_limits());
  RawConnection c(s.port());
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.send(http_request("POST", "/echo", "hello")));
    const std::string answer = c.read(5s, "\r\n\r\n5");
    EXPECT_EQ(http_status(answer), 200) << answer;
  }
  EXPECT_FALSE(c.closed());
  EXPECT_EQ(s.handled(), 3);
  // The handler saw the body's bytes reserved in its charge.
  EXPECT_EQ(s.charged_at_handler(), 5U);
  EXPECT_EQ(s.request(http_request("GET", "/nowhere")), 404);
  EXPECT_EQ(s.request(http_request("DELETE", "/echo")), 405);
}

TEST(BoundedHttpServer, BodyOverTheLimitIs413BeforeItIsRead) {
  Served s(small_limits());
  RawConnection c(s.port());
  // Only the head: the answer comes from Content-Length alone.
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n"));
  const std::string answer = c.read(3s, "\r\n\r\n");
  EXPECT_EQ(http_status(answer), 413) << answer;
  EXPECT_TRUE(c.closed_within(2s));
  EXPECT_EQ(s.handled(), 0);
  EXPECT_EQ(s.request(http_request("GET", "/public")), 200);
}

TEST(BoundedHttpServer, ChunkedBodyOverTheLimitIs413WhileItIsRead) {
  Served s(small_limits());
  RawConnection c(s.port());
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk(64 << 10, 'x');
  std::string answer;
  for (int i = 0; i < 40 && answer.empty(); ++i) {
    if (!c.send("10000\r\n" + chunk + "\r\n")) break;
    answer = c.read(20ms, "\r\n\r\n");
  }
  answer += c.read(3s, "\r\n\r\n");
  EXPECT_EQ(http_status(answer), 413) << answer.substr(0, 200);
  EXPECT_EQ(s.handled(), 0);
  // A chunked body under the limit is read and handled.
  RawConnection ok(s.port());
  ASSERT_TRUE(
      ok.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
              "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"));
  const std::string fine = ok.read(3s, "\r\n\r\n8");
  EXPECT_EQ(http_status(fine), 200) << fine;
}

TEST(BoundedHttpServer, HeadOverTheLimitIs431) {
  HttpServerLimits l = small_limits();
  l.max_header_bytes = 4096;
  Served s(l);
  EXPECT_EQ(
      s.request(http_request("GET", "/public", "", "X-Big: " + std::string(8000, 'a') + "\r\n")),
      431);
  EXPECT_EQ(s.request(http_request("GET", "/public", "", "X-Small: a\r\n")), 200);
}

TEST(BoundedHttpServer, BodiesOverTheMemoryBudgetAre503AndSmallRequestsStillPass) {
  HttpServerLimits l = small_limits();
  l.max_body_bytes = 8 << 20;
  l.memory_budget_bytes = 4 << 20;  // large bodies share 3.5 MiB of it
  Served s(l);
  // 3 MiB declared and never sent: reserved while the connection waits for it.
  RawConnection holder(s.port());
  ASSERT_TRUE(holder.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3145728\r\n\r\n"));
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(s.server().memory_budget().used(), 3145728U);
  // 1 MiB more does not fit in what large bodies may take.
  RawConnection refused(s.port());
  ASSERT_TRUE(refused.send(http_request("POST", "/echo", std::string(1 << 20, 'x'))));
  const std::string answer = refused.read(3s, "\r\n\r\n");
  EXPECT_EQ(http_status(answer), 503) << answer;
  EXPECT_NE(answer.find("Retry-After: 1\r\n"), std::string::npos) << answer;
  // Small requests keep their share of the budget.
  EXPECT_EQ(s.request(http_request("POST", "/echo", std::string(1000, 'x'))), 200);
  EXPECT_EQ(s.server().stats().over_budget, 1U);
  // The reservation goes with the connection.
  holder.close();
  for (int i = 0; i < 100 && s.server().memory_budget().used() != 0; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(s.server().memory_budget().used(), 0U);
  EXPECT_EQ(s.request(http_request("POST", "/echo", std::string(1 << 20, 'x'))), 200);
}

TEST(BoundedHttpServer, FullQueueIs503WithRetryAfter) {
  HttpServerLimits l = small_limits();
  l.workers = 1;
  l.queue_limit = 1;
  Served s(l);
  RawConnection running(s.port()), queued(s.port()), refused(s.port());
  ASSERT_TRUE(running.send(http_request("GET", "/wait")));
  ASSERT_TRUE(s.gate().wait_for_waiters(1));
  ASSERT_TRUE(queued.send(http_request("GET", "/wait")));
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(refused.send(http_request("GET", "/private")));
  const std::string answer = refused.read(3s, "\r\n\r\n");
  EXPECT_EQ(http_status(answer), 503) << answer;
  EXPECT_NE(answer.find("Retry-After: 1\r\n"), std::string::npos) << answer;
  // Inline routes do not queue.
  EXPECT_EQ(s.request(http_request("GET", "/public")), 200);
  s.gate().open();
  EXPECT_EQ(http_status(running.read(3s, "\r\n\r\n")), 200);
  EXPECT_EQ(http_status(queued.read(3s, "\r\n\r\n")), 200);
  EXPECT_EQ(s.server().stats().queue_full, 1U);
}

TEST(BoundedHttpServer, BadAllocInAHandlerIs503AndTheServerLives) {
  Served s(small_limits());
  EXPECT_EQ(s.request(http_request("GET", "/oom")), 503);
  EXPECT_EQ(s.server().stats().out_of_memory, 1U);
  EXPECT_EQ(s.request(http_request("POST", "/echo", "x")), 200);
}

TEST(BoundedHttpServer, HeadDeadlineCutsASlowHead) {
  HttpServerLimits l = small_limits();
  l.header_timeout = 500ms;
  Served s(l);
  RawConnection c(s.port());
  const auto t0 = Clock::now();
  const std::string head = "GET /public HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa";
  bool cut = false;
  for (const char ch : head) {
    if (!c.send(std::string(1, ch)) || c.closed_within(100ms)) {
      cut = true;
      break;
    }
  }
  EXPECT_TRUE(cut || c.closed_within(2s));
  const double took = seconds_since(t0);
  EXPECT_GE(took, 0.45);
  EXPECT_LT(took, 1.5);
  // Beast closes the socket when the timer fires and counts in the completion handler after it:
  // the client may see the close first.
  for (int i = 0; i < 200 && s.server().stats().deadlines_missed == 0; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_GE(s.server().stats().deadlines_missed, 1U);
  // An idle fresh connection is cut by the same deadline.
  RawConnection idle(s.port());
  EXPECT_TRUE(idle.closed_within(2s));
}

TEST(BoundedHttpServer, WholeRequestDeadlineCutsATrickledBody) {
  HttpServerLimits l = small_limits();
  l.header_timeout = 500ms;
  l.request_timeout = 1s;
  Served s(l);
  RawConnection c(s.port());
  const auto t0 = Clock::now();
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"));
  // A byte every 100 ms: each arrives within any per-read timeout, the whole never does.
  for (int i = 0; i < 100 && !c.closed_within(100ms); ++i) {
    if (!c.send("x")) break;
  }
  EXPECT_TRUE(c.closed_within(2s));
  const double took = seconds_since(t0);
  EXPECT_GE(took, 0.9);
  EXPECT_LT(took, 2.0);
  EXPECT_EQ(s.handled(), 0);
}

TEST(BoundedHttpServer, KeptAliveConnectionIsClosedAfterTheIdleTimeout) {
  HttpServerLimits l = small_limits();
  l.idle_timeout = 500ms;
  Served s(l);
  RawConnection c(s.port());
  ASSERT_TRUE(c.send(http_request("GET", "/public")));
  EXPECT_EQ(http_status(c.read(3s, "\r\n\r\n")), 200);
  const auto t0 = Clock::now();
  EXPECT_TRUE(c.closed_within(3s));
  EXPECT_GE(seconds_since(t0), 0.4);
  EXPECT_LT(seconds_since(t0), 1.5);
}

TEST(BoundedHttpServer, ConnectionsAreLimitedPerClientAndInAll) {
  HttpServerLimits l = small_limits();
  l.max_connections_per_client = 3;
  l.max_connections = 5;
  Served s(l);
  // Served connections are kept open; one past a limit is closed at once, unanswered.
  std::vector<RawConnection> open;
  const auto admitted = [&](const char* source) {
    RawConnection c(s.port(), source);
    if (!c.ok() || !c.send(http_request("GET", "/public"))) return false;
    const bool answered = http_status(c.read(2s, "\r\n\r\n")) == 200;
    if (answered) open.push_back(std::move(c));
    return answered;
  };
  EXPECT_TRUE(admitted("127.0.0.1"));
  EXPECT_TRUE(admitted("127.0.0.1"));
  EXPECT_TRUE(admitted("127.0.0.1"));
  EXPECT_FALSE(admitted("127.0.0.1"));  // per client
  EXPECT_TRUE(admitted("127.0.0.2"));
  EXPECT_TRUE(admitted("127.0.0.2"));
  EXPECT_FALSE(admitted("127.0.0.3"));  // in all
  EXPECT_EQ(s.server().stats().connections_refused, 2U);
  open.front().close();
  open.erase(open.begin());
  for (int i = 0; i < 100 && s.server().stats().open_connections > 4; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(admitted("127.0.0.1"));
}

// --- authentication ---

ListenerSpec with_token(const std::string& token) {
  ListenerSpec spec;
  spec.token = std::make_shared<BearerToken>(BearerToken::from_text(token, "test"));
  return spec;
}

TEST(BoundedHttpServerAuth, BearerTokenRightWrongAndMissing) {
  Served s(small_limits(), with_token("s3cret-token"));
  const auto post = [&](const std::string& headers) {
    return s.request(http_request("POST", "/echo", "body", headers));
  };
  EXPECT_EQ(post("Authorization: Bearer s3cret-token\r\n"), 200);
  EXPECT_EQ(post("Authorization: bearer s3cret-token\r\n"), 200);
  EXPECT_EQ(post(""), 401);
  EXPECT_EQ(post("Authorization: Bearer s3cret-tokem\r\n"), 401);
  EXPECT_EQ(post("Authorization: Bearer s3cret-token2\r\n"), 401);
  EXPECT_EQ(post("Authorization: Bearer \r\n"), 401);
  EXPECT_EQ(post("Authorization: Basic czNjcmV0LXRva2Vu\r\n"), 401);
  EXPECT_EQ(post("Authorization: s3cret-token\r\n"), 401);
  // Only the authenticated request reached the handler; public routes need nothing.
  EXPECT_EQ(s.handled(), 2);
  EXPECT_EQ(s.request(http_request("GET", "/public")), 200);
  EXPECT_EQ(s.server().stats().unauthenticated, 6U);
  // 401 comes before the body is read: a large body is not waited for.
  RawConnection c(s.port());
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"));
  const std::string answer = c.read(2s, "\r\n\r\n");
  EXPECT_EQ(http_status(answer), 401) << answer;
  EXPECT_NE(answer.find("WWW-Authenticate: Bearer"), std::string::npos) << answer;
}

class BearerTokenFile : public slicelab::testing::TempFilesTest {};

TEST_F(BearerTokenFile, IsTrimmedAndChecked) {
  const BearerToken t = BearerToken::from_file(write("t", "abc123\n"));
  EXPECT_TRUE(t.matches("Bearer abc123"));
  EXPECT_FALSE(t.matches("Bearer abc12"));
  EXPECT_FALSE(t.matches("Bearer abc1234"));
  EXPECT_THROW(BearerToken::from_file(write("empty", " \n")), std::runtime_error);
  EXPECT_THROW(BearerToken::from_file(write("space", "a b")), std::runtime_error);
  EXPECT_THROW(BearerToken::from_file(write("big", std::string(5000, 'a'))), std::runtime_error);
  EXPECT_THROW(BearerToken::from_file((dir_ / "missing").string()), std::runtime_error);
}

class BoundedHttpServerTls : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    const std::string failed = slicelab::testing::make_test_certificates(dir_, certs_);
    ASSERT_EQ(failed, "") << "the openssl command is needed (scripts/setup installs it)";
  }
  ListenerSpec tls_spec(bool client_ca) const {
    ListenerSpec spec;
    spec.tls = ServerTlsFiles{certs_.server_crt.string(), certs_.server_key.string(),
                              client_ca ? certs_.ca_crt.string() : std::string()};
    return spec;
  }
  // An HTTPS GET with the client certificate `crt`/`key` (none when empty): the status, or 0
  // when the connection failed.
  int get(int port, const std::string& path, const std::filesystem::path& crt = {},
          const std::filesystem::path& key = {}, const std::string& headers = "") const {
    std::unique_ptr<httplib::SSLClient> c =
        crt.empty()
            ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
            : std::make_unique<httplib::SSLClient>("127.0.0.1", port, crt.string(), key.string());
    c->set_ca_cert_path(certs_.ca_crt.string().c_str());
    c->enable_server_certificate_verification(true);
    c->set_connection_timeout(3, 0);
    c->set_read_timeout(3, 0);
    httplib::Headers h;
    if (!headers.empty()) h.emplace("Authorization", headers);
    const auto r = c->Get(path.c_str(), h);
    return r ? r->status : 0;
  }
  slicelab::testing::TestCertificates certs_;
};

TEST_F(BoundedHttpServerTls, ClientCertificateSignedByTheCaIsRequired) {
  Served s(small_limits(), tls_spec(/*client_ca=*/true));
  EXPECT_EQ(get(s.port(), "/private", certs_.client_crt, certs_.client_key), 200);
  EXPECT_EQ(s.handled(), 1);
  // No certificate, another CA's certificate: the handshake fails, nothing is handled.
  EXPECT_EQ(get(s.port(), "/private"), 0);
  EXPECT_EQ(get(s.port(), "/public"), 0);
  EXPECT_EQ(get(s.port(), "/private", certs_.stranger_crt, certs_.stranger_key), 0);
  EXPECT_EQ(s.handled(), 1);
  // Counted in the handshake's completion, which may run after the client saw it fail.
  for (int i = 0; i < 200 && s.server().stats().tls_handshakes_failed < 3; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_GE(s.server().stats().tls_handshakes_failed, 3U);
  // Plain HTTP to the TLS port: no HTTP answer.
  RawConnection plain(s.port());
  ASSERT_TRUE(plain.send(http_request("GET", "/private")));
  EXPECT_EQ(http_status(plain.read(2s, "\r\n\r\n")), 0);
  EXPECT_EQ(s.handled(), 1);
}

TEST_F(BoundedHttpServerTls, ServerCertificateAloneServesHttps) {
  // Without a client CA the listener authenticates nobody: loopback only.
  Served s(small_limits(), tls_spec(/*client_ca=*/false));
  EXPECT_EQ(get(s.port(), "/private"), 200);
}

TEST_F(BoundedHttpServerTls, WithATokenTooEitherCredentialWill) {
  ListenerSpec spec = tls_spec(/*client_ca=*/true);
  spec.token = std::make_shared<BearerToken>(BearerToken::from_text("tok", "test"));
  Served s(small_limits(), std::move(spec));
  EXPECT_EQ(get(s.port(), "/private", certs_.client_crt, certs_.client_key), 200);
  EXPECT_EQ(get(s.port(), "/private", {}, {}, "Bearer tok"), 200);
  EXPECT_EQ(get(s.port(), "/private"), 401);
  EXPECT_EQ(get(s.port(), "/public"), 200);
  // A certificate the CA did not sign still fails the handshake.
  EXPECT_EQ(get(s.port(), "/private", certs_.stranger_crt, certs_.stranger_key, "Bearer tok"), 0);
}

TEST_F(BoundedHttpServerTls, TlsBelowOneTwoIsRefused) {
  Served s(small_limits(), tls_spec(/*client_ca=*/false));
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  ASSERT_NE(ctx, nullptr);
  SSL_CTX_set_security_level(ctx, 0);  // let the client offer TLS 1.1 at all
  SSL_CTX_set_min_proto_version(ctx, TLS1_VERSION);
  SSL_CTX_set_max_proto_version(ctx, TLS1_1_VERSION);
  RawConnection c(s.port());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, c.fd());
  EXPECT_NE(SSL_connect(ssl), 1);
  SSL_free(ssl);
  SSL_CTX_free(ctx);
}

TEST_F(BoundedHttpServerTls, UnusableFilesAreNamed) {
  ListenerSpec spec = tls_spec(true);
  spec.tls->key_file = write("bad.key", "not a key");
  spec.host = "127.0.0.1";
  spec.routes = {};
  BoundedHttpServer server(small_limits());
  try {
    server.add_listener(spec);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir_.string() + "/bad.key"), std::string::npos)
        << e.what();
  }
}

TEST(BoundedHttpServerListen, BeyondLoopbackOnlyWithAuthentication) {
  ListenerSpec spec;
  spec.name = "extender";
  spec.routes = {
      {"POST", "/bind", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker, nullptr}};
  for (const char* loopback : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"})
    EXPECT_EQ(insecure_listen_reason(spec, loopback), "") << loopback;
  for (const char* remote : {"0.0.0.0", "::", "10.0.0.5", "::ffff:10.0.0.5"}) {
    EXPECT_NE(insecure_listen_reason(spec, remote).find("is not a loopback address"),
              std::string::npos)
        << remote;
  }
  ListenerSpec token = spec;
  token.token = std::make_shared<BearerToken>(BearerToken::from_text("t", "test"));
  EXPECT_EQ(insecure_listen_reason(token, "0.0.0.0"), "");
  ListenerSpec mtls = spec;
  mtls.tls = ServerTlsFiles{"s.crt", "s.key", "ca.crt"};
  EXPECT_EQ(insecure_listen_reason(mtls, "0.0.0.0"), "");
  ListenerSpec server_cert_only = spec;
  server_cert_only.tls = ServerTlsFiles{"s.crt", "s.key", ""};
  EXPECT_NE(insecure_listen_reason(server_cert_only, "0.0.0.0"), "");
  ListenerSpec insecure = spec;
  insecure.insecure = true;
  EXPECT_EQ(insecure_listen_reason(insecure, "0.0.0.0"), "");
  ListenerSpec probes = spec;
  probes.routes[0].access = HttpRoute::Access::kPublic;
  EXPECT_EQ(insecure_listen_reason(probes, "0.0.0.0"), "");
  // add_listener refuses before it binds anything.
  BoundedHttpServer server(small_limits());
  spec.host = "0.0.0.0";
  EXPECT_THROW(server.add_listener(spec), InsecureListenError);
}

// --- shutdown ---

TEST(BoundedHttpServerStop, StopReturnsWithinASecondWhateverTheClientsDo) {
  HttpServerLimits l = small_limits();
  l.header_timeout = 30s;
  l.request_timeout = 60s;
  l.shutdown_grace = 500ms;
  auto s = std::make_unique<Served>(l);
  std::vector<RawConnection> clients;
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back(s->port());
    clients.back().send("GET /public HTTP/1.1\r\nHost: x\r\nX-Slow: a");  // a slow head
  }
  for (int i = 0; i < 8; ++i) clients.emplace_back(s->port());  // idle
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back(s->port());
    clients.back().send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc");
  }
  RawConnection waiting(s->port());  // a handler that does not finish within the grace
  ASSERT_TRUE(waiting.send(http_request("GET", "/wait")));
  ASSERT_TRUE(s->gate().wait_for_waiters(1));
  const auto t0 = Clock::now();
  s->server().stop();
  const double took = seconds_since(t0);
  EXPECT_LT(took, 1.0);
  for (RawConnection& c : clients) EXPECT_TRUE(c.closed_within(1s));
  s.reset();  // opens the gate, joins
}

TEST(BoundedHttpServerStop, StopBeforeRunAndTwice) {
  for (int i = 0; i < 10; ++i) {
    BoundedHttpServer server(small_limits());
    ListenerSpec spec;
    spec.name = "t";
    spec.host = "127.0.0.1";
    server.add_listener(spec);
    std::thread t([&] { server.run(); });
    server.stop();
    t.join();
    server.stop();
  }
}

}  // namespace
}  // namespace slicelab::k8s
