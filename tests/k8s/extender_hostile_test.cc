// `slicelab serve extender` against hostile clients, end to end (the binary, offline snapshot
// files, loopback only): 30 idle and 8 slow connections while a legitimate client's filter is
// answered within 100 ms; 8 parallel 30 MiB bodies answered without the process's peak resident
// memory passing the memory budget plus its baseline; 100,000 nested arrays answered 400; binds
// without a token or a client certificate refused with nothing bound; SIGTERM honoured within
// 2 s with slow clients connected; a non-loopback address refused without authentication.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/raw_tcp_client.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_certificates.h"

namespace slicelab::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

const std::string kScenarios = std::string(SLICELAB_SOURCE_DIR) + "/scenarios/";
const std::vector<std::string> kNodes = {"gpu-a100-0", "gpu-a100-1", "gpu-l4-0",
                                         "gpu-l4-1",   "gpu-l4-2",   "cpu-0"};

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

json pod_named(const std::string& name) {
  std::ifstream in(kScenarios + "kubernetes/pods.json");
  const json list = json::parse(in);
  for (const json& p : list["items"]) {
    if (p["metadata"]["name"] == name) return p;
  }
  ADD_FAILURE() << "no pod " << name;
  return {};
}

std::string filter_body() {
  return json{{"Pod", pod_named("embed-batch-5-v9b8n")}, {"NodeNames", kNodes}}.dump();
}

// The binary, started with fork and exec, its output in a file of the test's folder.
class ExtenderProcess {
 public:
  // Limits the child's address space (bytes; 0: none), so that a regression in the memory bound
  // fails this test with bad_alloc answers instead of swapping the machine.
  ExtenderProcess(const fs::path& dir, const std::vector<std::string>& extra,
                  rlim_t address_space = 0)
      : log_(dir / "extender.log") {
    std::vector<std::string> args = {SLICELAB_BINARY,
                                     "serve",
                                     "extender",
                                     "--scenario",
                                     kScenarios + "kubernetes.yaml",
                                     "--nodes",
                                     kScenarios + "kubernetes/nodes.json",
                                     "--pods",
                                     kScenarios + "kubernetes/pods.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      if (address_space > 0) {
        const rlimit limit{address_space, address_space};
        ::setrlimit(RLIMIT_AS, &limit);
      }
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // The listening line carries the port.
    for (int i = 0; i < 800 && port_ <= 0 && running(); ++i) {
      const std::string out = output();
      const size_t at = out.find("listening on 127.0.0.1:");
      if (at != std::string::npos) port_ = std::atoi(out.c_str() + at + 23);
      if (port_ <= 0) std::this_thread::sleep_for(25ms);
    }
  }
  ~ExtenderProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ExtenderProcess(const ExtenderProcess&) = delete;
  ExtenderProcess& operator=(const ExtenderProcess&) = delete;

  int port() const { return port_; }
  std::string output() const { return read_file(log_); }
  bool running() {
    if (exited_) return false;
    if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
    return !exited_;
  }
  // Waits up to `limit` for the process to end; its exit code, or -1 (killed, or still running).
  int wait(std::chrono::milliseconds limit) {
    const auto end = Clock::now() + limit;
    while (running() && Clock::now() < end) std::this_thread::sleep_for(5ms);
    if (!exited_) return -1;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }
  // SIGTERM, then the milliseconds until it exited (the wait bounded by `limit`).
  double terminate(std::chrono::milliseconds limit, int& code) {
    const auto t0 = Clock::now();
    ::kill(pid_, SIGTERM);
    code = wait(limit);
    return ms_since(t0);
  }
  // A field of /proc/<pid>/status in KiB (VmHWM: peak resident memory; VmRSS: now).
  long status_kib(const std::string& field) const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
    }
    return -1;
  }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  int port_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

