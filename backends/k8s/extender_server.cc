#include "backends/k8s/extender_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace slicelab::k8s {
namespace {

ExtenderServer::Reply bad_request(const std::string& message) {
  return {400, nlohmann::json{{"Error", message}}.dump()};
}

// An answer's JSON: text that came from elsewhere (an API server's error message) may hold bytes
// that are not UTF-8, which are replaced rather than failing the answer.
std::string answer(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Parsing the body would pass its memory (the shared budget of the requests in flight, or the
// process's): not the client's fault; kube-scheduler tries the pod again.
ExtenderServer::Reply unavailable(const std::string& message) {
  return {503, nlohmann::json{{"Error", "slicelab: " + message}}.dump()};
}

}  // namespace

ExtenderServer::ExtenderServer(ExtenderState& state, ClusterWriter& writer,
                               ExtenderServerOptions options)
    : state_(state),
      writer_(writer),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  // Bodies above the limit are refused with 413 before they are read in full.
  s.set_payload_max_length(options_.max_body_bytes);
  // Two small writes per answer: without it Nagle and delayed ACKs add 40 ms to a request.
  s.set_tcp_nodelay(true);
  const int threads = options_.threads;
  // cpp-httplib takes ownership of the queue it is handed (its API's only form).
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  const auto post = [this](const std::string& verb,
                           Reply (ExtenderServer::*handler)(const std::string&)) {
    server_->Post(options_.url_prefix + "/" + verb,
                  [this, handler, verb](const httplib::Request& req, httplib::Response& res) {
                    const auto start = std::chrono::steady_clock::now();
                    const Reply r = (this->*handler)(req.body);
                    res.status = r.status;
                    res.set_content(r.body, "application/json");
                    observe(verb, r.status, start);
                  });
  };
  post("filter", &ExtenderServer::handle_filter);
  post("prioritize", &ExtenderServer::handle_prioritize);
  post("bind", &ExtenderServer::handle_bind);
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  s.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const bool ready = state_.ready();
    res.status = ready ? 200 : 503;
    res.set_content(ready ? "ok\n" : "waiting for the node and pod lists\n", "text/plain");
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    MetricsText metrics;
    {
      std::lock_guard lock(metrics_mu_);
      metrics = metrics_;
    }
    res.set_content(metrics ? metrics() : std::string(), std::string(MetricRegistry::kContentType));
  });
  // Every answer is counted here, just before it is written (so a client that reads it finds
  // it counted): also those httplib gives itself (413 for a body over the limit, 404 for an
  // unknown path), which no handler sees. Probes and scrapes are not extender requests.
  s.set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (request_metrics_ == nullptr) return;
    if (req.method == "GET" &&
        (req.path == "/healthz" || req.path == "/readyz" || req.path == "/metrics")) {
      return;
    }
    std::string_view verb = "other";
    const std::string_view path = req.path;
    if (path.size() > options_.url_prefix.size() + 1 &&
        path.substr(0, options_.url_prefix.size()) == options_.url_prefix &&
        path[options_.url_prefix.size()] == '/') {
      verb = path.substr(options_.url_prefix.size() + 1);
    }
    request_metrics_->count_request(verb, res.status);
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        res.status = 500;
        res.set_content(nlohmann::json{{"Error", "slicelab: " + what}}.dump(), "application/json");
      });
}

ExtenderServer::~ExtenderServer() {
  stop();
}

void ExtenderServer::set_metrics(MetricsText metrics) {
  std::lock_guard lock(metrics_mu_);
  metrics_ = std::move(metrics);
}

void ExtenderServer::set_observer(RequestObserver observer) {
  observer_ = std::move(observer);
}

void ExtenderServer::set_request_metrics(ExtenderMetrics& metrics) {
  request_metrics_ = &metrics;
}

void ExtenderServer::observe(std::string_view verb, int status,
                             std::chrono::steady_clock::time_point start) {
  if (request_metrics_ == nullptr && !observer_) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (observer_) observer_(verb, status, seconds);
  if (request_metrics_ != nullptr) request_metrics_->observe_duration(verb, seconds);
}

void ExtenderServer::record(DecisionResult result) {
  if (request_metrics_ != nullptr) request_metrics_->record_decision(result);
}

int ExtenderServer::bind(const std::string& host, int port) {
  const int bound = port == 0                           ? server_->bind_to_any_port(host)
                    : server_->bind_to_port(host, port) ? port
                                                        : -1;
  if (bound < 0) throw std::runtime_error(fmt::format("cannot listen on {}:{}", host, port));
  return bound;
}

void ExtenderServer::listen() {
  listening_ = true;
  if (!stop_requested_) server_->listen_after_bind();
  listening_ = false;
}

void ExtenderServer::stop() {
  stop_requested_ = true;
  for (int waited_ms = 0; listening_ && !server_->is_running() && waited_ms < 5000; ++waited_ms)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
}

// The handlers: a body the protocol does not allow is 400 with the reason in Error; a valid one
// is 200, with the decision's own error (a pod slicelab cannot read) in the result's Error.
ExtenderServer::Reply ExtenderServer::handle_filter(const std::string& body) {
  try {
    const ExtenderArgs args = parse_extender_args(body);
    const ExtenderFilterResult result = state_.filter(args);
    const bool none = (!result.node_names || result.node_names->empty()) &&
                      (!result.nodes || result.nodes->empty());
    record(!result.error.empty() ? DecisionResult::kRejected
           : none                ? DecisionResult::kUnschedulable
                                 : DecisionResult::kFeasible);
    return {200, answer(to_json(result))};
  } catch (const WireError& e) {
    record(DecisionResult::kRejected);
    return bad_request(e.what());
  } catch (const WireOverBudget& e) {
    record(DecisionResult::kRejected);
    return unavailable(e.what());
  } catch (const std::bad_alloc&) {
    record(DecisionResult::kRejected);
    return unavailable("out of memory while answering");
  }
}

ExtenderServer::Reply ExtenderServer::handle_prioritize(const std::string& body) {
  try {
    const ExtenderArgs args = parse_extender_args(body);
    const std::vector<HostPriority> result = state_.prioritize(args);
    record(DecisionResult::kPrioritized);
    return {200, answer(to_json(result))};
  } catch (const WireError& e) {
    record(DecisionResult::kRejected);
    return bad_request(e.what());
  } catch (const WireOverBudget& e) {
    record(DecisionResult::kRejected);
    return unavailable(e.what());
  } catch (const std::bad_alloc&) {
    record(DecisionResult::kRejected);
    return unavailable("out of memory while answering");
  }
}

ExtenderServer::Reply ExtenderServer::handle_bind(const std::string& body) {
  try {
    const ExtenderBindingArgs args = parse_binding_args(body);
    const ExtenderBindingResult result = state_.bind(args, writer_);
    record(result.error.empty() ? DecisionResult::kBound : DecisionResult::kBindFailed);
    return {200, answer(to_json(result))};
  } catch (const WireError& e) {
    record(DecisionResult::kRejected);
    return bad_request(e.what());
  } catch (const WireOverBudget& e) {
    record(DecisionResult::kRejected);
    return unavailable(e.what());
  } catch (const std::bad_alloc&) {
    record(DecisionResult::kRejected);
    return unavailable("out of memory while answering");
  }
}

}  // namespace slicelab::k8s
