// The TLS side of the extender's server: an OpenSSL context (through Boost.Asio) with the
// server's certificate, TLS 1.2 or newer only, and client certificates verified against a CA.
#pragma once

#include <memory>
#include <string>

namespace boost::asio::ssl {
class context;
}

namespace slicelab::k8s {

// PEM files, as kube-scheduler's extender tlsConfig pairs with them: the server's certificate
// (chain) and private key, and the CA that signs the clients' certificates (certFile/keyFile of
// tlsConfig); without a CA, clients are not asked for a certificate.
struct ServerTlsFiles {
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;
};

// How a client certificate is treated when a CA is given.
enum class ClientCertificates {
  kRequired,  // the handshake fails without one the CA signed
  kOptional,  // one the CA did not sign fails the handshake; none at all is let through (another
              // credential, a bearer token, then authenticates the request)
};

// Reads the files once: a certificate renewed on disk takes effect when the server restarts.
// Throws std::runtime_error naming the file and OpenSSL's reason when one cannot be used (not
// found, not PEM, a key that does not match the certificate).
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const ServerTlsFiles& files,
                                                                   ClientCertificates clients);

}  // namespace slicelab::k8s