// Clients that hold connections: idle ones (connected, silent) and slow ones (a request head,
// one byte every `period`). Each reconnects when the server cuts it, as an attacker would.
class Attackers {
 public:
  Attackers(int port, int idle, int slow, std::chrono::milliseconds period)
      : port_(port), period_(period) {
    for (int i = 0; i < idle; ++i) idle_.emplace_back(port);
    for (int i = 0; i < slow; ++i) slow_.emplace_back(port);
    thread_ = std::thread([this] { loop(); });
  }
  ~Attackers() {
    stop_ = true;
    thread_.join();
  }
  Attackers(const Attackers&) = delete;
  Attackers& operator=(const Attackers&) = delete;
  int reconnects() const { return reconnects_; }
  int bytes_sent() const { return bytes_; }

 private:
  void loop() {
    const std::string head = "POST /filter HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    std::vector<size_t> sent(slow_.size(), 0);
    while (!stop_) {
      for (size_t i = 0; i < slow_.size(); ++i) {
        if (slow_[i].closed() || !slow_[i].ok()) {
          slow_[i] = RawConnection(port_);
          sent[i] = 0;
          ++reconnects_;
        }
        const char c = sent[i] < head.size() ? head[sent[i]] : 'a';
        if (slow_[i].send(std::string(1, c))) {
          ++sent[i];
          ++bytes_;
        }
        slow_[i].read(1ms);  // notices a close
      }
      for (RawConnection& c : idle_) {
        c.read(1ms);
        if (c.closed() || !c.ok()) {
          c = RawConnection(port_);
          ++reconnects_;
        }
      }
      for (auto waited = 0ms; waited < period_ && !stop_; waited += 50ms)
        std::this_thread::sleep_for(50ms);
    }
  }

  int port_;
  std::chrono::milliseconds period_;
  std::vector<RawConnection> idle_, slow_;
  std::atomic<bool> stop_{false};
  std::atomic<int> reconnects_{0}, bytes_{0};
  std::thread thread_;
};

class ExtenderHostileTest : public TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    ignore_sigpipe();
  }
};

TEST_F(ExtenderHostileTest, FilterIsAnsweredWithin100msWhileIdleAndSlowClientsHoldConnections) {
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0"});
  ASSERT_GT(p.port(), 0) << p.output();
  const std::string body = filter_body();
  Attackers attack(p.port(), /*idle=*/30, /*slow=*/8, /*period=*/4s);
  std::this_thread::sleep_for(1s);
  // 24 filters over 6 s: half on one kept-alive connection (as kube-scheduler's client), half
  // on a new connection each.
  httplib::Client kept("127.0.0.1", p.port());
  kept.set_keep_alive(true);
  std::vector<double> ms;
  int failed = 0;
  for (int i = 0; i < 24; ++i) {
    httplib::Client fresh("127.0.0.1", p.port());
    httplib::Client& c = i % 2 == 0 ? kept : fresh;
    c.set_read_timeout(5, 0);
    const auto t0 = Clock::now();
    const auto r = c.Post("/filter", body, "application/json");
    ms.push_back(ms_since(t0));
    if (!r || r->status != 200) ++failed;
    std::this_thread::sleep_for(250ms);
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "filter under attack (30 idle, 8 slow, %d bytes trickled, %d reconnects): "
      "min %.2f ms, median %.2f ms, max %.2f ms\n",
      attack.bytes_sent(), attack.reconnects(), ms.front(), ms[ms.size() / 2], ms.back());
  EXPECT_EQ(failed, 0);
  // The bound: 100 ms for all but one request (one slack for a machine shared with builds),
  // and no request over a second.
  EXPECT_LE(ms[ms.size() - 2], 100.0);
  EXPECT_LE(ms.back(), 1000.0);
  EXPECT_GE(attack.bytes_sent(), 8);
}

