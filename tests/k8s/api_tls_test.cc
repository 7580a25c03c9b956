// The API client over TLS against a cpp-httplib SSLServer that requires client certificates:
// the CA and client certificate given as kubeconfig data (base64) and as files, a server the
// client cannot verify, and insecure-skip-tls-verify. Certificates are made with the openssl
// command for each run (the test is skipped where it is missing).
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_config.h"
#include "tests/support/cli_run.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace {

using slicelab::testing::read_file;
using slicelab::testing::run_shell;
using slicelab::testing::shell_quote;

std::string encode_base64(const std::string& in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i + 1 == in.size()) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8);
    out += {kAlphabet[(v >> 18) & 63], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63], '='};
  }
  return out;
}

class ApiTlsTest : public slicelab::testing::TempFilesTest {
 protected:
  void SetUp() override {
    TempFilesTest::SetUp();
    if (run_shell("command -v openssl >/dev/null 2>&1") != 0) GTEST_SKIP() << "no openssl command";
    const auto make = [&](const std::string& stem, const std::string& extra) {
      const std::string cmd =
          "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
          "-keyout " +
          shell_quote((dir_ / (stem + ".key")).string()) + " -out " +
          shell_quote((dir_ / (stem + ".crt")).string()) + " " + extra + " >/dev/null 2>&1";
      ASSERT_EQ(run_shell(cmd), 0) << cmd;
    };
    make("server", "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1");
    make("client", "-subj /CN=alice");
    make("stranger", "-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1");
    // The server requires a client certificate signed by client.crt (self-signed: its own CA).
    server_ = std::make_unique<httplib::SSLServer>((dir_ / "server.crt").c_str(),
                                                   (dir_ / "server.key").c_str(),
                                                   (dir_ / "client.crt").c_str());
    ASSERT_TRUE(server_->is_valid());
    server_->Get("/api/v1/nodes", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},)"
                      R"("items":[],"auth":")" +
                          req.get_header_value("Authorization") + "\"}",
                      "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
  }
  void TearDown() override {
    if (server_) {
      server_->stop();
      thread_.join();
    }
    TempFilesTest::TearDown();
  }
  std::string pem(const std::string& name) { return read_file(dir_ / name); }
  std::string kubeconfig(const std::string& cluster, const std::string& user) {
    return write("kubeconfig",
                 "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                 "contexts:\n- name: c\n  context: {cluster: k, user: u}\n"
                 "clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:" +
                     std::to_string(port_) + "\n" + cluster + "users:\n- name: u\n  user:\n" +
                     user);
  }

  std::unique_ptr<httplib::SSLServer> server_;
  int port_ = 0;
  std::thread thread_;
};

TEST_F(ApiTlsTest, CaAndClientCertificateAsKubeconfigData) {
  const ApiConfig c = load_kubeconfig(kubeconfig(
      "    certificate-authority-data: " + encode_base64(pem("server.crt")) + "\n",
      "    client-certificate-data: " + encode_base64(pem("client.crt")) +
          "\n    client-key-data: " + encode_base64(pem("client.key")) + "\n    token: tls-tok\n"));
  ApiClient client(c);
  const nlohmann::json list = client.get_json("/api/v1/nodes");
  EXPECT_EQ(list["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(list["auth"], "Bearer tls-tok");
}

TEST_F(ApiTlsTest, CaAndClientCertificateAsFiles) {
  const ApiConfig c = load_kubeconfig(
      kubeconfig("    certificate-authority: server.crt\n",
                 "    client-certificate: client.crt\n    client-key: client.key\n"));
  ApiClient client(c);
  EXPECT_EQ(client.get_json("/api/v1/nodes")["kind"], "NodeList");
}

TEST_F(ApiTlsTest, AServerTheClientCannotVerifyIsRefused) {
  const ApiConfig c = load_kubeconfig(
      kubeconfig("    certificate-authority-data: " + encode_base64(pem("stranger.crt")) + "\n",
                 "    client-certificate: client.crt\n    client-key: client.key\n"));
  ApiClient client(c);
  try {
    client.get_json("/api/v1/nodes");
    ADD_FAILURE() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 0);
  }
  // insecure-skip-tls-verify accepts it (and the client certificate still goes out).
  const ApiConfig insecure = load_kubeconfig(
      kubeconfig("    insecure-skip-tls-verify: true\n",
                 "    client-certificate: client.crt\n    client-key: client.key\n"));
  ApiClient lax(insecure);
  EXPECT_EQ(lax.get_json("/api/v1/nodes")["kind"], "NodeList");
}

TEST_F(ApiTlsTest, WithoutTheClientCertificateTheServerRefuses) {
  const ApiConfig c = load_kubeconfig(
      kubeconfig("    certificate-authority: server.crt\n", "    token: only-a-token\n"));
  ApiClient client(c);
  EXPECT_THROW(client.get_json("/api/v1/nodes"), ApiError);
}

}  // namespace
}  // namespace slicelab::k8s
