#include "backends/k8s/decision_line.h"

#include <charconv>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

namespace slicelab::k8s {
namespace {

// Appends into a fixed buffer; once something did not fit, every later append is refused too.
class DecisionLineAppender {
 public:
  explicit DecisionLineAppender(std::span<char> out) : out_(out) {}
  void raw(std::string_view s) {
    if (!ok_ || s.size() > out_.size() - len_) {
      ok_ = false;
      return;
    }
    std::memcpy(out_.data() + len_, s.data(), s.size());
    len_ += s.size();
  }
  void integer(int64_t v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    raw({buf, static_cast<size_t>(r.ptr - buf)});
  }
  // A JSON string: quotes, backslash and control characters escaped; other bytes as they are
  // (Kubernetes names are ASCII; a hostile one stays one valid string).
  void string(std::string_view s) {
    raw("\"");
    for (const char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"') {
        raw("\\\"");
      } else if (c == '\\') {
        raw("\\\\");
      } else if (u < 0x20 || u == 0x7f) {
        constexpr std::string_view kHex = "0123456789abcdef";
        const char esc[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 0xf]};
        raw({esc, sizeof esc});
      } else {
        raw({&c, 1});
      }
    }
    raw("\"");
  }
  size_t done() const { return ok_ ? len_ : 0; }

 private:
  std::span<char> out_;
  size_t len_ = 0;
  bool ok_ = true;
};

void append_recording_time(DecisionLineAppender& a, std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  a.raw({buf, n});
  const auto frac = static_cast<int>(ms.count() % 1000);
  const char millis[5] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10), 'Z'};
  a.raw({millis, sizeof millis});
}

}  // namespace

std::string format_recording_time(std::chrono::system_clock::time_point t) {
  char buf[40];
  DecisionLineAppender a(buf);
  append_recording_time(a, t);
  return {buf, a.done()};
}

size_t format_decision_line(std::span<char> out, std::chrono::system_clock::time_point at,
                            const ShadowDecision& d) {
  const size_t slash = d.pod.find('/');
  const std::string_view ns = slash == std::string_view::npos ? "" : d.pod.substr(0, slash);
  const std::string_view name = slash == std::string_view::npos ? d.pod : d.pod.substr(slash + 1);
  DecisionLineAppender a(out);
  a.raw("{\"at\":\"");
  append_recording_time(a, at);
  a.raw("\",\"type\":\"DECISION\",\"namespace\":");
  a.string(ns);
  a.raw(",\"name\":");
  a.string(name);
  a.raw(",\"uid\":");
  a.string(d.uid);
  a.raw(",\"node\":");
  a.string(d.node);
  a.raw(",\"gpus\":[");
  for (size_t i = 0; i < d.gpus.size(); ++i) {
    if (i > 0) a.raw(",");
    a.integer(d.gpus[i]);
  }
  a.raw("],\"feasible\":");
  a.integer(static_cast<int64_t>(d.feasible_nodes));
  a.raw("}\n");
  return a.done();
}

std::string format_figures_line(std::chrono::system_clock::time_point at,
                                const DecisionFiguresLine& f) {
  nlohmann::ordered_json j = {{"at", format_recording_time(at)},
                              {"type", "FIGURES"},
                              {"decisions", f.decisions},
                              {"same_node", f.same_node},
                              {"different_node", f.different_node},
                              {"pending_placeable", f.pending_placeable},
                              {"fragmented_gpus_actual", f.fragmented_gpus_actual},
                              {"fragmented_gpus_slicelab", f.fragmented_gpus_slicelab},
                              {"dropped", f.dropped}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string format_start_line(std::chrono::system_clock::time_point at, bool resumed,
                              std::string_view policy) {
  nlohmann::ordered_json j = {{"at", format_recording_time(at)},
                              {"type", "START"},
                              {"resumed", resumed},
                              {"policy", std::string(policy)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace slicelab::k8s