TEST_F(ExtenderHostileTest, ParallelThirtyMebibyteBodiesStayWithinTheMemoryBudget) {
#ifdef SLICELAB_SANITIZED
  GTEST_SKIP() << "sanitizers change resident memory: measured in the plain build";
#endif
  // The documented default budget; an address-space limit far above budget plus baseline keeps
  // a regression from taking the machine's memory.
  constexpr long kBudgetKib = 512 * 1024;
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0"}, rlim_t{3} << 30);
  ASSERT_GT(p.port(), 0) << p.output();
  httplib::Client warm("127.0.0.1", p.port());
  ASSERT_EQ(warm.Post("/filter", filter_body(), "application/json")->status, 200);
  const long baseline = p.status_kib("VmHWM");
  ASSERT_GT(baseline, 0);
  // The densest document per byte: empty objects where node names belong (about 20 times the
  // text's size once parsed without a bound).
  std::string body = R"({"Pod":)" + pod_named("embed-batch-5-v9b8n").dump() + R"(,"NodeNames":[)";
  const size_t target = (size_t{30} << 20) - 2;
  body.reserve(target + 2);
  while (body.size() + 3 < target) body += "{},";
  body += "{}]}";
  std::vector<int> status(8, -1);
  std::vector<std::thread> senders;
  for (int i = 0; i < 8; ++i) {
    senders.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", p.port());
      c.set_read_timeout(60, 0);
      c.set_write_timeout(60, 0);
      const auto r = c.Post("/filter", body, "application/json");
      status[static_cast<size_t>(i)] = r ? r->status : 0;
    });
  }
  for (std::thread& t : senders) t.join();
  const long peak = p.status_kib("VmHWM");
  const long after = p.status_kib("VmRSS");
  std::printf("8 x %zu-byte bodies: statuses", body.size());
  for (const int s : status) std::printf(" %d", s);
  std::printf("; peak RSS %ld MiB (baseline %ld MiB, budget %ld MiB), RSS after %ld MiB\n",
              peak / 1024, baseline / 1024, kBudgetKib / 1024, after / 1024);
  for (const int s : status) {
    EXPECT_TRUE(s == 200 || s == 400 || s == 413 || s == 503) << s;
  }
  // Budget plus baseline, and 64 MiB for what the budget does not count (the answers, the
  // allocator's own overhead, the estimate's error).
  EXPECT_LE(peak, kBudgetKib + baseline + 64 * 1024);
  ASSERT_TRUE(p.running()) << p.output();
  const auto again = warm.Post("/filter", filter_body(), "application/json");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200);
}

TEST_F(ExtenderHostileTest, HundredThousandNestedArraysAre400) {
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0"});
  ASSERT_GT(p.port(), 0) << p.output();
  json pod = pod_named("embed-batch-5-v9b8n");
  std::string deep = pod.dump();
  // The nesting inside the Pod, closed: a complete document, 200 KB.
  const std::string nest = std::string(100000, '[') + std::string(100000, ']');
  deep.insert(deep.size() - 1, R"(,"x":)" + nest);
  const std::string body = R"({"Pod":)" + deep + R"(,"NodeNames":["gpu-l4-0"]})";
  httplib::Client c("127.0.0.1", p.port());
  c.set_read_timeout(30, 0);
  for (const char* verb : {"/filter", "/prioritize"}) {
    const auto r = c.Post(verb, body, "application/json");
    ASSERT_TRUE(r) << verb << " (the process: " << (p.running() ? "running" : "gone") << ")\n"
                   << p.output();
    EXPECT_EQ(r->status, 400) << verb;
  }
  ASSERT_TRUE(p.running());
  EXPECT_EQ(c.Post("/filter", filter_body(), "application/json")->status, 200);
}

