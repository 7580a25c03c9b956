// Certificates for TLS tests, made for each run with the openssl command in the test's own
// folder: a CA, a server certificate for 127.0.0.1 and a client certificate it signed, and a
// client certificate signed by another CA.
#pragma once

#include <filesystem>
#include <string>

#include "tests/support/cli_run.h"

namespace slicelab::testing {

struct TestCertificates {
  std::filesystem::path ca_crt, server_crt, server_key, client_crt, client_key;
  std::filesystem::path stranger_ca_crt, stranger_crt, stranger_key;  // another CA's client
};

// Writes the files into `dir`; returns "" or the command that failed.
inline std::string make_test_certificates(const std::filesystem::path& dir, TestCertificates& out) {
  const auto path = [&](const std::string& name) { return dir / name; };
  const auto q = [&](const std::string& name) { return shell_quote(path(name).string()); };
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
  const auto ca = [&](const std::string& stem, const std::string& cn) {
    return "openssl req -x509 " + key + "-days 2 -keyout " + q(stem + ".key") + " -out " +
           q(stem + ".crt") + " -subj /CN=" + cn;
  };
  const auto leaf = [&](const std::string& stem, const std::string& cn, const std::string& issuer,
                        const std::string& ext, int serial) {
    return "openssl req " + key + "-keyout " + q(stem + ".key") + " -out " + q(stem + ".csr") +
           " -subj /CN=" + cn + " && printf '%s\\n' " + shell_quote(ext) + " > " +
           q(stem + ".ext") + " && openssl x509 -req -in " + q(stem + ".csr") + " -CA " +
           q(issuer + ".crt") + " -CAkey " + q(issuer + ".key") + " -set_serial " +
           std::to_string(serial) + " -days 2 -extfile " + q(stem + ".ext") + " -out " +
           q(stem + ".crt");
  };
  const std::string commands[] = {
      ca("ca", "slicelab-test-ca"),
      ca("stranger-ca", "stranger-ca"),
      leaf("server", "127.0.0.1", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth",
           1),
      leaf("client", "kube-scheduler", "ca", "extendedKeyUsage=clientAuth", 2),
      leaf("stranger", "kube-scheduler", "stranger-ca", "extendedKeyUsage=clientAuth", 3),
  };
  for (const std::string& c : commands) {
    if (run_shell("(" + c + ") >/dev/null 2>&1") != 0) return c;
  }
  out.ca_crt = path("ca.crt");
  out.server_crt = path("server.crt");
  out.server_key = path("server.key");
  out.client_crt = path("client.crt");
  out.client_key = path("client.key");
  out.stranger_ca_crt = path("stranger-ca.crt");
  out.stranger_crt = path("stranger.crt");
  out.stranger_key = path("stranger.key");
  return "";
}

}  // namespace slicelab::testing
