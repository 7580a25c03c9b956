// Reading kubeconfig files and the in-cluster service account, and each of their errors.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "backends/k8s/api_client.h"
#include "backends/k8s/api_config.h"
#include "tests/support/temp_files.h"

namespace slicelab::k8s {
namespace {

using slicelab::testing::message_of;

class KubeconfigTest : public slicelab::testing::TempFilesTest {};

// "hello" and "PEM" in base64, worked out by hand: h=0x68 e=0x65 l=0x6c l o=0x6f.
constexpr const char* kHelloBase64 = "aGVsbG8=";

std::string config_with_user(const std::string& user_body) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: work\n"
         "clusters:\n"
         "- name: other\n  cluster: {server: https://other:6443}\n"
         "- name: prod\n  cluster:\n    server: https://10.0.0.1:6443/\n"
         "    certificate-authority: ca.pem\n"
         "contexts:\n"
         "- name: work\n  context: {cluster: prod, user: alice}\n"
         "- name: spare\n  context: {cluster: other, user: alice}\n"
         "users:\n- name: alice\n  user:\n" +
         user_body;
}

TEST_F(KubeconfigTest, CurrentContextGivesServerTokenAndRelativePaths) {
  const std::string path = write("config", config_with_user("    token: abc123\n"));
  const ApiConfig c = load_kubeconfig(path);
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");  // the trailing slash dropped
  EXPECT_EQ(c.token, "abc123");
  EXPECT_EQ(c.ca_file, (dir_ / "ca.pem").string());  // relative to the file's folder
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  EXPECT_EQ(load_kubeconfig(path, "spare").server, "https://other:6443");
}

TEST_F(KubeconfigTest, DataFieldsAreDecodedAndTokenFileIsKept) {
  const std::string path =
      write("config", config_with_user(std::string("    client-certificate-data: ") + kHelloBase64 +
                                       "\n    client-key-data: UEVN\n    tokenFile: tok\n"));
  const ApiConfig c = load_kubeconfig(path);
  EXPECT_EQ(c.client_cert_pem, "hello");
  EXPECT_EQ(c.client_key_pem, "PEM");
  EXPECT_EQ(c.token_file, (dir_ / "tok").string());
}

TEST_F(KubeconfigTest, PluginsAndBasicAuthAreNamedAsUnsupported) {
  const std::string exec = write(
      "exec", config_with_user("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                               "      command: aws\n"));
  EXPECT_NE(message_of([&] { load_kubeconfig(exec); }).find("exec credential plugin (unsupported"),
            std::string::npos);
  const std::string provider =
      write("provider", config_with_user("    auth-provider:\n      name: gcp\n"));
  EXPECT_NE(message_of([&] { load_kubeconfig(provider); }).find("auth-provider plugin"),
            std::string::npos);
  const std::string basic = write("basic", config_with_user("    username: u\n    password: p\n"));
  EXPECT_NE(message_of([&] { load_kubeconfig(basic); }).find("basic authentication"),
            std::string::npos);
}

TEST_F(KubeconfigTest, MissingEntriesAreNamed) {
  const std::string path = write("config", config_with_user("    token: t\n"));
  EXPECT_NE(
      message_of([&] { load_kubeconfig(path, "nope"); }).find("no entry named 'nope' in contexts"),
      std::string::npos);
  const std::string no_cluster = write(
      "c2", "current-context: a\ncontexts:\n- name: a\n  context: {cluster: gone, user: u}\n");
  EXPECT_NE(
      message_of([&] { load_kubeconfig(no_cluster); }).find("no entry named 'gone' in clusters"),
      std::string::npos);
  const std::string no_server =
      write("c3",
            "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\n"
            "clusters:\n- name: c\n  cluster: {insecure-skip-tls-verify: true}\n");
  EXPECT_NE(message_of([&] { load_kubeconfig(no_server); }).find("has no server"),
            std::string::npos);
  const std::string no_current = write("c4", "apiVersion: v1\nkind: Config\n");
  EXPECT_NE(message_of([&] { load_kubeconfig(no_current); }).find("no current-context"),
            std::string::npos);
  EXPECT_NE(message_of([&] { load_kubeconfig((dir_ / "absent").string()); }).find("cannot read"),
            std::string::npos);
  // A FIFO (or a device) as the kubeconfig is refused at once: reading it would block forever.
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(message_of([&] { load_kubeconfig(fifo); }).find("not a regular file"),
            std::string::npos);
  const std::string broken = write("c5", "current-context: [a\n");
  EXPECT_NE(message_of([&] { load_kubeconfig(broken); }).find(broken + ":"), std::string::npos);
}

TEST_F(KubeconfigTest, BadDataAndHalfACertificateAreErrors) {
  const std::string bad = write("bad", config_with_user("    client-certificate-data: a*b\n"));
  EXPECT_NE(message_of([&] { load_kubeconfig(bad); }).find("not base64"), std::string::npos);
  const std::string half = write("half", config_with_user("    client-certificate: c.pem\n"));
  EXPECT_NE(message_of([&] { load_kubeconfig(half); }).find("without its key"), std::string::npos);
}

TEST(Base64Test, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(decode_base64("aGVsbG8=", "x"), "hello");
  EXPECT_EQ(decode_base64("aGVsbG8", "x"), "hello");
  EXPECT_EQ(decode_base64("YQ==\n", "x"), "a");
}

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_.empty()) {
      ::unsetenv(name_);
    } else {
      ::setenv(name_, old_.c_str(), 1);
    }
  }

 private:
  const char* name_;
  std::string old_;
};

TEST_F(KubeconfigTest, InClusterNeedsTheServiceEnvironment) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", nullptr);
  EXPECT_NE(message_of([&] { in_cluster_config(dir_.string()); }).find("not running in a pod"),
            std::string::npos);
}

TEST_F(KubeconfigTest, InClusterTokenIsReReadWhenRotated) {
  ScopedEnv host("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  ScopedEnv port("KUBERNETES_SERVICE_PORT", "443");
  write("token", "first\n");
  const ApiConfig c = in_cluster_config(dir_.string());
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.ca_file, (dir_ / "ca.crt").string());
  const ApiClient client(c);
  EXPECT_EQ(client.auth_header(), "Bearer first");
  // The kubelet swaps the projected file; a later modification time must be seen.
  std::filesystem::last_write_time(
      dir_ / "token", std::filesystem::file_time_type::clock::now() - std::chrono::seconds(10));
  EXPECT_EQ(client.auth_header(), "Bearer first");
  write("token", "second");
  std::filesystem::last_write_time(dir_ / "token", std::filesystem::file_time_type::clock::now());
  EXPECT_EQ(client.auth_header(), "Bearer second");
}

}  // namespace
}  // namespace slicelab::k8s