TEST_F(ExtenderHostileTest, BindWithoutATokenIsRefusedAndNothingIsBound) {
  const std::string token = write("token", "0123456789abcdef0123456789abcdef\n");
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0", "--auth-token-file", token});
  ASSERT_GT(p.port(), 0) << p.output();
  const std::string bind = json{
      {"PodName", "resnet-sweep-5-r7t3y"},
      {"PodNamespace", "ml-research"},
      {"PodUID", pod_named("resnet-sweep-5-r7t3y")["metadata"].value("uid", "")},
      {"Node", "gpu-a100-0"}}.dump();
  httplib::Client c("127.0.0.1", p.port());
  auto r = c.Post("/bind", bind, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = c.Post("/bind", {{"Authorization", "Bearer 0123456789abcdef0123456789abcdeF"}}, bind,
             "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(p.output().find("bind pod"), std::string::npos) << p.output();
  EXPECT_EQ(p.output().find("annotate pod"), std::string::npos) << p.output();
  // The probes need no token; the token opens the verbs.
  EXPECT_EQ(c.Get("/healthz")->status, 200);
  const httplib::Headers auth = {{"Authorization", "Bearer 0123456789abcdef0123456789abcdef"}};
  r = c.Post("/filter", auth, filter_body(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(ExtenderHostileTest, WithClientCertificatesPlainAndUncertifiedBindsAreRefused) {
  TestCertificates certs;
  ASSERT_EQ(make_test_certificates(dir_, certs), "")
      << "the openssl command is needed (scripts/setup installs it)";
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0", "--tls-cert-file", certs.server_crt.string(),
                           "--tls-private-key-file", certs.server_key.string(), "--client-ca-file",
                           certs.ca_crt.string()});
  ASSERT_GT(p.port(), 0) << p.output();
  const std::string bind = json{
      {"PodName", "resnet-sweep-5-r7t3y"},
      {"PodNamespace", "ml-research"},
      {"PodUID", ""},
      {"Node", "gpu-a100-0"}}.dump();
  RawConnection plain(p.port());
  ASSERT_TRUE(plain.send(http_request("POST", "/bind", bind)));
  EXPECT_EQ(http_status(plain.read(2s, "\r\n\r\n")), 0);
  httplib::SSLClient anonymous("127.0.0.1", p.port());
  anonymous.set_ca_cert_path(certs.ca_crt.string().c_str());
  anonymous.enable_server_certificate_verification(true);
  EXPECT_FALSE(anonymous.Post("/bind", bind, "application/json"));
  httplib::SSLClient scheduler("127.0.0.1", p.port(), certs.client_crt.string(),
                               certs.client_key.string());
  scheduler.set_ca_cert_path(certs.ca_crt.string().c_str());
  scheduler.enable_server_certificate_verification(true);
  const auto r = scheduler.Post("/filter", filter_body(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(p.output().find("bind pod"), std::string::npos) << p.output();
}

TEST_F(ExtenderHostileTest, NonLoopbackListenWithoutAuthenticationIsAUsageError) {
  ExtenderProcess p(dir_, {"--listen", "0.0.0.0:0"});
  EXPECT_EQ(p.wait(20s), 2) << p.output();
  EXPECT_NE(p.output().find("--insecure-listen"), std::string::npos) << p.output();
  EXPECT_EQ(p.port(), -1);
}

TEST_F(ExtenderHostileTest, SigtermEndsTheProcessWithin2sWithSlowClientsConnected) {
  ExtenderProcess p(dir_, {"--listen", "127.0.0.1:0"});
  ASSERT_GT(p.port(), 0) << p.output();
  std::vector<RawConnection> slow;
  for (int i = 0; i < 8; ++i) {
    slow.emplace_back(p.port());
    ASSERT_TRUE(
        slow.back().send("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{"));
  }
  std::vector<RawConnection> idle;
  for (int i = 0; i < 30; ++i) idle.emplace_back(p.port());
  std::this_thread::sleep_for(300ms);
  int code = -1;
  const double ms = p.terminate(5s, code);
  std::printf("SIGTERM with 8 slow and 30 idle clients: exited after %.0f ms\n", ms);
  EXPECT_LT(ms, 2000.0);
  EXPECT_EQ(code, 0) << p.output();
}

}  // namespace
}  // namespace slicelab::testing
