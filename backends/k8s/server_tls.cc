#include "backends/k8s/server_tls.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>
#include <stdexcept>

namespace slicelab::k8s {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's queue of errors as one line (and the queue emptied).
std::string openssl_errors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

[[noreturn]] void fail(const std::string& option, const std::string& file,
                       const std::string& what) {
  throw std::runtime_error(fmt::format("{} {}: {}: {}", option, file, what, openssl_errors()));
}

}  // namespace

std::shared_ptr<ssl::context> make_server_tls_context(const ServerTlsFiles& files,
                                                      ClientCertificates clients) {
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* ctx = context->native_handle();
  // TLS 1.2 and 1.3 only; no renegotiation, no compression; the server's cipher order.
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
    throw std::runtime_error("TLS 1.2 is not available: " + openssl_errors());
  SSL_CTX_set_options(
      ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  // TLS 1.2: forward-secret AEAD suites only (what Go's client, kube-scheduler's, offers first).
  if (SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20") != 1)
    throw std::runtime_error("no TLS 1.2 cipher suite: " + openssl_errors());
  if (SSL_CTX_use_certificate_chain_file(ctx, files.cert_file.c_str()) != 1)
    fail("--tls-cert-file", files.cert_file, "cannot use the certificate");
  if (SSL_CTX_use_PrivateKey_file(ctx, files.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    fail("--tls-private-key-file", files.key_file, "cannot use the private key");
  if (SSL_CTX_check_private_key(ctx) != 1)
    fail("--tls-private-key-file", files.key_file, "the key does not match --tls-cert-file");
  if (!files.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, files.client_ca_file.c_str(), nullptr) != 1)
      fail("--client-ca-file", files.client_ca_file, "cannot load the CA certificates");
    // The CA names go in the CertificateRequest, so a client with several certificates picks
    // the one this CA signed.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca_file.c_str());
    if (names == nullptr)
      fail("--client-ca-file", files.client_ca_file, "no CA certificate in the file");
    SSL_CTX_set_client_CA_list(ctx, names);
    int mode = SSL_VERIFY_PEER;
    if (clients == ClientCertificates::kRequired) mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, nullptr);
    // Without an id context OpenSSL fails the handshake of a client resuming a session.
    static constexpr unsigned char kContext[] = "slicelab-extender";
    SSL_CTX_set_session_id_context(ctx, kContext, sizeof kContext - 1);
  }
  return context;
}

}  // namespace slicelab::k8s
