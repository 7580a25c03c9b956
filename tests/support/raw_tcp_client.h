// A TCP client for hostile-client tests: connects to a loopback port (from a chosen loopback
// source address), sends bytes as slowly as the test likes, and reads whatever comes back, with
// every wait bounded.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>

namespace slicelab::testing {

// cpp-httplib's client writes without MSG_NOSIGNAL: a server that closes on a request it
// refuses (413, 401) must fail the write, not end the test process. (cpp-httplib's own server
// ignored SIGPIPE for the whole process; the extender's server does not touch signals.)
inline void ignore_sigpipe() {
  ::signal(SIGPIPE, SIG_IGN);
}

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port` from `source` (any address of 127.0.0.0/8); ok() says whether
  // it worked.
  explicit RawConnection(int port, const char* source = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() { close(); }
  RawConnection(RawConnection&& o) noexcept : fd_(o.fd_), closed_(o.closed_) { o.fd_ = -1; }
  RawConnection& operator=(RawConnection&& o) noexcept {
    if (this != &o) {
      close();
      fd_ = o.fd_;
      closed_ = o.closed_;
      o.fd_ = -1;
    }
    return *this;
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // Everything, or false (the peer closed or reset).
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // What arrives until the peer closes, `until` is found in it, or `timeout` passes.
  std::string read(std::chrono::milliseconds timeout, std::string_view until = {}) {
    std::string out;
    const auto end = std::chrono::steady_clock::now() + timeout;
    char buf[65536];
    for (;;) {
      if (!until.empty() && out.find(until) != std::string::npos) return out;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return out;
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        return out;
      }
      out.append(buf, static_cast<size_t>(n));
    }
  }
  // Whether the peer closed (or reset) the connection within `timeout`; what it sent meanwhile
  // is dropped.
  bool closed_within(std::chrono::milliseconds timeout) {
    const auto end = std::chrono::steady_clock::now() + timeout;
    while (!closed_ && std::chrono::steady_clock::now() < end) {
      read(std::chrono::duration_cast<std::chrono::milliseconds>(end -
                                                                 std::chrono::steady_clock::now()));
    }
    return closed_;
  }
  bool closed() const { return closed_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  bool closed_ = false;
};

// The status code of the first HTTP answer in `text`, or 0.
inline int http_status(std::string_view text) {
  if (text.substr(0, 9) != "HTTP/1.1 " || text.size() < 12) return 0;
  return std::stoi(std::string(text.substr(9, 3)));
}

// An HTTP/1.1 request with a Content-Length (when `body` is not empty or the method is POST).
inline std::string http_request(std::string_view method, std::string_view path,
                                std::string_view body = {}, std::string_view headers = {}) {
  std::string r =
      std::string(method) + " " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  r += headers;
  if (!body.empty() || method == "POST")
    r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  r += "\r\n";
  r += body;
  return r;
}

}  // namespace slicelab::testing
