// Reading a kubeconfig's current context and the in-cluster service account (api_config.h).
#include "backends/k8s/api_config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>

#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab::k8s {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p, const std::string& what) {
  // read_text_file refuses FIFOs, devices and files beyond the limit: a kubeconfig argument
  // that points at one must not hang or fill memory.
  try {
    return read_text_file(p.string(), kMaxConfigYamlBytes);
  } catch (const InputError& e) {
    throw InputError(what + ": cannot read " + e.what());
  }
}

// The `field` map of the entry named `name` in the list `list` ("clusters", "users", ...).
YAML::Node named_entry(const YAML::Node& root, const std::string& list, const std::string& field,
                       const std::string& name, const std::string& where) {
  const YAML::Node entries = root[list];
  if (entries && !entries.IsSequence()) throw InputError(where + ": " + list + " is not a list");
  if (entries) {
    for (const YAML::Node& e : entries) {
      if (e.IsMap() && e["name"] && e["name"].as<std::string>() == name) {
        const YAML::Node body = e[field];
        if (!body || !body.IsMap()) {
          throw InputError(where + ": " + list + " entry '" + name + "' has no " + field + " map");
        }
        return body;
      }
    }
  }
  throw InputError(where + ": no entry named '" + name + "' in " + list);
}

std::string text_of(const YAML::Node& map, const char* key) {
  const YAML::Node v = map[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

// kubectl resolves a kubeconfig's relative paths against the file's folder.
std::string resolve(const std::string& p, const fs::path& base) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (base / p).string();
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string decode_base64(const std::string& text, const std::string& what) {
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    const int v = base64_value(c);
    if (v < 0) throw InputError(what + ": not base64 (character '" + std::string(1, c) + "')");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

ApiConfig load_kubeconfig(const std::string& path, const std::string& context) {
  const std::string where = "kubeconfig " + path;
  YAML::Node root;
  try {
    root = YAML::Load(read_text(path, where));
  } catch (const YAML::Exception& e) {
    throw InputError(where + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  if (!root.IsMap()) throw InputError(where + ": expected a map (kind: Config)");
  const std::string ctx_name = context.empty() ? text_of(root, "current-context") : context;
  if (ctx_name.empty()) throw InputError(where + ": no current-context and no context given");
  const YAML::Node ctx = named_entry(root, "contexts", "context", ctx_name, where);
  const std::string cluster_name = text_of(ctx, "cluster");
  const std::string user_name = text_of(ctx, "user");
  if (cluster_name.empty())
    throw InputError(where + ": context '" + ctx_name + "' names no cluster");
  const YAML::Node cluster = named_entry(root, "clusters", "cluster", cluster_name, where);
  const fs::path base = fs::path(path).parent_path();

  ApiConfig c;
  c.source = where + " (context " + ctx_name + ")";
  c.server = text_of(cluster, "server");
  if (c.server.empty()) throw InputError(where + ": cluster '" + cluster_name + "' has no server");
  while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
  if (c.server.rfind("https://", 0) != 0 && c.server.rfind("http://", 0) != 0) {
    throw InputError(where + ": cluster '" + cluster_name + "': server '" + c.server +
                     "' is not an http:// or https:// URL");
  }
  c.ca_file = resolve(text_of(cluster, "certificate-authority"), base);
  if (const std::string data = text_of(cluster, "certificate-authority-data"); !data.empty()) {
    c.ca_pem = decode_base64(data, where + ": certificate-authority-data");
  }
  c.insecure_skip_tls_verify = text_of(cluster, "insecure-skip-tls-verify") == "true";

  if (!user_name.empty()) {
    const YAML::Node user = named_entry(root, "users", "user", user_name, where);
    // Plugins run programs or talk to identity providers: out of scope, and silently
    // connecting without credentials would only fail later with a less clear 401.
    if (user["exec"]) {
      throw InputError(where + ": user '" + user_name +
                       "' uses an exec credential plugin (unsupported: give a token, a tokenFile "
                       "or a client certificate)");
    }
    if (user["auth-provider"]) {
      throw InputError(where + ": user '" + user_name +
                       "' uses an auth-provider plugin (unsupported: give a token, a tokenFile "
                       "or a client certificate)");
    }
    if (user["username"] || user["password"]) {
      throw InputError(where + ": user '" + user_name +
                       "' uses basic authentication (unsupported: give a token, a tokenFile or "
                       "a client certificate)");
    }
    c.token = text_of(user, "token");
    c.token_file = resolve(text_of(user, "tokenFile"), base);
    c.client_cert_file = resolve(text_of(user, "client-certificate"), base);
    c.client_key_file = resolve(text_of(user, "client-key"), base);
    if (const std::string d = text_of(user, "client-certificate-data"); !d.empty()) {
      c.client_cert_pem = decode_base64(d, where + ": client-certificate-data");
    }
    if (const std::string d = text_of(user, "client-key-data"); !d.empty()) {
      c.client_key_pem = decode_base64(d, where + ": client-key-data");
    }
    const bool has_cert = !c.client_cert_file.empty() || !c.client_cert_pem.empty();
    const bool has_key = !c.client_key_file.empty() || !c.client_key_pem.empty();
    if (has_cert != has_key) {
      throw InputError(where + ": user '" + user_name +
                       "' gives a client certificate without its key (or a key without its "
                       "certificate)");
    }
  }
  return c;
}

ApiConfig in_cluster_config(const std::string& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr || *host == '\0' || *port == '\0') {
    throw InputError(
        "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
        "set (not running in a pod; give --kubeconfig)");
  }
  ApiConfig c;
  c.source = "in-cluster service account " + account_dir;
  const std::string h = host;
  // An IPv6 service address needs brackets in a URL.
  c.server = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
  c.token_file = (fs::path(account_dir) / "token").string();
  c.ca_file = (fs::path(account_dir) / "ca.crt").string();
  if (!fs::is_regular_file(c.token_file)) {
    throw InputError("in-cluster configuration: no service account token at " + c.token_file);
  }
  return c;
}

}  // namespace slicelab::k8s
