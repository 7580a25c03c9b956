// Where the Kubernetes API server is and how to authenticate to it: read from a kubeconfig file
// (its current context) or from the pod's in-cluster service account.
#pragma once

#include <string>

namespace slicelab::k8s {

// One API server's address and credentials. PEM data is held decoded; a file path is kept as a
// path (read when the connection is made) so that rotated files are picked up.
struct ApiConfig {
  std::string server;  // "https://host:port" or "http://host:port", no trailing slash
  std::string ca_file;
  std::string ca_pem;  // certificate-authority-data, decoded
  bool insecure_skip_tls_verify = false;
  std::string token;       // bearer token given inline
  std::string token_file;  // bearer token read from this file, re-read when it changes
  std::string client_cert_file, client_key_file;
  std::string client_cert_pem, client_key_pem;  // client-certificate-data / client-key-data
  std::string source;  // where this came from, for messages ("kubeconfig ~/.kube/config")
};

// The current context of a kubeconfig file (or `context` when not empty). Relative file paths
// in it are taken from the file's folder, as kubectl does. Throws InputError naming the file
// and the missing or unsupported entry (exec and auth-provider plugins are unsupported).
ApiConfig load_kubeconfig(const std::string& path, const std::string& context = "");

// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service account's token
// and CA under `account_dir` (the token file is re-read as the kubelet rotates it). Throws
// InputError when not running in a pod.
ApiConfig in_cluster_config(
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// Base64 (standard alphabet, padding optional, whitespace ignored); throws InputError naming
// `what` on a character outside the alphabet.
std::string decode_base64(const std::string& text, const std::string& what);

}  // namespace slicelab::k8s
