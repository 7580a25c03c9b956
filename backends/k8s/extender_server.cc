#include "backends/k8s/extender_server.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

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

constexpr const char* kExtenderListener = "extender";

HttpRoute probe_route(std::string path, HttpRoute::Dispatch dispatch, HttpHandler handler) {
  return {"GET", std::move(path), HttpRoute::Access::kPublic, dispatch, std::move(handler)};
}

HttpResponse healthz(HttpRequest&, RequestContext&) {
  return {200, "text/plain", "ok\n"};
}

}  // namespace

ExtenderServer::ExtenderServer(ExtenderState& state, ClusterWriter& writer,
                               ExtenderServerOptions options)
    : state_(state),
      writer_(writer),
      options_(std::move(options)),
      server_(std::make_unique<BoundedHttpServer>(options_.limits)) {
  // Every answer of the extender's listener is counted just before it is written (so a client
  // that reads it finds it counted), also those the transport gives itself (401, 404, 413, 503),
  // which no handler sees.
  server_->set_observer([this](std::string_view listener, std::string_view method,
                               std::string_view path, int status) {
    if (listener == kExtenderListener) count_answer(method, path, status);
  });
}

ExtenderServer::~ExtenderServer() {
  stop();
}

HttpRoute ExtenderServer::verb_route(const std::string& verb,
                                     Reply (ExtenderServer::*handler)(const std::string&,
                                                                      BudgetCharge*)) {
  return {"POST", options_.url_prefix + "/" + verb, HttpRoute::Access::kAuthenticated,
          HttpRoute::Dispatch::kWorker,
          [this, handler, verb](HttpRequest& request, RequestContext& context) {
            const auto start = std::chrono::steady_clock::now();
            // The parse charges the request's share of the server's memory budget.
            Reply r = (this->*handler)(request.body, &context.charge());
            observe(verb, r.status, start);
            return HttpResponse{r.status, "application/json", std::move(r.body)};
          }};
}

HttpResponse ExtenderServer::serve_metrics() {
  MetricsText metrics;
  {
    std::lock_guard lock(metrics_mu_);
    metrics = metrics_;
  }
  return {200, std::string(MetricRegistry::kContentType), metrics ? metrics() : std::string()};
}

HttpResponse ExtenderServer::serve_readyz() {
  const bool ready = state_.ready();
  return {ready ? 200 : 503, "text/plain", ready ? "ok\n" : "waiting for the node and pod lists\n"};
}

namespace {

// The value of `pod=` in a query, percent-decoded (kube names hold no '+'); nullopt when absent
// or malformed. A key is at most a namespace (63), '/' and a name (253).
constexpr size_t kMaxExplainKey = 63 + 1 + 253;

// As the server's own errors: {"Error": "slicelab: ..."}.
std::string explain_error(std::string_view message) {
  return nlohmann::json{{"Error", "slicelab: " + std::string(message)}}.dump();
}

std::optional<std::string> explain_pod_key(std::string_view query) {
  std::optional<std::string> found;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (!pair.starts_with("pod=")) continue;
    if (found) return std::nullopt;  // given twice
    std::string key;
    const std::string_view value = pair.substr(4);
    for (size_t i = 0; i < value.size(); ++i) {
      if (value[i] != '%') {
        key += value[i];
        continue;
      }
      if (i + 2 >= value.size()) return std::nullopt;
      const auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
      };
      const int hi = hex(value[i + 1]), lo = hex(value[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      key += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    found = std::move(key);
  }
  if (!found || found->size() > kMaxExplainKey) return std::nullopt;
  const size_t slash = found->find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == found->size() ||
      found->find('/', slash + 1) != std::string::npos)
    return std::nullopt;
  return found;
}

}  // namespace

HttpResponse ExtenderServer::serve_explain(const std::string& query) {
  if (!state_.explain_log_on())
    return {404, "application/json",
            explain_error("the decision log is off (serve extender --explain-log turns it on)")};
  const std::optional<std::string> key = explain_pod_key(query);
  if (!key)
    return {400, "application/json",
            explain_error("expected ?pod=NAMESPACE/NAME (a namespace, '/', a name)")};
  std::optional<std::string> log = state_.explain(*key);
  if (!log)
    return {404, "application/json",
            explain_error("no decision logged for pod " + *key + " (the log keeps the last " +
                          std::to_string(kMaxLoggedDecisions) + ")")};
  return {200, "application/json", std::move(*log)};
}

