// The API server's REST client (api_client.h): connections, credentials, Status errors and
// line-streamed GETs.
#include "backends/k8s/api_client.h"

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "workloads/bounded_json.h"
#include "workloads/input_error.h"
#include "workloads/text_file.h"

namespace slicelab::k8s {
namespace {

struct ServerUrl {
  bool https = true;
  std::string host;
  int port = 443;
  std::string base_path;  // a proxy's prefix ("/k8s/clusters/c-1"), "" for most servers
};

ServerUrl parse_server(const std::string& server) {
  ServerUrl u;
  std::string rest;
  if (server.rfind("https://", 0) == 0) {
    rest = server.substr(8);
  } else if (server.rfind("http://", 0) == 0) {
    u.https = false;
    u.port = 80;
    rest = server.substr(7);
  } else {
    throw InputError("API server '" + server + "': not an http:// or https:// URL");
  }
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    u.base_path = rest.substr(slash);
    rest.resize(slash);
    while (!u.base_path.empty() && u.base_path.back() == '/') u.base_path.pop_back();
  }
  size_t port_colon = std::string::npos;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) throw InputError("API server '" + server + "': bad IPv6 host");
    u.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') port_colon = close + 1;
  } else {
    port_colon = rest.rfind(':');
    u.host = rest.substr(0, port_colon);
  }
  if (port_colon != std::string::npos) {
    const std::string p = rest.substr(port_colon + 1);
    try {
      size_t used = 0;
      u.port = std::stoi(p, &used);
      if (used != p.size() || u.port <= 0 || u.port > 65535) throw std::out_of_range(p);
    } catch (const std::exception&) {
      throw InputError("API server '" + server + "': bad port '" + p + "'");
    }
  }
  if (u.host.empty()) throw InputError("API server '" + server + "': no host");
  return u;
}

