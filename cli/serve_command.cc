#include "cli/serve_command.h"

#include <fmt/format.h>
#include <malloc.h>
#include <pthread.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "backends/k8s/api_config.h"
#include "backends/k8s/bearer_token.h"
#include "backends/k8s/cluster_connection.h"
#include "backends/k8s/cluster_recording.h"
#include "backends/k8s/extender_server.h"
#include "backends/k8s/extender_state.h"
#include "backends/k8s/heap_release.h"
#include "backends/k8s/metrics_endpoint.h"
#include "backends/k8s/recording_folder.h"
#include "backends/k8s/shadow_decision_log.h"
#include "cli/input_paths.h"
#include "cli/usage_error.h"
#include "sim/scenario/scenario.h"
#include "workloads/kube/kube_objects.h"
#include "workloads/kube/kube_quantity.h"
#include "workloads/rng.h"

namespace slicelab {
namespace {

// The version recording.json names as its writer (what --version prints).
constexpr const char* kServeRecordingWriter = "slicelab 0.1.0";

// Without an API server (snapshot files): binds are printed and succeed, so that a
// kube-scheduler pointed at the extender, or curl, can drive it offline.
class PrintingWriter final : public k8s::ClusterWriter {
 public:
  k8s::WriteResult patch_pod_annotations(
      const std::string& ns, const std::string& name,
      const std::map<std::string, std::string>& annotations) override {
    for (const auto& [key, value] : annotations)
      fmt::print(stderr, "annotate pod {}/{}: {}={}\n", ns, name, key, value);
    return {};
  }
  k8s::WriteResult bind_pod(const std::string& ns, const std::string& name,
                            const std::string& /*uid*/, const std::string& node) override {
    fmt::print(stderr, "bind pod {}/{} to node {}\n", ns, name, node);
    return {};
  }
};

// HOST:PORT, [IPv6]:PORT.
std::pair<std::string, int> host_port(const std::string& option, const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw UsageError(fmt::format("{}: expected HOST:PORT, found '{}'", option, listen));
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string digits = listen.substr(colon + 1);
  int port = -1;
  if (!digits.empty() && digits.size() <= 5 &&
      digits.find_first_not_of("0123456789") == std::string::npos) {
    port = std::stoi(digits);
  }
  if (port < 0 || port > 65535)
    throw UsageError(
        fmt::format("{}: expected a port 0..65535 after the last ':', found '{}'", option, listen));
  return {host, port};
}

std::shared_ptr<const k8s::BearerToken> read_token(const std::string& option,
                                                   const std::string& path) {
  if (path.empty()) return nullptr;
  try {
    return std::make_shared<k8s::BearerToken>(k8s::BearerToken::from_file(path));
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

// The process's heap: a burst of large bodies on 8 workers grew one malloc arena per thread,
// each keeping its freed pages (16 sequential 17 MB requests left 3.4 GB resident; 98 MB with one
// arena). Two arenas keep the workers' allocations from serializing on one lock.
void cap_malloc_arenas() {
  mallopt(M_ARENA_MAX, 2);
}

}  // namespace

ServeCommand::ServeCommand(CLI::App& app)
    : cmd_(app.add_subcommand("serve", "Run slicelab as a service for a real cluster")),
      extender_(nullptr),
      device_plugin_(*cmd_) {
  cmd_->require_subcommand(1);
  extender_ = cmd_->add_subcommand(
      "extender", "Scheduler extender: kube-scheduler asks slicelab's policy where pods go");
  extender_->add_option("--scenario", scenario_, "Scenario: GPU catalog, sharing mode, policies")
      ->required()
      ->check(existing_input_file());
  extender_->add_option("-p,--policy", policy_, "Policy name (default: the scenario's first)");
  extender_->add_option("--seed", seed_, "Seed of the random tie-breaks (default: the scenario's)");
  extender_->add_option("--listen", listen_,
                        "HOST:PORT to serve on (default 127.0.0.1:8888; another address needs "
                        "--client-ca-file or --auth-token-file, or --insecure-listen)");
  extender_
      ->add_option("--tls-cert-file", tls_cert_file_,
                   "Serve HTTPS with this PEM certificate (chain); read at start")
      ->check(existing_input_file());
  extender_
      ->add_option("--tls-private-key-file", tls_key_file_,
                   "The PEM private key of --tls-cert-file")
      ->check(existing_input_file());
  extender_
      ->add_option("--client-ca-file", client_ca_file_,
                   "Require client certificates this PEM CA signed (kube-scheduler's "
                   "tlsConfig certFile/keyFile); needs --tls-cert-file")
      ->check(existing_input_file());
  extender_
      ->add_option("--auth-token-file", auth_token_file_,
                   "Require 'Authorization: Bearer <the file's token>' on the verbs and "
                   "/metrics (with --client-ca-file: a certificate or the token)")
      ->check(existing_input_file());
  extender_->add_flag("--insecure-listen", insecure_listen_,
                      "Allow a non-loopback --listen without authentication");
  extender_->add_option("--probe-listen", probe_listen_,
                        "HOST:PORT serving only /healthz and /readyz, without authentication "
                        "(kubelet probes), and /metrics with --metrics-token-file");
  extender_
      ->add_option("--metrics-token-file", metrics_token_file_,
                   "Bearer token of /metrics on --probe-listen")
      ->check(existing_input_file());
  extender_
      ->add_option("--max-connections", max_connections_, "Open connections in all (default 256)")
      ->check(CLI::Range(1, 100000));
  extender_
      ->add_option("--max-connections-per-client", max_connections_per_client_,
                   "Open connections per client address (default 64)")
      ->check(CLI::Range(1, 100000));
  extender_->add_option("--memory-budget", memory_budget_,
                        "Memory for requests in flight: bodies and their parsed documents "
                        "(a quantity, default 512Mi)");
  extender_->add_option("--url-prefix", url_prefix_, "Path before /filter, /prioritize, /bind");
  extender_->add_option("--kubeconfig", kubeconfig_, "Kubeconfig file of the cluster");
  extender_->add_flag("--in-cluster", in_cluster_, "Use the pod's service account");
  extender_->add_option("--api-server", api_server_, "API server URL (with --token-file)");
  extender_->add_option("--token-file", token_file_, "Bearer token file for --api-server");
  extender_->add_flag("--shadow", shadow_,
                      "Prioritize-only, change nothing: record what slicelab would do");
  extender_->add_flag("--explain-log", explain_log_,
                      "Keep the explanation of the last 1,000 decisions for GET "
                      "/explain?pod=NAMESPACE/NAME (docs/explain.md)");
  extender_
      ->add_option("--record", record_dir_,
                   "With --shadow: write slicelab's decisions into this recording folder "
                   "(docs/recording-format.md; created when absent, its parent must exist)")
      ->check(CLI::NonexistentPath | CLI::ExistingDirectory);
  extender_
      ->add_option("--filter-returns", filter_returns_,
                   "chosen: only the policy's node (default); all: every feasible node")
      ->check(CLI::IsMember({"chosen", "all"}));
  extender_->add_option("--nodes", nodes_file_, "Node objects file: an offline source")
      ->check(existing_input_file());
  extender_->add_option("--pods", pods_file_, "Pod objects file: an offline source")
      ->check(existing_input_file());
}

int ServeCommand::run() const {
  if (device_plugin_.chosen()) return device_plugin_.run();
  return run_extender();
}

std::unique_ptr<k8s::ShadowDecisionLog> ServeCommand::start_decision_log(
    k8s::ExtenderState& state, const std::string& policy, const std::string& server) const {
  k8s::RecordingHeader header;
  header.started = k8s::format_recording_time(std::chrono::system_clock::now());
  header.server = server;
  header.slicelab = kServeRecordingWriter;
  k8s::ensure_recording_folder(record_dir_, header);
  auto log = std::make_unique<k8s::ShadowDecisionLog>(record_dir_, policy);
  log->set_figures_source([&state]() -> std::optional<k8s::DecisionFiguresLine> {
    const k8s::ExtenderSnapshot s = state.snapshot();
    if (!s.shadow) return std::nullopt;
    const k8s::ShadowFigures& f = *s.shadow;
    return k8s::DecisionFiguresLine{f.decisions,
                                    f.same_node,
                                    f.different_node,
                                    f.pending_placeable,
                                    f.fragmented_gpus_actual,
                                    f.fragmented_gpus_slicelab,
                                    0};
  });
  state.set_decision_sink(log.get());
  log->start();
  return log;
}

int ServeCommand::run_extender() const {
  cap_malloc_arenas();  // before any thread allocates
  // A peer that closes while the API client (cpp-httplib) writes must be an error, not the end
  // of the process (the server's sockets already write with MSG_NOSIGNAL).
  std::signal(SIGPIPE, SIG_IGN);
  // SIGINT and SIGTERM stop the server: blocked here, before any thread starts (every thread
  // inherits the mask: the server's workers, the watches), and awaited by one thread, so no
  // handler and no global are needed.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const auto [host, port] = host_port("--listen", listen_);
  k8s::ExtenderServerOptions server_options;
  server_options.url_prefix = url_prefix_;
  if (!server_options.url_prefix.empty() && server_options.url_prefix.back() == '/')
    server_options.url_prefix.pop_back();
  if (tls_cert_file_.empty() != tls_key_file_.empty())
    throw UsageError("--tls-cert-file and --tls-private-key-file go together");
  if (!client_ca_file_.empty() && tls_cert_file_.empty())
    throw UsageError("--client-ca-file needs --tls-cert-file and --tls-private-key-file");
  if (!record_dir_.empty() && !shadow_)
    throw UsageError("--record writes shadow mode's decisions: give --shadow too");
  if (!metrics_token_file_.empty() && probe_listen_.empty())
    throw UsageError("--metrics-token-file is the token of /metrics on --probe-listen: give both");
  if (!tls_cert_file_.empty())
    server_options.security.tls =
        k8s::ServerTlsFiles{tls_cert_file_, tls_key_file_, client_ca_file_};
  server_options.security.token = read_token("--auth-token-file", auth_token_file_);
  server_options.security.metrics_token = read_token("--metrics-token-file", metrics_token_file_);
  server_options.security.insecure_listen = insecure_listen_;
  std::string error;
  const auto budget_mib = parse_memory_mib(memory_budget_, error);
  if (!budget_mib || *budget_mib < 1 || *budget_mib > (int64_t{1} << 30))
    throw UsageError(
        fmt::format("--memory-budget: expected a quantity from 1Mi to 1Pi, found "
                    "'{}'{}",
                    memory_budget_, error.empty() ? "" : ": " + error));
  server_options.limits.memory_budget_bytes = static_cast<size_t>(*budget_mib) << 20;
  server_options.limits.max_connections = max_connections_;
  server_options.limits.max_connections_per_client = max_connections_per_client_;
  std::optional<std::pair<std::string, int>> probes;
  if (!probe_listen_.empty()) probes = host_port("--probe-listen", probe_listen_);

  const Scenario scenario = load_scenario(scenario_, seed_);
  const PolicySpec* policy = &scenario.policies.front();
  if (!policy_.empty()) {
    policy = nullptr;
    for (const PolicySpec& p : scenario.policies)
      if (p.name == policy_) policy = &p;
    if (policy == nullptr) throw UsageError(fmt::format("no policy '{}' in the scenario", policy_));
  }
  const bool offline = !nodes_file_.empty() || !pods_file_.empty();
  const bool api = !kubeconfig_.empty() || in_cluster_ || !api_server_.empty();
  if (offline == api)
    throw UsageError(
        "give the cluster: --kubeconfig, --in-cluster or --api-server with --token-file, or "
        "--nodes and --pods snapshot files");
  if (!api_server_.empty() && (!kubeconfig_.empty() || in_cluster_))
    throw UsageError("--api-server goes alone: not with --kubeconfig or --in-cluster");
  if (!kubeconfig_.empty() && in_cluster_)
    throw UsageError("give one of --kubeconfig and --in-cluster");
  k8s::ExtenderOptions options;
  options.shadow = shadow_;
  options.explain_log = explain_log_;
  options.filter_returns_all = filter_returns_ == "all";
  // The simulator's seed for this policy: same seed, same tie-breaks.
  k8s::ExtenderState state(scenario, *policy, derive_seed(scenario.seed, policy->name), options);
  // Shadow decisions on record: declared after the state, whose figures its writer reads, and
  // before the watches and the server, so that it stops after them (its last lines complete).
  std::unique_ptr<k8s::ShadowDecisionLog> decision_log;
  std::optional<k8s::ApiConfig> api_config;
  PrintingWriter printing;
  k8s::ClusterWriter* writer = &printing;
  // The API server's watches keep the state; binds go to it. Declared before the server, so
  // the server stops first and the watches after it.
  std::unique_ptr<k8s::ClusterConnection> link;
  if (api) {
    k8s::ApiConfig config;
    if (!kubeconfig_.empty()) {
      config = k8s::load_kubeconfig(kubeconfig_);
    } else if (in_cluster_) {
      config = k8s::in_cluster_config();
    } else {
      config.server = api_server_;
      config.token_file = token_file_;
      config.source = "--api-server " + api_server_;
    }
    api_config = config;
    link = std::make_unique<k8s::ClusterConnection>(std::move(config), state);
    writer = &link->writer();
  }
  // The cluster's own events beside the decisions, from watches of their own (the recorder's
  // deduplication and resume are slicelab record's); an offline source has none to record.
  // Opened first: it creates or checks the folder, which the decision log then finds.
  std::unique_ptr<k8s::ClusterRecording> recording;
  if (!record_dir_.empty()) {
    if (api_config) {
      k8s::ClusterRecordingOptions recording_options;
      recording_options.version = kServeRecordingWriter;
      recording =
          std::make_unique<k8s::ClusterRecording>(record_dir_, *api_config, recording_options);
      recording->start(/*background_ticks=*/true);
    }
    decision_log = start_decision_log(state, policy->name, api_config ? api_config->server : "");
  }
  if (!api) {
    {
      KubeObjects objects;
      if (!nodes_file_.empty()) read_kube_objects(nodes_file_, objects);
      if (!pods_file_.empty()) read_kube_objects(pods_file_, objects);
      state.load(objects);
    }
    // The files' text and parsed objects are freed: their heap goes back to the system.
    k8s::release_free_heap();
  }

  k8s::MetricsEndpoint metrics(state);  // outlives the server that records into it
  if (decision_log) {
    metrics.set_decision_log_source([&decision_log] { return decision_log->figures(); });
  }
  if (link) {
    metrics.set_watch_source([&link](k8s::WatchKind kind) {
      return kind == k8s::WatchKind::Node ? link->node_stats() : link->pod_stats();
    });
  }
  k8s::ExtenderServer server(state, *writer, server_options);
  server.set_metrics([&metrics] { return metrics.scrape(); });
  server.set_request_metrics(metrics.metrics());
  int bound = 0, probes_bound = 0;
  try {
    bound = server.bind(host, port);
    if (probes) probes_bound = server.bind_probes(probes->first, probes->second);
  } catch (const k8s::InsecureListenError& e) {
    throw UsageError(fmt::format(
        "--listen {}: {}. Give --client-ca-file (with --tls-cert-file and "
        "--tls-private-key-file) or --auth-token-file, listen on 127.0.0.1, or accept that anyone "
        "who reaches the address can bind pods with --insecure-listen",
        listen_, e.what()));
  }
  if (server_options.security.token && !server_options.security.tls && !insecure_listen_ &&
      host != "127.0.0.1" && host != "localhost" && host != "::1") {
    fmt::print(stderr,
               "slicelab extender: warning: --auth-token-file without --tls-cert-file: the token "
               "crosses the network in clear text\n");
  }
  if (link) link->start();
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    // The server first (no new decision starts), the watches meanwhile: both are bounded.
    std::thread watches([&] {
      if (link) link->stop();
    });
    server.stop();
    watches.join();
  });
  const k8s::ExtenderSnapshot s = state.snapshot();
  fmt::print(stderr,
             "slicelab extender: policy {} ({} nodes, {} pods known{}), listening on {}:{}{} "
             "({}){}\n",
             policy->name, s.nodes, s.pods_known, shadow_ ? ", shadow mode" : "", host, bound,
             url_prefix_,
             server_options.security.tls
                 ? (client_ca_file_.empty() ? "HTTPS" : "HTTPS, client certificates")
                 : "HTTP",
             probes ? fmt::format(", probes on {}:{}", probes->first, probes_bound) : "");
  server.listen();
  // Stopped by a signal: the waiter has returned. Stopped otherwise: wake it. SIGTERM is blocked
  // in every thread, so it ends the waiter's sigwait rather than the thread or the process.
  pthread_kill(waiter.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
  waiter.join();
  return 0;
}

}  // namespace slicelab