int ExtenderServer::bind(const std::string& host, int port) {
  ListenerSpec spec;
  spec.name = kExtenderListener;
  spec.host = host;
  spec.port = port;
  spec.tls = options_.security.tls;
  spec.token = options_.security.token;
  spec.insecure = options_.security.insecure_listen;
  spec.routes = {
      verb_route("filter", &ExtenderServer::handle_filter),
      verb_route("prioritize", &ExtenderServer::handle_prioritize),
      verb_route("bind", &ExtenderServer::handle_bind),
      {"GET", "/metrics", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker,
       [this](HttpRequest&, RequestContext&) { return serve_metrics(); }},
      {"GET", "/explain", HttpRoute::Access::kAuthenticated, HttpRoute::Dispatch::kWorker,
       [this](HttpRequest& request, RequestContext&) { return serve_explain(request.query); }},
      probe_route("/healthz", HttpRoute::Dispatch::kInline, healthz),
      // The state's lock may be held by a decision: on a worker.
      probe_route("/readyz", HttpRoute::Dispatch::kWorker,
                  [this](HttpRequest&, RequestContext&) { return serve_readyz(); })};
  return server_->add_listener(std::move(spec));
}

int ExtenderServer::bind_probes(const std::string& host, int port) {
  ListenerSpec spec;
  spec.name = "probes";
  spec.host = host;
  spec.port = port;
  spec.routes = {probe_route("/healthz", HttpRoute::Dispatch::kInline, healthz),
                 probe_route("/readyz", HttpRoute::Dispatch::kWorker,
                             [this](HttpRequest&, RequestContext&) { return serve_readyz(); })};
  if (options_.security.metrics_token) {
    spec.token = options_.security.metrics_token;
    spec.routes.push_back({"GET", "/metrics", HttpRoute::Access::kAuthenticated,
                           HttpRoute::Dispatch::kWorker,
                           [this](HttpRequest&, RequestContext&) { return serve_metrics(); }});
  }
  return server_->add_listener(std::move(spec));
}

void ExtenderServer::listen() {
  server_->run();
}

void ExtenderServer::stop() {
  server_->stop();
}

void ExtenderServer::count_answer(std::string_view method, std::string_view path, int status) {
  if (request_metrics_ == nullptr) return;
  // Probes, scrapes and the decision log are not extender requests.
  if (method == "GET" &&
      (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/explain"))
    return;
  std::string_view verb = "other";
  const std::string& prefix = options_.url_prefix;
  if (path.size() > prefix.size() + 1 && path.substr(0, prefix.size()) == prefix &&
      path[prefix.size()] == '/') {
    verb = path.substr(prefix.size() + 1);
  }
  request_metrics_->count_request(verb, status);
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

namespace {

// Runs a verb's decision; a body the protocol does not allow is 400 with the reason in Error, a
// body or answer past its memory 503 (kube-scheduler tries again), each recorded as rejected.
template <class Decide, class Record>
ExtenderServer::Reply guarded(Decide&& decide, Record&& record) {
  try {
    return decide();
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

}  // namespace

// The handlers: a valid body is 200, with the decision's own error (a pod slicelab cannot read)
// in the result's Error.
ExtenderServer::Reply ExtenderServer::handle_filter(const std::string& body, BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderArgs args = parse_extender_args(body, {.charge = charge});
        const ExtenderFilterResult result = state_.filter(args);
        const bool none = (!result.node_names || result.node_names->empty()) &&
                          (!result.nodes || result.nodes->empty());
        record(!result.error.empty() ? DecisionResult::kRejected
               : none                ? DecisionResult::kUnschedulable
                                     : DecisionResult::kFeasible);
        return {200, answer_text(result)};
      },
      record);
}

ExtenderServer::Reply ExtenderServer::handle_prioritize(const std::string& body,
                                                        BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderArgs args = parse_extender_args(body, {.charge = charge});
        const std::vector<HostPriority> result = state_.prioritize(args);
        record(DecisionResult::kPrioritized);
        return {200, answer_text(result)};
      },
      record);
}

ExtenderServer::Reply ExtenderServer::handle_bind(const std::string& body, BudgetCharge* charge) {
  const auto record = [this](DecisionResult r) { this->record(r); };
  return guarded(
      [&]() -> Reply {
        const ExtenderBindingArgs args = parse_binding_args(body, {.charge = charge});
        const ExtenderBindingResult result = state_.bind(args, writer_);
        record(result.error.empty() ? DecisionResult::kBound : DecisionResult::kBindFailed);
        return {200, answer(to_json(result))};
      },
      record);
}

}  // namespace slicelab::k8s
