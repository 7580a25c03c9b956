// A REST client of the Kubernetes API server (cpp-httplib, TLS through OpenSSL): JSON requests
// with the configured credentials, errors read from the server's Status objects, and streamed
// GETs read line by line for watches. Every request has a total deadline and can be cancelled
// from another thread; answers are parsed with their depth and memory bounded.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "backends/k8s/api_config.h"
#include "backends/k8s/connection_watchdog.h"

namespace httplib {
class ClientImpl;
}

namespace slicelab::k8s {

class ApiClient;

// A failed request. `status` is the HTTP status (0 when no answer came: connection refused,
// broken stream, TLS failure, deadline passed, cancelled); `reason` the Status object's reason
// ("NotFound", "Conflict", "Expired", ...) when the server sent one, kTooLarge for an answer
// over the byte limit.
class ApiError : public std::runtime_error {
 public:
  // The reason of a failure the client itself found: the answer passed its byte limit.
  static constexpr const char* kTooLarge = "AnswerTooLarge";
  ApiError(int status, std::string reason, const std::string& message)
      : std::runtime_error(message), status_(status), reason_(std::move(reason)) {}
  int status() const { return status_; }
  const std::string& reason() const { return reason_; }

 private:
  int status_;
  std::string reason_;
};

// The message of a failed answer: the Status object's message when the body is one, else the
// body's first 200 bytes.
std::string status_message(int status, const std::string& body, std::string* reason = nullptr);

struct ApiResponse {
  int status = 0;
  std::string body;
};

// How a streamed GET ended.
enum class StreamEnd {
  kFinished,   // the server ended the response (a watch's timeoutSeconds ran out)
  kStopped,    // the caller's on_line returned false, or stop() was called
  kBroken,     // the connection failed or closed mid-response
  kOversized,  // a line passed the limit: the stream was cut there
};

// GETs on a connection of their own (a watch's stream, a LIST's pages), so that a long read does
// not hold up other requests, and stop() (from any thread) can cut it within milliseconds.
class LineStream {
 public:
  LineStream() = default;
  ~LineStream() = default;
  LineStream(const LineStream&) = delete;
  LineStream& operator=(const LineStream&) = delete;
  // Sends the GET and calls on_line for each complete line (without its '\n') until the
  // response ends, or `total` has passed since the request began (then kBroken). A non-2xx
  // answer throws ApiError with the Status's message; a 2xx answer returns how the stream ended.
  StreamEnd run(ApiClient& client, const std::string& path, size_t max_line_bytes,
                const std::function<bool(std::string_view)>& on_line,
                std::chrono::milliseconds total);
  // One GET read whole: the answer (any status), or ApiError(0, ...) when none came whole within
  // `total`, the body passed `max_body_bytes`, or stop() cut it.
  ApiResponse get(ApiClient& client, const std::string& path, size_t max_body_bytes,
                  std::chrono::milliseconds total);
  // Breaks the current (and any later) run or get of this stream.
  void stop();

 private:
  // Registers `conn` with the client's watchdog (returns 0 when already stopped).
  uint64_t begin(ApiClient& client, httplib::ClientImpl& conn, std::chrono::milliseconds total);
  ConnectionWatchdog::Cut end(ApiClient& client, uint64_t id);

  std::mutex mutex_;
  ConnectionWatchdog* watchdog_ = nullptr;  // the client's, while a request is in flight
  uint64_t active_ = 0;                     // that request's watch id
  std::atomic<bool> stopped_{false};
};

class ApiClient {
 public:
  // Connection attempts and reads give up after these; a watch passes its own read timeout.
  static constexpr int kConnectTimeoutS = 10;
  static constexpr int kReadTimeoutS = 60;
  // A plain request's whole answer must arrive within this (a server that trickles it a byte at
  // a time is cut here, not after a read timeout per byte).
  static constexpr std::chrono::seconds kRequestDeadline{30};
  // The largest body a plain request reads (one object, a small list).
  static constexpr size_t kDefaultMaxBodyBytes = size_t{64} << 20;

  explicit ApiClient(ApiConfig config);
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  const ApiConfig& config() const { return config_; }

  // One request; throws ApiError(0, ...) when no answer came whole within kRequestDeadline, the
  // body passed the limit, or shutdown() cut it.
  ApiResponse request(const std::string& method, const std::string& path,
                      const std::string& body = "", const std::string& content_type = "",
                      size_t max_body_bytes = kDefaultMaxBodyBytes);
  // GET/POST/merge-PATCH of JSON; a non-2xx answer throws ApiError with the Status's message,
  // and so does an answer that is not JSON or nests deeper than 64 levels (parsed with its depth
  // and memory bounded, workloads/bounded_json.h).
  nlohmann::json get_json(const std::string& path, size_t max_body_bytes = kDefaultMaxBodyBytes);
  nlohmann::json post_json(const std::string& path, const nlohmann::json& body);
  nlohmann::json merge_patch(const std::string& path, const nlohmann::json& patch);

  // A new connection to the server with TLS and timeouts set (no credentials: those are
  // headers, from auth_header()). Used by request() and by LineStream.
  std::unique_ptr<httplib::ClientImpl> connect(int read_timeout_s) const;
  // "Bearer <token>" from the inline token or the token file (re-read when its modification
  // time changes, as the kubelet rotates projected tokens); "" when none.
  std::string auth_header() const;

  // Cuts every request in flight (plain ones, LineStreams' runs and gets) within milliseconds,
  // and makes every later one fail at once: for a prompt exit.
  void shutdown();
  // Where this client's requests are watched for their deadlines and cut.
  ConnectionWatchdog& watchdog() { return watchdog_; }

 private:
  ApiConfig config_;
  ConnectionWatchdog watchdog_;  // declared before conn_: destroyed after the connection it watches
  mutable std::mutex token_mutex_;
  mutable std::string file_token_;
  mutable long long file_token_mtime_ = -1;
  std::mutex conn_mutex_;  // one request at a time on the kept connection
  std::unique_ptr<httplib::ClientImpl> conn_;
};

// `s` escaped for a URL path segment or query value (RFC 3986 unreserved kept).
std::string url_escape(std::string_view s);

}  // namespace slicelab::k8s