std::string read_file_text(const std::string& path) {
  return read_text_file(path, kMaxTextBytes);  // refuses FIFOs, devices and oversized files
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct StoreFree {
  void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};

std::unique_ptr<BIO, BioFree> bio_of(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Every certificate of a PEM bundle, as a store (a CA bundle may hold several).
std::unique_ptr<X509_STORE, StoreFree> store_of(const std::string& pem, const std::string& what) {
  std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
  auto bio = bio_of(pem);
  int count = 0;
  while (true) {
    std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    X509_STORE_add_cert(store.get(), cert.get());
    ++count;
  }
  if (count == 0) throw InputError(what + ": no PEM certificate in it");
  return store;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string url_escape(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

std::string status_message(int status, const std::string& body, std::string* reason) {
  nlohmann::json j;
  try {
    j = parse_bounded_json(body);
  } catch (const JsonLimitError&) {
  }
  if (j.is_object() && j.value("kind", "") == "Status") {
    if (reason != nullptr && j.contains("reason") && j["reason"].is_string()) {
      *reason = j["reason"].get<std::string>();
    }
    if (j.contains("message") && j["message"].is_string()) {
      return "HTTP " + std::to_string(status) + ": " + j["message"].get<std::string>();
    }
  }
  return "HTTP " + std::to_string(status) + ": " + body.substr(0, 200);
}

ApiClient::ApiClient(ApiConfig config) : config_(std::move(config)) {
  parse_server(config_.server);  // bad URLs fail here, not on the first request
}

ApiClient::~ApiClient() = default;

std::unique_ptr<httplib::ClientImpl> ApiClient::connect(int read_timeout_s) const {
  const ServerUrl u = parse_server(config_.server);
  std::unique_ptr<httplib::ClientImpl> c;
  if (!u.https) {
    c = std::make_unique<httplib::ClientImpl>(u.host, u.port);
  } else {
    std::unique_ptr<httplib::SSLClient> s;
    const bool cert_data = !config_.client_cert_pem.empty();
    if (cert_data || (!config_.client_cert_file.empty() && !config_.client_key_pem.empty())) {
      // In-memory certificate and key: SSL_CTX_use_* take their own references.
      const std::string cert_pem =
          cert_data ? config_.client_cert_pem : read_file_text(config_.client_cert_file);
      const std::string key_pem = !config_.client_key_pem.empty()
                                      ? config_.client_key_pem
                                      : read_file_text(config_.client_key_file);
      std::unique_ptr<X509, X509Free> cert(
          PEM_read_bio_X509(bio_of(cert_pem).get(), nullptr, nullptr, nullptr));
      std::unique_ptr<EVP_PKEY, KeyFree> key(
          PEM_read_bio_PrivateKey(bio_of(key_pem).get(), nullptr, nullptr, nullptr));
      if (!cert || !key) {
        throw InputError(config_.source + ": the client certificate or key is not valid PEM");
      }
      s = std::make_unique<httplib::SSLClient>(u.host, u.port, cert.get(), key.get());
    } else if (!config_.client_cert_file.empty()) {
      s = std::make_unique<httplib::SSLClient>(u.host, u.port, config_.client_cert_file,
                                               config_.client_key_file);
    } else {
      s = std::make_unique<httplib::SSLClient>(u.host, u.port);
    }
    if (!s->is_valid()) {
      throw ApiError(0, "", config_.source + ": TLS setup failed (client certificate or key)");
    }
    if (!config_.ca_pem.empty()) {
      s->set_ca_cert_store(store_of(config_.ca_pem, config_.source + ": certificate-authority-data")
                               .release());  // the SSL context owns the store from here
    } else if (!config_.ca_file.empty()) {
      s->set_ca_cert_path(config_.ca_file);
    }
    s->enable_server_certificate_verification(!config_.insecure_skip_tls_verify);
    c = std::move(s);
  }
  c->set_connection_timeout(kConnectTimeoutS, 0);
  c->set_read_timeout(read_timeout_s, 0);
  c->set_write_timeout(kReadTimeoutS, 0);
  c->set_keep_alive(true);
  // Headers and body go out in separate writes: without this, Nagle's algorithm and the
  // server's delayed ACK hold every small request for ~40 ms.
  c->set_tcp_nodelay(true);
  return c;
}

std::string ApiClient::auth_header() const {
  if (!config_.token.empty()) return "Bearer " + config_.token;
  if (config_.token_file.empty()) return "";
  std::lock_guard lock(token_mutex_);
  struct stat st {};
  if (::stat(config_.token_file.c_str(), &st) == 0) {
    const long long mtime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL +
                            static_cast<long long>(st.st_mtim.tv_nsec);
    if (mtime != file_token_mtime_) {
      // An unreadable token file (mid-rotation, replaced by a FIFO) keeps the last token.
      try {
        file_token_ = trim(read_text_file(config_.token_file, kMaxTextBytes));
        file_token_mtime_ = mtime;
      } catch (const InputError&) {
      }
    }
  }
  return file_token_.empty() ? "" : "Bearer " + file_token_;
}

namespace {

httplib::Request base_request(const ApiClient& client, const std::string& method,
                              const std::string& path) {
  httplib::Request req;
  req.method = method;
  req.path = parse_server(client.config().server).base_path + path;
  req.headers.emplace("Accept", "application/json");
  if (const std::string auth = client.auth_header(); !auth.empty()) {
    req.headers.emplace("Authorization", auth);
  }
  return req;
}

std::string seconds_text(std::chrono::milliseconds d) {
  const auto ms = d.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// Why a request that the watchdog cut has no answer.
std::string cut_reason(ConnectionWatchdog::Cut cut, std::chrono::milliseconds total) {
  return cut == ConnectionWatchdog::Cut::kDeadline
             ? "no complete answer within " + seconds_text(total)
             : "cancelled: the client is stopping";
}

// Collects an answer's body into `received`, refusing (and setting `too_big`) once it would pass
// `max_body_bytes`, so that no answer is held whole past its limit.
void receive_bounded(httplib::Request& req, std::string& received, bool& too_big,
                     size_t max_body_bytes) {
  req.content_receiver = [&received, &too_big, max_body_bytes](const char* data, size_t n, uint64_t,
                                                               uint64_t) {
    if (received.size() + n > max_body_bytes) {
      too_big = true;
      return false;
    }
    received.append(data, n);
    return true;
  };
}

}  // namespace

void ApiClient::shutdown() {
  watchdog_.shutdown();
}

ApiResponse ApiClient::request(const std::string& method, const std::string& path,
                               const std::string& body, const std::string& content_type,
                               size_t max_body_bytes) {
  httplib::Request req = base_request(*this, method, path);
  if (!body.empty() || !content_type.empty()) {
    req.body = body;
    req.headers.emplace("Content-Type", content_type.empty() ? "application/json" : content_type);
  }
  std::string received;
  bool too_big = false;
  receive_bounded(req, received, too_big, max_body_bytes);
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool ok = false;
  ConnectionWatchdog::Cut cut = ConnectionWatchdog::Cut::kNone;
  {
    std::lock_guard lock(conn_mutex_);
    if (watchdog_.is_shut_down()) {
      throw ApiError(0, "", method + " " + path + ": cancelled: the client is stopping");
    }
    if (!conn_) conn_ = connect(kReadTimeoutS);
    const uint64_t id =
        watchdog_.watch(*conn_, ConnectionWatchdog::Clock::now() + kRequestDeadline);
    ok = conn_->send(req, res, err);
    cut = watchdog_.release(id);
    if (!ok || cut != ConnectionWatchdog::Cut::kNone) conn_.reset();  // a fresh one next time
  }
  if (too_big) {
    throw ApiError(
        0, ApiError::kTooLarge,
        method + " " + path + ": answer over " + std::to_string(max_body_bytes) + " bytes");
  }
  if (!ok) {
    const std::string why = cut != ConnectionWatchdog::Cut::kNone
                                ? cut_reason(cut, kRequestDeadline)
                                : httplib::to_string(err);
    throw ApiError(0, "", method + " " + config_.server + path + ": " + why);
  }
  return ApiResponse{res.status, std::move(received)};
}

namespace {

nlohmann::json json_or_throw(const std::string& what, const ApiResponse& r) {
  if (r.status < 200 || r.status > 299) {
    std::string reason;
    const std::string msg = status_message(r.status, r.body, &reason);
    throw ApiError(r.status, reason, what + ": " + msg);
  }
  try {
    return parse_bounded_json(r.body);
  } catch (const JsonLimitError& e) {
    throw ApiError(r.status, "",
                   what + ": the answer is not JSON that can be read (at byte " +
                       std::to_string(e.offset()) + ": " + e.what() + ")");
  }
}

}  // namespace

nlohmann::json ApiClient::get_json(const std::string& path, size_t max_body_bytes) {
  return json_or_throw("GET " + path, request("GET", path, "", "", max_body_bytes));
}

nlohmann::json ApiClient::post_json(const std::string& path, const nlohmann::json& body) {
  return json_or_throw("POST " + path, request("POST", path, body.dump(), "application/json"));
}

nlohmann::json ApiClient::merge_patch(const std::string& path, const nlohmann::json& patch) {
  return json_or_throw("PATCH " + path,
                       request("PATCH", path, patch.dump(), "application/merge-patch+json"));
}

void LineStream::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  if (watchdog_ != nullptr) watchdog_->cancel(active_);
}

uint64_t LineStream::begin(ApiClient& client, httplib::ClientImpl& conn,
                           std::chrono::milliseconds total) {
  std::lock_guard lock(mutex_);
  if (stopped_) return 0;
  watchdog_ = &client.watchdog();
  active_ = watchdog_->watch(conn, ConnectionWatchdog::Clock::now() + total);
  return active_;
}

ConnectionWatchdog::Cut LineStream::end(ApiClient& client, uint64_t id) {
  const ConnectionWatchdog::Cut cut = client.watchdog().release(id);
  std::lock_guard lock(mutex_);
  watchdog_ = nullptr;
  active_ = 0;
  return cut;
}

ApiResponse LineStream::get(ApiClient& client, const std::string& path, size_t max_body_bytes,
                            std::chrono::milliseconds total) {
  const std::string what = "GET " + path + ": ";
  std::unique_ptr<httplib::ClientImpl> conn = client.connect(ApiClient::kReadTimeoutS);
  const uint64_t id = begin(client, *conn, total);
  if (id == 0) throw ApiError(0, "", what + "cancelled: the stream is stopped");
  httplib::Request req = base_request(client, "GET", path);
  std::string received;
  bool too_big = false;
  receive_bounded(req, received, too_big, max_body_bytes);
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool ok = conn->send(req, res, err);
  const ConnectionWatchdog::Cut cut = end(client, id);
  if (too_big) {
    throw ApiError(0, ApiError::kTooLarge,
                   what + "answer over " + std::to_string(max_body_bytes) + " bytes");
  }
  if (!ok) {
    throw ApiError(0, "",
                   what + (cut != ConnectionWatchdog::Cut::kNone ? cut_reason(cut, total)
                                                                 : httplib::to_string(err)));
  }
  return ApiResponse{res.status, std::move(received)};
}

StreamEnd LineStream::run(ApiClient& client, const std::string& path, size_t max_line_bytes,
                          const std::function<bool(std::string_view)>& on_line,
                          std::chrono::milliseconds total) {
  // A watch sends at least a bookmark or the end of its timeoutSeconds within this; a silent
  // connection longer than that is a dead one.
  constexpr int kStreamReadTimeoutS = 15 * 60;
  std::unique_ptr<httplib::ClientImpl> conn = client.connect(kStreamReadTimeoutS);
  const uint64_t id = begin(client, *conn, total);
  if (id == 0) return StreamEnd::kStopped;
  httplib::Request req = base_request(client, "GET", path);
  int status = 0;
  std::string pending;  // the current line's start (or an error body)
  bool oversized = false, caller_stopped = false;
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (stopped_) return false;
    if (status < 200 || status > 299) {
      if (pending.size() < (size_t{64} << 10)) pending.append(data, n);
      return true;
    }
    std::string_view chunk(data, n);
    while (!chunk.empty()) {
      const size_t nl = chunk.find('\n');
      const size_t take = nl == std::string_view::npos ? chunk.size() : nl;
      if (pending.size() + take > max_line_bytes) {
        oversized = true;
        return false;
      }
      pending.append(chunk.data(), take);
      if (nl == std::string_view::npos) break;
      chunk.remove_prefix(nl + 1);
      if (!pending.empty() && !on_line(pending)) {
        caller_stopped = true;
        return false;
      }
      pending.clear();
    }
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  const bool ok = conn->send(req, res, err);
  const ConnectionWatchdog::Cut cut = end(client, id);
  if (oversized) return StreamEnd::kOversized;
  if (caller_stopped || stopped_) return StreamEnd::kStopped;
  if (cut == ConnectionWatchdog::Cut::kCancelled) return StreamEnd::kStopped;
  if (!ok || cut == ConnectionWatchdog::Cut::kDeadline) return StreamEnd::kBroken;
  if (status < 200 || status > 299) {
    std::string reason;
    const std::string msg = status_message(status, pending, &reason);
    throw ApiError(status, reason, "GET " + path + ": " + msg);
  }
  if (!pending.empty() && !on_line(pending)) return StreamEnd::kStopped;
  return StreamEnd::kFinished;
}

}  // namespace slicelab::k8s
